//! Matrices modulo many primes on the device: the batched product, Gaussian elimination,
//! the blocked determinant and the characteristic and minimal polynomials, streamed through the device in chunks of channels; and
//! the fused paths from packed integers, which reduce on the device so that residues
//! never cross PCIe.

use crate::backend::gpu::driver::memory::{moduli_words, MODULUS_WORDS};
use crate::backend::gpu::driver::pipeline::{HostIn, HostOut};
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{Det, Eliminate, MatPoly, Matmul, Reduce};
use crate::backend::gpu::{Gpu, Packed};
use crate::error::Result;
use crate::mat::modmat::MatrixPolynomial;
use crate::num::words::{Words, WordsRef};
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::linalg::Elimination;
use rns_core::Modulus;
use std::sync::Arc;

/// Channels per product launch (the grid's z dimension).
pub(super) const MAX_PRODUCT_CHANNELS: usize = 65_535;

/// `a · b` modulo each channel (`a` `n × k`, `b` `k × p`, channel-major batches of
/// row-major matrices), streamed through the device in chunks of channels (the
/// result page-locked when large).
pub fn matmul_per_channel<'a>(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (n, k, p): (usize, usize, usize),
    a: impl Into<WordsRef<'a>>,
    b: impl Into<WordsRef<'a>>,
) -> Result<Words> {
    let (nk, kp, np, channels) = (n * k, k * p, n * p, moduli.len());
    if np == 0 {
        return Ok(Words::Heap(Vec::new()));
    }
    let mw = moduli_words(moduli);
    if nk == 0 {
        // k = 0: the empty sum. The kernel writes zeros; the operands carry no words.
        let (dm, da, db) = (gpu.upload(&mw)?, gpu.alloc(1)?, gpu.alloc(1)?);
        let mut d = gpu.alloc(channels * np)?;
        let shape = Matmul { n, k, p, channels };
        launch::launch_matmul(gpu, gpu.stream(), shape, &mut d, &da, &db, &dm)?;
        return Ok(gpu.download(&d, channels * np)?.into());
    }
    let mut out = gpu.result_words(channels * np);
    let ins = [
        HostIn::new(a, 1, nk),
        HostIn::new(b, 1, kp),
        HostIn::new(&mw, 1, MODULUS_WORDS),
    ];
    let mut outs = [HostOut::of(&mut out, 1, np)];
    let (max, scratch) = (
        MAX_PRODUCT_CHANNELS,
        launch::matmul_scratch_words(gpu, n, k, p),
    );
    gpu.stream_chunks(
        channels,
        &ins,
        &mut outs,
        scratch,
        max,
        &mut |s, di, dout, r| {
            let shape = Matmul {
                n,
                k,
                p,
                channels: r.len(),
            };
            launch::launch_matmul(gpu, s, shape, &mut dout[0], &di[0], &di[1], &di[2])
        },
    )?;
    Ok(out)
}

/// Gaussian elimination of one `rows × cols` matrix per channel of `data` (overwritten
/// when `keep` is set; else only ranks and determinants come back), pivoting on the
/// first `pivot_cols` columns. Returns `(rank, det)` per channel.
#[allow(clippy::too_many_arguments)]
pub fn eliminate_per_channel(
    gpu: &Gpu,
    moduli: &[Modulus],
    rows: usize,
    cols: usize,
    pivot_cols: usize,
    jordan: bool,
    data: &mut [u32],
    keep: bool,
) -> Result<Vec<Elimination>> {
    let size = rows * cols;
    let channels = moduli.len();
    if size == 0 {
        return Ok(vec![Elimination::of_empty(rows, pivot_cols); channels]);
    }
    let mw = moduli_words(moduli);
    let (mut ranks, mut dets) = (vec![0u32; channels], vec![0u32; channels]);
    let mut mats = if keep {
        vec![0u32; data.len()]
    } else {
        Vec::new()
    };
    {
        let ins = [
            HostIn::new(&*data, 1, size),
            HostIn::new(&mw, 1, MODULUS_WORDS),
        ];
        let mut outs = vec![
            HostOut::new(&mut ranks, 1, 1),
            HostOut::new(&mut dets, 1, 1),
        ];
        if keep {
            outs.push(HostOut::new(&mut mats, 1, size));
        }
        gpu.stream_chunks(
            channels,
            &ins,
            &mut outs,
            0,
            usize::MAX,
            &mut |s, di, dout, r| {
                let shape = Eliminate {
                    rows,
                    cols,
                    pivot_cols,
                    jordan,
                    channels: r.len(),
                };
                let (head, tail) = dout.split_at_mut(1);
                let (mats_in, moduli) = di.split_at_mut(1);
                let (dr, dd) = (&mut head[0], &mut tail[0]);
                launch::launch_eliminate(gpu, s, shape, dr, dd, &mut mats_in[0], &moduli[0])?;
                if keep {
                    let n = r.len() * size;
                    gpu.dtod(s, &mats_in[0].slice(0..n), &mut tail[1].slice_mut(0..n))?;
                }
                Ok(())
            },
        )?;
    }
    if keep {
        data.copy_from_slice(&mats);
    }
    Ok(ranks
        .into_iter()
        .zip(dets)
        .map(|(rank, det)| Elimination { rank, det })
        .collect())
}

/// The determinant modulo each channel of the `n × n` matrix held in that channel
/// (`data`: one row-major matrix per channel), by blocked LU ([`launch_det`](crate::backend::gpu::launch::launch_det)).
pub fn det_per_channel(gpu: &Gpu, moduli: &[Modulus], n: usize, data: &[u32]) -> Result<Vec<u32>> {
    let size = n * n;
    if size == 0 {
        return Ok(vec![1; moduli.len()]);
    }
    let mw = moduli_words(moduli);
    let mut dets = vec![0u32; moduli.len()];
    let ins = [
        HostIn::new(data, 1, size),
        HostIn::new(&mw, 1, MODULUS_WORDS),
    ];
    let mut outs = [HostOut::new(&mut dets, 1, 1)];
    gpu.stream_chunks(
        moduli.len(),
        &ins,
        &mut outs,
        launch::det_scratch_words(gpu, n),
        usize::MAX,
        &mut |s, di, dout, r| {
            let (mats, moduli) = di.split_at_mut(1);
            let shape = Det {
                n,
                channels: r.len(),
            };
            launch::launch_det(gpu, s, shape, &mut dout[0], &mut mats[0], &moduli[0])
        },
    )?;
    Ok(dets)
}

/// Integers as 32-bit words on the device, word-major (`words[j·len + i]`), with their
/// sign flags: what `rns_reduce_words` reads.
#[derive(Debug)]
pub struct DeviceWords {
    /// The magnitudes' words.
    pub words: CudaSlice<u32>,
    /// 1 for a negative number, else 0.
    pub neg: CudaSlice<u32>,
    /// Words a number.
    pub nwords: usize,
    /// Numbers.
    pub len: usize,
}

impl DeviceWords {
    /// Integers packed as for [`reduce_words`](super::vectors::reduce_words) (or
    /// number-major, as by [`pack_number_major`](super::limbs::pack_number_major), then
    /// transposed here), uploaded on `s`.
    pub(crate) fn upload(
        gpu: &Gpu,
        s: &Arc<CudaStream>,
        (words, neg, nwords): Packed,
        number_major: bool,
    ) -> Result<DeviceWords> {
        let len = neg.len();
        let (mut dw, dn) = (gpu.upload_on(s, words)?, gpu.upload_on(s, neg)?);
        if number_major {
            let by_word = dw;
            dw = gpu.alloc_on(s, words.len())?;
            launch::launch_transpose(gpu, s, &mut dw, &by_word, (len, nwords))?;
        }
        Ok(DeviceWords {
            words: dw,
            neg: dn,
            nwords,
            len,
        })
    }

    /// Their residues modulo the `channels` device moduli `dm`, in a new buffer
    /// (`channels × len`) on `s`.
    pub(crate) fn reduce(
        &self,
        gpu: &Gpu,
        s: &Arc<CudaStream>,
        dm: &CudaSlice<u32>,
        channels: usize,
    ) -> Result<CudaSlice<u32>> {
        let mut dres = gpu.alloc_on(s, channels * self.len)?;
        let shape = Reduce {
            len: self.len,
            channels,
            nwords: self.nwords,
        };
        launch::launch_reduce(gpu, s, shape, &mut dres, &self.words, &self.neg, dm)?;
        Ok(dres)
    }
}

/// [`DeviceWords::upload`], then [`DeviceWords::reduce`].
pub(crate) fn reduce_packed(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    dm: &CudaSlice<u32>,
    packed: Packed,
    (channels, number_major): (usize, bool),
) -> Result<CudaSlice<u32>> {
    DeviceWords::upload(gpu, s, packed, number_major)?.reduce(gpu, s, dm, channels)
}

/// Whether `len` packed integers reduced modulo `channels` moduli, with `extra` more
/// words per channel, fit the memory budget at once.
pub(crate) fn fits_reduced(
    gpu: &Gpu,
    (_, neg, nwords): Packed,
    channels: usize,
    extra: usize,
) -> Result<bool> {
    let len = neg.len();
    Ok(len > 0 && (len * (channels + nwords + 1) + extra * channels) * 4 <= gpu.budget()?)
}

/// [`det_per_channel`] of an integer matrix's images, reduced on the device
/// (packed as for [`reduce_words`](super::vectors::reduce_words)): the residues never cross PCIe. `None`
/// when they do not fit the memory budget.
pub fn det_words(
    gpu: &Gpu,
    moduli: &[Modulus],
    packed: Packed,
    n: usize,
) -> Result<Option<Vec<u32>>> {
    let channels = moduli.len();
    if !fits_reduced(gpu, packed, channels, 1 + launch::det_scratch_words(gpu, n))? {
        return Ok(None);
    }
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    let dm = gpu.upload_on(s, &moduli_words(moduli))?;
    let mut dmats = reduce_packed(gpu, s, &dm, packed, (channels, false))?;
    dets_on_device(gpu, s, &mut dmats, &dm, Det { n, channels }).map(Some)
}

/// The determinants of the `s.channels` matrices `s.n × s.n` in `mats` (device
/// words, channel-major, overwritten; `dm` the moduli's) by [`launch_det`](crate::backend::gpu::launch::launch_det),
/// brought back.
pub(crate) fn dets_on_device(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    mats: &mut CudaSlice<u32>,
    dm: &CudaSlice<u32>,
    s: Det,
) -> Result<Vec<u32>> {
    let mut dd = gpu.alloc_on(stream, s.channels)?;
    launch::launch_det(gpu, stream, s, &mut dd, mats, dm)?;
    gpu.download_on(stream, &dd, s.channels)
}

/// [`det_words`], or when the residues do not fit the device at once, reduced
/// and eliminated in chunks: the determinant modulo every one of `moduli`.
pub fn det_packed(gpu: &Arc<Gpu>, moduli: &[Modulus], packed: Packed, n: usize) -> Result<Words> {
    if let Some(d) = det_words(gpu, moduli, packed, n)? {
        return Ok(d.into());
    }
    let (words, neg, nwords) = packed;
    let data = super::vectors::reduce_words(gpu, moduli, words, neg, neg.len(), nwords)?;
    Ok(det_per_channel(gpu, moduli, n, &data)?.into())
}

/// The characteristic or minimal polynomial of one `n × n` matrix per channel of
/// `data` (`n + 1` coefficients per channel, constant first), a block per channel,
/// streamed in chunks of channels that fit the memory budget with the kernel's scratch
/// (`kind.scratch_words(n)` words a channel).
pub fn matrix_polynomial_per_channel(
    gpu: &Gpu,
    kind: MatrixPolynomial,
    moduli: &[Modulus],
    n: usize,
    data: &[u32],
) -> Result<Vec<u32>> {
    let channels = moduli.len();
    if n == 0 {
        return Ok(vec![1; channels]);
    }
    let scratch = kind.scratch_words(n);
    let mw = moduli_words(moduli);
    let mut out = vec![0u32; channels * (n + 1)];
    let ins = [
        HostIn::new(data, 1, n * n),
        HostIn::new(&mw, 1, MODULUS_WORDS),
    ];
    let mut outs = [HostOut::new(&mut out, 1, n + 1)];
    gpu.stream_chunks(
        channels,
        &ins,
        &mut outs,
        scratch,
        usize::MAX,
        &mut |s, di, dout, r| {
            let mut work = gpu.alloc_on(s, r.len() * scratch)?;
            let (mats, moduli) = di.split_at_mut(1);
            let shape = MatPoly {
                kind,
                n,
                channels: r.len(),
            };
            let (out, mats) = (&mut dout[0], &mut mats[0]);
            launch::launch_matrix_polynomial(gpu, s, shape, out, mats, &mut work, &moduli[0])
        },
    )?;
    Ok(out)
}
