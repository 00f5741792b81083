//! Work split by channels. Every channel is independent, so a computation whose result
//! is a fixed number of words per channel runs as shares of the channels: one share per
//! MPI rank ([`crate::cluster`]), each rank's share again split across its GPUs in
//! proportion to their measured speed ([`speed`](crate::backend::gpu::ops::speed::speed)), one host thread per device so
//! that the devices run at once. The shares' words are concatenated (channel-major), and
//! with several ranks gathered to every rank, so that every rank goes on identically.

use super::gpu::Gpu;
use super::Backend;
use crate::backend::gpu::ops;
use crate::cluster;
use crate::error::{Error, Result};
use crate::num::words::Words;
use std::ops::Range;
use std::sync::Arc;

/// Work (in the operations' own measure: residues in, or residue-steps) below which
/// several GPUs leave a computation to the first: the threads, the extra launches and
/// the joins cost more than the device time they save (two H200s: a 120² det took
/// 3.1 ms on one and on two, a 48² 1000-bit product 2.8 and 3.4 ms).
pub const SPLIT_MIN_WORK: usize = 1 << 22;

/// A computation over a range of channels on one backend (the CPU or a single GPU),
/// returning `per` words for each channel of the range, channel-major.
pub(crate) type ShareFn<'a> = dyn Fn(&Backend, Range<usize>) -> Result<Words> + Sync + 'a;

/// Splits `0..len` into contiguous ranges in proportion to `weights` (positive; at
/// least one) by largest remainders (ties to the first); empty ranges are kept, so
/// that range `i` belongs to weight `i`.
pub fn shares(len: usize, weights: &[f64]) -> Vec<Range<usize>> {
    let total: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| len as f64 * w / total).collect();
    let mut sizes: Vec<usize> = exact.iter().map(|x| x.floor() as usize).collect();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| (exact[b] - exact[b].floor()).total_cmp(&(exact[a] - exact[a].floor())));
    let left = len.saturating_sub(sizes.iter().sum());
    for &i in order.iter().cycle().take(left) {
        sizes[i] += 1;
    }
    let mut start = 0;
    sizes
        .into_iter()
        .map(|s| {
            let r = start..start + s;
            start += s;
            r
        })
        .collect()
}

impl Backend {
    /// How many shares a computation of `work` residues is split into here: the MPI
    /// ranks times this process's GPUs (1 when it runs whole, as on one device).
    pub fn split_count(&self, work: usize) -> usize {
        cluster::size() * self.devices_for(work).map_or(1, |d| d.len())
    }

    /// The GPUs that share a computation of `work` residues, when there are several.
    fn devices_for(&self, work: usize) -> Option<&[Arc<Gpu>]> {
        match self {
            Backend::Gpus {
                gpus,
                min_work,
                min_split,
            } if work >= (*min_work).max(*min_split) => Some(gpus),
            _ => None,
        }
    }

    /// Runs `f` over all `channels` channels (`per` words each, `work` residues of
    /// work in all): this rank's share of them (all without MPI), split across this
    /// process's GPUs, then gathered from every rank. A failure on any rank or device
    /// is an error on every rank, never a partial result.
    pub(crate) fn by_channels(
        &self,
        channels: usize,
        per: usize,
        work: usize,
        f: &ShareFn<'_>,
    ) -> Result<Words> {
        let ranks = cluster::size();
        if ranks == 1 {
            return self.on_devices(0..channels, per, work, f);
        }
        let ranges = shares(channels, &vec![1.0; ranks]);
        let mine = ranges[cluster::rank()].clone();
        let local = self.on_devices(mine, per, work / ranks, f);
        let counts: Vec<usize> = ranges.iter().map(|r| r.len() * per).collect();
        cluster::all_gather(local, &counts).map(Words::Heap)
    }

    /// `f` over the channels `range`, split across the GPUs when there are several.
    fn on_devices(
        &self,
        range: Range<usize>,
        per: usize,
        work: usize,
        f: &ShareFn<'_>,
    ) -> Result<Words> {
        let Some(gpus) = self.devices_for(work).filter(|g| g.len() > 1) else {
            let out = f(self, range.clone())?;
            return check_len(out, range.len() * per);
        };
        let at = range.start;
        let outs = per_device(gpus, range.len(), &|one, r| {
            let r = at + r.start..at + r.end;
            check_len(f(one, r.clone())?, r.len() * per)
        })?;
        let mut all = Vec::with_capacity(range.len() * per);
        for out in outs {
            all.extend_from_slice(&out);
        }
        Ok(Words::Heap(all))
    }

    /// The GPUs of this backend when there are several and `work` residues are enough
    /// to send to them, and the computation runs in one process (no MPI ranks).
    pub(crate) fn several_gpus(&self, work: usize) -> Option<&[Arc<Gpu>]> {
        self.devices_for(work)
            .filter(|g| g.len() > 1 && cluster::size() == 1)
    }
}

/// A computation on one device over its part of the items and their words.
pub(crate) type PartFn<'a, T> = dyn Fn(&Backend, Range<usize>, &mut [u32]) -> Result<T> + Sync + 'a;

/// Runs `f` on every device (as a one-device backend) over its part of `0..len`, in
/// proportion to the devices' speed, one host thread each; the parts' results in order
/// (devices whose part is empty are skipped).
pub(crate) fn per_device<T: Send>(
    gpus: &[Arc<Gpu>],
    len: usize,
    f: &(dyn Fn(&Backend, Range<usize>) -> Result<T> + Sync),
) -> Result<Vec<T>> {
    per_device_mut(gpus, len, 0, &mut [], &|one, r, _| f(one, r))
}

/// [`per_device`] with `data` (`per` words for each of the `len` items) split along:
/// each device gets its part's words to read and overwrite in place.
pub(crate) fn per_device_mut<T: Send>(
    gpus: &[Arc<Gpu>],
    len: usize,
    per: usize,
    data: &mut [u32],
    f: &PartFn<'_, T>,
) -> Result<Vec<T>> {
    if data.len() != len * per {
        return Err(Error::Internal(format!(
            "{} words for {len} items of {per}",
            data.len()
        )));
    }
    let weights = gpus
        .iter()
        .map(|g| ops::speed(g))
        .collect::<Result<Vec<f64>>>()?;
    let parts = shares(len, &weights);
    let mut chunks = Vec::with_capacity(parts.len());
    let mut rest = data;
    for r in &parts {
        let (head, tail) = rest.split_at_mut(r.len() * per);
        chunks.push(head);
        rest = tail;
    }
    let outs: Vec<Result<T>> = std::thread::scope(|s| {
        let handles: Vec<_> = gpus
            .iter()
            .zip(parts)
            .zip(chunks)
            .filter(|((_, r), _)| !r.is_empty())
            .map(|((g, r), chunk)| {
                let one = Backend::Gpu {
                    gpu: g.clone(),
                    min_work: 0,
                };
                s.spawn(move || f(&one, r, chunk))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Internal("a device's thread panicked".into())))
            })
            .collect()
    });
    outs.into_iter().collect()
}

/// `out`, when it holds the `expected` words of its share.
fn check_len(out: Words, expected: usize) -> Result<Words> {
    if out.len() == expected {
        Ok(out)
    } else {
        Err(Error::Internal(format!(
            "a share of channels gave {} words instead of {expected}",
            out.len()
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::shares;

    #[test]
    fn shares_cover_the_range_in_proportion() {
        assert_eq!(shares(10, &[1.0, 1.0]), [0..5, 5..10]);
        assert_eq!(shares(11, &[1.0, 1.0, 1.0]), [0..4, 4..8, 8..11]);
        assert_eq!(shares(9, &[1.0, 2.0]), [0..3, 3..9]);
        assert_eq!(shares(1, &[1.0, 1.0, 1.0]), [0..1, 1..1, 1..1]);
        assert_eq!(shares(0, &[3.0, 1.0]), [0..0, 0..0]);
        for len in [0usize, 1, 7, 1092, 2201] {
            for w in [
                &[1.0][..],
                &[0.7, 1.3],
                &[1.0, 1.0, 1.0],
                &[2.0, 1.0, 5.0, 1.0],
            ] {
                let s = shares(len, w);
                assert_eq!(s.len(), w.len());
                assert_eq!(s[0].start, 0);
                assert_eq!(s.last().unwrap().end, len);
                assert!(s.windows(2).all(|p| p[0].end == p[1].start));
            }
        }
    }
}
