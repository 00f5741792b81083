//! The resultants modulo every channel: univariate (one Euclid per channel) and
//! bivariate (Collins' evaluation–interpolation), on either backend, split by channels
//! across MPI ranks and GPUs; on several GPUs of one process the bivariate resultant's
//! shares of the primes are reconstructed where they were computed and combined by
//! [`crt::combine_all`].

use super::gpu::{ops, Gpu};
use super::input::check_range;
use super::matrices::Packing;
use super::plan::{Channels, Plan};
use super::{cpu, split, Backend, Computed};
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::layout;
use crate::num::pack::pack_words;
use crate::num::vector::{self, RnsVec};
use crate::timing::Laps;
use rayon::prelude::*;
use rns_core::poly::BiShape;
use rug::Integer;
use std::ops::Range;
use std::sync::Arc;

/// [`Error::Shape`] unless `len` coefficients form polynomials of degrees `df` and `dg`.
fn check_pair(len: usize, df: usize, dg: usize) -> Result<()> {
    if len != df + dg + 2 {
        return Err(Error::Shape(format!(
            "{len} coefficients do not form polynomials of degrees {df} and {dg}"
        )));
    }
    Ok(())
}

impl Backend {
    /// Collins' modular steps of a bivariate resultant `res_y(f, g)` for every channel of
    /// `basis`: `coeffs` holds the dense pair of `shape` (`f`'s rows, then `g`'s; each
    /// must lie in the basis's signed range, and neither leading coefficient in `y` may
    /// vanish modulo a channel). Per channel, the first `degree_bound + 1` of the points
    /// `x = 0 … candidates − 1` where neither leading coefficient vanishes, one resultant
    /// in `y` per point, and the interpolated coefficients: channel-major,
    /// `degree_bound + 1` per channel (`NO_POINT` first when a channel ran out of points).
    /// On the GPU also their mixed-radix digits, number-major, computed there for the
    /// reconstruction. And the time of each stage.
    pub fn resultant_xy_per_channel(
        &self,
        basis: &Arc<RnsBasis>,
        coeffs: &[Integer],
        shape: BiShape,
        candidates: usize,
    ) -> Result<(Computed, Laps)> {
        let n = shape.degree_bound() + 1;
        if coeffs.len() != shape.len() || candidates < n {
            return Err(Error::Shape(format!(
                "{} coefficients and {candidates} points do not fit the shape {shape:?}",
                coeffs.len()
            )));
        }
        match self.plan(basis.channels() * candidates * shape.work_len()) {
            Plan::Devices(gpus) => self.resultant_xy_shares(gpus, basis, coeffs, shape, candidates),
            Plan::Ranks => self.resultant_xy_split(basis, coeffs, shape, candidates),
            Plan::Gpu(g) => {
                check_range(basis, coeffs)?;
                let (words, neg, nwords) = pack_words(coeffs);
                let packed = (&words[..], &neg[..], nwords);
                let (residues, digits, laps) =
                    ops::resultant_xy_words(g, basis.moduli(), packed, shape, candidates, true)?;
                let digits = digits.map(|d| layout::to_number_major(&d, n, basis.range_len()));
                Ok((Computed::of(residues, digits), laps))
            }
            Plan::Cpu => {
                let mut laps = Laps::start();
                let residues = RnsVec::from_integers(basis, coeffs)?;
                laps.stage("reduce")?;
                let out = cpu::resultant_xy_per_channel(
                    basis.moduli(),
                    shape,
                    candidates,
                    residues.residues(),
                );
                laps.lap("resultants mod p, interpolation");
                let residues = out.into();
                Ok((Computed::of(residues, None), laps))
            }
        }
    }

    /// [`Backend::resultant_xy_per_channel`] with its channels split across ranks and
    /// devices (the digits are left to the reconstruction).
    fn resultant_xy_split(
        &self,
        basis: &Arc<RnsBasis>,
        coeffs: &[Integer],
        shape: BiShape,
        candidates: usize,
    ) -> Result<(Computed, Laps)> {
        let mut laps = Laps::start();
        check_range(basis, coeffs)?;
        let job = Channels::new(
            basis.channels(),
            shape.degree_bound() + 1,
            basis.channels() * candidates * shape.work_len(),
        );
        let packed = Packing::new(coeffs);
        let residues = self.per_channel(
            job,
            &|r| {
                let mods = &basis.moduli()[r];
                let res = vector::residues_of(coeffs, mods)?;
                Ok(cpu::resultant_xy_per_channel(mods, shape, candidates, &res).into())
            },
            &|g, r| {
                let mods = &basis.moduli()[r];
                Ok(ops::resultant_xy_words(g, mods, packed.get(), shape, candidates, false)?.0)
            },
        )?;
        laps.stage("reduce, resultants mod p, interpolation (split)")?;
        Ok((Computed::of(residues, None), laps))
    }

    /// [`Backend::resultant_xy_per_channel`] on several GPUs of this process: each device
    /// takes a share of the range primes (and the redundant one), computes the modular
    /// resultants and the mixed-radix digits of its share, and the host assembles that
    /// share's integers modulo its product; the shares are then combined by
    /// [`crt::combine_all`] and checked against the redundant channel. The digit work,
    /// quadratic in the primes, shrinks with the square of the device count, and no
    /// residues cross between devices.
    fn resultant_xy_shares(
        &self,
        gpus: &[Arc<Gpu>],
        basis: &Arc<RnsBasis>,
        coeffs: &[Integer],
        shape: BiShape,
        candidates: usize,
    ) -> Result<(Computed, Laps)> {
        let mut laps = Laps::start();
        check_range(basis, coeffs)?;
        let (words, neg, nwords) = pack_words(coeffs);
        let n = shape.degree_bound() + 1;
        let (range, red) = (basis.range_moduli(), basis.redundant());
        let parts = split::per_device(gpus, range.len(), &|g, r| {
            let mut mods = range[r.clone()].to_vec();
            mods.push(red);
            let packed = (&words[..], &neg[..], nwords);
            let (res, digits, mut laps) =
                ops::resultant_xy_words(g, &mods, packed, shape, candidates, true)?;
            let digits = digits.ok_or_else(|| Error::Internal("a share without digits".into()))?;
            let share = basis.share(r.clone())?;
            let digits = layout::to_number_major(&digits, n, r.len());
            let values = digits
                .par_chunks(r.len())
                .map(|d| crt::from_digits(d, &share))
                .collect();
            laps.lap("assembly of the share (host)");
            let partial = crt::Partial {
                values,
                product: share.product().clone(),
            };
            Ok((partial, res.into_vec(), laps))
        })?;
        // The stages of the first device's share (the devices run at once).
        let mut parts = parts.into_iter();
        let first = parts.next();
        let parts: Vec<_> = first
            .into_iter()
            .map(|(p, r, l)| {
                laps.append(l);
                (p, r)
            })
            .chain(parts.map(|(p, r, _)| (p, r)))
            .collect();
        laps.stage("shares: waiting for the other devices")?;
        // The residues of every channel (range shares, then the redundant channel once).
        let k = range.len();
        let mut residues = Vec::with_capacity((k + 1) * n);
        for (_, res) in &parts {
            residues.extend_from_slice(&res[..res.len() - n]);
        }
        let last = parts.last().map(|(_, res)| &res[res.len() - n..]);
        residues.extend_from_slice(last.unwrap_or(&[]));
        let partials = parts.into_iter().map(|(p, _)| p).collect();
        let values = crt::to_signed_all(crt::combine_all(partials)?, basis)?;
        let values = vector::check_redundant(basis, &residues[k * n..], values).map_err(|_| {
            Error::Internal("the resultant disagrees with the redundant prime".into())
        })?;
        laps.lap("combine the shares (crt tree), check");
        let computed = Computed {
            residues: residues.into(),
            digits: None,
            integers: Some(values),
        };
        Ok((computed, laps))
    }

    /// The resultant modulo each channel of `basis` of two integer polynomials: `coeffs`
    /// holds the `df + 1` coefficients of `f` then the `dg + 1` of `g` (constant terms
    /// first, each in the basis's signed range), and neither leading coefficient may
    /// vanish modulo a channel. On a GPU the coefficients are reduced on the device and,
    /// with a block per channel, never come back as residues (`resultant_words`);
    /// the channels are split across ranks and devices as for
    /// [`Backend::resultant_per_channel`].
    ///
    /// `resultant_words`: super::gpu::Gpu::resultant_words
    pub fn resultant_of_integers(
        &self,
        basis: &Arc<RnsBasis>,
        coeffs: &[Integer],
        df: usize,
        dg: usize,
    ) -> Result<Vec<u32>> {
        check_pair(coeffs.len(), df, dg)?;
        check_range(basis, coeffs)?;
        let moduli = basis.moduli();
        let job = Channels::new(moduli.len(), 1, df * dg.max(1) * moduli.len());
        let packed = Packing::new(coeffs);
        let out = self.per_channel(
            job,
            &|r| {
                let res = vector::residues_of(coeffs, &moduli[r.clone()])?;
                Ok(cpu::resultant_per_channel(&moduli[r], df, dg, &res).into())
            },
            &|g, r| Ok(ops::resultant_words(g, &moduli[r], packed.get(), df, dg)?.into()),
        )?;
        Ok(out.into_vec())
    }

    /// The resultant modulo each channel of two polynomials: `coeffs` holds the `df + 1`
    /// coefficients of `f` then the `dg + 1` of `g` (constant terms first), and both
    /// leading coefficients must be non-zero modulo every channel.
    pub fn resultant_per_channel(&self, coeffs: &RnsVec, df: usize, dg: usize) -> Result<Vec<u32>> {
        check_pair(coeffs.len(), df, dg)?;
        let (moduli, data, len) = (coeffs.basis().moduli(), coeffs.residues(), coeffs.len());
        let job = Channels::new(moduli.len(), 1, df * dg.max(1) * moduli.len());
        let part = |r: &Range<usize>| (&moduli[r.clone()], &data[r.start * len..r.end * len]);
        let out = self.per_channel(
            job,
            &|r| {
                let (mods, part) = part(&r);
                Ok(cpu::resultant_per_channel(mods, df, dg, part).into())
            },
            &|g, r| {
                let (mods, part) = part(&r);
                Ok(ops::resultant_per_channel(g, mods, df, dg, part)?.into())
            },
        )?;
        Ok(out.into_vec())
    }
}
