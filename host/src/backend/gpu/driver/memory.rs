//! Device memory: allocation (poisoned on request), the memory budget and the chunk
//! planner, and the moduli's layout for the kernels.

use super::device::cuda;
use super::fault::FaultSite;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut};
use rns_core::Modulus;
use std::ops::Range;

/// Flattens moduli into the `#[repr(C)]` layout of `rns_core::Modulus` (24 bytes:
/// `m, two32, two32_shoup, padding, invk`) as 32-bit words for the device.
#[cfg_attr(not(feature = "raw-gpu"), allow(unreachable_pub))]
pub fn moduli_words(moduli: &[Modulus]) -> Vec<u32> {
    const _: () = assert!(std::mem::size_of::<Modulus>() == 24);
    let mut w = Vec::with_capacity(moduli.len() * MODULUS_WORDS);
    for m in moduli {
        let bits = m.invk.to_bits();
        w.extend_from_slice(&[
            m.m,
            m.two32,
            m.two32_shoup,
            0,
            bits as u32,
            (bits >> 32) as u32,
        ]);
    }
    w
}

/// Words of one modulus on the device.
#[cfg_attr(not(feature = "raw-gpu"), allow(unreachable_pub))]
pub const MODULUS_WORDS: usize = 6;

impl Gpu {
    /// A device buffer of `n` words on `stream` (content unspecified: every kernel writes
    /// all of its output; filled with `0xFFFF_FFFF` when the config asks for poison).
    /// [`crate::Error::GpuStalled`] while the device is busy with stalled work (every
    /// operation allocates: it fails at once).
    pub(crate) fn alloc_on(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        n: usize,
    ) -> Result<CudaSlice<u32>> {
        self.check_usable()?;
        self.config().check_fault(FaultSite::Alloc)?;
        // SAFETY: u32 has no invalid bit patterns; callers overwrite before reading.
        let mut buf = unsafe { stream.alloc::<u32>(n.max(1)) }.map_err(cuda)?;
        if self.config().poison() {
            let (ptr, _sync) = buf.device_ptr_mut(stream);
            // SAFETY: ptr addresses the 4·n bytes just allocated.
            unsafe {
                cudarc::driver::result::memset_d8_async(ptr, 0xFF, 4 * n.max(1), stream.cu_stream())
            }
            .map_err(cuda)?;
        }
        Ok(buf)
    }

    /// [`Gpu::alloc_on`] the device's own stream.
    pub(crate) fn alloc(&self, n: usize) -> Result<CudaSlice<u32>> {
        self.alloc_on(self.stream(), n)
    }

    /// `n` zero words on `stream`.
    pub(crate) fn zeros_on(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        n: usize,
    ) -> Result<CudaSlice<u32>> {
        let mut buf = self.alloc_on(stream, n)?;
        stream.memset_zeros(&mut buf).map_err(cuda)?;
        Ok(buf)
    }

    /// Zeroes words `range` of `buf` on `stream`.
    pub(crate) fn zero_range(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        buf: &mut CudaSlice<u32>,
        range: Range<usize>,
    ) -> Result<()> {
        stream.memset_zeros(&mut buf.slice_mut(range)).map_err(cuda)
    }

    /// Bytes one operation may place on the device: the cap of
    /// [`crate::backend::gpu::GpuConfig::set_memory_limit`] (or `RNS_GPU_MEM_LIMIT`), else 70% of the
    /// free memory, counting as free what the memory pool keeps from earlier operations.
    pub fn budget(&self) -> Result<usize> {
        if let Some(cap) = self.config().memory_limit() {
            return Ok(cap);
        }
        let (free, _) = self.context().mem_get_info().map_err(cuda)?;
        let idle = super::device::pool_idle_bytes(self.context())?;
        Ok((free + idle) / 10 * 7)
    }

    /// Items per chunk when `len` items of `bytes_per_item` device bytes each (plus
    /// `fixed` bytes for the whole operation) must fit the budget `copies` times over
    /// (once per stream of a pipeline), and at most `max_items` per chunk.
    pub(crate) fn chunk_items(
        &self,
        len: usize,
        bytes_per_item: usize,
        fixed: usize,
        copies: usize,
        max_items: usize,
    ) -> Result<usize> {
        let room = self.budget()?.saturating_sub(fixed) / copies.max(1);
        Ok((room / bytes_per_item.max(1))
            .min(max_items)
            .min(len)
            .max(1))
    }
}

/// `0..len` cut into ranges of `per` items.
pub(crate) fn ranges(len: usize, per: usize) -> Vec<Range<usize>> {
    (0..len)
        .step_by(per.max(1))
        .map(|s| s..(s + per.max(1)).min(len))
        .collect()
}
