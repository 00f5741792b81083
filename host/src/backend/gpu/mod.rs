//! The GPU backend: the Rust kernels of `device/` (embedded as PTX, and as machine code
//! for sm_80 and sm_90 where `ptxas` was found at build time) driven through
//! `cudarc`'s driver API, loaded at run time so that everything builds without CUDA.
//!
//! Three layers, as in `cudarc` (the last two, and the raw buffers and copies of the
//! first, public only with the `raw-gpu` feature: benchmarks, tests, the comparison
//! runner):
//! - [`driver`]: the device ([`Gpu`]: context, module, kernels, settings, streams), its
//!   memory, and every host↔device copy (`transfer`, streamed in chunks by
//!   `pipeline` through the page-locked buffers of `driver::staging`);
//! - `launch`: the typed kernel launches, one file per kernel family, each shape
//!   checked against the buffers' lengths; the only code that launches;
//! - `ops`: the algorithms, functions over a device composed from the two below
//!   (vectors, comparison, conversions, matrices, eliminations, determinants of few
//!   primes, Dixon's lifting, resultants, device-resident values).
//!
//! One [`Gpu`] per device ordinal, opened on first use ([`Gpu::device`]); operations
//! run on streams leased from the device's pool, so calls from several host threads
//! overlap, and values used across streams are ordered by `cudarc`'s events.

pub mod driver;
#[cfg(feature = "raw-gpu")]
pub mod launch;
#[cfg(not(feature = "raw-gpu"))]
pub(crate) mod launch;
#[cfg(feature = "raw-gpu")]
pub mod ops;
#[cfg(not(feature = "raw-gpu"))]
pub(crate) mod ops;

/// The device buffer type of the launch functions (cudarc's), for callers that launch.
pub use cudarc::driver::CudaSlice;
pub use driver::config::{
    inverse_panel_by_size, GpuConfig, LiftRows, TensorSplit, COPRIME_ON_DEVICE_FROM,
    INVERSE_PANELS_FROM, NUMERATORS_ON_DEVICE_FROM, SMALL_MODULI_FROM, STALL_LIMIT, STALL_VAR,
    TENSOR_CORES_FROM, TENSOR_DET_FROM,
};
pub use driver::fault::{Fault, FaultSite};
pub use driver::module::{Code, StartTimes, MACHINE_CODE_BUILT, PTX};
pub use driver::watch::Expecting;
pub use driver::Gpu;
pub use launch::EqualKernel;
pub use ops::resident::DeviceWords;

/// Integers packed as for `ops::vectors::reduce_words`: word-major words, sign flags,
/// and the number of words per integer.
pub type Packed<'a> = (&'a [u32], &'a [u32], usize);
