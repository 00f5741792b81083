//! Launches of the resultant kernels: univariate Euclid one thread or one block per
//! prime, Collins' resultants per (prime, point), and the interpolation.

use super::shapes::{Interpolate, Resultant, ResultantBlock, ResultantPoints};
use super::{grid_limit, launch, need, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;

/// The buffers of a univariate resultant launch: one output word per channel, `per`
/// coefficients per channel, the moduli.
fn need_resultant(
    channels: usize,
    per: usize,
    out: &CudaSlice<u32>,
    data: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("resultants", out, channels)?;
    need("resultant coefficients", data, per * channels)?;
    need("moduli", moduli, channels * MODULUS_WORDS)
}

/// Univariate resultants, one thread per channel, on coefficients interleaved across
/// channels (`data[j·channels + c]`: `f`'s `df + 1`, then `g`'s `dg + 1`; overwritten).
pub fn launch_resultant(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Resultant,
    out: &mut CudaSlice<u32>,
    data: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need_resultant(s.channels, s.df + s.dg + 2, out, data, moduli)?;
    let cfg = LaunchConfig {
        grid_dim: (
            s.channels.div_ceil(RESULTANT_THREADS as usize).max(1) as u32,
            1,
            1,
        ),
        block_dim: (RESULTANT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (c, df, dg) = (s.channels as u32, s.df as u32, s.dg as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().resultant,
        cfg,
        out,
        data,
        moduli,
        &c,
        &df,
        &dg
    )
}

/// Univariate resultants, one block per channel, on coefficients laid out per channel
/// (`data[c·(df + dg + 2) …]`: `f`'s `df + 1`, then `g`'s `dg + 1`; read only), with
/// [`resultant_block_scratch`] words of `scratch` per channel.
pub fn launch_resultant_block(
    gpu: &Gpu,
    stream: &CudaStream,
    s: ResultantBlock,
    out: &mut CudaSlice<u32>,
    data: &CudaSlice<u32>,
    scratch: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need_resultant(s.channels, s.df + s.dg + 2, out, data, moduli)?;
    let per = resultant_block_scratch(s.df, s.dg, s.shared);
    need("resultant scratch", scratch, per * s.channels)?;
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
        block_dim: (s.threads, 1, 1),
        shared_mem_bytes: if s.shared {
            (resultant_block_words(s.df, s.dg) * 4) as u32
        } else if s.wide {
            (RESULTANT_ROUND_WORDS * 4) as u32
        } else {
            0
        },
    };
    let (df, dg) = (s.df as u32, s.dg as u32);
    let k = gpu.kernels();
    let f = match (s.shared, s.wide) {
        (true, false) => &k.resultant_block,
        (false, false) => &k.resultant_block_global,
        (false, true) => &k.resultant_block_global_wide,
        (true, true) => {
            return Err(Error::Internal(
                "wide resultant rounds in shared memory".into(),
            ))
        }
    };
    launch!(gpu, stream, f, cfg, out, data, scratch, moduli, &df, &dg)
}

/// Whether the block-per-channel resultant kernel runs for degrees `df`, `dg`: the
/// larger reaches the configured degree (below it a pass would leave most threads idle).
pub fn resultant_in_blocks(gpu: &Gpu, df: usize, dg: usize) -> bool {
    df.max(dg) >= gpu.config().block_resultant_from()
}

/// The block-per-channel kernel's launch for `channels` channels of degrees `df`, `dg`:
/// its polynomials in shared memory when [`RESULTANT_SHARED_BLOCKS`] blocks' fit there,
/// else in global scratch, each with its measured best block size (unless configured),
/// its rounds 16 steps from the configured degree (in global memory; then at most
/// [`RESULTANT_WIDE_THREADS`] threads).
pub fn resultant_block_shape(gpu: &Gpu, channels: usize, df: usize, dg: usize) -> ResultantBlock {
    let shared = RESULTANT_SHARED_BLOCKS * resultant_block_words(df, dg) * 4 <= gpu.shared_memory();
    let threads = if shared {
        resultant_block_threads(df, dg)
    } else {
        resultant_block_threads_global(df, dg)
    };
    let wide = resultant_block_wide(shared, df, dg, gpu.config().resultant_wide_from());
    let threads = gpu.config().resultant_threads().unwrap_or(threads);
    ResultantBlock {
        channels,
        df,
        dg,
        threads: if wide {
            threads.min(RESULTANT_WIDE_THREADS)
        } else {
            threads
        },
        shared,
        wide,
    }
}

/// Whether the block-per-channel kernel takes rounds of 16 steps
/// (`rns_resultant_block_global_wide`): with its polynomials in global memory, from the
/// larger degree `from`.
pub fn resultant_block_wide(shared: bool, df: usize, dg: usize, from: usize) -> bool {
    !shared && df.max(dg) >= from
}

/// Collins' step for the piece `s.first … s.first + s.piece − 1` of every channel's
/// points: `vals` holds `channels × candidates` resultants (or `NO_POINT`), of which the
/// piece's are written; `work` is scratch for the piece; `coeffs` holds `shape.len()`
/// residues per channel.
pub fn launch_resultant_points(
    gpu: &Gpu,
    stream: &CudaStream,
    s: ResultantPoints,
    vals: &mut CudaSlice<u32>,
    work: &mut CudaSlice<u32>,
    coeffs: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let candidates = u32::try_from(s.candidates)
        .map_err(|_| Error::Shape(format!("{} candidate points", s.candidates)))?;
    if s.piece == 0 || s.first + s.piece > s.candidates {
        return Err(Error::Internal(format!(
            "points {}..{} of {}",
            s.first,
            s.first + s.piece,
            s.candidates
        )));
    }
    need("point values", vals, s.channels * s.candidates)?;
    need(
        "point scratch",
        work,
        s.channels * s.piece * s.shape.work_len(),
    )?;
    need("coefficients", coeffs, s.channels * s.shape.len())?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let cfg = LaunchConfig {
        grid_dim: (
            s.piece.div_ceil(RESULTANT_THREADS as usize) as u32,
            grid_limit("channels", s.channels, GRID_YZ)?,
            1,
        ),
        block_dim: (RESULTANT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (sh, first, piece) = (s.shape, s.first as u32, s.piece as u32);
    let f = &gpu.kernels().resultant_points;
    let (fy, fx, gy, gx) = (&sh.fy, &sh.fx, &sh.gy, &sh.gx);
    launch!(
        gpu,
        stream,
        f,
        cfg,
        vals,
        work,
        coeffs,
        moduli,
        fy,
        fx,
        gy,
        gx,
        &first,
        &piece,
        &candidates
    )
}

/// Whether the interpolation scratch of `n` coefficients from `candidates` points fits
/// a block's shared memory.
pub fn interpolation_in_shared(gpu: &Gpu, n: usize, candidates: usize) -> bool {
    interpolation_words(n, candidates) * 4 <= gpu.shared_memory()
}

/// Interpolation of `n` coefficients per channel from `vals` into `out`, the scratch
/// in shared memory when `s.shared`, else in `scratch`.
pub fn launch_interpolate(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Interpolate,
    out: &mut CudaSlice<u32>,
    vals: &CudaSlice<u32>,
    scratch: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let words = interpolation_words(s.n, s.candidates);
    need("coefficients", out, s.channels * s.n)?;
    need("point values", vals, s.channels * s.candidates)?;
    if !s.shared {
        need("interpolation scratch", scratch, s.channels * words)?;
    }
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
        block_dim: (INTERPOLATE_THREADS, 1, 1),
        shared_mem_bytes: if s.shared { (words * 4) as u32 } else { 0 },
    };
    let (c, n, sh) = (s.candidates as u32, s.n as u32, s.shared as u32);
    let f = &gpu.kernels().interpolate;
    launch!(gpu, stream, f, cfg, out, vals, scratch, moduli, &c, &n, &sh)
}
