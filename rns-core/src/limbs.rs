//! From mixed-radix digits to binary: the signed value `v` of the digits
//! `d_0, …, d_{K−1}` (`x = d_0 + d_1·m_0 + … `, `v = x` when `x ≤ (M − 1)/2`, else
//! `x − M`) as its sign and the 32-bit limbs of `|v|`, by Horner's rule from the top
//! digit, `O(K)` word operations per digit; and `v mod q` for a further modulus `q` (the
//! redundant channel's check); the same in base `10^9` for decimal text
//! ([`crate::decimal`]). Written once for the CPU and for the GPU, where a
//! thread converts one number in a column of a limb-major array.

use crate::modulus::Modulus;

/// Flag of a negative number (the GPU kernel's `flags`).
pub const NEGATIVE: u32 = 1;
/// Flag of a number whose redundant residue disagrees with its digits: out of range.
pub const OUT_OF_RANGE: u32 = 2;

/// A number's 32-bit limbs, least significant first, read and written in place.
pub trait Limbs {
    /// Limb `j`.
    fn get(&self, j: usize) -> u32;
    /// Sets limb `j` to `v`.
    fn set(&mut self, j: usize, v: u32);
}

impl Limbs for [u32] {
    #[inline(always)]
    fn get(&self, j: usize) -> u32 {
        self[j]
    }
    #[inline(always)]
    fn set(&mut self, j: usize, v: u32) {
        self[j] = v;
    }
}

/// Whether the number with digits `digit(i)`, `i < k`, exceeds `(M − 1)/2`, whose digits
/// are `half(i)`: the first difference from the top decides.
#[inline(always)]
pub fn is_negative(k: usize, digit: impl Fn(usize) -> u32, half: impl Fn(usize) -> u32) -> bool {
    let mut i = k;
    while i > 0 {
        i -= 1;
        let (d, h) = (digit(i), half(i));
        if d != h {
            return d > h;
        }
    }
    false
}

/// A base for the limbs of [`signed_magnitude`]: `2^32` ([`Binary`]) or `10^9`
/// (`crate::decimal::Decimal`).
pub trait Base {
    /// `(t mod B, t / B)` for `t < B · 2^32`.
    fn split(t: u64) -> (u32, u64);
    /// `x + 1` for a limb `x < B`, as a limb and whether it carried.
    fn inc(x: u32) -> (u32, bool);
}

/// The base `2^32`: binary limbs.
pub struct Binary;

impl Base for Binary {
    #[inline(always)]
    fn split(t: u64) -> (u32, u64) {
        (t as u32, t >> 32)
    }
    #[inline(always)]
    fn inc(x: u32) -> (u32, bool) {
        let t = x.wrapping_add(1);
        (t, t == 0)
    }
}

/// Writes `|v|` in base `B` into limbs `0..used` of `out` (none for 0) and returns whether
/// `v` is negative and `used`, for the signed value `v` of the digits `digit(i)` over
/// `moduli(i)`, `i < k`, the digits of `(M − 1)/2` being `half(i)`: Horner's rule from
/// the top digit. `n` limbs must hold `M − 1`; a larger value never writes past `n` but
/// is wrong. For negative `v`, `|v| = M − x = (M − 1 − x) + 1`, whose digits are
/// `m_i − 1 − d_i`.
#[inline(always)]
pub fn signed_magnitude<B: Base, L: Limbs + ?Sized>(
    k: usize,
    digit: impl Fn(usize) -> u32,
    moduli: impl Fn(usize) -> Modulus,
    half: impl Fn(usize) -> u32,
    out: &mut L,
    n: usize,
) -> (bool, usize) {
    let negative = is_negative(k, &digit, half);
    let mut used = 0;
    let mut i = k;
    while i > 0 {
        i -= 1;
        let m = moduli(i).m;
        let d = digit(i);
        let mut carry = if negative { (m - 1).wrapping_sub(d) } else { d } as u64;
        let mut j = 0;
        while j < used {
            let (limb, c) = B::split(out.get(j) as u64 * m as u64 + carry);
            out.set(j, limb);
            carry = c;
            j += 1;
        }
        // The carry is below `2^32`, so at most two limbs of a base of 10^9 or more.
        while carry != 0 && used < n {
            let (limb, c) = B::split(carry);
            out.set(used, limb);
            carry = c;
            used += 1;
        }
    }
    if negative {
        let mut j = 0;
        let mut carry = true;
        while carry && j < used {
            let (t, c) = B::inc(out.get(j));
            out.set(j, t);
            carry = c;
            j += 1;
        }
        if carry && used < n {
            out.set(used, 1);
            used += 1;
        }
    }
    (negative, used)
}

/// Writes `|v|` into limbs `0..nlimbs` of `out` (zero-padded) and returns whether `v` is
/// negative: [`signed_magnitude`] in binary. `nlimbs` must hold `M − 1`
/// (`32·nlimbs ≥ bits(M − 1)`).
#[inline(always)]
pub fn signed_limbs<L: Limbs + ?Sized>(
    k: usize,
    digit: impl Fn(usize) -> u32,
    moduli: impl Fn(usize) -> Modulus,
    half: impl Fn(usize) -> u32,
    out: &mut L,
    nlimbs: usize,
) -> bool {
    let (negative, mut used) = signed_magnitude::<Binary, L>(k, digit, moduli, half, out, nlimbs);
    while used < nlimbs {
        out.set(used, 0);
        used += 1;
    }
    negative
}

/// `x mod q` for the number `x ∈ [0, M)` with digits `digit(i)` over `moduli(i)`, `i < k`:
/// Horner's rule modulo `q`. The signed value's residue is this less `M mod q` when
/// [`is_negative`].
#[inline(always)]
pub fn residue_of_digits(
    k: usize,
    digit: impl Fn(usize) -> u32,
    moduli: impl Fn(usize) -> Modulus,
    q: Modulus,
) -> u32 {
    let mut r = 0;
    let mut i = k;
    while i > 0 {
        i -= 1;
        let m = q.reduce_u32(moduli(i).m);
        r = q.mul_add(r, m, q.reduce_u32(digit(i)));
    }
    r
}

/// The binary words of `Σ_w c_w·2^(32w)` for `words` terms `c_w` of `nlimbs ≤ 4` limbs
/// each (`term(w, j)` is limb `j` of term `w`), least significant first: `put(w, word)`
/// for `w < words + tail`. Exact when the sum is below `2^(32·(words + tail))`.
#[inline(always)]
pub fn carry_terms(
    (words, nlimbs, tail): (usize, usize, usize),
    term: impl Fn(usize, usize) -> u32,
    mut put: impl FnMut(usize, u32),
) {
    let mut acc: u128 = 0;
    for w in 0..words {
        for j in 0..nlimbs.min(4) {
            acc += (term(w, j) as u128).wrapping_shl(32 * j as u32);
        }
        put(w, acc as u32);
        acc >>= 32;
    }
    for w in 0..tail {
        put(words + w, acc as u32);
        acc >>= 32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mixed_radix::{fill_half_digits, fill_table, to_digits};

    const PRIMES: [u32; 4] = [2_147_483_647, 2_147_483_629, 2_147_483_587, 1_073_741_827];

    /// The signed value of `x ∈ [0, M)`, its limbs and residue modulo `q`, by the
    /// functions above, against `u128` arithmetic.
    fn check(x: u128, moduli: &[Modulus], q: Modulus) {
        let k = moduli.len();
        let mut table = [0u32; 16];
        fill_table(moduli, &mut table[..k * k]);
        let mut half = [0u32; 4];
        fill_half_digits(moduli, &table[..k * k], &mut half[..k]);
        let big_m: u128 = moduli.iter().map(|m| m.m as u128).product();
        let mut d = [0u32; 4];
        for (di, m) in d.iter_mut().zip(moduli) {
            *di = (x % m.m as u128) as u32;
        }
        to_digits(&mut d[..k], moduli, &table[..k * k]);
        let nlimbs = (128 - (big_m - 1).leading_zeros() as usize).div_ceil(32);
        let mut out = [0xdead_beefu32; 5];
        let neg = signed_limbs(
            k,
            |i| d[i],
            |i| moduli[i],
            |i| half[i],
            &mut out[..],
            nlimbs,
        );
        let want_neg = x > (big_m - 1) / 2;
        let magnitude = if want_neg { big_m - x } else { x };
        assert_eq!(neg, want_neg, "x = {x}");
        let got = out[..nlimbs]
            .iter()
            .rev()
            .fold(0u128, |acc, &l| (acc << 32) | l as u128);
        assert_eq!(got, magnitude, "x = {x}");
        assert_eq!(out[nlimbs], 0xdead_beef, "wrote past nlimbs");
        let r = residue_of_digits(k, |i| d[i], |i| moduli[i], q);
        assert_eq!(r as u128, x % q.m as u128, "x = {x}");
    }

    #[test]
    fn limbs_and_residues_at_the_edges_of_the_range() {
        let q = Modulus::new_unchecked(2_147_483_563);
        for k in 1..=4 {
            let moduli: [Modulus; 4] = PRIMES.map(Modulus::new_unchecked);
            let moduli = &moduli[..k];
            let big_m: u128 = moduli.iter().map(|m| m.m as u128).product();
            let h = (big_m - 1) / 2;
            let edges = [0, 1, 2, h - 1, h, h + 1, h + 2, big_m - 2, big_m - 1];
            let powers = [1u128 << 31, (1 << 32) - 1, 1 << 32, 1 << 62].map(|v| v % big_m);
            let mut s = 0x9e37_79b9_7f4a_7c15u128;
            let random = core::iter::repeat_with(|| {
                s = s
                    .wrapping_mul(0x2545_f491_4f6c_dd1d)
                    .wrapping_add(0x1234_5678_9abc);
                (s >> 7) % big_m
            });
            let xs = edges.into_iter().chain(powers).chain(random.take(200));
            for x in xs {
                check(x, moduli, q);
            }
        }
    }

    #[test]
    fn carried_terms_cross_every_word() {
        // c_0 = 2^64 + 5, c_1 = 2^96 − 1 (every limb full), c_2 = 7: three limbs each.
        let terms = [[5u32, 0, 1], [u32::MAX; 3], [7, 0, 0]];
        let mut out = [0u32; 6];
        carry_terms((3, 3, 3), |w, j| terms[w][j], |w, v| out[w] = v);
        // 5 + 2^64 + (2^96 − 1)·2^32 + 7·2^64 = 2^128 + 7·2^64 + (2^32 − 1)·2^32 + 5.
        assert_eq!(out, [5, u32::MAX, 7, 0, 1, 0]);
    }
}
