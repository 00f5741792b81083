//! The divisor trick's lifting on the GPU ([`crate::backend::gpu::dixon`]): the same
//! primes, step counts and reconstruction as [`crate::dixon::det_divisor`], so the same
//! divisor, with the inverse and the lifting steps on the device. It applies when the
//! residuals fit in 128 bits (`rns_core::padic::residual_fits`: entries up to about
//! `95 − log2 n` bits) and the rows in shared memory; the matrix stays on the device
//! for the primes that follow.

use crate::backend::gpu::dixon::DeviceLimbs;
use crate::backend::gpu::Gpu;
use crate::bounds::cramer_bits;
use crate::dixon::{divisor_of, limb_of, steps_for, Expansion, PRIMES_TRIED};
use crate::error::{Error, Result};
use crate::matrix::{require_rhs, require_square, IntMatrix};
use crate::timing::Laps;
use rayon::prelude::*;
use rns_core::padic::{limbs_for_bits, residual_fits};
use rns_core::{prime, Modulus};
use rug::Integer;
use std::sync::Arc;

/// What the lifting on the device found.
pub struct GpuDivisor {
    /// `d`, a divisor of `det A` (positive).
    pub divisor: Integer,
    /// Lifting steps taken.
    pub steps: usize,
    /// `A` on the device, as signed 29-bit limbs.
    pub limbs: DeviceLimbs,
    /// The stages: bounds and limbs, upload, inverse, steps, reconstruction.
    pub laps: Laps,
}

/// Whether the lifting for `A x = b` runs on `gpu`: the residuals fit in 128 bits and
/// the rows of `A` and of its inverse in the multiprocessors' shared memory
/// ([`Gpu::lift_layout`]: up to about 1300 × 1300 for 64-bit entries on an H200).
pub fn lifts_on_gpu(gpu: &Gpu, a: &IntMatrix, b: &IntMatrix) -> bool {
    let n = a.rows();
    if n == 0 || gpu.lift_layout(n, 1).is_none() {
        return false;
    }
    let bits = |m: &IntMatrix| m.max_bits().min(u32::MAX as u64) as u32;
    let a_bits = bits(a);
    residual_fits(n, a_bits, bits(b)) && gpu.lift_layout(n, limbs_for_bits(a_bits)).is_some()
}

/// [`crate::dixon::det_divisor`] on `gpu`, for `A` and one right-hand side `b` that
/// [`lifts_on_gpu`]. `None` when `A` is singular modulo every prime tried;
/// `Error::Singular` when it has a zero column.
pub fn det_divisor_gpu(gpu: &Arc<Gpu>, a: &IntMatrix, b: &IntMatrix) -> Result<Option<GpuDivisor>> {
    let n = require_square(a.rows(), a.cols(), "the determinant")?;
    require_rhs(n, b.rows())?;
    let mut laps = Laps::start();
    let a_bits = a.max_bits().min(u32::MAX as u64) as u32;
    let b_bits = b.max_bits().min(u32::MAX as u64) as u32;
    let l = limbs_for_bits(a_bits);
    let fits = residual_fits(n, a_bits, b_bits) && gpu.lift_layout(n, l).is_some();
    if n == 0 || b.cols() != 1 || !fits {
        return Err(Error::Internal(
            "the GPU lifting takes a non-empty matrix, one right-hand side, residuals of 128 \
             bits and rows that fit in shared memory"
                .into(),
        ));
    }
    let bits = cramer_bits(a, b).ok_or(Error::Singular { prime: None })?;
    // The limbs as device words, limb-major, straight from the entries.
    let mut words = vec![0u32; l * n * n];
    words
        .par_chunks_mut(n * n)
        .enumerate()
        .for_each(|(t, limb)| {
            limb.par_iter_mut()
                .zip(a.entries().par_iter())
                .for_each(|(w, x)| *w = limb_of(x, t) as u32)
        });
    let rhs: Vec<i128> = b
        .entries()
        .iter()
        .map(|v| v.to_i128().expect("a right-hand side within 128 bits"))
        .collect();
    laps.lap("lift: bounds, limbs");
    let stream = gpu.stream();
    let limbs = gpu.upload_limbs(stream, &words, n, l)?;
    gpu.sync_stream(stream)?;
    laps.lap("lift: upload");
    let primes = prime::moduli_descending(|_| false)
        .take(PRIMES_TRIED)
        .map(|p| Modulus::new(p).expect("a generated prime"));
    let Some(lifted) = gpu.lift_first(&limbs, &rhs, primes, |p| steps_for(bits, p))? else {
        return Ok(None);
    };
    let lifting = laps.restart();
    laps.add("lift: inverse mod p", lifted.inverse_time);
    laps.add("lift: steps", lifting.saturating_sub(lifted.inverse_time));
    let x = Expansion {
        digits: lifted.digits.iter().map(|&d| vec![d]).collect(),
        p: lifted.prime,
    };
    let (divisor, steps) = divisor_of(&x)?;
    laps.lap("lift: reconstruct");
    Ok(Some(GpuDivisor {
        divisor,
        steps,
        limbs,
        laps,
    }))
}
