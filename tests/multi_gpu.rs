//! Several GPUs sharing the channels of one computation ([`Backend::Gpus`]) against one
//! GPU and the CPU, bit for bit: determinants, ranks, solves, exact products, matrices
//! modulo primes, univariate and bivariate resultants; prime counts that the device
//! count does not divide; and problems larger than a device's memory cap. On a machine
//! with one GPU the device is listed more than once (its threads then share it), so the
//! splitting runs everywhere; `RNS_REQUIRE_GPUS=N` demands N distinct devices. Without
//! a usable GPU these tests print that they skip (fail with `RNS_REQUIRE_GPU=1`).

use rns::backend::gpu::Gpu;
use rns::backend::Plan;
use rns::{
    det, resultant, resultant_xy, Backend, BackendChoice, BiPoly, Devices, IntMatrix, ModMatrices,
};
use rns_suite::{
    bareiss_det, basis, gpu_backend, naive_matmul, random_with_edges as random, same, Gen,
};
use rug::Integer;
use std::sync::Arc;

/// The backends compared: every usable device (listed twice when there is only one),
/// and three shares over the devices (uneven weights when some device comes twice).
fn multi() -> Option<Vec<Backend>> {
    gpu_backend()?;
    let gpus = Devices::All.open().expect("the devices open");
    if let Ok(n) = std::env::var("RNS_REQUIRE_GPUS") {
        let n: usize = n.parse().expect("RNS_REQUIRE_GPUS is a number");
        assert!(
            gpus.len() >= n,
            "RNS_REQUIRE_GPUS={n} but {} devices open",
            gpus.len()
        );
    }
    let two: Vec<Arc<Gpu>> = match gpus.len() {
        1 => vec![gpus[0].clone(), gpus[0].clone()],
        _ => gpus.clone(),
    };
    let three: Vec<Arc<Gpu>> = (0..3).map(|i| gpus[i % gpus.len()].clone()).collect();
    let all = Backend::select_devices(BackendChoice::Gpu, &Devices::All).unwrap();
    assert_eq!(all.gpus().len(), gpus.len());
    // Every size split, however small (the default leaves small work to the first).
    let split = |gpus: Vec<Arc<Gpu>>| Backend::Gpus {
        gpus: gpus.into(),
        min_work: 0,
        min_split: 0,
    };
    let small = Backend::on_gpus(two.clone(), 0).unwrap();
    assert!(matches!(small.plan(1 << 10), Plan::Gpu(_)));
    Some(vec![split(two), split(three)])
}

#[test]
fn determinants_and_exact_linear_algebra_match_one_gpu_and_the_cpu() {
    let Some(multi) = multi() else { return };
    let one = gpu_backend().unwrap();
    let mut gen = Gen::new(21);
    for be in &multi {
        assert!(matches!(be.plan(usize::MAX), Plan::Devices(g) if g.len() >= 2));
        for (n, bits) in [(1, 10), (2, 64), (23, 64), (61, 100), (130, 20)] {
            let a = gen.matrix(n, n, bits);
            let want = bareiss_det(&a);
            assert_eq!(det(&a, be).unwrap(), want, "det {n}");
            assert_eq!(det(&a, &one).unwrap(), want, "det {n} on one GPU");
        }
        let singular = gen.low_rank(40, 40, 39, 30);
        assert_eq!(det(&singular, be).unwrap(), 0);
        for (n, k, p, bits) in [(1, 1, 1, 5), (17, 40, 9, 1000), (64, 64, 64, 64)] {
            let (a, b) = (gen.matrix(n, k, bits), gen.matrix(k, p, bits));
            assert_eq!(
                rns::matmul(&a, &b, be).unwrap(),
                naive_matmul(&a, &b),
                "matmul {n}×{k}×{p}"
            );
        }
        // A product leaving the basis's range: the same error (and entry) as the CPU's.
        let small = basis(3);
        let big = Integer::from(1) << 47u32;
        let mut x = vec![Integer::from(5); 6 * 2];
        x[9] = big.clone();
        let y = vec![big.clone(); 2 * 4];
        assert_eq!(
            be.matmul_integers(&small, &x, &y, (6, 2, 4)),
            Backend::Cpu.matmul_integers(&small, &x, &y, (6, 2, 4)),
        );
        assert!(be.matmul_integers(&small, &x, &y, (6, 2, 4)).is_err());
        for (rows, cols, rank) in [(30, 30, 30), (50, 40, 17), (12, 80, 12)] {
            let a = gen.low_rank(rows, cols, rank, 20);
            assert_eq!(rns::rank(&a, be).unwrap(), rank, "rank {rows}×{cols}");
        }
        for (n, bits) in [(1, 3), (30, 64), (45, 100)] {
            let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, 2, bits));
            let want = rns::solve(&a, &b, &Backend::Cpu);
            assert_eq!(rns::solve(&a, &b, be), want, "solve {n}");
            let inv = rns::solve(&a, &IntMatrix::identity(n), be);
            assert_eq!(inv, rns::solve(&a, &IntMatrix::identity(n), &one));
        }
        assert!(matches!(
            rns::solve(&singular, &IntMatrix::identity(40), be),
            Err(rns::Error::Singular { prime: None })
        ));
    }
}

fn mod_matrices(k: usize, rows: usize, cols: usize, seed: u64) -> ModMatrices {
    let b = basis(k);
    let v = random(&b, rows * cols, seed);
    ModMatrices::new(&b.primes(), rows, cols, v.residues().to_vec()).unwrap()
}

#[test]
fn matrices_modulo_many_primes_match_the_cpu() {
    let Some(multi) = multi() else { return };
    let cpu = Backend::Cpu;
    let mut gen = Gen::new(8);
    for be in &multi {
        for (n, k, p, primes) in [
            (1, 1, 1, 1),
            (3, 5, 7, 41),
            (65, 17, 63, 5),
            (100, 80, 90, 9),
        ] {
            let (x, y) = (mod_matrices(primes, n, k, 1), mod_matrices(primes, k, p, 2));
            let got = be.matmul_mod(&x, &y).unwrap();
            same(got.data(), cpu.matmul_mod(&x, &y).unwrap().data(), "matmul");
        }
        for (rows, cols, rank, primes) in [(1, 1, 1, 3), (5, 9, 3, 17), (40, 40, 40, 65)] {
            let b = basis(primes);
            let a = ModMatrices::from_int_matrix(&gen.low_rank(rows, cols, rank, 20), &b.primes())
                .unwrap();
            let (ge, ce) = (be.rref_mod(&a).unwrap(), cpu.rref_mod(&a).unwrap());
            same(ge.rref.data(), ce.rref.data(), "rref");
            same(&ge.ranks, &ce.ranks, "ranks");
            same(
                &be.rank_mod(&a).unwrap(),
                &cpu.rank_mod(&a).unwrap(),
                "rank",
            );
            if rows == cols {
                same(&be.det_mod(&a).unwrap(), &cpu.det_mod(&a).unwrap(), "det");
                let r = mod_matrices(primes, rows, 3, 9);
                assert_eq!(be.solve_mod(&a, &r), cpu.solve_mod(&a, &r), "solve {rows}");
            }
        }
        let b = basis(37);
        let rv = random(&b, 24 * 24, 4);
        same(
            &be.det_per_channel(&rv, 24).unwrap(),
            &cpu.det_per_channel(&rv, 24).unwrap(),
            "det per channel",
        );
    }
}

#[test]
fn digits_and_reconstruction_match_the_cpu() {
    let Some(multi) = multi() else { return };
    for be in &multi {
        for (len, k) in [(1, 3), (33, 9), (1000, 70), (257, 300)] {
            let v = random(&basis(k), len, len as u64);
            same(
                &be.mixed_radix_digits(&v).unwrap(),
                &Backend::Cpu.mixed_radix_digits(&v).unwrap(),
                &format!("digits {len}×{k}"),
            );
            assert_eq!(be.to_integers(&v).unwrap(), v.to_integers(), "{len}×{k}");
        }
    }
}

#[test]
fn resultants_match_the_cpu() {
    let Some(multi) = multi() else { return };
    let mut gen = Gen::new(31);
    for be in &multi {
        for (m, n, bits) in [(0, 3, 10), (1, 1, 64), (20, 17, 200), (60, 45, 300)] {
            let (f, h) = (gen.poly(m, bits), gen.poly(n, bits));
            let want = resultant(&f, &h, &Backend::Cpu).unwrap();
            assert_eq!(resultant(&f, &h, be).unwrap(), want, "{m} {n}");
        }
        for (dy, dx, bits) in [(1, 1, 8), (3, 4, 60), (6, 5, 200)] {
            let (f, h): (BiPoly, BiPoly) = (gen.bipoly(dy, dx, bits), gen.bipoly(dy + 1, dx, bits));
            let want = resultant_xy(&f, &h, &Backend::Cpu).unwrap();
            assert_eq!(resultant_xy(&f, &h, be).unwrap(), want, "xy {dy} {dx}");
        }
    }
}

/// Lifts every device's memory cap when dropped.
/// The devices' settings, held by a test that changes them (the other tests of the
/// binary that change settings wait) and put back when it ends, on every device.
struct Settings(Vec<Arc<Gpu>>, #[allow(dead_code)] rns_suite::LiftCaps);

impl Settings {
    fn hold(gpus: &[Arc<Gpu>]) -> Settings {
        Settings(gpus.to_vec(), rns_suite::LiftCaps::hold())
    }
}

impl Drop for Settings {
    fn drop(&mut self) {
        for g in &self.0 {
            g.config().set_memory_limit(None);
            g.config().set_lift_rows(None);
            g.config().set_lift_primes(None);
        }
    }
}

#[test]
fn problems_larger_than_a_device_run_in_chunks() {
    let Some(multi) = multi() else { return };
    let gpus = Devices::All.open().unwrap();
    let _settings = Settings::hold(&gpus);
    for g in &gpus {
        g.config().set_memory_limit(Some(60_000));
    }
    let mut gen = Gen::new(3);
    for be in &multi {
        let a = gen.matrix(48, 48, 64);
        assert_eq!(det(&a, be).unwrap(), bareiss_det(&a), "det under a cap");
        let (x, y) = (gen.matrix(30, 20, 500), gen.matrix(20, 25, 500));
        assert_eq!(rns::matmul(&x, &y, be).unwrap(), naive_matmul(&x, &y));
        let b = gen.matrix(48, 1, 64);
        assert_eq!(
            rns::solve(&a, &b, be),
            rns::solve(&a, &b, &Backend::Cpu),
            "solve under a cap"
        );
        let (f, h) = (gen.bipoly(4, 5, 100), gen.bipoly(5, 4, 100));
        assert_eq!(
            resultant_xy(&f, &h, be).unwrap(),
            resultant_xy(&f, &h, &Backend::Cpu).unwrap()
        );
    }
}

/// Two distinct devices with peer access both ways, if this machine has them.
fn peer_pair() -> Option<Vec<Arc<Gpu>>> {
    gpu_backend()?;
    let gpus = Devices::All.open().expect("the devices open");
    let pair = gpus.get(..2)?.to_vec();
    let both = pair[0].peer_access(&pair[1]).unwrap() && pair[1].peer_access(&pair[0]).unwrap();
    if !both {
        println!("skipped: devices 0 and 1 have no peer access: the lifting is not split");
        return None;
    }
    Some(pair)
}

#[test]
fn dixon_lifting_split_across_two_devices_matches_one_device_and_the_cpu() {
    use rns::backend::gpu::LiftRows;
    use rns_suite::lifting::{same_as_cpu, solve_same_as_cpu, unit_upper};
    let Some(pair) = peer_pair() else {
        if std::env::var("RNS_REQUIRE_GPUS").is_ok_and(|n| n != "1") {
            panic!("RNS_REQUIRE_GPUS asks for several devices: the split lifting must run");
        }
        println!("skipped: the split lifting needs two devices with peer access");
        return;
    };
    let _settings = Settings::hold(&pair);
    // Split whatever the size (the default split rule leaves small liftings to the first
    // device: checked below).
    let two = Backend::Gpus {
        gpus: pair.clone().into(),
        min_work: 0,
        min_split: 0,
    };
    let one = Backend::on_gpus(vec![pair[0].clone()], 0).unwrap();
    let set = |rows: Option<LiftRows>, primes: Option<usize>| {
        for g in &pair {
            g.config().set_lift_rows(rows);
            g.config().set_lift_primes(primes);
        }
    };
    let mut gen = Gen::new(52);
    // Rows read from global memory (the split's kernel) on every device: all blocks, one
    // block (several rows a warp), 34 blocks; by one to four primes a step; two rows
    // (one a device) and orders that two does not divide.
    for (rows, primes) in [
        (LiftRows::Global { blocks: None }, None),
        (LiftRows::Global { blocks: Some(1) }, Some(1)),
        (LiftRows::Global { blocks: Some(34) }, Some(2)),
        (LiftRows::Global { blocks: None }, Some(3)),
    ] {
        set(Some(rows), primes);
        let full = matches!(rows, LiftRows::Global { blocks: None });
        for (n, bits) in [(2, 64), (3, 10), (61, 64), (130, 100), (301, 64)] {
            if n > 130 && !full {
                continue;
            }
            let a = gen.matrix(n, n, bits);
            let what = format!("{rows:?} {primes:?}: det {n}×{n}");
            let d = same_as_cpu(&two, &a, n <= 130, &what);
            let (d1, st1) = rns::det_with(&a, &one, &rns::Method::Dixon.into()).unwrap();
            let (_, st2) = rns::det_with(&a, &two, &rns::Method::Dixon.into()).unwrap();
            assert_eq!(d, d1, "{what}: as on one device");
            assert_eq!((st1.lifting_devices, st2.lifting_devices), (1, 2), "{what}");
            for l in [1, 4] {
                let b = gen.matrix(n, l, bits);
                solve_same_as_cpu(&two, &a, &b, &format!("{what}, {l} columns"));
            }
        }
        // The default rule: a lifting splits from SPLIT_MIN_WORK (its work n³ for one
        // right-hand side): 161³ < 2^22 ≤ 162³.
        if full && primes.is_none() {
            let default = Backend::on_gpus(pair.clone(), 0).unwrap();
            for (n, devices) in [(161, 1), (162, 2)] {
                let a = gen.matrix(n, n, 64);
                let (d, st) = rns::det_with(&a, &default, &rns::Method::Dixon.into()).unwrap();
                assert_eq!(st.lifting_devices, devices, "det {n}² by the default rule");
                assert_eq!(
                    d,
                    rns::det(&a, &one).unwrap(),
                    "det {n}² by the default rule"
                );
            }
        }
        // A known determinant: U·Uᵀ with U unitriangular is unimodular.
        let u = unit_upper(&mut gen, 200, 20);
        let uut = rns_suite::naive_matmul(&u, &u.transpose());
        assert_eq!(rns::det(&uut, &two).unwrap(), 1, "{rows:?}: U·Uᵀ");
        // Singular: no divisor; the multimodular path decides on every device.
        let s = gen.low_rank(90, 90, 89, 40);
        assert_eq!(rns::det(&s, &two).unwrap(), 0, "{rows:?}: singular");
        let got = rns::solve_with(&s, &gen.matrix(90, 1, 5), &two, &rns::Method::Dixon.into());
        assert!(
            matches!(got, Err(rns::Error::Singular { .. })),
            "{rows:?}: a singular solve"
        );
    }
    // Where the rows fit in shared memory the lifting stays on one device; where they do
    // not (by default, 1600 rows of 64 bits), it splits. (The settings are put back when
    // the test ends, however it ends.)
    set(None, None);
    for (n, devices) in [(300, 1), (1600, 2)] {
        let a = gen.matrix(n, n, 64);
        let (d2, st) = rns::det_with(&a, &two, &rns::Method::Dixon.into()).unwrap();
        let d1 = rns::det_with(&a, &one, &rns::Method::Dixon.into())
            .unwrap()
            .0;
        assert_eq!(d2, d1, "det {n}×{n}");
        assert_eq!(st.lifting_devices, devices, "det {n}×{n}");
    }
}

#[test]
fn split_liftings_from_several_threads_each_return_their_own_answer() {
    use rns::backend::gpu::LiftRows;
    let Some(pair) = peer_pair() else {
        println!("skipped: the split lifting needs two devices with peer access");
        return;
    };
    let _settings = Settings::hold(&pair);
    // Split whatever the size (the default split rule leaves small liftings to the first
    // device: checked below).
    let two = Backend::Gpus {
        gpus: pair.clone().into(),
        min_work: 0,
        min_split: 0,
    };
    let one = Backend::on_gpus(vec![pair[0].clone()], 0).unwrap();
    let mut gen = Gen::new(53);
    // Split liftings from several threads at once, beside one-device ones: every call
    // returns its own answer (a split lifting has the devices' liftings to itself).
    for g in &pair {
        g.config()
            .set_lift_rows(Some(LiftRows::Global { blocks: None }));
    }
    let mats: Vec<IntMatrix> = (0..4).map(|_| gen.matrix(240, 240, 64)).collect();
    let want: Vec<Integer> = mats
        .iter()
        .map(|a| det(a, &Backend::Cpu).unwrap())
        .collect();
    std::thread::scope(|s| {
        for t in 0..4 {
            let (two, one, mats, want) = (&two, &one, &mats, &want);
            s.spawn(move || {
                for r in 0..3 {
                    let i = (t + r) % mats.len();
                    let be = if (t + r) % 3 == 2 { one } else { two };
                    let (d, st) = rns::det_with(&mats[i], be, &rns::Method::Dixon.into()).unwrap();
                    assert_eq!(d, want[i], "thread {t}, call {r}");
                    assert_eq!(st.lifting_devices, be.gpus().len(), "thread {t}, call {r}");
                }
            });
        }
    });
}
