//! One API over two backends: the CPU (rayon) and the GPU (CUDA, Rust kernels).
//!
//! Every method validates its operands (same basis, same length) and returns the
//! same residues, bit for bit, whichever backend runs it. Where each piece of work runs
//! is decided in one place, [`plan`]; the operations give their CPU and GPU bodies:
//! vectors ([`vectors`]), conversions ([`convert`]), matrices modulo every channel
//! (`matrices`), resultants modulo every channel (`resultants`).

pub mod auto;
pub mod convert;
pub mod cost;
pub mod cpu;
mod devices;
mod exact_product;
pub mod gpu;
mod input;
mod matrices;
pub mod modular;
pub mod plan;
pub mod resident;
mod resultants;
pub mod split;
pub mod vectors;

pub use crate::num::op::Op;
pub use crate::num::pack::pack_words;
pub use convert::Computed;
pub use devices::Devices;
pub use gpu::Gpu;
pub use plan::{BackendChoice, Plan, AUTO_MIN_WORK, SPLIT_MIN_WORK};

pub(crate) use input::{check_arity, check_pair, check_range, scalar_residues};

use std::sync::Arc;

/// An execution backend.
///
/// ```
/// use rns::{Backend, BackendChoice};
///
/// // The GPU when one is usable, else all CPU cores.
/// let backend = Backend::select(BackendChoice::Auto)?;
/// assert!(["cpu", "gpu"].contains(&backend.name()));
/// assert_eq!(Backend::select(BackendChoice::Cpu)?.name(), "cpu");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum Backend {
    /// All cores of this machine through rayon.
    Cpu,
    /// A CUDA GPU. Operations with fewer than `min_work` residues run on the CPU
    /// instead (0 for an explicit GPU choice, [`AUTO_MIN_WORK`] for the automatic one).
    Gpu {
        /// The device.
        gpu: Arc<Gpu>,
        /// Smallest amount of work sent to the GPU.
        min_work: usize,
    },
    /// Several CUDA GPUs of this process: the channel-parallel computations (matrices,
    /// resultants) split their channels across all of them ([`split`]); the rest run on
    /// the first, as [`Backend::Gpu`] would.
    Gpus {
        /// The devices, the first one leading.
        gpus: Arc<[Arc<Gpu>]>,
        /// Smallest amount of work sent to the GPUs.
        min_work: usize,
        /// Smallest amount of work split across them (less runs on the first):
        /// [`SPLIT_MIN_WORK`] from [`Backend::on_gpus`].
        min_split: usize,
    },
}

impl Backend {
    /// A short name: `cpu` or `gpu` (one or several devices).
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu { .. } | Backend::Gpus { .. } => "gpu",
        }
    }

    /// The GPU of this backend (the first of several), if it has one.
    pub fn gpu(&self) -> Option<&Arc<Gpu>> {
        self.gpus().first()
    }

    /// The GPUs of this backend (none for the CPU).
    pub fn gpus(&self) -> &[Arc<Gpu>] {
        match self {
            Backend::Gpu { gpu, .. } => std::slice::from_ref(gpu),
            Backend::Gpus { gpus, .. } => gpus,
            Backend::Cpu => &[],
        }
    }
}
