//! The MPI side of [`crate::cluster`], through rsmpi over the system's OpenMPI: joining
//! and leaving the job, the gather of the shares (copied, or read in place from a window
//! the ranks of one host share) and the broadcast of the input.

use crate::error::{Error, Result};
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;
use mpi::Threading;
use std::sync::Mutex;

/// The MPI environment while the job is joined (dropping it finalizes MPI).
static UNIVERSE: Mutex<Option<Universe>> = Mutex::new(None);

/// Whether `mpirun` (OpenMPI, or a PMI launcher) started this process.
pub(super) fn launched() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"]
        .iter()
        .any(|v| std::env::var_os(v).is_some())
}

/// Initializes MPI (any thread may call it, one at a time); returns this process's
/// place: its rank and the ranks in all, and the same on its host (the ranks that
/// share its memory).
pub(super) fn start() -> Result<super::Place> {
    let (universe, _) = mpi::initialize_with_threading(Threading::Serialized)
        .ok_or_else(|| Error::Cluster("MPI was already initialized".into()))?;
    let world = universe.world();
    let host = world.split_shared(world.rank());
    let place = super::Place {
        rank: world.rank() as usize,
        size: world.size() as usize,
        local_rank: host.rank() as usize,
        local_size: host.size() as usize,
    };
    *UNIVERSE.lock().unwrap_or_else(|e| e.into_inner()) = Some(universe);
    Ok(place)
}

/// Finalizes MPI, once (the kept shared window freed first).
pub(super) fn stop() {
    super::window::free_kept();
    drop(UNIVERSE.lock().unwrap_or_else(|e| e.into_inner()).take());
}

pub(super) fn world() -> SimpleCommunicator {
    SimpleCommunicator::world()
}

/// A count as MPI's `int`.
fn count(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| {
        Error::Cluster(format!(
            "{n} words in one message: more than MPI's 2^31 − 1"
        ))
    })
}

/// Every rank's status (0, or the exit code of its error); when one failed, the lowest
/// failed rank's message, broadcast from it, as the same error on every rank.
pub(super) fn agree<T>(local: Result<T>) -> Result<T> {
    let w = world();
    let code = match &local {
        Ok(_) => 0,
        Err(e) => e.exit_code().max(1),
    };
    let mut codes = vec![0i32; w.size() as usize];
    w.all_gather_into(&code, &mut codes[..]);
    let Some(failed) = codes.iter().position(|&c| c != 0) else {
        return local;
    };
    let message = match &local {
        Err(e) if failed == w.rank() as usize => e.to_string(),
        _ => String::new(),
    };
    let message = broadcast_bytes(failed as i32, message.into_bytes())?;
    Err(Error::Rank {
        rank: failed,
        code: codes[failed],
        message: String::from_utf8_lossy(&message).into_owned(),
    })
}

/// Bytes per broadcast message: MPI counts are `int`s.
const PIECE: usize = 1 << 30;

/// `bytes` of rank `root`, on every rank (in pieces of at most 1 GiB).
fn broadcast_bytes(root: i32, mut bytes: Vec<u8>) -> Result<Vec<u8>> {
    let w = world();
    let from = w.process_at_rank(root);
    let mut len = bytes.len() as u64;
    from.broadcast_into(&mut len);
    let len = usize::try_from(len).map_err(|_| Error::Cluster("message too long".into()))?;
    bytes.resize(len, 0);
    // (An empty piece is never sent: OpenMPI rejects the dangling pointer of an empty buffer.)
    for piece in bytes.chunks_mut(PIECE) {
        from.broadcast_into(piece);
    }
    super::count_traffic(len as u64, 0);
    Ok(bytes)
}

pub(super) fn all_gather(local: Result<impl AsRef<[u32]>>, counts: &[usize]) -> Result<Vec<u32>> {
    let w = world();
    // The counts are the same on every rank, so a bad one fails everywhere alike.
    let sizes = counts
        .iter()
        .map(|&c| count(c))
        .collect::<Result<Vec<i32>>>()?;
    let total = count(counts.iter().sum())?;
    let mine = counts[w.rank() as usize];
    let local = agree(local.and_then(|l| match l.as_ref().len() == mine {
        true => Ok(l),
        false => Err(Error::Internal(format!(
            "rank {} computed {} words instead of {mine}",
            w.rank(),
            l.as_ref().len()
        ))),
    }))?;
    let displs: Vec<i32> = sizes
        .iter()
        .scan(0, |at, &c| {
            let d = *at;
            *at += c;
            Some(d)
        })
        .collect();
    let mut all = vec![0u32; total as usize];
    if total == 0 {
        return Ok(all);
    }
    let mut into = PartitionMut::new(&mut all[..], &sizes[..], &displs[..]);
    w.all_gather_varcount_into(local.as_ref(), &mut into);
    super::count_traffic(0, 4 * total as u64);
    Ok(all)
}

pub(super) fn broadcast_text(read: impl FnOnce() -> Result<String>) -> Result<String> {
    let w = world();
    let mine = (w.rank() == 0).then(read);
    let (mut code, bytes) = match &mine {
        Some(Ok(text)) => (0i32, text.as_bytes().to_vec()),
        Some(Err(e)) => (e.exit_code().max(1), e.to_string().into_bytes()),
        None => (0, Vec::new()),
    };
    w.process_at_rank(0).broadcast_into(&mut code);
    let bytes = broadcast_bytes(0, bytes)?;
    if let Some(text) = mine {
        // Rank 0 keeps its own result, error included, as a single process has it.
        return text;
    }
    let text = String::from_utf8_lossy(&bytes).into_owned();
    match code {
        0 => Ok(text),
        code => Err(Error::Rank {
            rank: 0,
            code,
            message: text,
        }),
    }
}

/// Whether `flag` holds on every rank.
pub(super) fn on_every_rank(flag: bool) -> bool {
    let w = world();
    let mut all = vec![0u8; w.size() as usize];
    w.all_gather_into(&(flag as u8), &mut all[..]);
    all.iter().all(|&f| f == 1)
}
