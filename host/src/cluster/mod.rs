//! Several processes as one computation, through MPI (the `mpi` cargo feature, over the
//! system's OpenMPI). A process started by `mpirun` with more than one rank joins the
//! job in [`init`]; from then on the channel-parallel computations of every backend
//! ([`Backend`](crate::Backend)) run as one share of the channels per rank, gathered to
//! every rank, and the inputs read through [`crate::input::read_source`] are read by
//! rank 0 and broadcast. Every rank then goes on identically; the caller prints on rank 0
//! only ([`is_root`]). Without the feature, or outside `mpirun`, there is one rank.
//!
//! A failure on one rank (an error in its share) becomes the same [`Error::Rank`] on
//! every rank, never a hang or a partial result; a rank that dies ends the job through
//! `mpirun`.

#[cfg(feature = "mpi")]
mod mpi;
#[cfg(feature = "mpi")]
mod window;

use crate::error::{Error, Result};
#[cfg(feature = "mpi")]
use std::sync::OnceLock;

/// A process's place in the job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Place {
    /// Its rank.
    pub rank: usize,
    /// The number of ranks.
    pub size: usize,
    /// Its rank among the ranks of its host.
    pub local_rank: usize,
    /// The number of ranks on its host.
    pub local_size: usize,
}

/// The place of a process alone.
const ALONE: Place = Place {
    rank: 0,
    size: 1,
    local_rank: 0,
    local_size: 1,
};

/// This process's place in the job, set once by [`init`].
#[cfg(feature = "mpi")]
static PLACE: OnceLock<Place> = OnceLock::new();

/// Joins the MPI job when this process was started by `mpirun` (and built with the `mpi`
/// feature); returns the number of ranks (1 when there is no job to join). Call once, at
/// the start of `main` (before any parallel work), and [`finish`] before the process
/// exits. The ranks of one host share its cores: each one's thread pool gets its share
/// of them, unless `RAYON_NUM_THREADS` says otherwise.
pub fn init() -> Result<usize> {
    #[cfg(feature = "mpi")]
    if mpi::launched() {
        let place = mpi::start()?;
        let _ = PLACE.set(place);
        if place.local_size > 1 && std::env::var_os("RAYON_NUM_THREADS").is_none() {
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            // (Refused when the pool already started: it keeps its threads.)
            let _ = rayon::ThreadPoolBuilder::new()
                .num_threads((cores / place.local_size).max(1))
                .build_global();
        }
        return Ok(place.size);
    }
    Ok(1)
}

/// Leaves the MPI job (`MPI_Finalize`), if [`init`] joined one; a no-op otherwise.
pub fn finish() {
    #[cfg(feature = "mpi")]
    mpi::stop();
}

/// This process's place in the job (rank 0 of 1 without MPI).
pub fn place() -> Place {
    #[cfg(feature = "mpi")]
    if let Some(&p) = PLACE.get() {
        return p;
    }
    ALONE
}

/// The number of ranks computing together (1 without MPI).
pub fn size() -> usize {
    place().size
}

/// This process's rank (0 without MPI).
pub fn rank() -> usize {
    place().rank
}

/// Bytes this rank received by broadcast and by gathers since it started.
static TRAFFIC: [std::sync::atomic::AtomicU64; 2] =
    [const { std::sync::atomic::AtomicU64::new(0) }; 2];

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
fn count_traffic(broadcast: u64, gathered: u64) {
    use std::sync::atomic::Ordering::Relaxed;
    TRAFFIC[0].fetch_add(broadcast, Relaxed);
    TRAFFIC[1].fetch_add(gathered, Relaxed);
}

/// The bytes this rank has received through MPI: `(broadcast, gathered)` (the input
/// from rank 0, and every rank's shares).
pub fn traffic() -> (u64, u64) {
    use std::sync::atomic::Ordering::Relaxed;
    (TRAFFIC[0].load(Relaxed), TRAFFIC[1].load(Relaxed))
}

/// Whether this process prints: rank 0, or the only process.
pub fn is_root() -> bool {
    rank() == 0
}

/// Every rank's share (`counts[r]` words from rank `r`, this rank's being `local`),
/// concatenated in rank order, on every rank; an [`Error::Rank`] on every rank when any
/// rank's share failed (the lowest such rank's error).
pub(crate) fn all_gather(local: Result<impl AsRef<[u32]>>, counts: &[usize]) -> Result<Vec<u32>> {
    let local = local.and_then(|w| {
        injected_failure()?;
        Ok(w)
    });
    #[cfg(feature = "mpi")]
    if size() > 1 {
        return mpi::all_gather(local, counts);
    }
    let _ = counts;
    local.map(|w| w.as_ref().to_vec())
}

/// Every rank's share, as [`all_gather_with`] gave it: in memory the ranks of one host
/// share, or copied into this process.
pub(crate) struct Gathered {
    words: GatheredWords,
    counts: Vec<usize>,
}

/// Where [`Gathered`] shares are.
enum GatheredWords {
    /// Copied into this process (one rank, or ranks on several hosts), in rank order.
    Copied(Vec<u32>),
    /// Read in place from a window the ranks share.
    #[cfg(feature = "mpi")]
    Shared(window::SharedWords),
}

impl Gathered {
    /// Rank `r`'s share (`counts[r]` words).
    pub(crate) fn part(&self, r: usize) -> &[u32] {
        match &self.words {
            GatheredWords::Copied(v) => {
                let at: usize = self.counts[..r].iter().sum();
                &v[at..at + self.counts[r]]
            }
            #[cfg(feature = "mpi")]
            GatheredWords::Shared(w) => w.part(r, self.counts[r]),
        }
    }
}

/// The test hook `RNS_MPI_GATHER=copy`: gathers copy the shares even where the ranks
/// share a host.
#[cfg(feature = "mpi")]
const GATHER_VAR: &str = "RNS_MPI_GATHER";

/// [`all_gather`] of shares that `write` puts in place (`counts[rank]` words): where every
/// rank runs on one host and `/dev/shm` holds them all, into memory the ranks share
/// (`window`), read there by every rank with no copy (large results: the exact
/// product's limbs); else into this process and gathered.
pub(crate) fn all_gather_with(
    counts: &[usize],
    write: impl FnOnce(&mut [u32]) -> Result<()>,
) -> Result<Gathered> {
    let write = |w: &mut [u32]| {
        write(w)?;
        injected_failure()
    };
    let words = match () {
        #[cfg(feature = "mpi")]
        () if size() > 1 && on_one_host(counts) => {
            GatheredWords::Shared(window::all_gather_shared(counts, write)?)
        }
        () => {
            let mut mine = vec![0u32; counts[rank()]];
            let local = write(&mut mine).map(|()| mine);
            GatheredWords::Copied(all_gather(local, counts)?)
        }
    };
    Ok(Gathered {
        words,
        counts: counts.to_vec(),
    })
}

/// Whether every rank agrees to gather `counts` words through a shared window: all of them
/// on this host, `/dev/shm` with room, and no `RNS_MPI_GATHER=copy`.
#[cfg(feature = "mpi")]
fn on_one_host(counts: &[usize]) -> bool {
    let bytes = 4 * counts.iter().sum::<usize>() as u64;
    let here = place().local_size == size()
        && std::env::var(GATHER_VAR).as_deref() != Ok("copy")
        && shm_free().is_some_and(|free| free > bytes + (bytes >> 4));
    mpi::on_every_rank(here)
}

/// Free bytes in `/dev/shm`, where MPI keeps the windows the ranks of a host share.
#[cfg(feature = "mpi")]
fn shm_free() -> Option<u64> {
    let mut st = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: a NUL-terminated path and a buffer statvfs fills when it returns 0.
    let ok = unsafe { libc::statvfs(c"/dev/shm".as_ptr(), st.as_mut_ptr()) } == 0;
    // SAFETY: filled, as statvfs returned 0.
    ok.then(|| unsafe { st.assume_init() })
        .map(|st| st.f_bavail * st.f_frsize)
}

/// The text `read` gives on rank 0, broadcast to every rank (rank 0's error, as
/// [`Error::Rank`], on the others): the input is read once, where the job started.
pub(crate) fn broadcast_text(read: impl FnOnce() -> Result<String>) -> Result<String> {
    #[cfg(feature = "mpi")]
    if size() > 1 {
        return mpi::broadcast_text(read);
    }
    read()
}

/// The test hook `RNS_TEST_FAIL_RANK=R` (or `R:abort`, `R:kill`): rank `R`'s shares
/// fail (or the process aborts, or is killed by SIGKILL), to check that a failed rank
/// ends the job cleanly.
fn injected_failure() -> Result<()> {
    let Ok(spec) = std::env::var("RNS_TEST_FAIL_RANK") else {
        return Ok(());
    };
    let (r, how) = spec.split_once(':').unwrap_or((spec.as_str(), ""));
    if r.trim().parse::<usize>().ok() != Some(rank()) {
        return Ok(());
    }
    match how {
        "abort" => std::process::abort(),
        // SAFETY: raise only sends a signal to this process.
        "kill" => unsafe {
            libc::raise(libc::SIGKILL);
        },
        _ => {}
    }
    Err(Error::gpu(format!(
        "injected failure on rank {} (RNS_TEST_FAIL_RANK)",
        rank()
    )))
}
