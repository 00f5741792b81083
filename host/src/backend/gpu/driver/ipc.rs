//! Device memory shared with the other processes of this host (CUDA IPC): copies of
//! buffers in memory that IPC can export (the stream-ordered pools' cannot), their
//! handles, and other processes' buffers opened here. The lifting split across MPI
//! ranks (`ops::dixon_ranks`) stores its tagged words into the other ranks' buffers
//! through them.
//!
//! A shared buffer is never freed while another process may still write it: it goes
//! back through [`retire`] and is freed by [`free_retired`] at the next handshake of
//! the ranks, which every rank reaches only after its previous lifting has ended.

use super::device::cuda;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::sys::{self, CUipcMemHandle, CUipcMem_flags_enum};
use cudarc::driver::{result, CudaSlice};
use std::sync::Mutex;

/// Words of an IPC handle (64 bytes).
pub(crate) const HANDLE_WORDS: usize = 16;

/// Shared buffers no longer used here, by device ordinal: freed by [`free_retired`].
static RETIRED: Mutex<Vec<(usize, u64)>> = Mutex::new(Vec::new());

/// A copy of `src` on `gpu` that other processes of the host can open, and its handle.
/// The copy goes back through [`retire`], never by a drop.
pub(crate) fn share(gpu: &Gpu, src: &CudaSlice<u32>) -> Result<(CudaSlice<u32>, Vec<u32>)> {
    gpu.context().bind_to_thread().map_err(cuda)?;
    let words = src.len().max(1);
    // SAFETY: a plain allocation on the current context; the slice below owns it.
    let ptr = unsafe { result::malloc_sync(4 * words) }.map_err(cuda)?;
    // SAFETY: `ptr` addresses `words` words just allocated on this device.
    let mut buf = unsafe { gpu.stream().upgrade_device_ptr::<u32>(ptr, words) };
    let handle = gpu
        .dtod(gpu.stream(), src, &mut buf)
        .and_then(|()| gpu.sync_stream(gpu.stream()))
        .and_then(|()| {
            let mut h = CUipcMemHandle { reserved: [0; 64] };
            // SAFETY: the out-pointer is valid; `ptr` is a cuMemAlloc allocation.
            unsafe { sys::cuIpcGetMemHandle(&mut h, ptr) }
                .result()
                .map_err(cuda)?;
            Ok(h.reserved
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0] as u8, c[1] as u8, c[2] as u8, c[3] as u8]))
                .collect())
        });
    match handle {
        Ok(h) => Ok((buf, h)),
        Err(e) => {
            retire(gpu, buf);
            Err(e)
        }
    }
}

/// Another process's buffer, from its `handle` ([`share`]'s), opened on `gpu`: its
/// address here (peer access enabled as the driver needs). Closed by [`close`].
pub(crate) fn open(gpu: &Gpu, handle: &[u32]) -> Result<u64> {
    let mut h = CUipcMemHandle { reserved: [0; 64] };
    for (i, w) in handle.iter().take(HANDLE_WORDS).enumerate() {
        for (j, b) in w.to_le_bytes().into_iter().enumerate() {
            h.reserved[4 * i + j] = b as core::ffi::c_char;
        }
    }
    gpu.context().bind_to_thread().map_err(cuda)?;
    let mut ptr = 0;
    let lazy = CUipcMem_flags_enum::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32;
    // SAFETY: the out-pointer is valid; the handle came from another process's `share`.
    unsafe { sys::cuIpcOpenMemHandle_v2(&mut ptr, h, lazy) }
        .result()
        .map_err(cuda)?;
    Ok(ptr)
}

/// Closes a buffer [`open`] opened on `gpu`, once this device's work on it has ended.
pub(crate) fn close(gpu: &Gpu, address: u64) -> Result<()> {
    gpu.context().bind_to_thread().map_err(cuda)?;
    // SAFETY: `address` came from `open` on this context and is closed once.
    unsafe { sys::cuIpcCloseMemHandle(address) }
        .result()
        .map_err(cuda)
}

/// Gives back a buffer made by [`share`]: kept until [`free_retired`].
pub(crate) fn retire(gpu: &Gpu, buf: CudaSlice<u32>) {
    let ptr = buf.leak();
    RETIRED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((gpu.ordinal(), ptr));
}

/// Frees `gpu`'s retired buffers: call once every process that could write them has
/// ended that work.
pub(crate) fn free_retired(gpu: &Gpu) -> Result<()> {
    let mine: Vec<u64> = {
        let mut all = RETIRED.lock().unwrap_or_else(|e| e.into_inner());
        let (mine, rest) = all.drain(..).partition(|&(d, _)| d == gpu.ordinal());
        *all = rest;
        mine.into_iter().map(|(_, p)| p).collect()
    };
    if mine.is_empty() {
        return Ok(());
    }
    gpu.context().bind_to_thread().map_err(cuda)?;
    for p in mine {
        // SAFETY: a cuMemAlloc allocation of this context, leaked from its slice and
        // freed once.
        unsafe { result::free_sync(p) }.map_err(cuda)?;
    }
    Ok(())
}
