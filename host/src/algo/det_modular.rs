//! The determinant modulo primes, then the CRT (FLINT's `fmpz_mat_det_modular_given_divisor`):
//! `det A / d` for a known divisor `d` (1 without one) needs only Hadamard / `d` bits of
//! primes, those not dividing `d`. With `d = 1` the integer matrix is reduced and
//! eliminated modulo every prime by the backend (on a GPU the residues never cross
//! PCIe); with a divisor, the few primes' determinants come from the lifting's limbs
//! on the device where it ran there, else from the matrix's images modulo each prime.

use super::det_divisor::Found;
use crate::backend::gpu::ops;
use crate::backend::plan::across_ranks;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::IntMatrix;
use crate::mat::modmat::ModMatrices;
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

/// `det A` from `det A / d` modulo enough primes for `|det A| ≤ 2^bits` (`d = 1` when
/// `divisor` is `None`), with the number of range primes used; stages on `laps`.
pub(crate) fn det_given_divisor(
    a: &IntMatrix,
    backend: &Backend,
    bits: u64,
    divisor: Option<Found>,
    laps: &mut Laps,
) -> Result<(Integer, usize)> {
    let d = divisor
        .as_ref()
        .map_or_else(|| Integer::from(1), |f| f.d.clone());
    let d_bits = d.significant_bits() as u64;
    // |det / d| ≤ 2^bits / d ≤ 2^(bits − ⌊log2 d⌋).
    let e_bits = bits.saturating_sub(d_bits.saturating_sub(1)).max(1);
    let basis = Arc::new(RnsBasis::for_bits_excluding(e_bits, |p| d.mod_u(p) == 0));
    laps.stage("primes")?;
    let dets = match divisor {
        None => backend.det_integers(&basis, a.entries(), a.rows())?,
        Some(f) => {
            // Entries may exceed this small basis's range: reduced modulo each prime
            // instead (on the device from the lifting's limbs, the few primes with the
            // whole GPU).
            let mut dets = match f.on_device {
                Some(mut dev) => {
                    // The primes not among those done while d was reconstructed.
                    let rest: Vec<Modulus> = basis
                        .moduli()
                        .iter()
                        .filter(|m| !dev.dets.contains_key(&m.m))
                        .copied()
                        .collect();
                    let got = across_ranks(rest.len(), 1, |r| {
                        ops::det_mod_limbs_on(&dev.limbs, &rest[r])
                    })?;
                    dev.dets.extend(rest.iter().map(|m| m.m).zip(got));
                    basis.moduli().iter().map(|m| dev.dets[&m.m]).collect()
                }
                None => backend.det_mod(&ModMatrices::from_int_matrix(a, &basis.primes())?)?,
            };
            for (r, m) in dets.iter_mut().zip(basis.moduli()) {
                let inv = m.inv(d.mod_u(m.m)).ok_or_else(|| {
                    Error::Internal("a prime of the basis divides the divisor".into())
                })?;
                *r = m.mul(*r, inv);
            }
            dets
        }
    };
    laps.stage("reduce, det mod p")?;
    let e = backend.reconstruct(&basis, 1, dets, "the determinant")?;
    laps.lap("crt");
    let e = e.into_iter().next().expect("one value");
    Ok((e * d, basis.range_len()))
}
