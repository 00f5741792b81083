//! Resultants with one degree small against the other, and with a constant: exact over
//! Z without reducing the long polynomial modulo every prime (that would cost
//! `deg f × primes` words: 129 GB for `1 + x + … + x^1000000` against `2 + x`).
//!
//! For `deg g = k ≤` [`SMALL_MAX`] and `deg f = m` much larger: the pseudo-remainder
//! `r = c^(m − k + 1)·f mod g` (`c = lc g`; [`crate::poly::prem`], by halves), then
//! `res(g, f) = c^(m − deg r − (m − k + 1)·k) · res(g, r)` (from
//! `res(g, h) = c^(deg h) · ∏ h(β)` over the roots `β` of `g`; the power is usually
//! negative and the division exact), where `res(g, r)` is a resultant of two
//! polynomials of degree below `k + 1`, multimodular as any other; and
//! `res(f, g) = (−1)^(m·k)·res(g, f)`. A constant: `res(f, c) = c^(deg f)`.

use crate::poly::intpoly::IntPoly;
use crate::poly::prem::pseudo_remainder;
use rug::ops::Pow;
use rug::Integer;

/// The largest small degree that takes the pseudo-remainder.
pub const SMALL_MAX: usize = 16;

/// The smallest large degree that takes it (below, the multimodular method's
/// `deg f × primes` residues are few).
pub const LARGE_FROM: usize = 2048;

/// The most word operations the smaller pair's residues may cost (about a second):
/// beyond, the caller takes the multimodular method on the original pair.
pub const INNER_WORK_MAX: u64 = 2_000_000_000;

/// About the word operations of reducing `res(small, rest)`'s coefficients modulo its
/// primes (Hadamard's bound over 31 bits a prime, times the words of the coefficients).
pub fn inner_work(small: &IntPoly, rest: &IntPoly) -> u64 {
    let bits = |p: &IntPoly| {
        p.coeffs()
            .iter()
            .map(|c| u64::from(c.significant_bits()))
            .max()
            .unwrap_or(0)
    };
    let (bs, br) = (bits(small), bits(rest));
    let primes = (small.degree() as u64 * (br + 8) + rest.degree() as u64 * (bs + 8)) / 31 + 1;
    let words: u64 = small
        .coeffs()
        .iter()
        .chain(rest.coeffs())
        .map(|c| u64::from(c.significant_bits()) / 32 + 1)
        .sum();
    primes.saturating_mul(words)
}

/// What [`reduce`] leaves: the resultant itself, or `sign · res(g, r) / c^e`
/// (`c^(−e)` when `e < 0`) for a smaller pair `(g, r)`.
#[derive(Debug)]
pub enum Reduced {
    /// The answer.
    Done(Integer),
    /// `res(f, g) = sign · res(small, rest) · lc(small)^power`, exact.
    Smaller {
        /// The polynomial of small degree.
        small: IntPoly,
        /// The pseudo-remainder, of lower degree.
        rest: IntPoly,
        /// `±1`.
        negate: bool,
        /// The power of `lc(small)` (negative: an exact division).
        power: i64,
    },
}

/// Whether `res(f, g)` takes [`reduce`]: a constant against a non-constant, or one
/// degree at most [`SMALL_MAX`] with the other at least [`LARGE_FROM`].
pub fn applies(f: &IntPoly, g: &IntPoly) -> bool {
    let (m, k) = (f.degree(), g.degree());
    let (small, large) = (m.min(k), m.max(k));
    (small == 0 && large > 0) || (small <= SMALL_MAX && large >= LARGE_FROM)
}

/// `res(f, g)` reduced as the module says (for `f`, `g` that [`applies`] accepts).
pub fn reduce(f: &IntPoly, g: &IntPoly) -> Reduced {
    let (m, k) = (f.degree(), g.degree());
    if k > m {
        // res(f, g) = (−1)^(m·k)·res(g, f).
        return match reduce(g, f) {
            Reduced::Done(r) => Reduced::Done(if m * k % 2 == 1 { -r } else { r }),
            Reduced::Smaller {
                small,
                rest,
                negate,
                power,
            } => Reduced::Smaller {
                small,
                rest,
                negate: negate ^ (m * k % 2 == 1),
                power,
            },
        };
    }
    if k == 0 {
        // The Sylvester matrix is `g`'s constant times the identity of order `m`.
        return Reduced::Done(g.leading().clone().pow(m as u32));
    }
    let r = pseudo_remainder(f.coeffs(), g.coeffs());
    let negate = m * k % 2 == 1;
    let Ok(rest) = IntPoly::new(r) else {
        return Reduced::Done(Integer::new()); // g divides c^e·f: a common factor
    };
    let d = rest.degree();
    let power = m as i64 - d as i64 - ((m - k + 1) * k) as i64;
    if d == 0 {
        // res(g, r0) = r0^k.
        let value = rest.leading().clone().pow(k as u32);
        return Reduced::Done(finish(value, g.leading(), power, negate));
    }
    Reduced::Smaller {
        small: g.clone(),
        rest,
        negate,
        power,
    }
}

/// `±value · c^power`, the division exact when `power < 0`.
pub fn finish(value: Integer, c: &Integer, power: i64, negate: bool) -> Integer {
    let scale = c.clone().pow(power.unsigned_abs() as u32);
    let v = if power >= 0 {
        value * scale
    } else {
        value.div_exact(&scale)
    };
    if negate {
        -v
    } else {
        v
    }
}

/// `res(small, rest)` for the [`Reduced::Smaller`] case exactly, from the resultant
/// `res` of the smaller pair.
pub fn value_of(reduced: &Reduced, res: Integer) -> Integer {
    match reduced {
        Reduced::Done(r) => r.clone(),
        Reduced::Smaller {
            small,
            negate,
            power,
            ..
        } => finish(res, small.leading(), *power, *negate),
    }
}
