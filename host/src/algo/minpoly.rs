//! The minimal polynomial over Z, certified. Each prime's polynomial is the backend's
//! ([`Backend::minpoly_mod`]: Krylov sequences, a GPU block per prime). A prime whose
//! degree is below the largest seen is unlucky and dropped (`μ_p` divides `μ mod p`, so
//! no prime's degree exceeds `deg μ`). The CRT image `f` of the primes of the largest
//! degree `d` is then proven: every entry of `f(A)` is at most `Σ |f_k|·B^k` in absolute
//! value, with `B = min(‖A‖_∞, ‖A‖_1)` (so that `‖A^k‖_max ≤ B^k`), and `f(A) ≡ 0`
//! modulo each prime; when that sum is below half the primes' product, `f(A) = 0` over
//! Z, so `μ` divides `f`, and `deg f = d ≤ deg μ` makes them equal. Primes are taken
//! for the bound `(2B)^d` on the true `μ`'s sum (its roots are eigenvalues, at most
//! `B`); a failed certificate (unlucky primes only) takes more. A prime of degree `n`
//! (a random matrix's, almost surely) proves `deg μ = n`, so `μ` is the characteristic
//! polynomial, which [`charpoly`] gives with its own bound (and, on a GPU, the faster
//! kernels).

use super::charpoly::charpoly;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{require_square, IntMatrix};
use crate::mat::modmat::{MatrixPolynomial, ModMatrices};
use crate::num::basis::RnsBasis;
use crate::num::sieve::moduli_descending;
use crate::num::vector::RnsVec;
use rug::Integer;
use std::sync::Arc;

/// Residue words of the images of `A` held on the host at once: the primes go to the
/// backend in groups of about this many words.
const GROUP_WORDS: usize = 1 << 26;

/// Primes of the first group at most: the degree they give sets the bound.
const PROBE_PRIMES: usize = 16;

/// Certificates tried with more primes before giving up (each adds a quarter more).
const RETRIES: usize = 8;

/// `min(‖A‖_∞, ‖A‖_1)` (the largest absolute row sum, or column sum, whichever is
/// smaller), at least 1: every eigenvalue of `A` and every entry of `A^k / B^k` is at
/// most 1 in absolute value.
///
/// ```
/// use rns::algo::minpoly::power_bound;
/// use rns::IntMatrix;
///
/// let a = IntMatrix::from_i64(2, 2, &[1, -2, 3, 0])?;
/// assert_eq!(power_bound(&a), 3); // rows 3 and 3, columns 4 and 2
/// # Ok::<(), rns::Error>(())
/// ```
pub fn power_bound(a: &IntMatrix) -> Integer {
    let (rows, cols) = (a.rows(), a.cols());
    let mut row = Integer::new();
    let mut col = vec![Integer::new(); cols];
    for i in 0..rows {
        let mut s = Integer::new();
        for (c, x) in col.iter_mut().zip(a.row(i)) {
            s += &*x.as_abs();
            *c += &*x.as_abs();
        }
        row = row.max(s);
    }
    let col = col.into_iter().max().unwrap_or_default();
    row.min(col).max(Integer::from(1))
}

/// Bits of `2 (2B)^d`, the certificate's need for a degree-`d` minimal polynomial when
/// `B < 2^b_bits`.
pub fn minpoly_bits(d: usize, b_bits: u64) -> u64 {
    d as u64 * (b_bits + 1) + 2
}

/// Whether `Σ |f_k|·B^k ≤ half`: then `f(A) ≡ 0` modulo primes of product above
/// `2·half` is `f(A) = 0`.
fn certified(f: &[Integer], b: &Integer, half: &Integer) -> bool {
    let mut s = Integer::new();
    for c in f.iter().rev() {
        s *= b;
        s += &*c.as_abs();
        if s > *half {
            return false;
        }
    }
    true
}

/// The minimal polynomial of a square integer matrix: the monic `μ` of least degree
/// with `μ(A) = 0`, its coefficients constant first (the last is 1). Exact: certified
/// as the module says, not by a probability. FLINT's `fmpz_mat_minpoly`.
///
/// ```
/// use rns::{minpoly, Backend, IntMatrix};
///
/// // diag(2, 2, 3): (x − 2)(x − 3) = x² − 5x + 6, where the characteristic
/// // polynomial has (x − 2)².
/// let a = IntMatrix::from_i64(3, 3, &[2, 0, 0, 0, 2, 0, 0, 0, 3])?;
/// let m: Vec<i64> = minpoly(&a, &Backend::Cpu)?.iter().map(|x| x.to_i64().unwrap()).collect();
/// assert_eq!(m, [6, -5, 1]);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn minpoly(a: &IntMatrix, backend: &Backend) -> Result<Vec<Integer>> {
    let n = require_square(a.rows(), a.cols(), "the minimal polynomial")?;
    if n == 0 {
        return Ok(vec![Integer::from(1)]);
    }
    let b = power_bound(a);
    let b_bits = b.significant_bits() as u64;
    let group = (GROUP_WORDS / (n * n)).max(1);
    let mut primes = moduli_descending(|_| false);
    // The primes of the largest degree so far and their polynomials (n + 1 words each);
    // the last is the redundant prime of the reconstruction.
    let (mut kept, mut polys) = (Vec::<u32>::new(), Vec::<u32>::new());
    let (mut degree, mut need, mut retries) = (0, minpoly_bits(n, b_bits), 0);
    loop {
        // Each range prime exceeds 2^30.
        let have = 30 * kept.len().saturating_sub(1) as u64;
        if have >= need {
            let range = &kept[..kept.len() - 1];
            let basis = Arc::new(RnsBasis::with_redundant(range, kept[kept.len() - 1])?);
            let len = degree + 1;
            let residues = polys
                .chunks(n + 1)
                .flat_map(|p| &p[..len])
                .copied()
                .collect();
            let f = backend.to_integers(&RnsVec::from_residues(&basis, len, residues)?)?;
            if f[degree] == 1 && certified(&f, &b, basis.half()) {
                let red = basis.redundant();
                let last = &polys[polys.len() - (n + 1)..];
                if f.iter().zip(last).any(|(c, &r)| c.mod_u(red.m) != r) {
                    let msg = "the minimal polynomial disagrees with the redundant prime";
                    return Err(Error::Internal(msg.into()));
                }
                return Ok(f);
            }
            retries += 1;
            if retries > RETRIES {
                return Err(Error::Internal(format!(
                    "the minimal polynomial: no certificate from {} primes of degree {degree}",
                    kept.len()
                )));
            }
            need += need / 4 + 31;
        }
        let count = if kept.is_empty() {
            PROBE_PRIMES
        } else {
            ((need - have) / 30 + 2) as usize
        };
        let chunk: Vec<u32> = primes.by_ref().take(count.min(group)).collect();
        let images = ModMatrices::from_int_matrix(a, &chunk)?;
        let res = backend.minpoly_mod(&images)?;
        for (&p, poly) in chunk.iter().zip(res.chunks(n + 1)) {
            let d = MatrixPolynomial::degree(poly);
            if d > degree {
                (degree, need) = (d, minpoly_bits(d, b_bits));
                kept.clear();
                polys.clear();
            }
            if d == degree {
                kept.push(p);
                polys.extend_from_slice(poly);
            }
        }
        if degree == n {
            // μ_p divides μ mod p, so deg μ ≥ n: μ is the characteristic polynomial.
            return charpoly(a, backend);
        }
    }
}
