//! The raw device layer for benchmarks, tests and the comparison runner (the `raw-gpu`
//! feature): device buffers (`cudarc`'s [`CudaSlice`]), the device's own stream, copies
//! each way, and the moduli's layout for the kernels. The kernel launches are
//! [`crate::backend::gpu::launch`] and the algorithms [`crate::backend::gpu::ops`],
//! public under the same feature.

pub use super::memory::{moduli_words, MODULUS_WORDS};
use super::Gpu;
use crate::error::Result;
pub use cudarc::driver::{CudaSlice, CudaStream};
use std::ops::Range;
use std::sync::Arc;

/// The device's own stream (raw launches and single-stream operations).
pub fn stream(gpu: &Gpu) -> &Arc<CudaStream> {
    gpu.stream()
}

/// A device buffer of `n` words (content unspecified; poisoned when the config asks).
pub fn alloc(gpu: &Gpu, n: usize) -> Result<CudaSlice<u32>> {
    gpu.alloc(n)
}

/// Host words copied to a new device buffer.
pub fn upload(gpu: &Gpu, x: &[u32]) -> Result<CudaSlice<u32>> {
    gpu.upload(x)
}

/// Host words copied to a new device buffer, through page-locked buffers when large.
pub fn upload_words(gpu: &Gpu, x: &[u32]) -> Result<CudaSlice<u32>> {
    gpu.upload_words(x)
}

/// The first `n` words of a device buffer, copied back.
pub fn download(gpu: &Gpu, x: &CudaSlice<u32>, n: usize) -> Result<Vec<u32>> {
    gpu.download(x, n)
}

/// The first `n` words of a device buffer, copied back through page-locked buffers when
/// large.
pub fn download_words(gpu: &Gpu, x: &CudaSlice<u32>, n: usize) -> Result<Vec<u32>> {
    gpu.download_words(x, n)
}

/// Words `range` of a device buffer, copied back on `stream`.
pub fn download_range(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    x: &CudaSlice<u32>,
    range: Range<usize>,
) -> Result<Vec<u32>> {
    gpu.download_range(stream, x, range)
}

/// `src` copied into `dst` on the device.
pub fn copy(gpu: &Gpu, dst: &mut CudaSlice<u32>, src: &CudaSlice<u32>) -> Result<()> {
    gpu.copy(dst, src)
}

/// The device words `src[at]` copied into `dst` on `stream`, through two page-locked
/// buffers when large.
pub fn dtoh_staged(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    src: (&CudaSlice<u32>, Range<usize>),
    dst: &mut [u32],
) -> Result<()> {
    gpu.dtoh_staged(stream, src, dst)
}
