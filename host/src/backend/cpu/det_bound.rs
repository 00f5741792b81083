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
