//! Checks and conversions of the backends' inputs: operands that agree, scalars and
//! integers in the signed range, integers packed for the GPU.

use super::Op;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::layout;
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

/// Integers as the GPU reads them: 32-bit words, word-major (`words[w·len + i]`, least
/// significant first, padded to the longest), sign flags, and the words per number.
/// By all cores: each number's words side by side, then transposed.
pub fn pack_words(values: &[Integer]) -> (Vec<u32>, Vec<u32>, usize) {
    let (len, nwords) = (values.len(), packed_width(values));
    let mut number_major = vec![0u32; nwords * len];
    fill_number_major(values, &mut number_major, nwords);
    let words = layout::to_channel_major(&number_major, len, nwords);
    (words, signs(values), nwords)
}

/// The 32-bit words of the longest of `values` (at least 1).
pub fn packed_width(values: &[Integer]) -> usize {
    values
        .par_iter()
        .map(|x| x.as_limbs().len() * 2)
        .max()
        .unwrap_or(0)
        .max(1)
}

/// Each value's magnitude as `nwords` 32-bit words (least significant first, zero-padded)
/// into `out`, number after number, by all cores (`nwords` at least [`packed_width`]).
pub fn fill_number_major(values: &[Integer], out: &mut [u32], nwords: usize) {
    out.par_chunks_mut(nwords)
        .zip(values.par_iter())
        .for_each(|(w, x)| {
            let limbs = x.as_limbs();
            for (pair, &limb) in w.chunks_exact_mut(2).zip(limbs) {
                pair[0] = limb as u32;
                pair[1] = (limb >> 32) as u32;
            }
            w[2 * limbs.len()..].fill(0);
        });
}

/// 1 for each negative value, else 0.
pub fn signs(values: &[Integer]) -> Vec<u32> {
    values.par_iter().map(|x| x.is_negative() as u32).collect()
}
