//! The exact product's two ends on the host's side of the device: integers packed
//! number-major straight into page-locked memory (transposed on the device), and
//! signed binary limbs of the results from their mixed-radix digits
//! (`rns_digits_limbs`, `rns_core::limbs`) with the redundant channel's check, so that
//! the host reads and builds each integer with one copy.

use super::launch::{grid_limit, launch, need, Digits};
use super::memory::moduli_words;
use super::tables::MrcTables;
use super::Gpu;
use crate::backend::input::{fill_number_major, packed_width, signs};
use crate::error::{Error, Result};
use crate::num::words::Words;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

/// Residues gathered per chunk of [`Gpu::signed_limbs`] (256 MiB).
const GATHER_WORDS: usize = 1 << 26;

/// Threads per block of `rns_digits_limbs`.
const LIMBS_THREADS: u32 = 128;

/// 32-bit limbs that hold `M − 1` for the product `M` of `range` (once per basis:
/// [`MrcTables::limbs`]).
pub fn limbs_for(range: &[Modulus]) -> usize {
    let mut m = Integer::from(1);
    for r in range {
        m *= r.m;
    }
    (m.significant_bits() as usize).div_ceil(32)
}

/// `M mod q` for the product `M` of `range`.
pub fn product_mod(range: &[Modulus], q: Modulus) -> u32 {
    range
        .iter()
        .fold(q.reduce_u32(1), |r, m| q.mul(r, q.reduce_u32(m.m)))
}

impl Gpu {
    /// `values` packed for [`Gpu::matmul_limbs`]: each magnitude's 32-bit words side by
    /// side (number-major, zero-padded to the longest, in page-locked memory when the
    /// pool lends it), the sign flags and the words per number.
    pub fn pack_number_major(self: &Arc<Self>, values: &[Integer]) -> (Words, Vec<u32>, usize) {
        let nwords = packed_width(values);
        let mut words = self.result_words(nwords * values.len());
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
        self: &Arc<Self>,
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
        let t = self.mrc_tables(range)?;
        let (k, nlimbs) = (t.k, t.limbs);
        // Per number: its residues (then its limbs, limb-major), its digits (then its
        // limbs, number-major) and its flag.
        // At most GATHER_WORDS residues a chunk: they are gathered in page-locked memory.
        let most = (GATHER_WORDS / channels).max(1);
        let chunk = self.chunk_items(len, 4 * (channels + k + 1), 0, 1, most)?;
        let mut out = self.result_words(nlimbs * len);
        let mut flags = vec![0u32; len];
        let streams = self.lease_streams(1)?;
        let s = &streams[0];
        let pool = self.staging();
        let mut gather = pool.take(self.context(), channels * chunk.min(len))?;
        for start in (0..len).step_by(chunk.max(1)) {
            let cl = chunk.min(len - start);
            let part = gather.slice_mut(channels * cl);
            part.par_chunks_mut(cl).enumerate().for_each(|(c, p)| {
                p.copy_from_slice(&residues[c * len + start..c * len + start + cl]);
            });
            let mut dres = self.alloc_on(s, channels * cl)?;
            self.htod(s, &*part, &mut dres)?;
            // `gather` is page-locked: no error may leave it while the copy reads it.
            self.sync_stream(s)?;
            let mut digits = self.alloc_on(s, k * cl)?;
            let shape = Digits { len: cl, k };
            self.launch_digits(s, shape, &mut digits, &dres, None, &t.moduli, &t.table)?;
            let mut dflags = self.alloc_on(s, cl)?;
            self.dtod(s, &dres.slice(k * cl..channels * cl), &mut dflags)?;
            self.launch_digits_limbs(s, &mut dres, &mut dflags, &digits, (&t, range), q, cl)?;
            self.launch_transpose(s, &mut digits, &dres, (nlimbs, cl))?;
            self.dtoh(s, &dflags, &mut flags[start..start + cl])?;
            let locked = out.is_locked();
            let dst = &mut out[start * nlimbs..(start + cl) * nlimbs];
            match locked {
                true => self.dtoh(s, &digits.slice(0..nlimbs * cl), dst)?,
                false => self.dtoh_staged(s, (&digits, 0..nlimbs * cl), dst)?,
            }
            // Before the next chunk or an error: `out` may be page-locked.
            self.sync_stream(s)?;
        }
        pool.give(gather);
        Ok((out, flags, nlimbs))
    }

    /// `rns_digits_limbs` on `len` numbers given by their digits over `range`
    /// (channel-major, `tables` those of `range`): `|v|` into `out` (`tables.limbs × len`,
    /// limb-major), and each number's flag into `flags`, which holds its residue modulo
    /// `q` (the redundant channel) on entry.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_digits_limbs(
        &self,
        stream: &Arc<CudaStream>,
        out: &mut CudaSlice<u32>,
        flags: &mut CudaSlice<u32>,
        digits: &CudaSlice<u32>,
        (tables, range): (&MrcTables, &[Modulus]),
        q: Modulus,
        len: usize,
    ) -> Result<()> {
        let (k, nlimbs) = (tables.k, tables.limbs);
        if range.len() != k {
            return Err(Error::Internal("limbs: tables and moduli disagree".into()));
        }
        need("limbs output", out, nlimbs * len)?;
        need("limb flags", flags, len)?;
        need("digits", digits, k * len)?;
        if len == 0 {
            return Ok(());
        }
        let dq = self.upload_on(stream, &moduli_words(&[q]))?;
        let m_mod_q = product_mod(range, q);
        let blocks = len.div_ceil(LIMBS_THREADS as usize);
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("limb blocks", blocks, i32::MAX as usize)?, 1, 1),
            block_dim: (LIMBS_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (l, kk, nl) = (len as u32, k as u32, nlimbs as u32);
        launch!(
            self,
            stream,
            &self.kernels().digits_limbs,
            cfg,
            out,
            flags,
            digits,
            &tables.moduli,
            &tables.half_digits,
            &dq,
            &m_mod_q,
            &l,
            &kk,
            &nl
        )
    }
}
