//! No wait without a bound (issue 50). Two kinds of wait can last for ever on a GPU:
//!
//! - blocks of one launch that wait for words other blocks write (the lifting's and the
//!   few-prime elimination's tagged words): each such launch gets a `LaunchWatch`, one
//!   device word and the stall limit; a wait that sees no word arrive for the limit
//!   marks the word, every wait of the launch then gives up at once, the launch ends by
//!   itself, and the host, reading the word after it, returns [`Error::GpuStalled`]
//!   (the device is usable again);
//! - the host waiting for queued work (`Gpu::wait_stream`, `Gpu::wait_event`): it
//!   polls instead of blocking in the driver, up to [`Gpu::host_wait_limit`], and then
//!   returns [`Error::GpuStalled`] with the device marked busy: its next calls fail at
//!   once until the stalled work has ended (`Gpu::check_usable`), and the pool of
//!   page-locked buffers holds apart those given back meanwhile (a stalled copy may
//!   still write into one) until then.
//!
//! The host's limit is the larger of the stall limit and 20 times the estimate of the
//! calls in flight that declared one ([`Expecting`]: the CLI and Python do, from the cost
//! model); with none declared, ten times the stall limit.

use super::device::cuda;
use super::fault::FaultSite;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaEvent, CudaSlice, CudaStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The estimates of the calls in flight (seconds), for the host's limit.
static EXPECTED: Mutex<Vec<f64>> = Mutex::new(Vec::new());

/// A call's estimate, declared for as long as this lives: host waits on every device
/// allow 20 times the longest declared estimate (at least the stall limit).
#[derive(Debug)]
pub struct Expecting(f64);

impl Expecting {
    /// Declares a call expected to take `seconds` (a negative or NaN estimate counts as
    /// none).
    pub fn new(seconds: f64) -> Expecting {
        let s = if seconds > 0.0 { seconds } else { 0.0 };
        EXPECTED.lock().unwrap_or_else(|e| e.into_inner()).push(s);
        Expecting(s)
    }
}

impl Drop for Expecting {
    fn drop(&mut self) {
        let mut v = EXPECTED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = v.iter().position(|&s| s == self.0) {
            v.swap_remove(i);
        }
    }
}

/// The longest estimate declared by the calls in flight, if any.
fn longest_expected() -> Option<f64> {
    let v = EXPECTED.lock().unwrap_or_else(|e| e.into_inner());
    v.iter().copied().reduce(f64::max)
}

/// Work the host gave up waiting for: the event after it, and what it was.
#[derive(Debug)]
pub(crate) struct Stalled {
    after: CudaEvent,
    what: String,
    since: Instant,
}

/// The value a `LaunchWatch` word starts with when the launch must stall on purpose
/// (the test fault [`FaultSite::Stall`]); the kernel sets bit 0 when a wait gave up.
const STALL_ON_PURPOSE: u32 = 2;

/// One launch's stall word and limit, passed to a kernel whose blocks wait for each
/// other (the tagged waits of `device/src/kernels/tagged.rs`), and read back after it
/// by [`LaunchWatch::check`].
#[derive(Debug)]
pub(crate) struct LaunchWatch {
    word: CudaSlice<u32>,
    /// The stall limit in nanoseconds, as the kernel takes it.
    pub(crate) limit_ns: u64,
    kernel: &'static str,
}

impl LaunchWatch {
    /// The device word the kernel marks.
    pub(crate) fn word(&self) -> &CudaSlice<u32> {
        &self.word
    }

    /// After the launch's work on `stream`: [`Error::GpuStalled`] when one of its waits
    /// gave up.
    pub(crate) fn check(&self, gpu: &Gpu, stream: &Arc<CudaStream>) -> Result<()> {
        let w = gpu.download_on(stream, &self.word, 1)?;
        if w[0] & 1 == 0 {
            return Ok(());
        }
        Err(Error::GpuStalled {
            device: gpu.ordinal(),
            kernel: self.kernel.to_string(),
            seconds: self.limit_ns as f64 * 1e-9,
            busy: false,
        })
    }
}

impl Gpu {
    /// A `LaunchWatch` for a launch of `kernel` on `stream` (made to stall on purpose
    /// when the test fault [`FaultSite::Stall`] says so).
    pub(crate) fn launch_watch(
        &self,
        stream: &Arc<CudaStream>,
        kernel: &'static str,
    ) -> Result<LaunchWatch> {
        let start = match self.config().check_fault(FaultSite::Stall) {
            Ok(()) => 0,
            Err(_) => STALL_ON_PURPOSE,
        };
        let limit = self.config().stall_limit();
        Ok(LaunchWatch {
            word: self.upload_on(stream, &[start])?,
            limit_ns: limit.as_nanos().min(u64::MAX as u128) as u64,
            kernel,
        })
    }

    /// How long the host waits for queued work before it gives up: see the module
    /// documentation.
    pub fn host_wait_limit(&self) -> Duration {
        let stall = self.config().stall_limit();
        match longest_expected() {
            Some(s) => stall.max(Duration::from_secs_f64((20.0 * s).min(1e9))),
            None => stall * 10,
        }
    }

    /// Waits for the work queued on `stream`, up to [`Gpu::host_wait_limit`].
    pub(crate) fn wait_stream(&self, stream: &CudaStream, what: &str) -> Result<()> {
        let flags = Some(CUevent_flags::CU_EVENT_DISABLE_TIMING);
        let after = stream.record_event(flags).map_err(cuda)?;
        self.wait_event(after, what)
    }

    /// Waits for `event`, up to [`Gpu::host_wait_limit`]: polls it, yielding at first
    /// and then sleeping up to 100 µs between looks.
    pub(crate) fn wait_event(&self, event: CudaEvent, what: &str) -> Result<()> {
        let (start, limit) = (Instant::now(), self.host_wait_limit());
        let mut pause = Duration::from_micros(5);
        loop {
            if event.try_is_complete().map_err(cuda)? {
                return Ok(());
            }
            let waited = start.elapsed();
            if waited > limit {
                let what = what.to_string();
                *self.stalled.lock().unwrap_or_else(|e| e.into_inner()) = Some(Stalled {
                    after: event,
                    what: what.clone(),
                    since: start,
                });
                self.staging().set_quarantine(true);
                return Err(Error::GpuStalled {
                    device: self.ordinal(),
                    kernel: what,
                    seconds: waited.as_secs_f64(),
                    busy: true,
                });
            }
            if waited < Duration::from_micros(200) {
                std::thread::yield_now();
            } else {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_micros(100));
            }
        }
    }

    /// [`Error::GpuStalled`] while work the host gave up waiting for is still running;
    /// once it has ended, the device is usable again.
    pub(crate) fn check_usable(&self) -> Result<()> {
        let mut stalled = self.stalled.lock().unwrap_or_else(|e| e.into_inner());
        let Some(s) = stalled.as_ref() else {
            return Ok(());
        };
        let _ = self.context().bind_to_thread();
        if s.after.try_is_complete().unwrap_or(true) {
            *stalled = None;
            self.staging().set_quarantine(false);
            return Ok(());
        }
        Err(Error::GpuStalled {
            device: self.ordinal(),
            kernel: s.what.clone(),
            seconds: s.since.elapsed().as_secs_f64(),
            busy: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's limit follows the longest estimate of the calls in flight, and an
    /// estimate ends with its call (no other test of this binary declares one).
    #[test]
    fn the_longest_estimate_in_flight_counts_until_its_call_ends() {
        assert_eq!(longest_expected(), None);
        let short = Expecting::new(0.5);
        {
            let _long = Expecting::new(3.0);
            let _bad = Expecting::new(f64::NAN);
            assert_eq!(longest_expected(), Some(3.0));
        }
        assert_eq!(longest_expected(), Some(0.5));
        drop(short);
        assert_eq!(longest_expected(), None);
    }
}
