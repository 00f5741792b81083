//! The factorization behind the determinant's floating-point bound
//! ([`crate::mat::det_bound_float`]) on this machine's cores, in `f64`: the upper
//! triangle of `G = ÃᵀÃ` by blocks of rows, its Cholesky factor `R` in place, then
//! `Z = R⁻¹` and `M = Ã·Z` by stripes of columns (each stripe of `Z` solved from the
//! bottom, then multiplied into `M` and summed into its column sums of squares). Plain
//! products and sums (no fused multiply-adds: the bound holds for either); the inner
//! loops on AVX-512 where the processor has it.

use crate::mat::det_bound_float::{Factored, Scaled};
use rayon::prelude::*;

/// Rows of `G` a task computes (their entries stay in cache while `Ã` streams by).
const G_ROWS: usize = 16;
/// Columns of `Z` and `M` a task computes.
const STRIPE: usize = 64;

/// `y += a·x`.
#[inline(always)]
fn axpy_body(y: &mut [f64], a: f64, x: &[f64]) {
    for (y, x) in y.iter_mut().zip(x) {
        *y += a * x;
    }
}

/// [`axpy_body`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn axpy_avx512(y: &mut [f64], a: f64, x: &[f64]) {
    axpy_body(y, a, x)
}

/// `y += a·x` (the same sums on every path: no contraction into fused operations).
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the processor has AVX-512F.
        return unsafe { axpy_avx512(y, a, x) };
    }
    axpy_body(y, a, x)
}

/// The factorization of `scaled` ([`Factored`]); `None` when the Cholesky factorization
/// meets a pivot that is not positive (`A` too near singular for `f64`).
pub fn factor(scaled: &Scaled) -> Option<Factored> {
    let (n, a) = (scaled.n, &scaled.values[..]);
    if n == 0 {
        return None;
    }
    // G's upper triangle (row i from column i0 of its block on), rows of Ã streamed.
    let mut r = vec![0.0f64; n * n];
    r.par_chunks_mut(G_ROWS * n)
        .enumerate()
        .for_each(|(blk, rows)| {
            let i0 = blk * G_ROWS;
            for row in a.chunks_exact(n) {
                for (ii, g) in rows.chunks_exact_mut(n).enumerate() {
                    let i = i0 + ii;
                    axpy(&mut g[i0..], row[i], &row[i0..]);
                }
            }
        });
    // Cholesky, R upper in place, row by row.
    for k in 0..n {
        let piv = r[k * n + k];
        if !(piv > 0.0 && piv.is_finite()) {
            return None;
        }
        let d = piv.sqrt();
        let (top, rest) = r.split_at_mut((k + 1) * n);
        let row_k = &mut top[k * n..];
        row_k[k] = d;
        row_k[k + 1..].iter_mut().for_each(|x| *x /= d);
        let row_k = &*row_k;
        rest.par_chunks_mut(n).enumerate().for_each(|(di, row)| {
            let i = k + 1 + di;
            axpy(&mut row[i..], -row_k[i], &row_k[i..]);
        });
    }
    // By stripes of columns j0..j1: Z's stripe from the bottom row up (rows below j1
    // zero), then M's stripe and the sums.
    let stripes: Vec<Vec<(f64, f64, f64)>> = (0..n.div_ceil(STRIPE))
        .into_par_iter()
        .map(|s| {
            let (j0, j1) = (s * STRIPE, ((s + 1) * STRIPE).min(n));
            let w = j1 - j0;
            let mut z = vec![0.0f64; j1 * w];
            for i in (0..j1).rev() {
                let (upper, lower) = z.split_at_mut((i + 1) * w);
                let zi = &mut upper[i * w..];
                if (j0..j1).contains(&i) {
                    zi[i - j0] = 1.0;
                }
                for (l, zl) in (i + 1..j1).zip(lower.chunks_exact(w)) {
                    axpy(zi, -r[i * n + l], zl);
                }
                let rii = r[i * n + i];
                zi.iter_mut().for_each(|x| *x /= rii);
            }
            let mut m_sq = vec![0.0f64; w];
            let mut m = vec![0.0f64; w];
            for row in a.chunks_exact(n) {
                m.iter_mut().for_each(|x| *x = 0.0);
                for (l, zl) in z.chunks_exact(w).enumerate() {
                    axpy(&mut m, row[l], zl);
                }
                m_sq.iter_mut().zip(&m).for_each(|(s, x)| *s += x * x);
            }
            (0..w)
                .map(|c| {
                    let z_sq = z.chunks_exact(w).fold(0.0, |s, zl| s + zl[c] * zl[c]);
                    (m_sq[c], z_sq, z[(j0 + c) * w + c])
                })
                .collect()
        })
        .collect();
    let cols: Vec<(f64, f64, f64)> = stripes.into_iter().flatten().collect();
    Some(Factored {
        a_squares: a.par_iter().map(|x| x * x).sum(),
        m_squares: cols.iter().map(|c| c.0).collect(),
        z_squares: cols.iter().map(|c| c.1).collect(),
        z_diag: cols.iter().map(|c| c.2).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mat::det_bound_float::{log2_bound, scale};
    use crate::mat::matrix::IntMatrix;
    use rug::Integer;

    fn bound_of(a: &IntMatrix) -> Option<crate::mat::det_bound_float::FloatBound> {
        let s = scale(a)?;
        log2_bound(&factor(&s)?, s.exponent_sum())
    }

    /// `det A` by Bareiss's fraction-free elimination (small orders).
    fn exact_det(a: &IntMatrix) -> Integer {
        let n = a.rows();
        let mut m: Vec<Integer> = a.entries().to_vec();
        let (mut prev, mut sign) = (Integer::from(1), 1);
        for k in 0..n {
            let Some(p) = (k..n).find(|&i| m[i * n + k] != 0) else {
                return Integer::new();
            };
            if p != k {
                for j in 0..n {
                    m.swap(p * n + j, k * n + j);
                }
                sign = -sign;
            }
            for i in k + 1..n {
                for j in k + 1..n {
                    let v = Integer::from(&m[i * n + j] * &m[k * n + k])
                        - Integer::from(&m[i * n + k] * &m[k * n + j]);
                    m[i * n + j] = v.div_exact(&prev);
                }
            }
            prev = m[k * n + k].clone();
        }
        prev * sign
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
                let det = exact_det(&a);
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
}
