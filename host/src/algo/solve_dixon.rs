//! Solving `A X = B` over Q by Dixon's lifting ([`super::lift`]) on the CPU or the GPU,
//! and the solution's fractions over its common denominator.

use super::lift;
use super::method::Lifting;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{IntMatrix, RatMatrix};
use crate::num::fractions::over_denominator;
use crate::timing::Laps;

/// `X` by lifting where `lifting` says (stages on `laps`); `None` when `A` is singular
/// modulo every prime tried (the multimodular method then decides).
pub(crate) fn solve_dixon(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
    lifting: Lifting,
    laps: &mut Laps,
) -> Result<Option<RatMatrix>> {
    let lifted = match lifting {
        Lifting::Gpu => lift::gpu::solve(backend, a, b)?.map(|(s, lifting)| {
            laps.append(lifting);
            s
        }),
        Lifting::Cpu => {
            let s = lift::cpu::solve(a, b)?;
            laps.stage("dixon lifting")?;
            s
        }
    };
    let Some(s) = lifted else {
        return Ok(None);
    };
    let x =
        over_denominator(s.numerators, &s.denominator).ok_or(Error::Singular { prime: None })?;
    let x = RatMatrix::new(a.rows(), b.cols(), x)?;
    laps.lap("fractions");
    Ok(Some(x))
}
