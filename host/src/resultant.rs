//! Resultants over Z through residues.
//!
//! `res(f, g)` is the determinant of the Sylvester matrix of `f` and `g` (`deg g` rows of
//! `f`'s coefficients, then `deg f` rows of `g`'s, leading coefficients first), as FLINT,
//! PARI and Sage define it. [`resultant`] computes it by the multimodular method: the
//! Hadamard bound of the Sylvester matrix → primes that divide neither leading
//! coefficient → Euclid's algorithm modulo each prime (O(deg f · deg g) products, one
//! GPU thread or one CPU task per prime) → CRT, checked against a redundant prime.
//! [`sylvester_resultant`] is the same number as an O(n³)-per-prime determinant.

use crate::backend::Backend;
use crate::basis::RnsBasis;
use crate::det::{det, log2_norm};
use crate::error::{Error, Result};
use crate::matrix::IntMatrix;
use crate::poly::IntPoly;
use crate::vector::RnsVec;
use rug::Integer;
use std::sync::Arc;

/// The Sylvester matrix of `f` (degree m) and `g` (degree n): `(m+n) × (m+n)`, the first
/// `n` rows hold `f`'s coefficients from the leading one, shifted one column per row,
/// the last `m` rows those of `g`.
pub fn sylvester(f: &IntPoly, g: &IntPoly) -> IntMatrix {
    let (m, n) = (f.degree(), g.degree());
    let size = m + n;
    let mut data = vec![Integer::new(); size * size];
    for (rows, shift_rows, p) in [(n, 0, f), (m, n, g)] {
        for r in 0..rows {
            for (j, c) in p.coeffs().iter().rev().enumerate() {
                data[(shift_rows + r) * size + r + j] = c.clone();
            }
        }
    }
    IntMatrix::new(size, size, data).expect("square by construction")
}

/// The resultant `res(f, g)`, exact, as the determinant of the Sylvester matrix.
pub fn sylvester_resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    if f.degree() + g.degree() == 0 {
        return Ok(Integer::from(1)); // two constants: the empty determinant
    }
    det(&sylvester(f, g), backend)
}

/// Bits `b` with `|res(f, g)| ≤ 2^b` that also cover every coefficient: Hadamard's bound
/// on the Sylvester matrix, `‖f‖^deg g · ‖g‖^deg f`.
pub fn bound_bits(f: &IntPoly, g: &IntPoly) -> u64 {
    let (lf, lg) = (
        log2_norm(f.coeffs()).unwrap_or(0.0),
        log2_norm(g.coeffs()).unwrap_or(0.0),
    );
    let hadamard = g.degree() as f64 * lf + f.degree() as f64 * lg;
    hadamard.max(lf).max(lg).ceil() as u64 + 1
}

/// The resultant `res(f, g)`, exact (multimodular Euclid; see the module documentation).
pub fn resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    if f.degree() + g.degree() == 0 {
        return Ok(Integer::from(1)); // two constants: the empty determinant
    }
    let (lf, lg) = (f.leading().clone(), g.leading().clone());
    let basis = Arc::new(RnsBasis::for_bits_excluding(bound_bits(f, g), |p| {
        lf.is_divisible_u(p) || lg.is_divisible_u(p)
    }));
    let coeffs: Vec<Integer> = f.coeffs().iter().chain(g.coeffs()).cloned().collect();
    let residues = backend.to_rns(&basis, &coeffs)?;
    let per_prime = backend.resultant_per_channel(&residues, f.degree(), g.degree())?;
    let res = RnsVec::from_residues(&basis, 1, per_prime)?
        .to_integers_checked()
        .map_err(|_| Error::Internal("resultant disagrees with the redundant prime".into()))?;
    Ok(res.into_iter().next().expect("one value"))
}
