//! Exact determinant over Z through residues.
//!
//! Multimodular: Hadamard bound → number of primes → the matrix reduced modulo each
//! prime → Gaussian elimination modulo each prime (in parallel over primes) → CRT in the
//! signed range, checked against the redundant prime.
//!
//! Divisor trick ([`Method::Dixon`], as FLINT's `fmpz_mat_det_divisor`): in the
//! solution of `A x = b` for a `±1` vector `b`, by Dixon's lifting, the denominator `d`
//! of an entry divides `det A` and is most of it for most matrices
//! ([`crate::algo::dixon::det_divisor`]); then only `det A / d`, bounded by Hadamard / `d`, is
//! computed modulo primes (those not dividing `d`), exactly as above. Never
//! probabilistic: `d` divides `det A` whatever `b` is.

pub use crate::mat::bounds::{hadamard_bits, log2_norm};

use crate::algo::dixon::det_divisor;
use crate::algo::dixon_gpu::{det_divisor_gpu, lifts_on_gpu};
use crate::algo::method::{Lifting, Method};
use crate::backend::gpu::ops;
use crate::backend::gpu::ops::DeviceLimbs;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{require_square, IntMatrix};
use crate::mat::modmat::ModMatrices;
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use rns_core::Modulus;
use rug::Integer;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

/// What a determinant computation did and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct DetStats {
    /// Bits of the Hadamard bound: `|det| ≤ 2^bound_bits`.
    pub bound_bits: u64,
    /// Number of primes used for the range (plus one redundant prime).
    pub primes: usize,
    /// The backend that ran the modular determinants.
    pub backend: &'static str,
    /// The method that ran: `multimodular`, or `dixon` (the divisor trick).
    pub method: &'static str,
    /// Bits of the divisor `d` of the divisor trick (1 without it: `d = 1`).
    pub divisor_bits: u64,
    /// Dixon lifting steps of the divisor trick.
    pub lifting_steps: usize,
    /// Stage names and their wall-clock times, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

/// The exact determinant of a square integer matrix.
pub fn det(a: &IntMatrix, backend: &Backend) -> Result<Integer> {
    det_with_stats(a, backend).map(|(d, _)| d)
}

/// The exact determinant, with the primes used and the time of each stage
/// ([`Method::Auto`]).
pub fn det_with_stats(a: &IntMatrix, backend: &Backend) -> Result<(Integer, DetStats)> {
    det_with_method(a, backend, Method::Auto)
}

/// The exact determinant by `method`, with what it did and the time of each stage.
pub fn det_with_method(
    a: &IntMatrix,
    backend: &Backend,
    method: Method,
) -> Result<(Integer, DetStats)> {
    let n = require_square(a.rows(), a.cols(), "the determinant")?;
    let mut stats = DetStats {
        backend: backend.name(),
        method: Method::Multimodular.name(),
        ..DetStats::default()
    };
    let mut laps = Laps::start();
    let Some(bits) = hadamard_bits(a) else {
        laps.lap("bound");
        stats.stages = laps.into_stages();
        return Ok((Integer::new(), stats));
    };
    stats.bound_bits = bits;
    laps.stage("bound")?;
    // The divisor d of the divisor trick (1 without it), and A left on the device when
    // the lifting ran there.
    let mut d = Integer::from(1);
    let mut on_device = None;
    // The determinant modulo the primes likely needed, computed on the device while the
    // host reconstructs d.
    let mut first_dets = HashMap::new();
    let b = IntMatrix::new(n, 1, (0..n).map(|i| plus_minus_one(i as u64)).collect())?;
    let fits_gpu = || backend.gpu().is_some_and(|g| lifts_on_gpu(g, a, &b));
    let lifting = (n > 0)
        .then(|| method.det_lifting(n, backend, fits_gpu))
        .flatten();
    if let Some(lifting) = lifting {
        let found = match (lifting, backend.gpu()) {
            (Lifting::Gpu, Some(gpu)) => {
                let likely = RnsBasis::for_bits(likely_quotient_bits(n));
                let dets = |limbs: &DeviceLimbs| {
                    let got = ops::det_mod_limbs(gpu, limbs, likely.moduli())?;
                    Ok(likely.primes().into_iter().zip(got))
                };
                det_divisor_gpu(gpu, a, &b, dets).map(|g| {
                    g.map(|g| {
                        laps.append(g.laps);
                        on_device = Some(g.limbs);
                        first_dets.extend(g.meanwhile);
                        (g.divisor, g.steps)
                    })
                })
            }
            _ => det_divisor(a, &b),
        };
        match found {
            Ok(Some((divisor, steps))) => {
                stats.method = Method::Dixon.name();
                stats.lifting_steps = steps;
                d = divisor;
            }
            // Singular modulo the primes tried: the multimodular path decides.
            Ok(None) => {}
            // A zero column.
            Err(Error::Singular { .. }) => {
                laps.lap("dixon lifting");
                stats.stages = laps.into_stages();
                return Ok((Integer::new(), stats));
            }
            Err(e) => return Err(e),
        }
        if on_device.is_none() {
            laps.stage("dixon lifting")?;
        }
    }
    stats.divisor_bits = d.significant_bits() as u64;
    // |det / d| ≤ 2^bits / d ≤ 2^(bits − ⌊log2 d⌋).
    let e_bits = bits
        .saturating_sub(stats.divisor_bits.saturating_sub(1))
        .max(1);
    let basis = Arc::new(RnsBasis::for_bits_excluding(e_bits, |p| d.mod_u(p) == 0));
    stats.primes = basis.range_len();
    laps.stage("primes")?;
    let dets = if d == 1 {
        backend.det_integers(&basis, a.entries(), n)?
    } else {
        // Entries may exceed this small basis's range: reduced modulo each prime instead
        // (on the device from the lifting's limbs, the few primes with the whole GPU).
        let mut dets = match (&on_device, backend.gpu()) {
            (Some(limbs), Some(gpu)) => {
                // The primes not among those done while d was reconstructed.
                let rest: Vec<Modulus> = basis
                    .moduli()
                    .iter()
                    .filter(|m| !first_dets.contains_key(&m.m))
                    .copied()
                    .collect();
                let got = ops::det_mod_limbs(gpu, limbs, &rest)?;
                first_dets.extend(rest.iter().map(|m| m.m).zip(got));
                basis.moduli().iter().map(|m| first_dets[&m.m]).collect()
            }
            _ => backend.det_mod(&ModMatrices::from_int_matrix(a, &basis.primes())?)?,
        };
        for (r, m) in dets.iter_mut().zip(basis.moduli()) {
            let inv = m.inv(d.mod_u(m.m)).ok_or_else(|| {
                Error::Internal("a prime of the basis divides the divisor".into())
            })?;
            *r = m.mul(*r, inv);
        }
        dets
    };
    laps.stage("reduce, det mod p")?;
    let e = backend.reconstruct(&basis, 1, dets, "the determinant")?;
    laps.lap("crt");
    stats.stages = laps.into_stages();
    let e = e.into_iter().next().expect("one value");
    Ok((e * d, stats))
}

/// Bits of `|det A / d|` to prepare for before `d` is known: a random `n × n` matrix's
/// determinant is about `0.73·n` bits below Hadamard's bound (measured at 800² and
/// 1000²) and `d` is then nearly all of it; a margin on top. More primes are taken after
/// `d` when needed.
fn likely_quotient_bits(n: usize) -> u64 {
    (n as u64 * 3).div_ceil(4) + 64
}

/// Entry `i` of the divisor trick's right-hand side: `±1` from a fixed hash of `i`
/// (any `±1` vector gives a divisor of the determinant; a varied one a large divisor).
fn plus_minus_one(i: u64) -> Integer {
    let h = (i.wrapping_add(1)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    if (h >> 63) == 1 {
        Integer::from(1)
    } else {
        Integer::from(-1)
    }
}
