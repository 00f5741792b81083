//! The exact determinant over Z: a short dispatcher, as FLINT's `fmpz_mat/det.c`.
//! Hadamard's bound first (a zero row or column: 0); then, where [`Method`] says so, a
//! large divisor `d` of `det A` by Dixon's lifting ([`det_divisor`](super::det_divisor),
//! the divisor trick); then `det A / d` modulo just enough primes and the CRT
//! ([`det_modular`](super::det_modular); `d = 1` without the divisor). Never
//! probabilistic: `d` divides `det A` whatever it is.

use super::det_divisor::{divisor, Divisor};
use super::det_modular::det_given_divisor;
use super::lift;
use super::method::{Lifting, Method};
use crate::backend::Backend;
use crate::error::Result;
use crate::mat::bounds::hadamard_bits;
use crate::mat::matrix::{require_square, IntMatrix};
use crate::timing::Laps;
use rug::Integer;
use std::time::Duration;

/// How to compute a determinant.
///
/// ```
/// use rns::{det_with, Backend, DetOptions, IntMatrix, Method};
///
/// let a = IntMatrix::from_i64(2, 2, &[1, 2, 3, 4])?;
/// let opts = DetOptions { method: Method::Multimodular };
/// assert_eq!(det_with(&a, &Backend::Cpu, &opts)?.0, -2);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DetOptions {
    /// The algorithm ([`Method::Auto`] by default).
    pub method: Method,
}

impl From<Method> for DetOptions {
    /// The options that pick `method`.
    fn from(method: Method) -> Self {
        Self { method }
    }
}

/// What a determinant computation did and how long each stage took.
///
/// ```
/// use rns::{det_with, Backend, DetOptions, IntMatrix};
///
/// let a = IntMatrix::from_i64(3, 3, &[5, 1, 0, 1, 5, 1, 0, 1, 5])?;
/// let (d, stats) = det_with(&a, &Backend::Cpu, &DetOptions::default())?;
/// assert_eq!(d, 115);
/// assert_eq!(stats.backend, "cpu");
/// for (stage, time) in &stats.stages {
///     println!("{stage}: {time:?}");
/// }
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct DetStats {
    /// Bits of the Hadamard bound: `|det| ≤ 2^bound_bits`.
    pub bound_bits: u64,
    /// Bits of the floating-point bound, where it was computed (with the divisor trick):
    /// `|det| ≤ 2^float_bound_bits`, within a few bits of `|det|` for a
    /// well-conditioned matrix; the primes follow the smaller bound.
    pub float_bound_bits: Option<u64>,
    /// Number of primes used for the range (plus one redundant prime).
    pub primes: usize,
    /// The backend that ran the modular determinants.
    pub backend: &'static str,
    /// The method that ran: `multimodular`, `dixon` (the divisor trick), or `direct`
    /// (orders 0 to 2 with [`Method::Auto`]: the entry, or `ad − bc`).
    pub method: &'static str,
    /// Bits of the divisor `d` of the divisor trick (1 without it: `d = 1`).
    pub divisor_bits: u64,
    /// Dixon lifting steps of the divisor trick.
    pub lifting_steps: usize,
    /// Primes each lifting step lifted by (the device lifts by up to four at once).
    pub lifting_primes: usize,
    /// Devices the lifting was split across (1 on the CPU and on one GPU; 0 without a
    /// lifting).
    pub lifting_devices: usize,
    /// Stage names and their wall-clock times, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

/// The exact determinant of a square integer matrix.
///
/// ```
/// use rns::{det, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 2, &[3, 1, 4, 2])?;
/// assert_eq!(det(&a, &Backend::Cpu)?, 2);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn det(a: &IntMatrix, backend: &Backend) -> Result<Integer> {
    det_with(a, backend, &DetOptions::default()).map(|(d, _)| d)
}

/// The exact determinant as `opts` say, with what was done and the time of each stage.
///
/// ```
/// use rns::{det_with, Backend, DetOptions, IntMatrix, Method};
///
/// let a = IntMatrix::from_i64(2, 2, &[4, 1, 2, 3])?;
/// let (d, _stats) = det_with(&a, &Backend::Cpu, &DetOptions::from(Method::Multimodular))?;
/// assert_eq!(d, 10);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn det_with(
    a: &IntMatrix,
    backend: &Backend,
    opts: &DetOptions,
) -> Result<(Integer, DetStats)> {
    let n = require_square(a.rows(), a.cols(), "the determinant")?;
    let mut stats = DetStats {
        backend: backend.name(),
        method: Method::Multimodular.name(),
        ..DetStats::default()
    };
    let mut laps = Laps::start();
    if n <= 2 && opts.method == Method::Auto {
        // As FLINT's `fmpz_mat_det`: the entry itself, or `ad − bc`.
        let e = a.entries();
        let det = match n {
            0 => Integer::from(1),
            1 => e[0].clone(),
            _ => Integer::from(&e[0] * &e[3]) - Integer::from(&e[1] * &e[2]),
        };
        stats.method = "direct";
        stats.bound_bits = u64::from(det.significant_bits()) + 1;
        laps.lap("direct");
        stats.stages = laps.into_stages();
        return Ok((det, stats));
    }
    let zero = |mut laps: Laps, mut stats: DetStats, stage| {
        laps.lap(stage);
        stats.stages = laps.into_stages();
        Ok((Integer::new(), stats))
    };
    let Some(bits) = hadamard_bits(a) else {
        return zero(laps, stats, "bound");
    };
    stats.bound_bits = bits;
    laps.stage("bound")?;
    let gpu = backend.lifting_gpu(n, 1);
    let fits_gpu = || gpu.is_some_and(|g| lift::gpu::fits(g, a, &divisor_rhs(n)));
    let lifting = (n > 0)
        .then(|| {
            opts.method
                .det_lifting((n, a.max_bits()), gpu.is_some(), fits_gpu)
        })
        .flatten();
    let d = match Lifting::agreed(lifting)? {
        Some(lifting) => match divisor(a, backend, lifting, &mut laps)? {
            Divisor::Found(d) => {
                stats.method = Method::Dixon.name();
                stats.lifting_steps = d.steps;
                stats.lifting_primes = d.primes;
                stats.lifting_devices = d.devices;
                Some(d)
            }
            // Singular modulo the primes tried: the multimodular path decides.
            Divisor::None => None,
            Divisor::ZeroColumn => return zero(laps, stats, "dixon lifting"),
        },
        None => None,
    };
    stats.divisor_bits = d.as_ref().map_or(1, |d| d.d.significant_bits() as u64);
    stats.float_bound_bits = d.as_ref().and_then(|d| d.float).map(|f| f.bits);
    let bits = stats.float_bound_bits.map_or(bits, |f| f.min(bits));
    let (det, primes) = det_given_divisor(a, backend, bits, d, &mut laps)?;
    stats.primes = primes;
    stats.stages = laps.into_stages();
    Ok((det, stats))
}

/// The divisor trick's right-hand side for an `n × n` matrix: `±1` entries from a fixed
/// hash of their index (any `±1` vector gives a divisor of the determinant; a varied
/// one a large divisor).
pub(crate) fn divisor_rhs(n: usize) -> IntMatrix {
    let pm = |i: usize| {
        let h = (i as u64)
            .wrapping_add(1)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
        Integer::from(if (h >> 63) == 1 { 1 } else { -1 })
    };
    IntMatrix::new(n, 1, (0..n).map(pm).collect()).expect("n entries")
}
