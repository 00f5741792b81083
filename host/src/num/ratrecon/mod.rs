//! Rational reconstruction: the fraction `a/b` with `a ≡ b·u (mod m)` and `|a|, b` below
//! a bound, by the extended Euclidean algorithm stopped half-way (Wang's method).

mod euclid;
mod half;

use euclid::steps;
use rug::Integer;

/// From this size of the modulus on, a half-gcd reduction (`reduce`) runs first.
const HALF_GCD_FROM_BITS: u32 = 4096;

/// The fraction `a/b` (`b > 0`, in lowest terms) with `a ≡ b·u (mod m)`, `|a| ≤ bound`
/// and `b ≤ bound`, if there is one. It is unique when `2·bound² < m`: any fraction
/// with numerator and denominator at most `bound` that is congruent to `u` is this one.
///
/// Euclid's algorithm on `(m, u mod m)`, the cofactors of `u` alongside, stopped at the
/// first remainder within the bound (Wang's method). Large moduli first go most of the
/// way by a half-gcd reduction on leading bits (`reduce`: products of large
/// numbers instead of a quadratic number of small steps); its end state is only used
/// when it is a valid Euclidean state, and a fraction it leads to is within the bounds,
/// hence the unique one. Should it lead to none, plain Euclid decides.
pub fn rational_reconstruct(
    u: &Integer,
    m: &Integer,
    bound: &Integer,
) -> Option<(Integer, Integer)> {
    let u = Integer::from(u.modulo_ref(m));
    if m.significant_bits() >= HALF_GCD_FROM_BITS && u > *bound {
        if let Some(found) = by_half_gcd(&u, m, bound) {
            return Some(found);
        }
    }
    wang(m.clone(), u, Integer::new(), Integer::from(1), bound)
}

/// Wang's method after a half-gcd reduction of `(m, u)` (`0 ≤ u < m`) to a little above
/// the bound.
fn by_half_gcd(u: &Integer, m: &Integer, bound: &Integer) -> Option<(Integer, Integer)> {
    let target = bound.significant_bits() + 64;
    let (mat, x, y) = half::reduce(m.clone(), u.clone(), target);
    // x = mat[0]·m + mat[1]·u ≡ mat[1]·u, y ≡ mat[3]·u (mod m).
    let [_, s0, _, s1] = mat;
    wang(x, y, s0, s1, bound)
}

/// Wang's method from the Euclidean state `r0 > r1 ≥ 0` with `r_i ≡ s_i·u (mod m)`:
/// steps until `r1 ≤ bound`, then `r1/s1` if its denominator is within the bound and
/// the fraction in lowest terms.
fn wang(
    r0: Integer,
    r1: Integer,
    s0: Integer,
    s1: Integer,
    bound: &Integer,
) -> Option<(Integer, Integer)> {
    let mut r = [r0, r1];
    let mut s = [[s0, s1]];
    steps(&mut r, &mut s, bound.significant_bits() + 64, |r1| {
        r1 > bound
    });
    let ([_, mut r1], [[_, mut s1]]) = (r, s);
    if s1 < 0 {
        r1 = -r1;
        s1 = -s1;
    }
    if s1 == 0 || s1 > *bound || Integer::from(r1.gcd_ref(&s1)) != 1 {
        return None;
    }
    Some((r1, s1))
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

    /// With the half-gcd reduction (moduli of 4096 bits and more): the same answer as
    /// plain Euclid, for fractions of every size up to the bound (small ones make a
    /// huge quotient inside a truncated pair), residues 0, 1 and m − 1, random residues
    /// (mostly no fraction) and a prime power or a random odd modulus.
    #[test]
    fn half_gcd_agrees_with_euclid() {
        let mut state = rug::rand::RandState::new();
        let exact = |u: &Integer, m: &Integer, bound: &Integer| {
            wang(
                m.clone(),
                u.clone(),
                Integer::new(),
                Integer::from(1),
                bound,
            )
        };
        for k in [133u32, 400, 2200] {
            let prime_power = Integer::from(Integer::u_pow_u(2_147_483_629, k));
            let odd = Integer::from(Integer::random_bits(31 * k, &mut state)) | 1u32;
            for m in [prime_power, odd] {
                let bound = Integer::from(&m >> 1u32).sqrt();
                let top = bound.significant_bits();
                let mut cases: Vec<Integer> = vec![
                    Integer::new(),
                    Integer::from(1),
                    Integer::from(&m - 1u32),
                    Integer::from(Integer::random_below_ref(&m, &mut state)),
                ];
                for bits in [1, 40, top / 8, top / 3, top / 2, top - 3, top] {
                    let a = Integer::from(Integer::random_bits(bits, &mut state))
                        - (Integer::from(1) << (bits - 1).max(1));
                    let b = Integer::from(Integer::random_bits(bits, &mut state)) | 1u32;
                    if let Ok(inv) = b.clone().invert(&m) {
                        cases.push((a * inv).modulo(&m));
                    }
                }
                for u in &cases {
                    let want = exact(u, &m, &bound);
                    assert_eq!(rational_reconstruct(u, &m, &bound), want, "{k}: {u}");
                    if *u > bound {
                        assert_eq!(by_half_gcd(u, &m, &bound), want, "{k}: {u}");
                    }
                    if let Some((a, b)) = want {
                        assert_eq!((&a - &b * u.clone()).modulo(&m), 0);
                    }
                }
            }
        }
    }
}
