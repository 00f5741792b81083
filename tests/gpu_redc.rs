//! Products of many numbers modulo a large odd `r` on the device
//! (`rns::backend::gpu::ops::redc`) against the host's reference tree word for word: on
//! the integer units and the tensor cores, at the ends of the leaves' range, whole and in
//! pieces under smaller budgets (another tree, so the same value modulo `r`), refused
//! when nothing fits; the coprimality proof's
//! answers; and whole solves whose fractions take it, against the CPU backend.

use rns::backend::gpu::launch::redc::Redc;
use rns::backend::gpu::ops::redc::words_for;
use rns::backend::gpu::ops::{coprime_to, redc_product};
use rns::backend::gpu::Gpu;
use rns::num::redc::RedcBases;
use rns::timing::Laps;
use rns::{Backend, IntMatrix, Method};
use rns_suite::{dev, gpu_backend as gpu, Gen};
use rug::Integer;
use std::sync::{Arc, Mutex, MutexGuard};

/// The stage a solve reports when the device proved its numerators coprime.
const ON_DEVICE: &str = "fractions: on the device: steps";

/// The device's settings are shared by this binary's tests: each holds this.
fn settings() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// An odd `r` of exactly `bits` bits.
fn odd(gen: &mut Gen, bits: u32) -> Integer {
    let x = Integer::from(gen.signed(bits).abs_ref());
    x | (Integer::from(1) << (bits - 1)) | 1u32
}

/// `count` numbers for `bases`: random below the bound, with its ends, a negative, a
/// value past the bound and a zero among them.
fn numbers(gen: &mut Gen, bases: &RedcBases, count: usize) -> Vec<Integer> {
    let bits = bases.bound.significant_bits();
    let mut xs: Vec<Integer> = (0..count)
        .map(|_| gen.signed(bits) % &bases.bound)
        .collect();
    let ends = [
        Integer::from(&bases.bound - 1u32),
        -Integer::from(&bases.r - 1u32),
        Integer::from(&bases.bound * 5u32) + 3u32,
        Integer::from(1),
    ];
    for (x, e) in xs.iter_mut().zip(ends) {
        *x = e;
    }
    xs
}

/// The host's tree of the same leaves.
fn by_host(bases: &RedcBases, xs: &[Integer]) -> Vec<u32> {
    let leaves = xs.iter().map(|x| bases.residues(&bases.leaf(x))).collect();
    bases.tree(leaves).expect("at least one number")
}

/// The device's product of `xs` equals the host's tree word for word with the tensor
/// cores set to each of `modes` (the config's default restored after each).
fn equals_the_hosts(
    gpu: &Arc<Gpu>,
    bases: &RedcBases,
    xs: &[Integer],
    modes: &[Option<bool>],
    what: &str,
) {
    let want = by_host(bases, xs);
    for &tensor in modes {
        gpu.config().set_tensor_cores(tensor);
        let got = redc_product(gpu, bases, xs, &mut Laps::start());
        gpu.config().set_tensor_cores(None);
        let what = format!("{what}, {} numbers, tensor cores {tensor:?}", xs.len());
        assert_eq!(got.unwrap().as_deref(), Some(&want[..]), "{what}");
    }
}

#[test]
fn products_equal_the_hosts_word_for_word() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(701);
    for (bits, counts) in [
        (3u32, &[1usize, 2, 5][..]),
        (62, &[2, 3]),
        (1000, &[1, 4, 7, 64]),
        (9000, &[2, 33, 257]),
        (40_000, &[3, 130]),
    ] {
        let bases = RedcBases::new(&odd(&mut gen, bits)).unwrap();
        for &count in counts {
            let xs = numbers(&mut gen, &bases, count);
            let modes = [None, Some(false), Some(true)];
            equals_the_hosts(gpu, &bases, &xs, &modes, &format!("{bits}-bit r"));
        }
    }
    let bases = RedcBases::new(&odd(&mut gen, 100)).unwrap();
    assert_eq!(
        redc_product(gpu, &bases, &[], &mut Laps::start()).unwrap(),
        None
    );
}

/// Leaves past the integer units' grid: `rns_redc_extend` takes rows in groups of
/// `REDC_EXTEND_ROWS` along the grid's y dimension (at most 65 535 blocks), so the leaves'
/// product of 2^19 + 10 000 rows loops over the groups beyond it.
#[test]
fn products_past_the_grids_row_limit() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(706);
    let bases = RedcBases::new(&odd(&mut gen, 62)).unwrap();
    let rows = 65_535 * rns_core::launch::REDC_EXTEND_ROWS as usize;
    let count = (1 << 19) + 10_000;
    assert!(count > rows);
    let xs = numbers(&mut gen, &bases, count);
    equals_the_hosts(gpu, &bases, &xs, &[Some(false), Some(true)], "62-bit r");
}

#[test]
fn products_in_pieces_under_smaller_budgets() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(702);
    let bases = RedcBases::new(&odd(&mut gen, 20_000)).unwrap();
    let xs = numbers(&mut gen, &bases, 150);
    let want_value = bases.value(&by_host(&bases, &xs));
    // From all at once down to pieces of two leaves, each answer whole or refused; the
    // smallest budget that answered is below what all the leaves at once take.
    let s = Redc {
        k: bases.k(),
        k2: bases.k2(),
    };
    let all_at_once = 4 * words_for(gpu, s, bases.digits(), xs.len(), xs.len());
    let (mut least, mut limit) = (usize::MAX, 2 * all_at_once);
    while limit > 1 << 16 {
        gpu.config().set_memory_limit(Some(limit));
        let got = redc_product(gpu, &bases, &xs, &mut Laps::start());
        gpu.config().set_memory_limit(None);
        if let Some(got) = got.unwrap() {
            // Pieces are another tree of the same products: another representative.
            let v = bases.value(&got);
            assert!(v >= 0 && v < bases.bound, "{limit} bytes: out of the bound");
            assert_eq!(bases.residues(&v), got, "{limit} bytes: channels disagree");
            assert_eq!(
                v % &bases.r,
                Integer::from(&want_value % &bases.r),
                "{limit} bytes"
            );
            least = limit;
        }
        limit = limit * 3 / 4;
    }
    assert!(least < all_at_once, "in pieces from {least} bytes");
    gpu.config().set_memory_limit(Some(1 << 12));
    let refused = redc_product(gpu, &bases, &xs, &mut Laps::start());
    gpu.config().set_memory_limit(None);
    assert_eq!(refused.unwrap(), None);
}

#[test]
fn the_proof_finds_a_common_factor_in_any_one_numerator() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(703);
    let (f, h) = (odd(&mut gen, 3000), odd(&mut gen, 5000));
    let r = Integer::from(&f * &h);
    let mut ys: Vec<Integer> = (0..200).map(|_| gen.signed(8000)).collect();
    let coprime = ys.iter().all(|y| Integer::from(y.gcd_ref(&r)) == 1);
    assert_eq!(
        coprime_to(gpu, &ys, &r, &mut Laps::start()).unwrap(),
        Some(coprime)
    );
    for at in [0, 117, 199] {
        let mut bad = ys.clone();
        bad[at] = Integer::from(&f * 7u32) * gen.signed(40);
        assert_eq!(
            coprime_to(gpu, &bad, &r, &mut Laps::start()).unwrap(),
            Some(false),
            "at {at}"
        );
    }
    ys[50] = Integer::new();
    assert_eq!(
        coprime_to(gpu, &ys, &r, &mut Laps::start()).unwrap(),
        Some(false),
        "a zero"
    );
    assert_eq!(
        coprime_to(gpu, &ys, &Integer::from(1), &mut Laps::start()).unwrap(),
        None
    );
    assert_eq!(
        coprime_to(gpu, &ys, &Integer::from(1u64 << 50), &mut Laps::start()).unwrap(),
        None
    );
}

/// The GPU backend's solve with its fractions proved on the device (`on`) or on the
/// host, as the CPU backend's; whether the device's proof ran.
fn solved_both_ways(g: &Backend, a: &IntMatrix, b: &IntMatrix, what: &str) -> bool {
    let want = rns::solve(a, b, &Backend::Cpu).unwrap();
    let mut ran_on = false;
    for on in [true, false] {
        let from = if on { Some(0) } else { Some(usize::MAX) };
        dev(g).config().set_coprime_on_device(from);
        let got = rns::solve_with(a, b, g, &Method::Dixon.into());
        dev(g).config().set_coprime_on_device(None);
        let (got, stages) = got.unwrap();
        let ran = stages.iter().any(|(n, _)| *n == ON_DEVICE);
        assert!(on || !ran, "{what}: proved on the device while off");
        ran_on |= ran;
        assert_eq!(got, want, "{what} (on the device {on})");
    }
    ran_on
}

#[test]
fn solves_with_the_proof_on_the_device_match_the_cpu() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(704);
    // Numerators of 4096 bits and more, 64 and more of them: the batched fractions.
    for (n, l, bits) in [(64, 1, 64), (70, 2, 64), (150, 1, 40)] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        let what = format!("{n}×{n} {bits}-bit, {l} rhs");
        assert!(
            solved_both_ways(&g, &a, &b, &what),
            "{what}: not proved on the device"
        );
    }
    // d = Π q_i over 70 primes of 62 bits: every numerator b_i·d/q_i shares all but one
    // of them with d, so the proof says no and the chunks find each gcd.
    let n = 70;
    let mut diag = vec![Integer::new(); n * n];
    let mut q = Integer::from(1u64 << 61);
    for i in 0..n {
        q.next_prime_mut();
        diag[i * n + i] = q.clone();
    }
    let a = IntMatrix::new(n, n, diag).unwrap();
    solved_both_ways(&g, &a, &gen.matrix(n, 1, 64), "diagonal of large primes");
}

#[test]
fn the_default_threshold_is_on_both_sides() {
    let _settings = settings();
    let Some(g) = gpu() else { return };
    let c = dev(&g).config();
    let from = rns::backend::gpu::COPRIME_ON_DEVICE_FROM;
    assert!(c.coprime_on_device_for(from / 64, 64));
    assert!(!c.coprime_on_device_for(from / 64 - 1, 64));
    c.set_coprime_on_device(Some(usize::MAX));
    assert!(!c.coprime_on_device_for(usize::MAX, u64::MAX));
    c.set_coprime_on_device(None);
    // A 300 × 300 system of 64-bit entries keeps the proof on the host by default
    // (300 numerators of about 21 000 bits).
    let mut gen = Gen::new(705);
    let (a, b) = (gen.matrix(300, 300, 64), gen.matrix(300, 1, 64));
    let (_, stages) = rns::solve_with(&a, &b, &g, &Method::Dixon.into()).unwrap();
    assert!(!stages.iter().any(|(n, _)| *n == ON_DEVICE));
    assert!(stages.iter().any(|(n, _)| *n == "fractions"));
}
