//! Elimination of a few matrices, one per prime, by the whole GPU: each block holds a
//! few rows of one matrix in shared memory (`rns_gauss_jordan`, one cooperative launch;
//! `device/src/kernels/gauss_jordan.rs`) without row swaps; or one pivot per launch
//! (`rns_step_pivot`, `rns_step_update`), each step spread over the whole GPU. Used for
//! the inverse of Dixon's lifting, few-prime determinants, and the strips of their Schur
//! complements.
//!
//! The step kernels launch thousands of times: their buffers' device pointers are taken
//! once and passed as plain words, so that no launch records events.

use super::View;
use super::{grid_limit, need, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use rns_core::launch::RECURRENCE_CHUNK;
use rns_core::Modulus;
use std::sync::Arc;

/// Threads per block of `rns_gauss_jordan`.
const GAUSS_JORDAN_THREADS: u32 = 512;
/// Words of a channel's elimination state (`rns_step_pivot`): pivot row, determinant,
/// pivot inverse, singular flag.
pub(crate) const STATE_WORDS: usize = 4;
/// Threads of `rns_step_pivot`'s block (one per channel).
const PIVOT_THREADS: u32 = 256;
/// Rows covered by one block of `rns_step_update` (32 × 8 threads, four rows each).
const UPDATE_BLOCK_ROWS: usize = 32;

/// `rns_gauss_jordan`'s rows per block and bytes of shared memory for `channels`
/// matrices of `n` rows of `cols` words, when they fit: the multiprocessors shared
/// among the channels, a block each at most.
pub fn rows_layout(gpu: &Gpu, channels: usize, n: usize, cols: usize) -> Option<(usize, usize)> {
    let sms = gpu.multiprocessors();
    if channels == 0 || channels > sms {
        return None;
    }
    let rows = n.div_ceil(sms / channels).max(1);
    let bytes = 4 * ((rows + 2) * cols + 4);
    (bytes <= gpu.shared_memory()).then_some((rows, bytes))
}

/// Eliminates each of the `moduli.len()` matrices `n × cols` in `mats` (device
/// words; where `at` says, its `x` the rows; `dm` the moduli's) without row swaps in
/// one cooperative launch of `rns_gauss_jordan` (`layout` from [`rows_layout`]):
/// Gauss–Jordan when `jordan`, else forward. Per channel: the product of its pivots
/// and the step it stopped at, a zero pivot (`n` when it did not);
/// [`crate::Error::GpuStalled`] when a wait of the launch gave up.
#[allow(clippy::too_many_arguments)]
pub fn eliminate_rows(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (mats, at): (&mut CudaSlice<u32>, View),
    dm: &CudaSlice<u32>,
    moduli: &[Modulus],
    (n, cols): (usize, usize),
    jordan: bool,
    (rows, smem): (usize, usize),
) -> Result<Vec<(u32, usize)>> {
    let (channels, blocks) = (moduli.len(), n.div_ceil(rows));
    let mut pivots = gpu.zeros_on(stream, 2 * channels * n * cols)?;
    let mut dets = gpu.alloc_on(stream, channels * blocks)?;
    let mut stop = gpu.upload_on(stream, &vec![n as u32; channels])?;
    let cfg = LaunchConfig {
        grid_dim: (blocks as u32, channels as u32, 1),
        block_dim: (GAUSS_JORDAN_THREADS, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    let (nn, cc, rr, jo) = (n as u32, cols as u32, rows as u32, jordan as u32);
    let (size, offset, ld) = (at.channel as u64, at.offset as u64, at.stride_x as u32);
    let mut b = stream.launch_builder(&gpu.kernels().gauss_jordan);
    b.arg(&mut *mats)
        .arg(&mut pivots)
        .arg(&mut dets)
        .arg(&mut stop);
    b.arg(dm).arg(&size).arg(&offset).arg(&ld);
    b.arg(&nn).arg(&cc).arg(&rr).arg(&jo);
    let watch = gpu.launch_watch(stream, "the elimination (rns_gauss_jordan)")?;
    b.arg(watch.word()).arg(&watch.limit_ns);
    super::launch_built_cooperative(gpu, b, cfg)?;
    let dets = gpu.download_on(stream, &dets, channels * blocks)?;
    let stops = gpu.download_on(stream, &stop, channels)?;
    watch.check(gpu, stream)?;
    Ok(moduli
        .iter()
        .zip(dets.chunks(blocks))
        .zip(stops)
        .map(|((m, d), s)| (d.iter().fold(1, |p, &x| m.mul(p, x)), s as usize))
        .collect())
}

/// The launch of a pivot step (`rns_step_pivot`, `rns_rref_pivot`, `rns_hess_pivot`):
/// a block per channel of `z`.
fn pivot_config(z: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (z, 1, 1),
        block_dim: (PIVOT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The launch of a step's update over `strip` columns and `rows` rows of each of `z`
/// channels (`rns_step_update`, `rns_rref_update`, `rns_hess_rows`): 32 × 8 threads a
/// block, each block 32 columns and [`UPDATE_BLOCK_ROWS`] rows.
fn update_config(strip: usize, rows: usize, z: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            strip.div_ceil(32) as u32,
            rows.div_ceil(UPDATE_BLOCK_ROWS) as u32,
            z,
        ),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 0,
    }
}

/// Eliminates each of `channels` `rows × cols` matrices in `mats` (device words,
/// channel-major) one pivot column at a time over the first `rows` columns, the
/// whole grid on each step: Gauss–Jordan when `jordan`, else forward (for the
/// determinant). `from`: the first pivot step and every channel's determinant so far
/// (`(0, 1)` from the start). Returns each channel's state (`STATE_WORDS` words:
/// determinant at 1, singular flag at 3).
#[allow(clippy::too_many_arguments)]
pub fn eliminate_steps(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    channels: usize,
    (rows, cols): (usize, usize),
    jordan: bool,
    (from, det): (usize, u32),
) -> Result<Vec<u32>> {
    let z = grid_limit("primes", channels, GRID_YZ)?;
    grid_limit("row groups", rows.div_ceil(UPDATE_BLOCK_ROWS), GRID_YZ)?;
    let init: Vec<u32> = (0..channels).flat_map(|_| [0, det, 0, 0]).collect();
    let mut state = gpu.upload_on(stream, &init)?;
    {
        let (pm, _g1) = mats.device_ptr_mut(stream);
        let (ps, _g2) = state.device_ptr_mut(stream);
        let (pq, _g3) = moduli.device_ptr(stream);
        let (r, c, jo) = (rows as u32, cols as u32, jordan as u32);
        let pivot_cfg = pivot_config(z);
        for k in from..rows.min(cols) {
            let kk = k as u32;
            let mut b = stream.launch_builder(&gpu.kernels().step_pivot);
            b.arg(&pm).arg(&ps).arg(&pq).arg(&r).arg(&c).arg(&kk);
            super::launch_built(gpu, b, pivot_cfg)?;
            let (strip, below) = (cols - k - 1, if jordan { rows } else { rows - k - 1 });
            if strip == 0 || below == 0 {
                continue;
            }
            let cfg = update_config(strip, below, z);
            let mut b = stream.launch_builder(&gpu.kernels().step_update);
            b.arg(&pm)
                .arg(&ps)
                .arg(&pq)
                .arg(&r)
                .arg(&c)
                .arg(&kk)
                .arg(&jo);
            super::launch_built(gpu, b, cfg)?;
        }
    }
    gpu.download_on(stream, &state, channels * STATE_WORDS)
}

/// Words of a channel's state in [`rref_steps`] (`rns_rref_pivot`): the rank so far,
/// this step's pivot row, the pivot search's scratch.
pub const RREF_STATE_WORDS: usize = 4;

/// The reduced row echelon form of each of `channels` `rows × cols` matrices in `mats`
/// (device words, channel-major, overwritten), rank-revealing: one pivot column per pair
/// of launches over the whole grid (`rns_rref_pivot`, `rns_rref_update`; a column with
/// no pivot left is skipped), then the pivot columns as unit vectors (`rns_rref_units`).
/// Returns each channel's rank.
pub fn rref_steps(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    channels: usize,
    (rows, cols): (usize, usize),
) -> Result<Vec<usize>> {
    let z = grid_limit("primes", channels, GRID_YZ)?;
    grid_limit("row groups", rows.div_ceil(UPDATE_BLOCK_ROWS), GRID_YZ)?;
    need("echelon matrices", mats, channels * rows * cols)?;
    let mut state = gpu.upload_on(stream, &vec![0u32; channels * RREF_STATE_WORDS])?;
    let mut pivots = gpu.alloc_on(stream, channels * rows)?;
    {
        let (pm, _g1) = mats.device_ptr_mut(stream);
        let (ps, _g2) = state.device_ptr_mut(stream);
        let (pp, _g3) = pivots.device_ptr_mut(stream);
        let (pq, _g4) = moduli.device_ptr(stream);
        let (r, c) = (rows as u32, cols as u32);
        let pivot_cfg = pivot_config(z);
        for k in 0..cols {
            let kk = k as u32;
            let mut b = stream.launch_builder(&gpu.kernels().rref_pivot);
            b.arg(&pm)
                .arg(&ps)
                .arg(&pp)
                .arg(&pq)
                .arg(&r)
                .arg(&c)
                .arg(&kk);
            super::launch_built(gpu, b, pivot_cfg)?;
            let strip = cols - k - 1;
            if strip == 0 {
                continue;
            }
            let cfg = update_config(strip, rows, z);
            let mut b = stream.launch_builder(&gpu.kernels().rref_update);
            b.arg(&pm).arg(&ps).arg(&pq).arg(&r).arg(&c).arg(&kk);
            super::launch_built(gpu, b, cfg)?;
        }
        let cfg = LaunchConfig {
            grid_dim: (rows.div_ceil(256) as u32, 1, z),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&gpu.kernels().rref_units);
        b.arg(&pm).arg(&ps).arg(&pp).arg(&r).arg(&c);
        super::launch_built(gpu, b, cfg)?;
    }
    let state = gpu.download_on(stream, &state, channels * RREF_STATE_WORDS)?;
    Ok(state
        .chunks(RREF_STATE_WORDS)
        .map(|s| s[0] as usize)
        .collect())
}

/// Words of a channel's state in [`hessenberg_steps`] (`rns_hess_pivot`): a flag for a
/// column already reduced, the pivot search's scratch.
pub const HESS_STATE_WORDS: usize = 2;

/// Reduces each of `channels` `n × n` matrices in `mats` (device words, channel-major,
/// overwritten) to an upper Hessenberg matrix similar to it modulo its prime, the whole
/// grid on each column: `rns_hess_pivot` (a block per prime), `rns_hess_rows` (the row
/// updates, 32 × 32 tiles), `rns_hess_cols` (the column update, a warp per row).
pub fn hessenberg_steps(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    channels: usize,
    n: usize,
) -> Result<()> {
    let z = grid_limit("primes", channels, GRID_YZ)?;
    grid_limit("row groups", n.div_ceil(UPDATE_BLOCK_ROWS), GRID_YZ)?;
    need("Hessenberg matrices", mats, channels * n * n)?;
    let mut state = gpu.upload_on(stream, &vec![0u32; channels * HESS_STATE_WORDS])?;
    let mut u = gpu.alloc_on(stream, channels * n)?;
    let (pm, _g1) = mats.device_ptr_mut(stream);
    let (ps, _g2) = state.device_ptr_mut(stream);
    let (pu, _g3) = u.device_ptr_mut(stream);
    let (pq, _g4) = moduli.device_ptr(stream);
    let nn = n as u32;
    let pivot_cfg = pivot_config(z);
    let cols_cfg = LaunchConfig {
        grid_dim: (n.div_ceil(8) as u32, 1, z),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    for k in 0..n.saturating_sub(2) {
        let kk = k as u32;
        let mut b = stream.launch_builder(&gpu.kernels().hess_pivot);
        b.arg(&pm).arg(&pu).arg(&ps).arg(&pq).arg(&nn).arg(&kk);
        super::launch_built(gpu, b, pivot_cfg)?;
        let cfg = update_config(n - k - 1, n - k - 2, z);
        let mut b = stream.launch_builder(&gpu.kernels().hess_rows);
        b.arg(&pm).arg(&pu).arg(&ps).arg(&pq).arg(&nn).arg(&kk);
        super::launch_built(gpu, b, cfg)?;
        let mut b = stream.launch_builder(&gpu.kernels().hess_cols);
        b.arg(&pm).arg(&pu).arg(&ps).arg(&pq).arg(&nn).arg(&kk);
        super::launch_built(gpu, b, cols_cfg)?;
    }
    Ok(())
}

/// The characteristic polynomials of `channels` upper Hessenberg `n × n` matrices
/// (`mats`, from [`hessenberg_steps`]) by the recurrence of their leading blocks'
/// polynomials, each step over the whole grid: `rns_charpoly_sums` (the sums
/// `Σ c_i·p_i(d)` in chunks of `i`, into 64-bit words) and `rns_charpoly_next` (`p_{k+1}`
/// and the subdiagonal products for the next step). `n + 1` coefficients a channel,
/// constant first; and for each channel whether its Hessenberg form is unreduced (no
/// subdiagonal entry zero: the product of them all, which the recurrence keeps, is not),
/// so that `e_1, H·e_1, …` span the whole space and the minimal polynomial is the
/// characteristic one.
pub fn charpoly_recurrence_steps(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    channels: usize,
    n: usize,
) -> Result<(Vec<u32>, Vec<bool>)> {
    let z = grid_limit("primes", channels, GRID_YZ)?;
    need("Hessenberg matrices", mats, channels * n * n)?;
    need("moduli", moduli, channels * MODULUS_WORDS)?;
    if n == 0 {
        // The empty matrix's polynomial, 1, also its minimal one.
        return Ok((vec![1; channels], vec![true; channels]));
    }
    let tri = rns_core::charpoly::poly_offset(n + 1);
    // Zeroed; `rns_charpoly_next` writes each channel's `p_0 = 1` at step 0.
    let mut polys = gpu.zeros_on(stream, channels * tri)?;
    let mut acc = gpu.zeros_on(stream, 2 * channels * (n + 1))?;
    let mut t = gpu.zeros_on(stream, channels * n.max(1))?;
    let (pp, _g1) = polys.device_ptr_mut(stream);
    let (pa, _g2) = acc.device_ptr_mut(stream);
    let (pt, _g3) = t.device_ptr_mut(stream);
    let (pm, _g4) = mats.device_ptr(stream);
    let (pq, _g5) = moduli.device_ptr(stream);
    let nn = n as u32;
    let block = |x: usize, y: u32, zz: u32, smem: usize| LaunchConfig {
        grid_dim: (x.div_ceil(RECURRENCE_CHUNK).max(1) as u32, y, zz),
        block_dim: (RECURRENCE_CHUNK as u32, 1, 1),
        shared_mem_bytes: smem as u32,
    };
    for k in 0..n {
        let kk = k as u32;
        if k > 0 {
            let chunks = grid_limit("recurrence chunks", k.div_ceil(RECURRENCE_CHUNK), GRID_YZ)?;
            let cfg = block(k, chunks, z, 4 * RECURRENCE_CHUNK);
            let mut b = stream.launch_builder(&gpu.kernels().charpoly_sums);
            b.arg(&pa)
                .arg(&pp)
                .arg(&pm)
                .arg(&pt)
                .arg(&pq)
                .arg(&nn)
                .arg(&kk);
            super::launch_built(gpu, b, cfg)?;
        }
        let mut b = stream.launch_builder(&gpu.kernels().charpoly_next);
        b.arg(&pp)
            .arg(&pa)
            .arg(&pm)
            .arg(&pt)
            .arg(&pq)
            .arg(&nn)
            .arg(&kk);
        super::launch_built(gpu, b, block(k + 2, z, 1, 0))?;
    }
    drop((_g1, _g2, _g3, _g4, _g5));
    // Each channel's last polynomial ends its triangle: gathered, then one copy down.
    let mut last = gpu.alloc_on(stream, channels * (n + 1))?;
    let from = rns_core::charpoly::poly_offset(n);
    super::launch_gather_columns(gpu, stream, &mut last, &polys, (channels, tri), from)?;
    let out = gpu.download_on(stream, &last, channels * (n + 1))?;
    // After step n − 2, t[0] = Π_{j < n−1} h[j+1][j] (untouched for n = 1: no subdiagonal).
    let t = gpu.download_on(stream, &t, channels * n)?;
    let unreduced = (0..channels).map(|c| n == 1 || t[c * n] != 0).collect();
    Ok((out, unreduced))
}
