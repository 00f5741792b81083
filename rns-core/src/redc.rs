//! Montgomery products modulo a large odd `r` in a residue number system, the steps
//! that the device and the host's reference share (Bajard–Imbert and Kawamura's
//! products, Shenoy–Kumaresan's exact base extension).
//!
//! A number `x` lives in two bases `B = {b_j}` and `B' = {b'_i}` and one redundant prime
//! `m_r`. The product of `x` and `y` is `t = (x·y + S·r) / B`, where `S ≡ −x·y·r⁻¹
//! (mod B)`:
//! 1. [`pair_step`] in every channel: `p = x·y`, and in `B` `σ_j = p·w_j` with
//!    `w_j = −r⁻¹·(B/b_j)⁻¹ mod b_j`;
//! 2. `S = Σ_j σ_j·(B/b_j)` modulo every prime of `B' ∪ {m_r}` (a matrix product);
//!    `S = q + α·B` with `0 ≤ α < |B|`, which only loosens the bound;
//! 3. [`mid_step`] in `B' ∪ {m_r}`: `t = (p + S·r)·B⁻¹`, and in `B'`
//!    `σ'_i = t·(B'/b'_i)⁻¹ mod b'_i`;
//! 4. `S' = Σ_i σ'_i·(B'/b'_i) = t + γ·B'` modulo every prime of `B ∪ {m_r}`;
//! 5. [`gamma`] from `m_r`, exact since `γ < |B'| < m_r`, then [`end_step`] in `B`:
//!    `t = S' − γ·B'`.
//!
//! With `c = 2·|B|`, inputs below `c·r`, `B > 2c·r` and `B' > c·r`, every product is
//! again below `c·r`: `x·y/B + α·r < c·r/2 + c·r/2`. The sums of the matrix products
//! (below `2^93`) are exact in three channel primes, [`Crt3`].

use crate::Modulus;

/// Step 1 in one channel: `(p, σ) = (x·y, x·y·w)`; `σ` is used in `B` only.
#[inline(always)]
pub fn pair_step(m: Modulus, x: u32, y: u32, w: u32) -> (u32, u32) {
    let p = m.mul(x, y);
    (p, m.mul(p, w))
}

/// Step 3 in one channel of `B' ∪ {m_r}`: `t = (p + s·r)·B⁻¹`, and `σ' = t·k` (with
/// `k = (B'/b'_i)⁻¹` in `B'`).
#[inline(always)]
pub fn mid_step(m: Modulus, p: u32, s: u32, (r, b_inv, k): (u32, u32, u32)) -> (u32, u32) {
    let t = m.mul(m.mul_add(s, r, p), b_inv);
    (t, m.mul(t, k))
}

/// `γ = (S' − t)·B'⁻¹ mod m_r` from the redundant channel's `S'` and `t`.
#[inline(always)]
pub fn gamma(red: Modulus, s: u32, t: u32, b2_inv: u32) -> u32 {
    red.mul(red.sub(s, t), b2_inv)
}

/// Step 5 in one channel of `B`: `t = S' − γ·(B' mod b_j)`; `γ < m_r` may exceed `b_j`.
#[inline(always)]
pub fn end_step(m: Modulus, s: u32, gamma: u32, b2_mod: u32) -> u32 {
    m.sub(s, m.mul(m.reduce_u32(gamma), b2_mod))
}

/// An extension's weight `(F/f) mod m` from `F mod m` (`F` the product of the basis
/// that holds the prime `f ≠ m`): `(F mod m)·f^(m−2)`, Fermat's inverse (no division).
#[inline(always)]
pub fn weight(m: Modulus, f_mod: u32, f: u32) -> u32 {
    m.mul(f_mod, m.pow(m.reduce_u32(f), (m.m - 2) as u64))
}

/// Three channel primes `P0, P1, P2` and Garner's constants: a nonnegative sum below
/// `P0·P1·P2`, given by its three residues, reduced modulo any other prime.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Crt3 {
    /// The channel primes.
    pub p: [Modulus; 3],
    /// `P0⁻¹ mod P1`.
    pub inv0: u32,
    /// `(P0·P1)⁻¹ mod P2`.
    pub inv01: u32,
}

impl Crt3 {
    /// The constants of three distinct primes; `None` if two are equal.
    pub fn new(p: [Modulus; 3]) -> Option<Crt3> {
        let inv0 = p[1].inv(p[0].m)?;
        let inv01 = p[2].inv(p[2].mul(p[2].reduce_u32(p[0].m), p[2].reduce_u32(p[1].m)))?;
        Some(Crt3 { p, inv0, inv01 })
    }

    /// `x mod m` for the `x < P0·P1·P2` whose residues are `s`: Garner's mixed-radix
    /// digits `x = a0 + P0·(a1 + P1·a2)`, then Horner's rule modulo `m`.
    #[inline(always)]
    pub fn reduce(&self, s: [u32; 3], m: Modulus) -> u32 {
        let [p0, p1, p2] = self.p;
        let a0 = s[0];
        let a1 = p1.mul(p1.sub(s[1], p1.reduce_u32(a0)), self.inv0);
        // a2 = (s2 − a0 − P0·a1)·(P0·P1)⁻¹ mod P2
        let lower = p2.mul_add(p2.reduce_u32(p0.m), p2.reduce_u32(a1), p2.reduce_u32(a0));
        let a2 = p2.mul(p2.sub(s[2], lower), self.inv01);
        let (q0, q1) = (m.reduce_u32(p0.m), m.reduce_u32(p1.m));
        let high = m.mul_add(q1, m.reduce_u32(a2), m.reduce_u32(a1));
        m.mul_add(q0, high, m.reduce_u32(a0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prime::moduli_descending;

    fn primes(n: usize) -> impl Iterator<Item = Modulus> {
        moduli_descending(|_| false)
            .take(n)
            .map(Modulus::new_unchecked)
    }

    #[test]
    fn crt3_reduces_sums_up_to_the_product() {
        let p: [Modulus; 3] = core::array::from_fn(|i| primes(3).nth(i).unwrap());
        let crt = Crt3::new(p).unwrap();
        let prod = p.iter().fold(1u128, |a, m| a * m.m as u128);
        let others: [Modulus; 3] = core::array::from_fn(|i| primes(10).nth(5 + i).unwrap());
        let mut x = 0x9e37_79b9_7f4a_7c15_f39c_u128;
        for case in [0u128, 1, prod - 1, prod / 2, (1 << 92) + 12345, 1 << 64] {
            for v in [case, x % prod] {
                let s = p.map(|m| (v % m.m as u128) as u32);
                for m in p.iter().chain(others.iter()) {
                    assert_eq!(
                        crt.reduce(s, *m),
                        (v % m.m as u128) as u32,
                        "{v} mod {}",
                        m.m
                    );
                }
            }
            x = x.wrapping_mul(0x2545_f491_4f6c_dd1d).wrapping_add(7);
        }
        assert!(Crt3::new([p[0], p[0], p[1]]).is_none());
    }

    #[test]
    fn the_steps_at_the_ends_of_the_range() {
        let m = primes(1).next().unwrap();
        let top = m.m - 1;
        assert_eq!(pair_step(m, top, top, 1), (1, 1));
        assert_eq!(mid_step(m, top, 1, (1, 1, 2)), (0, 0));
        assert_eq!(gamma(m, 0, 1, 1), top);
        // γ above b_j is reduced first: γ = m + 3 ≡ 3.
        let small = primes(2).nth(1).unwrap();
        assert_eq!(end_step(small, 5, m.m, 1), small.sub(5, m.m - small.m));
    }
}
