//! A few large matrices modulo primes factored with their rows split across devices
//! (`ops::few_devices`: panels in turn on each device, the trailing updates shared)
//! against the CPU backend bit for bit: determinants, ranks, solves and inverses. Panel
//! counts that the devices divide and that they do not, a last panel of one column,
//! too few panels to split, panel blocks singular on either device (the primes redone
//! on one device), singular matrices, a device whose memory cap leaves no room (no
//! split), both sides of the default rule's `SPLIT_MIN_WORK`, failures injected on the
//! second device, and calls from several threads. On a machine with one GPU the device
//! is listed twice; `RNS_REQUIRE_GPUS=2` demands two.

use rns::backend::gpu::ops::few_devices::{det_split, solve_split, split_panel, Rhs};
use rns::backend::gpu::{Fault, FaultSite, Gpu};
use rns::{Backend, Devices, Error, IntMatrix, ModMatrices};
use rns_suite::{gpu_backend, images, Gen, LiftCaps};
use rug::Integer;
use std::sync::Arc;

/// Two devices (the one GPU twice where there is one).
fn pair() -> Option<Vec<Arc<Gpu>>> {
    gpu_backend()?;
    let gpus = Devices::All.open().expect("the devices open");
    if let Ok(n) = std::env::var("RNS_REQUIRE_GPUS") {
        let n: usize = n.parse().expect("RNS_REQUIRE_GPUS is a number");
        assert!(gpus.len() >= n, "RNS_REQUIRE_GPUS={n}: {} open", gpus.len());
    }
    Some(match gpus.len() {
        1 => vec![gpus[0].clone(), gpus[0].clone()],
        _ => gpus[..2].to_vec(),
    })
}

/// Every modular operation on `a` (and right-hand sides `b`) on `be` and the CPU, and
/// the split itself (`det_split`, `solve_split`) where it applies: the determinants
/// equal, or 0 for a prime with a singular block. Whether the split applied and found
/// every determinant and the solution.
fn same_as_cpu(be: &Backend, a: &ModMatrices, b: &ModMatrices, what: &str) -> bool {
    let cpu = Backend::Cpu;
    let dets = cpu.det_mod(a).unwrap();
    assert_eq!(be.det_mod(a).unwrap(), dets, "{what}: det");
    assert_eq!(
        be.rank_mod(a).unwrap(),
        cpu.rank_mod(a).unwrap(),
        "{what}: rank"
    );
    let solved = cpu.solve_mod(a, b);
    match &solved {
        Ok(x) => {
            assert_eq!(&be.solve_mod(a, b).unwrap(), x, "{what}: solve");
            let inv = cpu.inverse_mod(a).unwrap();
            assert_eq!(be.inverse_mod(a).unwrap(), inv, "{what}: inverse");
        }
        Err(e) => assert_eq!(&be.solve_mod(a, b).unwrap_err(), e, "{what}: singular"),
    }
    let (n, primes) = (a.rows(), a.primes());
    let moduli = a.moduli();
    let gpus = be.gpus();
    let mut whole = true;
    match split_panel(gpus, (n, n), primes.len(), false).unwrap() {
        Some(panel) => {
            let got = det_split(gpus, moduli, n, panel, a.data()).unwrap();
            for (c, (&g, &w)) in got.iter().zip(&dets).enumerate() {
                assert!(g == w || g == 0, "{what}: split det modulo {}", primes[c]);
            }
            whole &= got == dets;
        }
        None => whole = false,
    }
    let k = b.cols();
    match split_panel(gpus, (n, n + k), primes.len(), true).unwrap() {
        Some(panel) => {
            let x = solve_split(gpus, moduli, (n, panel), a.data(), Rhs::Given(b.data(), k));
            match (x.unwrap(), &solved) {
                (Some(got), Ok(x)) => assert_eq!(&got[..], x.data(), "{what}: split solve"),
                (Some(_), Err(_)) => panic!("{what}: a split solve of a singular system"),
                (None, _) => whole = false,
            }
        }
        None => whole = false,
    }
    whole
}

/// `e` (an `n × n` matrix's entries) made the identity in its first `at` rows and
/// columns, with the block at rows and columns `at..at + w` zero: the panel block at
/// `at` is singular when it is reached (the rows above leave it as it is), the matrix
/// in general not.
fn zero_block(mut e: Vec<Integer>, n: usize, at: usize, w: usize) -> IntMatrix {
    for i in 0..n {
        for j in 0..n {
            if i < at || j < at {
                e[i * n + j] = Integer::from((i == j) as u32);
            } else if i < at + w && j < at + w {
                e[i * n + j] = Integer::new();
            }
        }
    }
    IntMatrix::new(n, n, e).unwrap()
}

/// A random `n × n` system with two right-hand sides modulo two primes, and its
/// determinants and solution on the CPU.
fn system(gen: &mut Gen, n: usize) -> (ModMatrices, ModMatrices, Vec<u32>, ModMatrices) {
    let (a, b) = (
        images(&gen.matrix(n, n, 64), 2),
        images(&gen.matrix(n, 2, 64), 2),
    );
    let cpu = Backend::Cpu;
    let (dets, x) = (cpu.det_mod(&a).unwrap(), cpu.solve_mod(&a, &b).unwrap());
    (a, b, dets, x)
}

#[test]
fn factorizations_split_by_rows_match_the_cpu() {
    let Some(gpus) = pair() else { return };
    let _caps = LiftCaps::hold();
    for g in &gpus {
        g.config().set_inverse_panels(Some(1), Some(16));
    }
    let be = Backend::Gpus {
        gpus: gpus.clone().into(),
        min_work: 0,
        min_split: 0,
    };
    let mut gen = Gen::new(52);
    // Panels of 16: one (no split), two (one a device), three (the first device two),
    // a last panel of one column, four primes; 100 = 6 × 16 + 4.
    assert_eq!(split_panel(&gpus, (16, 16), 1, false).unwrap(), None);
    for (n, count) in [(16, 1), (32, 1), (48, 2), (65, 1), (100, 4)] {
        let a = images(&gen.matrix(n, n, 64), count);
        let b = images(&gen.matrix(n, 3, 64), count);
        let split = same_as_cpu(&be, &a, &b, &format!("{n}² modulo {count} primes"));
        assert_eq!(split, n > 16, "{n}²: split");
    }
    let n = 80;
    let b = images(&gen.matrix(n, 2, 20), 2);
    // Singular blocks, the matrices not: the first panel's (device 0), the second's
    // (device 1), the last's.
    for at in [0, 16, 64] {
        let a = zero_block(gen.matrix(n, n, 30).entries().to_vec(), n, at, 16);
        let split = same_as_cpu(&be, &images(&a, 2), &b, &format!("zero block at {at}"));
        assert!(!split, "zero block at {at}: found singular");
    }
    // The rows of the identity reversed: every block on the anti-diagonal is zero.
    let e: Vec<Integer> = (0..n * n)
        .map(|e| Integer::from((e % n + e / n == n - 1) as u32))
        .collect();
    same_as_cpu(
        &be,
        &images(&IntMatrix::new(n, n, e).unwrap(), 2),
        &b,
        "anti-identity",
    );
    // Singular: a repeated row across the devices' rows, a low rank.
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    let row: Vec<Integer> = e[3 * n..4 * n].to_vec();
    e[20 * n..21 * n].clone_from_slice(&row);
    let twice = images(&IntMatrix::new(n, n, e).unwrap(), 2);
    same_as_cpu(&be, &twice, &b, "repeated row");
    assert!(matches!(
        be.inverse_mod(&twice),
        Err(Error::Singular { .. })
    ));
    let low = images(&gen.low_rank(n, n, 50, 20), 1);
    same_as_cpu(&be, &low, &images(&gen.matrix(n, 1, 20), 1), "rank 50");
    // A device with no room for its rows: no split, the answers from one device.
    let a = images(&gen.matrix(96, 96, 64), 1);
    gpus[1].config().set_memory_limit(Some(1 << 10));
    assert_eq!(split_panel(&gpus, (96, 96), 1, false).unwrap(), None);
    gpus[1].config().set_memory_limit(None);
    if !Arc::ptr_eq(&gpus[0], &gpus[1]) {
        same_as_cpu(
            &be,
            &a,
            &images(&gen.matrix(96, 1, 9), 1),
            "no room on one device",
        );
    }
    // Memory for the parts but not for the whole matrix beside them: each block of rows
    // uploaded apart (the least cap that splits, found by halving).
    let n = 96;
    let (a, b, dets, x) = system(&mut gen, n);
    for (cols, jordan) in [(n, false), (n + 2, true)] {
        let fits = |cap: usize| {
            gpus.iter()
                .for_each(|g| g.config().set_memory_limit(Some(cap)));
            split_panel(&gpus, (n, cols), 2, jordan).unwrap()
        };
        let (mut lo, mut hi) = (1usize, 1usize << 30);
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            match fits(mid) {
                Some(_) => hi = mid,
                None => lo = mid,
            }
        }
        let panel = fits(hi).expect("splits at the cap found");
        let moduli = a.moduli();
        match jordan {
            false => {
                let got = det_split(&gpus, moduli, n, panel, a.data()).unwrap();
                assert_eq!(got, dets, "det by blocks at a cap of {hi} bytes");
            }
            true => {
                let rhs = Rhs::Given(b.data(), 2);
                let got = solve_split(&gpus, moduli, (n, panel), a.data(), rhs).unwrap();
                assert_eq!(&got.unwrap()[..], x.data(), "solve by blocks at {hi} bytes");
            }
        }
    }
    gpus.iter().for_each(|g| g.config().set_memory_limit(None));
    // The default rule: split from SPLIT_MIN_WORK, the work n³ a matrix: 161³ < 2^22
    // ≤ 162³.
    let default = Backend::on_gpus(gpus.clone(), 0).unwrap();
    for (n, devices) in [(161, 1), (162, 2)] {
        assert_eq!(default.factor_devices(n, 1).len(), devices, "{n}²");
        let a = images(&gen.matrix(n, n, 64), 1);
        let split = same_as_cpu(
            &default,
            &a,
            &images(&gen.matrix(n, 1, 9), 1),
            &format!("{n}²"),
        );
        assert!(split, "{n}²: the split itself");
    }
    // A failing allocation, copy, launch or wait on the second device mid-way: a clean
    // GPU error (or, not reached, the answer), and the next call right.
    let n = 64;
    let (a, b, dets, x) = system(&mut gen, n);
    for site in [
        FaultSite::Alloc,
        FaultSite::Copy,
        FaultSite::Launch,
        FaultSite::Sync,
    ] {
        for nth in [1, 3, 9, 27] {
            gpus[1].config().set_fault(Some(Fault { site, nth }));
            let got = (be.det_mod(&a), be.solve_mod(&a, &b));
            gpus[1].config().set_fault(None);
            for (what, err) in [
                ("det", got.0.as_ref().err()),
                ("solve", got.1.as_ref().err()),
            ] {
                if let Some(e) = err {
                    let clean = matches!(e, Error::Gpu { .. } | Error::GpuOutOfMemory { .. });
                    assert!(clean, "{site} #{nth}, {what}: {e:?}");
                }
            }
            if let Ok(d) = got.0 {
                assert_eq!(d, dets, "{site} #{nth}: det");
            }
            if let Ok(y) = got.1 {
                assert_eq!(y, x, "{site} #{nth}: solve");
            }
            assert_eq!(be.det_mod(&a).unwrap(), dets, "{site} #{nth}: the next det");
            assert_eq!(
                be.solve_mod(&a, &b).unwrap(),
                x,
                "{site} #{nth}: the next solve"
            );
        }
    }
    // From several threads at once, each its own matrices.
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let be = &be;
            s.spawn(move || {
                let mut gen = Gen::new(100 + t);
                let a = images(&gen.matrix(70, 70, 64), 2);
                let b = images(&gen.matrix(70, 2, 64), 2);
                assert!(same_as_cpu(be, &a, &b, &format!("thread {t}")));
            });
        }
    });
    for g in &gpus {
        g.config().set_inverse_panels(None, None);
    }
}
