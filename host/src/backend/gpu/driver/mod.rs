//! The driver layer: one [`Gpu`] per device ordinal (context, module, kernels, settings,
//! streams, a per-device cache), and every crossing of bytes between host and device
//! (`transfer`, `pipeline`, `staging`); nothing above this layer calls the driver's
//! copies. Errors map onto [`crate::Error`] with the driver's result kept. Buffers,
//! streams and copies are crate-internal; benchmarks and tests reach them through
//! `raw` (the `raw-gpu` feature).

pub mod bandwidth;
pub mod config;
pub(crate) mod device;
pub mod fault;
pub(crate) mod ipc;
pub(crate) mod memory;
pub mod module;
pub(crate) mod peer;
pub(crate) mod pipeline;
#[cfg(feature = "raw-gpu")]
pub mod raw;
pub(crate) mod staging;
mod streams;
pub(crate) mod transfer;
pub mod watch;

use crate::error::{Error, Result};
use config::GpuConfig;
use cudarc::driver::{CudaContext, CudaStream};
use device::{cuda, Device, Kernels};
use staging::HostPool;
use std::any::Any;
use std::sync::{Arc, Mutex, OnceLock};

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
    /// Per-basis device tables kept for later calls ([`Gpu::cached`]).
    cache: Cache,
    /// The measured speed (`ops::speed`).
    pub(crate) speed: OnceLock<f64>,
    /// Work the host gave up waiting for ([`watch`]).
    stalled: Mutex<Option<watch::Stalled>>,
}

/// Values derived from a key (the primes of a basis) kept on a device for the next
/// calls: the last [`CACHED`] of them, most recent last.
#[derive(Debug, Default)]
struct Cache {
    entries: Mutex<Vec<(Vec<u32>, Cached)>>,
}

/// A cached value of any type.
type Cached = Arc<dyn Any + Send + Sync>;

/// Keys a device's cache keeps.
const CACHED: usize = 4;

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
            cache: Cache::default(),
            speed: OnceLock::new(),
            stalled: Mutex::new(None),
        })
    }

    /// The device's name.
    pub fn name(&self) -> &str {
        &self.dev.name
    }

    /// How the device's start went: the time of each part, and whether the kernels
    /// loaded as machine code or went through the driver's JIT.
    pub fn start_times(&self) -> module::StartTimes {
        self.dev.start
    }

    /// The device's ordinal.
    pub fn ordinal(&self) -> usize {
        self.dev.ordinal
    }

    /// The device's streaming multiprocessors.
    pub fn multiprocessors(&self) -> usize {
        self.dev.sms
    }

    /// Whether the device runs Hopper's warpgroup products (`rns_matmul_wgmma`: a 9.0
    /// device, the `sm_90a` module loaded).
    pub fn has_wgmma(&self) -> bool {
        self.dev.kernels.matmul_wgmma.is_some()
    }

    /// The device's settings.
    pub fn config(&self) -> &GpuConfig {
        &self.config
    }

    /// The context.
    pub(crate) fn context(&self) -> &Arc<CudaContext> {
        &self.dev.ctx
    }

    /// The device's own stream (raw launches, single-stream operations, timing).
    pub(crate) fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    pub(crate) fn kernels(&self) -> &Kernels {
        &self.dev.kernels
    }

    pub(crate) fn staging(&self) -> &HostPool {
        &self.staging
    }

    /// Bytes of dynamic shared memory a block may use: the device's maximum, or the cap
    /// of [`GpuConfig::set_shared_memory_limit`].
    pub fn shared_memory(&self) -> usize {
        self.dev.smem_optin.min(self.config.shared_memory_limit())
    }

    /// The value cached under `key` of type `T`, made by `make` on first use (or when
    /// the cache has dropped it): per-basis tables built on the device once.
    pub(crate) fn cached<T: Any + Send + Sync>(
        &self,
        key: &[u32],
        make: impl FnOnce() -> Result<T>,
    ) -> Result<Arc<T>> {
        let lock = || self.cache.entries.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(v) = lock()
            .iter()
            .filter(|(k, _)| k.as_slice() == key)
            .find_map(|(_, v)| v.clone().downcast::<T>().ok())
        {
            return Ok(v);
        }
        let v = Arc::new(make()?);
        let mut entries = lock();
        entries.push((key.to_vec(), v.clone()));
        if entries.len() > CACHED {
            entries.remove(0);
        }
        Ok(v)
    }
}
