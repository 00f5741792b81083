//! Launches of the decimal family: the chunks of nine digits of numbers given by their
//! mixed-radix digits (`rns_digits_decimal`), then their text (`rns_decimal_text`); and
//! the way in, decimal text to binary words (`rns_decimal_words`).

use super::digits::{product_mod, MrcTables};
use super::{grid_limit, launch, need};
use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::decimal::CHUNK_DIGITS;
use rns_core::Modulus;
use std::sync::Arc;

/// Threads per block of both kernels.
const THREADS: u32 = 128;

/// A grid of `THREADS`-thread blocks with a thread for each of `threads` items (the
/// kernels loop over any more).
fn threads_grid(what: &str, threads: usize) -> Result<LaunchConfig> {
    let blocks = threads.div_ceil(THREADS as usize);
    Ok(LaunchConfig {
        grid_dim: (grid_limit(what, blocks, i32::MAX as usize)?, 1, 1),
        block_dim: (THREADS, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// Chunks of nine digits that hold any number below `2^(32·limbs)` (`log10 2 <
/// 1233/4096`).
pub fn chunks_for(limbs: usize) -> usize {
    (((32 * limbs * 1233) >> 12) + 1).div_ceil(CHUNK_DIGITS)
}

/// The device buffers of a text: the numbers' chunks (limb-major, `nchunks` each), text
/// lengths and flags.
pub struct Chunks<'a> {
    /// `chunks[j·len + i]`.
    pub chunks: &'a mut CudaSlice<u32>,
    /// Bytes of each number's text.
    pub lens: &'a mut CudaSlice<u32>,
    /// The redundant residues on entry; the flags (`rns_core::limbs`) after.
    pub flags: &'a mut CudaSlice<u32>,
    /// Chunks a number.
    pub nchunks: usize,
}

impl Chunks<'_> {
    /// The same buffers, borrowed again (for a launch that takes them by value).
    pub fn reborrow(&mut self) -> Chunks<'_> {
        Chunks {
            chunks: self.chunks,
            lens: self.lens,
            flags: self.flags,
            nchunks: self.nchunks,
        }
    }
}

/// `rns_digits_decimal` on `len` numbers given by their digits over `range` (`tables`
/// of the same moduli), with the check against the redundant modulus `q`.
pub fn launch_digits_decimal(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: Chunks<'_>,
    digits: &CudaSlice<u32>,
    (tables, range): (&MrcTables, &[Modulus]),
    q: Modulus,
    len: usize,
) -> Result<()> {
    let k = tables.k;
    if range.len() != k {
        return Err(Error::Internal(
            "decimal: tables and moduli disagree".into(),
        ));
    }
    need("decimal chunks", out.chunks, out.nchunks * len)?;
    need("text lengths", out.lens, len)?;
    need("decimal flags", out.flags, len)?;
    need("digits", digits, k * len)?;
    if len == 0 {
        return Ok(());
    }
    let dq = gpu.upload_on(stream, &moduli_words(&[q]))?;
    let m_mod_q = product_mod(range, q);
    let cfg = threads_grid("decimal blocks", len)?;
    let (l, kk, nc) = (len as u32, k as u32, out.nchunks as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().digits_decimal,
        cfg,
        out.chunks,
        out.lens,
        out.flags,
        digits,
        &tables.moduli,
        &tables.half_digits,
        &dq,
        &m_mod_q,
        &l,
        &kk,
        &nc
    )
}

/// `rns_decimal_text`: the text of `len` numbers (`chunks` as `launch_digits_decimal`
/// left them) into `text` (bytes, four a word), number `i` at byte `offsets[i]` (`u64`s,
/// two words each), a newline after every `cols`-th and a space after the others.
pub fn launch_decimal_text(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (text, bytes): (&mut CudaSlice<u32>, usize),
    chunks: &Chunks<'_>,
    offsets: &CudaSlice<u32>,
    (len, cols): (usize, usize),
) -> Result<()> {
    need("text", text, bytes.div_ceil(4))?;
    need("decimal chunks", chunks.chunks, chunks.nchunks * len)?;
    need("text offsets", offsets, 2 * len)?;
    if len == 0 || cols == 0 || chunks.nchunks == 0 {
        return Ok(());
    }
    let cfg = threads_grid("text blocks", len * chunks.nchunks)?;
    let (l, nc, c) = (len as u32, chunks.nchunks as u32, cols as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().decimal_text,
        cfg,
        text,
        &*chunks.chunks,
        &*chunks.lens,
        &*chunks.flags,
        offsets,
        &l,
        &nc,
        &c
    )
}

/// `rns_decimal_words`: `len` decimal numbers of `text` (bytes, four a word), placed by
/// `spans` (three words each: the first digit's byte as a `u64`, then the digits with the
/// sign in the top bit), into `nwords` words each, word-major, and their sign flags;
/// `bits` (one word, zero on entry) raised to the most bits of any.
pub fn launch_decimal_words(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (words, neg, bits): (
        &mut CudaSlice<u32>,
        &mut CudaSlice<u32>,
        &mut CudaSlice<u32>,
    ),
    (text, spans): (&CudaSlice<u32>, &CudaSlice<u32>),
    (len, nwords): (usize, usize),
) -> Result<()> {
    need("decimal words", words, nwords * len)?;
    need("decimal signs", neg, len)?;
    need("decimal bits", bits, 1)?;
    need("decimal spans", spans, 3 * len)?;
    if len == 0 {
        return Ok(());
    }
    let cfg = threads_grid("word blocks", len)?;
    let (l, nw) = (len as u32, nwords as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().decimal_words,
        cfg,
        words,
        neg,
        bits,
        text,
        spans,
        &l,
        &nw
    )
}
