//! The divisor trick (FLINT's `fmpz_mat_det_divisor`): in the solution of `A x = b` for
//! a `±1` vector `b`, by Dixon's lifting, the denominator `d` of an entry divides
//! `det A` and is most of it for most matrices; then only `det A / d`, bounded by
//! Hadamard / `d`, is left to the primes ([`super::det_modular`]). On the GPU the
//! matrix stays there as limbs for those primes, and while the host reconstructs `d`
//! the device computes `det A` modulo the primes a random matrix's `det A / d` needs.

use super::det::divisor_rhs;
use super::det_bound::{float_bound_cpu, float_bound_on, slack};
use super::lift;
use super::method::Lifting;
use crate::backend::gpu::ops::{self, DeviceLimbs, LimbsOn};
use crate::backend::gpu::Gpu;
use crate::backend::plan::across_ranks;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::det_bound_float::FloatBound;
use crate::mat::matrix::IntMatrix;
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use rug::Integer;
use std::collections::HashMap;
use std::sync::Arc;

/// A divisor of `det A` found by lifting.
pub(crate) struct Found {
    /// `d > 0`, a divisor of `det A`.
    pub d: Integer,
    /// Lifting steps taken.
    pub steps: usize,
    /// Primes a step lifted by.
    pub primes: usize,
    /// Devices the lifting was split across.
    pub devices: usize,
    /// `A` left on the device by a lifting that ran there, with the determinants it
    /// computed meanwhile (prime → `det A mod p`).
    pub on_device: Option<OnDevice>,
    /// The floating-point bound on `|det A|` (on the device of the lifting, or on the
    /// CPU after a lifting there), when it was computed.
    pub float: Option<FloatBound>,
}

/// `A` on the devices of the lifting, and `det A` modulo the primes done there so far.
pub(crate) struct OnDevice {
    /// `A` as signed 29-bit limbs on each device.
    pub limbs: Vec<(Arc<Gpu>, DeviceLimbs)>,
    /// `det A mod p` by prime.
    pub dets: HashMap<u32, u32>,
}

/// What the lifting gave.
pub(crate) enum Divisor {
    /// A divisor.
    Found(Found),
    /// `A` is singular modulo every prime tried (the multimodular path decides).
    None,
    /// `A` has a zero column: `det A = 0`.
    ZeroColumn,
}

/// Bits of `|det A / d|` to prepare for before `d` is known: a random `n × n` matrix's
/// determinant is about `0.73·n` bits below Hadamard's bound (measured at 800² and
/// 1000²) and `d` is then nearly all of it; a margin on top. With a bound `slack` bits
/// above its estimate of `log2 |det A|` ([`super::det_bound`]), that slack and a
/// smaller margin. More primes are taken after `d` when needed.
fn likely_quotient_bits(n: usize, slack: Option<u64>) -> u64 {
    match slack {
        Some(s) => s + 16,
        None => (n as u64 * 3).div_ceil(4) + 64,
    }
}

/// A divisor of `det A` by lifting where `lifting` says, its stages on `laps`.
pub(crate) fn divisor(
    a: &IntMatrix,
    backend: &Backend,
    lifting: Lifting,
    laps: &mut Laps,
) -> Result<Divisor> {
    let b = divisor_rhs(a.rows());
    let found = match lifting {
        Lifting::Gpu => {
            // The float bound first, then the primes it makes likely, shared among the
            // MPI ranks too (each lifted on its own device).
            let dets = |on: &LimbsOn| {
                let float = float_bound_on(on)?;
                let likely =
                    RnsBasis::for_bits(likely_quotient_bits(a.rows(), float.as_ref().map(slack)));
                let moduli = likely.moduli();
                let got = across_ranks(moduli.len(), 1, |r| ops::det_mod_limbs_on(on, &moduli[r]))?;
                Ok((float, likely.primes().into_iter().zip(got).collect()))
            };
            lift::gpu::divisor(backend, a, &b, dets).map(|g| {
                g.map(|g| {
                    laps.append(g.laps);
                    let (float, dets) = g.meanwhile;
                    let on_device = OnDevice {
                        limbs: g.limbs,
                        dets,
                    };
                    let stats = (g.steps, g.primes, g.devices);
                    (g.divisor, stats, Some(on_device), float)
                })
            })
        }
        Lifting::Cpu => {
            lift::cpu::divisor(a, &b).map(|d| d.map(|(d, s)| (d, (s, 1, 1), None, None)))
        }
    };
    // The device's lifting timed its own stages.
    if matches!(found, Ok(None) | Ok(Some((_, _, None, _)))) {
        laps.stage("dixon lifting")?;
    }
    match found {
        Ok(Some((d, (steps, primes, devices), on_device, float))) => {
            // The device's bound, or (after a lifting on the CPU) the CPU's.
            let float = match on_device {
                Some(_) => float,
                None => {
                    let f = float_bound_cpu(a);
                    laps.lap("float bound (cpu)");
                    f
                }
            };
            Ok(Divisor::Found(Found {
                d,
                steps,
                primes,
                devices,
                float,
                on_device,
            }))
        }
        Ok(None) => Ok(Divisor::None),
        Err(Error::Singular { .. }) => Ok(Divisor::ZeroColumn),
        Err(e) => Err(e),
    }
}
