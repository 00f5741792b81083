//! Solving `A X = B` over Q by Dixon's lifting ([`super::lift`]) on the CPU or the GPU:
//! the numerators over their least common denominator.

use super::lift;
use super::lift::DixonSolution;
use super::method::Lifting;
use crate::backend::Backend;
use crate::error::Result;
use crate::mat::matrix::IntMatrix;
use crate::timing::Laps;

/// `X` by lifting where `lifting` says, to Cramer's bounds `bits` (stages on `laps`);
/// `None` when `A` is singular modulo every prime tried (the multimodular method then
/// decides).
pub(crate) fn solve_dixon(
    (a, b): (&IntMatrix, &IntMatrix),
    bits: (u64, u64),
    backend: &Backend,
    lifting: Lifting,
    laps: &mut Laps,
) -> Result<Option<DixonSolution>> {
    Ok(match lifting {
        Lifting::Gpu => lift::gpu::solve_within(backend, (a, b), bits)?.map(|(s, lifting)| {
            laps.append(lifting);
            s
        }),
        Lifting::Cpu => {
            let s = lift::cpu::solve_within(a, b, bits)?;
            laps.stage("dixon lifting")?;
            s
        }
    })
}
