//! The integer-only arithmetic of the block resultant kernel's rounds of normal
//! Euclidean steps (`device/src/kernels/resultant_rounds.rs`): Montgomery's reduction on
//! signed residues, no floating point and no correction a coefficient.
//!
//! The round's window finds `K` steps' fraction-free multipliers `(s_i, n₀_i, n₁_i)`
//! ([`crate::euclid::normal_multipliers`], `s_i = lc(p_(i+1))²`) for the sequence `p₀ =
//! f`, `p₁ = g`, `p_(i+2) = s_i·p_i + (n₀_i·x + n₁_i)·p_(i+1)`. The sweep instead keeps
//! `Q_i = c_i·p_i` (`c₀ = c₁ = 1`) with
//!
//! `Q_(i+2) = REDC(Q_i + (N₀_i·x + N₁_i)·Q_(i+1)) = (Q_i mod Q_(i+1))·2^(−32)`,
//!
//! where `REDC(x) = x·2^(−32) mod m` and `N_i = c_i·n_i / (s_i·c_(i+1))` makes
//! `Q_i + N_i·Q_(i+1)` the true remainder of `Q_i` by `Q_(i+1)`: so
//! `c_(i+2) = c_i / (2^32·s_i)`. A coefficient is then two signed products and a
//! reduction ([`redc_coefficient`]), where the fraction-free step took three products,
//! a floating-point quotient and two corrections. The steps' inverses come from one
//! inversion a round ([`redc_round`]).
//!
//! With `d = deg Q₁`, Euclid's identity gives each step the factor
//! `res(Q_i, Q_(i+1)) = lc(Q_(i+1))²·2^(32·(d − i))·res(Q_(i+1), Q_(i+2))`; the round's
//! `K` factors go into two denominator records `(base, e)` (`base^(−e)`, as the kernel's
//! other records): `(Π lc(Q_(i+1))^(−2), 1)` and `(2^(−32), Σ_i (d − i))`.

use crate::Modulus;

/// `m^(−1) mod 2^32` for odd `m` (Newton's iteration from 3 correct bits to 48).
#[inline(always)]
pub const fn inv_mod_two32(m: u32) -> u32 {
    let mut x = m; // m·m ≡ 1 (mod 8)
    let mut i = 0;
    while i < 4 {
        x = x.wrapping_mul(2u32.wrapping_sub(m.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// `REDC(f_j + n₀·below + n₁·g_j)`: in `(−m, m)` and `≡ (f_j + n₀·below + n₁·g_j)·2^(−32)
/// (mod m)`, for `|f_j|, |below|, |g_j| < m < 2^31`, `|n₀|, |n₁| ≤ (m − 1)/2` and
/// `m_inv = m^(−1) mod 2^32` ([`inv_mod_two32`]). The sum is below `m² < 2^62` in absolute
/// value; with `t ≡ x·m^(−1) (mod 2^32)` (signed), `x − t·m` has a zero low word, so its
/// high word `(x − t·m)/2^32` is the difference of the two high words, below
/// `m·(m − 1 + 2^31)/2^32 < m` in absolute value. On the GPU six instructions, written
/// out (LLVM otherwise multiplies sign-extended operands in 64 bits).
#[inline(always)]
pub fn redc_coefficient(
    (n0, n1): (i32, i32),
    fj: i32,
    below: i32,
    gj: i32,
    m: i32,
    m_inv: u32,
) -> i32 {
    #[cfg(target_arch = "nvptx64")]
    {
        let r: i32;
        // SAFETY: pure register arithmetic.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .s64 x;",
                ".reg .b32 lo, hi, t, th;",
                "cvt.s64.s32 x, {f};",
                "mad.wide.s32 x, {n0}, {b}, x;",
                "mad.wide.s32 x, {n1}, {g}, x;",
                "mov.b64 {{lo, hi}}, x;",
                "mul.lo.s32 t, lo, {mi};",
                "mul.hi.s32 th, t, {m};",
                "sub.s32 {r}, hi, th;",
                "}}",
                r = out(reg32) r,
                f = in(reg32) fj,
                n0 = in(reg32) n0,
                b = in(reg32) below,
                n1 = in(reg32) n1,
                g = in(reg32) gj,
                mi = in(reg32) m_inv,
                m = in(reg32) m,
                options(pure, nomem, nostack)
            )
        };
        r
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let x = fj as i64 + n0 as i64 * below as i64 + n1 as i64 * gj as i64;
        let t = (x as u32).wrapping_mul(m_inv) as i32;
        ((x >> 32) as i32).wrapping_sub(((t as i64 * m as i64) >> 32) as i32)
    }
}

/// A residue in `(−m, m)` (as [`redc_coefficient`] leaves them) in `[0, m)`.
#[inline(always)]
pub fn redc_normalize(r: i32, m: u32) -> u32 {
    (r as u32).wrapping_add(m & (r >> 31) as u32)
}

/// A round's multipliers for [`redc_coefficient`] and its two denominator records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RedcRound<const K: usize> {
    /// Step `i`'s `(N₀, N₁)`, centered.
    pub n: [(i32, i32); K],
    /// `(Π lc(Q_(i+1))^(−2), 1)` and `(2^(−32) mod m, Σ_i (d − i))`, each `(base, e)`
    /// standing for `base^(−e)`.
    pub records: [(u32, u32); 2],
}

/// The round of `K` normal steps from `f` (degree `d + 1`) and `g` (degree `d ≥ K`) whose
/// fraction-free multipliers are `ff[i] = (s_i, n₀_i, n₁_i)` (each `s_i ≠ 0`, every
/// value at most `m`): [`redc_coefficient`]'s multipliers and the round's records (see
/// the module documentation). One inversion, the steps' inverses by prefix products.
pub fn redc_round<const K: usize>(ff: &[(u32, u32, u32); K], d: usize, m: Modulus) -> RedcRound<K> {
    let mut pre = [1u32; K];
    let mut acc = 1u32;
    for i in 0..K {
        acc = m.mul(acc, ff[i].0);
        pre[i] = acc;
    }
    // u[i] = s_i^(−1): the inverse of the whole product, times the other steps' s.
    let mut u = [0u32; K];
    let mut inv = m.inv(acc).unwrap_or(0);
    for i in (0..K).rev() {
        u[i] = if i > 0 { m.mul(inv, pre[i - 1]) } else { inv };
        inv = m.mul(inv, ff[i].0);
    }
    // 2^(−32) = ((m + 1)/2)^32, and c_i with their inverses (no further inversion).
    let mut r_inv = (m.m >> 1) + 1;
    for _ in 0..5 {
        r_inv = m.mul(r_inv, r_inv);
    }
    let (mut c, mut ic) = ([1u32, 1], [1u32, 1]); // c_i, c_(i+1) and their inverses
    let mut p_inv = 1u32;
    let mut n = [(0i32, 0i32); K];
    for i in 0..K {
        let (s, n0, n1) = ff[i];
        let k = m.mul(m.mul(c[0], ic[1]), u[i]);
        n[i] = (
            m.center(m.mul(k, m.reduce_u32(n0))),
            m.center(m.mul(k, m.reduce_u32(n1))),
        );
        p_inv = m.mul(p_inv, m.mul(m.mul(ic[1], ic[1]), u[i]));
        let next = (
            m.mul(m.mul(c[0], r_inv), u[i]),
            m.mul(m.mul(ic[0], m.two32), s),
        );
        (c, ic) = ([c[1], next.0], [ic[1], next.1]);
    }
    let e = K * d - K * (K - 1) / 2;
    RedcRound {
        n,
        records: [(p_inv, 1), (r_inv, e as u32)],
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::euclid::{normal_coefficient, normal_multipliers, resultant_chunked};
    use crate::modulus::{MODULUS_MAX, MODULUS_MIN};
    use std::vec::Vec;

    fn primes() -> Vec<Modulus> {
        let top = (MODULUS_MIN..=MODULUS_MAX)
            .rev()
            .find(|&p| crate::prime::is_prime(p));
        let bottom = (MODULUS_MIN..=MODULUS_MAX).find(|&p| crate::prime::is_prime(p));
        [top.unwrap(), bottom.unwrap(), 1_610_612_741]
            .into_iter()
            .map(|p| Modulus::new(p).unwrap())
            .collect()
    }

    #[test]
    fn the_inverse_modulo_two32() {
        for m in [1u32, 3, 0x7fff_ffff, 0x4000_0001, 0xffff_ffff] {
            assert_eq!(m.wrapping_mul(inv_mod_two32(m)), 1, "{m}");
        }
    }

    /// [`redc_coefficient`] at the ends of its ranges, and at random, is congruent to the
    /// sum times `2^(−32)` and inside `(−m, m)`.
    #[test]
    fn redc_coefficient_is_the_reduced_sum() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for m in primes() {
            let (p, mi) = (m.m as i32, inv_mod_two32(m.m));
            let half = (p - 1) / 2;
            let r_inv = m.inv(m.two32).unwrap() as i128;
            let check = |n: (i32, i32), f: i32, b: i32, g: i32| {
                let got = redc_coefficient(n, f, b, g, p, mi);
                assert!(got > -p && got < p, "{got} outside (−{p}, {p})");
                let sum = f as i128 + n.0 as i128 * b as i128 + n.1 as i128 * g as i128;
                let want = (sum * r_inv).rem_euclid(p as i128);
                assert_eq!(redc_normalize(got, m.m) as i128, want, "{n:?} {f} {b} {g}");
            };
            let ends = [-(p - 1), -1, 0, 1, p - 1, half, -half];
            for &f in &ends {
                for &b in &ends {
                    for n in [(half, half), (-half, -half), (half, -half), (0, 1)] {
                        check(n, f, b, b);
                        check(n, f, b, -b);
                    }
                }
            }
            for _ in 0..100_000 {
                let mut next = |r: i32| {
                    crate::testing::xorshift(&mut x);
                    // In 64 bits: for r near 2^31 the draw passes i32::MAX.
                    ((x % (2 * r as u64 + 1)) as i64 - r as i64) as i32
                };
                let n = (next(half), next(half));
                check(n, next(p - 1), next(p - 1), next(p - 1));
            }
        }
    }

    /// A round of `K` steps by [`redc_round`] and [`redc_coefficient`] on whole
    /// polynomials: the degrees drop one a step, and the resultant of what is left times
    /// the records' factor is the resultant of the start (the kernel's two widths).
    #[test]
    fn a_round_keeps_the_resultant() {
        round_keeps_the_resultant::<8>(&[8, 9, 31, 60]);
        round_keeps_the_resultant::<16>(&[16, 17, 63, 80]);
    }

    fn round_keeps_the_resultant<const K: usize>(degrees: &[usize]) {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for m in primes() {
            for &d in degrees {
                let mut next = |j: usize| {
                    crate::testing::xorshift(&mut x);
                    match j % 7 {
                        0 => m.m - 1,
                        3 => 1,
                        5 => 0,
                        _ => (x % m.m as u64) as u32,
                    }
                };
                let mut f: Vec<u32> = (0..d + 2).map(&mut next).collect();
                let mut g: Vec<u32> = (0..d + 1).map(|j| next(j + 1)).collect();
                f[d + 1] |= 1;
                g[d] |= 1;
                // The window: the fraction-free steps on the whole polynomials.
                let (mut a, mut b) = (f.clone(), g.clone());
                let mut ff = [(0, 0, 0); K];
                for (i, step) in ff.iter_mut().enumerate() {
                    let e = d - i; // deg b
                    *step = normal_multipliers(b[e], a[e + 1], a[e], b[e - 1], m);
                    let r: Vec<u32> = (0..e)
                        .map(|j| {
                            let below = if j > 0 { b[j - 1] } else { 0 };
                            normal_coefficient(*step, a[j], below, b[j], m)
                        })
                        .collect();
                    assert_ne!(r[e - 1], 0, "random steps are normal");
                    (a, b) = (b, r);
                }
                // The round on the stored polynomials.
                let round = redc_round(&ff, d, m);
                let (p, mi) = (m.m as i32, inv_mod_two32(m.m));
                let (mut a, mut b): (Vec<i32>, Vec<i32>) = (
                    f.iter().map(|&v| v as i32).collect(),
                    g.iter().map(|&v| v as i32).collect(),
                );
                for (i, &n) in round.n.iter().enumerate() {
                    let e = d - i;
                    let r: Vec<i32> = (0..e)
                        .map(|j| {
                            let below = if j > 0 { b[j - 1] } else { 0 };
                            redc_coefficient(n, a[j], below, b[j], p, mi)
                        })
                        .collect();
                    // The true remainder: the two cleared coefficients vanish.
                    for j in [e, e + 1] {
                        let below = b[j - 1];
                        let top = if j <= e { b[j] } else { 0 };
                        let v = redc_coefficient(n, a[j], below, top, p, mi);
                        assert_eq!(redc_normalize(v, m.m), 0, "step {i}, coefficient {j}");
                    }
                    (a, b) = (b, r);
                }
                let (mut a, mut b): (Vec<u32>, Vec<u32>) = (
                    a.iter().map(|&v| redc_normalize(v, m.m)).collect(),
                    b.iter().map(|&v| redc_normalize(v, m.m)).collect(),
                );
                assert!(
                    a[d + 1 - K] != 0 && b[d - K] != 0,
                    "degrees d + 1 − K, d − K"
                );
                let left = resultant_chunked(&mut a, &mut b, m);
                let den = round
                    .records
                    .iter()
                    .fold(1, |acc, &(base, e)| m.mul(acc, m.pow(base, e as u64)));
                let got = m.mul(left, m.inv(den).unwrap());
                let want = resultant_chunked(&mut f.clone(), &mut g.clone(), m);
                assert_eq!(got, want, "prime {}, degree {d}", m.m);
            }
        }
    }
}
