//! Moving residues between the number-major order (all channels of one number
//! together) and the channel-major order of [`crate::RnsVec`].

use rayon::prelude::*;

/// Channel-major `len × channels` data (`src[c·len + i]`) to number-major (`dst[i·channels + c]`).
pub fn to_number_major(src: &[u32], len: usize, channels: usize) -> Vec<u32> {
    let mut dst = vec![0u32; src.len()];
    if len == 0 {
        return dst;
    }
    dst.par_chunks_mut(channels)
        .enumerate()
        .for_each(|(i, row)| {
            for (c, x) in row.iter_mut().enumerate() {
                *x = src[c * len + i];
            }
        });
    dst
}

/// Number-major data (`src[i·channels + c]`) to channel-major (`dst[c·len + i]`).
pub fn to_channel_major(src: &[u32], len: usize, channels: usize) -> Vec<u32> {
    let mut dst = vec![0u32; src.len()];
    if len == 0 {
        return dst;
    }
    dst.par_chunks_mut(len).enumerate().for_each(|(c, col)| {
        for (i, x) in col.iter_mut().enumerate() {
            *x = src[i * channels + c];
        }
    });
    dst
}
