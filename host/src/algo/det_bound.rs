//! The determinant's floating-point bound ([`crate::mat::det_bound_float`]) where the
//! divisor trick lifts on a GPU: from the lifting's limbs on the first device, while
//! the host reconstructs the divisor `d`. `d` is then nearly all of `|det A|`, so
//! `det A / d` needs the primes of `2^bound / d`: about `0.73·n` bits with Hadamard's
//! bound, a few with this one.

use crate::backend::gpu::ops::det_bound::factor_limbs;
use crate::backend::gpu::ops::LimbsOn;
use crate::cluster;
use crate::error::Result;
use crate::mat::det_bound_float::{log2_bound, FloatBound};

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

/// Bits of `bound` above its own estimate of `log2 |det A|`.
pub(crate) fn slack(bound: &FloatBound) -> u64 {
    (bound.bits as f64 - bound.estimate).max(0.0).ceil() as u64
}
