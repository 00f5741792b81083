//! The determinant's floating-point bound ([`crate::mat::det_bound_float`]) beside the
//! divisor trick: where it lifts on a GPU, from the lifting's limbs on the first device
//! while the host reconstructs the divisor `d`; where it lifts on the CPU, there after
//! the lifting. `d` is then nearly all of `|det A|`, so
//! `det A / d` needs the primes of `2^bound / d`: about `0.73·n` bits with Hadamard's
//! bound, a few with this one.

use crate::backend::cpu::det_bound::factor;
use crate::backend::gpu::ops::det_bound::factor_limbs;
use crate::backend::gpu::ops::LimbsOn;
use crate::cluster;
use crate::error::Result;
use crate::mat::det_bound_float::{log2_bound, scale, FloatBound};
use crate::mat::matrix::IntMatrix;

/// The floating-point bound of the matrix whose limbs `on` holds (every device holds all
/// of it; the first computes). `None` under several MPI ranks (they keep Hadamard's, so
/// that they agree on the primes), when it does not fit the device, or when the
/// Cholesky factorization breaks down.
pub(crate) fn float_bound_on(on: &LimbsOn) -> Result<Option<FloatBound>> {
    let Some((gpu, limbs)) = on.first() else {
        return Ok(None);
    };
    if cluster::size() != 1 {
        return Ok(None);
    }
    Ok(factor_limbs(gpu, limbs)?.and_then(|f| log2_bound(&f, 0)))
}

/// The floating-point bound of `a` on this machine's cores; `None` under several MPI
/// ranks, for a zero column, or when the Cholesky factorization breaks down.
pub(crate) fn float_bound_cpu(a: &IntMatrix) -> Option<FloatBound> {
    if cluster::size() != 1 {
        return None;
    }
    let s = scale(a)?;
    log2_bound(&factor(&s)?, s.exponent_sum())
}

/// Bits of `bound` above its own estimate of `log2 |det A|`.
pub(crate) fn slack(bound: &FloatBound) -> u64 {
    (bound.bits as f64 - bound.estimate).max(0.0).ceil() as u64
}
