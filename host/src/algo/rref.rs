//! The reduced row echelon form over Q of an integer matrix of any shape and rank.
//!
//! The rank profile comes from echelon forms modulo primes: the pivot columns `J` from
//! `A`'s, independent rows `I` from `Aᵀ`'s. Then `R = A[I,J]⁻¹·A[I,:]` over Q by the
//! solver, and a certificate makes it exact whatever the primes were: `R` has zeros
//! before each pivot, and every row of `A` outside `I` is `A[i,J]·R` (one exact integer
//! product). Its rows then span `A`'s row space and it is in reduced echelon form, so it
//! is the unique one. A prime can fail this only by dividing `det A[I,J]` for the true
//! profile, so a failed check moves on to the next primes, at most `H/60 + 2` tries for
//! minors below `2^H`.

use super::matmul::matmul;
use super::rank::minor_bits;
use super::solve::solve;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{IntMatrix, RatMatrix};
use crate::mat::modmat::ModMatrices;
use crate::num::sieve::moduli_descending;
use rayon::prelude::*;
use rug::{Integer, Rational};

/// Primes whose echelon forms are computed together in each try of [`rref`].
pub const RREF_PRIMES_PER_TRY: usize = 2;

/// A reduced row echelon form over Q ([`rref`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rref {
    /// The form, the shape of the input: its first `rank` rows non-zero, each with a
    /// leading 1 alone in its column; the rest zero.
    pub matrix: RatMatrix,
    /// The rank over Q.
    pub rank: usize,
    /// The pivot columns (the leading 1s'), increasing.
    pub pivots: Vec<usize>,
}

/// The reduced row echelon form over Q of `a` (any shape and rank), its rank and its
/// pivot columns; entries in lowest terms (python-flint's `fmpq_mat.rref` form).
///
/// ```
/// use rns::{rref, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(3, 3, &[1, 2, 3, 2, 4, 6, 1, 0, 1])?;
/// let r = rref(&a, &Backend::Cpu)?;
/// assert_eq!((r.rank, r.pivots.clone()), (2, vec![0, 1]));
/// assert_eq!(r.matrix.to_text(), "3 3\n1 0 1\n0 1 1\n0 0 0\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn rref(a: &IntMatrix, backend: &Backend) -> Result<Rref> {
    let (m, n) = (a.rows(), a.cols());
    if a.entries().iter().all(|x| *x == 0) {
        let matrix = RatMatrix::new(m, n, vec![Rational::new(); m * n])?;
        return Ok(Rref {
            matrix,
            rank: 0,
            pivots: Vec::new(),
        });
    }
    let mut primes = moduli_descending(|_| false);
    let tries = minor_bits(a) / 60 + 2;
    let mut failed: Option<(usize, Vec<usize>)> = None;
    for _ in 0..tries {
        let ps: Vec<u32> = primes.by_ref().take(RREF_PRIMES_PER_TRY).collect();
        let images = ModMatrices::from_int_matrix(a, &ps)?;
        let e = backend.rref_mod(&images)?;
        // The best prime: the highest rank, then the earliest pivots (a prime's k-th
        // pivot is never before the k-th over Q).
        let profile = |c: usize| (e.ranks[c], e.pivots(c));
        let c = (0..ps.len())
            .max_by(|&x, &y| {
                let (px, py) = (profile(x), profile(y));
                px.0.cmp(&py.0).then(py.1.cmp(&px.1))
            })
            .unwrap_or(0);
        let (rank, cols) = profile(c);
        if failed
            .as_ref()
            .is_some_and(|(r, p)| rank < *r || (rank == *r && cols == *p))
        {
            continue;
        }
        // Independent rows: the pivot columns of Aᵀ modulo the same prime.
        let et = backend.rref_mod(&images.channels(&[c]).transpose())?;
        let rows = et.pivots(0);
        if let Some(r) = certified(a, &rows, &cols, backend)? {
            return Ok(r);
        }
        failed = Some((rank, cols));
    }
    Err(Error::Internal(format!(
        "no rank profile of a {m}×{n} matrix was certified after {tries} tries"
    )))
}

/// The rows `rows` and columns `cols` of `a`.
pub(crate) fn submatrix(a: &IntMatrix, rows: &[usize], cols: &[usize]) -> IntMatrix {
    let data = rows
        .iter()
        .flat_map(|&i| cols.iter().map(move |&j| a.get(i, j).clone()))
        .collect();
    IntMatrix::new(rows.len(), cols.len(), data).expect("the shape is the index lists'")
}

/// `R = A[I,J]⁻¹·A[I,:]` for rows `I` (`rows`) and pivots `J` (`cols`) when it is
/// `a`'s reduced echelon form (the module's certificate), `None` when it is not.
fn certified(
    a: &IntMatrix,
    rows: &[usize],
    cols: &[usize],
    backend: &Backend,
) -> Result<Option<Rref>> {
    let (m, n, r) = (a.rows(), a.cols(), cols.len());
    if rows.len() != r {
        return Ok(None);
    }
    let free: Vec<usize> = (0..n).filter(|j| cols.binary_search(j).is_err()).collect();
    let x = match free.is_empty() {
        true => RatMatrix::new(r, 0, Vec::new())?,
        false => match solve(
            &submatrix(a, rows, cols),
            &submatrix(a, rows, &free),
            backend,
        ) {
            Ok(x) => x,
            Err(Error::Singular { .. }) => return Ok(None),
            Err(e) => return Err(e),
        },
    };
    // Zeros before each pivot.
    for (k, &pc) in cols.iter().enumerate() {
        if (0..free.len()).any(|t| free[t] < pc && *x.get(k, t) != 0) {
            return Ok(None);
        }
    }
    // Every other row in the span: den·A[i, free] = A[i, J]·(den·X).
    let others: Vec<usize> = (0..m).filter(|i| rows.binary_search(i).is_err()).collect();
    if !others.is_empty() && !free.is_empty() {
        let (den, scaled) = x.over_common_denominator();
        let lhs = matmul(&submatrix(a, &others, cols), &scaled, backend)?;
        let want = submatrix(a, &others, &free);
        let same = lhs
            .entries()
            .par_iter()
            .zip(want.entries())
            .all(|(l, w)| *l == Integer::from(w * &den));
        if !same {
            return Ok(None);
        }
    }
    let mut data = vec![Rational::new(); m * n];
    for (k, &pc) in cols.iter().enumerate() {
        data[k * n + pc] = Rational::from(1);
        for (t, &j) in free.iter().enumerate() {
            data[k * n + j] = x.get(k, t).clone();
        }
    }
    Ok(Some(Rref {
        matrix: RatMatrix::new(m, n, data)?,
        rank: r,
        pivots: cols.to_vec(),
    }))
}
