//! Exact determinant over Z through residues.
//!
//! Hadamard bound → number of primes → the matrix reduced modulo each prime →
//! Gaussian elimination modulo each prime (in parallel over primes) → CRT in the
//! signed range, checked against the redundant prime.

use crate::backend::Backend;
use crate::basis::RnsBasis;
use crate::error::Result;
use crate::matrix::{require_square, IntMatrix};
use crate::timing::Laps;
use rayon::prelude::*;
use rug::Integer;
use std::sync::Arc;
use std::time::Duration;

/// What a determinant computation did and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct DetStats {
    /// Bits of the Hadamard bound: `|det| ≤ 2^bound_bits`.
    pub bound_bits: u64,
    /// Number of primes used for the range (plus one redundant prime).
    pub primes: usize,
    /// The backend that ran the modular determinants.
    pub backend: &'static str,
    /// Stage names and their wall-clock times, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

/// An upper bound on `log2 ‖v‖₂`, slightly above it; `None` for the zero vector.
/// From each entry's top 53 bits (`x = f·2^e`, `|x| < (|f| + 2^−52)·2^e`), scaled by the
/// largest exponent and summed in `f64`; the sum is raised by its worst rounding error
/// (and a term that underflows counts as the smallest normal `f64`), so the bound holds
/// without computing any square exactly.
pub fn log2_norm(v: &[Integer]) -> Option<f64> {
    let parts: Vec<(f64, i32)> = v
        .iter()
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

/// The exact determinant of a square integer matrix.
pub fn det(a: &IntMatrix, backend: &Backend) -> Result<Integer> {
    det_with_stats(a, backend).map(|(d, _)| d)
}

/// The exact determinant, with the primes used and the time of each stage.
pub fn det_with_stats(a: &IntMatrix, backend: &Backend) -> Result<(Integer, DetStats)> {
    let n = require_square(a.rows(), a.cols(), "the determinant")?;
    let mut stats = DetStats {
        backend: backend.name(),
        ..DetStats::default()
    };
    let mut laps = Laps::start();
    let Some(bits) = hadamard_bits(a) else {
        laps.lap("bound");
        stats.stages = laps.into_stages();
        return Ok((Integer::new(), stats));
    };
    stats.bound_bits = bits;
    laps.stage("bound")?;
    let basis = Arc::new(RnsBasis::for_bits(bits));
    stats.primes = basis.range_len();
    laps.stage("primes")?;
    let dets = backend.det_integers(&basis, a.entries(), n)?;
    laps.stage("reduce, det mod p")?;
    let det = backend.reconstruct(&basis, 1, dets, "the determinant")?;
    laps.lap("crt");
    stats.stages = laps.into_stages();
    Ok((det.into_iter().next().expect("one value"), stats))
}
