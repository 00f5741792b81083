//! [`Method`]: which algorithm an exact determinant or solve over Q uses.

use crate::backend::Backend;
use std::fmt;

/// Which algorithm an exact determinant or solve over Q uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Method {
    /// The library chooses: p-adic on the CPU backend for systems and determinants large
    /// enough to gain from it, and on the GPU for large determinants and large systems
    /// with one right-hand side whose lifting fits the device; multimodular otherwise.
    #[default]
    Auto,
    /// Dixon's p-adic lifting ([`crate::dixon`]): a solve by lifting; a determinant by
    /// FLINT's divisor trick (the lifted solution of `A x = b` for a random `±1` vector
    /// `b` gives a large divisor `d` of `det A`, then `det A / d` modulo just enough
    /// primes). Falls back to multimodular when `A` is singular modulo the primes it tries.
    Dixon,
    /// Every answer modulo enough primes for its Hadamard bound, then CRT.
    Multimodular,
}

/// Below this dimension `Auto` determinants stay multimodular.
pub const DIXON_DET_MIN: usize = 40;
/// Below this dimension `Auto` determinants on the GPU stay multimodular.
pub const DIXON_GPU_DET_MIN: usize = 400;
/// Below this dimension `Auto` solves on the GPU stay multimodular.
pub const DIXON_GPU_SOLVE_MIN: usize = 300;
/// Below this dimension `Auto` solves stay multimodular.
pub const DIXON_SOLVE_MIN: usize = 10;

impl Method {
    /// Whether a determinant of an `n × n` matrix on `backend` lifts p-adically;
    /// `on_device`: whether the lifting would run on the GPU (its residuals fit).
    pub fn det_lifts(self, n: usize, backend: &Backend, on_device: bool) -> bool {
        match self {
            Method::Auto if backend.gpu().is_some() => on_device && n >= DIXON_GPU_DET_MIN,
            Method::Auto => n >= DIXON_DET_MIN,
            Method::Dixon => true,
            Method::Multimodular => false,
        }
    }

    /// Whether solving an `n × n` system with `l` right-hand sides on `backend` lifts
    /// p-adically (each lifting step costs `n²·l`: few right-hand sides only, for `Auto`);
    /// `on_device`: whether the lifting would run on the GPU (one right-hand side whose
    /// residuals fit).
    pub fn solve_lifts(self, n: usize, l: usize, backend: &Backend, on_device: bool) -> bool {
        match self {
            Method::Auto if backend.gpu().is_some() => on_device && n >= DIXON_GPU_SOLVE_MIN,
            Method::Auto => n >= DIXON_SOLVE_MIN && l <= (n / 8).max(2),
            Method::Dixon => true,
            Method::Multimodular => false,
        }
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
