//! Exact linear algebra over Z and Q through residues: product, rank, solve and inverse
//! (the determinant is [`crate::det()`]).
//!
//! Each follows the same path: a bound on the result's size → enough primes for it →
//! the inputs reduced modulo every prime → one batched modular computation (GPU or CPU)
//! → CRT, checked against the redundant prime.
//!
//! `solve` has two methods ([`Method`]). Multimodular with Cramer's rule:
//! `det(A) · X = adj(A) · B` is an integer matrix whose entries are determinants
//! (Hadamard-bounded), so each prime gives `det(A) mod p` and `det(A) · X mod p` by one
//! Gauss–Jordan elimination of `[A | B]`, and CRT returns both exactly; every prime is an
//! independent GPU block, and primes modulo which `A` is singular are replaced by
//! others. Dixon's p-adic lifting ([`crate::dixon`]): one inverse modulo one prime, then
//! O(n²) per lifting step, far fewer operations, but one step after another; the default
//! on the CPU backend for systems with few right-hand sides.
//!
//! ```
//! use rns::{linalg, Backend, IntMatrix};
//!
//! let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 3])?;
//! let b = IntMatrix::from_i64(2, 1, &[1, 2])?;
//! let x = linalg::solve(&a, &b, &Backend::Cpu)?;
//! assert_eq!(x.to_string(), "2 1\n1/5\n3/5\n");
//! assert_eq!(linalg::rank(&a, &Backend::Cpu)?, 2);
//! assert_eq!(linalg::matmul(&a, &b, &Backend::Cpu)?.to_string(), "2 1\n4\n7\n");
//! # Ok::<(), rns::Error>(())
//! ```

use crate::algo::dixon::solve_dixon;
use crate::algo::dixon_gpu::{lifts_on_gpu, solve_dixon_gpu};
use crate::algo::method::{Lifting, Method};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::bounds::{cramer_bits, log2_norm};
use crate::mat::matrix::{require_product, require_rhs, require_square, IntMatrix, RatMatrix};
use crate::mat::modmat::ModMatrices;
use crate::num::basis::RnsBasis;
use crate::num::fractions::over_denominator;
use crate::timing::Laps;
use rayon::prelude::*;
use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

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

/// Bits `b` with every minor of `a` at most `2^b` in absolute value: Hadamard's bound
/// over the rows or over the columns, whichever is smaller (zero rows count as 1).
fn minor_bits(a: &IntMatrix) -> u64 {
    let rows: f64 = (0..a.rows())
        .map(|i| log2_norm(a.row(i)).unwrap_or(0.0).max(0.0))
        .sum();
    let t = a.transpose();
    let cols: f64 = (0..t.rows())
        .map(|j| log2_norm(t.row(j)).unwrap_or(0.0).max(0.0))
        .sum();
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

/// The exact solution `X` of `A X = B` over Q for square non-singular `A`, in lowest
/// terms with positive denominators. A singular `A` gives [`Error::Singular`].
pub fn solve(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<RatMatrix> {
    solve_with_stats(a, b, backend).map(|(x, _)| x)
}

/// [`solve`], with the time of each stage ([`Method::Auto`]).
pub fn solve_with_stats(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
) -> Result<(RatMatrix, Vec<(&'static str, Duration)>)> {
    solve_with_method(a, b, backend, Method::Auto)
}

/// [`solve`] by `method`, with the time of each stage (the first names the method).
pub fn solve_with_method(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
    method: Method,
) -> Result<(RatMatrix, Vec<(&'static str, Duration)>)> {
    let mut laps = Laps::start();
    let n = require_square(a.rows(), a.cols(), "solving A X = B")?;
    require_rhs(n, b.rows())?;
    let l = b.cols();
    // With no right-hand side only A's singularity is left to decide: the multimodular
    // path does that for every method.
    let fits_gpu = || backend.gpu().is_some_and(|g| lifts_on_gpu(g, a, b));
    let lifting = (l > 0)
        .then(|| method.solve_lifting(n, l, backend, fits_gpu))
        .flatten();
    if let Some(lifting) = lifting {
        let lifted = match (lifting, backend.gpu()) {
            (Lifting::Gpu, Some(gpu)) => solve_dixon_gpu(gpu, a, b)?.map(|(s, lifting)| {
                laps.append(lifting);
                s
            }),
            _ => {
                let s = solve_dixon(a, b)?;
                laps.stage("dixon lifting")?;
                s
            }
        };
        if let Some(s) = lifted {
            let d = &s.denominator;
            let x = over_denominator(s.numerators, d).ok_or(Error::Singular { prime: None })?;
            let x = RatMatrix::new(n, l, x)?;
            laps.lap("fractions");
            return Ok((x, laps.into_stages()));
        }
        laps.stage("dixon: singular modulo the primes tried")?;
    }
    // Cramer: det(A) and each entry of det(A)·X is a determinant of A with one column
    // replaced by a column of B; Hadamard over the columns bounds them all.
    let (_, bits) = cramer_bits(a, b).ok_or(Error::Singular { prime: None })?;
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
        let x = over_denominator(values, &det).ok_or(Error::Singular { prime: None })?;
        let x = RatMatrix::new(n, l, x)?;
        laps.lap("fractions");
        return Ok((x, laps.into_stages()));
    }
}

/// The exact inverse over Q of a square non-singular integer matrix.
pub fn inverse(a: &IntMatrix, backend: &Backend) -> Result<RatMatrix> {
    solve(a, &IntMatrix::identity(a.rows()), backend)
}
