//! The exact product's two ends on the host's side of the device: integers packed
//! number-major straight into page-locked memory (transposed on the device), and
//! signed binary limbs of the results from their mixed-radix digits
//! (`rns_digits_limbs`, `rns_core::limbs`) with the redundant channel's check, so that
//! the host reads and builds each integer with one copy.

use crate::backend::gpu::launch;
use crate::backend::gpu::launch::Digits;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::num::pack::{fill_number_major, packed_width, signs};
use crate::num::words::Words;
use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

/// Residues gathered per chunk of [`signed_limbs`] (256 MiB).
const GATHER_WORDS: usize = 1 << 26;

/// `values` packed for [`matmul_limbs`](super::product::matmul_limbs): each magnitude's 32-bit words side by
/// side (number-major, zero-padded to the longest, in page-locked memory when the
/// pool lends it), the sign flags and the words per number.
pub fn pack_number_major(gpu: &Arc<Gpu>, values: &[Integer]) -> (Words, Vec<u32>, usize) {
    let nwords = packed_width(values);
    let mut words = gpu.result_words(nwords * values.len());
    fill_number_major(values, &mut words[..], nwords);
    (words, signs(values), nwords)
}

/// The signed binary limbs of `len` numbers given by their residues (`residues`,
/// channel-major) modulo `moduli` (the range channels, then the redundant one), by
/// mixed-radix digits and `rns_digits_limbs` on the device, in chunks of numbers
/// that fit the memory budget: the magnitudes (number-major, `nlimbs` each, least
/// significant first; page-locked when the pool lends it), the flags
/// (`rns_core::limbs::NEGATIVE`, `OUT_OF_RANGE` where the redundant residue
/// disagrees) and `nlimbs`, for [`crate::num::crt::from_signed_limbs`].
pub fn signed_limbs(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    residues: &[u32],
    len: usize,
) -> Result<(Words, Vec<u32>, usize)> {
    let channels = moduli.len();
    if channels < 2 || residues.len() != channels * len {
        return Err(Error::Internal(format!(
            "limbs of {len} numbers from {} residues over {channels} channels",
            residues.len()
        )));
    }
    let (range, q) = (&moduli[..channels - 1], moduli[channels - 1]);
    let t = super::tables::mrc_tables(gpu, range)?;
    let (k, nlimbs) = (t.k, t.limbs);
    // Per number: its residues (then its limbs, limb-major), its digits (then its
    // limbs, number-major) and its flag.
    // At most GATHER_WORDS residues a chunk: they are gathered in page-locked memory.
    let most = (GATHER_WORDS / channels).max(1);
    let chunk = gpu.chunk_items(len, 4 * (channels + k + 1), 0, 1, most)?;
    let mut out = gpu.result_words(nlimbs * len);
    let mut flags = vec![0u32; len];
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    let pool = gpu.staging();
    let mut gather = pool.take(gpu.context(), channels * chunk.min(len))?;
    for start in (0..len).step_by(chunk.max(1)) {
        let cl = chunk.min(len - start);
        let part = gather.slice_mut(channels * cl);
        part.par_chunks_mut(cl).enumerate().for_each(|(c, p)| {
            p.copy_from_slice(&residues[c * len + start..c * len + start + cl]);
        });
        let mut dres = gpu.alloc_on(s, channels * cl)?;
        gpu.htod(s, &*part, &mut dres)?;
        // `gather` is page-locked: no error may leave it while the copy reads it.
        gpu.sync_stream(s)?;
        let mut digits = gpu.alloc_on(s, k * cl)?;
        let shape = Digits { len: cl, k };
        launch::launch_digits(gpu, s, shape, &mut digits, &dres, None, &t.moduli, &t.table)?;
        let mut dflags = gpu.alloc_on(s, cl)?;
        gpu.dtod(s, &dres.slice(k * cl..channels * cl), &mut dflags)?;
        launch::launch_digits_limbs(gpu, s, &mut dres, &mut dflags, &digits, (&t, range), q, cl)?;
        launch::launch_transpose(gpu, s, &mut digits, &dres, (nlimbs, cl))?;
        gpu.dtoh(s, &dflags, &mut flags[start..start + cl])?;
        let locked = out.is_locked();
        let dst = &mut out[start * nlimbs..(start + cl) * nlimbs];
        match locked {
            true => gpu.dtoh(s, &digits.slice(0..nlimbs * cl), dst)?,
            false => gpu.dtoh_staged(s, (&digits, 0..nlimbs * cl), dst)?,
        }
        // Before the next chunk or an error: `out` may be page-locked.
        gpu.sync_stream(s)?;
    }
    pool.give(gather);
    Ok((out, flags, nlimbs))
}
