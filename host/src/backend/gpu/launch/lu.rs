//! The determinant with its trailing updates on the tensor cores: per panel of
//! [`crate::backend::gpu::GpuConfig::det_panel`] columns, `rns_lu_panel` factors the panel and solves the rows right of it
//! (one block per channel), then `A22 −= L21 · U12` runs for every channel at once as a
//! product by small moduli ([`small_moduli_planes`](super::small_moduli_planes), [`small_moduli_product`](super::small_moduli_product)).
//! Chosen by [`crate::backend::gpu::GpuConfig::tensor_det_for`]; the fused `rns_det_blocked` otherwise.

use super::matmul::small_moduli_scratch_words;
use super::View;
use super::{grid_limit, launch, need, Det, Eliminate, Matmul, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::{small_results_fit, DET_SMEM_BYTES, MM_THREADS_SIDE};
use rns_core::ozaki::moduli_for;
use std::sync::Arc;

/// Small moduli of the trailing updates of panels of `panel` columns.
fn panel_moduli(panel: usize) -> usize {
    moduli_for(panel).unwrap_or(usize::MAX)
}

/// Whether determinants of `n × n` matrices over `channels` channels take the
/// tensor-core path: as the config says, and when every (channel, small modulus)
/// fits the product kernel's grid.
pub fn det_on_tensor_cores(gpu: &Gpu, n: usize, channels: usize) -> bool {
    gpu.config().tensor_det_for(n) && panels_fit(gpu, (n, n), channels)
}

/// Whether `channels` matrices `n × cols` factor by more than one panel, every
/// (channel, small modulus) fitting the product kernel's grid and every update's small
/// residues its indices.
fn panels_fit(gpu: &Gpu, (n, cols): (usize, usize), channels: usize) -> bool {
    let panel = gpu.config().det_panel(n);
    n > panel
        && cols >= n
        && channels.saturating_mul(panel_moduli(panel)) <= GRID_YZ
        && small_results_fit(n, cols)
}

/// Device words of scratch per channel that a determinant of `n × n` matrices
/// allocates beyond its matrices: on the tensor-core path, the first (largest)
/// trailing update's planes and small residues; none on the fused kernel.
pub fn det_scratch_words(gpu: &Gpu, n: usize) -> usize {
    if !gpu.config().tensor_det_for(n) || n <= gpu.config().det_panel(n) {
        return 0;
    }
    lu_scratch_words(gpu, n, n)
}

/// Whether the Gauss–Jordan elimination of `n × cols` matrices (`cols ≥ n`, pivots
/// in the first `n` columns) over `channels` channels takes the blocked path with
/// the tensor cores ([`launch_gauss_jordan_tensor`]): as the config says
/// ([`crate::backend::gpu::GpuConfig::tensor_gauss_jordan_for`]), and when the panels fit.
pub fn gauss_jordan_on_tensor_cores(gpu: &Gpu, n: usize, cols: usize, channels: usize) -> bool {
    gpu.config().tensor_gauss_jordan_for(n) && panels_fit(gpu, (n, cols), channels)
}

/// Device words of scratch per channel of a blocked factorization of `n × cols`
/// matrices on the tensor cores: the first (largest) trailing update's planes and
/// small residues.
pub fn lu_scratch_words(gpu: &Gpu, n: usize, cols: usize) -> usize {
    let panel = gpu.config().det_panel(n);
    if n <= panel {
        return 0;
    }
    small_moduli_scratch_words((n - panel, panel, cols - panel), panel_moduli(panel))
}

/// The determinant modulo each channel of `mats` (`s.channels` matrices `s.n × s.n`,
/// overwritten) into `dets`, by panels with the trailing updates on the tensor cores.
/// Buffers as for [`launch_det`](super::launch_det), checked by it.
pub fn launch_det_tensor(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Det,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    lu_tensor(
        gpu,
        stream,
        (s.n, s.n, s.channels),
        false,
        dets,
        mats,
        moduli,
    )
}

/// Gauss–Jordan elimination of each channel's `s.rows × s.cols` matrix in `mats`
/// (overwritten; `s.pivot_cols = s.rows`) by panels, the trailing updates above and
/// below each panel on the tensor cores: where the first `rows` columns are
/// non-singular modulo the channel's prime, the columns right of them become
/// `A⁻¹ · B` and `dets` their determinant; elsewhere `dets` is 0 and the matrix is
/// left part-way (to be eliminated again by `rns_eliminate`). The columns of `A`
/// are left as scratch.
pub fn launch_gauss_jordan_tensor(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Eliminate,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    if s.pivot_cols != s.rows || s.cols < s.rows || !s.jordan {
        return Err(Error::Internal(
            "a blocked Gauss–Jordan elimination needs square pivot columns".into(),
        ));
    }
    need("elimination matrices", mats, s.channels * s.rows * s.cols)?;
    need("determinants", dets, s.channels)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    lu_tensor(
        gpu,
        stream,
        (s.rows, s.cols, s.channels),
        true,
        dets,
        mats,
        moduli,
    )
}

/// The blocked factorization of `channels` matrices `n × cols` by panels of
/// [`crate::backend::gpu::GpuConfig::det_panel`] columns: LU for determinants, or Gauss–Jordan
/// (`jordan`: the panel's rows solved by `U11` too, and the rows above it updated).
#[allow(clippy::too_many_arguments)]
fn lu_tensor(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (n, cols, channels): (usize, usize, usize),
    jordan: bool,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let panel = gpu.config().det_panel(n);
    let (size, count) = (n * cols, panel_moduli(panel));
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", channels, i32::MAX as usize)?, 1, 1),
        block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
        shared_mem_bytes: DET_SMEM_BYTES,
    };
    let k = gpu.kernels();
    // `mats −= lhs · rhs` for `rows` rows from row `r0`, columns `k1..cols`.
    let update = |mats: &mut CudaSlice<u32>, (r0, rows): (usize, usize), lhs: View, k0, k1| {
        let shape = Matmul {
            n: rows,
            k: k1 - k0,
            p: cols - k1,
            channels,
        };
        // The panel's rows right of it, along the columns.
        let rhs = View::new(size, k0 * cols + k1, 1, cols);
        let planes = super::small_moduli_planes(
            gpu,
            stream,
            shape,
            [(&*mats, lhs), (&*mats, rhs)],
            moduli,
            count,
        )?;
        let out = View::new(size, r0 * cols + k1, cols, 1);
        super::small_moduli_product(gpu, stream, shape, planes, (mats, out, true), moduli, count)
    };
    let mut k0 = 0;
    while k0 < n {
        let k1 = (k0 + panel).min(n);
        let [nu, cu, k0u, k1u] = [n, cols, k0, k1].map(|v| v as u32);
        for f in [&k.lu_panel, &k.lu_rows] {
            launch!(gpu, stream, f, cfg, &mut *dets, &mut *mats, moduli, &nu, &cu, &k0u, &k1u)?;
        }
        if cols > k1 && k1 < n {
            // Below: L21 (rows k1.., columns k0..k1) by U12.
            update(
                mats,
                (k1, n - k1),
                View::new(size, k1 * cols + k0, cols, 1),
                k0,
                k1,
            )?;
        }
        if jordan {
            let f = &k.lu_upper;
            launch!(gpu, stream, f, cfg, &mut *dets, &mut *mats, moduli, &nu, &cu, &k0u, &k1u)?;
            if cols > k1 && k0 > 0 {
                // Above: the rows before the panel, in its columns, by R = U11⁻¹ · U12.
                update(mats, (0, k0), View::new(size, k0, cols, 1), k0, k1)?;
            }
        }
        k0 = k1;
    }
    Ok(())
}
