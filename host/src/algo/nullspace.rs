//! The nullspace over Z of an integer matrix: a basis of integer vectors, read from the
//! reduced echelon form over Q ([`super::rref`]).

use super::rref::{rref, Rref};
use crate::backend::Backend;
use crate::error::Result;
use crate::mat::matrix::IntMatrix;
use rayon::prelude::*;
use rug::Integer;

/// A basis of `{x : A x = 0}` over Q made of integer vectors, as the columns of an
/// `n × (n − rank)` matrix: for each non-pivot column `j` in increasing order, the
/// primitive vector (its entries' gcd 1) with a positive entry at `j`, zero at the
/// other non-pivot columns. Each is a multiple of the vector python-flint's
/// `fmpz_mat.nullspace` gives for `j`; they generate the lattice of integer solutions
/// only up to that scaling (no lattice reduction is made).
///
/// ```
/// use rns::{nullspace, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 4, &[2, 4, 6, 8, 1, 3, 5, 7])?;
/// let x = nullspace(&a, &Backend::Cpu)?;
/// assert_eq!(x.to_text(), "4 2\n1 2\n-2 -3\n1 0\n0 1\n");
/// # Ok::<(), rns::Error>(())
/// ```
pub fn nullspace(a: &IntMatrix, backend: &Backend) -> Result<IntMatrix> {
    Ok(nullspace_from(&rref(a, backend)?))
}

/// The basis of [`nullspace`] from the reduced echelon form `e`.
pub fn nullspace_from(e: &Rref) -> IntMatrix {
    let n = e.matrix.cols();
    let free: Vec<usize> = (0..n)
        .filter(|j| e.pivots.binary_search(j).is_err())
        .collect();
    let k = free.len();
    let columns: Vec<Vec<Integer>> = free
        .par_iter()
        .map(|&j| {
            let den = (0..e.rank).fold(Integer::from(1), |d, row| {
                d.lcm(e.matrix.get(row, j).denom())
            });
            let mut v = vec![Integer::new(); n];
            v[j] = den.clone();
            for (row, &pc) in e.pivots.iter().enumerate() {
                let q = e.matrix.get(row, j);
                v[pc] = -(q.numer() * Integer::from(&den / q.denom()));
            }
            v
        })
        .collect();
    let mut data = vec![Integer::new(); n * k];
    for (t, v) in columns.into_iter().enumerate() {
        for (i, x) in v.into_iter().enumerate() {
            data[i * k + t] = x;
        }
    }
    IntMatrix::new(n, k, data).expect("n × (n − rank) entries")
}
