//! Half-gcd reduction: most of Euclid's steps on a large pair found from its leading
//! bits, recursively, so that the big numbers see a few large products instead of a
//! quadratic number of small steps.
//!
//! The quotients of a pair's first `d` bits of steps depend only on its leading
//! `2d` bits or so; those bits reduced by `d/2` (recursively), the matrix applied to the
//! whole pair, then the other half from there. A quotient taken from leading bits can
//! be wrong in rare cases (and is when a huge quotient falls inside a truncated pair):
//! the state after each matrix is checked to be a Euclidean one (`x > y ≥ 0`), and when
//! it is not, that level runs the exact steps instead. The caller only uses what it
//! gets back through an exact check ([`super::rational_reconstruct`]).

use super::euclid::steps;
use rug::{Complete, Integer};

/// Reductions of at most this many bits run Euclid's (Lehmer's) steps directly.
const DIRECT_BITS: u32 = 2048;
/// Leading bits kept beyond twice the reduction asked of a truncated pair.
const GUARD_BITS: u32 = 64;

/// A 2 × 2 matrix `[a, b, c, d]`: `(x', y') = (a·x + b·y, c·x + d·y)`.
pub(super) type Mat = [Integer; 4];

/// Euclid's steps on `(x, y)`, `x > y ≥ 0`, until `y` has at most `target` bits (about:
/// the last step may go further): the matrix of the steps and the pair they lead to.
pub(super) fn reduce(x: Integer, y: Integer, target: u32) -> (Mat, Integer, Integer) {
    let n = x.significant_bits();
    if y.significant_bits() <= target {
        return (identity(), x, y);
    }
    let d = n.saturating_sub(target);
    if d <= DIRECT_BITS {
        return direct(x, y, target);
    }
    // A pair whose second number is already `d/2` bits shorter: one exact step first.
    let d1 = d / 2;
    if y.significant_bits() + d1 <= n {
        let q = (&x / &y).complete();
        let z = &x - (&q * &y).complete();
        let (m2, x2, y2) = reduce(y, z, target);
        let m1 = [Integer::new(), Integer::from(1), Integer::from(1), -q];
        return (product(&m2, &m1), x2, y2);
    }
    // The first half from the leading bits alone.
    let shift = n.saturating_sub(2 * d1 + 2 * GUARD_BITS);
    let (xh, yh) = (Integer::from(&x >> shift), Integer::from(&y >> shift));
    let th = xh.significant_bits() - d1;
    let (m1, _, _) = reduce(xh, yh, th);
    let (x1, y1) = apply(&m1, &x, &y);
    // Not a Euclidean state, or too little progress (about d/2 bits are expected).
    if !(x1 > y1 && y1 >= 0) || y1.significant_bits() + d1 / 2 > n {
        return direct(x, y, target);
    }
    let (m2, x2, y2) = reduce(x1, y1, target);
    (product(&m2, &m1), x2, y2)
}

/// [`reduce`] by Euclid's (Lehmer's) steps.
fn direct(x: Integer, y: Integer, target: u32) -> (Mat, Integer, Integer) {
    let mut r = [x, y];
    // The columns of the matrix transform as the remainders do.
    let mut pairs = [
        [Integer::from(1), Integer::new()],
        [Integer::new(), Integer::from(1)],
    ];
    steps(&mut r, &mut pairs, target + 64, |y| {
        y.significant_bits() > target
    });
    let ([x, y], [[a, c], [b, d]]) = (r, pairs);
    ([a, b, c, d], x, y)
}

fn identity() -> Mat {
    [
        Integer::from(1),
        Integer::new(),
        Integer::new(),
        Integer::from(1),
    ]
}

/// `m·(x, y)`.
fn apply(m: &Mat, x: &Integer, y: &Integer) -> (Integer, Integer) {
    let [a, b, c, d] = m;
    (
        (a * x).complete() + (b * y).complete(),
        (c * x).complete() + (d * y).complete(),
    )
}

/// The product `p·q` (`q` applied first).
fn product(p: &Mat, q: &Mat) -> Mat {
    let [a, b, c, d] = p;
    let [e, f, g, h] = q;
    [
        (a * e).complete() + (b * g).complete(),
        (a * f).complete() + (b * h).complete(),
        (c * e).complete() + (d * g).complete(),
        (c * f).complete() + (d * h).complete(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::rand::RandState;

    /// The reduction's matrix maps the pair to what it returns, with determinant ±1,
    /// and the state is Euclidean and at (or just past) the target.
    #[test]
    fn reductions_are_euclidean_states() {
        let mut rs = RandState::new();
        for bits in [100u32, 2000, 5000, 20_000, 70_000] {
            for _ in 0..4 {
                let x = Integer::from(Integer::random_bits(bits, &mut rs)) | 1u32;
                let y = Integer::from(Integer::random_below_ref(&x, &mut rs));
                let target = bits / 2;
                let (m, x2, y2) = reduce(x.clone(), y.clone(), target);
                assert_eq!(apply(&m, &x, &y), (x2.clone(), y2.clone()));
                let det = (&m[0] * &m[3]).complete() - (&m[1] * &m[2]).complete();
                assert_eq!(det.abs(), 1);
                assert!(x2 > y2 && y2 >= 0);
                assert!(y2.significant_bits() <= target && x2.significant_bits() > target);
            }
        }
    }
}
