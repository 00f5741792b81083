//! The determinant's floating-point bound on the CPU (`backend::cpu::det_bound`, with
//! `mat::det_bound_float`): tight on diagonal matrices, never below `|det A|` and within
//! 2 bits of it on random ones, on both sides of a block of `G`'s rows (16) and of a
//! stripe (64); `None` for a zero column or a breakdown.

use rns::backend::cpu::det_bound::factor;
use rns::mat::det_bound_float::{log2_bound, scale, FloatBound};
use rns::IntMatrix;
use rns_suite::bareiss_det;
use rug::Integer;

fn bound_of(a: &IntMatrix) -> Option<FloatBound> {
    let s = scale(a)?;
    log2_bound(&factor(&s)?, s.exponent_sum())
}

#[test]
fn identity_and_diagonal_bounds_are_tight() {
    let mut e = vec![0i64; 16];
    for (i, d) in [1i64, 3, 1 << 40, -7].iter().enumerate() {
        e[i * 4 + i] = *d;
    }
    let a = IntMatrix::from_i64(4, 4, &e).unwrap();
    let b = bound_of(&a).unwrap();
    // log2(3·2^40·7) = 44.39…
    assert_eq!(b.bits, 45);
    assert!((b.estimate - (21f64 * 2f64.powi(40)).log2()).abs() < 1e-9);
}

#[test]
fn a_zero_column_or_a_singular_matrix_gives_none() {
    let zero = IntMatrix::from_i64(2, 2, &[1, 0, 2, 0]).unwrap();
    assert!(scale(&zero).is_none());
    // Rank 1: the Cholesky factorization breaks down (a zero pivot).
    let one = IntMatrix::from_i64(2, 2, &[1, 2, 2, 4]).unwrap();
    assert!(bound_of(&one).is_none());
}

#[test]
fn random_and_range_end_matrices_are_bounded_within_a_few_bits() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    // Orders on both sides of a stripe (64) and of a block of G's rows (16).
    for n in (1..=18usize).chain([63, 64, 65, 70]) {
        for kind in 0..4 {
            let e: Vec<Integer> = (0..n * n)
                .map(|i| match kind {
                    0 => Integer::from(next() as i64),
                    // Range ends: ±(2^63 − 1), and 0 or 1.
                    1 => Integer::from(match next() % 3 {
                        0 => i64::MAX,
                        1 => -i64::MAX,
                        _ => (i % 2) as i64,
                    }),
                    // 300-bit entries, one column 40 bits.
                    2 => {
                        let bits = if i % n == 0 { 40 } else { 300 };
                        (Integer::from(next()) << (bits - 64)) - (next() >> 1)
                    }
                    // Nearly singular: rows alike but for their last entry.
                    _ => Integer::from(
                        1000 + (i % n) as i64 + (i % n == n - 1) as i64 * (i / n) as i64,
                    ),
                })
                .collect();
            let a = IntMatrix::new(n, n, e).unwrap();
            let det = bareiss_det(&a);
            let Some(b) = bound_of(&a) else {
                continue;
            };
            if det == 0 {
                continue;
            }
            let (f, exp) = det.to_f64_exp();
            let log2 = exp as f64 + f.abs().log2();
            assert!(
                log2 <= b.bits as f64,
                "n {n} kind {kind}: {log2} above {}",
                b.bits
            );
            if kind == 0 {
                assert!(b.bits as f64 <= log2 + 2.0, "n {n}: {} for {log2}", b.bits);
            }
        }
    }
}
