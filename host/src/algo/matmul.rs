//! The exact product over Z: a bound on the entries (`bits a + bits b + log2 k`) →
//! primes → the backend's product of integer matrices (reduced, multiplied modulo every
//! prime and reconstructed; on a GPU all but the assembly of the integers on the
//! device), checked against the redundant prime. As text, a GPU makes the decimal
//! digits too, and reads them from the inputs' text; the CPU writes them from the
//! product's residues.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{require_product, IntMatrix};
use crate::mat::text::TextMatrix;
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use std::sync::Arc;

/// The exact product `A · B` of integer matrices.
///
/// ```
/// use rns::{matmul, Backend, IntMatrix};
/// use rug::Integer;
///
/// let big = Integer::from(1) << 200u32;
/// let a = IntMatrix::new(1, 2, vec![big.clone(), Integer::from(-1)])?;
/// let b = IntMatrix::new(2, 1, vec![big.clone(), Integer::from(3)])?;
/// let c = matmul(&a, &b, &Backend::Cpu)?;
/// assert_eq!(*c.get(0, 0), Integer::from(&big * &big) - 3);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn matmul(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<IntMatrix> {
    let (basis, (n, k, p)) = product_basis(a, b)?;
    let c = backend
        .matmul_integers(&basis, a.entries(), b.entries(), (n, k, p))
        .map_err(disagrees)?;
    IntMatrix::new(n, p, c)
}

/// The text of the exact product `A · B` ([`IntMatrix::to_text`]'s), no integer of the
/// product built where it can: on one GPU its decimal digits made on the device when it
/// fits there, on the CPU written from its residues when the CRT's weights serve; else
/// its integers formatted.
///
/// ```
/// use rns::{matmul_text, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 2, &[1, 2, 3, 4])?;
/// assert_eq!(matmul_text(&a, &a, &Backend::Cpu)?, "2 2\n7 10\n15 22\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn matmul_text(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<String> {
    Ok(matmul_text_with(a, b, backend)?.0)
}

/// [`matmul_text`] and its stages.
///
/// ```
/// use rns::{matmul_text_with, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(1, 1, &[-3])?;
/// let (text, _laps) = matmul_text_with(&a, &a, &Backend::Cpu)?;
/// assert_eq!(text, "1 1\n9\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn matmul_text_with(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<(String, Laps)> {
    let mut laps = Laps::start();
    let (basis, (n, k, p)) = product_basis(a, b)?;
    let header = format!("{n} {p}\n");
    let (ea, eb) = (a.entries(), b.entries());
    match backend.matmul_integers_text(&basis, ea, eb, (n, k, p), &header, &mut laps) {
        Ok(Some(text)) => Ok((text, laps)),
        Ok(None) => {
            let c = matmul(a, b, backend)?;
            laps.lap("product");
            let text = c.to_text();
            laps.lap("format");
            Ok((text, laps))
        }
        Err(e) => Err(disagrees(e)),
    }
}

/// The text of the exact product `A · B` of matrices still in their text: on one GPU
/// their digits are read there (and the product's written there), no integer built on
/// the host; else their entries are converted here for [`matmul_text`].
///
/// ```
/// use rns::{matmul_text_of, Backend, TextMatrix};
///
/// let text = "2 2\n1 2\n3 4\n";
/// let a = TextMatrix::parse(text, "a.txt")?;
/// assert_eq!(matmul_text_of(&a, &a, &Backend::Cpu)?, "2 2\n7 10\n15 22\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn matmul_text_of(a: &TextMatrix, b: &TextMatrix, backend: &Backend) -> Result<String> {
    Ok(matmul_text_of_with(a, b, backend)?.0)
}

/// [`matmul_text_of`] and its stages.
///
/// ```
/// use rns::{matmul_text_of_with, Backend, TextMatrix};
///
/// let a = TextMatrix::parse("1 2\n1 -1\n", "a.txt")?;
/// let b = TextMatrix::parse("2 1\n5\n7\n", "b.txt")?;
/// assert_eq!(matmul_text_of_with(&a, &b, &Backend::Cpu)?.0, "1 1\n-2\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn matmul_text_of_with(
    a: &TextMatrix,
    b: &TextMatrix,
    backend: &Backend,
) -> Result<(String, Laps)> {
    let mut laps = Laps::start();
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    require_product((n, k), (b.rows(), p))?;
    let header = format!("{n} {p}\n");
    let spans = ((a.text(), a.spans()), (b.text(), b.spans()));
    let digits = (a.max_digits(), b.max_digits());
    let basis_for = |x, y| Arc::new(RnsBasis::for_bits(product_bits(x, y, k)));
    match backend.matmul_text_of_spans(spans, (n, k, p), digits, basis_for, &header, &mut laps) {
        Ok(Some(text)) => Ok((text, laps)),
        Ok(None) => {
            let (x, y) = (a.to_integers()?, b.to_integers()?);
            laps.lap("entries to integers");
            let (text, more) = matmul_text_with(&x, &y, backend)?;
            laps.append(more);
            Ok((text, laps))
        }
        Err(e) => Err(disagrees(e)),
    }
}

/// The basis of the product's entries and its shape `(n, k, p)`.
fn product_basis(a: &IntMatrix, b: &IntMatrix) -> Result<(Arc<RnsBasis>, (usize, usize, usize))> {
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    require_product((n, k), (b.rows(), p))?;
    let bits = product_bits(a.max_bits(), b.max_bits(), k);
    Ok((Arc::new(RnsBasis::for_bits(bits)), (n, k, p)))
}

/// Bits that bound the entries of a product of matrices whose entries have at most
/// `a` and `b` bits, `k` terms a sum: `|c_ij| ≤ k · max|a| · max|b| < 2^(a + b + log2 k)`.
fn product_bits(a: u64, b: u64, k: usize) -> u64 {
    a + b + (k.max(1) as u64).ilog2() as u64 + 1
}

/// An entry out of the bound's range can only be a fault: an internal error.
fn disagrees(e: Error) -> Error {
    match e {
        Error::OutOfRange { .. } => {
            Error::Internal("a product entry disagrees with the redundant prime".into())
        }
        e => e,
    }
}
