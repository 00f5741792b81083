//! The mechanics of shares. Every channel is independent, so a computation whose result
//! is a fixed number of words per channel runs as shares of the channels (as
//! [`super::plan`] decides): one share per MPI rank ([`crate::cluster`]), each rank's
//! share again split across its GPUs in proportion to their measured speed
//! (`ops::speed`), one host thread per device so that the devices run at once.

use super::gpu::{ops, Gpu};
use crate::cluster;
use crate::error::{Error, Result};
use crate::num::words::Words;
use std::ops::Range;
use std::sync::Arc;
use std::thread::ScopedJoinHandle;

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

/// The ranges of `channels` channels of every MPI rank, in rank order, and this rank's.
pub(crate) fn rank_shares(channels: usize) -> (Vec<Range<usize>>, Range<usize>) {
    let ranges = shares(channels, &vec![1.0; cluster::size()]);
    let mine = ranges[cluster::rank()].clone();
    (ranges, mine)
}

/// A computation on one device over its part of the items.
pub(crate) type DeviceFn<'a, T> = dyn Fn(&Arc<Gpu>, Range<usize>) -> Result<T> + Sync + 'a;

/// A computation on one device over its part of the items and their words.
pub(crate) type PartFn<'a, T> =
    dyn Fn(&Arc<Gpu>, Range<usize>, &mut [u32]) -> Result<T> + Sync + 'a;

/// Runs `f` on every device over its part of `0..len`, in
/// proportion to the devices' speed, one host thread each; the parts' results in order
/// (devices whose part is empty are skipped).
pub(crate) fn per_device<T: Send>(
    gpus: &[Arc<Gpu>],
    len: usize,
    f: &DeviceFn<'_, T>,
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
            .map(|((g, r), chunk)| s.spawn(move || f(g, r, chunk)))
            .collect();
        joined(handles)
    });
    outs.into_iter().collect()
}

/// Runs `f` on each of `items` (its index, the item: a device's work) on a host thread
/// of its own; the results in order.
pub(crate) fn each_on_thread<'a, I: Sync, T: Send>(
    items: &'a [I],
    f: &(dyn Fn(usize, &'a I) -> Result<T> + Sync),
) -> Vec<Result<T>> {
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .iter()
            .enumerate()
            .map(|(i, item)| s.spawn(move || f(i, item)))
            .collect();
        joined(handles)
    })
}

/// The results of scoped threads (a device's each), in order; a thread that panicked
/// gives an error.
fn joined<T>(handles: Vec<ScopedJoinHandle<'_, Result<T>>>) -> Vec<Result<T>> {
    handles
        .into_iter()
        .map(|h| {
            h.join()
                .unwrap_or_else(|_| Err(Error::Internal("a device's thread panicked".into())))
        })
        .collect()
}

/// `out`, when it holds the `expected` words of its share.
pub(crate) fn check_len(out: Words, expected: usize) -> Result<Words> {
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
