//! The Sylvester matrix of two polynomials: its determinant is their resultant.

use super::intpoly::IntPoly;
use crate::mat::matrix::IntMatrix;
use rug::Integer;

/// The Sylvester matrix of `f` (degree m) and `g` (degree n): `(m+n) × (m+n)`, the first
/// `n` rows hold `f`'s coefficients from the leading one, shifted one column per row,
/// the last `m` rows those of `g`.
pub fn sylvester(f: &IntPoly, g: &IntPoly) -> IntMatrix {
    sylvester_of(f.coeffs(), g.coeffs())
}

/// The Sylvester matrix of two coefficient lists (constant term first) taken with the
/// formal degrees `f.len() − 1` and `g.len() − 1`, whose leading coefficients may be
/// zero (as for `f(a, y)` when a leading coefficient in `y` vanishes at `a`).
pub fn sylvester_of(f: &[Integer], g: &[Integer]) -> IntMatrix {
    let (m, n) = (f.len().saturating_sub(1), g.len().saturating_sub(1));
    let size = m + n;
    let mut data = vec![Integer::new(); size * size];
    for (rows, shift_rows, p) in [(n, 0, f), (m, n, g)] {
        for r in 0..rows {
            for (j, c) in p.iter().rev().enumerate() {
                data[(shift_rows + r) * size + r + j] = c.clone();
            }
        }
    }
    IntMatrix::new(size, size, data).expect("square by construction")
}
