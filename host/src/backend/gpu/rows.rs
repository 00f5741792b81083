//! Elimination of a few matrices, one per prime, by the whole GPU: each block holds a
//! few rows of one matrix in shared memory (`rns_gauss_jordan`, one cooperative launch;
//! `device/src/kernels/gauss_jordan.rs`), without row swaps. Used for the inverse of
//! Dixon's lifting, few-prime determinants, and the strips of their Schur complements.

use super::matmul::View;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::Modulus;
use std::sync::Arc;

/// Threads per block of `rns_gauss_jordan`.
const GAUSS_JORDAN_THREADS: u32 = 512;

impl Gpu {
    /// `rns_gauss_jordan`'s rows per block and bytes of shared memory for `channels`
    /// matrices of `n` rows of `cols` words, when they fit: the multiprocessors shared
    /// among the channels, a block each at most.
    pub(super) fn rows_layout(
        &self,
        channels: usize,
        n: usize,
        cols: usize,
    ) -> Option<(usize, usize)> {
        let sms = self.multiprocessors();
        if channels == 0 || channels > sms {
            return None;
        }
        let rows = n.div_ceil(sms / channels).max(1);
        let bytes = 4 * ((rows + 2) * cols + 4);
        (bytes <= self.shared_memory()).then_some((rows, bytes))
    }

    /// Eliminates each of the `moduli.len()` matrices `n × cols` in `mats` (device
    /// words; where `at` says, its `x` the rows; `dm` the moduli's) without row swaps in
    /// one cooperative launch of `rns_gauss_jordan` (`layout` from [`Gpu::rows_layout`]):
    /// Gauss–Jordan when `jordan`, else forward. Per channel: the product of its pivots
    /// and the step it stopped at, a zero pivot (`n` when it did not).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn eliminate_rows(
        &self,
        stream: &Arc<CudaStream>,
        (mats, at): (&mut CudaSlice<u32>, View),
        dm: &CudaSlice<u32>,
        moduli: &[Modulus],
        (n, cols): (usize, usize),
        jordan: bool,
        (rows, smem): (usize, usize),
    ) -> Result<Vec<(u32, usize)>> {
        let (channels, blocks) = (moduli.len(), n.div_ceil(rows));
        let mut pivots = self.zeros_on(stream, 2 * channels * n * cols)?;
        let mut dets = self.alloc_on(stream, channels * blocks)?;
        let mut stop = self.upload_on(stream, &vec![n as u32; channels])?;
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, channels as u32, 1),
            block_dim: (GAUSS_JORDAN_THREADS, 1, 1),
            shared_mem_bytes: smem as u32,
        };
        let (nn, cc, rr, jo) = (n as u32, cols as u32, rows as u32, jordan as u32);
        let (size, offset, ld) = (at.channel as u64, at.offset as u64, at.stride_x as u32);
        let mut b = stream.launch_builder(&self.kernels().gauss_jordan);
        b.arg(&mut *mats)
            .arg(&mut pivots)
            .arg(&mut dets)
            .arg(&mut stop);
        b.arg(dm).arg(&size).arg(&offset).arg(&ld);
        b.arg(&nn).arg(&cc).arg(&rr).arg(&jo);
        self.launch_built_cooperative(b, cfg)?;
        let dets = self.download_on(stream, &dets, channels * blocks)?;
        let stops = self.download_on(stream, &stop, channels)?;
        Ok(moduli
            .iter()
            .zip(dets.chunks(blocks))
            .zip(stops)
            .map(|((m, d), s)| (d.iter().fold(1, |p, &x| m.mul(p, x)), s as usize))
            .collect())
    }
}
