//! The exact product of two integer matrices where its rows split: across the GPUs of
//! one process and across MPI ranks (each part's entries as the device's limbs, and
//! gathered to every rank as sign and limbs), and in blocks of rows on one GPU when the
//! whole does not fit it.

use super::gpu::{ops, Gpu};
use super::input::check_range;
use super::plan::{least_across_ranks, rank_local, Plan};
use super::{split, Backend};
use crate::cluster;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::words::Words;
use rayon::prelude::*;
use rug::Integer;
use std::ops::Range;
use std::sync::Arc;

impl Backend {
    /// [`Backend::matmul_integers`] across MPI ranks: where every rank computes on GPUs,
    /// split by rows of `a` as across the devices of one process (each rank its rows'
    /// integers, gathered to every rank as sign and limbs); else by channels
    /// ([`Backend::matmul_integers_split`]).
    pub(super) fn matmul_integers_ranks(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        (n, k, p): (usize, usize, usize),
    ) -> Result<Vec<Integer>> {
        let work = basis.channels() * n * p / cluster::size();
        let here = !matches!(self.local_plan(work), Plan::Cpu | Plan::Ranks);
        if least_across_ranks(here as u32)? == 0 {
            return self.matmul_integers_split(basis, a, b, (n, k, p));
        }
        let (ranges, mine) = split::rank_shares(n);
        // Each entry as its sign and magnitude over a width that holds the range: the
        // device's limbs as they come, else this rank's integers (which it keeps).
        let width = 2 + (basis.range_bits() as usize).div_ceil(32);
        let counts: Vec<usize> = ranges.iter().map(|r| r.len() * p * width).collect();
        let mut own = Vec::new();
        let all = cluster::all_gather_with(&counts, |out| {
            let rows = &a[mine.start * k..mine.end * k];
            if let Plan::Gpu(g) = self.local_plan(basis.channels() * mine.len() * p) {
                check_range(basis, rows)?;
                check_range(basis, b)?;
                let pb = ops::pack_number_major(g, b);
                let shape = (mine.len(), k, p);
                let first = mine.start * p;
                let mut put = |at: usize, limbs: &[u32], flags: &[u32], nl: usize| {
                    let (block, have) = (at * p * width..(at * p + flags.len()) * width, out.len());
                    let out = out.get_mut(block.clone()).ok_or_else(|| {
                        Error::Internal(format!("words {block:?} of a share of {have}"))
                    })?;
                    signed_limbs_into((limbs, flags, nl), width, out, basis.range_bits())
                        .map_err(|e| entry_moved(e, first + at * p))
                };
                if limbs_by_rows(g, basis, rows, &pb, shape, &mut put)? {
                    return Ok(());
                }
            }
            own = rank_local(|| rows_product(self, basis, (a, b), (k, p), mine.clone()))?;
            signed_words_into(&own, width, out)
        })?;
        let mut values = Vec::with_capacity(n * p);
        for r in 0..ranges.len() {
            match r == cluster::rank() && !own.is_empty() {
                true => values.append(&mut own),
                false => values.par_extend(all.part(r).par_chunks(width).map(from_signed)),
            }
        }
        Ok(values)
    }
}

/// `values` as `width` words each, into `out` (`values.len() · width` words, zero): 1 for
/// a negative value (else 0), then the magnitude's 32-bit limbs, least significant first
/// (an error for a value they cannot hold).
fn signed_words_into(values: &[Integer], width: usize, out: &mut [u32]) -> Result<()> {
    if out.len() != values.len() * width {
        return Err(Error::Internal(format!(
            "{} words for {} values of {width}",
            out.len(),
            values.len()
        )));
    }
    out.par_chunks_mut(width)
        .zip(values.par_iter())
        .try_for_each(|(w, v)| {
            let limbs = v.significant_digits::<u32>();
            if limbs + 1 > width {
                return Err(Error::Internal(format!(
                    "a product entry of {limbs} limbs for {} words",
                    width - 1
                )));
            }
            w[0] = (*v < 0) as u32;
            v.write_digits(&mut w[1..1 + limbs], rug::integer::Order::Lsf);
            Ok(())
        })
}

/// A device's product limbs (`nl` a number, number-major) and sign flags
/// ([`ops::matmul_limbs`]) as [`signed_words_into`] writes them, into `out`; the first
/// entry out of range is an error (its index among these).
fn signed_limbs_into(
    (limbs, flags, nl): (&[u32], &[u32], usize),
    width: usize,
    out: &mut [u32],
    range_bits: u64,
) -> Result<()> {
    use rns_core::limbs::NEGATIVE;
    if nl + 1 > width || out.len() != flags.len() * width {
        return Err(Error::Internal(format!(
            "{} flags of {nl} limbs a number for {} words of {width}",
            flags.len(),
            out.len()
        )));
    }
    crt::check_signed_limbs(limbs, flags, nl, range_bits)?;
    out.par_chunks_mut(width)
        .zip(flags.par_iter())
        .enumerate()
        .for_each(|(i, (w, &f))| {
            w[0] = (f == NEGATIVE) as u32;
            w[1..1 + nl].copy_from_slice(&limbs[i * nl..(i + 1) * nl]);
            w[1 + nl..].fill(0);
        });
    Ok(())
}

/// The values [`signed_words_into`] wrote, `width` words each.
#[cfg(test)]
fn from_signed_words(words: &[u32], width: usize) -> Vec<Integer> {
    words.par_chunks(width).map(from_signed).collect()
}

/// One value [`signed_words_into`] wrote: its sign word, then its limbs.
fn from_signed(w: &[u32]) -> Integer {
    let x = Integer::from_digits(&w[1..], rug::integer::Order::Lsf);
    if w[0] == 1 {
        -x
    } else {
        x
    }
}

/// [`Backend::matmul_integers`] on several GPUs of this process, split by rows of `a`:
/// each device reduces, multiplies and computes the digits of its rows' entries, so that
/// no residues cross between devices, and the host assembles each part as it comes.
pub(super) fn matmul_integers_rows(
    gpus: &[Arc<Gpu>],
    basis: &Arc<RnsBasis>,
    a: &[Integer],
    b: &[Integer],
    (n, k, p): (usize, usize, usize),
) -> Result<Vec<Integer>> {
    check_range(basis, a)?;
    check_range(basis, b)?;
    // `b` packed once for all the devices.
    let pb = ops::pack_number_major(&gpus[0], b);
    let parts = split::per_device(gpus, n, &|g, r| {
        let rows = &a[r.start * k..r.end * k];
        if let Some(values) = product_on_gpu(g, basis, rows, &pb, (r.len(), k, p))
            .map_err(|e| entry_moved(e, r.start * p))?
        {
            return Ok(values);
        }
        let one = Backend::on_gpus(vec![g.clone()], 0)?;
        rows_product(&one, basis, (a, b), (k, p), r)
    })?;
    Ok(parts.into_iter().flatten().collect())
}

/// An integer matrix packed for the device's product ([`ops::pack_number_major`]).
pub(super) type PackedInts = (Words, Vec<u32>, usize);

/// [`Backend::matmul_integers`] of `a` and `b` (packed) on one GPU, through the
/// product's limbs ([`limbs_by_rows`]); `None` when not even one row fits the device.
pub(super) fn product_on_gpu(
    g: &Arc<Gpu>,
    basis: &Arc<RnsBasis>,
    a: &[Integer],
    pb: &PackedInts,
    (n, k, p): (usize, usize, usize),
) -> Result<Option<Vec<Integer>>> {
    let mut values = Vec::with_capacity(n * p);
    let mut put = |at: usize, limbs: &[u32], flags: &[u32], nl: usize| {
        let block = crt::from_signed_limbs(limbs, flags, nl, basis.range_bits())
            .map_err(|e| entry_moved(e, at * p))?;
        values.extend(block);
        Ok(())
    };
    Ok(limbs_by_rows(g, basis, a, pb, (n, k, p), &mut put)?.then_some(values))
}

/// Where [`limbs_by_rows`] gives each block: its first row, limbs, flags and limbs a
/// number.
type LimbSink<'a> = dyn FnMut(usize, &[u32], &[u32], usize) -> Result<()> + 'a;

/// The exact product `a · b` (`b` packed) on one GPU through its limbs
/// ([`ops::matmul_limbs`]), `a`'s rows in blocks: all of them when the product fits the
/// device's budget, else blocks halved until one fits. Each block goes to `put` in order:
/// its first row, the limbs (`nl` a number, number-major), the sign flags and `nl`.
/// `false` when a block of one row does not fit (what `put` was given is then to be
/// dropped).
fn limbs_by_rows(
    g: &Arc<Gpu>,
    basis: &Arc<RnsBasis>,
    a: &[Integer],
    pb: &PackedInts,
    (n, k, p): (usize, usize, usize),
    put: &mut LimbSink<'_>,
) -> Result<bool> {
    let (mut rows, mut at) = (n, 0);
    while at < n {
        let r = at..(at + rows).min(n);
        let pa = ops::pack_number_major(g, &a[r.start * k..r.end * k]);
        let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
        match ops::matmul_limbs(g, basis.moduli(), packed, (r.len(), k, p))? {
            Some((limbs, flags, nl)) => {
                put(r.start, &limbs, &flags, nl)?;
                at = r.end;
            }
            None if rows > 1 => rows = rows.div_ceil(2),
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// The exact product's rows `rows` (of `a`, `k` columns, by `b`, `p` columns) on `be`,
/// an entry out of range named by its index in the whole product.
fn rows_product(
    be: &Backend,
    basis: &Arc<RnsBasis>,
    (a, b): (&[Integer], &[Integer]),
    (k, p): (usize, usize),
    rows: Range<usize>,
) -> Result<Vec<Integer>> {
    let part = &a[rows.start * k..rows.end * k];
    be.matmul_integers(basis, part, b, (rows.len(), k, p))
        .map_err(|e| entry_moved(e, rows.start * p))
}

/// `e`, an entry out of range named by its index in a block that starts at entry `at`
/// of the whole product.
fn entry_moved(e: Error, at: usize) -> Error {
    match e {
        Error::OutOfRange { index, range_bits } => Error::OutOfRange {
            index: index + at,
            range_bits,
        },
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signed_words_come_back_and_refuse_what_they_cannot_hold() {
        let big = Integer::from(1) << 95u32;
        let values = [
            Integer::new(),
            Integer::from(1),
            Integer::from(-1),
            Integer::from(u32::MAX),
            -Integer::from(u64::MAX),
            Integer::from(&big - 1),
            -Integer::from(&big - 1),
        ];
        let mut words = vec![0; 4 * values.len()];
        signed_words_into(&values, 4, &mut words).unwrap();
        assert_eq!(from_signed_words(&words, 4), values);
        assert!(
            signed_words_into(&[big << 1u32], 4, &mut [0; 4]).is_err(),
            "97 bits in 3 limbs"
        );
        assert!(
            signed_words_into(&values, 4, &mut [0; 4]).is_err(),
            "room for one value of seven"
        );
    }

    #[test]
    fn a_devices_limbs_read_as_signed_words() {
        use rns_core::limbs::{NEGATIVE, OUT_OF_RANGE};
        // Three numbers of two limbs: 0, −(2^32 + 5), 2^64 − 1, into three words each
        // and into four (the top words zero).
        let limbs = [0, 0, 5, 1, u32::MAX, u32::MAX];
        let want = [
            Integer::new(),
            -Integer::from((1u64 << 32) + 5),
            Integer::from(u64::MAX),
        ];
        for width in [3, 4] {
            let mut out = vec![7; 3 * width];
            signed_limbs_into((&limbs, &[0, NEGATIVE, 0], 2), width, &mut out, 64).unwrap();
            assert_eq!(from_signed_words(&out, width), want);
        }
        let mut out = vec![0; 9];
        let bad = signed_limbs_into((&limbs, &[0, 0, OUT_OF_RANGE], 2), 3, &mut out, 64);
        assert!(matches!(
            bad,
            Err(Error::OutOfRange {
                index: 2,
                range_bits: 64
            })
        ));
        let narrow = signed_limbs_into((&limbs, &[0; 3], 2), 2, &mut out[..6], 64);
        assert!(narrow.is_err(), "two limbs and a sign in two words");
    }
}
