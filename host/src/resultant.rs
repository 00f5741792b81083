//! Resultants over Z through residues.
//!
//! `res(f, g)` is the determinant of the Sylvester matrix of `f` and `g` (`deg g` rows of
//! `f`'s coefficients, then `deg f` rows of `g`'s, leading coefficients first), as FLINT,
//! PARI and Sage define it. It is computed as that determinant with the exact
//! multimodular pipeline of [`crate::det`] (Hadamard bound of the Sylvester matrix →
//! primes → elimination modulo each prime, on the CPU or the GPU → CRT). Elimination is
//! exact modulo every prime whatever the leading coefficients, so no prime is skipped.

use crate::backend::Backend;
use crate::det::det;
use crate::error::Result;
use crate::matrix::IntMatrix;
use crate::poly::IntPoly;
use rug::Integer;

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

/// The resultant `res(f, g)`, exact.
pub fn resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    if f.degree() + g.degree() == 0 {
        return Ok(Integer::from(1)); // two constants: the empty determinant
    }
    det(&sylvester(f, g), backend)
}
