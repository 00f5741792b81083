//! Every copy between host and device: whole buffers and ranges, each way and on the
//! device, through the fault hook; large transfers streamed through page-locked buffers
//! ([`super::pipeline`], [`super::staging`]). The only module above the driver's
//! raw calls that moves bytes across PCIe.

use super::device::cuda;
use super::fault::FaultSite;
use super::pipeline::{HostIn, HostOut, SMALL_BYTES};
use super::Gpu;
use crate::error::{Error, Result};
use crate::num::words::Words;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, HostSlice};
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
    /// device copy of the backend goes through here).
    pub(crate) fn htod<S, D>(&self, stream: &Arc<CudaStream>, src: &S, dst: &mut D) -> Result<()>
    where
        S: HostSlice<u32> + ?Sized,
        D: DevicePtrMut<u32>,
    {
        self.config().check_fault(FaultSite::Copy)?;
        stream.memcpy_htod(src, dst).map_err(cuda)
    }

    /// Copies the device buffer `src` to host words `dst` on `stream`.
    pub(crate) fn dtoh<S, D>(&self, stream: &Arc<CudaStream>, src: &S, dst: &mut D) -> Result<()>
    where
        S: DevicePtr<u32>,
        D: HostSlice<u32> + ?Sized,
    {
        self.config().check_fault(FaultSite::Copy)?;
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
        let n = dst.len();
        if at.len() != n {
            return Err(Error::Internal("a staged copy of the wrong length".into()));
        }
        if n * 4 <= SMALL_BYTES {
            return self.dtoh_wait(stream, (src, at), dst);
        }
        // At least four pieces, so that copying out overlaps the link (and the first
        // touch of `dst`'s pages is spread over the cores).
        let words = (n / 4).clamp(1 << 18, STAGE_WORDS);
        let pool = self.staging();
        let mut bufs = [
            pool.take(self.context(), STAGE_WORDS)?,
            pool.take(self.context(), STAGE_WORDS)?,
        ];
        let piece = |i: usize| i * words..((i + 1) * words).min(n);
        let from = |r: Range<usize>| src.slice(at.start + r.start..at.start + r.end);
        let mut copy = || -> Result<()> {
            let [b0, b1] = &mut bufs;
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
                dst[r.clone()]
                    .par_chunks_mut(1 << 16)
                    .zip(cur.slice(r.len()).par_chunks(1 << 16))
                    .for_each(|(d, s)| d.copy_from_slice(s));
            }
            Ok(())
        };
        let copied = copy();
        match self.sync_stream(stream) {
            Ok(()) => bufs.into_iter().for_each(|b| pool.give(b)),
            // A copy may still be writing them: never unregister or free them.
            Err(e) => {
                std::mem::forget(bufs);
                return Err(e);
            }
        }
        copied
    }
}
