//! Page-locked host memory for transfers: buffers registered with the driver
//! (`cuMemHostRegister`), so that copies to and from them run at full PCIe speed and
//! asynchronously, kept in a pool and reused across calls.
//!
//! Registering memory that is already touched is about ten times cheaper here than
//! `cuMemHostAlloc` (H100 host: 15 ms against 146 ms for 256 MiB), so a buffer is an
//! ordinary aligned allocation, zeroed by all cores (with transparent huge pages
//! asked for), then registered.

use super::Gpu;
use crate::error::{Error, Result};
use crate::num::words::{LockedWords, Words};
use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use rayon::prelude::*;
use std::alloc::Layout;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Alignment of a buffer: a huge page, so that the kernel can back it with huge pages.
const ALIGN: usize = 2 << 20;
/// The smallest buffer the pool hands out, in words (1 MiB).
const MIN_WORDS: usize = 1 << 18;
/// Idle bytes the pool keeps; buffers beyond it are freed when returned.
const POOL_BYTES: usize = 1 << 30;
/// Page-locked bytes the pool lends out as results at once; beyond, results go to heap
/// memory (page-locked memory is taken from the whole system).
const LENT_BYTES: usize = 8 << 30;

/// A page-locked host buffer of `u32` words, zeroed when made.
#[derive(Debug)]
pub(crate) struct Pinned {
    ptr: NonNull<u32>,
    words: usize,
    layout: Layout,
    ctx: Arc<CudaContext>,
}

// SAFETY: the buffer is plain memory owned by this value; the driver registration is
// process-wide.
unsafe impl Send for Pinned {}
unsafe impl Sync for Pinned {}

impl Pinned {
    /// A new buffer of `words` words registered with `ctx`'s driver.
    fn new(ctx: &Arc<CudaContext>, words: usize) -> Result<Pinned> {
        let bytes = (words * 4).next_multiple_of(4096);
        let layout = Layout::from_size_align(bytes, ALIGN).map_err(|e| Error::GpuOutOfMemory {
            what: format!("host buffer of {bytes} bytes: {e}"),
            source: None,
        })?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw as *mut u32) else {
            return Err(Error::GpuOutOfMemory {
                what: format!("no host memory for a {} MiB transfer buffer", bytes >> 20),
                source: None,
            });
        };
        #[cfg(target_os = "linux")]
        // SAFETY: advice on memory this function owns; failure only costs speed.
        unsafe {
            libc::madvise(raw as *mut libc::c_void, bytes, libc::MADV_HUGEPAGE);
        }
        let addr = raw as usize;
        (0..bytes).into_par_iter().step_by(ALIGN).for_each(|start| {
            let len = ALIGN.min(bytes - start);
            // SAFETY: [start, start + len) lies inside the allocation.
            unsafe { std::ptr::write_bytes((addr + start) as *mut u8, 0, len) };
        });
        let registered = ctx.bind_to_thread().and_then(|()| {
            // SAFETY: registers the allocation made above, unregistered in Drop.
            unsafe { sys::cuMemHostRegister_v2(raw as *mut _, bytes, 0) }.result()
        });
        if let Err(e) = registered {
            // SAFETY: allocated above with this layout.
            unsafe { std::alloc::dealloc(raw, layout) };
            return Err(Error::driver(
                format!("page-locking {} MiB of host memory failed", bytes >> 20),
                e,
            ));
        }
        Ok(Pinned {
            ptr,
            words: bytes / 4,
            layout,
            ctx: ctx.clone(),
        })
    }

    /// Capacity in words.
    pub(crate) fn words(&self) -> usize {
        self.words
    }

    /// The first `n` words. The caller must not read what a pending copy is writing.
    pub(crate) fn slice(&self, n: usize) -> &[u32] {
        assert!(
            n <= self.words,
            "pinned buffer of {} words read at {n}",
            self.words
        );
        // SAFETY: n ≤ words initialised words owned by self.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), n) }
    }

    /// The first `n` words, writable. The caller must not write what a pending copy reads.
    pub(crate) fn slice_mut(&mut self, n: usize) -> &mut [u32] {
        assert!(
            n <= self.words,
            "pinned buffer of {} words written at {n}",
            self.words
        );
        // SAFETY: n ≤ words initialised words owned exclusively by self.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), n) }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        let raw = self.ptr.as_ptr() as *mut u8;
        // SAFETY: registered in new(); the callers synchronise every copy touching this
        // buffer before they give it back or drop it.
        unsafe {
            let _ = self.ctx.bind_to_thread();
            let _ = sys::cuMemHostUnregister(raw as *mut _);
            std::alloc::dealloc(raw, self.layout);
        }
    }
}

/// A pool of page-locked buffers: [`HostPool::take`] reuses the smallest idle buffer that
/// is large enough, or registers a new one (a power of two of at least 1 MiB).
#[derive(Debug, Default)]
pub(crate) struct HostPool {
    idle: Mutex<Vec<Pinned>>,
    /// Buffers given back while work the host gave up waiting for may still copy into
    /// them ([`super::watch`]): kept apart until it has ended.
    held: Mutex<Vec<Pinned>>,
    quarantine: AtomicBool,
    /// Bytes lent out as [`PooledWords`].
    lent: AtomicUsize,
}

/// A result in page-locked memory: `len` words of a pool buffer, given back to the
/// device's pool when dropped.
#[derive(Debug)]
pub(crate) struct PooledWords {
    buf: Option<Pinned>,
    len: usize,
    gpu: Arc<Gpu>,
}

impl LockedWords for PooledWords {
    fn words(&self) -> &[u32] {
        self.buf.as_ref().expect("held until drop").slice(self.len)
    }

    fn words_mut(&mut self) -> &mut [u32] {
        self.buf
            .as_mut()
            .expect("held until drop")
            .slice_mut(self.len)
    }
}

impl Drop for PooledWords {
    fn drop(&mut self) {
        if let Some(p) = self.buf.take() {
            let pool = self.gpu.staging();
            pool.lent.fetch_sub(p.words() * 4, Ordering::Relaxed);
            pool.give(p);
        }
    }
}

impl Gpu {
    /// `n` words for a result: page-locked from the pool while it lends less than
    /// `LENT_BYTES`, else (or when page-locking fails) zeroed heap memory. The content of
    /// page-locked words is unspecified: the caller overwrites all of them.
    pub(crate) fn result_words(self: &Arc<Gpu>, n: usize) -> Words {
        let pool = self.staging();
        if n * 4 >= 1 << 20 && pool.lent.load(Ordering::Relaxed) + n * 4 <= LENT_BYTES {
            if let Ok(p) = pool.take(self.context(), n) {
                pool.lent.fetch_add(p.words() * 4, Ordering::Relaxed);
                return Words::Locked(Box::new(PooledWords {
                    buf: Some(p),
                    len: n,
                    gpu: self.clone(),
                }));
            }
        }
        Words::Heap(vec![0; n])
    }
}

impl HostPool {
    /// A buffer of at least `words` words.
    pub(crate) fn take(&self, ctx: &Arc<CudaContext>, words: usize) -> Result<Pinned> {
        {
            let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
            let best = idle
                .iter()
                .enumerate()
                .filter(|(_, p)| p.words() >= words)
                .min_by_key(|(_, p)| p.words())
                .map(|(i, _)| i);
            if let Some(i) = best {
                return Ok(idle.swap_remove(i));
            }
        }
        let words = words.max(MIN_WORDS).next_power_of_two();
        // Page-locked memory is the host's too, and the system cannot page it out.
        crate::limits::check_words(words as u128, "a page-locked transfer buffer")?;
        Pinned::new(ctx, words)
    }

    /// Holds the buffers given back from now on apart (`true`), or lends them again
    /// (`false`): see [`super::watch`].
    pub(crate) fn set_quarantine(&self, on: bool) {
        self.quarantine.store(on, Ordering::SeqCst);
        if !on {
            let held = std::mem::take(&mut *self.held.lock().unwrap_or_else(|e| e.into_inner()));
            held.into_iter().for_each(|p| self.give(p));
        }
    }

    /// Returns a buffer whose copies have all completed (or, in quarantine, that a
    /// stalled copy may still write).
    pub(crate) fn give(&self, p: Pinned) {
        if self.quarantine.load(Ordering::SeqCst) {
            self.held.lock().unwrap_or_else(|e| e.into_inner()).push(p);
            return;
        }
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.push(p);
        idle.sort_by_key(|p| p.words());
        while idle.iter().map(|p| p.words() * 4).sum::<usize>() > POOL_BYTES {
            idle.pop();
        }
    }
}
