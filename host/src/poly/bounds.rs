//! Bounds on resultants: bits that hold every coefficient of the answer (and of the
//! inputs), from Hadamard's bound on the Sylvester matrix.

use super::bipoly::BiPoly;
use super::intpoly::IntPoly;
use crate::mat::bounds::log2_norm;
use rug::Integer;

/// Bits `b` with `|res(f, g)| ≤ 2^b` that also cover every coefficient: Hadamard's bound
/// on the Sylvester matrix, `‖f‖^deg g · ‖g‖^deg f`.
pub fn resultant_bits(f: &IntPoly, g: &IntPoly) -> u64 {
    let (lf, lg) = (
        log2_norm(f.coeffs()).unwrap_or(0.0),
        log2_norm(g.coeffs()).unwrap_or(0.0),
    );
    let hadamard = g.degree() as f64 * lf + f.degree() as f64 * lg;
    hadamard.max(lf).max(lg).ceil() as u64 + 1
}

/// Bits `b` with every coefficient of `res_y(f, g)` and of `f` and `g` at most `2^b` in
/// absolute value. For the result: Hadamard's bound on the Sylvester matrix on the unit
/// circle `|x| = 1`, where each entry `f_j(x)` is at most its 1-norm, so
/// `|res(x)| ≤ (Σ_j ‖f_j‖₁²)^(deg_y g / 2) · (Σ_j ‖g_j‖₁²)^(deg_y f / 2)`; each
/// coefficient is at most that maximum (Cauchy's estimate).
pub fn resultant_xy_bits(f: &BiPoly, g: &BiPoly) -> u64 {
    let rows_norm = |p: &BiPoly| {
        let norms: Vec<Integer> = (0..=p.deg_y())
            .map(|j| p.row(j).iter().map(|c| c.clone().abs()).sum())
            .collect();
        log2_norm(&norms).unwrap_or(0.0)
    };
    let biggest = |p: &BiPoly| {
        (0..=p.deg_y())
            .flat_map(|j| p.row(j))
            .map(|c| c.significant_bits())
            .max()
            .unwrap_or(0) as f64
    };
    let hadamard = g.deg_y() as f64 * rows_norm(f) + f.deg_y() as f64 * rows_norm(g);
    hadamard.max(biggest(f)).max(biggest(g)).ceil() as u64 + 1
}
