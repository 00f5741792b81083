//! Checks of the backends' inputs: operands that agree, scalars and integers in the
//! signed range.

use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::op::Op;
use crate::num::vector::residue;
use rayon::prelude::*;
use rug::Integer;

/// [`Error::BasisMismatch`] or [`Error::LengthMismatch`] unless two operands agree.
pub(crate) fn check_pair(a: &RnsBasis, alen: usize, b: &RnsBasis, blen: usize) -> Result<()> {
    if !a.same_as(b) {
        return Err(Error::BasisMismatch);
    }
    if alen != blen {
        return Err(Error::LengthMismatch {
            left: alen,
            right: blen,
        });
    }
    Ok(())
}

/// [`Error::Shape`] unless `op` takes `given` vector operands.
pub(crate) fn check_arity(op: Op, given: usize) -> Result<()> {
    if given != op.arity() {
        return Err(Error::Shape(format!(
            "{op:?} takes {} operands, got {given}",
            op.arity()
        )));
    }
    Ok(())
}

/// The residues of `scalar` in every channel (empty for the operations without one):
/// [`Error::Shape`] when a scalar is given to an operation without one or missing, and
/// [`Error::OutOfRange`] outside the signed range.
pub(crate) fn scalar_residues(
    op: Op,
    basis: &RnsBasis,
    scalar: Option<&Integer>,
) -> Result<Vec<u32>> {
    match (op.has_scalar(), scalar) {
        (true, Some(s)) => {
            check_range(basis, std::slice::from_ref(s))?;
            Ok(basis.moduli().iter().map(|&m| residue(s, m)).collect())
        }
        (false, None) => Ok(Vec::new()),
        _ => Err(Error::Shape(format!(
            "{op:?}: scalar operand given or missing"
        ))),
    }
}

/// [`Error::OutOfRange`] for the first value outside the basis's signed range.
pub(crate) fn check_range(basis: &RnsBasis, values: &[Integer]) -> Result<()> {
    match values.par_iter().position_first(|x| !basis.contains(x)) {
        Some(index) => Err(Error::OutOfRange {
            index,
            range_bits: basis.range_bits(),
        }),
        None => Ok(()),
    }
}
