//! The exact product over Z: a bound on the entries (`bits a + bits b + log2 k`) →
//! primes → the backend's product of integer matrices (reduced, multiplied modulo every
//! prime and reconstructed; on a GPU all but the assembly of the integers on the
//! device), checked against the redundant prime.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{require_product, IntMatrix};
use crate::num::basis::RnsBasis;
use std::sync::Arc;

/// The exact product `A · B` of integer matrices.
pub fn matmul(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<IntMatrix> {
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    require_product((n, k), (b.rows(), p))?;
    // |c_ij| ≤ k · max|a| · max|b| < 2^(bits a + bits b + log2 k).
    let bits = a.max_bits() + b.max_bits() + (k.max(1) as u64).ilog2() as u64 + 1;
    let basis = Arc::new(RnsBasis::for_bits(bits));
    let c = backend
        .matmul_integers(&basis, a.entries(), b.entries(), (n, k, p))
        .map_err(|e| match e {
            Error::OutOfRange { .. } => {
                Error::Internal("a product entry disagrees with the redundant prime".into())
            }
            e => e,
        })?;
    IntMatrix::new(n, p, c)
}
