//! Resident values (`ResidentVec`) against the host path and rug, on the CPU backend
//! always and on the GPU when one is usable (with `RNS_REQUIRE_GPU=1` they fail
//! instead of skipping); and the pipelined host↔device transfers at sizes that
//! straddle their chunks.

use rns::backend::gpu::driver::raw;
use rns::{Backend, Error, Location, ResidentVec, RnsVec};
use rns_suite::{basis, dev, gpu_backend, random_with_edges as random, same, Gen, LiftCaps};
use rug::Integer;

/// The backends to check: the CPU, and the GPU when there is one.
fn backends() -> Vec<Backend> {
    let mut b = vec![Backend::Cpu];
    b.extend(gpu_backend());
    b
}

/// `(a·b + c)·a − (b − c)·(−a) + 3`, `a + 5`, `a · (−7)` on the host path.
fn host_chain(a: &RnsVec, b: &RnsVec, c: &RnsVec, s: &Integer) -> Vec<RnsVec> {
    let cpu = Backend::Cpu;
    let t = cpu.mul_add(a, b, c).unwrap();
    let u = cpu.sub(b, c).unwrap();
    let v = cpu.neg(a).unwrap();
    let w = cpu.mul_sub_mul(&t, a, &u, &v).unwrap();
    vec![
        cpu.add_scalar(&w, s).unwrap(),
        cpu.sub_scalar(a, s).unwrap(),
        cpu.mul_scalar(a, s).unwrap(),
    ]
}

fn resident_chain(a: &ResidentVec, b: &ResidentVec, c: &ResidentVec, s: &Integer) -> Vec<RnsVec> {
    let t = a.mul_add(b, c).unwrap();
    let w = t
        .mul_sub_mul(a, &b.sub(c).unwrap(), &a.neg().unwrap())
        .unwrap();
    [w.add_scalar(s), a.sub_scalar(s), a.mul_scalar(s)]
        .into_iter()
        .map(|x| x.unwrap().download().unwrap())
        .collect()
}

#[test]
fn resident_chains_match_the_host_path_and_rug() {
    for be in backends() {
        for (len, k) in [
            (1, 1),
            (33, 7),
            (1000, 32),
            (257, 330),
            (40, 2048),
            (150_001, 33),
        ] {
            let bs = basis(k);
            let what = format!("{} len {len} k {k}", be.name());
            let (a, b, c) = (
                random(&bs, len, 1),
                random(&bs, len, 2),
                random(&bs, len, 3),
            );
            let s = Gen::new(k as u64).in_range(bs.half());
            let (ra, rb, rc) = (
                be.upload(&a).unwrap(),
                be.upload(&b).unwrap(),
                be.upload(&c).unwrap(),
            );
            let want_loc = be
                .gpu()
                .map_or(Location::Host, |g| Location::Gpu(g.ordinal()));
            assert_eq!(ra.location(), want_loc, "{what}");
            same(ra.download().unwrap().residues(), a.residues(), &what);
            for (got, want) in resident_chain(&ra, &rb, &rc, &s)
                .iter()
                .zip(host_chain(&a, &b, &c, &s))
            {
                same(got.residues(), want.residues(), &what);
            }
            let cpu = Backend::Cpu;
            same(&ra.equal(&rb).unwrap(), &cpu.equal(&a, &b).unwrap(), &what);
            same(&ra.equal(&ra.clone()).unwrap(), &vec![true; len], &what);
            same(&ra.sign().unwrap(), &cpu.sign(&a).unwrap(), &what);
            same(
                &ra.compare(&rb).unwrap(),
                &cpu.compare(&a, &b).unwrap(),
                &what,
            );
            same(&ra.to_integers().unwrap(), &a.to_integers(), &what);
        }
    }
}

#[test]
fn resident_integers_agree_with_rug_at_the_range_edges() {
    for be in backends() {
        for k in [1, 3, 33, 330, 2048] {
            let bs = basis(k);
            let mut gen = Gen::new(7 + k as u64);
            let mut v = rns_suite::edge_values(&bs);
            v.extend((0..300).map(|_| gen.in_range(bs.half())));
            let x = be.upload(&RnsVec::from_integers(&bs, &v).unwrap()).unwrap();
            assert_eq!(x.to_integers_checked().unwrap(), v, "{} k {k}", be.name());
            let signs: Vec<_> = v.iter().map(|x| x.cmp0()).collect();
            assert_eq!(x.sign().unwrap(), signs, "{} k {k}", be.name());
            // x + x leaves the range for the large values: an error, never a wrong number.
            let twice = x.add(&x).unwrap();
            let big = v.iter().any(|y| y.clone().abs() * 2u32 > *bs.half());
            assert_eq!(
                twice.to_integers_checked().is_err(),
                big,
                "{} k {k}",
                be.name()
            );
        }
    }
}

#[test]
fn mixed_operands_are_clear_errors() {
    for be in backends() {
        let (b1, b2) = (basis(5), basis(6));
        let x = be.upload(&random(&b1, 10, 1)).unwrap();
        let other_basis = be.upload(&random(&b2, 10, 1)).unwrap();
        let shorter = be.upload(&random(&b1, 9, 1)).unwrap();
        assert_eq!(x.add(&other_basis).unwrap_err(), Error::BasisMismatch);
        assert_eq!(
            x.mul(&shorter).unwrap_err(),
            Error::LengthMismatch { left: 10, right: 9 }
        );
        assert!(matches!(
            x.equal(&shorter),
            Err(Error::LengthMismatch { .. })
        ));
        let too_big = Integer::from(b1.half() + 1u32);
        assert!(matches!(
            x.add_scalar(&too_big),
            Err(Error::OutOfRange { .. })
        ));
        assert!(matches!(
            x.elementwise(rns::Op::Add, &[], None),
            Err(Error::Shape(_))
        ));
        if be.gpu().is_some() {
            let host = Backend::Cpu.upload(&random(&b1, 10, 1)).unwrap();
            let e = x.add(&host).unwrap_err();
            assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
            assert!(e.to_string().contains("host memory"), "{e}");
            assert!(matches!(
                host.compare(&x),
                Err(Error::DeviceMismatch { .. })
            ));
        }
    }
}

#[test]
fn resident_values_outlive_their_backend() {
    let Some(g) = gpu_backend() else { return };
    let b = basis(9);
    let a = random(&b, 5000, 4);
    let x = g.upload(&a).unwrap();
    drop(g);
    let y = x.mul(&x).unwrap();
    same(
        y.download().unwrap().residues(),
        Backend::Cpu.mul(&a, &a).unwrap().residues(),
        "after the backend is gone",
    );
}

#[test]
fn pipelined_transfers_straddle_their_chunks() {
    let Some(g) = gpu_backend() else { return };
    let d = dev(&g);
    // Whole-buffer transfers through the page-locked ring: sizes around its 32 MiB chunks.
    for words in [(8 << 20) - 1, (8 << 20) + 1, 3 * (8 << 20) + 12345] {
        let x: Vec<u32> = (0..words as u32)
            .map(|i| i.wrapping_mul(2_654_435_761))
            .collect();
        let buf = raw::upload_words(d, &x).unwrap();
        same(
            &raw::download_words(d, &buf, words).unwrap(),
            &x,
            &format!("{words} words"),
        );
    }
    // Host-path operations in many chunks: a memory cap forces them small.
    let b = basis(33);
    let (x, y) = (random(&b, 150_001, 5), random(&b, 150_001, 6));
    let cpu = Backend::Cpu;
    for cap in [None, Some(1 << 20)] {
        let _lift = LiftCaps::hold();
        d.config().set_memory_limit(cap);
        let what = format!("cap {cap:?}");
        same(
            g.mul(&x, &y).unwrap().residues(),
            cpu.mul(&x, &y).unwrap().residues(),
            &what,
        );
        same(
            &g.equal(&x, &y).unwrap(),
            &cpu.equal(&x, &y).unwrap(),
            &what,
        );
        same(
            &g.compare(&x, &y).unwrap(),
            &cpu.compare(&x, &y).unwrap(),
            &what,
        );
        let v = x.to_integers();
        same(
            g.to_rns(&b, &v).unwrap().residues(),
            RnsVec::from_integers(&b, &v).unwrap().residues(),
            &what,
        );
        same(&g.to_integers(&x).unwrap(), &v, &what);
    }
}

#[test]
fn mixed_radix_blocks_of_every_width_and_in_place_match_the_cpu() {
    let Some(g) = gpu_backend() else { return };
    let _lift = LiftCaps::hold();
    let cpu = Backend::Cpu;
    // Bases on both sides of the conversion's groups of four digits, and a large one.
    for k in [1, 3, 4, 5, 8, 11, 600] {
        let b = basis(k);
        let (x, y) = (random(&b, 1000, 9), random(&b, 1000, 10));
        // The device's maximum; tiles of 2 numbers and of 1; no tile at all (in place).
        for limit in [None, Some(k * 4 * 3), Some(k * 4), Some(0)] {
            dev(&g).config().set_shared_memory_limit(limit);
            let what = format!("{k} moduli, shared memory {limit:?}");
            same(
                &g.mixed_radix_digits(&x).unwrap(),
                &cpu.mixed_radix_digits(&x).unwrap(),
                &what,
            );
            same(
                &g.compare(&x, &y).unwrap(),
                &cpu.compare(&x, &y).unwrap(),
                &what,
            );
            same(&g.sign(&y).unwrap(), &cpu.sign(&y).unwrap(), &what);
            same(&g.to_integers(&x).unwrap(), &x.to_integers(), &what);
        }
    }
}
