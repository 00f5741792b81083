//! Modular matrix products on INT8 tensor cores: each 31-bit residue is split into four
//! byte planes, `a = Σ_i a_i·2^(8i)` with `a_i < 256`, so that `a·b = Σ_s 2^(8s)·G_s`
//! where `G_s = Σ_{i+j=s} a_i·b_j` (seven groups, `s = 0 … 6`). A matrix product sums
//! each group's byte products exactly in 32 bits (the tensor cores' `u8 × u8 → s32`
//! multiply-accumulate) over at most [`SEGMENT`] inner entries, then folds the groups
//! modulo the prime ([`combine_groups`]). The steps of the device kernel
//! `rns_matmul_imma`, and of [`product_by_planes`], the same sums on one core.

use crate::Modulus;

/// Byte planes per residue (`a < 2^31`, so the top plane is below 128).
pub const PLANES: usize = 4;
/// Groups `s = i + j` of plane pairs.
pub const GROUPS: usize = 2 * PLANES - 1;
/// Largest sum of one group's byte products for one inner entry: `s = 2` has three
/// pairs of full bytes, `3·255² = 195 075` (`s = 3` has two full pairs and two against
/// the top plane, `2·255² + 2·255·127 = 194 820`).
pub const GROUP_MAX: u64 = 3 * 255 * 255;
/// Inner-dimension entries summed in 32 bits before the groups are folded: every group
/// sum stays below `2^31`, the signed accumulators' limit.
pub const SEGMENT: usize = 8192;

const _: () = assert!(SEGMENT as u64 * GROUP_MAX < 1 << 31);

/// The byte planes of four residues: word `i` holds byte `i` of `x[j]` in its byte `j`
/// (four consecutive inner entries of one plane, as a tensor-core fragment reads them).
#[inline(always)]
pub fn byte_planes(x: [u32; 4]) -> [u32; PLANES] {
    let mut out = [0u32; PLANES];
    for (i, o) in out.iter_mut().enumerate() {
        for (j, &v) in x.iter().enumerate() {
            *o |= ((v >> (8 * i)) & 0xFF) << (8 * j);
        }
    }
    out
}

/// `Σ_s g[s]·2^(8s) mod m` for group sums `g[s] < 2^31`, by Horner's rule from the top.
#[inline(always)]
pub fn combine_groups(g: &[u32; GROUPS], m: Modulus) -> u32 {
    let mut r = 0u32;
    for s in (0..GROUPS).rev() {
        r = m.add(m.mul(r, 256), m.reduce_u32(g[s]));
    }
    r
}

/// One entry of a modular matrix product computed as the device does: `Σ_k a_k·b_k mod m`
/// for residues `a_k, b_k < m`, through the byte planes, the group sums in 32 bits and a
/// fold every [`SEGMENT`] entries. (A reference for the kernel's arithmetic.)
pub fn product_by_planes(a: &[u32], b: &[u32], m: Modulus) -> u32 {
    let mut res = 0u32;
    for (sa, sb) in a.chunks(SEGMENT).zip(b.chunks(SEGMENT)) {
        let mut g = [0u32; GROUPS];
        for (&x, &y) in sa.iter().zip(sb) {
            for i in 0..PLANES {
                for j in 0..PLANES {
                    let (xi, yj) = ((x >> (8 * i)) & 0xFF, (y >> (8 * j)) & 0xFF);
                    g[i + j] += xi * yj;
                }
            }
        }
        res = m.add(res, combine_groups(&g, m));
    }
    res
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::{vec, vec::Vec};

    #[test]
    fn planes_hold_the_bytes_in_order() {
        let p = byte_planes([0x0403_0201, 0x0807_0605, 0x0C0B_0A09, 0x100F_0E0D]);
        assert_eq!(p, [0x0D09_0501, 0x0E0A_0602, 0x0F0B_0703, 0x100C_0804]);
    }

    #[test]
    fn products_by_planes_match_the_modular_sum() {
        let m = Modulus::new(2_147_483_629).unwrap();
        let top = m.m - 1;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            crate::testing::xorshift(&mut x);
            (x >> 33) as u32 % m.m
        };
        // Lengths across the fold (SEGMENT) with random residues, and all m − 1, whose
        // group sums are the largest (the worst case for the 32-bit accumulators).
        for len in [
            0,
            1,
            31,
            32,
            33,
            SEGMENT - 1,
            SEGMENT,
            SEGMENT + 1,
            2 * SEGMENT + 5,
        ] {
            let (a, b): (Vec<u32>, Vec<u32>) = (0..len).map(|_| (next(), next())).unzip();
            let want = a.iter().zip(&b).fold(0, |s, (&x, &y)| m.mul_add(x, y, s));
            assert_eq!(product_by_planes(&a, &b, m), want, "len {len}");
            let ones = vec![top; len];
            let want = m.mul(m.mul(top, top), len as u32 % m.m);
            assert_eq!(
                product_by_planes(&ones, &ones, m),
                want,
                "len {len}, all m − 1"
            );
        }
    }
}
