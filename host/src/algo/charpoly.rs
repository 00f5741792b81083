//! The characteristic polynomial over Z: `det(x·I − A)` modulo enough primes for a
//! bound on every coefficient (the full bound: no early termination), then the CRT,
//! checked against the redundant prime. Each prime's polynomial is the backend's
//! ([`Backend::charpoly_mod`]: Hessenberg form and recurrence, a GPU block per prime).

use crate::backend::Backend;
use crate::error::Result;
use crate::mat::bounds::{column_log2_norms, row_log2_norms};
use crate::mat::matrix::{require_square, IntMatrix};
use crate::num::basis::RnsBasis;
use rug::Integer;
use std::sync::Arc;

/// `log2(1 + 2^l)`, rounded up a little.
fn log2_one_plus(l: f64) -> f64 {
    let v = if l > 0.0 {
        l + (-l).exp2().ln_1p() / std::f64::consts::LN_2
    } else {
        l.exp2().ln_1p() / std::f64::consts::LN_2
    };
    v * (1.0 + 1e-12) + 1e-12
}

/// Bits `b` with every coefficient of `det(x·I − A)` at most `2^b` in absolute value.
/// The coefficient of `x^(n−k)` is `±` the sum of the principal `k × k` minors, each
/// at most the product of its rows' norms (Hadamard), so at most the `k`-th elementary
/// symmetric function of the row norms `r_i`, and all of them at most `Π (1 + r_i)`;
/// the same with columns, and the smaller is taken.
///
/// ```
/// use rns::algo::charpoly::charpoly_bits;
/// use rns::IntMatrix;
///
/// // Rows of norm 3 and 4: |coefficients| ≤ (1 + 3)·(1 + 4) = 20 < 2^5.
/// let a = IntMatrix::from_i64(2, 2, &[3, 0, 0, 4])?;
/// assert_eq!(charpoly_bits(&a), 5);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn charpoly_bits(a: &IntMatrix) -> u64 {
    let sum = |norms: Vec<Option<f64>>| -> f64 {
        norms
            .into_iter()
            .map(|l| l.map_or(0.0, log2_one_plus))
            .sum()
    };
    let bits = sum(row_log2_norms(a)).min(sum(column_log2_norms(a)));
    (bits.ceil() as u64).max(1)
}

/// The characteristic polynomial `det(x·I − A)` of a square integer matrix: its `n + 1`
/// coefficients, constant first (the last is 1). FLINT's `fmpz_mat_charpoly`.
///
/// ```
/// use rns::{charpoly, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 2, &[1, 2, 3, 4])?;
/// let c: Vec<i64> = charpoly(&a, &Backend::Cpu)?.iter().map(|x| x.to_i64().unwrap()).collect();
/// assert_eq!(c, [-2, -5, 1]); // x² − 5x − 2
/// # Ok::<(), rns::Error>(())
/// ```
pub fn charpoly(a: &IntMatrix, backend: &Backend) -> Result<Vec<Integer>> {
    let n = require_square(a.rows(), a.cols(), "the characteristic polynomial")?;
    if n == 0 {
        return Ok(vec![Integer::from(1)]);
    }
    let basis = Arc::new(RnsBasis::for_bits(charpoly_bits(a)));
    let residues = backend.charpoly_integers(a, &basis.primes())?;
    backend.reconstruct(&basis, n + 1, residues, "the characteristic polynomial")
}
