//! The rank over Q: full rank modulo one of a few primes tried first settles it (the
//! rank over Q is at least the rank modulo any prime); otherwise the largest rank modulo
//! primes whose product exceeds Hadamard's bound on the minors, which is exact.

use crate::backend::Backend;
use crate::error::Result;
use crate::mat::bounds::{column_log2_norms, row_log2_norms};
use crate::mat::matrix::IntMatrix;
use crate::mat::modmat::ModMatrices;
use crate::num::basis::RnsBasis;
use std::sync::Arc;

/// Bits `b` with every minor of `a` at most `2^b` in absolute value: Hadamard's bound
/// over the rows or over the columns, whichever is smaller (zero rows count as 1).
pub(crate) fn minor_bits(a: &IntMatrix) -> u64 {
    let sum = |norms: Vec<Option<f64>>| -> f64 {
        norms.into_iter().map(|l| l.unwrap_or(0.0).max(0.0)).sum()
    };
    let (rows, cols) = (sum(row_log2_norms(a)), sum(column_log2_norms(a)));
    rows.min(cols).ceil() as u64 + 1
}

/// Primes tried first by [`rank`]: full rank modulo one of them settles it.
pub const RANK_FIRST_PRIMES: usize = 2;

/// The rank of an integer matrix over Q.
///
/// The rank modulo any prime is at most the rank over Q, and equals it unless the
/// prime divides every maximal non-zero minor. So full rank modulo one of a few primes
/// tried first is the answer (the usual case); else the primes used have a product
/// above the Hadamard bound of those minors, so the largest rank modulo them is exact.
///
/// ```
/// use rns::{rank, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(3, 3, &[1, 2, 3, 2, 4, 6, 1, 0, 1])?;
/// assert_eq!(rank(&a, &Backend::Cpu)?, 2);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn rank(a: &IntMatrix, backend: &Backend) -> Result<usize> {
    if a.entries().iter().all(|x| *x == 0) {
        return Ok(0);
    }
    let full = a.rows().min(a.cols());
    let primes: Vec<u32> = crate::num::sieve::moduli_descending(|_| false)
        .take(RANK_FIRST_PRIMES)
        .collect();
    let images = ModMatrices::from_int_matrix(a, &primes)?;
    // Square: full rank modulo p is a non-zero determinant (the GPU's fast path).
    let first = match a.rows() == a.cols() {
        true => (backend.det_mod(&images)?.iter().any(|&d| d != 0)).then_some(full),
        false => backend.rank_mod(&images)?.into_iter().max(),
    };
    if first == Some(full) {
        return Ok(full);
    }
    let basis = Arc::new(RnsBasis::for_bits(minor_bits(a)));
    let shape = (a.rows(), a.cols(), a.cols());
    let (e, _) = backend.eliminate_integers(&basis, a.entries(), shape, false, None)?;
    Ok(e.iter().map(|e| e.rank as usize).max().unwrap_or(0))
}
