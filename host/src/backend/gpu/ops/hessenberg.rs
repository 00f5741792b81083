//! Characteristic polynomials with the whole GPU: every prime's Hessenberg form one
//! column per three launches over the whole grid
//! ([`hessenberg_steps`](crate::backend::gpu::launch::hessenberg_steps)), then the
//! recurrence of the leading blocks' polynomials, two launches a step
//! ([`charpoly_recurrence_steps`](crate::backend::gpu::launch::charpoly_recurrence_steps)).
//! For a few large matrices and for many primes of one large matrix from order
//! [`CHARPOLY_GRID_FROM`] ([`charpoly_mod_grid`], in groups of primes that fit the
//! memory budget, and [`charpoly_packed`], which reduces an integer matrix's entries on
//! the device), where a block per prime is slower; and [`minpoly_mod_few`] where the
//! minimal polynomial is the characteristic one.

use super::few::require_matrices;
use super::matrices::DeviceWords;
use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::{Gpu, Packed};
use crate::error::{Error, Result};
use rns_core::Modulus;

/// Order from which the characteristic polynomials of many primes go by whole-grid
/// launches ([`charpoly_mod_grid`]) rather than a block per prime. H100, random
/// residues (`examples/charpoly_bench.rs`): 250² × 600 primes 0.063 s against 0.050 s,
/// 500² × 1150 primes 0.597 s against 1.205 s, 1000² × 2250 primes 7.7 s against 49.3 s.
pub const CHARPOLY_GRID_FROM: usize = 400;

/// Device words a channel of the whole-grid path holds: its matrix, the polynomials'
/// triangle and the steps' vectors.
fn channel_words(n: usize) -> usize {
    n * n + 4 * n + 3 + rns_core::charpoly::charpoly_scratch_words(n) + launch::HESS_STATE_WORDS
}

/// Primes of `n × n` matrices that the whole-grid path takes at once: as many as fit the
/// memory budget beside `fixed` device words, at most the grid's 65 535 in z.
fn primes_fitting(gpu: &Gpu, fixed: usize, n: usize) -> Result<usize> {
    let room = (gpu.budget()? / 4).saturating_sub(fixed);
    Ok((room / channel_words(n)).min(launch::GRID_YZ))
}

/// The characteristic polynomials modulo each of `moduli` of `n × n` matrices (`data`,
/// one row-major matrix per modulus, one after another) by whole-grid launches, in
/// groups of as many primes as fit the memory budget (and the grid's 65 535 in z):
/// `n + 1` coefficients each, constant first. `None` when not one prime fits.
pub fn charpoly_mod_grid(
    gpu: &Gpu,
    moduli: &[Modulus],
    n: usize,
    data: &[u32],
) -> Result<Option<Vec<u32>>> {
    require_matrices(data, moduli.len(), (n, n))?;
    let group = primes_fitting(gpu, 0, n)?;
    if group == 0 || moduli.is_empty() {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(moduli.len() * (n + 1));
    for (ms, d) in moduli.chunks(group).zip(data.chunks(group * n * n)) {
        match charpoly_grid(gpu, ms, n, d)? {
            Some((f, _)) => out.extend(f),
            None => return Ok(None),
        }
    }
    Ok(Some(out))
}

/// [`charpoly_mod_grid`] of an integer `n × n` matrix's images modulo each of `moduli`,
/// reduced on the device from its packed entries (`packed`, as for
/// [`reduce_words`](super::vectors::reduce_words)), uploaded once: the residues never
/// cross PCIe. `None` when not one prime fits the memory budget beside the entries.
pub fn charpoly_packed(
    gpu: &Gpu,
    moduli: &[Modulus],
    packed: Packed,
    n: usize,
) -> Result<Option<Vec<u32>>> {
    let (_, neg, nwords) = packed;
    if neg.len() != n * n {
        return Err(Error::Shape(format!(
            "{} entries do not form a {n}×{n} matrix",
            neg.len()
        )));
    }
    let group = primes_fitting(gpu, n * n * (nwords + 1), n)?;
    if group == 0 || moduli.is_empty() || n == 0 {
        return Ok(None);
    }
    let stream = gpu.stream();
    let words = DeviceWords::upload(gpu, stream, packed, false)?;
    let mut out = Vec::with_capacity(moduli.len() * (n + 1));
    for ms in moduli.chunks(group) {
        let dm = gpu.upload_on(stream, &moduli_words(ms))?;
        let mut mats = words.reduce(gpu, stream, &dm, ms.len())?;
        launch::hessenberg_steps(gpu, stream, &mut mats, &dm, ms.len(), n)?;
        let (f, _) = launch::charpoly_recurrence_steps(gpu, stream, &mats, &dm, ms.len(), n)?;
        out.extend(f);
    }
    Ok(Some(out))
}

/// The minimal polynomials of a few large matrices as [`charpoly_mod_grid`] computes
/// their characteristic ones (all at once), where every Hessenberg form it makes is unreduced (no
/// zero subdiagonal entry: the matrix is then non-derogatory, `e_1`'s Krylov vectors
/// span the space, and the two polynomials agree; a random matrix's almost surely).
/// `None` where one is reduced or they do not fit the memory budget at once.
pub fn minpoly_mod_few(
    gpu: &Gpu,
    moduli: &[Modulus],
    n: usize,
    data: &[u32],
) -> Result<Option<Vec<u32>>> {
    Ok(charpoly_grid(gpu, moduli, n, data)?
        .filter(|(_, unreduced)| unreduced.iter().all(|&u| u))
        .map(|(out, _)| out))
}

/// The characteristic polynomials of `data`'s matrices modulo `moduli`, all at once by
/// whole-grid launches, with whether each Hessenberg form is unreduced; `None` when they
/// do not fit the memory budget at once.
fn charpoly_grid(
    gpu: &Gpu,
    moduli: &[Modulus],
    n: usize,
    data: &[u32],
) -> Result<Option<(Vec<u32>, Vec<bool>)>> {
    let channels = moduli.len();
    require_matrices(data, channels, (n, n))?;
    let words = channels.saturating_mul(channel_words(n));
    if channels == 0 || words.saturating_mul(4) > gpu.budget()? {
        return Ok(None);
    }
    let stream = gpu.stream();
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats = gpu.upload_words(data)?;
    launch::hessenberg_steps(gpu, stream, &mut mats, &dm, channels, n)?;
    let found = launch::charpoly_recurrence_steps(gpu, stream, &mats, &dm, channels, n)?;
    Ok(Some(found))
}
