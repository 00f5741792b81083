//! A proven bound on `|det A|` from floating point, within a few bits of the truth where
//! Hadamard's is about `0.73·n` bits above a random matrix's determinant.
//!
//! For any upper triangular `Z` with a non-zero diagonal, `det(A·D·Z) = det A · det D ·
//! Π z_jj` (`D` a diagonal of powers of two), so Hadamard's inequality over the columns
//! of `M = A·D·Z` gives `|det A| ≤ Π_j ‖M_j‖₂ / (det D · Π |z_jj|)`. With `Z ≈ R⁻¹` from
//! a Cholesky factor `Rᵀ·R ≈ (AD)ᵀ·(AD)` (Cholesky QR), `M` is nearly orthogonal and
//! the bound nearly `|det A|`. Only `Z`'s entries need be known exactly, not how good
//! they are: `M` is `fl(Ã·Z)` (`Ã = fl(A·D)`) plus an error bounded column by column
//! with the standard `γ_k = k·u/(1 − k·u)` bound of a product computed by fused
//! multiply-adds in any order, so that the bound holds whatever the rounding did
//! ([`log2_bound`]). The factorization runs on the GPU
//! (`crate::backend::gpu::ops::det_bound`, from this module's [`scale`] or from the
//! lifting's limbs already there, unscaled) or, for tests, here ([`factor_cpu`]).

use crate::mat::matrix::IntMatrix;
use rayon::prelude::*;
use rug::Integer;

/// The unit roundoff of `f64`.
const U: f64 = f64::EPSILON / 2.0;

/// `A·D` rounded to `f64`, `D = diag(2^−e_j)` with `e_j` column `j`'s largest bit
/// length (so that every entry is below 1 in magnitude).
#[derive(Clone, Debug)]
pub struct Scaled {
    /// The order `n`.
    pub n: usize,
    /// `Ã`, row-major.
    pub values: Vec<f64>,
    /// `e_j` for each column.
    pub exponents: Vec<u32>,
}

/// What the bound needs of a factorization: for `M = fl(Ã·Z)` and `Z`, each column's
/// sum of squares (as computed, in any order), `Z`'s diagonal, and `Ã`'s sum of
/// squares. `Ã` may be any rounding of `A·D` within `4u·|A·D| + 2^−1022` entrywise
/// (`D` a diagonal of powers of two whose exponents the bound is told).
#[derive(Clone, Debug, PartialEq)]
pub struct Factored {
    /// `Σ Ã_ij²` over every entry, rounded.
    pub a_squares: f64,
    /// `Σ_i M_ij²` for each column `j`, rounded.
    pub m_squares: Vec<f64>,
    /// `Σ_i Z_ij²` for each column `j`, rounded.
    pub z_squares: Vec<f64>,
    /// `z_jj`.
    pub z_diag: Vec<f64>,
}

/// The bound: `|det A| ≤ 2^bits`, and `estimate ≈ log2 |det A|` (the same sum without
/// the error terms and margins).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FloatBound {
    /// `|det A| ≤ 2^bits`.
    pub bits: u64,
    /// About `log2 |det A|`, from below the bound.
    pub estimate: f64,
}

/// Rows a task of [`scale`] reads at a time.
const ROWS_A_TASK: usize = 16;

/// `A·D` rounded ([`Scaled`]); `None` for a non-square matrix or a zero column.
/// Entries within 64 bits take one pass (each read once, rounded to the nearest
/// `f64`, then scaled exactly); wider ones a second.
pub fn scale(a: &IntMatrix) -> Option<Scaled> {
    let n = a.rows();
    if a.cols() != n || n == 0 {
        return None;
    }
    let e = a.entries();
    let mut values = vec![0.0f64; n * n];
    // Each task's column maxima of bit lengths (u32::MAX: an entry past 64 bits).
    let maxima: Vec<Vec<u32>> = values
        .par_chunks_mut(n * ROWS_A_TASK)
        .zip(e.par_chunks(n * ROWS_A_TASK))
        .map(|(out, rows)| {
            let mut top = vec![0u32; n];
            for (k, (o, x)) in out.iter_mut().zip(rows).enumerate() {
                let t = &mut top[k % n];
                match x.to_i64() {
                    Some(v) => {
                        *o = v as f64;
                        *t = (*t).max(64 - v.unsigned_abs().leading_zeros());
                    }
                    None => *t = u32::MAX,
                }
            }
            top
        })
        .collect();
    let mut exponents = vec![0u32; n];
    for m in &maxima {
        exponents
            .iter_mut()
            .zip(m)
            .for_each(|(e, &t)| *e = (*e).max(t));
    }
    if exponents.contains(&0) {
        return None;
    }
    let wide = exponents.contains(&u32::MAX);
    if wide {
        exponents = (0..n)
            .into_par_iter()
            .map(|j| {
                (0..n)
                    .map(|i| e[i * n + j].significant_bits())
                    .max()
                    .unwrap_or(0)
            })
            .collect();
    }
    let scales: Vec<f64> = exponents.iter().map(|&e| two_to(-(e as i64))).collect();
    values
        .par_chunks_mut(n)
        .zip(e.par_chunks(n))
        .for_each(|(out, row)| match wide {
            true => out
                .iter_mut()
                .zip(row)
                .zip(&exponents)
                .for_each(|((o, x), &ej)| *o = scaled_entry(x, ej)),
            // Exact: e ≤ 64, no underflow.
            false => out.iter_mut().zip(&scales).for_each(|(o, s)| *o *= s),
        });
    Some(Scaled {
        n,
        values,
        exponents,
    })
}

impl Scaled {
    /// `Σ e_j`: `log2` of `D⁻¹`.
    pub fn exponent_sum(&self) -> u64 {
        self.exponents.iter().map(|&e| e as u64).sum()
    }
}

/// `x·2^−e` rounded: within `2u·|x·2^−e|` plus `2^−1022` (truncation, and what
/// underflows).
fn scaled_entry(x: &Integer, e: u32) -> f64 {
    match x.to_i64() {
        // The nearest f64, then an exact scaling (e ≤ 64: no underflow).
        Some(v) => v as f64 * two_to(-(e as i64)),
        None => {
            let (f, exp) = x.to_f64_exp();
            f * two_to(exp as i64 - e as i64)
        }
    }
}

/// `2^k` (0 below `2^−1074`, where only the underflow term of the bound counts).
fn two_to(k: i64) -> f64 {
    match k {
        k if k < -1074 => 0.0,
        k if k < -1000 => 2f64.powi(-1000) * 2f64.powi((k + 1000) as i32),
        k => 2f64.powi(k.min(1023) as i32),
    }
}

/// `γ_k` raised by one part in 100 for its own rounding; `None` past `k·u ≥ 1/100`.
fn gamma(k: f64) -> Option<f64> {
    let ku = k * U;
    (ku < 0.01).then(|| ku / (1.0 - ku) * 1.01)
}

/// An upper bound on `‖v‖₂` from `s`, a computed sum of `terms` squares (any order).
fn norm_up(s: f64, terms: f64) -> Option<f64> {
    let g = gamma(terms + 2.0)?;
    // Each square that underflows loses at most 2^−1074; the sum at most γ of itself.
    let s = (s + terms * 2f64.powi(-1074)) / (1.0 - g);
    Some(s.sqrt() * (1.0 + 4.0 * U))
}

/// An upper bound on `log2 x` (or a lower one with `up = false`), past `log2`'s own
/// error.
fn log2_outward(x: f64, up: bool) -> f64 {
    let l = x.log2();
    let margin = 1e-12 * (1.0 + l.abs());
    if up {
        l + margin
    } else {
        l - margin
    }
}

/// The proven bound on `|det A|` from a factorization ([`Factored`]: `M = fl(Ã·Z)` by
/// fused multiply-adds, its and `Z`'s column sums of squares, `Z`'s diagonal, `Ã`'s sum
/// of squares) of `Ã ≈ A·D`, `exponents` the sum of `−log2` of `D`'s entries; `None`
/// when a value is not finite or a diagonal entry is zero.
///
/// Column `j` of the exact `A·D·Z` is within `‖E_j‖₂` of `M_j`, where
/// `|E| ≤ γ_n·|Ã|·|Z| + |Ã − A·D|·|Z|` plus what underflows, and
/// `‖(|Ã|·|Z|)_j‖₂ ≤ ‖Ã‖_F·‖Z_j‖₂`; with `|Ã − A·D| ≤ 4u·|A·D| + 2^−1022` that is
/// `‖E_j‖₂ ≤ γ_{n+5}·‖Ã‖_F·‖Z_j‖₂ + n·2^−900·(1 + ‖Z_j‖₂)`. Every rounding of the bound
/// itself is outward.
pub fn log2_bound(f: &Factored, exponents: u64) -> Option<FloatBound> {
    let n = f.z_diag.len();
    let nf = n as f64;
    if f.m_squares.len() != n || f.z_squares.len() != n || n == 0 {
        return None;
    }
    let frobenius = norm_up(f.a_squares, nf * nf)?;
    let g = gamma(nf + 5.0)?;
    let tiny = nf * 2f64.powi(-900);
    let (mut sum, mut magnitude, mut estimate) = (0.0f64, 0.0f64, 0.0f64);
    for j in 0..n {
        let (m, z, d) = (f.m_squares[j], f.z_squares[j], f.z_diag[j].abs());
        if !(m.is_finite() && z.is_finite() && d.is_finite() && d > 0.0 && m >= 0.0) {
            return None;
        }
        let z_norm = norm_up(z, nf)?;
        let err = g * frobenius * z_norm * (1.0 + 4.0 * U) + tiny * (1.0 + z_norm);
        let column = (norm_up(m, nf)? + err) * (1.0 + 4.0 * U);
        let term = log2_outward(column, true) - log2_outward(d, false);
        sum += term;
        magnitude += term.abs();
        estimate += m.sqrt().log2() - d.log2();
    }
    let exponents = exponents as f64;
    // The sum's own rounding: at most n·u times the sum of magnitudes.
    let bound = sum + 2.0 * (nf + 1.0) * U * magnitude + 1e-9 + exponents;
    if !bound.is_finite() {
        return None;
    }
    Some(FloatBound {
        bits: bound.ceil().max(0.0) as u64,
        estimate: estimate + exponents,
    })
}

/// The factorization on this machine's cores: `G = ÃᵀÃ`, its Cholesky factor `R`,
/// `Z = R⁻¹` and `M = Ã·Z`, all in `f64`; `None` when the Cholesky factorization meets
/// a pivot that is not positive (`A` too near singular for it).
pub fn factor_cpu(scaled: &Scaled) -> Option<Factored> {
    let (n, a) = (scaled.n, &scaled.values);
    // R, upper, from the Gram matrix by rows (the column-oriented Cholesky).
    let mut r: Vec<f64> = (0..n * n)
        .into_par_iter()
        .map(|e| {
            let (i, j) = (e / n, e % n);
            match i <= j {
                true => (0..n).fold(0.0, |s, l| a[l * n + i].mul_add(a[l * n + j], s)),
                false => 0.0,
            }
        })
        .collect();
    for k in 0..n {
        let piv = r[k * n + k];
        if !(piv > 0.0 && piv.is_finite()) {
            return None;
        }
        let d = piv.sqrt();
        r[k * n + k] = d;
        for j in k + 1..n {
            r[k * n + j] /= d;
        }
        let (top, rest) = r.split_at_mut((k + 1) * n);
        let row_k = &top[k * n..];
        rest.par_chunks_mut(n).enumerate().for_each(|(di, row)| {
            let i = k + 1 + di;
            for j in i..n {
                row[j] = (-row_k[i]).mul_add(row_k[j], row[j]);
            }
        });
    }
    // Z = R⁻¹ column by column (back substitution), stored by columns.
    let z_cols: Vec<Vec<f64>> = (0..n)
        .into_par_iter()
        .map(|j| {
            let mut z = vec![0.0; n];
            z[j] = 1.0 / r[j * n + j];
            for i in (0..j).rev() {
                let t = (i + 1..=j).fold(0.0, |t, l| r[i * n + l].mul_add(z[l], t));
                z[i] = -t / r[i * n + i];
            }
            z
        })
        .collect();
    let cols: Vec<(f64, f64, f64)> = z_cols
        .par_iter()
        .enumerate()
        .map(|(j, z)| {
            let m_sq = (0..n).fold(0.0, |s, i| {
                let m = (0..=j).fold(0.0, |t, l| a[i * n + l].mul_add(z[l], t));
                m.mul_add(m, s)
            });
            let z_sq = z.iter().fold(0.0, |s, x| x.mul_add(*x, s));
            (m_sq, z_sq, z[j])
        })
        .collect();
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

    fn bound_of(a: &IntMatrix) -> Option<FloatBound> {
        let s = scale(a)?;
        log2_bound(&factor_cpu(&s)?, s.exponent_sum())
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
    fn random_and_range_end_matrices_are_bounded_within_a_few_bits() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in 1..=14usize {
            for kind in 0..4 {
                let e: Vec<Integer> = (0..n * n)
                    .map(|i| match kind {
                        0 => Integer::from(next() as i64),
                        // Range ends: ±(2^63 − 1), ±1, 0 on the diagonal's neighbours.
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
                let log2 = det.to_f64_exp().1 as f64 + det.to_f64_exp().0.abs().log2();
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

    #[test]
    fn a_zero_column_or_a_singular_matrix_gives_none_or_a_bound() {
        let zero = IntMatrix::from_i64(2, 2, &[1, 0, 2, 0]).unwrap();
        assert!(scale(&zero).is_none());
        // Rank 1: the Cholesky factorization breaks down (a zero pivot).
        let one = IntMatrix::from_i64(2, 2, &[1, 2, 2, 4]).unwrap();
        assert!(bound_of(&one).is_none());
    }
}
