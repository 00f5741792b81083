//! Big integers weighted by word digits and summed on the device:
//! `z_e = Σ_t d_t[e]·R_t` for digits `d_t[e] < 2^32` (a level `t` of them for every
//! entry `e`) and nonnegative integers `R_t` (their 32-bit words, a row each), as one
//! exact product `Rᵀ·D` of word matrices (as [`super::product::matmul_limbs_on`] makes it).
//! Column `e` of that product holds the terms of `z_e`, each below `levels·2^64`;
//! `rns_carry_terms` carries them into `z_e`'s binary words there, and only those cross
//! PCIe. The solve's numerators `den·x mod P^s` are such sums of a lifting's p-adic
//! digits (`crate::algo::lift::numerators`).

use super::matrices::DeviceWords;
use super::product::{matmul_limbs_device, Operand};
use crate::backend::gpu::launch;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::timing::Laps;
use cudarc::driver::{CudaSlice, CudaStream};
use rayon::prelude::*;
use rns_core::Modulus;
use rug::integer::Order;
use rug::Integer;
use std::sync::Arc;

/// `z_e` for every entry `e < entries` (see the module): `levels` rows of `entries`
/// digits each, and `table` of `levels` rows of `words` words, least significant first.
/// The entries go in pieces that fit the device's memory budget; `None` when not even
/// one entry does. Stages on `laps`.
pub fn weighted_sums(
    gpu: &Arc<Gpu>,
    digits: &[Vec<u32>],
    table: &[u32],
    (entries, words): (usize, usize),
    laps: &mut Laps,
) -> Result<Option<Vec<Integer>>> {
    let levels = digits.len();
    if digits.iter().any(|d| d.len() < entries) || table.len() != levels * words {
        return Err(Error::Internal(format!(
            "weighted sums of {entries} entries over {levels} levels of {words} words: \
             {} table words",
            table.len()
        )));
    }
    if levels == 0 || entries == 0 || words == 0 {
        return Ok(Some(vec![Integer::new(); entries]));
    }
    let moduli = sum_moduli(levels)?;
    // The sums' words: `words` and the limbs of the last term's carry.
    let tail = launch::limbs_for(&moduli[..moduli.len() - 1]);
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    // The table, its transpose and their flags.
    if 4 * 3 * table.len() > gpu.budget()? {
        return Ok(None);
    }
    let by_level = gpu.upload_staged(s, table)?;
    let mut by_word = gpu.alloc_on(s, table.len())?;
    launch::launch_transpose(gpu, s, &mut by_word, &by_level, (levels, words))?;
    drop(by_level);
    let a = words_of(gpu, s, by_word, table.len())?;
    laps.lap("lift: numerators: table up");
    let mut sums = Vec::with_capacity(entries);
    let (mut cols, mut at) = (entries, 0);
    while at < entries {
        let r = at..(at + cols).min(entries);
        let summed = (words + tail) * r.len();
        // Both operands' words and flags, and the sums twice, held meanwhile.
        let held = 2 * (table.len() + levels * r.len() + summed);
        if 4 * held > gpu.budget()? {
            match cols > 1 {
                true => cols = cols.div_ceil(2),
                false => return Ok(None),
            }
            continue;
        }
        let mut part = vec![0u32; levels * r.len()];
        part.par_chunks_mut(r.len())
            .zip(digits.par_iter())
            .for_each(|(out, d)| out.copy_from_slice(&d[r.clone()]));
        let b = words_of(gpu, s, gpu.upload_staged(s, &part)?, part.len())?;
        laps.lap("lift: numerators: digits up");
        let operands = (Operand::Device(&a), Operand::Device(&b));
        let shape = ((words, levels, r.len()), held);
        let Some((limbs, scratch, flags, nl)) =
            matmul_limbs_device(gpu, s, &moduli, operands, shape)?
        else {
            match cols > 1 {
                true => cols = cols.div_ceil(2),
                false => return Ok(None),
            }
            continue;
        };
        if let Some(i) = flags.iter().position(|&f| f != 0) {
            return Err(Error::Internal(format!(
                "the device's weighted sum {} (term {}) failed its check (flag {})",
                at + i % r.len(),
                i / r.len(),
                flags[i]
            )));
        }
        drop(scratch);
        let words_down = sums_down(gpu, s, &limbs, (r.len(), words, nl, tail))?;
        laps.lap("lift: numerators: product, carries (device), sums down");
        sums.par_extend(
            words_down
                .par_chunks(words + tail)
                .map(|w| Integer::from_digits(w, Order::Lsf)),
        );
        laps.lap("lift: numerators: integers (host)");
        at = r.end;
    }
    Ok(Some(sums))
}

/// The `len` sums whose terms' limbs are `limbs` ([`launch::launch_carry_terms`]), as
/// `words + tail` binary words each, number-major, copied back.
fn sums_down(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    limbs: &CudaSlice<u32>,
    (len, words, nlimbs, tail): (usize, usize, usize, usize),
) -> Result<Vec<u32>> {
    let n = (words + tail) * len;
    let mut by_word = gpu.alloc_on(s, n)?;
    launch::launch_carry_terms(gpu, s, &mut by_word, limbs, (len, words, nlimbs, tail))?;
    let mut by_number = gpu.alloc_on(s, n)?;
    launch::launch_transpose(gpu, s, &mut by_number, &by_word, (words + tail, len))?;
    drop(by_word);
    let mut out = vec![0u32; n];
    gpu.dtoh_staged(s, (&by_number, 0..n), &mut out)?;
    Ok(out)
}

/// The product's moduli for sums of `levels` products of two words: the basis whose
/// signed range holds `levels·2^64` ([`RnsBasis::for_bits`]), the redundant one last.
fn sum_moduli(levels: usize) -> Result<Vec<Modulus>> {
    let bits = 64 + levels.next_power_of_two().trailing_zeros() as u64;
    let moduli = RnsBasis::for_bits(bits).moduli().to_vec();
    // Limbs of the magnitudes up to four: `rns_carry_terms` adds them in 128 bits.
    match moduli.len() <= 5 {
        true => Ok(moduli),
        false => Err(Error::Internal(format!(
            "weighted sums over {levels} levels"
        ))),
    }
}

/// `len` one-word nonnegative numbers already on the device, with their zero flags.
fn words_of(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    words: CudaSlice<u32>,
    len: usize,
) -> Result<DeviceWords> {
    Ok(DeviceWords {
        words,
        neg: gpu.zeros_on(s, len)?,
        nwords: 1,
        len,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_moduli_cover_the_sums() {
        for levels in [1usize, 3, 1 << 20, 1 << 40] {
            let m = sum_moduli(levels).unwrap();
            let range = m[..m.len() - 1]
                .iter()
                .fold(Integer::from(1), |r, p| r * p.m);
            assert!(range > Integer::from(levels) << 65u32, "{levels}");
            let fewer = range / m[m.len() - 2].m;
            assert!(fewer <= Integer::from(levels) << 65u32, "{levels}");
        }
    }
}
