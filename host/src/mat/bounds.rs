//! Size bounds of exact results, in bits: Euclidean norms (rounded up safely from
//! `f64`), Hadamard's bound on determinants, Cramer's bounds on solutions.

use crate::error::{Error, Result};
use crate::mat::matrix::IntMatrix;
use rayon::prelude::*;
use rug::Integer;

/// An upper bound on `log2 ‖v‖₂`, slightly above it; `None` for the zero vector.
/// Each entry is scaled by `2^−e` for the largest bit length `e` so far and rounded up to
/// an `f64` (from its top 53 bits, `|x| < (|f| + 2^−52)·2^bits`, or from the `f64`
/// nearest a 64-bit entry raised by one part in 2^52), the squares summed in `f64` (the
/// sum rescaled by a power of two when `e` grows); the sum is raised by its worst
/// rounding error (and a term that underflows counts as the smallest normal `f64`), so
/// the bound holds without computing any square exactly.
pub fn log2_norm(v: &[Integer]) -> Option<f64> {
    log2_norm_of(v.iter())
}

/// [`log2_norm`] of the vector whose entries `v` yields (a column, say), in one pass.
pub fn log2_norm_of<'a>(v: impl Iterator<Item = &'a Integer>) -> Option<f64> {
    let mut norm = Norm::default();
    v.for_each(|x| norm.add(x));
    norm.log2()
}

/// A sum of squares of entries scaled by `2^−top` (`top` the largest bit length so
/// far), rounded up.
#[derive(Clone, Copy, Default)]
struct Norm {
    top: u32,
    /// `2^−top`.
    scale: f64,
    sum: f64,
    terms: u32,
}

impl Norm {
    /// Adds `x²·2^−2·top`, rounded up.
    #[inline]
    fn add(&mut self, x: &Integer) {
        match x.to_i64() {
            Some(v) => self.add_word(v),
            None => {
                self.raise(x.significant_bits());
                let (f, e) = x.to_f64_exp();
                self.push((f.abs() + f64::EPSILON) * 2f64.powi(e as i32 - self.top as i32));
            }
        }
    }

    /// [`Norm::add`] of a machine word.
    #[inline]
    fn add_word(&mut self, v: i64) {
        if v == 0 {
            return;
        }
        self.raise(64 - v.unsigned_abs().leading_zeros());
        // The nearest f64 is within one part in 2^53 of |v|: one in 2^52 above it.
        self.push(v.unsigned_abs() as f64 * (1.0 + f64::EPSILON) * self.scale);
    }

    /// Makes `bits` the top bit length when it is above it (the sum rescaled exactly
    /// unless it underflows; the terms so far count at least the smallest normal each).
    #[inline]
    fn raise(&mut self, bits: u32) {
        if bits > self.top {
            let shrink = 2f64.powi(-2 * (bits - self.top).min(1100) as i32);
            self.sum = (self.sum * shrink).max(self.terms as f64 * f64::MIN_POSITIVE);
            self.top = bits;
            self.scale = 2f64.powi(-(bits.min(1100) as i32));
        }
    }

    /// Adds `u²` for an entry already scaled and rounded up to `u`.
    #[inline]
    fn push(&mut self, u: f64) {
        self.sum += (u * u).max(f64::MIN_POSITIVE);
        self.terms += 1;
    }

    /// The bound on `log2` of the norm; `None` when no term was added.
    fn log2(&self) -> Option<f64> {
        if self.terms == 0 {
            return None;
        }
        let sum = self.sum * (1.0 + self.terms as f64 * f64::EPSILON);
        Some(self.top as f64 + 0.5 * sum.log2() + 1e-9)
    }
}

/// [`log2_norm`] of each row of `m` (`None` for a zero row), the rows in parallel.
pub fn row_log2_norms(m: &IntMatrix) -> Vec<Option<f64>> {
    (0..m.rows())
        .into_par_iter()
        .map(|i| match m.word_row(i) {
            Some(w) => {
                let mut norm = Norm::default();
                w.iter().for_each(|&x| norm.add_word(x));
                norm.log2()
            }
            None => log2_norm(m.row(i)),
        })
        .collect()
}

/// [`log2_norm`] of each column of `m` (`None` for a zero column), read row by row in
/// blocks of columns (contiguous entries), the blocks in parallel; no transpose made.
pub fn column_log2_norms(m: &IntMatrix) -> Vec<Option<f64>> {
    const BLOCK: usize = 32;
    let (rows, cols) = (m.rows(), m.cols());
    (0..cols.div_ceil(BLOCK))
        .into_par_iter()
        .flat_map_iter(|blk| {
            let (j0, j1) = (blk * BLOCK, (blk * BLOCK + BLOCK).min(cols));
            let mut norms = vec![Norm::default(); j1 - j0];
            for i in 0..rows {
                let (a, b) = (i * cols + j0, i * cols + j1);
                match m.words() {
                    Some(w) => norms
                        .iter_mut()
                        .zip(&w[a..b])
                        .for_each(|(norm, &x)| norm.add_word(x)),
                    None => norms
                        .iter_mut()
                        .zip(&m.entries()[a..b])
                        .for_each(|(norm, x)| norm.add(x)),
                }
            }
            norms.into_iter().map(|n| n.log2())
        })
        .collect()
}

/// An upper bound `b` with `|det A| ≤ 2^b` (Hadamard: the product of the rows'
/// Euclidean norms); `None` when a row is zero (then det = 0).
pub fn hadamard_bits(a: &IntMatrix) -> Option<u64> {
    let rows: Option<Vec<f64>> = row_log2_norms(a).into_iter().collect();
    let log2: f64 = rows?.iter().sum();
    Some(log2.ceil().max(0.0) as u64 + 1)
}

/// The bits of Cramer's bounds for `A X = B`: `(det, numerators)` with
/// `|det A| ≤ 2^det` and every `|det(A with a column replaced by one of B's)| ≤
/// 2^numerators` (Hadamard over the columns); `None` when `A` has a zero column.
pub fn cramer_bits(a: &IntMatrix, b: &IntMatrix) -> Option<(u64, u64)> {
    let cols: Vec<f64> = column_log2_norms(a).into_iter().collect::<Option<_>>()?;
    let sum: f64 = cols.iter().map(|&x| x.max(0.0)).sum();
    let min = cols.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
    let b_max = column_log2_norms(b)
        .into_iter()
        .flatten()
        .fold(0.0f64, f64::max);
    let det = sum.ceil() as u64 + 1;
    let num = (sum.max(sum - min + b_max)).ceil() as u64 + 1;
    Some((det, num))
}

/// [`cramer_bits`] for a solve: [`Error::Singular`] when `A` has a zero column.
pub fn solve_bits(a: &IntMatrix, b: &IntMatrix) -> Result<(u64, u64)> {
    cramer_bits(a, b).ok_or(Error::Singular { prime: None })
}
