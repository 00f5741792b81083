//! Size bounds of exact results, in bits: Euclidean norms (rounded up safely from
//! `f64`), Hadamard's bound on determinants, Cramer's bounds on solutions.

use crate::matrix::IntMatrix;
use rayon::prelude::*;
use rug::Integer;

/// An upper bound on `log2 ‖v‖₂`, slightly above it; `None` for the zero vector.
/// From each entry's top 53 bits (`x = f·2^e`, `|x| < (|f| + 2^−52)·2^e`), scaled by the
/// largest exponent and summed in `f64`; the sum is raised by its worst rounding error
/// (and a term that underflows counts as the smallest normal `f64`), so the bound holds
/// without computing any square exactly.
pub fn log2_norm(v: &[Integer]) -> Option<f64> {
    log2_norm_of(v.iter())
}

/// [`log2_norm`] of the vector whose entries `v` yields (a column, say).
pub fn log2_norm_of<'a>(v: impl Iterator<Item = &'a Integer>) -> Option<f64> {
    let parts: Vec<(f64, i32)> = v
        .filter(|x| **x != 0)
        .map(|x| {
            let (f, e) = x.to_f64_exp();
            (f, e as i32)
        })
        .collect();
    let emax = parts.iter().map(|p| p.1).max()?;
    let sum: f64 = parts
        .iter()
        .map(|&(f, e)| {
            let u = (f.abs() + f64::EPSILON) * 2f64.powi(e - emax);
            (u * u).max(f64::MIN_POSITIVE)
        })
        .sum();
    let sum = sum * (1.0 + parts.len() as f64 * f64::EPSILON);
    Some(emax as f64 + 0.5 * sum.log2() + 1e-9)
}

/// An upper bound `b` with `|det A| ≤ 2^b` (Hadamard: the product of the rows'
/// Euclidean norms); `None` when a row is zero (then det = 0).
pub fn hadamard_bits(a: &IntMatrix) -> Option<u64> {
    let rows: Option<Vec<f64>> = (0..a.rows())
        .into_par_iter()
        .map(|i| log2_norm(a.row(i)))
        .collect();
    let log2: f64 = rows?.iter().sum();
    Some(log2.ceil().max(0.0) as u64 + 1)
}

/// The bits of Cramer's bounds for `A X = B`: `(det, numerators)` with
/// `|det A| ≤ 2^det` and every `|det(A with a column replaced by one of B's)| ≤
/// 2^numerators` (Hadamard over the columns); `None` when `A` has a zero column.
pub fn cramer_bits(a: &IntMatrix, b: &IntMatrix) -> Option<(u64, u64)> {
    // Column j of a matrix, read in place (no transpose: no entry is copied).
    let column = |m: &IntMatrix, j: usize| {
        let c = m.cols();
        log2_norm_of((0..m.rows()).map(move |i| &m.entries()[i * c + j]))
    };
    let cols: Option<Vec<f64>> = (0..a.cols())
        .into_par_iter()
        .map(|j| column(a, j))
        .collect();
    let cols = cols?;
    let sum: f64 = cols.iter().map(|&x| x.max(0.0)).sum();
    let min = cols.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
    let b_max = (0..b.cols())
        .into_par_iter()
        .filter_map(|j| column(b, j))
        .reduce(|| 0.0f64, f64::max);
    let det = sum.ceil() as u64 + 1;
    let num = (sum.max(sum - min + b_max)).ceil() as u64 + 1;
    Some((det, num))
}
