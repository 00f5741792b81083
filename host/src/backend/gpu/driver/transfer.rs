//! Every copy between host and device: whole buffers and ranges, each way and on the
//! device, through the fault hook; large transfers streamed through page-locked buffers
//! ([`super::pipeline`], [`super::staging`]). The only module above the driver's
//! raw calls that moves bytes across PCIe.

use super::device::cuda;
use super::fault::FaultSite;
use super::pipeline::{HostIn, HostOut, SMALL_BYTES};
use super::staging::Pinned;
use super::Gpu;
use crate::error::{Error, Result};
use crate::num::words::Words;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// Words per piece of a staged download (64 MiB).
const STAGE_WORDS: usize = 1 << 24;

impl Gpu {
    /// Copies host words to a new device buffer on `stream` (at least one word long).
    pub(crate) fn upload_on(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        x: &[u32],
    ) -> Result<CudaSlice<u32>> {
        let mut buf = self.alloc_on(stream, x.len())?;
        if !x.is_empty() {
            self.htod(stream, x, &mut buf)?;
        }
        Ok(buf)
    }

    /// [`Gpu::upload_on`] the device's own stream.
    pub(crate) fn upload(&self, x: &[u32]) -> Result<CudaSlice<u32>> {
        self.upload_on(self.stream(), x)
    }

    /// Words `range` of a device buffer, copied back on `stream`.
    pub(crate) fn download_range(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        x: &CudaSlice<u32>,
        range: Range<usize>,
    ) -> Result<Vec<u32>> {
        let mut v = vec![0u32; range.len()];
        if !range.is_empty() {
            self.dtoh(stream, &x.slice(range), &mut v)?;
            self.sync_stream(stream)?;
        }
        Ok(v)
    }

    /// The first `n` words of a device buffer, copied back on `stream`.
    pub(crate) fn download_on(
        &self,
        stream: &std::sync::Arc<CudaStream>,
        x: &CudaSlice<u32>,
        n: usize,
    ) -> Result<Vec<u32>> {
        self.download_range(stream, x, 0..n)
    }

    /// [`Gpu::download_on`] the device's own stream.
    pub(crate) fn download(&self, x: &CudaSlice<u32>, n: usize) -> Result<Vec<u32>> {
        self.download_on(self.stream(), x, n)
    }

    /// Copies `src` into `dst` on the device (the bandwidth reference of the benchmarks).
    pub(crate) fn copy(&self, dst: &mut CudaSlice<u32>, src: &CudaSlice<u32>) -> Result<()> {
        self.dtod(self.stream(), src, dst)
    }

    /// Copies host words `src` to the device buffer `dst` on `stream` (every host to
    /// device copy of the backend goes through here). From ordinary (pageable) memory
    /// the driver first waits for the stream, without a bound: that wait is done here
    /// first, with the host's bound ([`super::watch`]).
    pub(crate) fn htod<D>(&self, stream: &Arc<CudaStream>, src: &[u32], dst: &mut D) -> Result<()>
    where
        D: DevicePtrMut<u32>,
    {
        self.config().check_fault(FaultSite::Copy)?;
        if !page_locked(src.as_ptr()) {
            self.wait_stream(stream, "the work before a copy to the device")?;
        }
        stream.memcpy_htod(src, dst).map_err(cuda)
    }

    /// Copies the device buffer `src` to host words `dst` on `stream` (into pageable
    /// memory after a bounded wait for the stream, as [`Gpu::htod`]).
    pub(crate) fn dtoh<S>(&self, stream: &Arc<CudaStream>, src: &S, dst: &mut [u32]) -> Result<()>
    where
        S: DevicePtr<u32>,
    {
        self.config().check_fault(FaultSite::Copy)?;
        if !page_locked(dst.as_ptr()) {
            self.wait_stream(stream, "the work before a copy from the device")?;
        }
        stream.memcpy_dtoh(src, dst).map_err(cuda)
    }

    /// Copies the device buffer `src` to the device buffer `dst` on `stream`.
    pub(crate) fn dtod<S, D>(&self, stream: &Arc<CudaStream>, src: &S, dst: &mut D) -> Result<()>
    where
        S: DevicePtr<u32>,
        D: DevicePtrMut<u32>,
    {
        self.config().check_fault(FaultSite::Copy)?;
        stream.memcpy_dtod(src, dst).map_err(cuda)
    }

    /// Copies host words to a new device buffer: through page-locked buffers on several
    /// streams when large (returning once every copy is done), directly when small.
    pub(crate) fn upload_words(&self, x: &[u32]) -> Result<CudaSlice<u32>> {
        if x.len() * 4 <= SMALL_BYTES {
            return self.upload(x);
        }
        let mut dst = self.alloc(x.len())?;
        self.sync()?; // the allocation (and its poison) before other streams write
        let ins = [HostIn::new(x, 1, 1)];
        self.stream_chunks(x.len(), &ins, &mut [], 0, usize::MAX, &mut |s, di, _, r| {
            let n = r.len();
            self.dtod(s, &di[0].slice(0..n), &mut dst.slice_mut(r))
        })?;
        Ok(dst)
    }

    /// The first `n` words of a device buffer as a result: straight into page-locked
    /// memory of the pool when large (`Gpu::result_words`), else as [`Gpu::download`].
    pub(crate) fn download_result(self: &Arc<Self>, x: &CudaSlice<u32>, n: usize) -> Result<Words> {
        let mut out = self.result_words(n);
        if !out.is_locked() {
            return Ok(self.download(x, n)?.into());
        }
        let s = self.stream();
        self.dtoh(s, &x.slice(0..n), &mut out[..])?;
        self.sync_stream(s)?;
        Ok(out)
    }

    /// The first `n` words of a device buffer, copied back: through page-locked buffers
    /// on several streams when large, directly when small.
    pub(crate) fn download_words(&self, x: &CudaSlice<u32>, n: usize) -> Result<Vec<u32>> {
        if n * 4 <= SMALL_BYTES {
            return self.download(x, n);
        }
        let mut out = vec![0u32; n];
        let mut outs = [HostOut::new(&mut out, 1, 1)];
        self.stream_chunks(n, &[], &mut outs, 0, usize::MAX, &mut |s, _, dout, r| {
            let k = r.len();
            self.dtod(s, &x.slice(r), &mut dout[0].slice_mut(0..k))
        })?;
        Ok(out)
    }

    /// Copies the device words `src[at]` into `dst` (as long, page-locked or small) on
    /// `stream` and waits.
    pub(crate) fn dtoh_wait(
        &self,
        stream: &Arc<CudaStream>,
        (src, at): (&CudaSlice<u32>, Range<usize>),
        dst: &mut [u32],
    ) -> Result<()> {
        if at.len() != dst.len() {
            return Err(Error::Internal("a copy of the wrong length".into()));
        }
        self.dtoh(stream, &src.slice(at), dst)?;
        self.sync_stream(stream)
    }

    /// Copies the device words `src[at]` into `dst` (as long) on `stream` and waits.
    /// A large copy goes through two page-locked buffers of the pool, each piece copied
    /// on by all cores while the next one crosses PCIe: into ordinary heap memory the
    /// driver alone copies at a fraction of the link's speed.
    pub(crate) fn dtoh_staged(
        &self,
        stream: &Arc<CudaStream>,
        (src, at): (&CudaSlice<u32>, Range<usize>),
        dst: &mut [u32],
    ) -> Result<()> {
        if at.len() != dst.len() {
            return Err(Error::Internal("a staged copy of the wrong length".into()));
        }
        if dst.len() * 4 <= SMALL_BYTES {
            return self.dtoh_wait(stream, (src, at), dst);
        }
        self.staged(stream, (src, at), bytes_of_mut(dst))
    }

    /// Copies the first `dst.len()` bytes of the device words `src` (four bytes a word,
    /// as a kernel wrote them through a byte pointer) into `dst` on `stream` and waits:
    /// staged as [`Gpu::dtoh_staged`] when large.
    pub(crate) fn dtoh_bytes(
        &self,
        stream: &Arc<CudaStream>,
        src: &CudaSlice<u32>,
        dst: &mut [u8],
    ) -> Result<()> {
        let words = dst.len().div_ceil(4);
        if words * 4 <= SMALL_BYTES {
            let w = self.download_range(stream, src, 0..words)?;
            let n = dst.len();
            dst.copy_from_slice(&bytes_of(&w)[..n]);
            return Ok(());
        }
        self.staged(stream, (src, 0..words), dst)
    }

    /// Copies the words `x` to a new device buffer on `stream` and waits, staged as
    /// [`Gpu::htod_bytes`] when large.
    pub(crate) fn upload_staged(
        &self,
        stream: &Arc<CudaStream>,
        x: &[u32],
    ) -> Result<CudaSlice<u32>> {
        self.htod_bytes(stream, bytes_of(x))
    }

    /// Copies `src` to a new device buffer of `src.len().div_ceil(4)` words (four bytes
    /// a word, for a kernel that reads them through a byte pointer; the last word's
    /// spare bytes unspecified) on `stream`, and waits: through two page-locked buffers
    /// of the pool when large, each piece copied in by all cores while the one before
    /// crosses PCIe.
    pub(crate) fn htod_bytes(
        &self,
        stream: &Arc<CudaStream>,
        src: &[u8],
    ) -> Result<CudaSlice<u32>> {
        let n = src.len().div_ceil(4);
        let mut dst = self.alloc_on(stream, n)?;
        if n * 4 <= SMALL_BYTES {
            let mut w = vec![0u32; n];
            bytes_of_mut(&mut w)[..src.len()].copy_from_slice(src);
            if n > 0 {
                self.htod(stream, &w[..], &mut dst)?;
            }
            self.sync_stream(stream)?;
            return Ok(dst);
        }
        let words = (n / 4).clamp(1 << 18, STAGE_WORDS);
        self.two_staging(stream, |bufs| {
            for i in 0..n.div_ceil(words) {
                let r = i * words..((i + 1) * words).min(n);
                // The copy out of this buffer two pieces ago ended before the last
                // piece's copy began (below).
                let buf = &mut bufs[i % 2];
                let bytes = 4 * r.start..(4 * r.end).min(src.len());
                let piece = buf.slice_mut(r.len());
                let into = &mut bytes_of_mut(piece)[..bytes.len()];
                into.par_chunks_mut(1 << 18)
                    .zip(src[bytes].par_chunks(1 << 18))
                    .for_each(|(d, s)| d.copy_from_slice(s));
                // The last piece's copy, which this one's filling overlapped.
                self.sync_stream(stream)?;
                self.htod(stream, &*piece, &mut dst.slice_mut(r))?;
            }
            Ok(())
        })?;
        Ok(dst)
    }

    /// The staged copy of [`Gpu::dtoh_staged`] into bytes: `dst` holds the words `at`
    /// but perhaps the last one's final bytes.
    fn staged(
        &self,
        stream: &Arc<CudaStream>,
        (src, at): (&CudaSlice<u32>, Range<usize>),
        dst: &mut [u8],
    ) -> Result<()> {
        let n = at.len();
        if dst.len() > 4 * n || dst.len() + 4 <= 4 * n {
            return Err(Error::Internal("a staged copy of the wrong length".into()));
        }
        // At least four pieces, so that copying out overlaps the link (and the first
        // touch of `dst`'s pages is spread over the cores).
        let words = (n / 4).clamp(1 << 18, STAGE_WORDS);
        let piece = |i: usize| i * words..((i + 1) * words).min(n);
        let from = |r: Range<usize>| src.slice(at.start + r.start..at.start + r.end);
        let total = dst.len();
        self.two_staging(stream, |bufs| {
            let [b0, b1] = bufs;
            let first = piece(0);
            self.dtoh(stream, &from(first.clone()), b0.slice_mut(first.len()))?;
            for i in 0..n.div_ceil(words) {
                // Piece i has arrived in one buffer; piece i + 1 goes into the other.
                self.sync_stream(stream)?;
                let (cur, next) = if i % 2 == 0 {
                    (&*b0, &mut *b1)
                } else {
                    (&*b1, &mut *b0)
                };
                let ahead = piece(i + 1);
                if !ahead.is_empty() {
                    self.dtoh(stream, &from(ahead.clone()), next.slice_mut(ahead.len()))?;
                }
                let r = piece(i);
                let bytes = 4 * r.start..(4 * r.end).min(total);
                let got = &bytes_of(cur.slice(r.len()))[..bytes.len()];
                dst[bytes]
                    .par_chunks_mut(1 << 18)
                    .zip(got.par_chunks(1 << 18))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            }
            Ok(())
        })
    }

    /// `f` with two page-locked buffers of the pool (`STAGE_WORDS` each) for copies on
    /// `stream`, given back once the stream is done with them.
    fn two_staging<T>(
        &self,
        stream: &Arc<CudaStream>,
        f: impl FnOnce(&mut [Pinned; 2]) -> Result<T>,
    ) -> Result<T> {
        let pool = self.staging();
        let mut bufs = [
            pool.take(self.context(), STAGE_WORDS)?,
            pool.take(self.context(), STAGE_WORDS)?,
        ];
        let done = f(&mut bufs);
        match self.sync_stream(stream) {
            Ok(()) => bufs.into_iter().for_each(|b| pool.give(b)),
            // A copy may still be using them: never unregister or free them.
            Err(e) => {
                std::mem::forget(bufs);
                return Err(e);
            }
        }
        done
    }
}

/// Words as their bytes (native order, as the device wrote them).
fn bytes_of(w: &[u32]) -> &[u8] {
    // SAFETY: a u32 is four initialized bytes, and u8 has no alignment to keep.
    unsafe { std::slice::from_raw_parts(w.as_ptr().cast(), 4 * w.len()) }
}

/// Words as their bytes, to be written.
fn bytes_of_mut(w: &mut [u32]) -> &mut [u8] {
    // SAFETY: as `bytes_of`; every byte pattern is a valid u32.
    unsafe { std::slice::from_raw_parts_mut(w.as_mut_ptr().cast(), 4 * w.len()) }
}

/// Whether host memory at `ptr` is page-locked (registered with the driver, or
/// allocated by it): copies to and from it are asynchronous.
fn page_locked(ptr: *const u32) -> bool {
    use cudarc::driver::sys;
    let mut kind = 0u32;
    // SAFETY: the driver writes one `CUmemorytype` (a 32-bit enum) into `kind`.
    let r = unsafe {
        sys::cuPointerGetAttribute(
            &mut kind as *mut u32 as *mut std::ffi::c_void,
            sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            ptr as sys::CUdeviceptr,
        )
    };
    r == sys::CUresult::CUDA_SUCCESS && kind == sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32
}
