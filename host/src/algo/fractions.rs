//! A solve's fractions `y_i / d` in lowest terms ([`crate::num::fractions`]): the
//! numerators proved coprime to `d`'s rough part at once by one product on the device
//! (`backend::gpu::ops::redc`) when the plan gives a GPU for their size, else by the
//! host's products in chunks (also where the device's product does not fit its memory, or
//! finds a common factor).

use crate::backend::gpu::ops;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::num::fractions::over_denominator_by;
use crate::timing::Laps;
use rug::{Integer, Rational};

/// `y_i / d` for every numerator, in lowest terms with positive denominators;
/// [`Error::Singular`] for `d = 0`.
pub fn lowest_terms(
    nums: Vec<Integer>,
    d: &Integer,
    backend: &Backend,
    laps: &mut Laps,
) -> Result<Vec<Rational>> {
    let proved = |y: &[Integer], r: &Integer| match backend
        .coprime_gpu(y.len(), r.significant_bits() as u64)
    {
        Some(gpu) => ops::coprime_to(gpu, y, r, laps),
        None => Ok(None),
    };
    over_denominator_by(nums, d, proved)?.ok_or(Error::Singular { prime: None })
}
