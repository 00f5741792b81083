//! Sign and comparison by interval evaluation of the CRT fraction: an `O(K)` pass over
//! a number's channels that decides almost every comparison, leaving the exact
//! mixed-radix path ([`crate::mixed_radix`]) for the few numbers it cannot decide.
//!
//! # The fraction
//! For `x ∈ [0, M)` with residues `r_i`, the CRT gives `x = Σ_i s_i·(M/m_i) mod M` with
//! `s_i = (r_i · c_i) mod m_i` and `c_i = (M/m_i)^(−1) mod m_i`, so
//! `x / M = frac(Σ_i s_i / m_i)`. In 64-bit fixed point, with the weight
//! `w_i = ⌊2^64 / m_i⌋` ([`weight`]), each channel contributes the term
//! `t_i = s_i · w_i < 2^64` ([`term`]) and the sum is taken modulo `2^64`, that is
//! modulo 1: `S = Σ_i t_i mod 2^64`.
//!
//! # The error bound
//! Write `T = 2^64·x/M ∈ [0, 2^64)`, the exact fraction in units of `2^−64`. Each term
//! falls short of `s_i · 2^64/m_i` by `s_i · frac(2^64/m_i) ∈ [0, m_i − 1]`, so
//! `T ≡ S + E (mod 2^64)` with `0 ≤ E ≤ B = Σ_i (m_i − 1)` ([`slack`]; `B < K·2^31`).
//! If `S + B < 2^64`, then `T ∈ [S, S + B]`: otherwise `T = S + E − 2^64 < 0` would follow
//! from `S + E ≥ 2^64`, impossible as `S + E ≤ S + B < 2^64` — so the congruence is an
//! equality of integers. When `S + B ≥ 2^64` the interval may wrap past 1 and nothing
//! is decided.
//!
//! # Comparison
//! Signed values `a, b ∈ [−H, H]`, `H = (M − 1)/2`, are shifted by `H` onto `[0, M)`
//! (a monotone map), then compared by their fractions: if their intervals are disjoint
//! (and neither wraps), the order of the intervals is the order of the numbers.
//! Equal residues mean equal numbers. The sign of `a` is its comparison with 0.
//! Undecided ([`AMBIGUOUS`]) are only pairs whose shifted fractions lie within
//! `B·2^−64 < K·2^−33` of each other, or of 1: for one number against 0, `|a| < M·K·2^−33`
//! or `|a| > H − M·K·2^−33`. For uniformly random values that is a fraction of about
//! `K·2^−32` of the numbers; values small against `M` are all undecided.

use crate::modulus::Modulus;

/// Outcome of [`decide`]: `a < b`.
pub const LESS: u32 = u32::MAX; // −1 as an i32
/// Outcome of [`decide`]: `a = b`.
pub const EQUAL: u32 = 0;
/// Outcome of [`decide`]: `a > b`.
pub const GREATER: u32 = 1;
/// Outcome of [`decide`]: the intervals overlap; only the exact path can tell.
pub const AMBIGUOUS: u32 = 2;

/// The fixed-point weight `⌊2^64 / m⌋` of a channel (`m` odd, so `⌊(2^64 − 1)/m⌋`).
#[inline(always)]
pub fn weight(m: Modulus) -> u64 {
    // m ≥ 2 for every valid modulus; checked, so that no panic path is compiled.
    u64::MAX.checked_div(m.m as u64).unwrap_or(0)
}

/// The bound `B = Σ (m_i − 1)` of the fixed-point sum's error.
#[inline]
pub fn slack(moduli: &[Modulus]) -> u64 {
    moduli.iter().map(|m| (m.m - 1) as u64).sum()
}

/// One channel's term of the fraction of `x + H`: `((r + h) · c mod m) · w`, where
/// `r` is the residue of `x`, `h = (m − 1)/2` that of `H`, `c` the CRT cofactor inverse
/// and `w` the channel's [`weight`]. Below `2^64` (no overflow).
#[inline(always)]
pub fn term(m: Modulus, r: u32, h: u32, c: u32, w: u64) -> u64 {
    m.mul(m.add(r, h), c) as u64 * w
}

/// The comparison of `a` and `b` from the sums `sa`, `sb` of their shifted terms
/// ([`term`], added modulo `2^64`), whether all their residues are equal, and the
/// [`slack`]: [`LESS`], [`EQUAL`], [`GREATER`] or [`AMBIGUOUS`].
#[inline(always)]
pub fn decide(sa: u64, sb: u64, equal: bool, slack: u64) -> u32 {
    if equal {
        return EQUAL;
    }
    match (sa.checked_add(slack), sb.checked_add(slack)) {
        (Some(ha), Some(_)) if ha < sb => LESS,
        (Some(_), Some(hb)) if hb < sa => GREATER,
        _ => AMBIGUOUS,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crt::fill_inverses;

    const PRIMES: [u32; 3] = [2_147_483_647, 2_147_483_629, 1_073_741_827];

    fn setup() -> ([Modulus; 3], [u32; 3], u128, u128) {
        let moduli = PRIMES.map(Modulus::new_unchecked);
        let mut c = [0u32; 3];
        fill_inverses(&moduli, &mut c);
        let big_m: u128 = moduli.iter().map(|m| m.m as u128).product();
        (moduli, c, big_m, (big_m - 1) / 2)
    }

    /// The shifted sum of `x ∈ [0, M)` (an unsigned representative of a signed value).
    fn sum(moduli: &[Modulus; 3], c: &[u32; 3], x: u128) -> u64 {
        let mut s = 0u64;
        for (m, &ci) in moduli.iter().zip(c) {
            let r = (x % m.m as u128) as u32;
            s = s.wrapping_add(term(*m, r, (m.m - 1) / 2, ci, weight(*m)));
        }
        s
    }

    /// The exact fraction `2^64·(x + H mod M)/M`, rounded down, and the computed sum
    /// lies within the slack below it.
    #[test]
    fn the_sum_is_within_the_slack_below_the_fraction() {
        let (moduli, c, big_m, h) = setup();
        let b = slack(&moduli);
        let mut x = 1u128;
        for step in 0..400u128 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407 + step)
                % big_m;
            let shifted = (x + h) % big_m;
            // ⌊2^64 · shifted / M⌋ without overflow: shifted < 2^92, so split.
            let hi = (shifted << 32) / big_m;
            let rem = (shifted << 32) % big_m;
            let t = (hi << 32) + (rem << 32) / big_m;
            let s = sum(&moduli, &c, x) as u128;
            assert!(s <= t && t <= s + b as u128, "x = {x}: S = {s}, T = {t}");
        }
    }

    /// Decided comparisons are right, at and around every boundary: 0, ±1, ±H, and
    /// the values next to the ends of the ambiguous regions.
    #[test]
    fn decisions_are_right_at_the_boundaries() {
        let (moduli, c, big_m, h) = setup();
        let b = slack(&moduli) as u128;
        // The width of the ambiguous region around 0 in values: B·M/2^64.
        let w = (b * (big_m >> 32)) >> 32;
        let signed = [
            0i128,
            1,
            -1,
            2,
            h as i128,
            -(h as i128),
            h as i128 - 1,
            1 - h as i128,
            w as i128,
            -(w as i128),
            3 * w as i128,
            -3 * w as i128,
            h as i128 - 3 * w as i128,
            3 * w as i128 - h as i128,
            (h / 3) as i128,
            -((h / 7) as i128),
        ];
        let rep = |v: i128| v.rem_euclid(big_m as i128) as u128;
        let mut decided = 0;
        for &a in &signed {
            for &bv in &signed {
                let (ra, rb) = (rep(a), rep(bv));
                let eq = ra == rb;
                let got = decide(sum(&moduli, &c, ra), sum(&moduli, &c, rb), eq, b as u64);
                let want = match a.cmp(&bv) {
                    core::cmp::Ordering::Less => LESS,
                    core::cmp::Ordering::Equal => EQUAL,
                    core::cmp::Ordering::Greater => GREATER,
                };
                assert!(got == want || got == AMBIGUOUS, "{a} vs {bv}: {got}");
                decided += (got != AMBIGUOUS) as u32;
            }
        }
        // Far-apart values are decided: most of the 256 pairs.
        assert!(decided > 150, "only {decided} of 256 decided");
        // Three widths away from 0 and from the ends, the sign is decided.
        let zero = sum(&moduli, &c, 0);
        for v in [
            3 * w as i128,
            -3 * w as i128,
            h as i128 - 3 * w as i128,
            3 * w as i128 - h as i128,
        ] {
            let want = if v > 0 { GREATER } else { LESS };
            assert_eq!(
                decide(sum(&moduli, &c, rep(v)), zero, false, b as u64),
                want,
                "{v}"
            );
        }
        // Values within one unit of 0 are never decided against 0 (except 0 itself)...
        for v in [1i128, -1, 2, -2] {
            let s = sum(&moduli, &c, rep(v));
            assert_eq!(decide(s, sum(&moduli, &c, 0), false, b as u64), AMBIGUOUS);
        }
        // ...nor the ends of the range against their neighbours.
        let (top, next) = (sum(&moduli, &c, h), sum(&moduli, &c, h - 1));
        assert_eq!(decide(top, next, false, b as u64), AMBIGUOUS);
    }

    /// Uniformly spread values are decided against 0 with probability about `1 − K·2^−32`.
    #[test]
    fn spread_values_are_decided() {
        let (moduli, c, big_m, _) = setup();
        let zero = sum(&moduli, &c, 0);
        let mut x = 12345u128;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407)
                % big_m;
            let s = sum(&moduli, &c, x);
            assert_ne!(
                decide(s, zero, x == 0, slack(&moduli)),
                AMBIGUOUS,
                "x = {x}"
            );
        }
    }
}
