//! One step of Dixon's p-adic lifting on 128-bit residuals, as the GPU runs it: a
//! matrix `A` held as signed 29-bit limbs (`a = Σ_t limb_t · 2^(29t)`), a digit vector
//! `x` (residues modulo `p`), and each row's residual `r` updated exactly as
//! `r ← (r − (A·x)_row) / p` ([`join`], [`update`]), the division exact and done as a
//! product by `p⁻¹` modulo `2^128`. The row's limb sums `S_t = Σ_j limb_t[j]·x_j` are formed by the caller (on
//! the GPU, one warp per row); everything here is per row.
//!
//! Exact when the residuals fit, `|r| < 2^127` before and after (`A·x` and the
//! difference are formed modulo `2^128`), which the host checks before it lifts with
//! them ([`residual_fits`]).

use crate::modulus::Modulus;

/// Bits of one limb of `A`'s entries: a limb times a digit (`< 2^31`) stays below `2^60`.
pub const LIMB_BITS: u32 = 29;

/// Limbs of an entry of `bits` bits (at least one).
#[inline]
pub fn limbs_for_bits(bits: u32) -> usize {
    bits.div_ceil(LIMB_BITS).max(1) as usize
}

/// `p⁻¹ mod 2^128` for odd `p`, by Newton's iteration (each step doubles the correct
/// bits; `p·p ≡ 1 (mod 8)` starts with three).
#[inline]
pub fn inverse_mod_2_128(p: u32) -> u128 {
    inverse_u128_mod_2_128(p as u128)
}

/// [`inverse_mod_2_128`] of an odd 128-bit `p` (a product of primes lifted together).
#[inline]
pub fn inverse_u128_mod_2_128(p: u128) -> u128 {
    let mut x = p;
    let mut i = 0;
    while i < 6 {
        x = x.wrapping_mul(2u128.wrapping_sub(p.wrapping_mul(x)));
        i += 1;
    }
    x
}

/// The entry `Σ_t limb(t) · 2^(29t)` of `limbs` limbs modulo `m` (Horner from the top).
#[inline(always)]
pub fn limbs_residue(limbs: usize, limb: impl Fn(usize) -> i32, m: Modulus) -> u32 {
    let two29 = 1u32 << LIMB_BITS;
    let mut r = 0u32;
    let mut t = limbs;
    while t > 0 {
        t -= 1;
        r = m.add(m.mul(r, two29), m.reduce_i64(limb(t) as i64));
    }
    r
}

/// `x mod m` for a signed 128-bit `x`, in `[0, m)`.
#[inline(always)]
pub fn reduce_i128(x: i128, m: Modulus) -> u32 {
    let a = x.unsigned_abs();
    let hi = m.reduce_u64((a >> 64) as u64);
    let lo = m.reduce_u64(a as u64);
    // 2^64 mod m = (2^32 mod m)^2.
    let two64 = m.mul(m.two32, m.two32);
    let r = m.add(m.mul(hi, two64), lo);
    if x < 0 {
        m.neg(r)
    } else {
        r
    }
}

/// A row's `Σ_j a_j·x_j` from its limb sums `sum(t)`, `t < limbs`: `Σ_t sum(t)·2^(29t)`,
/// modulo `2^128` (exact when the true value fits).
#[inline(always)]
pub fn join(limbs: usize, sum: impl Fn(usize) -> i128) -> i128 {
    let mut total = 0i128;
    let mut t = 0;
    while t < limbs {
        total = total.wrapping_add(sum(t).wrapping_shl(LIMB_BITS * t as u32));
        t += 1;
    }
    total
}

/// The new residual `(r − ax) / p` of a row whose product with the digits is `ax`
/// ([`join`]), given `p_inv = p⁻¹ mod 2^128`; the division is exact when the digits were
/// right. Wrapping arithmetic modulo `2^128`: the result is exact when the true values
/// fit in 128 bits.
#[inline(always)]
pub fn update(r: i128, ax: i128, p_inv: u128) -> i128 {
    (r.wrapping_sub(ax) as u128).wrapping_mul(p_inv) as i128
}

/// The mixed-radix digits of the `x < p_0·p_1·…·p_(k−1)` with `x ≡ d_q (mod p_q)` for
/// the first `k` of `m` (Garner): `x = x_0 + p_0·x_1 + p_0·p_1·x_2 + …`, `0 ≤ x_q < p_q`,
/// given `m(q)` (prime `q`) and `inv(u, q) = p_u⁻¹ mod p_q` for `u < q` (read when
/// needed: on the device from memory, so that no table lives in registers). The digits
/// past `k` are 0. One step of a lifting by several primes publishes these: each is a
/// residue-sized digit, so the update's products stay word products.
#[inline(always)]
pub fn mixed_radix<const N: usize>(
    d: [u32; N],
    k: usize,
    m: impl Fn(usize) -> Modulus,
    inv: impl Fn(usize, usize) -> u32,
) -> [u32; N] {
    let mut x = [0u32; N];
    let mut q = 0;
    while q < N && q < k {
        let mq = m(q);
        let mut t = d[q];
        let mut u = 0;
        while u < q {
            t = mq.mul(mq.sub(t, mq.reduce_u64(x[u] as u64)), inv(u, q));
            u += 1;
        }
        x[q] = t;
        q += 1;
    }
    x
}

/// Whether the residuals of an `n`-column matrix of `bits`-bit entries, lifted from a
/// right-hand side of `rhs_bits` bits, stay below `2^126` (a bit to spare): with digits
/// `0 ≤ x < P`, `|r'| < |r|/P + n·2^bits`, so `|r| < max(|b|, 2n·2^bits)` whatever `P`.
/// Only the residuals must fit: `A·x` is formed modulo `2^128` ([`join`], [`update`]).
#[inline]
pub fn residual_fits(n: usize, bits: u32, rhs_bits: u32) -> bool {
    let log_n = usize::BITS - n.max(1).leading_zeros();
    let r = (bits as u64 + log_n as u64 + 1).max(rhs_bits as u64);
    r + 1 < 127
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prime() -> Modulus {
        Modulus::new(2_147_483_647).unwrap()
    }

    #[test]
    fn the_inverse_modulo_2_128_is_one() {
        for p in [3u32, 2_147_483_647, 2_147_483_629, 1_073_741_827] {
            assert_eq!((p as u128).wrapping_mul(inverse_mod_2_128(p)), 1, "{p}");
        }
    }

    #[test]
    fn mixed_radix_digits_rebuild_the_residues() {
        let ps = [
            2_147_483_647u32,
            2_147_483_629,
            2_147_483_587,
            2_147_483_579,
        ];
        let m = ps.map(|p| Modulus::new(p).unwrap());
        let inv: [[u32; 4]; 4] = core::array::from_fn(|u| {
            core::array::from_fn(|q| m[q].inv(ps[u] % ps[q]).unwrap_or(0))
        });
        for k in 1..=4 {
            let mut w = [1u128; 4];
            for q in 1..4 {
                w[q] = w[q - 1] * ps[q - 1] as u128;
            }
            let big: u128 = ps[..k].iter().map(|&p| p as u128).product();
            for d in [
                [0u32; 4],
                [1, 2, 3, 4],
                ps.map(|p| p - 1),
                [5, 0, ps[2] - 1, 7],
            ] {
                let x = mixed_radix(d, k, |q| m[q], |u, q| inv[u][q]);
                // x = Σ w_q·x_q (< P ≤ 2^124), and x ≡ d_q mod p_q.
                let v: u128 = (0..k).map(|q| w[q] * x[q] as u128).sum();
                assert!(v < big, "{k} {d:?}");
                for q in 0..k {
                    assert!(x[q] < ps[q]);
                    assert_eq!(v % ps[q] as u128, (d[q] % ps[q]) as u128, "{k} {d:?} {q}");
                }
                assert!(x[k..].iter().all(|&v| v == 0));
            }
            assert_eq!(big.wrapping_mul(inverse_u128_mod_2_128(big)), 1);
        }
    }

    #[test]
    fn residues_of_limbs_and_of_128_bit_numbers() {
        let m = prime();
        // −5 · 2^58 + 3 · 2^29 − 7.
        let limbs = [-7i32, 3, -5];
        let v: i128 = -5 * (1i128 << 58) + 3 * (1 << 29) - 7;
        let want = v.rem_euclid(m.m as i128) as u32;
        assert_eq!(limbs_residue(3, |t| limbs[t], m), want);
        for x in [
            0i128,
            1,
            -1,
            m.m as i128,
            -(m.m as i128),
            i128::MAX,
            i128::MIN + 1,
            i128::MIN,
            (1 << 100) + 12345,
            -(1 << 90) - 1,
        ] {
            assert_eq!(reduce_i128(x, m), x.rem_euclid(m.m as i128) as u32, "{x}");
        }
    }

    #[test]
    fn an_update_divides_exactly() {
        let m = prime();
        let p_inv = inverse_mod_2_128(m.m);
        // A row of two entries, each of three limbs, and digits chosen so that
        // r ≡ A·x (mod p): then (r − A·x)/p comes back exactly, negative ones too.
        let a = [[-(1 << 28), 12345, -3], [(1 << 29) - 1, -(1 << 28) + 1, 2]];
        let value = |e: &[i32; 3]| -> i128 {
            e.iter()
                .enumerate()
                .map(|(t, &l)| (l as i128) << (29 * t))
                .sum()
        };
        for (x0, x1, q) in [
            (0u32, 0u32, 0i128),
            (1, m.m - 1, -1),
            (m.m - 1, 77, (1i128 << 80) + 5),
            (12, 34, -(1i128 << 90)),
        ] {
            let ax = value(&a[0]) * x0 as i128 + value(&a[1]) * x1 as i128;
            let r = ax + q * m.m as i128;
            let sum = |t: usize| a[0][t] as i128 * x0 as i128 + a[1][t] as i128 * x1 as i128;
            assert_eq!(update(r, join(3, sum), p_inv), q, "{x0} {x1} {q}");
        }
    }

    #[test]
    fn residuals_fit_up_to_a_size() {
        assert!(residual_fits(1000, 64, 1));
        assert!(residual_fits(1 << 20, 70, 1));
        assert!(residual_fits(1000, 90, 1));
        assert!(residual_fits(10_000, 100, 100));
        // 115 + 10 + 1 = 126 bits: one over.
        assert!(residual_fits(1000, 114, 1) && !residual_fits(1000, 115, 1));
        assert!(residual_fits(2, 1, 125) && !residual_fits(2, 1, 126));
        assert_eq!(limbs_for_bits(0), 1);
        assert_eq!(limbs_for_bits(29), 1);
        assert_eq!(limbs_for_bits(64), 3);
    }
}
