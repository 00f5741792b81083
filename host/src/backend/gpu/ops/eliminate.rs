//! Gaussian elimination of an integer matrix's images modulo many primes, reduced on
//! the device: `rns_eliminate` (one block per prime, one pivot at a time), or for
//! Gauss–Jordan on `[A | B]` with `A` square, by panels with the updates above and
//! below each panel on the tensor cores ([`launch_gauss_jordan_tensor`](crate::backend::gpu::launch::launch_gauss_jordan_tensor)); the primes
//! modulo which `A` is singular are eliminated again by `rns_eliminate`.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::Eliminate;
use crate::backend::gpu::{Gpu, Packed};
use crate::error::{Error, Result};
use crate::num::layout::columns_from;
use rns_core::linalg::Elimination;
use rns_core::Modulus;
use std::sync::Arc;

/// Reduces integer matrix entries (packed as for [`reduce_words`](super::vectors::reduce_words)) modulo every
/// channel straight into the elimination buffer and eliminates there, in groups of
/// channels that fit the memory budget with the blocked path's scratch: the residues
/// never cross PCIe. `None` when they do not fit. With `keep = Some(from)`, the
/// columns `from..cols` of the eliminated matrices come back too (gathered on the
/// device, `rows × (cols − from)` words per channel): into `into` when given (its
/// length must be theirs; the returned vector is then empty), else in a new vector.
#[allow(clippy::too_many_arguments)]
pub fn eliminate_words(
    gpu: &Gpu,
    moduli: &[Modulus],
    packed: Packed,
    rows: usize,
    cols: usize,
    pivot_cols: usize,
    jordan: bool,
    keep: Option<usize>,
    into: Option<&mut [u32]>,
) -> Result<Option<(Vec<Elimination>, Vec<u32>)>> {
    let channels = moduli.len();
    let shape = Eliminate {
        rows,
        cols,
        pivot_cols,
        jordan,
        channels,
    };
    let kept = keep.map_or(0, |from| rows * (cols - from.min(cols)));
    let blocked = jordan
        && pivot_cols == rows
        && keep.is_none_or(|from| from >= rows)
        && launch::gauss_jordan_on_tensor_cores(gpu, rows, cols, channels);
    let group = match blocked {
        true => channels_fitting(gpu, packed, elimination_words(gpu, shape, keep, true))?,
        false => {
            let fits = super::matrices::fits_reduced(
                gpu,
                packed,
                channels,
                elimination_words(gpu, shape, keep, false),
            )?;
            if fits {
                channels
            } else {
                0
            }
        }
    };
    if group == 0 || channels == 0 {
        return Ok(None);
    }
    let mut own = Vec::new();
    let mut out = match (keep, into) {
        (None, _) => None,
        (Some(_), Some(out)) if out.len() != channels * kept => {
            return Err(Error::Internal(
                "an elimination's output of the wrong length".into(),
            ))
        }
        (Some(_), Some(out)) => Some(out),
        (Some(_), None) => {
            own = vec![0u32; channels * kept];
            Some(&mut own[..])
        }
    };
    let mut e = Vec::with_capacity(channels);
    for start in (0..channels).step_by(group) {
        let r = start..(start + group).min(channels);
        let part = out
            .as_deref_mut()
            .map(|o| &mut o[r.start * kept..r.end * kept]);
        e.extend(eliminate_group(
            gpu, &moduli[r], packed, shape, keep, blocked, part,
        )?);
    }
    Ok(Some((e, own)))
}

/// Device words per channel beyond the reduced matrices that an elimination of
/// `shape` keeping `keep` allocates: ranks, determinants, moduli, the gathered
/// columns, and on the blocked path the largest trailing update's scratch.
fn elimination_words(gpu: &Gpu, shape: Eliminate, keep: Option<usize>, blocked: bool) -> usize {
    let from = keep.unwrap_or(0).min(shape.cols);
    let gathered = if from > 0 {
        shape.rows * (shape.cols - from)
    } else {
        0
    };
    let scratch = match blocked {
        true => launch::lu_scratch_words(gpu, shape.rows, shape.cols),
        false => 0,
    };
    3 + gathered + scratch
}

/// The most channels (of integer entries `packed`) that fit the memory budget at
/// once with `extra` words each beyond their reduced entries; 0 when not one does.
fn channels_fitting(gpu: &Gpu, packed: Packed, extra: usize) -> Result<usize> {
    let (_, neg, nwords) = packed;
    let (len, budget) = (neg.len(), gpu.budget()? / 4);
    let fixed = len * (nwords + 1);
    if len == 0 || fixed >= budget {
        return Ok(0);
    }
    Ok((budget - fixed) / (len + extra))
}

/// [`eliminate_words`] for one group of channels: `shape.channels` is replaced
/// by `moduli.len()`, `out` takes the kept columns. On the blocked path, the
/// channels whose pivot columns are singular are eliminated again by
/// `rns_eliminate` (the blocked path stops at a missing pivot).
fn eliminate_group(
    gpu: &Gpu,
    moduli: &[Modulus],
    packed: Packed,
    shape: Eliminate,
    keep: Option<usize>,
    blocked: bool,
    mut out: Option<&mut [u32]>,
) -> Result<Vec<Elimination>> {
    let channels = moduli.len();
    let s = Eliminate { channels, ..shape };
    let from = keep.unwrap_or(0).min(s.cols);
    let kept = s.rows * (s.cols - from);
    let (ranks, dets) = {
        let streams = gpu.lease_streams(1)?;
        let st = &streams[0];
        let dm = gpu.upload_on(st, &moduli_words(moduli))?;
        let mut dmats = super::matrices::reduce_packed(gpu, st, &dm, packed, (channels, false))?;
        let (mut dr, mut dd) = (gpu.alloc_on(st, channels)?, gpu.alloc_on(st, channels)?);
        match blocked {
            true => launch::launch_gauss_jordan_tensor(gpu, st, s, &mut dd, &mut dmats, &dm)?,
            false => launch::launch_eliminate(gpu, st, s, &mut dr, &mut dd, &mut dmats, &dm)?,
        }
        if keep.is_some() && from > 0 {
            let mut dkept = gpu.alloc_on(st, channels * kept)?;
            launch::launch_gather_columns(
                gpu,
                st,
                &mut dkept,
                &dmats,
                (channels * s.rows, s.cols),
                from,
            )?;
            dmats = dkept;
        }
        if let Some(o) = out.as_deref_mut() {
            gpu.dtoh_staged(st, (&dmats, 0..channels * kept), o)?;
        }
        let dets = gpu.download_on(st, &dd, channels)?;
        let ranks = match blocked {
            // Non-singular pivot columns: full rank.
            true => dets
                .iter()
                .map(|&d| if d == 0 { 0 } else { s.rows as u32 })
                .collect(),
            false => gpu.download_on(st, &dr, channels)?,
        };
        (ranks, dets)
    };
    let mut e: Vec<Elimination> = ranks
        .into_iter()
        .zip(dets)
        .map(|(rank, det)| Elimination { rank, det })
        .collect();
    let singular: Vec<usize> = match blocked {
        true => (0..channels).filter(|&c| e[c].det == 0).collect(),
        false => Vec::new(),
    };
    if singular.is_empty() {
        return Ok(e);
    }
    let again: Vec<Modulus> = singular.iter().map(|&c| moduli[c]).collect();
    let mut part = out.as_ref().map(|_| vec![0u32; again.len() * kept]);
    let redone = eliminate_group(gpu, &again, packed, shape, keep, false, part.as_deref_mut())?;
    for (i, (&c, r)) in singular.iter().zip(redone).enumerate() {
        e[c] = r;
        if let (Some(o), Some(p)) = (out.as_deref_mut(), &part) {
            o[c * kept..(c + 1) * kept].copy_from_slice(&p[i * kept..(i + 1) * kept]);
        }
    }
    Ok(e)
}

/// [`eliminate_words`], or when the residues do not fit the device at once,
/// reduced and eliminated in chunks (`shape = (rows, cols, pivot_cols)`); with
/// `keep = Some(from)`, the matrices' columns `from..` into `into` when given, as there.
#[allow(clippy::too_many_arguments)]
pub fn eliminate_packed(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    packed: Packed,
    (rows, cols, pivot_cols): (usize, usize, usize),
    jordan: bool,
    keep: Option<usize>,
    mut into: Option<&mut [u32]>,
) -> Result<(Vec<Elimination>, Vec<u32>)> {
    let now = into.as_deref_mut();
    if let Some(r) = eliminate_words(
        gpu, moduli, packed, rows, cols, pivot_cols, jordan, keep, now,
    )? {
        return Ok(r);
    }
    let (w, neg, nwords) = packed;
    let mut data = super::vectors::reduce_words(gpu, moduli, w, neg, neg.len(), nwords)?;
    let all = keep.is_some();
    let e = super::matrices::eliminate_per_channel(
        gpu, moduli, rows, cols, pivot_cols, jordan, &mut data, all,
    )?;
    let Some(from) = keep else {
        return Ok((e, Vec::new()));
    };
    let data = columns_from(data.into_vec(), cols, from);
    match into {
        None => Ok((e, data)),
        Some(out) if out.len() == data.len() => {
            out.copy_from_slice(&data);
            Ok((e, Vec::new()))
        }
        Some(_) => Err(Error::Internal(
            "an elimination's output of the wrong length".into(),
        )),
    }
}
