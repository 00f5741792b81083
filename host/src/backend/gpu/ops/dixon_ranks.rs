//! Dixon's lifting split by rows across the MPI ranks of one host, one device a rank,
//! as across the devices of one process (`super::dixon_devices`): each rank lifts its
//! share of the rows and stores its rows' tagged words into the other ranks' buffers,
//! opened here through CUDA IPC (`driver::ipc`). Each rank forms its own inverses (the
//! same primes on every rank: the same input); row 0's digits, and every row's where
//! asked, are gathered through MPI. Every decision is taken alike on every rank from
//! gathered words, so that all split, or all lift alone, or all fail together.

use super::dixon::{start_lift, DeviceLimbs, Lift};
use crate::backend::gpu::driver::ipc::HANDLE_WORDS;
use crate::backend::gpu::launch::LiftLayout;
use crate::backend::gpu::Gpu;
use crate::backend::split::shares;
use crate::cluster;
use crate::error::{Error, Result};
use rns_core::launch::LIFT_GLOBAL_MAX_PRIMES;
use rns_core::Modulus;
use std::ops::Range;

/// Words a rank gives at the handshake: found ([`SINGULAR`], [`SHARED`] or
/// [`NOT_SHARED`]), its device's ordinal, whether its rows are read from global memory
/// (the layout a share of the rows needs), the number of primes and the primes
/// (padded), the layout's digest (2), the handles of its `y` and `x`.
const HEADER: usize = 4 + LIFT_GLOBAL_MAX_PRIMES + 2;
const WORDS: usize = HEADER + 2 * HANDLE_WORDS;
/// The handshake's first word: `A` singular modulo the primes tried.
const SINGULAR: u32 = 0;
/// The handshake's first word: a lifting whose buffers other processes can open.
const SHARED: u32 = 1;
/// The handshake's first word: a lifting whose buffers are not shared (rows in shared
/// memory, or no CUDA IPC here): every rank then lifts alone.
const NOT_SHARED: u32 = 2;

/// Whether a lifting of `n` rows goes through the ranks' handshake
/// ([`start_lift_ranks`]): several ranks, all on this host, at least a row each. The
/// same answer on every rank, whatever its devices, so that all meet there; the
/// handshake then splits the rows, or has every rank lift alone (a layout that keeps
/// the rows in shared memory, ranks on one device, buffers that cannot be shared).
pub fn splits(n: usize) -> bool {
    let p = cluster::place();
    p.size > 1 && p.local_size == p.size && n >= p.size
}

/// A lifting started across the ranks.
pub enum Started<'a> {
    /// Split: this rank's part, and every rank's rows.
    Split(Lift<'a>, Vec<Range<usize>>),
    /// Each rank lifts every row itself (rows in shared memory, different primes or
    /// layouts, ranks on one device, or a rank could not share its buffers or open
    /// another's).
    Alone(Lift<'a>),
    /// `A` is singular modulo the primes tried (on some rank: then on every rank).
    Singular,
}

/// [`start_lift`] on this rank's device, then the handshake: every rank's device,
/// primes, layout and buffers gathered, the others' buffers opened, and this rank's
/// part made to lift its share of the rows (equal shares, in rank order).
pub fn start_lift_ranks<'a>(
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    (rhs, l): (&[i128], usize),
    (primes, max_primes): (&[Modulus], usize),
    capacity: &(dyn Fn(&[Modulus]) -> usize + Sync),
) -> Result<Started<'a>> {
    let (rank, size) = (cluster::rank(), cluster::size());
    let candidates = (primes.iter().copied(), max_primes);
    let mut lift = start_lift(gpu, a, (rhs, l), candidates, capacity);
    let mine = match &mut lift {
        Ok(Some(part)) => {
            // Only rows read from global memory can be shared out; a lifting whose
            // buffers are not shared lifts alone.
            let global = matches!(part.layout(), LiftLayout::Global { .. });
            let handles = global.then(|| part.export().ok()).flatten();
            let found = if handles.is_some() {
                SHARED
            } else {
                NOT_SHARED
            };
            let global = global as u32;
            let mut w = vec![
                found,
                gpu.ordinal() as u32,
                global,
                part.primes().len() as u32,
            ];
            w.extend(part.primes());
            w.resize(4 + LIFT_GLOBAL_MAX_PRIMES, 0);
            let digest = layout_digest(part.layout());
            w.extend([digest as u32, (digest >> 32) as u32]);
            w.extend(handles.unwrap_or_else(|| vec![0; 2 * HANDLE_WORDS]));
            Ok(w)
        }
        Ok(None) => Ok(vec![SINGULAR; WORDS]),
        Err(e) => Err(e.clone()),
    };
    let all = cluster::all_gather(mine, &vec![WORDS; size])?;
    // Every rank has ended its previous lifting: the buffers it shared can go (a
    // failure here only keeps this lifting from splitting, decided with the others').
    let freed = crate::backend::gpu::driver::ipc::free_retired(gpu);
    let of = |r: usize| &all[r * WORDS..(r + 1) * WORDS];
    if (0..size).any(|r| of(r)[0] == SINGULAR) {
        return Ok(Started::Singular);
    }
    let Ok(Some(mut lift)) = lift else {
        return Err(Error::Internal("a rank's lifting vanished".into()));
    };
    // Alone where the rows stay in shared memory, the ranks chose different primes or
    // layouts, share a device, or one could not share its buffers.
    let mut devices: Vec<u32> = (0..size).map(|r| of(r)[1]).collect();
    devices.sort_unstable();
    devices.dedup();
    if of(0)[2] == 0
        || (0..size).any(|r| of(r)[2..HEADER] != of(0)[2..HEADER] || of(r)[0] == NOT_SHARED)
        || devices.len() < size
    {
        return Ok(Started::Alone(lift));
    }
    let peers: Result<Vec<[u64; 2]>> = (0..size)
        .filter(|&r| r != rank)
        .map(|r| lift.open_peer(&of(r)[HEADER..]))
        .collect();
    let ready = peers.is_ok() && freed.is_ok();
    let opened = cluster::all_gather(Ok([ready as u32]), &vec![1; size])?;
    let (Ok(peers), true) = (peers, opened.iter().all(|&o| o == 1)) else {
        return Ok(Started::Alone(lift));
    };
    let rows = shares(a.n, &vec![1.0; size]);
    // No rank launches before every rank's part is in place; a rank whose part failed
    // to take its rows fails every rank (no rank is left waiting at this gather).
    let shared = lift.share((rows[rank].start, rows[rank].len()), &peers);
    cluster::all_gather(shared.map(|()| [1u32]), &vec![1; size])?;
    Ok(Started::Split(lift, rows))
}

/// A digest of a launch layout, to compare the ranks' layouts.
fn layout_digest(layout: LiftLayout) -> u64 {
    use std::hash::{DefaultHasher, Hash, Hasher};
    let mut h = DefaultHasher::new();
    format!("{layout:?}").hash(&mut h);
    h.finish()
}

/// Row 0's digits (`len` words, on the rank whose rows hold row 0), given to every
/// rank; `part` is this rank's.
pub(crate) fn first(part: &Lift, rows: &[Range<usize>], len: usize) -> Result<Vec<u32>> {
    let holds = |r: &Range<usize>| r.contains(&0);
    let mine = match holds(&rows[cluster::rank()]) {
        true => part.first(),
        false => part.check().map(|()| Vec::new()),
    };
    let counts: Vec<usize> = rows
        .iter()
        .map(|r| if holds(r) { len } else { 0 })
        .collect();
    cluster::all_gather(mine, &counts)
}

/// Every row's digits of the first `steps` steps (levels of `n × l`), each rank's rows
/// from it, given to every rank; `part` is this rank's.
pub(crate) fn digits(
    part: &Lift,
    rows: &[Range<usize>],
    (n, l): (usize, usize),
    steps: usize,
) -> Result<Vec<u32>> {
    let levels = steps.min(part.steps()) * part.primes().len();
    let mine = part
        .digits(steps)
        .map(|all| rows_of(&all, rows[cluster::rank()].clone(), (n, l)));
    let counts: Vec<usize> = rows.iter().map(|r| r.len() * l * levels).collect();
    let gathered = cluster::all_gather(mine, &counts)?;
    Ok(merge_rows(&gathered, rows, (n, l), levels))
}

/// The words of rows `rows` of every level of `all` (levels of `n × l`), level after
/// level: what a rank gives of its digits.
fn rows_of(all: &[u32], rows: Range<usize>, (n, l): (usize, usize)) -> Vec<u32> {
    all.chunks(n * l)
        .flat_map(|level| level[rows.start * l..rows.end * l].iter().copied())
        .collect()
}

/// Every row's digits, `levels` levels of `n × l`, from `gathered`: each rank's
/// [`rows_of`] its `rows`, in rank order.
fn merge_rows(
    gathered: &[u32],
    rows: &[Range<usize>],
    (n, l): (usize, usize),
    levels: usize,
) -> Vec<u32> {
    let mut all = vec![0u32; levels * n * l];
    let mut at = 0;
    for r in rows {
        let width = r.len() * l;
        for (t, level) in all.chunks_mut(n * l).enumerate() {
            let from = at + t * width;
            level[r.start * l..r.end * l].copy_from_slice(&gathered[from..from + width]);
        }
        at += width * levels;
    }
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_ranks_rows_come_back_in_place() {
        // 3 levels of 5 rows × 2 columns, shared among 3 ranks (one with no row).
        let (n, l, levels) = (5, 2, 3);
        let all: Vec<u32> = (0..(levels * n * l) as u32).collect();
        let one: Vec<Range<usize>> = std::iter::once(0..5).collect();
        for rows in [vec![0..2, 2..5], vec![0..1, 1..1, 1..5], one] {
            let gathered: Vec<u32> = rows
                .iter()
                .flat_map(|r| rows_of(&all, r.clone(), (n, l)))
                .collect();
            assert_eq!(gathered.len(), all.len());
            assert_eq!(
                merge_rows(&gathered, &rows, (n, l), levels),
                all,
                "{rows:?}"
            );
        }
        assert_eq!(rows_of(&all, 1..2, (n, l)), [2, 3, 12, 13, 22, 23]);
    }
}
