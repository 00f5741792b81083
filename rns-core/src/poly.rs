//! Polynomials modulo one prime: the steps of Collins' modular resultant of
//! bivariate polynomials — evaluate at `x = α`, take one univariate resultant in `y` per
//! point ([`resultant_at_point`]), interpolate the values back into a polynomial in `x`
//! ([`interpolate`]).

use crate::linalg::resultant_strided;
use crate::modulus::Modulus;

/// Marks a point dropped because a leading coefficient in `y` vanishes there (never a
/// residue: every modulus is below 2^31).
pub const NO_POINT: u32 = u32::MAX;

/// The shape of a pair `f, g ∈ Z[x, y]` held densely: `f` as `fy + 1` rows (the
/// coefficients of `y^0 … y^fy`), each of `fx + 1` coefficients in `x` (constant term
/// first); `g` likewise with `gy`, `gx`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct BiShape {
    /// Degree of `f` in `y`.
    pub fy: u32,
    /// Degree bound of `f` in `x` (every row holds `fx + 1` coefficients).
    pub fx: u32,
    /// Degree of `g` in `y`.
    pub gy: u32,
    /// Degree bound of `g` in `x`.
    pub gx: u32,
}

impl BiShape {
    /// Words of `f`'s dense coefficients.
    pub fn f_len(self) -> usize {
        (self.fy as usize + 1) * (self.fx as usize + 1)
    }

    /// Words of both polynomials' dense coefficients (`f`'s, then `g`'s).
    pub fn len(self) -> usize {
        self.f_len() + (self.gy as usize + 1) * (self.gx as usize + 1)
    }

    /// Never true: a shape holds at least one coefficient of each polynomial.
    pub fn is_empty(self) -> bool {
        false
    }

    /// Words of `f(α, y)` and `g(α, y)` together: `fy + gy + 2`.
    pub fn work_len(self) -> usize {
        (self.fy + self.gy + 2) as usize
    }

    /// The degree bound of `res_y(f, g)` in `x`: `gy·fx + fy·gx`.
    pub fn degree_bound(self) -> usize {
        self.gy as usize * self.fx as usize + self.fy as usize * self.gx as usize
    }
}

/// `p(x) mod m` by Horner's rule for the `len` coefficients at `p` (constant first).
///
/// # Safety
/// `p` must be valid for `len` reads.
#[inline(always)]
pub unsafe fn eval(p: *const u32, len: usize, x: u32, m: Modulus) -> u32 {
    let mut acc = 0;
    let mut i = len;
    while i > 0 {
        i -= 1;
        acc = m.mul_add(acc, x, *p.add(i));
    }
    acc
}

/// `res_y(f(α, y), g(α, y)) mod m` for the dense pair at `coeffs` (shape `s`: `f`'s
/// rows, then `g`'s), or `None` when a leading coefficient in `y` vanishes at `α` (the
/// point must then be dropped). `work` receives `f(α, y)` then `g(α, y)` with stride
/// `stride` and is overwritten by the resultant.
///
/// # Safety
/// `coeffs` must be valid for `s.len()` reads and `work` for `s.work_len()` writes at
/// stride `stride`.
#[inline]
pub unsafe fn resultant_at_point(
    coeffs: *const u32,
    s: BiShape,
    alpha: u32,
    work: *mut u32,
    stride: usize,
    m: Modulus,
) -> Option<u32> {
    let (fy, fx, gy, gx) = (s.fy as usize, s.fx as usize, s.gy as usize, s.gx as usize);
    let g = coeffs.add(s.f_len());
    if eval(coeffs.add(fy * (fx + 1)), fx + 1, alpha, m) == 0
        || eval(g.add(gy * (gx + 1)), gx + 1, alpha, m) == 0
    {
        return None;
    }
    let mut j = 0;
    while j <= fy {
        *work.add(j * stride) = eval(coeffs.add(j * (fx + 1)), fx + 1, alpha, m);
        j += 1;
    }
    let gw = work.add((fy + 1) * stride);
    j = 0;
    while j <= gy {
        *gw.add(j * stride) = eval(g.add(j * (gx + 1)), gx + 1, alpha, m);
        j += 1;
    }
    Some(resultant_strided(work, gw, fy, gy, stride, m))
}

/// Fills `inv[g] = g⁻¹ mod m` for `1 ≤ g < inv.len()` (`inv[0] = 0`) in O(len) products:
/// `g⁻¹ = −⌊m/g⌋ · (m mod g)⁻¹`. `inv.len()` must be below `m`.
pub fn small_inverses(inv: &mut [u32], m: Modulus) {
    let mut g = 1;
    while g < inv.len() {
        let i = if g == 1 {
            1
        } else {
            // m mod g < g: already filled.
            let r = inv.get((m.m as usize) % g).copied().unwrap_or(0);
            m.neg(m.mul(m.reduce_u32(m.m / g as u32), r))
        };
        if let Some(slot) = inv.get_mut(g) {
            *slot = i;
        }
        g += 1;
    }
}

/// One divided difference: `(hi − lo) / (x_i − x_{i−k})`, given that gap's inverse.
#[inline(always)]
pub fn divided_difference(hi: u32, lo: u32, inv_gap: u32, m: Modulus) -> u32 {
    m.mul(m.sub(hi, lo), inv_gap)
}

/// One step of the Newton-to-monomial conversion `p ← p·(x − x_k) + c_k`: the new
/// coefficient from the old one at the same place and the one above it.
#[inline(always)]
pub fn newton_shift(cur: u32, above: u32, xk: u32, m: Modulus) -> u32 {
    m.sub(cur, m.mul(xk, above))
}

/// Interpolation modulo `m`: `xs` are increasing points with `xs[i] − xs[j] <
/// inv.len()` for `j < i`, and `inv` the table of [`small_inverses`]; `ys` holds the
/// values at the points and is overwritten with the coefficients (constant first) of the
/// unique polynomial of degree below `ys.len()` through them. Newton's divided
/// differences, then the Newton form expanded, O(n²) products. The GPU kernel
/// `rns_interpolate` runs the same steps with a block of threads per prime.
pub fn interpolate(xs: &[u32], ys: &mut [u32], inv: &[u32], m: Modulus) {
    let n = ys.len().min(xs.len());
    for k in 1..n {
        for i in (k..n).rev() {
            let gap = (xs[i] - xs[i - k]) as usize;
            ys[i] = divided_difference(ys[i], ys[i - 1], inv[gap], m);
        }
    }
    for k in (0..n.saturating_sub(1)).rev() {
        for j in k..n - 1 {
            ys[j] = newton_shift(ys[j], ys[j + 1], xs[k], m);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u32 = 2_147_483_647;

    #[test]
    fn inverses_and_interpolation() {
        let m = Modulus::new(P).unwrap();
        let mut inv = [0u32; 50];
        small_inverses(&mut inv, m);
        for (g, &i) in inv.iter().enumerate().skip(1) {
            assert_eq!(m.mul(g as u32, i), 1, "inverse of {g}");
        }
        // p(x) = 3 − x + 5x³ through the points 0, 2, 3, 7 (1 dropped, as a bad point would be).
        let p = [3, P - 1, 0, 5];
        let xs = [0, 2, 3, 7];
        let mut ys = xs.map(|x| unsafe { eval(p.as_ptr(), 4, x, m) });
        interpolate(&xs, &mut ys, &inv, m);
        assert_eq!(ys, p);
    }

    #[test]
    fn a_point_where_a_leading_coefficient_vanishes_is_refused() {
        let m = Modulus::new(P).unwrap();
        // f = (x − 1)·y + 1 (fy = 1, fx = 1), g = y − x (gy = 1, gx = 1).
        let s = BiShape {
            fy: 1,
            fx: 1,
            gy: 1,
            gx: 1,
        };
        let coeffs = [1, 0, P - 1, 1, 0, P - 1, 1, 0];
        let mut work = [0u32; 4];
        let at = |a: u32, w: &mut [u32; 4]| unsafe {
            resultant_at_point(coeffs.as_ptr(), s, a, w.as_mut_ptr(), 1, m)
        };
        assert_eq!(at(1, &mut work), None);
        // res_y(f, g) = det [[x − 1, 1], [1, −x]] = −x² + x − 1: at x = 3, −7.
        assert_eq!(at(3, &mut work), Some(P - 7));
        assert_eq!(s.degree_bound(), 2);
    }

    #[test]
    fn shape_sizes() {
        let s = BiShape {
            fy: 2,
            fx: 4,
            gy: 3,
            gx: 6,
        };
        assert_eq!(s.f_len(), 3 * 5);
        assert_eq!(s.len(), 3 * 5 + 4 * 7);
        assert!(!s.is_empty());
        assert_eq!(s.work_len(), 3 + 4);
        // res_y(f, g) has degree at most deg_y(g)·deg_x(f) + deg_y(f)·deg_x(g).
        assert_eq!(s.degree_bound(), 3 * 4 + 2 * 6);
    }

    #[test]
    fn inverse_table_of_every_length() {
        let m = Modulus::new(P).unwrap();
        for len in 0..40 {
            let mut inv = [7u32; 40];
            small_inverses(&mut inv[..len], m);
            for (g, &i) in inv[..len].iter().enumerate().skip(1) {
                assert_eq!(m.mul(g as u32, i), 1, "inverse of {g} in a table of {len}");
            }
            assert!(
                inv[len..].iter().all(|&x| x == 7),
                "nothing written past the table"
            );
        }
    }
}
