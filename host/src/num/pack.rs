//! Integers packed as 32-bit words for the GPU: word-major or number-major magnitudes
//! and sign flags, by all cores.

use super::layout;
use rayon::prelude::*;
use rug::Integer;

/// Integers as the GPU reads them: 32-bit words, word-major (`words[w·len + i]`, least
/// significant first, padded to the longest), sign flags, and the words per number.
/// By all cores: each number's words side by side, then transposed.
pub fn pack_words(values: &[Integer]) -> (Vec<u32>, Vec<u32>, usize) {
    let (len, nwords) = (values.len(), packed_width(values));
    let mut number_major = vec![0u32; nwords * len];
    fill_number_major(values, &mut number_major, nwords);
    let words = layout::to_channel_major(&number_major, len, nwords);
    (words, signs(values), nwords)
}

/// The 32-bit words of the longest of `values` (at least 1).
pub fn packed_width(values: &[Integer]) -> usize {
    values
        .par_iter()
        .map(|x| x.as_limbs().len() * 2)
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Each value's magnitude as `nwords` 32-bit words (least significant first, zero-padded)
/// into `out`, number after number, by all cores (`nwords` at least [`packed_width`]).
pub fn fill_number_major(values: &[Integer], out: &mut [u32], nwords: usize) {
    out.par_chunks_mut(nwords)
        .zip(values.par_iter())
        .for_each(|(w, x)| {
            let limbs = x.as_limbs();
            for (pair, &limb) in w.chunks_exact_mut(2).zip(limbs) {
                pair[0] = limb as u32;
                pair[1] = (limb >> 32) as u32;
            }
            w[2 * limbs.len()..].fill(0);
        });
}

/// 1 for each negative value, else 0.
pub fn signs(values: &[Integer]) -> Vec<u32> {
    values.par_iter().map(|x| x.is_negative() as u32).collect()
}
