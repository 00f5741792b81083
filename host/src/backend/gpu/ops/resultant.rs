//! Resultants modulo many primes on the device: univariate Euclid, one block or one
//! thread per channel; and Collins' steps of a bivariate resultant (reduce, one resultant per
//! (channel, point), interpolate), timed stage by stage.

use crate::backend::gpu::driver::memory::{moduli_words, ranges, MODULUS_WORDS};
use crate::backend::gpu::driver::pipeline::{HostIn, HostOut};
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{
    Digits, Interpolate, Reduce, Resultant, ResultantBlock, ResultantPoints,
};
use crate::backend::gpu::{Gpu, Packed};
use crate::error::{Error, Result};
use crate::num::layout;
use crate::num::words::Words;
use crate::timing::Laps;
use rns_core::launch::{interpolation_words, resultant_block_scratch, RESULTANT_THREADS};
use rns_core::poly::BiShape;
use rns_core::Modulus;
use std::sync::Arc;

/// Resultant modulo each channel of `f` (degree `df`) and `g` (degree `dg`): `data` is
/// channel-major, `df + 1` coefficients of `f` then `dg + 1` of `g` per channel. A
/// block per channel when [`resultant_in_blocks`](crate::backend::gpu::launch::resultant_in_blocks) says so, else a thread each.
pub fn resultant_per_channel(
    gpu: &Gpu,
    moduli: &[Modulus],
    df: usize,
    dg: usize,
    data: &[u32],
) -> Result<Vec<u32>> {
    let (per, channels) = (df + dg + 2, moduli.len());
    let blocks = launch::resultant_in_blocks(gpu, df, dg);
    let shape = launch::resultant_block_shape(gpu, channels, df, dg);
    // One thread per channel reads coefficient j of every channel together
    // (coalesced): a chunk of channels is then `per` rows of its channels. A block per
    // channel reads its channel's coefficients together, as they are.
    let interleaved;
    let (coeffs, scratch) = if blocks {
        let scratch = resultant_block_scratch(df, dg, shape.shared);
        (HostIn::new(data, 1, per), scratch)
    } else {
        interleaved = layout::to_channel_major(data, channels, per);
        (HostIn::new(&interleaved, per, 1), 0)
    };
    let mw = moduli_words(moduli);
    let mut out = vec![0u32; channels];
    let ins = [coeffs, HostIn::new(&mw, 1, MODULUS_WORDS)];
    let mut outs = [HostOut::new(&mut out, 1, 1)];
    gpu.stream_chunks(
        channels,
        &ins,
        &mut outs,
        scratch,
        usize::MAX,
        &mut |s, di, dout, r| {
            let (coeffs, moduli) = di.split_at_mut(1);
            let channels = r.len();
            if blocks {
                let mut work = gpu.alloc_on(s, channels * scratch)?;
                let shape = ResultantBlock { channels, ..shape };
                let (out, data) = (&mut dout[0], &coeffs[0]);
                launch::launch_resultant_block(gpu, s, shape, out, data, &mut work, &moduli[0])
            } else {
                let shape = Resultant { channels, df, dg };
                launch::launch_resultant(gpu, s, shape, &mut dout[0], &mut coeffs[0], &moduli[0])
            }
        },
    )?;
    Ok(out)
}

/// Resultant modulo each of `moduli` of the integer polynomials packed as for
/// [`reduce_words`](super::vectors::reduce_words) (`f`'s `df + 1` coefficients, then `g`'s `dg + 1`): with a
/// block per channel ([`resultant_in_blocks`](crate::backend::gpu::launch::resultant_in_blocks)) the residues are reduced on the
/// device and read there by the resultant kernel, in chunks of channels that fit the
/// memory budget (residues, the kernel's scratch, one word out), and only one word per
/// channel comes back; otherwise reduced on the device, downloaded and passed to
/// [`resultant_per_channel`].
pub fn resultant_words(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (words, neg, nwords): Packed,
    df: usize,
    dg: usize,
) -> Result<Vec<u32>> {
    let (len, channels) = (df + dg + 2, moduli.len());
    if !launch::resultant_in_blocks(gpu, df, dg) {
        let residues = super::vectors::reduce_words(gpu, moduli, words, neg, len, nwords)?;
        return resultant_per_channel(gpu, moduli, df, dg, &residues);
    }
    let shape = launch::resultant_block_shape(gpu, channels, df, dg);
    let scratch = resultant_block_scratch(df, dg, shape.shared);
    let per_channel = 4 * (len + scratch + 1 + MODULUS_WORDS);
    let fixed = 4 * len * (nwords + 1);
    let per = gpu.chunk_items(channels, per_channel, fixed, 1, i32::MAX as usize)?;
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    let (dw, dn) = (gpu.upload_on(s, words)?, gpu.upload_on(s, neg)?);
    let mut out = vec![0u32; channels];
    for chans in ranges(channels, per) {
        let k = chans.len();
        let dm = gpu.upload_on(s, &moduli_words(&moduli[chans.clone()]))?;
        let mut residues = gpu.alloc_on(s, k * len)?;
        let reduce = Reduce {
            len,
            channels: k,
            nwords,
        };
        launch::launch_reduce(gpu, s, reduce, &mut residues, &dw, &dn, &dm)?;
        let mut dout = gpu.alloc_on(s, k)?;
        let mut work = gpu.alloc_on(s, k * scratch)?;
        let shape = ResultantBlock {
            channels: k,
            ..shape
        };
        launch::launch_resultant_block(gpu, s, shape, &mut dout, &residues, &mut work, &dm)?;
        gpu.dtoh(s, &dout.slice(0..k), &mut out[chans])?;
    }
    gpu.sync_stream(s)?;
    Ok(out)
}

/// Collins' modular steps on the device (see `Backend::resultant_xy_per_channel`),
/// from integers packed as for [`reduce_words`](super::vectors::reduce_words): reduce, one resultant per
/// (channel, point), interpolate, in chunks of channels that fit the memory budget.
/// Returns `degree_bound + 1` coefficients per channel (page-locked when large) and,
/// with `with_digits`, their mixed-radix digits over the first `moduli.len() − 1`
/// (range) channels, channel-major, computed there too;
/// and the stage times (each stage ends with a synchronisation, so kernels and copies
/// are timed apart).
pub fn resultant_xy_words(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (words, neg, nwords): Packed,
    shape: BiShape,
    candidates: usize,
    with_digits: bool,
) -> Result<(Words, Option<Vec<u32>>, Laps)> {
    let mut laps = Laps::start();
    let (len, n, channels) = (shape.len(), shape.degree_bound() + 1, moduli.len());
    let scratch = interpolation_scratch(gpu, n, candidates);
    let shared = scratch.is_none();
    let scratch = scratch.unwrap_or(0);
    let plan = resultant_xy_plan(gpu, shape, candidates, nwords, channels)?;
    let (per, piece) = (plan.channels, plan.piece);
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    let sync = || gpu.sync_stream(s);
    let (dw, dn) = (gpu.upload_on(s, words)?, gpu.upload_on(s, neg)?);
    let mut all = gpu.alloc_on(s, channels * n)?;
    sync()?;
    laps.lap("upload");
    for chans in ranges(channels, per) {
        let (k, start) = (chans.len(), chans.start);
        let dm = gpu.upload_on(s, &moduli_words(&moduli[chans]))?;
        let mut dcoeffs = gpu.alloc_on(s, k * len)?;
        let reduce = Reduce {
            len,
            channels: k,
            nwords,
        };
        launch::launch_reduce(gpu, s, reduce, &mut dcoeffs, &dw, &dn, &dm)?;
        sync()?;
        laps.stage("reduce")?;
        let mut dvals = gpu.alloc_on(s, k * candidates)?;
        let mut dwork = gpu.alloc_on(s, k * piece * shape.work_len())?;
        for points in ranges(candidates, piece) {
            let points = ResultantPoints {
                shape,
                candidates,
                first: points.start,
                piece: points.len(),
                channels: k,
            };
            launch::launch_resultant_points(gpu, s, points, &mut dvals, &mut dwork, &dcoeffs, &dm)?;
        }
        sync()?;
        laps.stage("resultants mod p")?;
        drop(dwork);
        let mut dout = gpu.alloc_on(s, k * n)?;
        let mut dscratch = gpu.alloc_on(s, k * scratch)?;
        let interp = Interpolate {
            candidates,
            n,
            shared,
            channels: k,
        };
        launch::launch_interpolate(gpu, s, interp, &mut dout, &dvals, &mut dscratch, &dm)?;
        gpu.dtod(s, &dout, &mut all.slice_mut(start * n..(start + k) * n))?;
        sync()?;
        laps.lap("interpolation");
    }
    let residues = gpu.download_result(&all, channels * n)?;
    laps.lap("download");
    if !with_digits {
        return Ok((residues, None, laps));
    }
    // The digits of the n coefficients over the range channels, on the device.
    let range = channels - 1;
    let t = super::tables::mrc_tables(gpu, &moduli[..range])?;
    let mut digits = gpu.alloc_on(s, range * n)?;
    let shape = Digits { len: n, k: range };
    launch::launch_digits(gpu, s, shape, &mut digits, &all, None, &t.moduli, &t.table)?;
    let digits = gpu.download_words(&digits, range * n)?;
    laps.lap("digits (crt on the device)");
    Ok((residues, Some(digits), laps))
}

/// How Collins' steps go through device memory: channels at a time, and points at a
/// time within them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PointsPlan {
    /// Channels per chunk (at most the grid's 65 535).
    pub channels: usize,
    /// Points per launch, each with `work_len` words of scratch per channel.
    pub piece: usize,
}

/// How [`resultant_xy_words`] goes through the device's memory budget for `channels`
/// channels of integers of `nwords` words.
pub fn resultant_xy_plan(
    gpu: &Gpu,
    shape: BiShape,
    candidates: usize,
    nwords: usize,
    channels: usize,
) -> Result<PointsPlan> {
    let n = shape.degree_bound() + 1;
    let scratch = interpolation_scratch(gpu, n, candidates).unwrap_or(0);
    // All coefficients stay on the device (for the digits).
    let fixed = 4 * (shape.len() * (nwords + 1) + 2 * channels * n);
    plan_points(
        gpu.budget()?,
        fixed,
        shape,
        candidates,
        n + scratch,
        channels,
    )
}

/// The global scratch words per channel of the interpolation of `n` coefficients from
/// `candidates` points; `None` when it fits a block's shared memory instead.
fn interpolation_scratch(gpu: &Gpu, n: usize, candidates: usize) -> Option<usize> {
    (!launch::interpolation_in_shared(gpu, n, candidates))
        .then(|| interpolation_words(n, candidates))
}

/// The chunks of Collins' steps within `budget` bytes, `fixed` of them taken for the
/// whole operation: each channel of a chunk holds its coefficients, `candidates` values,
/// `extra` words (coefficients out, interpolation scratch) and the scratch of a piece of
/// points. Whole channels' points at once when at least one channel's fit; else one
/// channel and as many points a launch as fit (a block's worth at least); an error
/// naming the bytes when not even that fits.
pub fn plan_points(
    budget: usize,
    fixed: usize,
    shape: BiShape,
    candidates: usize,
    extra: usize,
    channels: usize,
) -> Result<PointsPlan> {
    let base = 4 * (shape.len() + candidates + extra + MODULUS_WORDS);
    let per_point = 4 * shape.work_len();
    let room = budget.saturating_sub(fixed);
    let least = fixed + base + per_point * candidates.min(RESULTANT_THREADS as usize);
    if least > budget {
        return Err(Error::GpuOutOfMemory {
            what: format!(
                "a bivariate resultant of degree bound {} in x modulo a prime needs {least} \
                 bytes of device memory; {budget} are available",
                candidates.saturating_sub(1)
            ),
            source: None,
        });
    }
    let whole = base + per_point * candidates;
    let per = (room / whole).clamp(1, channels.clamp(1, 65_535));
    let piece = ((room / per - base) / per_point).min(candidates).max(1);
    Ok(PointsPlan {
        channels: per,
        piece,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_go_in_pieces_when_a_channel_does_not_fit() {
        let shape = BiShape {
            fy: 9,
            fx: 10,
            gy: 9,
            gx: 10,
        };
        let (cand, extra) = (200, 1000);
        let base = 4 * (shape.len() + cand + extra + MODULUS_WORDS);
        let whole = base + 4 * shape.work_len() * cand;
        // Room for three whole channels and a half: three at once, all points.
        let plan = plan_points(100 + 3 * whole + whole / 2, 100, shape, cand, extra, 8).unwrap();
        assert_eq!(
            plan,
            PointsPlan {
                channels: 3,
                piece: cand
            }
        );
        // Exactly one channel's: all its points.
        let plan = plan_points(100 + whole, 100, shape, cand, extra, 8).unwrap();
        assert_eq!(
            plan,
            PointsPlan {
                channels: 1,
                piece: cand
            }
        );
        // One byte less: one channel, its points in pieces of what fits.
        let plan = plan_points(100 + whole - 1, 100, shape, cand, extra, 8).unwrap();
        assert_eq!(
            plan,
            PointsPlan {
                channels: 1,
                piece: cand - 1
            }
        );
        // A block's worth of points is the least; below it, an error with the bytes.
        let least = 100 + base + 4 * shape.work_len() * RESULTANT_THREADS as usize;
        let plan = plan_points(least, 100, shape, cand, extra, 8).unwrap();
        assert_eq!(plan.piece, RESULTANT_THREADS as usize);
        let e = plan_points(least - 1, 100, shape, cand, extra, 8).unwrap_err();
        assert!(matches!(e, Error::GpuOutOfMemory { .. }), "{e}");
        assert!(
            e.to_string().contains(&format!("needs {least} bytes")),
            "{e}"
        );
        // Never more channels than there are, nor than the grid takes.
        let plan = plan_points(usize::MAX / 2, 0, shape, cand, extra, 5).unwrap();
        assert_eq!(
            plan,
            PointsPlan {
                channels: 5,
                piece: cand
            }
        );
        let plan = plan_points(usize::MAX / 2, 0, shape, cand, extra, 100_000).unwrap();
        assert_eq!(plan.channels, 65_535);
    }
}
