//! Factorizations of a few large matrices by panel inverses, for the whole GPU on one
//! prime or a few: per panel of `b` columns, `rns_block_inverse` inverts the diagonal
//! block (one thread block per channel, in shared memory), and the rest is two products
//! on the tensor cores (small moduli): `R = A11⁻¹ · A12` in place of the panel's rows,
//! then `A22 −= A21 · R` for the rows below it (LU, for determinants) or for every
//! other row (Gauss–Jordan, for solves and inverses). Rows never move: a channel whose
//! diagonal block is singular stops with determinant 0, and the caller factors it
//! another way (it may be singular itself).

use super::matmul::small_moduli_scratch_words;
use super::{grid_limit, launch, need, Matmul, View, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::small_results_fit;
use rns_core::ozaki::moduli_for;
use std::sync::Arc;

/// Threads of `rns_block_inverse`.
const INVERSE_THREADS: u32 = 1024;

/// Dynamic shared memory of `rns_block_inverse` for a `b × b` block.
fn inverse_smem_bytes(b: usize) -> usize {
    4 * (b * b + 4 * b + 2)
}

/// Whether `rns_block_inverse`'s `w × w` block fits one block's shared memory.
pub fn block_inverse_fits(gpu: &Gpu, w: usize) -> bool {
    inverse_smem_bytes(w) <= gpu.shared_memory()
}

/// The columns per panel of a factorization by panel inverses of `channels` matrices
/// `n × cols` (LU, or with `jordan` Gauss–Jordan), or `None` when it does not apply:
/// as the config says ([`crate::backend::gpu::GpuConfig::inverse_panel_for`]), the
/// panel narrowed to what one block's shared memory holds, and only where every
/// product fits the kernels' grid and indices.
pub fn inverse_panel(
    gpu: &Gpu,
    (n, cols): (usize, usize),
    channels: usize,
    jordan: bool,
) -> Option<usize> {
    let mut b = gpu
        .config()
        .inverse_panel_for((n, cols), jordan, channels)?
        .min(n);
    while b > 1 && inverse_smem_bytes(b) > gpu.shared_memory() {
        b /= 2;
    }
    let count = moduli_for(b)?;
    let fits = cols >= n
        && n > 0
        && inverse_smem_bytes(b) <= gpu.shared_memory()
        && channels > 0
        && channels.saturating_mul(count) <= GRID_YZ
        && small_results_fit(n, cols);
    fits.then_some(b)
}

/// Device words per channel that a factorization by panels of `b` columns of
/// `n × cols` matrices allocates beyond the matrices: the block inverse, and the
/// largest product's planes and small residues (the first update of the rows below,
/// or with `jordan` of all other rows, as large).
pub fn inverse_panels_scratch_words(b: usize, (n, cols): (usize, usize)) -> usize {
    let (m, p) = (n.saturating_sub(b).max(b), cols.saturating_sub(b).max(1));
    b * b + small_moduli_scratch_words((m, b, p), moduli_for(b).unwrap_or(1))
}

/// Factors each channel's `n × cols` matrix in `mats` (overwritten) by panels of `b`
/// columns ([`inverse_panel`]): LU, or with `jordan` Gauss–Jordan, so that where every
/// panel's diagonal block is invertible modulo the channel's prime, `dets[c]` is the
/// determinant of the first `n` columns and (with `jordan`) columns `n..cols` hold
/// `A⁻¹ · B`; elsewhere `dets[c]` is 0 and the matrix is left part-way. Columns
/// `0..n` are left as scratch.
#[allow(clippy::too_many_arguments)]
pub fn launch_inverse_panels(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (n, cols, channels): (usize, usize, usize),
    b: usize,
    jordan: bool,
    dets: &mut CudaSlice<u32>,
    mats: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let size = n * cols;
    need("panel matrices", mats, channels * size)?;
    need("determinants", dets, channels)?;
    need("moduli", moduli, channels * MODULUS_WORDS)?;
    let count = moduli_for(b).unwrap_or(1);
    let mut inverse = gpu.alloc_on(stream, channels * b * b)?;
    let mut k0 = 0;
    while k0 < n {
        let k1 = (k0 + b).min(n);
        let w = k1 - k0;
        launch_block_inverse(
            gpu,
            stream,
            (n, cols, channels),
            (k0, k0, w),
            (dets, &mut inverse, BlockOut::packed(w, b * b)),
            mats,
            moduli,
        )?;
        if cols > k1 {
            // The panel's rows right of it, along the columns.
            let r = View::new(size, k0 * cols + k1, 1, cols);
            let out = View::new(size, k0 * cols + k1, cols, 1);
            let shape = Matmul {
                n: w,
                k: w,
                p: cols - k1,
                channels,
            };
            let ops = (&inverse, &mut *mats, moduli, count);
            panel_product(
                gpu,
                stream,
                shape,
                (false, View::new(b * b, 0, w, 1)),
                (None, r),
                ops,
                (out, false),
            )?;
            let above = if jordan { 0..k0 } else { 0..0 };
            for rows in [k1..n, above] {
                if rows.is_empty() {
                    continue;
                }
                let shape = Matmul {
                    n: rows.len(),
                    ..shape
                };
                let lhs = View::new(size, rows.start * cols + k0, cols, 1);
                let out = View::new(size, rows.start * cols + k1, cols, 1);
                let ops = (&inverse, &mut *mats, moduli, count);
                panel_product(gpu, stream, shape, (true, lhs), (None, r), ops, (out, true))?;
            }
        }
        k0 = k1;
    }
    Ok(())
}

/// `out = lhs · R` (or with `subtract`, `out −= lhs · R`) for every channel, by `count`
/// small moduli: `R` the view `r` into `r_from` (`None`: into `mats`), `lhs` a view into
/// `mats` (`from_mats`) or into the block inverses, `out` a view into `mats`. The planes
/// are copies, so `out` may overlap the operands.
pub fn panel_product(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    shape: Matmul,
    (from_mats, lhs): (bool, View),
    (r_from, r): (Option<&CudaSlice<u32>>, View),
    (inverse, mats, moduli, count): (&CudaSlice<u32>, &mut CudaSlice<u32>, &CudaSlice<u32>, usize),
    (out, subtract): (View, bool),
) -> Result<()> {
    let src = if from_mats { &*mats } else { inverse };
    let r_src = r_from.unwrap_or(&*mats);
    let operands = [(src, lhs), (r_src, r)];
    let planes = super::small_moduli_planes(gpu, stream, shape, operands, moduli, count)?;
    super::small_moduli_product(
        gpu,
        stream,
        shape,
        planes,
        (mats, out, subtract),
        moduli,
        count,
    )
}

/// Where [`launch_block_inverse`] writes: channel `c`'s inverse at `at + c·stride`,
/// `ld` words a row.
#[derive(Clone, Copy, Debug)]
pub struct BlockOut {
    /// Words before channel 0's inverse.
    pub at: usize,
    /// Words from one channel's inverse to the next.
    pub stride: usize,
    /// Words from one row of an inverse to the next.
    pub ld: usize,
}

impl BlockOut {
    /// `w × w` inverses packed one after another, `stride` words apart.
    pub fn packed(w: usize, stride: usize) -> BlockOut {
        BlockOut {
            at: 0,
            stride,
            ld: w,
        }
    }
}

/// `rns_block_inverse`: for each channel, the inverse of the `w × w` block at rows
/// `r0..r0 + w` and columns `k0..k0 + w` of its `n × cols` matrix in `mats` into
/// `inverse` where `out` says, and `dets[c]` multiplied by its determinant (0 when it
/// is singular; 1 before the first panel, `k0 = 0`).
#[allow(clippy::too_many_arguments)]
pub fn launch_block_inverse(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (n, cols, channels): (usize, usize, usize),
    (r0, k0, w): (usize, usize, usize),
    (dets, inverse, out): (&mut CudaSlice<u32>, &mut CudaSlice<u32>, BlockOut),
    mats: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("panel matrices", mats, channels * n * cols)?;
    let last = w.saturating_sub(1) * out.ld + w;
    need(
        "block inverses",
        inverse,
        out.at + channels.saturating_sub(1) * out.stride + last,
    )?;
    need("determinants", dets, channels)?;
    if w > out.ld
        || [out.at, out.stride, out.ld]
            .iter()
            .any(|&v| v > u32::MAX as usize)
    {
        return Err(crate::error::Error::Shape(format!(
            "a {w} × {w} block inverse written {} words a row from word {}",
            out.ld, out.at
        )));
    }
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("channels", channels, i32::MAX as usize)?, 1, 1),
        block_dim: (INVERSE_THREADS, 1, 1),
        shared_mem_bytes: inverse_smem_bytes(w) as u32,
    };
    let f = &gpu.kernels().block_inverse;
    let [nu, cu, r0u, k0u, wu, su, ld] = [n, cols, r0, k0, w, out.stride, out.ld].map(|v| v as u32);
    let mut dst = inverse.slice_mut(out.at..);
    launch!(gpu, stream, f, cfg, dets, &mut dst, mats, moduli, &nu, &cu, &r0u, &k0u, &wu, &su, &ld)
}
