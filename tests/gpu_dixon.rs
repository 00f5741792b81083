//! Dixon's lifting on the GPU (`rns::dixon_gpu`, the kernels of
//! `device/src/kernels/dixon.rs`) against Bareiss (rug), exact rational elimination and
//! the CPU's lifting: the same divisor, steps, primes and solutions, on random and
//! adversarial matrices; the few-prime determinants (one pivot per launch, or by panels
//! on the tensor cores) against the CPU's.

use rns::algo::lift::gpu::{fits as lifts_on_gpu, solve as solve_dixon_gpu};
use rns::backend::gpu::ops;
use rns::backend::gpu::ops::DeviceLimbs;
use rns::{Backend, Error, IntMatrix, Method, ModMatrices};
use rns_suite::lifting::{
    diagonal_ones, divisible_by_first, ones, same_as_cpu, solve_same_as_cpu, unit_upper,
};
use rns_suite::{dev, gpu_backend as gpu, naive_matmul, rational_solve, words_of, Gen, LiftCaps};
use rug::{Complete, Integer};
use std::sync::{Mutex, MutexGuard};

/// The ±1 right-hand side's size: one bit.
/// The device's settings are shared by this binary's tests, which run in parallel: one
/// caps the shared memory, on which the others' choice of path depends. Each test holds
/// this while it runs.
fn settings() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn lifting_on_the_device_matches_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(91);
    for (n, bits, bareiss) in [
        (1, 10, true),
        (2, 64, true),
        (17, 63, true),
        (33, 64, true),
        (64, 80, false),
        (130, 64, false),
        (257, 20, false),
    ] {
        let a = gen.matrix(n, n, bits);
        let what = format!("{n}×{n} {bits}-bit");
        same_as_cpu(&g, &a, bareiss, &what);
        let (_, st) = rns::det_with(&a, &g, &Method::Dixon.into()).unwrap();
        assert_eq!(st.method, "dixon", "{what}");
    }
    // Range ends: every entry ±(2^63 − 1), −2^63, 0, 1.
    let n = 24;
    let ends = [
        Integer::from(i64::MAX),
        Integer::from(i64::MIN),
        Integer::from(-i64::MAX),
        Integer::new(),
        Integer::from(1),
    ];
    let mut data: Vec<Integer> = (0..n * n)
        .map(|e| ends[(e * 7 + e / n) % 5].clone())
        .collect();
    for i in 0..n {
        data[i * n + i] = gen.signed(64);
    }
    same_as_cpu(&g, &IntMatrix::new(n, n, data).unwrap(), true, "range ends");
}

/// The solve over one denominator on the device (the lifting, then no per-entry gcd)
/// against the CPU backend's, and against `solve`'s fractions.
#[test]
fn solutions_over_one_denominator_on_the_device() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(93);
    for (n, l, bits) in [(40, 1, 64), (300, 1, 64), (200, 3, 30)] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        let what = format!("{n}×{n}, {l} rhs, {bits} bits");
        let opts = rns::SolveOptions::from(Method::Dixon);
        let (got, stages) = rns::solve_over_denominator_with(&a, &b, &g, &opts).unwrap();
        let lifted = stages.iter().any(|(s, _)| s.starts_with("lift: steps"));
        assert!(lifted, "{what}: lifted on the device ({stages:?})");
        let cpu = rns::solve_over_denominator(&a, &b, &Backend::Cpu).unwrap();
        assert_eq!(got, cpu, "{what}");
        assert_eq!(
            got,
            rns::solve(&a, &b, &g).unwrap().over_common_denominator(),
            "{what}"
        );
    }
}

#[test]
fn adversarial_determinants_on_the_device() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(92);
    let n = 40;
    // 6·U, U unimodular: a divisor of 6 at most, so det / d takes many device primes.
    let u = unit_upper(&mut gen, n, 16);
    let uu = naive_matmul(&u, &u.transpose());
    assert_eq!(
        same_as_cpu(&g, &uu, true, "unimodular").as_abs().to_u32(),
        Some(1)
    );
    let six: Vec<Integer> = u.entries().iter().map(|x| Integer::from(x * 6)).collect();
    let six = IntMatrix::new(n, n, six).unwrap();
    let d6 = same_as_cpu(&g, &six, true, "6·U");
    assert_eq!(*d6.as_abs(), Integer::u_pow_u(6, n as u32).complete());
    // The same at 100: det / d has about 258 bits, more than the primes computed while
    // d is reconstructed (those of 0.75·n + 64 bits, for random matrices) cover.
    let u = unit_upper(&mut gen, 100, 8);
    let six: Vec<Integer> = u.entries().iter().map(|x| Integer::from(x * 6)).collect();
    let six = IntMatrix::new(100, 100, six).unwrap();
    let d6 = same_as_cpu(&g, &six, false, "6·U, 100");
    assert_eq!(*d6.as_abs(), Integer::u_pow_u(6, 100).complete());
    // A zero diagonal: every pivot of the device's elimination needs a row swap.
    let mut p = vec![Integer::new(); n * n];
    for i in 0..n {
        p[i * n + (i + 1) % n] = gen.signed(50);
        p[i * n + (i + 3) % n] = gen.signed(50);
    }
    same_as_cpu(&g, &IntMatrix::new(n, n, p).unwrap(), true, "zero diagonal");
    // Pivots that vanish after some steps (rows 1 and 25 equal to the row before on
    // the leading columns): the device's inverse stops there and swaps.
    let mut v = gen.matrix(n, n, 40).entries().to_vec();
    for (i, cols) in [(1, 2), (25, 26)] {
        for j in 0..cols {
            v[i * n + j] = v[(i - 1) * n + j].clone();
        }
    }
    same_as_cpu(
        &g,
        &IntMatrix::new(n, n, v).unwrap(),
        true,
        "late zero pivots",
    );
    // Singular (rank n − 1): singular modulo every prime, the multimodular path decides.
    let low = gen.low_rank(n, n, n - 1, 30);
    let (d, st) = rns::det_with(&low, &g, &Method::Dixon.into()).unwrap();
    assert_eq!((d, st.method), (Integer::new(), "multimodular"));
    // A zero column: zero at once.
    let mut z = gen.matrix(n, n, 30).entries().to_vec();
    for i in 0..n {
        z[i * n + 5] = Integer::new();
    }
    let z = IntMatrix::new(n, n, z).unwrap();
    assert_eq!(rns::det_with(&z, &g, &Method::Dixon.into()).unwrap().0, 0);
    // det divisible by the first prime tried: the device lifts modulo the second.
    let (e, first) = divisible_by_first(&mut gen, n);
    let d = same_as_cpu(&g, &e, true, "det ≡ 0 mod the first prime");
    assert!(d.is_divisible_u(first) && d != 0);
}

#[test]
fn too_wide_for_the_device_lifts_on_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    // 120-bit entries: five limbs, and residuals beyond 128 bits.
    let a = Gen::new(93).matrix(64, 64, 120);
    assert!(!lifts_on_gpu(dev(&g), &a, &ones(64)));
    let (d, st) = rns::det_with(&a, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(st.method, "dixon");
    assert_eq!(
        d,
        rns::det_with(&a, &Backend::Cpu, &Method::Multimodular.into())
            .unwrap()
            .0
    );
}

/// `a`'s entries (below 2^29 in absolute value) as one limb each.
fn one_limb(g: &Backend, a: &IntMatrix) -> DeviceLimbs {
    let w: Vec<u32> = a
        .entries()
        .iter()
        .map(|x| x.to_i32().unwrap() as u32)
        .collect();
    let gpu = dev(g);
    ops::upload_limbs(gpu, &w, a.rows(), 1).unwrap()
}

/// An `n × n` matrix whose leading 2 × 2 minor equals `p` (16-bit entries): its second
/// pivot is zero modulo `p` only, so that prime alone needs a row swap.
fn swap_for_prime(gen: &mut Gen, n: usize, p: u32) -> IntMatrix {
    let mut e = gen.matrix(n, n, 16).entries().to_vec();
    let (q, r) = (p >> 16, p & 0xFFFF);
    for (at, v) in [(0, 1 << 16), (1, 1), (n, 0x1_0000 - r), (n + 1, q + 1)] {
        e[at] = Integer::from(v);
    }
    IntMatrix::new(n, n, e).unwrap()
}

/// An `n × n` matrix with `bits`-bit entries just above the diagonal (cyclically) and
/// zeros elsewhere: every elimination step needs a row swap.
fn zero_diagonal(gen: &mut Gen, n: usize, bits: u32) -> IntMatrix {
    let mut p = vec![Integer::new(); n * n];
    for i in 0..n {
        p[i * n + (i + 1) % n] = gen.signed(bits);
    }
    IntMatrix::new(n, n, p).unwrap()
}

/// The few-prime determinants' ways, as (tensor cores, shared-memory cap): rows in
/// shared memory (no cap); Schur complements (a cap under which, with 132
/// multiprocessors, the whole matrices of 300 and 200 rows do not fit but strips do);
/// by panels with the trailing updates on the tensor cores (a cap too small for
/// strips); one pivot per launch (tensor cores off, the same cap).
const WAYS: [(bool, Option<usize>, &str); 4] = [
    (false, None, "rows"),
    (true, Some(6000), "Schur complements"),
    (true, Some(600), "panels"),
    (false, Some(600), "steps"),
];

#[test]
fn few_prime_determinants_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(94);
    let primes: Vec<u32> = rns_core::prime::moduli_descending(|_| false)
        .take(5)
        .collect();
    let moduli: Vec<_> = primes
        .iter()
        .map(|&p| rns_core::Modulus::new(p).unwrap())
        .collect();
    let cpu = |a: &IntMatrix| {
        Backend::Cpu
            .det_mod(&ModMatrices::from_int_matrix(a, &primes).unwrap())
            .unwrap()
    };
    let cases = [
        (gen.matrix(1, 1, 28), "1×1"),
        (gen.matrix(37, 37, 28), "random 37"),
        (gen.matrix(200, 200, 28), "random 200"),
        (gen.matrix(300, 300, 28), "random 300"),
        (gen.low_rank(30, 30, 29, 10), "rank 29 of 30"),
        (gen.low_rank(300, 300, 299, 10), "rank 299 of 300"),
        (zero_diagonal(&mut gen, 30, 28), "zero diagonal 30"),
        (zero_diagonal(&mut gen, 300, 28), "zero diagonal 300"),
        (
            swap_for_prime(&mut gen, 40, primes[1]),
            "a swap for one prime, 40",
        ),
        (
            swap_for_prime(&mut gen, 300, primes[1]),
            "a swap for one prime, 300",
        ),
    ];
    // Each way (with 5 primes, Schur complements by strips of 52 and 104 rows at 300, of
    // 130 at 200); the primes that need a swap go one pivot per launch.
    for (tensor, cap, way) in WAYS {
        dev(&g).config().set_tensor_cores(Some(tensor));
        dev(&g).config().set_shared_memory_limit(cap);
        for (a, what) in &cases {
            let got = ops::det_mod_limbs(dev(&g), &one_limb(&g, a), &moduli).unwrap();
            assert_eq!(got, cpu(a), "{what}, {way}");
        }
    }
}

#[test]
fn few_large_determinants_modulo_primes_on_the_gpu_backend() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(97);
    let primes: Vec<u32> = rns_core::prime::moduli_descending(|_| false)
        .take(3)
        .collect();
    // Random, rank-deficient, a zero diagonal (a swap at every step), and a zero second
    // pivot modulo the second prime only; one prime and three.
    let cases = [
        (gen.matrix(200, 200, 64), "random 200"),
        (gen.matrix(300, 300, 64), "random 300"),
        (gen.low_rank(300, 300, 299, 20), "rank 299 of 300"),
        (zero_diagonal(&mut gen, 300, 40), "zero diagonal"),
        (
            swap_for_prime(&mut gen, 300, primes[1]),
            "a swap for one prime",
        ),
    ];
    for (tensor, cap, way) in WAYS {
        dev(&g).config().set_tensor_cores(Some(tensor));
        dev(&g).config().set_shared_memory_limit(cap);
        for (a, what) in &cases {
            for take in [1, 3] {
                let images = ModMatrices::from_int_matrix(a, &primes[..take]).unwrap();
                let want = Backend::Cpu.det_mod(&images).unwrap();
                assert_eq!(
                    g.det_mod(&images).unwrap(),
                    want,
                    "{what}, {take} primes, {way}"
                );
            }
        }
    }
    // The rank of a square matrix from its first primes' determinants.
    dev(&g).config().set_shared_memory_limit(None);
    for (a, what) in &cases {
        assert_eq!(
            rns::rank(a, &g).unwrap(),
            rns::rank(a, &Backend::Cpu).unwrap(),
            "{what}"
        );
    }
}

#[test]
fn solves_on_the_device_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(95);
    for (n, bits) in [(1, 10), (2, 64), (17, 63), (64, 80), (130, 64), (300, 40)] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, 1, bits));
        solve_same_as_cpu(&g, &a, &b, &format!("{n}×{n} {bits}-bit"));
        if n <= 17 {
            let (x, _) = rns::solve_with(&a, &b, &g, &Method::Dixon.into()).unwrap();
            assert_eq!(x.entries(), &rational_solve(&a, &b).unwrap()[..]);
        }
    }
    let n = 40;
    // A small solution (b = A·x₀): found after the first 16 steps, checked exactly.
    let a = gen.matrix(n, n, 64);
    let x0 = gen.matrix(n, 1, 5);
    solve_same_as_cpu(&g, &a, &naive_matmul(&a, &x0), "small solution");
    // A zero right-hand side, and a unimodular matrix (denominator 1).
    solve_same_as_cpu(
        &g,
        &a,
        &IntMatrix::new(n, 1, vec![Integer::new(); n]).unwrap(),
        "b = 0",
    );
    let u = unit_upper(&mut gen, n, 12);
    let uu = naive_matmul(&u, &u.transpose());
    solve_same_as_cpu(&g, &uu, &gen.matrix(n, 1, 30), "unimodular");
    // Row 0's denominator (1) explains no other entry: each grows it, from all of its
    // digits (A = diag(1, …, n), b = 1: x_i = 1/(i + 1)).
    let (d, ones) = diagonal_ones(n);
    solve_same_as_cpu(&g, &d, &ones, "denominators grown entry by entry");
    let (x, _) = rns::solve_with(&d, &ones, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(x.entries(), &rational_solve(&d, &ones).unwrap()[..]);
    // det divisible by the first prime tried: lifted modulo the second.
    let (e, first) = divisible_by_first(&mut gen, n);
    let b = gen.matrix(n, 1, 20);
    solve_same_as_cpu(&g, &e, &b, "det ≡ 0 mod the first prime");
    let (s, _) = solve_dixon_gpu(&g, &e, &b).unwrap().unwrap();
    assert_ne!(s.prime, first);
}

#[test]
fn singular_systems_and_several_right_hand_sides_on_the_gpu_backend() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(96);
    let n = 30;
    let b = gen.matrix(n, 1, 20);
    // Singular: modulo every prime tried, then the multimodular solve says so.
    let low = gen.low_rank(n, n, n - 1, 20);
    assert_eq!(solve_dixon_gpu(&g, &low, &b).unwrap().map(|s| s.0), None);
    assert!(matches!(
        rns::solve_with(&low, &b, &g, &Method::Dixon.into()),
        Err(Error::Singular { .. })
    ));
    // A zero column: singular at once.
    let mut z = gen.matrix(n, n, 20).entries().to_vec();
    for i in 0..n {
        z[i * n + 3] = Integer::new();
    }
    let z = IntMatrix::new(n, n, z).unwrap();
    assert!(matches!(
        rns::solve_with(&z, &b, &g, &Method::Dixon.into()),
        Err(Error::Singular { .. })
    ));
    // Several right-hand sides on the device (1 to 32): as the CPU's lifting, and as the
    // multimodular solve; 33 are lifted in groups.
    for (n, l, bits) in [
        (30, 2, 64),
        (45, 5, 40),
        (200, 3, 64),
        (64, 32, 30),
        (150, 7, 80),
    ] {
        let (a, bl) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        solve_same_as_cpu(&g, &a, &bl, &format!("{n}×{n}, {l} right-hand sides"));
    }
    let (a, b33) = (gen.matrix(n, n, 64), gen.matrix(n, 33, 64));
    assert!(lifts_on_gpu(dev(&g), &a, &b33), "in groups of 32 and 1");
    let (x, _) = rns::solve_with(&a, &b33, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(x, rns::solve(&a, &b33, &Backend::Cpu).unwrap());
    // Small solutions in some columns only, zero in another: the early tries reconstruct
    // column 0 first, then every column, checked exactly.
    let a = gen.matrix(100, 100, 64);
    let mut x0 = gen.matrix(100, 3, 6).entries().to_vec();
    for row in x0.chunks_mut(3) {
        row[2] = Integer::new();
    }
    let mut b3 = naive_matmul(&a, &IntMatrix::new(100, 3, x0).unwrap())
        .entries()
        .to_vec();
    for (i, row) in b3.chunks_mut(3).enumerate() {
        row[1] = Integer::from(i as i64 - 50);
    }
    let b3 = IntMatrix::new(100, 3, b3).unwrap();
    solve_same_as_cpu(&g, &a, &b3, "mixed columns");
}

#[test]
fn word_matrices_lift_on_the_device_without_making_big_integers() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(94);
    // Past the device's thresholds for the solve (300) and the determinant (400).
    for n in [300, 401] {
        let mut e = gen.matrix(n, n, 63).into_entries();
        e[0] = Integer::from(i64::MIN);
        e[n + 1] = Integer::from(i64::MAX);
        e[2] = Integer::new();
        let a = IntMatrix::new(n, n, e).unwrap();
        let b = gen.matrix(n, 1, 63);
        let (aw, bw) = (words_of(&a), words_of(&b));
        let what = format!("{n}×{n}");
        let x = rns::solve(&aw, &bw, &g).unwrap();
        assert!(!aw.integers_made(), "{what}: the solve made A's integers");
        assert_eq!(x, rns::solve(&a, &b, &Backend::Cpu).unwrap(), "{what}");
        if n >= 400 {
            // Below, the determinant on a GPU is multimodular, which packs the integers.
            let (det, st) = rns::det_with(&aw, &g, &Method::Auto.into()).unwrap();
            assert!(
                !aw.integers_made(),
                "{what}: the determinant made A's integers"
            );
            assert_eq!(det, rns::det(&a, &Backend::Cpu).unwrap(), "{what}");
            assert_eq!(st.method, "dixon", "{what}");
        }
    }
}
