//! The determinant with its trailing updates on the tensor cores: per panel of
//! [`super::GpuConfig::det_panel`] columns, `rns_lu_panel` factors the panel and solves the rows right of it
//! (one block per channel), then `A22 −= L21 · U12` runs for every channel at once as a
//! product by small moduli ([`Gpu::small_moduli_planes`], [`Gpu::small_moduli_product`]).
//! Chosen by [`super::GpuConfig::tensor_det_for`]; the fused `rns_det_blocked` otherwise.

use super::launch::{grid_limit, launch, Det, Matmul, GRID_YZ};
use super::matmul::View;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::{DET_SMEM_BYTES, MM_THREADS_SIDE, OZ_BK, OZ_BM};
use rns_core::ozaki::moduli_for;
use std::sync::Arc;

/// Small moduli of the trailing updates of panels of `panel` columns.
fn panel_moduli(panel: usize) -> usize {
    moduli_for(panel).unwrap_or(usize::MAX)
}

impl Gpu {
    /// Whether determinants of `n × n` matrices over `channels` channels take the
    /// tensor-core path: as the config says, and when every (channel, small modulus)
    /// fits the product kernel's grid.
    pub fn det_on_tensor_cores(&self, n: usize, channels: usize) -> bool {
        let panel = self.config().det_panel(n);
        n > panel
            && self.config().tensor_det_for(n)
            && channels.saturating_mul(panel_moduli(panel)) <= GRID_YZ
            && u32::try_from(n * n).is_ok()
    }

    /// Device words of scratch per channel that a determinant of `n × n` matrices
    /// allocates beyond its matrices: on the tensor-core path, the first (largest)
    /// trailing update's planes and small residues; none on the fused kernel.
    pub fn det_scratch_words(&self, n: usize) -> usize {
        let panel = self.config().det_panel(n);
        if !self.config().tensor_det_for(n) || n <= panel {
            return 0;
        }
        let m = n - panel;
        let planes = 2 * m.next_multiple_of(OZ_BM) * panel.next_multiple_of(OZ_BK);
        (panel_moduli(panel) * (planes + (m * m).next_multiple_of(4))).div_ceil(4) + 1
    }

    /// The determinant modulo each channel of `mats` (`s.channels` matrices `s.n × s.n`,
    /// overwritten) into `dets`, by panels with the trailing updates on the tensor cores.
    /// Buffers as for [`Gpu::launch_det`], checked by it.
    pub(crate) fn launch_det_tensor(
        &self,
        stream: &Arc<CudaStream>,
        s: Det,
        dets: &mut CudaSlice<u32>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        let panel = self.config().det_panel(s.n);
        let (n, nn, count) = (s.n, s.n * s.n, panel_moduli(panel));
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
            block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
            shared_mem_bytes: DET_SMEM_BYTES,
        };
        let mut k0 = 0;
        while k0 < n {
            let k1 = (k0 + panel).min(n);
            let [nu, k0u, k1u] = [n, k0, k1].map(|v| v as u32);
            for f in [&self.kernels().lu_panel, &self.kernels().lu_rows] {
                launch!(self, stream, f, cfg, &mut *dets, &mut *mats, moduli, &nu, &k0u, &k1u)?;
            }
            if k1 < n {
                let m = n - k1;
                let shape = Matmul {
                    n: m,
                    k: k1 - k0,
                    p: m,
                    channels: s.channels,
                };
                // L21 (rows k1.., columns k0..k1) by U12 (rows k0..k1, columns k1..),
                // subtracted from A22 (rows and columns k1..).
                let l21 = View::new(nn, k1 * n + k0, n, 1);
                let u12 = View::new(nn, k0 * n + k1, 1, n);
                let a22 = View::new(nn, k1 * n + k1, n, 1);
                let planes = self.small_moduli_planes(
                    stream,
                    shape,
                    [(&*mats, l21), (&*mats, u12)],
                    moduli,
                    count,
                )?;
                self.small_moduli_product(
                    stream,
                    shape,
                    planes,
                    (&mut *mats, a22, true),
                    moduli,
                    count,
                )?;
            }
            k0 = k1;
        }
        Ok(())
    }
}
