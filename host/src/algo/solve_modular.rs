//! Solving `A X = B` over Q by the multimodular method with Cramer's rule:
//! `det(A) · X = adj(A) · B` is an integer matrix whose entries are determinants
//! (Hadamard-bounded), so each prime gives `det(A) mod p` and `det(A) · X mod p` by one
//! Gauss–Jordan elimination of `[A | B]`, and CRT returns both exactly; every prime is
//! independent (a GPU block, or by panels on the tensor cores), and primes modulo which
//! `A` is singular are replaced by others.

use super::fractions::lowest_terms;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{IntMatrix, RatMatrix};
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;

/// `X` for square `A` with as many rows as `B` (checked by the caller), primes for
/// Cramer's bounds `(_, bits)` (`crate::mat::bounds::cramer_bits`: det(A) and each entry
/// of det(A)·X is a determinant of A with one column replaced by a column of B, and
/// Hadamard over the columns bounds them all); stages on `laps`.
pub(crate) fn solve_modular(
    (a, b): (&IntMatrix, &IntMatrix),
    (_, bits): (u64, u64),
    backend: &Backend,
    laps: &mut Laps,
) -> Result<RatMatrix> {
    let (n, l) = (a.rows(), b.cols());
    let ab = a.augment(b)?;
    laps.stage("bound")?;
    let cols = n + l;
    let mut singular_at: HashSet<u32> = HashSet::new();
    loop {
        let basis = Arc::new(RnsBasis::for_bits_excluding(bits, |p| {
            singular_at.contains(&p)
        }));
        let channels = basis.channels();
        laps.stage("primes")?;
        let (e, data) =
            backend.eliminate_integers(&basis, ab.entries(), (n, cols, n), true, Some(n))?;
        laps.stage("reduce, eliminate mod p")?;
        let bad: Vec<u32> = (0..channels)
            .filter(|&c| e[c].rank as usize != n)
            .map(|c| basis.moduli()[c].m)
            .collect();
        if (0..basis.range_len()).all(|c| e[c].rank as usize != n) {
            // det(A) ≡ 0 modulo primes whose product exceeds 2|det(A)|: det(A) = 0.
            return Err(Error::Singular { prime: None });
        }
        if !bad.is_empty() {
            singular_at.extend(bad);
            continue;
        }
        // Channel-major numbers: det(A), then det(A)·X row by row.
        let len = 1 + n * l;
        let mut out = vec![0u32; channels * len];
        // By channel index: a system with no right-hand side (l = 0) keeps no columns.
        out.par_chunks_mut(len).enumerate().for_each(|(c, o)| {
            let (m, det) = (basis.moduli()[c], e[c].det);
            o[0] = det;
            let block = &data[c * n * l..(c + 1) * n * l];
            for (x, &y) in o[1..].iter_mut().zip(block) {
                *x = m.mul(det, y);
            }
        });
        laps.stage("det·X mod p")?;
        let mut values = backend.reconstruct(&basis, len, out, "a solution")?;
        laps.stage("crt")?;
        let det = values.remove(0);
        let x = lowest_terms(values, &det, backend, laps)?;
        let x = RatMatrix::new(n, l, x)?;
        laps.lap("fractions");
        return Ok(x);
    }
}
