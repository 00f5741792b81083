//! Modular matrix products on INT8 tensor cores by small moduli (the Ozaki scheme II):
//! the residues modulo a 31-bit prime `p` are centered, `a' ∈ [−(p−1)/2, (p−1)/2]`, so
//! that an inner product `c = Σ_k a'_k·b'_k` is an integer with `|c| < k·2^60`. It is
//! computed modulo `J` pairwise coprime moduli `m_j ≤ 256` ([`SMALL_MODULI`]), one
//! `s8 × s8 → s32` product per modulus, and recovered exactly from the Chinese remainder
//! theorem over `M = Π m_j > 2|c|`; then `c mod p` is the modular product's entry.
//!
//! The steps, shared by the device kernels (`rns_ozaki_planes`, `rns_matmul_ozaki`,
//! `rns_ozaki_combine`) and [`product_by_small_moduli`], their reference on one core:
//! 1. [`small_residue`]: each operand entry modulo `m_j` as a centered signed byte (A's
//!    also times `inv_j = (M/m_j)^(−1) mod m_j`, [`crt_inverse`]);
//! 2. the INT8 products, exact in 32 bits for `k ≤` [`MAX_INNER`];
//! 3. [`small_mod`]: `y_j = acc_j mod m_j`, so that `c ≡ Σ_j y_j·M/m_j (mod M)`;
//! 4. [`CrtSum`]: `c = Σ_j y_j·M/m_j − q·M` with `q = round(Σ_j y_j/m_j)`, modulo `p`.

use crate::Modulus;

/// Most small moduli used.
pub const MAX_SMALL: usize = 16;
/// The small moduli, pairwise coprime and at most 256, so that a centered residue is a
/// signed byte: `2^8`, `3·5·17`, `11·23`, `251`, `13·19`, then primes.
pub const SMALL_MODULI: [u32; MAX_SMALL] = [
    256, 255, 253, 251, 247, 241, 239, 233, 229, 227, 223, 211, 199, 197, 193, 191,
];
/// Largest inner dimension: the 32-bit accumulators hold `k·128² ≤ 2^30`.
pub const MAX_INNER: usize = 1 << 16;

const _: () = assert!((MAX_INNER as u64) * 128 * 128 <= 1 << 30);

/// `M_J = Π_{j<J} m_j` (below `2^128` for every `J ≤ 16`).
pub const fn small_product(count: usize) -> u128 {
    let mut m = 1u128;
    let mut j = 0;
    while j < count {
        m *= SMALL_MODULI[j] as u128;
        j += 1;
    }
    m
}

/// How many small moduli an inner dimension `k` needs: the fewest `J` with
/// `2·k·2^60 < M_J·(1 − 2^−20)` (`|c| ≤ k·(2^30 − 1)^2`, and the rounding of
/// [`CrtSum::finish`] keeps a margin); `None` beyond [`MAX_INNER`].
pub const fn moduli_for(k: usize) -> Option<usize> {
    if k > MAX_INNER {
        return None;
    }
    let need = (if k == 0 { 1 } else { k } as u128) << 61;
    let mut j = 1;
    while j <= MAX_SMALL {
        let m = small_product(j);
        if m - (m >> 20) > need {
            return Some(j);
        }
        j += 1;
    }
    None
}

/// `x^(−1) mod m` for `x` coprime to `m ≤ 256` (extended Euclid).
const fn inverse_small(x: u32, m: u32) -> u32 {
    let (mut r0, mut r1) = (m as i64, (x % m) as i64);
    let (mut t0, mut t1) = (0i64, 1i64);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (t0, t1) = (t1, t0 - q * t1);
    }
    (t0.rem_euclid(m as i64)) as u32
}

/// `(M_J/m_j)^(−1) mod m_j` for `j < J` (0 elsewhere), every `J ≤ 16`.
const fn crt_inverses() -> [[u32; MAX_SMALL]; MAX_SMALL + 1] {
    let mut t = [[0u32; MAX_SMALL]; MAX_SMALL + 1];
    let mut count = 1;
    while count <= MAX_SMALL {
        let mut j = 0;
        while j < count {
            let m = SMALL_MODULI[j];
            let mut cof = 1u32;
            let mut i = 0;
            while i < count {
                if i != j {
                    cof = cof * SMALL_MODULI[i] % m;
                }
                i += 1;
            }
            t[count][j] = inverse_small(cof, m);
            j += 1;
        }
        count += 1;
    }
    t
}

const CRT_INVERSES: [[u32; MAX_SMALL]; MAX_SMALL + 1] = crt_inverses();

/// `(M_J/m_j)^(−1) mod m_j` for `j < count ≤ 16`.
#[inline(always)]
pub fn crt_inverse(count: usize, j: usize) -> u32 {
    CRT_INVERSES[count][j]
}

/// `1/m_j` in double precision.
const RECIPROCALS: [f64; MAX_SMALL] = {
    let mut r = [0f64; MAX_SMALL];
    let mut j = 0;
    while j < MAX_SMALL {
        r[j] = 1.0 / SMALL_MODULI[j] as f64;
        j += 1;
    }
    r
};

/// `v' · f mod m` as a signed byte in `[−128, 127]`, where `v'` is the residue `v < p`
/// centered (`v − p` when `v > (p−1)/2`): an operand entry for the INT8 products
/// (`f = 1` for B, [`crt_inverse`] for A). `v'` is shifted by a multiple of `m` above
/// `2^30` to be reduced unsigned; constant `m` makes the remainders multiplications.
#[inline(always)]
pub fn small_residue(v: u32, p: u32, m: u32, f: u32) -> u8 {
    let centered = if v > p >> 1 { v.wrapping_sub(p) } else { v };
    let shift = (1u32 << 30).div_ceil(m) * m;
    let r = centered.wrapping_add(shift) % m * f % m;
    let s = if 2 * r >= m {
        r as i32 - m as i32
    } else {
        r as i32
    };
    s as i8 as u8
}

/// `x mod m_j` in `[0, m_j)` for any `x` with `|x| < 2^31` and `j <` [`MAX_SMALL`]
/// ([`SmallModulus::reduce`]).
#[inline(always)]
pub fn small_mod(x: i32, j: usize) -> u32 {
    SmallModulus::new(j).reduce(x)
}

/// Small modulus `m_j` and its reciprocal, read once from the tables: kernels that
/// reduce many sums by one modulus keep them in registers rather than load them again
/// for each sum.
#[derive(Clone, Copy, Debug)]
pub struct SmallModulus {
    m: i32,
    reciprocal: f64,
}

impl SmallModulus {
    /// `m_j` for `j <` [`MAX_SMALL`] (taken modulo it: no bounds check in kernels).
    #[inline(always)]
    pub fn new(j: usize) -> SmallModulus {
        let j = j % MAX_SMALL;
        SmallModulus {
            m: SMALL_MODULI[j] as i32,
            reciprocal: RECIPROCALS[j],
        }
    }

    /// `x mod m` in `[0, m)` for any `|x| < 2^31`: a quotient estimate in double
    /// precision (off by at most one), then corrections.
    #[inline(always)]
    pub fn reduce(self, x: i32) -> u32 {
        let m = self.m;
        let q = (x as f64 * self.reciprocal) as i32;
        let mut r = x - q * m;
        if r < 0 {
            r += m;
        }
        if r < 0 {
            r += m;
        }
        if r >= m {
            r -= m;
        }
        r as u32
    }
}

/// `Π_{i<count, i≠j} m_i mod p`: `(M_J/m_j) mod p`, or `M_J mod p` for `j ≥ count`.
#[inline(always)]
pub fn cofactor_mod(p: Modulus, count: usize, j: usize) -> u32 {
    let mut r = 1u32;
    let mut i = 0;
    while i < count {
        if i != j {
            r = p.mul(r, SMALL_MODULI[i]);
        }
        i += 1;
    }
    r
}

/// The running sums of the CRT of one entry: `Σ y_j·w_j` and `1/2 + Σ y_j/m_j`, where
/// `y_j = c·inv_j mod m_j` and `w_j = (M_J/m_j) mod p` ([`cofactor_mod`]).
#[derive(Clone, Copy, Debug)]
pub struct CrtSum {
    s: u64,
    f: f64,
}

impl Default for CrtSum {
    fn default() -> Self {
        CrtSum { s: 0, f: 0.5 }
    }
}

impl CrtSum {
    /// Adds small modulus `j <` [`MAX_SMALL`]'s term.
    #[inline(always)]
    pub fn add(&mut self, j: usize, y: u32, w: u32) {
        self.s += y as u64 * w as u64;
        self.f += y as f64 * RECIPROCALS[j % MAX_SMALL];
    }

    /// `c mod p`, for an integer `|c| < M_J/2·(1 − 2^−20)` and `w_m = M_J mod p`:
    /// `c = Σ y_j·M_J/m_j − q·M_J` with `q = ⌊Σ y_j/m_j + 1/2⌋`.
    #[inline(always)]
    pub fn finish(self, w_m: u32, p: Modulus) -> u32 {
        // s < 16·256·2^31 and q ≤ 16, so the sum below stays under 2^44.
        let q = self.f as u64;
        p.reduce_u64(self.s + q * (p.m - w_m) as u64)
    }
}

/// One entry of a modular matrix product computed as the device does, `Σ_k a_k·b_k mod
/// p` for residues `a_k, b_k < p` and `k ≤` [`MAX_INNER`] entries (`None` beyond): the
/// signed bytes, the 32-bit sums per small modulus, [`small_mod`] and [`CrtSum`].
pub fn product_by_small_moduli(a: &[u32], b: &[u32], p: Modulus) -> Option<u32> {
    let count = moduli_for(a.len())?;
    let mut y = [0u32; MAX_SMALL];
    for (j, yj) in y.iter_mut().enumerate().take(count) {
        let m = SMALL_MODULI[j];
        let inv = crt_inverse(count, j);
        let acc = a.iter().zip(b).fold(0i32, |s, (&x, &z)| {
            let xa = small_residue(x, p.m, m, inv) as i8 as i32;
            s + xa * small_residue(z, p.m, m, 1) as i8 as i32
        });
        *yj = small_mod(acc, j);
    }
    let mut sum = CrtSum::default();
    for (j, &yj) in y.iter().enumerate().take(count) {
        sum.add(j, yj, cofactor_mod(p, count, j));
    }
    Some(sum.finish(cofactor_mod(p, count, count), p))
}

#[cfg(test)]
#[allow(clippy::needless_range_loop)]
mod tests {
    extern crate std;
    use super::*;
    use std::{vec, vec::Vec};

    fn gcd(a: u32, b: u32) -> u32 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }

    #[test]
    fn moduli_are_coprime_and_inverses_right() {
        for i in 0..MAX_SMALL {
            for j in 0..i {
                assert_eq!(gcd(SMALL_MODULI[i], SMALL_MODULI[j]), 1, "{i} {j}");
            }
        }
        for count in 1..=MAX_SMALL {
            let m = small_product(count);
            for j in 0..count {
                let mj = SMALL_MODULI[j] as u128;
                assert_eq!((m / mj % mj) * crt_inverse(count, j) as u128 % mj, 1 % mj);
            }
        }
        assert_eq!(moduli_for(4096), Some(10));
        assert_eq!(moduli_for(1024), Some(9));
        assert_eq!(moduli_for(MAX_INNER), Some(10));
        assert_eq!(moduli_for(MAX_INNER + 1), None);
        // The bound holds with the margin, and one modulus fewer would not do.
        for k in [1, 2, 100, 1000, 4096, 30000, MAX_INNER] {
            let j = moduli_for(k).unwrap();
            let (m, m1) = (small_product(j), small_product(j - 1));
            assert!(m - (m >> 20) > (k as u128) << 61);
            assert!(m1 - (m1 >> 20) <= (k as u128) << 61);
        }
    }

    #[test]
    fn small_residues_and_remainders() {
        let p = 2_147_483_629u32;
        for &m in &SMALL_MODULI {
            for v in [0, 1, 2, 127, 128, 255, 256, p / 2, p / 2 + 1, p - 2, p - 1] {
                let centered = if v > p / 2 {
                    v as i64 - p as i64
                } else {
                    v as i64
                };
                let s = small_residue(v, p, m, 1) as i8 as i64;
                assert_eq!((s - centered).rem_euclid(m as i64), 0, "{v} mod {m}");
                assert!(2 * s < m as i64 && 2 * s >= -(m as i64), "{s} mod {m}");
            }
        }
        for j in 0..MAX_SMALL {
            let m = SMALL_MODULI[j] as i64;
            for x in [0, 1, -1, 255, 256, -256, i32::MAX, i32::MIN + 1, 1 << 30] {
                assert_eq!(small_mod(x, j) as i64, (x as i64).rem_euclid(m), "{x} {m}");
            }
            for q in [1i64, 1000, 8_000_000] {
                for d in [-1, 0, 1] {
                    let x = (q * m + d) as i32;
                    assert_eq!(small_mod(x, j) as i64, (x as i64).rem_euclid(m));
                    assert_eq!(small_mod(-x, j) as i64, (-(x as i64)).rem_euclid(m));
                }
            }
        }
    }

    #[test]
    fn products_by_small_moduli_match_the_modular_sum() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for pm in [2_147_483_629u32, 1_073_741_827, 2_013_265_921] {
            let p = Modulus::new(pm).unwrap();
            let mut next = || {
                crate::testing::xorshift(&mut x);
                (x >> 33) as u32 % pm
            };
            for len in [0, 1, 2, 31, 1024, 1025, 4096, 4097] {
                let (a, b): (Vec<u32>, Vec<u32>) = (0..len).map(|_| (next(), next())).unzip();
                let want = a.iter().zip(&b).fold(0, |s, (&x, &y)| p.mul_add(x, y, s));
                assert_eq!(product_by_small_moduli(&a, &b, p), Some(want), "len {len}");
            }
            // The extremes of the centered range: all (p−1)/2 (largest positive sum), and
            // (p−1)/2 against (p+1)/2 = −(p−1)/2 (largest negative), at the limit.
            let (h, l) = (pm / 2, pm / 2 + 1);
            for len in [1, 1024, 1025, MAX_INNER] {
                for (u, v) in [(h, h), (h, l), (l, l), (pm - 1, pm - 1), (0, pm - 1)] {
                    let want = p.mul(p.mul(u, v), len as u32 % pm);
                    let (a, b) = (vec![u; len], vec![v; len]);
                    assert_eq!(
                        product_by_small_moduli(&a, &b, p),
                        Some(want),
                        "{len} {u} {v}"
                    );
                }
            }
        }
        let p = Modulus::new(2_147_483_629).unwrap();
        let long = vec![1u32; MAX_INNER + 1];
        assert_eq!(product_by_small_moduli(&long, &long, p), None);
    }
}
