//! Launches of the batched modular matrix product: on the integer units
//! (`rns_matmul`) or on the INT8 tensor cores (`rns_imma_planes`, then
//! `rns_matmul_imma`), chosen by [`super::GpuConfig::tensor_cores_for`].

use super::launch::{grid_limit, launch, need, Matmul, GRID_YZ};
use super::memory::MODULUS_WORDS;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;
use std::sync::Arc;

impl Gpu {
    /// The batched product `out = a · b` per channel: on the integer units
    /// (`rns_matmul`), or on the INT8 tensor cores when the config asks for them
    /// ([`Gpu::launch_matmul_imma`]).
    pub fn launch_matmul(
        &self,
        stream: &Arc<CudaStream>,
        s: Matmul,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("product output", out, s.channels * s.n * s.p)?;
        need("product operand", a, s.channels * s.n * s.k)?;
        need("product operand", b, s.channels * s.k * s.p)?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        if self.config().tensor_cores_for(s.n, s.k, s.p) {
            return self.launch_matmul_imma(stream, s, out, a, b, moduli);
        }
        let tile = MM_TILE as usize;
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit("product tiles", s.p.div_ceil(tile), i32::MAX as usize)?,
                grid_limit("product tiles", s.n.div_ceil(tile), GRID_YZ)?,
                grid_limit("channels", s.channels, GRID_YZ)?,
            ),
            block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
            shared_mem_bytes: MATMUL_SMEM_BYTES,
        };
        let (n, k, p) = (s.n as u32, s.k as u32, s.p as u32);
        launch!(
            self,
            stream,
            &self.kernels().matmul,
            cfg,
            out,
            a,
            b,
            moduli,
            &n,
            &k,
            &p
        )
    }

    /// Device words of scratch per channel that [`Gpu::launch_matmul`] allocates for an
    /// `n × k` by `k × p` product: the padded byte planes of both operands on the tensor
    /// cores, none on the integer units.
    pub fn matmul_scratch_words(&self, n: usize, k: usize, p: usize) -> usize {
        if !self.config().tensor_cores_for(n, k, p) {
            return 0;
        }
        let k_pad = k.next_multiple_of(IMMA_BK);
        (n.next_multiple_of(IMMA_BM) + p.next_multiple_of(IMMA_BN)) * k_pad
    }

    /// The batched product on the INT8 tensor cores: both operands split into padded
    /// byte planes on `stream` (`rns_imma_planes`, scratch as large as the operands),
    /// then `rns_matmul_imma`. Buffers as for [`Gpu::launch_matmul`], checked by it.
    fn launch_matmul_imma(
        &self,
        stream: &Arc<CudaStream>,
        s: Matmul,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        let (n_pad, p_pad) = (s.n.next_multiple_of(IMMA_BM), s.p.next_multiple_of(IMMA_BN));
        let k_pad = s.k.next_multiple_of(IMMA_BK);
        let channels = grid_limit("channels", s.channels, GRID_YZ)?;
        let mut ap = self.alloc_on(stream, s.channels * n_pad * k_pad)?;
        let mut bp = self.alloc_on(stream, s.channels * p_pad * k_pad)?;
        // A's rows (stride k) and B's columns (stride 1), each along k.
        for (dst, src, xs, pad, sx, sk) in [
            (&mut ap, a, s.n, n_pad, s.k, 1),
            (&mut bp, b, s.p, p_pad, 1, s.p),
        ] {
            let quads = pad * k_pad / 4;
            let cfg = LaunchConfig {
                grid_dim: (
                    grid_limit("plane quads", quads.div_ceil(256), i32::MAX as usize)?,
                    1,
                    channels,
                ),
                block_dim: (256, 1, 1),
                shared_mem_bytes: 0,
            };
            let f = &self.kernels().imma_planes;
            let args = [xs, s.k, sx, sk, pad, k_pad].map(|v| v as u32);
            let [xs, ks, sx, sk, pad, kp] = args;
            launch!(self, stream, f, cfg, dst, src, &xs, &ks, &sx, &sk, &pad, &kp)?;
        }
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit("product tiles", p_pad / IMMA_BN, i32::MAX as usize)?,
                grid_limit("product tiles", n_pad / IMMA_BM, GRID_YZ)?,
                channels,
            ),
            block_dim: (IMMA_THREADS, 1, 1),
            shared_mem_bytes: IMMA_SMEM_BYTES,
        };
        let args = [s.n, s.p, k_pad, n_pad, p_pad].map(|v| v as u32);
        let [n, p, kp, np, pp] = args;
        let f = &self.kernels().matmul_imma;
        launch!(self, stream, f, cfg, out, &ap, &bp, moduli, &n, &p, &kp, &np, &pp)
    }
}
