//! Decimal text made on the device: numbers given by their mixed-radix digits become
//! chunks of nine decimal digits (`rns_digits_decimal`, one pass from the digits, no
//! binary limbs), then the bytes of the text laid out as a matrix (`rns_decimal_text`),
//! which alone cross PCIe back with the lengths and flags. The host only sums the
//! lengths into offsets. The way in: the text itself crosses, with each number's place
//! ([`Span`]), and becomes binary words on the device ([`words_of_text`]).

use super::matrices::DeviceWords;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{Chunks, MrcTables};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::num::decimal::Span;
use crate::timing::Laps;
use cudarc::driver::{CudaSlice, CudaStream};
use rayon::prelude::*;
use rns_core::limbs::OUT_OF_RANGE;
use rns_core::Modulus;
use std::sync::Arc;

/// The most chunks of nine digits a number may have for its text to be made on the
/// device (a thread's work grows with the square; about 4600 digits, so that a product of
/// the longest numbers the device reads is written there too).
pub const TEXT_MAX_CHUNKS: usize = 512;

/// The most words a number may have to be read from text on the device (a thread's work
/// grows with the square; about 2400 digits).
pub const WORDS_MAX: usize = 256;

/// Words that hold any number of `digits` decimal digits (`log2 10 < 3.33`), when it may
/// be read on the device.
pub fn words_for_digits(digits: u64) -> Option<usize> {
    let words = (digits as usize * 333 / 100 + 1).div_ceil(32).max(1);
    (words <= WORDS_MAX).then_some(words)
}

/// Device words that [`words_of_text`] holds for a text of `bytes` bytes with `len`
/// numbers of `nwords` words: the text, the spans, the words and signs.
pub fn text_in_words(bytes: usize, len: usize, nwords: usize) -> usize {
    bytes.div_ceil(4) + len * (nwords + 4) + 1
}

/// The numbers at `spans` of `text`, read on the device on stream `s` into `nwords`
/// words each ([`words_for_digits`] of the most digits), and the most bits of any; the
/// copy and the reading timed in `laps`.
pub fn words_of_text(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    (text, spans): (&str, &[Span]),
    nwords: usize,
    laps: &mut Laps,
) -> Result<(DeviceWords, u64)> {
    let len = spans.len();
    let mut packed = vec![0u32; 3 * len];
    packed.par_chunks_mut(3).zip(spans).for_each(|(w, sp)| {
        let digits = sp.digits as u32 | (sp.neg as u32) << 31;
        w.copy_from_slice(&[sp.at as u32, (sp.at >> 32) as u32, digits]);
    });
    let dtext = gpu.htod_bytes(s, text.as_bytes())?;
    let dspans = gpu.upload_on(s, &packed)?;
    gpu.sync_stream(s)?;
    laps.lap("text to the device");
    let mut words = gpu.alloc_on(s, nwords * len)?;
    let mut neg = gpu.alloc_on(s, len)?;
    let mut bits = gpu.zeros_on(s, 1)?;
    let bufs = (&mut words, &mut neg, &mut bits);
    launch::launch_decimal_words(gpu, s, bufs, (&dtext, &dspans), (len, nwords))?;
    let most = gpu.download_on(s, &bits, 1)?[0] as u64;
    laps.lap("digits to words on the device");
    let w = DeviceWords {
        words,
        neg,
        nwords,
        len,
    };
    Ok((w, most))
}

/// Chunks a number over the range of `t`, when its text may be made on the device.
pub fn text_chunks(t: &MrcTables) -> Option<usize> {
    let nchunks = launch::chunks_for(t.limbs);
    (nchunks <= TEXT_MAX_CHUNKS).then_some(nchunks)
}

/// Device words that [`text_of_digits`] needs for `len` numbers of `nchunks` chunks
/// besides the digits and flags: the chunks, lengths, offsets and the text.
pub fn text_words(len: usize, nchunks: usize) -> usize {
    len * (nchunks + 3) + (len * (9 * nchunks + 2)).div_ceil(4)
}

/// The text of `len` numbers given by their digits over the range of `t` (`range`,
/// `flags` holding their residues modulo the redundant `q`): `prefix`, then the numbers,
/// `cols` a line. [`Error::OutOfRange`] (with `range_bits`) for the first number whose
/// redundant residue disagrees. Its stages timed in `laps`.
#[allow(clippy::too_many_arguments)]
pub fn text_of_digits(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    digits: &CudaSlice<u32>,
    flags: &mut CudaSlice<u32>,
    (t, range, q): (&MrcTables, &[Modulus], Modulus),
    (len, cols): (usize, usize),
    (prefix, range_bits): (&str, u64),
    laps: &mut Laps,
) -> Result<String> {
    let nchunks = text_chunks(t).unwrap_or(TEXT_MAX_CHUNKS + 1);
    if nchunks > TEXT_MAX_CHUNKS || len > u32::MAX as usize || cols == 0 {
        return Err(Error::Internal(format!(
            "text on the device of {len} numbers of {nchunks} chunks, {cols} a line"
        )));
    }
    let mut chunks = gpu.alloc_on(s, nchunks * len)?;
    let mut lens = gpu.alloc_on(s, len)?;
    let mut out = Chunks {
        chunks: &mut chunks,
        lens: &mut lens,
        flags,
        nchunks,
    };
    let tables = (t, range);
    launch::launch_digits_decimal(gpu, s, out.reborrow(), digits, tables, q, len)?;
    let host_flags = gpu.download_on(s, out.flags, len)?;
    if let Some(index) = host_flags.par_iter().position_first(|&f| f == OUT_OF_RANGE) {
        return Err(Error::OutOfRange { index, range_bits });
    }
    let host_lens = gpu.download_on(s, out.lens, len)?;
    laps.lap("decimal chunks on the device");
    // Each number's first byte in the text, two words each (`u64`).
    let mut offsets = Vec::with_capacity(2 * len);
    let mut at = 0u64;
    for &n in &host_lens {
        offsets.extend([at as u32, (at >> 32) as u32]);
        at += n as u64 + 1;
    }
    let bytes = at as usize;
    let doffsets = gpu.upload_on(s, &offsets)?;
    let mut text = gpu.alloc_on(s, bytes.div_ceil(4))?;
    launch::launch_decimal_text(gpu, s, (&mut text, bytes), &out, &doffsets, (len, cols))?;
    gpu.sync_stream(s)?;
    laps.lap("text on the device");
    // Zeroed pages from the system, touched first by the copy's cores.
    let mut host = vec![0u8; prefix.len() + bytes];
    host[..prefix.len()].copy_from_slice(prefix.as_bytes());
    gpu.dtoh_bytes(s, &text, &mut host[prefix.len()..])?;
    if !host.par_chunks(1 << 20).all(|c| c.is_ascii()) {
        return Err(Error::Internal("the device's text is not ASCII".into()));
    }
    laps.lap("text back");
    // SAFETY: every byte was just checked to be ASCII, so the whole is UTF-8.
    Ok(unsafe { String::from_utf8_unchecked(host) })
}
