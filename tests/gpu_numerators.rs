//! The solve's numerators `den·x mod P^s` by one exact product on the device
//! (`rns::backend::gpu::ops::weighted_sums`, used by the GPU lifting's reconstruction)
//! against the host's GMP: the sums alone against rug (whole, in pieces, at the ends of
//! the words' range, refused when nothing fits), and whole solves with the numerators
//! made on the device or on the host, against the CPU backend.

use rns::algo::lift::gpu::solve as solve_dixon_gpu;
use rns::backend::gpu::ops::weighted_sums;
use rns::timing::Laps;
use rns::{Backend, IntMatrix, Method};
use rns_suite::lifting::{diagonal_ones, divisible_by_first, unit_upper};
use rns_suite::{dev, gpu_backend as gpu, naive_matmul, Gen};
use rug::integer::Order;
use rug::Integer;
use std::sync::{Mutex, MutexGuard};

/// The stage the lifting reports when the numerators were made on the device.
const ON_DEVICE: &str = "lift: numerators: product, carries (device), sums down";

/// The device's settings are shared by this binary's tests: each holds this.
fn settings() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// `Σ_t d_t[e]·R_t` for every entry by rug.
fn sums_by_rug(digits: &[Vec<u32>], table: &[u32], entries: usize, words: usize) -> Vec<Integer> {
    (0..entries)
        .map(|e| {
            digits.iter().enumerate().fold(Integer::new(), |s, (t, d)| {
                let r = Integer::from_digits(&table[t * words..(t + 1) * words], Order::Lsf);
                s + r * d[e]
            })
        })
        .collect()
}

#[test]
fn weighted_sums_match_rug_whole_and_in_pieces() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(301);
    // Shapes off the tiles' multiples; one entry; one level; one word; the largest
    // digits and words (every product at the top of its range).
    for (levels, entries, words, top) in [
        (1, 1, 1, true),
        (1, 5, 3, false),
        (37, 1, 70, false),
        (129, 65, 257, false),
        (300, 200, 130, true),
    ] {
        let mut value = || match top {
            true => u32::MAX,
            false => gen.signed(32).to_u32_wrapping(),
        };
        let digits: Vec<Vec<u32>> = (0..levels)
            .map(|_| (0..entries).map(|_| value()).collect())
            .collect();
        let table: Vec<u32> = (0..levels * words).map(|_| value()).collect();
        let want = sums_by_rug(&digits, &table, entries, words);
        let what = format!("{levels} levels, {entries} entries, {words} words");
        let got =
            weighted_sums(gpu, &digits, &table, (entries, words), &mut Laps::start()).unwrap();
        assert_eq!(got.as_deref(), Some(&want[..]), "{what}");
        // (The smaller shapes fit any budget their fixed costs leave room for.)
        if entries * levels * words > 1 << 20 {
            // Smaller and smaller budgets: each answer whole or refused, and answers
            // below what all the entries at once take (four channels of both operands
            // and the product): in pieces.
            let at_once = 16 * (entries * levels + levels * words + entries * words);
            let mut least = usize::MAX;
            let mut limit = 4 * at_once;
            while limit > 1024 {
                gpu.config().set_memory_limit(Some(limit));
                let got = weighted_sums(gpu, &digits, &table, (entries, words), &mut Laps::start());
                gpu.config().set_memory_limit(None);
                if let Some(got) = got.unwrap() {
                    assert_eq!(got, want, "{what}, {limit} bytes");
                    least = limit;
                }
                limit = limit * 7 / 8;
            }
            assert!(least < at_once, "{what}: in pieces from {least} bytes");
        }
    }
    // Not even the table fits: refused, for the host to do.
    let (digits, table) = (vec![vec![1u32; 4]; 8], vec![7u32; 8 * 16]);
    gpu.config().set_memory_limit(Some(256));
    let refused = weighted_sums(gpu, &digits, &table, (4, 16), &mut Laps::start());
    gpu.config().set_memory_limit(None);
    assert_eq!(refused.unwrap(), None);
    // A table of the wrong length is an error, not a wrong sum.
    assert!(weighted_sums(gpu, &digits, &table[1..], (4, 16), &mut Laps::start()).is_err());
}

/// The GPU lifting's solution with the numerators on the device (`on`) or on the host,
/// as the CPU backend's; whether the device's stage ran as asked.
fn solved_both_ways(g: &Backend, a: &IntMatrix, b: &IntMatrix, what: &str) {
    let want = rns::solve_over_denominator(a, b, &Backend::Cpu).unwrap();
    for on in [true, false] {
        let from = if on { Some(0) } else { Some(usize::MAX) };
        dev(g).config().set_numerators_on_device(from);
        let (s, laps) = solve_dixon_gpu(g, a, b)
            .unwrap()
            .expect("invertible modulo a prime");
        let opts = Method::Dixon.into();
        let (got, stages) = rns::solve_over_denominator_with(a, b, g, &opts).unwrap();
        dev(g).config().set_numerators_on_device(None);
        let ran = laps.into_stages().iter().any(|(n, _)| *n == ON_DEVICE);
        let zero = b.entries().iter().all(|v| *v == 0);
        assert!(zero || ran == on, "{what}: on the device {on}, ran {ran}");
        assert!(
            zero || stages.iter().any(|(n, _)| *n == ON_DEVICE) == on,
            "{what}"
        );
        assert_eq!(&s.denominator, &want.0, "{what} ({on})");
        assert_eq!(&s.numerators[..], want.1.entries(), "{what} ({on})");
        assert_eq!(got, want, "{what} ({on})");
    }
}

#[test]
fn solves_with_numerators_on_the_device_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(302);
    for (n, l, bits) in [
        (1, 1, 10),
        (2, 1, 64),
        (17, 1, 63),
        (64, 2, 80),
        (300, 1, 64),
    ] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        solved_both_ways(&g, &a, &b, &format!("{n}×{n} {bits}-bit, {l} rhs"));
    }
    let n = 40;
    let a = gen.matrix(n, n, 64);
    // A small solution, a zero right-hand side, a unimodular matrix (denominator 1).
    let x0 = gen.matrix(n, 1, 5);
    solved_both_ways(&g, &a, &naive_matmul(&a, &x0), "small solution");
    let zero = IntMatrix::new(n, 1, vec![Integer::new(); n]).unwrap();
    solved_both_ways(&g, &a, &zero, "b = 0");
    let u = unit_upper(&mut gen, n, 12);
    let uu = naive_matmul(&u, &u.transpose());
    solved_both_ways(&g, &uu, &gen.matrix(n, 1, 30), "unimodular");
    // Row 0's denominator explains no other entry: each grows it.
    let (d, ones) = diagonal_ones(n);
    solved_both_ways(&g, &d, &ones, "denominators grown entry by entry");
    // Lifted modulo the second prime; the negated system.
    let (e, _) = divisible_by_first(&mut gen, n);
    solved_both_ways(&g, &e, &gen.matrix(n, 1, 20), "det ≡ 0 mod the first prime");
    let neg = IntMatrix::new(n, n, a.entries().iter().map(|v| -v.clone()).collect()).unwrap();
    solved_both_ways(&g, &neg, &gen.matrix(n, 1, 64), "negated");
}

#[test]
fn the_default_threshold_is_on_both_sides() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let c = dev(&g).config();
    let from = rns::backend::gpu::NUMERATORS_ON_DEVICE_FROM;
    assert!(c.numerators_on_device_for(from / 64, 64));
    assert!(!c.numerators_on_device_for(from / 64 - 1, 64));
    c.set_numerators_on_device(Some(usize::MAX));
    assert!(!c.numerators_on_device_for(usize::MAX, u64::MAX));
    c.set_numerators_on_device(None);
    // A 300 × 300 system of 64-bit entries stays on the host by default; 1000 × 1000 would
    // not (about 70 000 bits a numerator).
    let mut gen = Gen::new(303);
    let (a, b) = (gen.matrix(300, 300, 64), gen.matrix(300, 1, 64));
    let (_, laps) = solve_dixon_gpu(&g, &a, &b).unwrap().unwrap();
    assert!(!laps.into_stages().iter().any(|(n, _)| *n == ON_DEVICE));
}
