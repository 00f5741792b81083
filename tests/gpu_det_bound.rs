//! The determinant's floating-point bound on the GPU (`ops::det_bound`): never below
//! `|det A|`, within a few bits of it for random matrices, on both sides of the
//! Cholesky blocks' width (64), the product's tiles (64) and the column sums' pieces
//! (256); the same determinants with it as without, by fewer primes; no bound from the
//! device when the factorization does not fit the memory budget or breaks down.

use rns::backend::cpu::det_bound::factor as factor_cpu;
use rns::backend::gpu::ops::det_bound::{factor, factor_bytes, factor_limbs};
use rns::backend::gpu::ops::upload_limbs;
use rns::mat::det_bound_float::{log2_bound, scale, FloatBound};
use rns::{det_with, Backend, IntMatrix, Method};
use rns_suite::lifting::unit_upper;
use rns_suite::{bareiss_det, dev, gpu_backend as gpu, naive_matmul, Gen, LiftCaps};
use rug::Integer;

/// `log2 |d|` (−∞ for 0).
fn log2(d: &Integer) -> f64 {
    let (f, e) = d.to_f64_exp();
    e as f64 + f.abs().log2()
}

/// `a`'s signed 29-bit limbs, limb-major, as the lifting uploads them.
fn limb_words(a: &IntMatrix, limbs: usize) -> Vec<u32> {
    let mut w = vec![0u32; limbs * a.entries().len()];
    for (e, x) in a.entries().iter().enumerate() {
        let mut m = Integer::from(x.abs_ref());
        for t in 0..limbs {
            let limb = m.to_u32_wrapping() & ((1 << 29) - 1);
            m >>= 29;
            w[t * a.entries().len() + e] = if *x < 0 {
                (limb as i32).wrapping_neg() as u32
            } else {
                limb
            };
        }
    }
    w
}

/// The bound of `a` on the device from the host's scaled entries, on the device from
/// the limbs (entries within 116 bits), and on the CPU.
fn bounds(g: &Backend, a: &IntMatrix) -> [Option<FloatBound>; 3] {
    let s = scale(a).expect("no zero column");
    let e = s.exponent_sum();
    let on_gpu = factor(dev(g), &s).unwrap().and_then(|f| log2_bound(&f, e));
    let limbs = (a.max_bits() as usize).div_ceil(29);
    let from_limbs = (limbs <= 4).then(|| {
        let d = dev(g);
        let up = upload_limbs(d, &limb_words(a, limbs), a.rows(), limbs).unwrap();
        factor_limbs(d, &up)
            .unwrap()
            .and_then(|f| log2_bound(&f, 0))
    });
    let on_cpu = factor_cpu(&s).and_then(|f| log2_bound(&f, e));
    [on_gpu, from_limbs.flatten(), on_cpu]
}

/// `det A` by the multimodular method (Hadamard's bound only) on the device.
fn det_multimodular(g: &Backend, a: &IntMatrix) -> Integer {
    det_with(a, g, &Method::Multimodular.into()).unwrap().0
}

#[test]
fn bounds_hold_and_are_tight_across_block_and_tile_edges() {
    let Some(g) = gpu() else { return };
    // Not under another test's memory cap.
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(541);
    for (n, bits) in [
        (1, 64),
        (2, 63),
        (63, 64),
        (64, 64),
        (65, 40),
        (128, 64),
        (129, 64),
        (256, 30),
        (257, 64),
    ] {
        let a = gen.matrix(n, n, bits);
        let det = match n <= 65 {
            true => bareiss_det(&a),
            false => det_multimodular(&g, &a),
        };
        let [on_gpu, from_limbs, on_cpu] = bounds(&g, &a);
        let l = log2(&det);
        for (who, b) in [("gpu", on_gpu), ("gpu limbs", from_limbs), ("cpu", on_cpu)] {
            let b = b.unwrap_or_else(|| panic!("{n}² {who}: no bound"));
            assert!(
                l <= b.bits as f64,
                "{n}² {who}: {} below log2|det| {l}",
                b.bits
            );
            assert!(b.bits as f64 <= l + 2.0, "{n}² {who}: {} for {l}", b.bits);
            assert!(
                (b.estimate - l).abs() < 0.5,
                "{n}² {who}: estimate {}",
                b.estimate
            );
        }
    }
}

#[test]
fn determinants_with_the_bound_match_and_take_fewer_primes() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(542);
    for (n, bits) in [(300, 64), (700, 62), (1000, 64)] {
        let a = gen.matrix(n, n, bits);
        let want = det_multimodular(&g, &a);
        let (d, st) = det_with(&a, &g, &Method::Dixon.into()).unwrap();
        assert_eq!(d, want, "{n}²");
        let f = st.float_bound_bits.expect("the float bound on the device");
        assert!(
            log2(&d) <= f as f64 && f as f64 <= log2(&d) + 2.0,
            "{n}²: {f}"
        );
        // Hadamard's leaves about 0.73·n bits, 7 to 24 primes; this about 2.
        assert!(st.primes <= 3, "{n}²: {} primes", st.primes);
    }
}

#[test]
fn ill_conditioned_and_structured_matrices_keep_exact_answers() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(543);
    // Unimodular U·Uᵀ (condition far past f64's reach): the factorization breaks down
    // or bounds loosely; the determinant stays 1.
    let u = unit_upper(&mut gen, 120, 12);
    let uu = naive_matmul(&u, &u.transpose());
    let (d, _) = det_with(&uu, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(d, 1);
    for b in bounds(&g, &uu).into_iter().flatten() {
        assert!(b.bits < 64 * 120, "{}", b.bits);
    }
    // Nearly dependent rows: row i = r + e_i·i (det = a known small multiple).
    let n = 90;
    let base: Vec<Integer> = (0..n).map(|_| gen.signed(60)).collect();
    let e: Vec<Integer> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            &base[j] + Integer::from((i == j) as i64 * (i as i64 + 1))
        })
        .collect();
    let a = IntMatrix::new(n, n, e).unwrap();
    let want = bareiss_det(&a);
    let (d, _) = det_with(&a, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(d, want);
    for b in bounds(&g, &a).into_iter().flatten() {
        assert!(log2(&want) <= b.bits as f64);
    }
    // Range ends: ±(2^63 − 1) and 0 and 1, and 300-bit entries beside 40-bit columns.
    let ends: Vec<Integer> = (0..64 * 64)
        .map(|k| match gen.below(4) {
            0 => Integer::from(i64::MAX),
            1 => Integer::from(-i64::MAX),
            2 => Integer::from(k % 2),
            _ => gen.signed(64),
        })
        .collect();
    let wide: Vec<Integer> = (0..70 * 70)
        .map(|k| gen.signed(if k % 70 == 0 { 40 } else { 300 }))
        .collect();
    for a in [
        IntMatrix::new(64, 64, ends).unwrap(),
        IntMatrix::new(70, 70, wide).unwrap(),
    ] {
        let want = bareiss_det(&a);
        let [on_gpu, from_limbs, _] = bounds(&g, &a);
        let b = on_gpu.expect("a bound");
        assert!(log2(&want) <= b.bits as f64 && b.bits as f64 <= log2(&want) + 2.0);
        // Limbs only within 116 bits: the 64-bit matrix; unscaled, as tight.
        if a.max_bits() <= 116 {
            let b = from_limbs.expect("a bound from the limbs");
            assert!(log2(&want) <= b.bits as f64 && b.bits as f64 <= log2(&want) + 2.0);
        }
    }
}

#[test]
fn a_factorization_past_the_budget_gives_no_device_bound() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let a = Gen::new(544).matrix(200, 200, 64);
    let want = det_multimodular(&g, &a);
    // Room for the lifting but not for the four f64 matrices.
    dev(&g)
        .config()
        .set_memory_limit(Some(factor_bytes(200) - 1));
    assert!(factor(dev(&g), &scale(&a).unwrap()).unwrap().is_none());
    let up = upload_limbs(dev(&g), &limb_words(&a, 3), 200, 3).unwrap();
    assert!(factor_limbs(dev(&g), &up).unwrap().is_none());
    drop(up);
    // Under this cap the lifting itself runs on the CPU, and the CPU's bound serves.
    let (d, st) = det_with(&a, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(d, want);
    if let Some(f) = st.float_bound_bits {
        assert!(log2(&d) <= f as f64 && f <= st.bound_bits, "{f}");
    }
}
