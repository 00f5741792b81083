//! [`Method`]: which algorithm an exact determinant or solve over Q uses.

use crate::backend::plan::least_across_ranks;
use crate::error::Result;
use std::fmt;

/// Which algorithm an exact determinant or solve over Q uses.
///
/// ```
/// use rns::{det_with, Backend, DetOptions, IntMatrix, Method};
///
/// let a = IntMatrix::from_i64(3, 3, &[2, -1, 0, -1, 2, -1, 0, -1, 2])?;
/// for m in [Method::Auto, Method::Dixon, Method::Multimodular] {
///     assert_eq!(det_with(&a, &Backend::Cpu, &DetOptions::from(m))?.0, 4);
/// }
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The library chooses: p-adic on the CPU backend for systems and determinants large
    /// enough to gain from it, and on the GPU for large determinants and large systems
    /// with few right-hand sides (up to `n / 64`, one at least; any number from order
    /// 1500) whose lifting fits the device; multimodular otherwise.
    #[default]
    Auto,
    /// Dixon's p-adic lifting ([`super::lift`]): a solve by lifting; a determinant by
    /// FLINT's divisor trick (the lifted solution of `A x = b` for a random `±1` vector
    /// `b` gives a large divisor `d` of `det A`, then `det A / d` modulo just enough
    /// primes). Falls back to multimodular when `A` is singular modulo the primes it tries.
    Dixon,
    /// Every answer modulo enough primes for its Hadamard bound, then CRT.
    Multimodular,
}

/// Below this dimension `Auto` determinants stay multimodular.
pub const DIXON_DET_MIN: usize = 40;
/// Entry bits per row of the order above which `Auto` determinants on the CPU stay
/// multimodular (the lifting's steps grow as the square of the entries' size).
pub const DIXON_BITS_PER_ROW: u64 = 4;
/// Below this dimension `Auto` determinants on the GPU stay multimodular.
pub const DIXON_GPU_DET_MIN: usize = 400;
/// Below this dimension `Auto` solves on the GPU stay multimodular.
pub const DIXON_GPU_SOLVE_MIN: usize = 300;
/// Below this dimension `Auto` solves stay multimodular.
pub const DIXON_SOLVE_MIN: usize = 10;
/// `Auto` solves on the CPU lift with up to `max(2, n / DIXON_RHS_DIVISOR)` right-hand
/// sides.
pub const DIXON_RHS_DIVISOR: usize = 8;
/// `Auto` solves on the GPU lift with up to `max(1, n / DIXON_GPU_RHS_DIVISOR)`
/// right-hand sides.
pub const DIXON_GPU_RHS_DIVISOR: usize = 64;
/// From this dimension `Auto` solves on the GPU lift with any number of right-hand
/// sides (as blocks: `lift::gpu`). H100, 64 right-hand sides of 64-bit entries: 1000²
/// 9.5 s lifting against 8.7 s multimodular, 1500² 24.3 against 29.2 s, 2000² 49.6
/// against 74.0 s.
pub const DIXON_GPU_BLOCK_MIN: usize = 1500;

/// Where a p-adic lifting runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lifting {
    /// On the host's cores ([`super::lift::cpu`]).
    Cpu,
    /// On the GPU ([`super::lift::gpu`]).
    Gpu,
}

impl Lifting {
    /// `choice` as every MPI rank takes it: the most cautious of theirs (none, then the
    /// CPU, then the GPU; each rank chose from its own devices and memory), so that all
    /// ranks take one path to their collectives. `choice` itself with one rank.
    pub(crate) fn agreed(choice: Option<Lifting>) -> Result<Option<Lifting>> {
        let code = match choice {
            None => 0,
            Some(Lifting::Cpu) => 1,
            Some(Lifting::Gpu) => 2,
        };
        Ok(match least_across_ranks(code)? {
            0 => None,
            1 => Some(Lifting::Cpu),
            _ => Some(Lifting::Gpu),
        })
    }
}

impl Method {
    /// Where a determinant of an `n × n` matrix with entries of `bits` bits at most lifts
    /// p-adically, if it does, on a GPU backend (`on_gpu`) or the CPU's; `fits_gpu` says whether the lifting fits the GPU
    /// (asked only on a GPU backend, and only when the answer matters: it reads every
    /// entry).
    pub fn det_lifting(
        self,
        (n, bits): (usize, u64),
        on_gpu: bool,
        fits_gpu: impl FnOnce() -> bool,
    ) -> Option<Lifting> {
        // A step per 31 bits of `n·bits`, each `n²·bits/29` products, against `n·bits/31`
        // primes of `n³/3` each: lifting gains while the entries are short against `n`
        // (50² with 100 000-bit entries lifts for hours where the primes take a minute).
        let short = bits <= DIXON_BITS_PER_ROW * n as u64 + 64;
        let cpu = n >= DIXON_DET_MIN && short;
        self.lifting(on_gpu, cpu, n >= DIXON_GPU_DET_MIN, fits_gpu)
    }

    /// Where solving an `n × n` system with `l` right-hand sides lifts p-adically, if it
    /// does (each lifting step costs `n²·l`: few right-hand sides only, for `Auto`);
    /// `on_gpu` and `fits_gpu` as for [`Method::det_lifting`].
    pub fn solve_lifting(
        self,
        n: usize,
        l: usize,
        on_gpu: bool,
        fits_gpu: impl FnOnce() -> bool,
    ) -> Option<Lifting> {
        let cpu = n >= DIXON_SOLVE_MIN && l <= (n / DIXON_RHS_DIVISOR).max(2);
        // On the GPU the multimodular solve is fast and the lifting's reconstruction
        // (on the host, per entry) weighs more: at 500² 32 right-hand sides lift in
        // 1.29 s against 0.73 s; from 1500² the lifting's smaller per-entry work wins.
        let gpu = n >= DIXON_GPU_SOLVE_MIN
            && (l <= (n / DIXON_GPU_RHS_DIVISOR).max(1) || n >= DIXON_GPU_BLOCK_MIN);
        self.lifting(on_gpu, cpu, gpu, fits_gpu)
    }

    /// The choice of both: `Auto` lifts on the CPU backend when `cpu_auto`, on a GPU
    /// backend when `gpu_auto` and it fits the GPU; `Dixon` always, on the GPU when it
    /// fits.
    fn lifting(
        self,
        on_gpu: bool,
        cpu_auto: bool,
        gpu_auto: bool,
        fits_gpu: impl FnOnce() -> bool,
    ) -> Option<Lifting> {
        match self {
            Method::Auto if !on_gpu => cpu_auto.then_some(Lifting::Cpu),
            Method::Auto => (gpu_auto && fits_gpu()).then_some(Lifting::Gpu),
            Method::Dixon if on_gpu && fits_gpu() => Some(Lifting::Gpu),
            Method::Dixon => Some(Lifting::Cpu),
            Method::Multimodular => None,
        }
    }

    /// What `Auto` does, in words, from the same constants as the code (the CLI's help).
    pub fn auto_rule() -> String {
        format!(
            "dixon on the CPU backend for det with n ≥ {DIXON_DET_MIN} and solve with \
             n ≥ {DIXON_SOLVE_MIN} and up to max(2, n/{DIXON_RHS_DIVISOR}) right-hand sides; \
             on the GPU for det with n ≥ {DIXON_GPU_DET_MIN} and solve with \
             n ≥ {DIXON_GPU_SOLVE_MIN} and up to max(1, n/{DIXON_GPU_RHS_DIVISOR}) right-hand \
             sides (any number from n ≥ {DIXON_GPU_BLOCK_MIN}), when the lifting fits the \
             device; multimodular otherwise"
        )
    }

    /// Every method.
    pub const ALL: [Method; 3] = [Method::Auto, Method::Dixon, Method::Multimodular];

    /// The method called `name` (`auto`, `dixon`, `multimodular`).
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// The method's name.
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Dixon => "dixon",
            Method::Multimodular => "multimodular",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
