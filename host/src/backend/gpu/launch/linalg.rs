//! Launches of the elimination kernels (`rns_eliminate`, one block per prime), the
//! blocked determinant (fused, or its trailing updates on the tensor cores: `super::lu`),
//! and the layout kernels around them (`rns_gather_columns`, `rns_transpose`).

use super::shapes::{Det, Eliminate, MatPoly};
use super::{grid_limit, launch, need, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::mat::modmat::MatrixPolynomial;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;
use std::sync::Arc;

/// Gaussian elimination, one block per channel, on `mats` (overwritten); `ranks` and
/// `dets` get one word per channel.
pub fn launch_eliminate(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Eliminate,
    ranks: &mut CudaSlice<u32>,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("elimination matrices", mats, s.channels * s.rows * s.cols)?;
    need("ranks", ranks, s.channels)?;
    need("determinants", dets, s.channels)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
        block_dim: (eliminate_threads(s.rows), 1, 1),
        shared_mem_bytes: ELIMINATE_SMEM_BYTES,
    };
    let (r, c, p, j) = (
        s.rows as u32,
        s.cols as u32,
        s.pivot_cols as u32,
        s.jordan as u32,
    );
    let f = &gpu.kernels().eliminate;
    launch!(gpu, stream, f, cfg, ranks, dets, mats, moduli, &r, &c, &p, &j)
}

/// The characteristic polynomial (`rns_charpoly`, `mats` overwritten by Hessenberg
/// forms) or the minimal polynomial (`rns_minpoly`, `mats` read), one block per
/// channel: `n + 1` coefficients per channel to `out`, with `s.kind.scratch_words(n)`
/// words of `scratch` per channel.
pub fn launch_matrix_polynomial(
    gpu: &Gpu,
    stream: &CudaStream,
    s: MatPoly,
    out: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    scratch: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let what = s.kind.name();
    need(what, mats, s.channels * s.n * s.n)?;
    need(what, out, s.channels * (s.n + 1))?;
    need(what, scratch, s.channels * s.kind.scratch_words(s.n))?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let k = gpu.kernels();
    let (f, threads) = match s.kind {
        MatrixPolynomial::Characteristic => (&k.charpoly, eliminate_threads(s.n)),
        MatrixPolynomial::Minimal => (&k.minpoly, MINPOLY_THREADS),
    };
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: ELIMINATE_SMEM_BYTES,
    };
    let n = s.n as u32;
    launch!(gpu, stream, f, cfg, out, mats, scratch, moduli, &n)
}

/// Blocked LU determinant on `mats` (overwritten): the fused kernel, one block per
/// channel, or with the trailing updates on the tensor cores
/// ([`det_on_tensor_cores`](super::det_on_tensor_cores)).
pub fn launch_det(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Det,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("determinant matrices", mats, s.channels * s.n * s.n)?;
    need("determinants", dets, s.channels)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    if super::det_on_tensor_cores(gpu, s.n, s.channels) {
        return super::launch_det_tensor(gpu, stream, s, dets, mats, moduli);
    }
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
        block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
        shared_mem_bytes: DET_SMEM_BYTES,
    };
    let n = s.n as u32;
    launch!(
        gpu,
        stream,
        &gpu.kernels().det_blocked,
        cfg,
        dets,
        mats,
        moduli,
        &n
    )
}

/// `dst[r·w + j] = src[r·cols + from + j]` for `r < lines`, `j < w = cols − from`:
/// the columns `from..` of a stack of `lines` rows (`rns_gather_columns`).
pub fn launch_gather_columns(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    dst: &mut CudaSlice<u32>,
    src: &CudaSlice<u32>,
    (lines, cols): (usize, usize),
    from: usize,
) -> Result<()> {
    let width = cols.saturating_sub(from);
    need("gathered columns", dst, lines * width)?;
    need("gather input", src, lines * cols)?;
    let len = lines * width;
    if len == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit(
                "gather blocks",
                len.div_ceil(256).min(65_535),
                i32::MAX as usize,
            )?,
            1,
            1,
        ),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let [n, c, f] = [len, cols, from].map(|v| v as u64);
    launch!(
        gpu,
        stream,
        &gpu.kernels().gather_columns,
        cfg,
        dst,
        src,
        &n,
        &c,
        &f
    )
}

/// `dst[r·cols + from + j] = src[r·w + j]` for `r < lines`, `j < w`: a stack of rows `w`
/// wide placed in columns `from..from + w` of rows `cols` wide (`rns_place_columns`),
/// or with `src = None` the identity's entries there (row `r`'s 1 in column `from + r`).
pub fn launch_place_columns(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    dst: &mut CudaSlice<u32>,
    src: Option<&CudaSlice<u32>>,
    (lines, cols): (usize, usize),
    (from, w): (usize, usize),
) -> Result<()> {
    let len = lines * w;
    if from + w > cols {
        return Err(Error::Internal(format!(
            "columns {from}..{} placed in rows {cols} wide",
            from + w
        )));
    }
    need("placed columns", dst, lines * cols)?;
    if let Some(src) = src {
        need("columns to place", src, len)?;
    }
    if len == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig {
        grid_dim: (len.div_ceil(256).min(65_535) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let [n, c, f, wu] = [len, cols, from, w].map(|v| v as u64);
    let f_ = &gpu.kernels().place_columns;
    let identity = u32::from(src.is_none());
    // The identity reads no source: a word stands in for it.
    let stand_in;
    let src = match src {
        Some(src) => src,
        None => {
            stand_in = gpu.alloc_on(stream, 1)?;
            &stand_in
        }
    };
    launch!(gpu, stream, f_, cfg, dst, src, &n, &c, &f, &wu, &identity)
}

/// `dst = srcᵀ` on `stream` for the `rows × cols` row-major words `src`
/// (`rns_transpose`): channel-major data to number-major.
pub fn launch_transpose(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    dst: &mut CudaSlice<u32>,
    src: &CudaSlice<u32>,
    (rows, cols): (usize, usize),
) -> Result<()> {
    need("transpose output", dst, rows * cols)?;
    need("transpose input", src, rows * cols)?;
    if rows * cols == 0 {
        return Ok(());
    }
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("transpose tiles", cols.div_ceil(32), i32::MAX as usize)?,
            // The kernel loops over the row tiles beyond the grid's limit.
            rows.div_ceil(32).clamp(1, GRID_YZ) as u32,
            1,
        ),
        block_dim: (32, 8, 1),
        shared_mem_bytes: 32 * 33 * 4,
    };
    let dims = (u32::try_from(rows), u32::try_from(cols));
    let (Ok(r), Ok(c)) = dims else {
        return Err(Error::Shape(format!(
            "a transpose of {rows} × {cols} words exceeds the kernel's 32-bit sizes"
        )));
    };
    launch!(gpu, stream, &gpu.kernels().transpose, cfg, dst, src, &r, &c)
}
