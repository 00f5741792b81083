//! Rational reconstruction: the fraction `a/b` with `a ≡ b·u (mod m)` and `|a|, b` below
//! a bound, by the extended Euclidean algorithm stopped half-way (Wang's method).

use rug::{Assign, Integer};

/// The fraction `a/b` (`b > 0`, in lowest terms) with `a ≡ b·u (mod m)`, `|a| ≤ bound`
/// and `b ≤ bound`, if there is one. It is unique when `2·bound² < m`: any fraction
/// with numerator and denominator at most `bound` that is congruent to `u` is this one.
///
/// Lehmer's method: while the remainders are far above the bound, the quotients of
/// Euclid's algorithm are found from the numbers' leading 62 bits in single precision
/// (Knuth's Algorithm L, each block checked so that every quotient is exact) and
/// applied to the big numbers at once; the last steps are plain Euclid.
pub fn rational_reconstruct(
    u: &Integer,
    m: &Integer,
    bound: &Integer,
) -> Option<(Integer, Integer)> {
    // Invariants: r0 ≡ s0·u and r1 ≡ s1·u (mod m), r0 > r1 ≥ 0.
    let mut r0 = m.clone();
    let mut r1 = Integer::from(u.modulo_ref(m));
    let (mut s0, mut s1) = (Integer::new(), Integer::from(1));
    let (mut q, mut t) = (Integer::new(), Integer::new());
    let stop_bits = bound.significant_bits() + 64;
    while r1 > *bound {
        let step = if r1.significant_bits() > stop_bits {
            lehmer_block(&r0, &r1)
        } else {
            None
        };
        match step {
            Some([a, b, c, d]) => {
                // (r0, r1) ← (a·r0 + b·r1, c·r0 + d·r1), and the same for (s0, s1).
                let n0 = Integer::from(&r0 * a) + Integer::from(&r1 * b);
                r1 = Integer::from(&r0 * c) + Integer::from(&r1 * d);
                r0 = n0;
                let n0 = Integer::from(&s0 * a) + Integer::from(&s1 * b);
                s1 = Integer::from(&s0 * c) + Integer::from(&s1 * d);
                s0 = n0;
            }
            None => {
                q.assign(&r0 / &r1); // both positive: the floor
                t.assign(&q * &r1);
                r0 -= &t;
                std::mem::swap(&mut r0, &mut r1);
                t.assign(&q * &s1);
                s0 -= &t;
                std::mem::swap(&mut s0, &mut s1);
            }
        }
    }
    if s1 < 0 {
        r1 = -r1;
        s1 = -s1;
    }
    if s1 == 0 || s1 > *bound || Integer::from(r1.gcd_ref(&s1)) != 1 {
        return None;
    }
    Some((r1, s1))
}

/// The matrix `[a, b, c, d]` of several Euclidean steps on `(x, y)`, `x > y`, found
/// from their leading 62 bits (Knuth's Algorithm L: a quotient is taken only when both
/// ends of its interval give it, so every step is the exact one); `None` when not even
/// one step is certain.
fn lehmer_block(x: &Integer, y: &Integer) -> Option<[i64; 4]> {
    let shift = x.significant_bits().saturating_sub(62);
    let mut xh = Integer::from(x >> shift).to_i128()?;
    let mut yh = Integer::from(y >> shift).to_i128()?;
    let (mut a, mut b, mut c, mut d) = (1i128, 0i128, 0i128, 1i128);
    loop {
        if yh + c == 0 || yh + d == 0 {
            break;
        }
        let q = (xh + a) / (yh + c);
        if q != (xh + b) / (yh + d) {
            break;
        }
        (a, c) = (c, a - q * c);
        (b, d) = (d, b - q * d);
        (xh, yh) = (yh, xh - q * yh);
    }
    if b == 0 {
        return None;
    }
    Some([a as i64, b as i64, c as i64, d as i64])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_come_back() {
        let m = Integer::from(1_000_000_007u64) * 998_244_353u64;
        let bound = Integer::from(&m >> 1u32).sqrt();
        for (a, b) in [
            (0i64, 1i64),
            (1, 1),
            (-1, 1),
            (22, 7),
            (-355, 113),
            (1, 999_983),
            (-999_979, 999_983),
        ] {
            let inv = Integer::from(b).invert(&m).unwrap();
            let u = (a * inv).modulo(&m);
            assert_eq!(
                rational_reconstruct(&u, &m, &bound),
                Some((a.into(), b.into())),
                "{a}/{b}"
            );
        }
        // Large: the Lehmer blocks do most of the steps.
        let m = Integer::from(Integer::u_pow_u(2_147_483_647, 130));
        let bound = Integer::from(&m >> 1u32).sqrt();
        let mut state = rug::rand::RandState::new();
        for bits in [64, 1000, 2000] {
            let a = Integer::from(Integer::random_bits(bits, &mut state))
                - (Integer::from(1) << (bits - 1));
            let b = Integer::from(Integer::random_bits(bits, &mut state)) + 1u32;
            let g = Integer::from(a.gcd_ref(&b));
            let (a, b) = (a.div_exact(&g), b.div_exact(&g));
            let u = (&a * b.clone().invert(&m).unwrap()).modulo(&m);
            assert_eq!(
                rational_reconstruct(&u, &m, &bound),
                Some((a, b)),
                "{bits} bits"
            );
        }
        // (m − 1)/2 + 12345 is no fraction of terms up to 1000: b·u mod m is
        // (b/2)·24689 for even b and near m/2 for odd b.
        let m = Integer::from(1_000_000_007u64) * 998_244_353u64;
        let u = Integer::from(&m >> 1u32) + 12345u32;
        assert_eq!(rational_reconstruct(&u, &m, &Integer::from(1000)), None);
    }
}
