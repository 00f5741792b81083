//! Streams: leased from a device's pool so that calls from several host threads overlap,
//! waits (where an injected fault surfaces, as the driver's errors of earlier work
//! would) and event timing.

use super::device::cuda;
use super::fault::FaultSite;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaStream};
use std::sync::Arc;

/// Streams leased from a [`Gpu`]'s pool; they go back when this is dropped.
pub(crate) struct Streams<'a> {
    gpu: &'a Gpu,
    streams: Vec<Arc<CudaStream>>,
}

impl std::ops::Deref for Streams<'_> {
    type Target = [Arc<CudaStream>];
    fn deref(&self) -> &Self::Target {
        &self.streams
    }
}

impl Drop for Streams<'_> {
    fn drop(&mut self) {
        let mut idle = self
            .gpu
            .idle_streams
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        idle.append(&mut self.streams);
    }
}

impl Gpu {
    /// `n` streams for one operation, from the pool (new ones when it runs short).
    pub(crate) fn lease_streams(&self, n: usize) -> Result<Streams<'_>> {
        let mut streams = {
            let mut idle = self.idle_streams.lock().unwrap_or_else(|e| e.into_inner());
            let keep = idle.len().saturating_sub(n);
            idle.split_off(keep)
        };
        while streams.len() < n {
            streams.push(self.dev.ctx.new_stream().map_err(cuda)?);
        }
        Ok(Streams { gpu: self, streams })
    }

    /// Waits for the device's own stream.
    pub fn sync(&self) -> Result<()> {
        self.sync_stream(&self.stream)
    }

    /// Waits for `stream`, up to the host's limit ([`super::watch`]). (An injected
    /// fault fails it after the wait, as a real error of earlier work would: no copy is
    /// then still writing into host memory.)
    pub(crate) fn sync_stream(&self, stream: &CudaStream) -> Result<()> {
        let waited = self.wait_stream(stream, "the work queued on a stream");
        self.config.check_fault(FaultSite::Sync)?;
        waited
    }

    /// Waits for `event`, up to the host's limit (an injected fault after the wait, as
    /// for [`Gpu::sync_stream`]).
    pub(crate) fn sync_event(&self, event: CudaEvent) -> Result<()> {
        let waited = self.wait_event(event, "the work before an event");
        self.config.check_fault(FaultSite::Sync)?;
        waited
    }

    /// An event after the work queued so far on the device's own stream.
    pub(crate) fn mark(&self) -> Result<CudaEvent> {
        let flags = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        self.stream.record_event(flags).map_err(cuda)
    }

    /// Makes the device's own stream wait (on the device, not the host) for `event`,
    /// which may be another device's ([`Gpu::mark`]).
    pub(crate) fn stream_wait(&self, event: &CudaEvent) -> Result<()> {
        self.stream.wait(event).map_err(cuda)
    }

    /// Times `f` on the device's own stream with events, in milliseconds.
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(cuda)?;
        f()?;
        let end = self.stream.record_event(flags).map_err(cuda)?;
        self.wait_stream(&self.stream, "a timed launch")?;
        Ok(start.elapsed_ms(&end).map_err(cuda)? as f64)
    }
}
