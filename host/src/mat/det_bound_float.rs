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
//! lifting's limbs already there, unscaled) or on the CPU (`crate::backend::cpu::det_bound`).

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
    let mut values = vec![0.0f64; n * n];
    // Each task's column maxima of bit lengths (u32::MAX: an entry past 64 bits).
    let maxima = match a.words() {
        Some(w) => first_pass(&mut values, w, n, |&x| Some(x)),
        None => first_pass(&mut values, a.entries(), n, Integer::to_i64),
    };
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
    // Only a matrix of big integers has entries past 64 bits.
    let e = if wide { a.entries() } else { &[] };
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
    match wide {
        true => values
            .par_chunks_mut(n)
            .zip(e.par_chunks(n))
            .for_each(|(out, row)| {
                out.iter_mut()
                    .zip(row)
                    .zip(&exponents)
                    .for_each(|((o, x), &ej)| *o = scaled_entry(x, ej))
            }),
        // Exact: e ≤ 64, no underflow.
        false => values
            .par_chunks_mut(n)
            .for_each(|out| out.iter_mut().zip(&scales).for_each(|(o, s)| *o *= s)),
    }
    Some(Scaled {
        n,
        values,
        exponents,
    })
}

/// The first pass of [`scale`] over the row-major entries `e` (`word` gives an entry
/// within 64 bits): each entry's nearest `f64` into `values`, and each task's column
/// maxima of bit lengths (`u32::MAX` for an entry past 64 bits).
fn first_pass<T: Sync>(
    values: &mut [f64],
    e: &[T],
    n: usize,
    word: impl Fn(&T) -> Option<i64> + Sync,
) -> Vec<Vec<u32>> {
    values
        .par_chunks_mut(n * ROWS_A_TASK)
        .zip(e.par_chunks(n * ROWS_A_TASK))
        .map(|(out, rows)| {
            let mut top = vec![0u32; n];
            for (k, (o, x)) in out.iter_mut().zip(rows).enumerate() {
                let t = &mut top[k % n];
                match word(x) {
                    Some(v) => {
                        *o = v as f64;
                        *t = (*t).max(64 - v.unsigned_abs().leading_zeros());
                    }
                    None => *t = u32::MAX,
                }
            }
            top
        })
        .collect()
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
    // The add, the division, the square root and this product: four roundings.
    Some(s.sqrt() * (1.0 + 8.0 * U))
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
