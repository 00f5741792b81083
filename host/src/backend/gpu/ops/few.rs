//! Determinants, solves and inverses of a few large matrices, one per prime (`det A / d`
//! in Dixon's determinant, the inverse it lifts from, a determinant modulo one prime, a
//! rank's first primes), with the whole GPU for the few primes. From the order the
//! config sets, by panel inverses with the products on the tensor cores
//! ([`launch_inverse_panels`](crate::backend::gpu::launch::launch_inverse_panels)),
//! where their scratch fits. Else (and for a prime whose panel block is singular)
//! determinants: all at once with each matrix's rows in shared memory
//! (`super::rows`) where they fit; else by Schur complements (`super::schur`) where
//! their strips fit; else by panels with the trailing updates on the tensor cores
//! ([`det_on_tensor_cores`](crate::backend::gpu::launch::det_on_tensor_cores)); a prime that needs a row swap, and every prime when
//! none of the three applies, one pivot per launch. Solves: rows in shared memory while
//! no row swap is needed, then one pivot per launch. Reduced echelon forms of any rank:
//! one pivot column per launch pair, rank-revealing. Characteristic and minimal
//! polynomials: `super::hessenberg`.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::rows::STATE_WORDS;
use crate::backend::gpu::launch::View;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::num::words::Words;
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::Modulus;
use std::sync::Arc;

/// Multiprocessors per prime at least for [`det_mod_few`]: with fewer, a block per
/// prime (`Gpu::launch_det`) keeps the GPU as busy.
const SMS_PER_PRIME: usize = 4;

/// Order from which [`det_mod_few`] applies: below, one block eliminates a matrix
/// about as fast as the whole GPU.
const FEW_FROM: usize = 64;

/// Whether determinants of `channels` matrices `n × n` take [`det_mod_few`]: a
/// few large ones.
pub fn det_few_for(gpu: &Gpu, channels: usize, n: usize) -> bool {
    channels > 0 && channels * SMS_PER_PRIME <= gpu.multiprocessors() && n >= FEW_FROM
}

/// The determinant modulo each of `moduli` of its `n × n` matrix in `mats` (device
/// words, channel-major, overwritten; `dm` the moduli's), as the module says;
/// `again(channels)` gives the determinants of the channels that need a row swap,
/// from the original matrices, one pivot per launch (it gets every channel when
/// neither the rows nor strips fit and the tensor cores do not apply).
pub(crate) fn few_dets_on_device(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (mats, dm): (&mut CudaSlice<u32>, &CudaSlice<u32>),
    moduli: &[Modulus],
    n: usize,
    again: impl FnOnce(&[usize]) -> Result<Vec<u32>>,
) -> Result<Vec<u32>> {
    let channels = moduli.len();
    let done: Vec<(u32, bool)> = if let Some(b) = panels_fitting(gpu, (n, n), channels, false)? {
        let dets = by_panels(gpu, stream, (mats, dm), (n, n, channels), b, false)?;
        dets.into_iter().map(|d| (d, d != 0)).collect()
    } else if let Some(layout) = launch::rows_layout(gpu, channels, n, n) {
        let at = View::new(n * n, 0, n, 1);
        launch::eliminate_rows(gpu, stream, (mats, at), dm, moduli, (n, n), false, layout)?
            .into_iter()
            .map(|(det, stopped)| (det, stopped >= n))
            .collect()
    } else if let Some(strips) = super::schur::schur_strips(gpu, channels, n) {
        super::schur::dets_by_schur(gpu, stream, mats, dm, moduli, (n, &strips))?
    } else if launch::det_on_tensor_cores(gpu, n, channels) {
        // At 1000² with 25 primes 23 ms, against 52 ms one pivot per launch (H200).
        let s = crate::backend::gpu::launch::Det { n, channels };
        return super::matrices::dets_on_device(gpu, stream, mats, dm, s);
    } else {
        return again(&(0..channels).collect::<Vec<_>>());
    };
    let swapped: Vec<usize> = (0..channels).filter(|&c| !done[c].1).collect();
    let mut redone = again(&swapped)?.into_iter();
    done.iter()
        .map(|&(det, ok)| match ok {
            true => Ok(det),
            false => redone
                .next()
                .ok_or_else(|| Error::Internal("a determinant was not redone".into())),
        })
        .collect()
}

/// [`Error::Shape`] unless `data` holds `channels` matrices of `rows × cols` residues.
pub(super) fn require_matrices(
    data: &[u32],
    channels: usize,
    (rows, cols): (usize, usize),
) -> Result<()> {
    if data.len() == channels * rows * cols {
        return Ok(());
    }
    Err(Error::Shape(format!(
        "{} residues do not form {channels} matrices of {rows}×{cols}",
        data.len()
    )))
}

/// The determinant modulo each of `moduli` of its `n × n` matrix in `data` (one
/// row-major matrix per modulus, one after another), a few large ones
/// ([`det_few_for`]): as `few_dets_on_device`, the primes that need a
/// row swap uploaded again and eliminated one pivot per launch.
pub fn det_mod_few(gpu: &Gpu, moduli: &[Modulus], n: usize, data: &[u32]) -> Result<Vec<u32>> {
    let size = n * n;
    require_matrices(data, moduli.len(), (n, n))?;
    if moduli.is_empty() {
        return Ok(Vec::new());
    }
    let stream = gpu.stream();
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats = gpu.upload_words(data)?;
    few_dets_on_device(gpu, stream, (&mut mats, &dm), moduli, n, |again| {
        if again.is_empty() {
            return Ok(Vec::new());
        }
        let words: Vec<u32> = again
            .iter()
            .flat_map(|&c| &data[c * size..(c + 1) * size])
            .copied()
            .collect();
        let primes: Vec<Modulus> = again.iter().map(|&c| moduli[c]).collect();
        let mut mats = gpu.upload_on(stream, &words)?;
        let dm = gpu.upload_on(stream, &moduli_words(&primes))?;
        let state = launch::eliminate_steps(
            gpu,
            stream,
            &mut mats,
            &dm,
            again.len(),
            (n, n),
            false,
            (0, 1),
        )?;
        Ok(state.chunks(STATE_WORDS).map(|s| s[1]).collect())
    })
}

/// The reduced row echelon form and rank of each of a few large `rows × cols` matrices
/// modulo `moduli` (one row-major matrix per modulus in `data`, one after another), with
/// the whole GPU ([`rref_steps`](crate::backend::gpu::launch::rref_steps)): `None` when
/// they do not fit the memory budget at once.
pub fn rref_mod_few(
    gpu: &Gpu,
    moduli: &[Modulus],
    (rows, cols): (usize, usize),
    data: &[u32],
) -> Result<Option<(Vec<u32>, Vec<usize>)>> {
    let channels = moduli.len();
    require_matrices(data, channels, (rows, cols))?;
    let words = channels * (rows * cols + rows + launch::RREF_STATE_WORDS);
    if channels == 0 || words.saturating_mul(4) > gpu.budget()? {
        return Ok(None);
    }
    let stream = gpu.stream();
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats = gpu.upload_words(data)?;
    let ranks = launch::rref_steps(gpu, stream, &mut mats, &dm, channels, (rows, cols))?;
    Ok(Some((gpu.download_on(stream, &mats, data.len())?, ranks)))
}

/// The panel width of a factorization by panel inverses of `channels` matrices
/// `n × cols`, LU or (`jordan`) Gauss–Jordan
/// ([`inverse_panel`](crate::backend::gpu::launch::inverse_panel)) when the
/// matrices and the scratch fit the memory budget together; `None` otherwise.
fn panels_fitting(
    gpu: &Gpu,
    shape: (usize, usize),
    channels: usize,
    jordan: bool,
) -> Result<Option<usize>> {
    let Some(b) = launch::inverse_panel(gpu, shape, channels, jordan) else {
        return Ok(None);
    };
    let words = shape.0 * shape.1 + launch::inverse_panels_scratch_words(b, shape);
    let fits = channels.saturating_mul(words).saturating_mul(4) <= gpu.budget()?;
    Ok(fits.then_some(b))
}

/// [`launch_inverse_panels`](crate::backend::gpu::launch::launch_inverse_panels) on
/// `mats` in panels of `b` (LU, or Gauss–Jordan with `jordan`): each channel's
/// determinant, 0 where it is singular or a panel's block was.
fn by_panels(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (mats, dm): (&mut CudaSlice<u32>, &CudaSlice<u32>),
    shape: (usize, usize, usize),
    b: usize,
    jordan: bool,
) -> Result<Vec<u32>> {
    let mut dets = gpu.alloc_on(stream, shape.2)?;
    launch::launch_inverse_panels(gpu, stream, shape, b, jordan, &mut dets, mats, dm)?;
    gpu.download_on(stream, &dets, shape.2)
}

/// Gauss–Jordan on one channel's `n × cols` matrix `mat` modulo `m` (`dm`, its
/// device words): by panel inverses where they apply; else, or when a panel's block is
/// singular (the matrix is then filled again by `refill`),
/// [`eliminate_rows`](crate::backend::gpu::launch::eliminate_rows) while no row swap is
/// needed, then the step kernels from the first zero pivot on (every step when the rows
/// do not fit in shared memory). The state as
/// [`eliminate_steps`](crate::backend::gpu::launch::eliminate_steps)'; columns `0..n`
/// are left as scratch.
pub(crate) fn gauss_jordan(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mat: &mut CudaSlice<u32>,
    dm: &CudaSlice<u32>,
    m: Modulus,
    (n, cols): (usize, usize),
    refill: impl FnOnce(&mut CudaSlice<u32>) -> Result<()>,
) -> Result<Vec<u32>> {
    if let Some(b) = panels_fitting(gpu, (n, cols), 1, true)? {
        let det = by_panels(gpu, stream, (mat, dm), (n, cols, 1), b, true)?[0];
        if det != 0 {
            return Ok(vec![0, det, 0, 0]);
        }
        refill(mat)?;
    }
    let (det, stopped) = match launch::rows_layout(gpu, 1, n, cols) {
        Some(layout) => {
            let at = View::new(n * cols, 0, cols, 1);
            launch::eliminate_rows(gpu, stream, (mat, at), dm, &[m], (n, cols), true, layout)?[0]
        }
        None => (1, 0),
    };
    if stopped >= n {
        return Ok(vec![0, det, 0, 0]);
    }
    launch::eliminate_steps(gpu, stream, mat, dm, 1, (n, cols), true, (stopped, det))
}

/// `A⁻¹·B` modulo each of `moduli` (few primes, large matrices), one `n × k` matrix per
/// modulus one after another: `a` the `n × n` matrices and `b` the `n × k` right-hand
/// sides (each one row-major matrix per modulus, one after another; `None`: the
/// identity, `k = n`, for the inverses). The inverses by recursive Schur complements
/// ([`invert`](super::inverse::invert)) where they apply and no leaf is singular; else
/// placed side by side on the device, eliminated by Gauss–Jordan with the whole GPU
/// (`gauss_jordan`), the solutions' columns gathered there. [`Error::Singular`] names
/// the first prime modulo which `A` is singular.
pub fn solve_mod_few(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    n: usize,
    a: &[u32],
    b: Option<(&[u32], usize)>,
) -> Result<Words> {
    let k = b.map_or(n, |(_, k)| k);
    let channels = moduli.len();
    if a.len() != channels * n * n || b.is_some_and(|(b, k)| b.len() != channels * n * k) {
        return Err(Error::Shape(format!(
            "{} and {} residues do not form {channels} systems of {n} equations with {k} \
             right-hand sides",
            a.len(),
            b.map_or(0, |(b, _)| b.len())
        )));
    }
    let (stream, cols) = (gpu.stream(), n + k);
    // Page-locked when the pool has room: no page to fault in, one copy.
    let mut out = gpu.result_words(channels * n * k);
    let locked = out.is_locked();
    let mut done = vec![false; channels];
    if b.is_none() && super::inverse::invert_applies(gpu, (n, channels), 2 * channels * n * n)? {
        let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
        let mut work = gpu.upload_words(a)?;
        let mut x = gpu.alloc_on(stream, channels * n * n)?;
        done = super::inverse::invert(gpu, stream, &mut work, (&mut x, 0), &dm, (n, channels))?;
        for c in (0..channels).filter(|&c| done[c]) {
            let place = c * n * n..(c + 1) * n * n;
            download(gpu, stream, (&x, place.start), &mut out[place], locked)?;
        }
    }
    for (c, &m) in moduli.iter().enumerate() {
        if done[c] {
            continue;
        }
        let dm = gpu.upload_on(stream, &moduli_words(&[m]))?;
        let da = gpu.upload_words(&a[c * n * n..(c + 1) * n * n])?;
        let db = match b {
            Some((b, k)) => Some(gpu.upload_words(&b[c * n * k..(c + 1) * n * k])?),
            None => None,
        };
        let mut mat = gpu.alloc_on(stream, n * cols)?;
        let fill = |mat: &mut CudaSlice<u32>| {
            launch::launch_place_columns(gpu, stream, mat, Some(&da), (n, cols), (0, n))?;
            launch::launch_place_columns(gpu, stream, mat, db.as_ref(), (n, cols), (n, k))
        };
        fill(&mut mat)?;
        let state = gauss_jordan(gpu, stream, &mut mat, &dm, m, (n, cols), fill)?;
        if state[3] != 0 {
            return Err(Error::Singular { prime: Some(m.m) });
        }
        drop((da, db));
        let mut x = gpu.alloc_on(stream, n * k)?;
        launch::launch_gather_columns(gpu, stream, &mut x, &mat, (n, cols), n)?;
        drop(mat);
        let dst = &mut out[c * n * k..(c + 1) * n * k];
        download(gpu, stream, (&x, 0), dst, locked)?;
    }
    Ok(out)
}

/// `x`'s words from `from` into `dst`, straight into page-locked memory (`locked`) or
/// staged.
fn download(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (x, from): (&CudaSlice<u32>, usize),
    dst: &mut [u32],
    locked: bool,
) -> Result<()> {
    let range = from..from + dst.len();
    match locked {
        true => gpu.dtoh_wait(stream, (x, range), dst),
        false => gpu.dtoh_staged(stream, (x, range), dst),
    }
}
