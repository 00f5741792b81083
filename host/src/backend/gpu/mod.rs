//! The GPU backend: the Rust kernels of `device/` (embedded as PTX) driven through
//! `cudarc`'s driver API, loaded at run time so that everything builds without CUDA.
//!
//! Layers, as in `cudarc`: `device` opens a device (context, kernels looked up once,
//! error mapping); [`config`] holds its settings; [`memory`] owns every host↔device
//! crossing and the chunk planner; `staging` the page-locked host buffers;
//! [`launch`] the typed kernel launches (shapes checked against buffer lengths; the
//! matrix product's two kernels in `matmul`);
//! [`pipeline`] streams host data through the device in chunks over several streams;
//! the operations are composed from those in [`vectors`], [`linalg`] and
//! [`resultant`]; [`tables`] caches the conversion tables of a basis on the device;
//! [`resident`] holds device-resident values.
//!
//! One [`Gpu`] per device ordinal, opened on first use ([`Gpu::device`]); operations
//! run on streams leased from the device's pool, so calls from several host threads
//! overlap, and values used across streams are ordered by `cudarc`'s events.

mod bandwidth;
pub mod config;
pub(crate) mod device;
pub mod dixon;
mod eliminate;
pub mod fault;
mod few;
pub mod launch;
pub mod limbs;
pub mod linalg;
mod lu;
mod matmul;
pub mod memory;
mod order;
pub mod pipeline;
pub mod resident;
pub mod resultant;
mod rows;
mod schur;
pub mod shapes;
pub mod speed;
pub(crate) mod staging;
pub mod tables;
pub mod vectors;

pub use config::{GpuConfig, TensorSplit, SMALL_MODULI_FROM, TENSOR_CORES_FROM, TENSOR_DET_FROM};
/// The device buffer type of the launch functions (cudarc's), for callers that launch.
pub use cudarc::driver::CudaSlice;
pub use device::PTX;
pub use fault::{Fault, FaultSite};
pub use launch::EqualKernel;
pub use resident::DeviceWords;

use crate::error::{Error, Result};
use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, CudaStream};
use device::{cuda, Device, Kernels};
use staging::HostPool;
use std::sync::{Arc, Mutex, OnceLock};

/// Integers packed as for [`Gpu::reduce_words`]: word-major words, sign flags, and the
/// number of words per integer.
pub type Packed<'a> = (&'a [u32], &'a [u32], usize);

/// Device ordinals the process can open.
const MAX_DEVICES: usize = 64;

/// The devices of the process, each opened once, on first use.
static DEVICES: [OnceLock<Result<Arc<Gpu>>>; MAX_DEVICES] =
    [const { OnceLock::new() }; MAX_DEVICES];

/// An open CUDA device with the rns kernels loaded.
#[derive(Debug)]
pub struct Gpu {
    dev: Device,
    config: GpuConfig,
    /// The stream of raw launches and of operations that need one stream only.
    stream: Arc<CudaStream>,
    /// Idle streams, leased to operations.
    idle_streams: Mutex<Vec<Arc<CudaStream>>>,
    staging: HostPool,
    tables: tables::TableCache,
    /// The measured speed ([`Gpu::speed`]).
    speed: OnceLock<f64>,
}

/// Streams leased from a [`Gpu`]'s pool; they go back when this is dropped.
pub struct Streams<'a> {
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
    /// Device 0, opened on first use; [`Error::NoGpu`] when no CUDA driver or device is
    /// usable (the reason is kept and returned on every call).
    pub fn get() -> Result<Arc<Gpu>> {
        Gpu::device(0)
    }

    /// Device `ordinal`, opened on first use (once per process; later calls, from any
    /// thread, get the same device or the same error).
    pub fn device(ordinal: usize) -> Result<Arc<Gpu>> {
        let Some(slot) = DEVICES.get(ordinal) else {
            return Err(Error::no_gpu(format!(
                "device ordinal {ordinal} is beyond the {MAX_DEVICES} this build can open"
            )));
        };
        slot.get_or_init(|| {
            // cudarc can panic inside a broken driver installation: keep that an error.
            std::panic::catch_unwind(|| Gpu::open(ordinal))
                .unwrap_or_else(|_| Err(Error::no_gpu("the CUDA driver failed to initialise")))
                .map(Arc::new)
        })
        .clone()
    }

    /// Whether device `ordinal` has been opened (`Some(true)`), failed to open
    /// (`Some(false)`), or not been asked for yet, or is opening now (`None`). Never waits.
    pub fn opened(ordinal: usize) -> Option<bool> {
        DEVICES.get(ordinal)?.get().map(|r| r.is_ok())
    }

    /// The number of CUDA devices the driver reports (0 without a driver).
    pub fn count() -> usize {
        device::count().unwrap_or(0)
    }

    fn open(ordinal: usize) -> Result<Gpu> {
        let dev = device::open(ordinal)?;
        let stream = dev.ctx.new_stream().map_err(cuda)?;
        Ok(Gpu {
            dev,
            config: GpuConfig::from_env()?,
            stream,
            idle_streams: Mutex::new(Vec::new()),
            staging: HostPool::default(),
            tables: tables::TableCache::default(),
            speed: OnceLock::new(),
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.dev.name
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.dev.ordinal
    }

    /// The device's streaming multiprocessors.
    pub fn multiprocessors(&self) -> usize {
        self.dev.sms
    }

    /// The device's settings.
    pub fn config(&self) -> &GpuConfig {
        &self.config
    }

    /// The context.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.dev.ctx
    }

    /// The device's own stream (raw launches, single-stream operations, timing).
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.dev.kernels
    }

    pub(crate) fn staging(&self) -> &HostPool {
        &self.staging
    }

    /// `n` streams for one operation, from the pool (new ones when it runs short).
    pub fn lease_streams(&self, n: usize) -> Result<Streams<'_>> {
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

    /// Bytes of dynamic shared memory a block may use: the device's maximum, or the cap
    /// of [`GpuConfig::set_shared_memory_limit`].
    pub fn shared_memory(&self) -> usize {
        self.dev.smem_optin.min(self.config.shared_memory_limit())
    }

    /// Waits for the device's own stream.
    pub fn sync(&self) -> Result<()> {
        self.sync_stream(&self.stream)
    }

    /// Waits for `stream`. (An injected fault fails it after the wait, as a real error
    /// of earlier work would: no copy is then still writing into host memory.)
    pub fn sync_stream(&self, stream: &CudaStream) -> Result<()> {
        let waited = stream.synchronize().map_err(cuda);
        self.config.check_fault(FaultSite::Sync)?;
        waited
    }

    /// Waits for `event` (an injected fault after the wait, as for [`Gpu::sync_stream`]).
    pub(crate) fn sync_event(&self, event: &cudarc::driver::CudaEvent) -> Result<()> {
        let waited = event.synchronize().map_err(cuda);
        self.config.check_fault(FaultSite::Sync)?;
        waited
    }

    /// Times `f` on the device's own stream with events, in milliseconds.
    pub fn time_ms(&self, f: impl FnOnce() -> Result<()>) -> Result<f64> {
        let flags = Some(CUevent_flags::CU_EVENT_DEFAULT);
        let start = self.stream.record_event(flags).map_err(cuda)?;
        f()?;
        let end = self.stream.record_event(flags).map_err(cuda)?;
        end.synchronize().map_err(cuda)?;
        Ok(start.elapsed_ms(&end).map_err(cuda)? as f64)
    }
}
