//! The residues of integers of a few limbs modulo many primes by one table of powers:
//! with `x = Σ hᵢ·2^(16i)` in 16-bit halves, `x mod m = (Σ hᵢ·(2^(16i) mod m)) mod m`.
//! Each product is below `2^47`, so the sum of up to [`TABLE_MAX_LIMBS`]` · 4` of them
//! stays in 64 bits and is reduced once ([`Modulus::reduce_wide`]). The sums for eight
//! primes at a time are eight 64-bit lanes, one vector multiply-add per half: the work
//! of `mpn_mod_1` once per pair of primes, vectorized. The table is laid out by blocks
//! of eight primes (`[block][half][lane]`), so one block's powers are contiguous.

use super::multimod::signed;
use rns_core::Modulus;
use rug::Integer;

/// Primes per block of the table (the 64-bit lanes of an AVX-512 register).
const LANES: usize = 8;

/// Values up to this many 64-bit limbs go by the table, larger ones by the remainder tree
/// or directly. Measured with `examples/multimod_bench.rs` on the 2-core machine, at 66
/// and 512 primes:
/// - against the direct way: 0.52–0.70× its time at one limb, 0.24–0.30× at 16 and more;
/// - against the tree: 0.5× its time at 128 limbs.
///
/// A sum of `4 · TABLE_MAX_LIMBS` products stays below `2^56`.
pub const TABLE_MAX_LIMBS: usize = 128;

/// Values from which the table is built: building it takes `4·limbs·channels` modular
/// products, a few values' worth of the direct way, so a handful of values go directly.
pub const TABLE_MIN_VALUES: usize = 16;

/// Words of the largest table worth building: the table is read once per value, so it
/// must stay in the core's cache (1 MB).
pub const TABLE_MAX_WORDS: usize = 1 << 18;

/// The powers `2^(16i) mod m` of every prime, for values of up to `limbs` limbs.
pub struct PowerTable {
    moduli: Vec<Modulus>,
    halves: usize,
    pow: Vec<u32>,
}

impl PowerTable {
    /// The table for `moduli` and values of up to `limbs` limbs, or of fewer where
    /// [`TABLE_MAX_LIMBS`] or [`TABLE_MAX_WORDS`] allow fewer ([`PowerTable::holds`]
    /// says which values it takes); `None` when not even one limb fits.
    pub fn new(moduli: &[Modulus], limbs: usize) -> Option<PowerTable> {
        let blocks = moduli.len().div_ceil(LANES).max(1);
        let fit = (TABLE_MAX_WORDS / (blocks * LANES * 4)).min(TABLE_MAX_LIMBS);
        let halves = 4 * limbs.clamp(1, fit.max(1));
        if fit == 0 {
            return None;
        }
        let mut pow = vec![0u32; blocks * halves * LANES];
        for (c, m) in moduli.iter().enumerate() {
            let step = m.reduce_u32(1 << 16);
            let mut p = 1u32;
            for i in 0..halves {
                pow[((c / LANES) * halves + i) * LANES + c % LANES] = p;
                p = m.mul(p, step);
            }
        }
        Some(PowerTable {
            moduli: moduli.to_vec(),
            halves,
            pow,
        })
    }

    /// Whether values of `limbs` limbs fit the table.
    pub fn holds(&self, limbs: usize) -> bool {
        4 * limbs <= self.halves
    }

    /// The residues of `x` modulo each prime, into `out`; `false` (and `out` untouched)
    /// when `x` has more limbs than the table [`holds`](PowerTable::holds).
    pub fn residues_into(&self, x: &Integer, out: &mut [u32]) -> bool {
        let limbs = x.as_limbs();
        if !self.holds(limbs.len()) {
            return false;
        }
        let mut halves = [0u32; 4 * TABLE_MAX_LIMBS];
        let halves = &mut halves[..4 * limbs.len()];
        split_halves(limbs, halves);
        for (b, (outs, ms)) in out
            .chunks_mut(LANES)
            .zip(self.moduli.chunks(LANES))
            .enumerate()
        {
            let block = &self.pow[b * self.halves * LANES..(b + 1) * self.halves * LANES];
            let sums = block_sums(block, halves);
            for ((o, m), s) in outs.iter_mut().zip(ms).zip(sums) {
                *o = m.reduce_wide(s);
            }
        }
        signed(x, &self.moduli, out);
        true
    }
}

/// The 16-bit halves of `limbs` (least significant first) into `out[..4·limbs.len()]`.
pub(crate) fn split_halves(limbs: &[u64], out: &mut [u32]) {
    for (h, &l) in out.chunks_exact_mut(4).zip(limbs) {
        for (q, x) in h.iter_mut().enumerate() {
            *x = (l >> (16 * q)) as u32 & 0xffff;
        }
    }
}

/// `Σᵢ halves[i] · block[i][lane]` for each of the block's eight lanes. Compiled twice:
/// for AVX-512 when the CPU has it (one register of sums) and for the baseline.
fn block_sums(block: &[u32], halves: &[u32]) -> [u64; LANES] {
    #[inline(always)]
    fn body(block: &[u32], halves: &[u32]) -> [u64; LANES] {
        let mut sums = [0u64; LANES];
        for (&h, pows) in halves.iter().zip(block.chunks_exact(LANES)) {
            for (s, &p) in sums.iter_mut().zip(pows) {
                *s += h as u64 * p as u64;
            }
        }
        sums
    }
    #[cfg(target_arch = "x86_64")]
    {
        /// One register of eight sums: per half a load widening the powers to 64-bit
        /// lanes, a broadcast, `vpmuludq` and `vpaddq` (two chains for overlap).
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(block: &[u32], halves: &[u32]) -> [u64; LANES] {
            use std::arch::x86_64::*;
            let pows = |i: usize| {
                // SAFETY: block holds LANES powers per half, at least halves.len().
                unsafe {
                    _mm512_cvtepu32_epi64(_mm256_loadu_si256(block.as_ptr().add(i * LANES).cast()))
                }
            };
            let term = |i: usize| _mm512_mul_epu32(pows(i), _mm512_set1_epi64(halves[i] as i64));
            let (mut a, mut b) = (_mm512_setzero_si512(), _mm512_setzero_si512());
            let mut i = 0;
            while i + 1 < halves.len() {
                a = _mm512_add_epi64(a, term(i));
                b = _mm512_add_epi64(b, term(i + 1));
                i += 2;
            }
            if i < halves.len() {
                a = _mm512_add_epi64(a, term(i));
            }
            let mut out = [0u64; LANES];
            // SAFETY: out holds eight 64-bit lanes.
            unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), _mm512_add_epi64(a, b)) };
            out
        }
        assert!(block.len() >= halves.len() * LANES);
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { avx512(block, halves) };
        }
    }
    body(block, halves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::vector::residues_of;
    use rug::ops::Pow;

    /// The `k` largest 31-bit primes.
    fn largest(k: usize) -> Vec<Modulus> {
        rns_core::prime::moduli_descending(|_| false)
            .take(k)
            .map(|p| Modulus::new(p).unwrap())
            .collect()
    }

    /// Against rug's remainder for values of 0 to 39, 64, 127 and 128 limbs, signed, at
    /// the ends of each size (all ones), for 1, 8, 9 and 70 primes (blocks full and
    /// partial); the caps on limbs and words.
    #[test]
    fn residues_match_the_remainder() {
        let moduli = largest(70);
        for k in [1, 8, 9, 70] {
            let table = PowerTable::new(&moduli[..k], TABLE_MAX_LIMBS).unwrap();
            let mut out = vec![0u32; k];
            for limbs in (0..40).chain([64, 127, TABLE_MAX_LIMBS]) {
                let ones = (Integer::from(1) << (64 * limbs as u32)) - 1u32;
                let odd = Integer::from(3)
                    .pow(limbs as u32 * 40)
                    .keep_bits(64 * limbs as u32);
                for x in [ones.clone(), -ones, odd.clone(), -odd] {
                    assert!(table.residues_into(&x, &mut out));
                    for (r, m) in out.iter().zip(&moduli[..k]) {
                        let want = x.mod_u(m.m);
                        assert_eq!(*r, want, "{limbs} limbs modulo {}", m.m);
                    }
                }
            }
        }
        let capped = PowerTable::new(&moduli, TABLE_MAX_LIMBS + 1).unwrap();
        assert!(capped.holds(TABLE_MAX_LIMBS) && !capped.holds(TABLE_MAX_LIMBS + 1));
        let too_long = Integer::from(1) << (64 * TABLE_MAX_LIMBS as u32);
        assert!(!capped.residues_into(&too_long, &mut vec![0; 70]));
        // Too many primes for even one limb in the table's words.
        let many = vec![moduli[0]; TABLE_MAX_WORDS / 4 + 1];
        assert!(PowerTable::new(&many, 1).is_none());
    }

    /// `residues_of` on values that take each path (the table up to its limbs, the tree
    /// above them, directly where no table fits: 65 537 primes, or for too few values),
    /// at the edges of the table (128 and 129 limbs), against rug's remainder.
    #[test]
    fn residues_of_takes_every_path_and_agrees() {
        let all = largest(65_537);
        let ones = |limbs: u32| (Integer::from(1) << (64 * limbs)) - 1u32;
        let values: Vec<Integer> = [0u32, 1, 2, 40, 128, 129, 300]
            .iter()
            .flat_map(|&l| [ones(l), -ones(l)])
            .chain([Integer::from(-1), Integer::from(i64::MIN)])
            .collect();
        assert_eq!(values.len(), TABLE_MIN_VALUES);
        // Both sides of the values that pay for a table.
        for values in [&values[..], &values[..TABLE_MIN_VALUES - 1]] {
            for k in [9, 70, 65_537] {
                let (moduli, sample) = (&all[..k], if k > 100 { 3 } else { k });
                let got = residues_of(values, moduli).unwrap();
                for (c, m) in moduli.iter().enumerate().step_by(k / sample) {
                    for (i, x) in values.iter().enumerate() {
                        let what = format!("{k} primes, value {i} of {}", values.len());
                        assert_eq!(got[c * values.len() + i], x.mod_u(m.m), "{what}");
                    }
                }
            }
        }
    }
}
