//! Determinants of a few large matrices, one per prime (`det A / d` in Dixon's
//! determinant, a determinant modulo one prime, a rank's first primes), with the whole
//! GPU for the few primes: all at once with each matrix's rows in shared memory
//! (`super::rows`) where they fit; else by Schur complements (`super::schur`) where
//! their strips fit; else by panels with the trailing updates on the tensor cores
//! ([`det_on_tensor_cores`](crate::backend::gpu::launch::det_on_tensor_cores)); a prime that needs a row swap, and every prime when
//! none of the three applies, one pivot per launch.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::rows::STATE_WORDS;
use crate::backend::gpu::launch::View;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use crate::num::layout::columns_from;
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
    let done: Vec<(u32, bool)> = if let Some(layout) = launch::rows_layout(gpu, channels, n, n) {
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

/// The determinant modulo each of `moduli` of its `n × n` matrix in `data` (one
/// row-major matrix per modulus, one after another), a few large ones
/// ([`det_few_for`]): as `few_dets_on_device`, the primes that need a
/// row swap uploaded again and eliminated one pivot per launch.
pub fn det_mod_few(gpu: &Gpu, moduli: &[Modulus], n: usize, data: &[u32]) -> Result<Vec<u32>> {
    let size = n * n;
    if data.len() != moduli.len() * size {
        return Err(Error::Shape(format!(
            "{} residues do not form {} matrices of {n}×{n}",
            data.len(),
            moduli.len()
        )));
    }
    if moduli.is_empty() {
        return Ok(Vec::new());
    }
    let stream = gpu.stream();
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats = gpu.upload_on(stream, data)?;
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

/// Gauss–Jordan on one channel's `n × cols` matrix `mat` modulo `m` (`dm`, its
/// device words): [`eliminate_rows`](crate::backend::gpu::launch::eliminate_rows) while no row swap is needed, then the step
/// kernels from the first zero pivot on (every step when the rows do not fit in
/// shared memory). The state as [`eliminate_steps`](crate::backend::gpu::launch::eliminate_steps)'.
pub(crate) fn gauss_jordan(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mat: &mut CudaSlice<u32>,
    dm: &CudaSlice<u32>,
    m: Modulus,
    (n, cols): (usize, usize),
) -> Result<Vec<u32>> {
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

/// `A⁻¹·B` modulo each of `moduli` (few primes, large matrices) from its `n × cols`
/// augmented matrix `[A | B]` in `data` (one row-major matrix per modulus, one after
/// another), by Gauss–Jordan with the whole GPU (`gauss_jordan` below): per channel its
/// `n × (cols − n)` solution, or `None` where `A` is singular modulo its prime.
pub fn solve_mod_few(
    gpu: &Gpu,
    moduli: &[Modulus],
    (n, cols): (usize, usize),
    data: &[u32],
) -> Result<Vec<Option<Vec<u32>>>> {
    let size = n * cols;
    if data.len() != moduli.len() * size || cols < n {
        return Err(Error::Shape(format!(
            "{} residues do not form {} matrices of {n}×{cols}",
            data.len(),
            moduli.len()
        )));
    }
    let stream = gpu.stream();
    moduli
        .iter()
        .enumerate()
        .map(|(c, &m)| {
            let dm = gpu.upload_on(stream, &moduli_words(&[m]))?;
            let mut mat = gpu.upload_words(&data[c * size..(c + 1) * size])?;
            let state = gauss_jordan(gpu, stream, &mut mat, &dm, m, (n, cols))?;
            if state[3] != 0 {
                return Ok(None);
            }
            let all = gpu.download_words(&mat, size)?;
            Ok(Some(columns_from(all, cols, n)))
        })
        .collect()
}
