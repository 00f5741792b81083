//! Dixon's lifting with the matrices read from global memory on every step
//! (`rns_dixon_lift_global`, for orders whose rows do not fit in shared memory): the
//! same divisors, solutions, primes and steps as the CPU's lifting and the shared-memory
//! kernel, one warp a row or several rows a warp, by one to four primes a step, through
//! the warps' rings and from registers; the switch between the two kernels at the order
//! where the rows stop fitting, and from the rings to registers where they stop fitting.

use rns::backend::gpu::launch::{lift_layout, LiftLayout};
use rns::backend::gpu::LiftRows;
use rns::{Backend, IntMatrix, Method};
use rns_suite::lifting::{divisible_by_first, same_as_cpu, solve_same_as_cpu, unit_upper};
use rns_suite::{dev, gpu_backend as gpu, naive_matmul, Gen, LiftCaps};
use rug::Integer;
use std::sync::{Mutex, MutexGuard};

/// The device's settings are shared by this binary's tests: each holds this while it
/// runs.
fn settings() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// The lifting from global memory on all the blocks that fit (several warps a row at
/// small orders), on one block (16 warps: several rows each), and on blocks of 9 rows of
/// 300 (a warp a row, some warps idle).
const GLOBAL: [LiftRows; 3] = [
    LiftRows::Global { blocks: None },
    LiftRows::Global { blocks: Some(1) },
    LiftRows::Global { blocks: Some(34) },
];

#[test]
fn determinants_lifted_from_global_memory_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(191);
    for rows in GLOBAL {
        dev(&g).config().set_lift_rows(Some(rows));
        for (n, bits, bareiss) in [
            (1, 10, true),
            (2, 64, true),
            (17, 63, true),
            (40, 80, false),
            (129, 64, false),
            (300, 20, false),
        ] {
            let a = gen.matrix(n, n, bits);
            let what = format!("{rows:?}: {n}×{n} {bits}-bit");
            assert!(matches!(
                lift_layout(dev(&g), n, bits.div_ceil(29) as usize, 1, 4),
                Some(LiftLayout::Global { .. })
            ));
            same_as_cpu(&g, &a, bareiss, &what);
        }
        // Unimodular (d = 1 after lifting to the bound), and det ≡ 0 modulo the first
        // prime tried (the second is lifted).
        let u = unit_upper(&mut gen, 60, 10);
        let uu = naive_matmul(&u, &u.transpose());
        assert_eq!(same_as_cpu(&g, &uu, true, "unimodular").to_u32(), Some(1));
        let (e, _) = divisible_by_first(&mut gen, 50);
        same_as_cpu(&g, &e, true, "det ≡ 0 mod the first prime");
    }
}

#[test]
fn solves_lifted_from_global_memory_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(192);
    for rows in GLOBAL {
        dev(&g).config().set_lift_rows(Some(rows));
        for (n, bits, l) in [
            (1, 10, 1),
            (3, 64, 2),
            (33, 60, 1),
            (150, 40, 4),
            (257, 30, 3),
        ] {
            let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
            solve_same_as_cpu(
                &g,
                &a,
                &b,
                &format!("{rows:?}: {n}×{n} {bits}-bit, {l} columns"),
            );
        }
    }
    // Five and nine right-hand sides are beyond the global kernel: lifted in groups of
    // four, their fractions over one denominator. Thirty-three beyond the shared one.
    let opts = rns::SolveOptions {
        method: Method::Dixon,
    };
    for (rows, n, l) in [
        (LiftRows::Global { blocks: None }, 20, 5),
        (LiftRows::Global { blocks: None }, 90, 9),
        (LiftRows::Shared, 40, 33),
    ] {
        dev(&g).config().set_lift_rows(Some(rows));
        let (a, b) = (gen.matrix(n, n, 30), gen.matrix(n, l, 30));
        assert!(rns::algo::lift::gpu::fits(dev(&g), &a, &b));
        solve_same_as_cpu(&g, &a, &b, &format!("{rows:?}: {n}×{n}, {l} columns"));
        // Columns with common factors: the least common denominator shrinks.
        let b2: Vec<_> = b
            .entries()
            .iter()
            .map(|x| rug::Integer::from(x * 6))
            .collect();
        let b2 = rns::IntMatrix::new(n, l, b2).unwrap();
        let want = rns::solve_with(&a, &b2, &Backend::Cpu, &opts).unwrap().0;
        assert_eq!(rns::solve_with(&a, &b2, &g, &opts).unwrap().0, want);
    }
}

#[test]
fn the_rows_move_to_global_memory_where_shared_memory_ends() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let d = dev(&g);
    // The first order whose rows (1 limb, one right-hand side) no longer fit.
    let shared = |n| matches!(lift_layout(d, n, 1, 1, 4), Some(LiftLayout::Shared { .. }));
    let edge = (64..20_000)
        .find(|&n| !shared(n))
        .expect("an order beyond shared memory");
    assert!(shared(edge - 1));
    assert!(matches!(
        lift_layout(d, edge, 1, 1, 4),
        Some(LiftLayout::Global { .. })
    ));
    // Both sides of it, 10-bit entries (one limb), against the CPU's lifting.
    let mut gen = Gen::new(193);
    for n in [edge - 1, edge] {
        let a = gen.matrix(n, n, 10);
        let d = same_as_cpu(&g, &a, false, &format!("{n}×{n} at the edge"));
        assert_ne!(d, 0);
    }
}

#[test]
fn lifting_by_several_primes_a_step_matches_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(194);
    let d = dev(&g);
    for (primes, ring) in (1..=4).flat_map(|k| [(k, true), (k, false)]) {
        d.config().set_lift_primes(Some(primes));
        d.config().set_lift_ring(ring);
        for rows in GLOBAL {
            d.config().set_lift_rows(Some(rows));
            let layout = lift_layout(d, 100, 3, 1, 4).expect("a layout");
            assert_eq!(layout.primes(), primes, "{rows:?}");
            assert!(
                matches!(layout, LiftLayout::Global { ring: r, .. } if r == ring),
                "{layout:?}"
            );
            let rows = (rows, ring);
            // Entries of one to four limbs, range ends among them; a unimodular matrix
            // (d = 1: lifted to the bound); det ≡ 0 modulo the first prime.
            for (n, bits) in [
                (1, 10),
                (5, 64),
                (20, 88),
                (33, 29),
                (40, 110),
                (70, 80),
                (130, 64),
                (5, 63),
                (33, 59),
                (130, 63),
            ] {
                let a = gen.matrix(n, n, bits);
                let what = format!("{primes} primes, {rows:?}: {n}×{n} {bits}-bit");
                let (_, st) = rns::det_with(&a, &g, &Method::Dixon.into()).unwrap();
                assert_eq!(st.lifting_primes, primes, "{what}");
                same_as_cpu(&g, &a, n <= 20, &what);
            }
            // The limbs' sums at their largest: positive entries and digits, one block's
            // lanes summing about ten columns of a row (a fold of the 64-bit sums
            // after eight).
            let ends = range_ends(&mut gen, 300);
            same_as_cpu(&g, &ends, false, "entries at the ends of 63 bits");
            let u = unit_upper(&mut gen, 50, 12);
            let uu = naive_matmul(&u, &u.transpose());
            assert_eq!(same_as_cpu(&g, &uu, true, "unimodular").to_u32(), Some(1));
            let (e, first) = divisible_by_first(&mut gen, 40);
            let det = same_as_cpu(&g, &e, true, "det ≡ 0 mod the first prime");
            assert!(det.is_divisible_u(first));
            // Solves: several right-hand sides, and a small solution found early.
            for (n, bits, l) in [
                (3, 64, 2),
                (60, 40, 4),
                (129, 50, 1),
                (70, 63, 1),
                (9, 63, 3),
            ] {
                let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
                let what = format!("{primes} primes, {rows:?}: {n}×{n}, {l} columns");
                solve_same_as_cpu(&g, &a, &b, &what);
            }
            let a = gen.matrix(80, 80, 64);
            let x0 = gen.matrix(80, 1, 5);
            solve_same_as_cpu(&g, &a, &naive_matmul(&a, &x0), "small solution");
        }
    }
}

#[test]
fn the_rings_give_way_to_registers_where_shared_memory_ends() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let d = dev(&g);
    d.config()
        .set_lift_rows(Some(LiftRows::Global { blocks: None }));
    d.config().set_lift_primes(Some(1));
    // A shared-memory cap under which the rings (`LIFT_RING_WORDS` words a thread) fit
    // beside the staged digits and the warps' sums up to order `edge`, and not beyond.
    let edge = 300;
    let threads = rns_core::launch::LIFT_RING_THREADS as usize;
    let ring = rns_core::launch::LIFT_RING_WORDS * threads;
    d.config()
        .set_shared_memory_limit(Some(4 * (edge + 4 * threads / 32 + ring)));
    let mut gen = Gen::new(195);
    for (n, rings) in [(edge - 1, true), (edge, true), (edge + 1, false)] {
        let layout = lift_layout(d, n, 3, 1, 4).expect("a layout");
        assert!(
            matches!(layout, LiftLayout::Global { ring, primes: 1, .. } if ring == rings),
            "{n}: {layout:?}"
        );
        let a = gen.matrix(n, n, 64);
        let dd = same_as_cpu(&g, &a, false, &format!("{n}×{n}, rings: {rings}"));
        assert_ne!(dd, 0);
    }
    // By default (three primes a step asked) the rings with one prime where three do
    // not fit beside them, and registers with three where not even one does.
    d.config().set_lift_primes(None);
    for (n, rings, primes) in [(edge, true, 1), (edge + 1, false, 3)] {
        let layout = lift_layout(d, n, 3, 1, 4).expect("a layout");
        assert!(
            matches!(layout, LiftLayout::Global { ring, .. } if ring == rings),
            "{n}: {layout:?}"
        );
        assert_eq!(layout.primes(), primes, "{n}: {layout:?}");
        let a = gen.matrix(n, n, 64);
        same_as_cpu(
            &g,
            &a,
            false,
            &format!("{n}×{n} by default, rings: {rings}"),
        );
    }
}

/// An `n × n` matrix of positive 63-bit entries, most at the ends of the range and of
/// the limbs (`2^63 − 1`, `2^58 − 1`: limbs of 29 ones, `2^58`, `1`), the rest random.
fn range_ends(gen: &mut Gen, n: usize) -> IntMatrix {
    let one = Integer::from(1);
    let ends = [
        (one.clone() << 63u32) - 1u32,
        (one.clone() << 58u32) - 1u32,
        one.clone() << 58u32,
        one,
    ];
    let data = (0..n * n)
        .map(|_| match gen.below(8) as usize {
            e if e < ends.len() => ends[e].clone(),
            _ => gen.signed(63).abs(),
        })
        .collect();
    IntMatrix::new(n, n, data).expect("shape")
}
