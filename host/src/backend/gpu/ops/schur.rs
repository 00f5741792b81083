//! Determinants of a few large matrices (one per prime: `det A / d` in Dixon's
//! determinant) by Schur complements, so that the few primes have the whole GPU: a strip
//! of rows `[M11 | M12]` of the active matrix `M` goes through Gauss–Jordan with its rows
//! in shared memory (`rns_gauss_jordan`, one cooperative launch for every prime), which
//! leaves `M11⁻¹·M12` in place of `M12` and gives `det M11`; then `M22 −= M21·M11⁻¹·M12`
//! on the tensor cores (a product by small moduli), and that complement is the next
//! active matrix, until it fits in shared memory whole and is eliminated forward. As
//! `det M = det M11 · det(M22 − M21·M11⁻¹·M12)`, the determinant is the product of the
//! strips' pivots and the last elimination's. A prime modulo which an `M11` needs a row
//! swap (a zero pivot) is left to the caller, as the elimination kernels' are.

use crate::backend::gpu::launch;
use crate::backend::gpu::launch::Matmul;
use crate::backend::gpu::launch::View;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::ozaki::moduli_for;
use rns_core::Modulus;
use std::sync::Arc;

/// Rows of a strip at most: the inner dimension of its complement's product, which the
/// tensor cores want long, against the strip's Gauss–Jordan work, `rows² · cols`.
const STRIP_ROWS: usize = 256;

/// Rows of a strip at least: below, the products' fixed costs outweigh their work.
const STRIP_MIN: usize = 32;

/// The strips' heights for determinants of `channels` matrices `n × n` by Schur
/// complements, when that applies: the complements' products run on the tensor cores
/// (as the config says), each strip's rows fit in shared memory spread over the
/// multiprocessors, and so does the complement left after the last strip. `None`
/// when the whole matrices fit already, or a strip would be too thin.
pub(crate) fn schur_strips(gpu: &Gpu, channels: usize, n: usize) -> Option<Vec<usize>> {
    let blocks = gpu.multiprocessors().checked_div(channels)?;
    let (mut strips, mut m) = (Vec::new(), n);
    while launch::rows_layout(gpu, channels, m, m).is_none() {
        // A block's shared memory: its rows and two pivot rows of `m` words, 4 more.
        let per_block = (gpu.shared_memory() / 4).checked_sub(4)? / m;
        let h = (per_block.checked_sub(2)? * blocks).min(STRIP_ROWS);
        let first = strips.is_empty();
        if h < STRIP_MIN || h >= m || (first && !gpu.config().tensor_cores_for(m - h, h, m - h)) {
            return None;
        }
        launch::rows_layout(gpu, channels, h, m)?;
        moduli_for(h)?;
        strips.push(h);
        m -= h;
    }
    (!strips.is_empty()).then_some(strips)
}

/// The determinant modulo each of `moduli` of its `n × n` matrix in `mats` (device
/// words, channel-major, overwritten; `dm` the moduli's) by Schur complements of the
/// heights `strips` ([`schur_strips`]). Per channel: the determinant, and
/// whether it is one (`false`: a strip or the last elimination met a zero pivot, a
/// row swap is needed or the matrix is singular; the caller decides).
pub(crate) fn dets_by_schur(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &mut CudaSlice<u32>,
    dm: &CudaSlice<u32>,
    moduli: &[Modulus],
    (n, strips): (usize, &[usize]),
) -> Result<Vec<(u32, bool)>> {
    let (channels, nn) = (moduli.len(), n * n);
    let mut dets = vec![(1u32, true); channels];
    let unplanned = || Error::Internal("a strip of the Schur complements does not fit".into());
    // Folds one elimination (per channel: product of pivots, step stopped at) in.
    let mut fold = |done: Vec<(u32, usize)>, rows: usize| {
        for ((d, m), (det, stopped)) in dets.iter_mut().zip(moduli).zip(done) {
            *d = (m.mul(d.0, det), d.1 && stopped >= rows);
        }
    };
    let mut k = 0;
    for &h in strips {
        let m = n - k;
        let layout = launch::rows_layout(gpu, channels, h, m).ok_or_else(unplanned)?;
        let strip = View::new(nn, k * n + k, n, 1);
        fold(
            launch::eliminate_rows(gpu, stream, (mats, strip), dm, moduli, (h, m), true, layout)?,
            h,
        );
        // M22 −= M21 · T, T = M11⁻¹·M12 now in the strip right of M11.
        let rest = m - h;
        let shape = Matmul {
            n: rest,
            k: h,
            p: rest,
            channels,
        };
        let m21 = View::new(nn, (k + h) * n + k, n, 1);
        let t = View::new(nn, k * n + k + h, 1, n);
        let m22 = View::new(nn, (k + h) * n + k + h, n, 1);
        let count = moduli_for(h).ok_or_else(unplanned)?;
        let planes = launch::small_moduli_planes(
            gpu,
            stream,
            shape,
            [(&*mats, m21), (&*mats, t)],
            dm,
            count,
        )?;
        launch::small_moduli_product(
            gpu,
            stream,
            shape,
            planes,
            (&mut *mats, m22, true),
            dm,
            count,
        )?;
        k += h;
    }
    let m = n - k;
    let layout = launch::rows_layout(gpu, channels, m, m).ok_or_else(unplanned)?;
    let last = View::new(nn, k * n + k, n, 1);
    fold(
        launch::eliminate_rows(gpu, stream, (mats, last), dm, moduli, (m, m), false, layout)?,
        m,
    );
    Ok(dets)
}
