//! The gather of large shares among the ranks of one host through an MPI-3 shared window
//! (`MPI_Win_allocate_shared`, backed by `/dev/shm`): each rank writes its share into its
//! own segment, every rank reads all of them in place. The window is kept between gathers
//! (its pages already mapped: writing fresh shared pages costs about 0.5 s a GB), reused
//! by a later gather of no more words a rank, and freed when a larger one comes and when
//! the job ends.

use super::mpi::{agree, world};
use crate::error::{Error, Result};
use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::traits::*;
use std::sync::Mutex;

/// A shared window: its handle, and each rank's segment (start, words).
struct Window {
    win: ffi::MPI_Win,
    segments: Vec<(*mut u32, usize)>,
}

// SAFETY: the handle and the segments' addresses are valid in every thread of this
// process; MPI runs serialized, and the window is used by one gather at a time (taken
// out of `KEPT` while in use).
unsafe impl Send for Window {}
// SAFETY: as for Send; a reader only reads the segments, which stay mapped while it holds
// the window.
unsafe impl Sync for Window {}

impl Window {
    /// A new window of `counts[r]` words for each rank `r` of the host (every rank calls
    /// it with the same counts).
    fn allocate(counts: &[usize]) -> Result<Window> {
        let w = world();
        let host = w.split_shared(w.rank());
        let mine = counts[w.rank() as usize];
        let bytes = ffi::MPI_Aint::try_from(4 * mine)
            .map_err(|_| Error::Cluster(format!("{mine} words in one window")))?;
        // SAFETY: reads the handle constant MPI initialized.
        let mut win = unsafe { ffi::RSMPI_WIN_NULL };
        let mut at: *mut u32 = std::ptr::null_mut();
        // SAFETY: plain MPI-3 calls on the host's communicator, whose ranks are the
        // world's in order (split with the world rank as key); MPI's default error
        // handler ends the job on failure, so the window is valid when they return.
        let segments = unsafe {
            ffi::MPI_Win_allocate_shared(
                bytes,
                4,
                ffi::RSMPI_INFO_NULL,
                host.as_raw(),
                (&mut at as *mut *mut u32).cast(),
                &mut win,
            );
            (0..counts.len())
                .map(|r| {
                    let (mut size, mut unit) = (0 as ffi::MPI_Aint, 0i32);
                    let mut base: *mut u32 = std::ptr::null_mut();
                    ffi::MPI_Win_shared_query(
                        win,
                        r as i32,
                        &mut size,
                        &mut unit,
                        (&mut base as *mut *mut u32).cast(),
                    );
                    (base, counts[r])
                })
                .collect()
        };
        Ok(Window { win, segments })
    }

    /// Whether every rank's share fits its segment.
    fn holds(&self, counts: &[usize]) -> bool {
        self.segments.len() == counts.len()
            && self.segments.iter().zip(counts).all(|(s, &c)| c <= s.1)
    }

    /// Waits for every rank (`MPI_Win_fence`): the stores before it are seen by the loads
    /// after it, on every rank.
    fn fence(&self) {
        // SAFETY: the window is valid until dropped.
        unsafe { ffi::MPI_Win_fence(0, self.win) };
    }
}

impl Drop for Window {
    fn drop(&mut self) {
        // SAFETY: `win` came from MPI_Win_allocate_shared and is freed once; every rank
        // frees its windows at the same point of the job.
        unsafe { ffi::MPI_Win_free(&mut self.win) };
    }
}

/// The window kept since the last gather (the same on every rank: every rank makes the
/// same gathers with the same counts).
static KEPT: Mutex<Option<Window>> = Mutex::new(None);

/// Frees the kept window (collective: every rank calls it, before `MPI_Finalize`).
pub(super) fn free_kept() {
    drop(KEPT.lock().unwrap_or_else(|e| e.into_inner()).take());
}

/// Every rank's share, read in place from the shared window; the window goes back to be
/// kept when this is dropped.
pub(crate) struct SharedWords {
    window: Option<Window>,
}

impl SharedWords {
    /// Rank `r`'s share, the `count` words that rank wrote (at most its segment's).
    pub(crate) fn part(&self, r: usize, count: usize) -> &[u32] {
        let Some(w) = &self.window else { return &[] };
        match count.min(w.segments[r].1) {
            0 => &[],
            // SAFETY: rank r's segment holds at least c words, written before the fence
            // that ended the gather, and stays mapped while the window is held.
            c => unsafe { std::slice::from_raw_parts(w.segments[r].0, c) },
        }
    }
}

impl Drop for SharedWords {
    fn drop(&mut self) {
        let Some(w) = self.window.take() else { return };
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        // Of two windows (a gather made while another was held), the larger is kept.
        let size = |w: &Window| w.segments.iter().map(|s| s.1).sum::<usize>();
        if kept.as_ref().is_none_or(|k| size(k) < size(&w)) {
            *kept = Some(w);
        }
    }
}

/// [`super::all_gather`] where every rank runs on this host: each rank's `counts[rank]`
/// words written by `write` into its segment of the shared window (the kept one when it
/// holds them), then read in place by every rank.
pub(super) fn all_gather_shared(
    counts: &[usize],
    write: impl FnOnce(&mut [u32]) -> Result<()>,
) -> Result<SharedWords> {
    let me = world().rank() as usize;
    let kept = KEPT.lock().unwrap_or_else(|e| e.into_inner()).take();
    let window = match kept {
        Some(w) if w.holds(counts) => w,
        other => {
            drop(other);
            Window::allocate(counts)?
        }
    };
    // Every rank has read the last gather's shares before any rank writes this one's.
    window.fence();
    let (at, _) = window.segments[me];
    let local = match counts[me] {
        0 => write(&mut []),
        // SAFETY: this rank's segment holds counts[me] words; only this rank writes it,
        // between the two fences.
        c => write(unsafe { std::slice::from_raw_parts_mut(at, c) }),
    };
    window.fence();
    let words = SharedWords {
        window: Some(window),
    };
    agree(local)?;
    super::count_traffic(0, 4 * counts.iter().sum::<usize>() as u64);
    Ok(words)
}
