//! Conversions between integers and residues on a backend: integers reduced into
//! residues (on the device from their limbs), and the one checked reconstruction of
//! computed results (mixed-radix digits or signed limbs from the device, assembled by
//! all cores; the host's CRT for few numbers).

use super::{check_range, pack_words, Backend};
use crate::backend::gpu::ops;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::vector::{self, RnsVec};
use crate::num::words::Words;
use rns_core::launch::NUMBERS_PER_BLOCK;
use rug::Integer;
use std::sync::Arc;

/// Residues a backend computed (channel-major) and, when the GPU had them on the
/// device, their mixed-radix digits over the range channels (number-major), for
/// [`Backend::reconstruct_computed`].
#[derive(Debug)]
pub struct Computed {
    /// The residues.
    pub residues: Words,
    /// The digits, when computed.
    pub digits: Option<Vec<u32>>,
    /// The integers, when shares of the primes reconstructed them where they were
    /// computed (checked against the redundant channel).
    pub integers: Option<Vec<Integer>>,
}

impl Computed {
    /// Residues, with their digits when the device computed them.
    pub fn of(residues: Words, digits: Option<Vec<u32>>) -> Computed {
        Computed {
            residues,
            digits,
            integers: None,
        }
    }
}

impl Backend {
    /// Converts signed integers into residues (each must lie in the signed range);
    /// on the GPU the limbs are copied over and reduced there.
    pub fn to_rns(&self, basis: &Arc<RnsBasis>, values: &[Integer]) -> Result<RnsVec> {
        self.whole(
            values.len() * basis.channels(),
            || RnsVec::from_integers(basis, values),
            |g| {
                check_range(basis, values)?;
                let len = values.len();
                let (words, neg, nwords) = pack_words(values);
                let data = ops::reduce_words(g, basis.moduli(), &words, &neg, len, nwords)?;
                Ok(RnsVec::from_residues_unchecked(basis, len, data))
            },
        )
    }

    /// Reconstructs every integer (exact in the signed range). On the GPU, over more than
    /// [`crt::TREE_ABOVE`] range moduli, from the cofactor inverses computed there
    /// ([`RnsVec::to_integers_from_cofactors`]); for a block of numbers or more over
    /// smaller bases, the mixed-radix digits come from the device (its tables built
    /// there) and all cores assemble the integers by the digit tree; otherwise the host's
    /// CRT ([`RnsVec::to_integers`]).
    pub fn to_integers(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        let k = a.basis().range_len();
        // Beyond the weights' and the mixed-radix kernel's sizes: the cofactor inverses
        // from the device (O(K²), milliseconds there), then sums of products on the host.
        let b = a.basis();
        if k > crt::TREE_ABOVE {
            return self.whole(
                k * k,
                || Ok(a.to_integers()),
                |g| {
                    let t =
                        b.interval_tables_from(|| ops::cofactor_inverses(g, b.range_moduli()))?;
                    Ok(a.to_integers_from_cofactors(&t.coef))
                },
            );
        }
        // Fewer numbers than a block of the digit kernel: the host's CRT.
        if a.len() < NUMBERS_PER_BLOCK as usize {
            return Ok(a.to_integers());
        }
        self.whole(
            a.len() * k * k,
            || Ok(a.to_integers()),
            |_| Ok(crt::from_digits_many(b, &self.mixed_radix_digits(a)?)),
        )
    }

    /// [`Backend::to_integers`], checked against the redundant channel
    /// ([`RnsVec::check_redundant`]): an error, never a wrong number, for a value that
    /// left the range. On the GPU, for a block of numbers or more, the device converts
    /// the residues to signed binary limbs and checks them (`signed_limbs`): the
    /// host only copies each integer's limbs.
    pub fn to_integers_checked(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        let (b, k) = (a.basis(), a.basis().range_len());
        let cpu = || a.check_redundant(self.to_integers(a)?);
        if a.len() < NUMBERS_PER_BLOCK as usize {
            return cpu();
        }
        self.whole(a.len() * k * k, cpu, |g| {
            let (limbs, flags, nlimbs) = ops::signed_limbs(g, b.moduli(), a.residues(), a.len())?;
            crt::from_signed_limbs(&limbs, &flags, nlimbs, b.range_bits())
        })
    }

    /// [`Backend::reconstruct`] of `len` numbers a backend computed, from the digits when
    /// they came with them (then only the assembly and the check run on the host).
    pub fn reconstruct_computed(
        &self,
        basis: &Arc<RnsBasis>,
        len: usize,
        c: Computed,
        what: &str,
    ) -> Result<Vec<Integer>> {
        if let Some(values) = c.integers {
            return Ok(values);
        }
        let Some(digits) = c.digits else {
            return self.reconstruct(basis, len, c.residues.into_vec(), what);
        };
        let k = basis.range_len();
        let red = c.residues.get(k * len..(k + 1) * len).ok_or_else(|| {
            Error::Internal(format!(
                "{what}: {} residues for {len} numbers",
                c.residues.len()
            ))
        })?;
        vector::check_redundant(basis, red, crt::from_digits_many(basis, &digits))
            .map_err(|_| Error::Internal(format!("{what} disagrees with the redundant prime")))
    }

    /// The one checked reconstruction of computed results: `len` numbers from their
    /// channel-major residues over `basis` ([`Backend::to_integers_checked`]). The caller's
    /// bound promised that they fit the range, so a disagreement with the redundant prime
    /// is a bug, reported as [`Error::Internal`] naming `what`.
    pub fn reconstruct(
        &self,
        basis: &Arc<RnsBasis>,
        len: usize,
        residues: Vec<u32>,
        what: &str,
    ) -> Result<Vec<Integer>> {
        let v = RnsVec::from_residues(basis, len, residues)?;
        self.to_integers_checked(&v).map_err(|e| match e {
            Error::OutOfRange { .. } => {
                Error::Internal(format!("{what} disagrees with the redundant prime"))
            }
            e => e,
        })
    }
}
