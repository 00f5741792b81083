//! Matrices modulo many primes on the device: the batched product, Gaussian elimination
//! and the blocked determinant, streamed through the device in chunks of channels; and
//! the fused paths from packed integers, which reduce on the device so that residues
//! never cross PCIe.

use super::launch::{grid_limit, launch, need, Det, Digits, Eliminate, Matmul, Reduce, GRID_YZ};
use super::memory::{moduli_words, MODULUS_WORDS};
use super::pipeline::{HostIn, HostOut};
use super::{Gpu, Packed};
use crate::error::Result;
use crate::num::words::{Words, WordsRef};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::linalg::Elimination;
use rns_core::Modulus;
use std::sync::Arc;

/// Channels per product launch (the grid's z dimension).
const MAX_PRODUCT_CHANNELS: usize = 65_535;

impl Gpu {
    /// `a · b` modulo each channel (`a` `n × k`, `b` `k × p`, channel-major batches of
    /// row-major matrices), streamed through the device in chunks of channels (the
    /// result page-locked when large).
    pub fn matmul_per_channel<'a>(
        self: &Arc<Self>,
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
            let (dm, da, db) = (self.upload(&mw)?, self.alloc(1)?, self.alloc(1)?);
            let mut d = self.alloc(channels * np)?;
            let shape = Matmul { n, k, p, channels };
            self.launch_matmul(self.stream(), shape, &mut d, &da, &db, &dm)?;
            return Ok(self.download(&d, channels * np)?.into());
        }
        let mut out = self.result_words(channels * np);
        let ins = [
            HostIn::new(a, 1, nk),
            HostIn::new(b, 1, kp),
            HostIn::new(&mw, 1, MODULUS_WORDS),
        ];
        let mut outs = [HostOut::of(&mut out, 1, np)];
        let (max, scratch) = (MAX_PRODUCT_CHANNELS, self.matmul_scratch_words(n, k, p));
        self.stream_chunks(
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
                self.launch_matmul(s, shape, &mut dout[0], &di[0], &di[1], &di[2])
            },
        )?;
        Ok(out)
    }

    /// Gaussian elimination of one `rows × cols` matrix per channel of `data` (overwritten
    /// when `keep` is set; else only ranks and determinants come back), pivoting on the
    /// first `pivot_cols` columns. Returns `(rank, det)` per channel.
    #[allow(clippy::too_many_arguments)]
    pub fn eliminate_per_channel(
        &self,
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
            self.stream_chunks(
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
                    self.launch_eliminate(s, shape, dr, dd, &mut mats_in[0], &moduli[0])?;
                    if keep {
                        let n = r.len() * size;
                        self.dtod(s, &mats_in[0].slice(0..n), &mut tail[1].slice_mut(0..n))?;
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
    /// (`data`: one row-major matrix per channel), by blocked LU ([`Gpu::launch_det`]).
    pub fn det_per_channel(&self, moduli: &[Modulus], n: usize, data: &[u32]) -> Result<Vec<u32>> {
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
        self.stream_chunks(
            moduli.len(),
            &ins,
            &mut outs,
            self.det_scratch_words(n),
            usize::MAX,
            &mut |s, di, dout, r| {
                let (mats, moduli) = di.split_at_mut(1);
                let shape = Det {
                    n,
                    channels: r.len(),
                };
                self.launch_det(s, shape, &mut dout[0], &mut mats[0], &moduli[0])
            },
        )?;
        Ok(dets)
    }

    /// Uploads integers packed as for [`Gpu::reduce_words`] (or number-major, as by
    /// [`Gpu::pack_number_major`], then transposed here) and reduces them modulo the
    /// `channels` device moduli `dm` into a new buffer (`channels × len`) on `s`.
    pub(super) fn reduce_packed(
        &self,
        s: &Arc<CudaStream>,
        dm: &CudaSlice<u32>,
        (words, neg, nwords): Packed,
        (channels, number_major): (usize, bool),
    ) -> Result<CudaSlice<u32>> {
        let len = neg.len();
        let (mut dw, dn) = (self.upload_on(s, words)?, self.upload_on(s, neg)?);
        if number_major {
            let by_word = dw;
            dw = self.alloc_on(s, words.len())?;
            self.launch_transpose(s, &mut dw, &by_word, (len, nwords))?;
        }
        let mut dres = self.alloc_on(s, channels * len)?;
        let shape = Reduce {
            len,
            channels,
            nwords,
        };
        self.launch_reduce(s, shape, &mut dres, &dw, &dn, dm)?;
        Ok(dres)
    }

    /// Whether `len` packed integers reduced modulo `channels` moduli, with `extra` more
    /// words per channel, fit the memory budget at once.
    pub(super) fn fits_reduced(
        &self,
        (_, neg, nwords): Packed,
        channels: usize,
        extra: usize,
    ) -> Result<bool> {
        let len = neg.len();
        Ok(len > 0 && (len * (channels + nwords + 1) + extra * channels) * 4 <= self.budget()?)
    }

    /// [`Gpu::det_per_channel`] of an integer matrix's images, reduced on the device
    /// (packed as for [`Gpu::reduce_words`]): the residues never cross PCIe. `None`
    /// when they do not fit the memory budget.
    pub fn det_words(
        &self,
        moduli: &[Modulus],
        packed: Packed,
        n: usize,
    ) -> Result<Option<Vec<u32>>> {
        let channels = moduli.len();
        if !self.fits_reduced(packed, channels, 1 + self.det_scratch_words(n))? {
            return Ok(None);
        }
        let streams = self.lease_streams(1)?;
        let s = &streams[0];
        let dm = self.upload_on(s, &moduli_words(moduli))?;
        let mut dmats = self.reduce_packed(s, &dm, packed, (channels, false))?;
        self.dets_on_device(s, &mut dmats, &dm, Det { n, channels })
            .map(Some)
    }

    /// The determinants of the `s.channels` matrices `s.n × s.n` in `mats` (device
    /// words, channel-major, overwritten; `dm` the moduli's) by [`Gpu::launch_det`],
    /// brought back.
    pub(super) fn dets_on_device(
        &self,
        stream: &Arc<CudaStream>,
        mats: &mut CudaSlice<u32>,
        dm: &CudaSlice<u32>,
        s: Det,
    ) -> Result<Vec<u32>> {
        let mut dd = self.alloc_on(stream, s.channels)?;
        self.launch_det(stream, s, &mut dd, mats, dm)?;
        self.download_on(stream, &dd, s.channels)
    }

    /// The exact product of two integer matrices on the device: `a` (`n × k`) and `b`
    /// (`k × p`), packed as by [`Gpu::pack_number_major`], are reduced modulo every channel,
    /// multiplied by the batched product kernel, and every entry is converted there to
    /// its sign and binary magnitude over the first `K = moduli.len() − 1` (range)
    /// channels, checked against the last (redundant) one. Returns the magnitudes
    /// (`n·p × nlimbs` 32-bit limbs, number-major, least significant first), the flags
    /// (`rns_core::limbs::NEGATIVE`, or `OUT_OF_RANGE` where the check failed) and
    /// `nlimbs`; only those cross PCIe back. `None` when it does not fit the memory
    /// budget or the grid.
    pub fn matmul_limbs(
        self: &Arc<Self>,
        moduli: &[Modulus],
        packed: (Packed, Packed),
        shape: (usize, usize, usize),
    ) -> Result<Option<(Words, Vec<u32>, usize)>> {
        let (channels, np) = (moduli.len(), shape.0 * shape.2);
        let range = channels - 1;
        let extra = range * np + range * range + np;
        let streams = self.lease_streams(1)?;
        let s = &streams[0];
        let on = self.matmul_on_device(s, moduli, packed, shape, (extra, true))?;
        let Some(mut dprod) = on else {
            return Ok(None);
        };
        let t = self.mrc_tables(&moduli[..range])?;
        let mut digits = self.alloc_on(s, range * np)?;
        let shape = Digits { len: np, k: range };
        self.launch_digits(s, shape, &mut digits, &dprod, None, &t.moduli, &t.table)?;
        let mut flags = self.alloc_on(s, np)?;
        self.dtod(s, &dprod.slice(range * np..channels * np), &mut flags)?;
        // The limbs limb-major over the product's range channels (nlimbs ≤ K), then
        // number-major over the digits, then straight into page-locked memory when the
        // pool lends it.
        let nlimbs = t.limbs;
        let tables = (&*t, &moduli[..range]);
        self.launch_digits_limbs(
            s,
            &mut dprod,
            &mut flags,
            &digits,
            tables,
            moduli[range],
            np,
        )?;
        self.launch_transpose(s, &mut digits, &dprod, (nlimbs, np))?;
        let flags = self.download_on(s, &flags, np)?;
        let mut out = self.result_words(nlimbs * np);
        if out.is_locked() {
            self.dtoh(s, &digits.slice(0..nlimbs * np), &mut out[..])?;
            self.sync_stream(s)?;
        } else {
            out = self.download_on(s, &digits, nlimbs * np)?.into();
        }
        Ok(Some((out, flags, nlimbs)))
    }

    /// The product's residues modulo every one of `moduli` (channel-major, `n·p` per
    /// channel) of two integer matrices packed as for [`Gpu::reduce_words`]: reduced and
    /// multiplied on the device when they fit, else reduced and multiplied in chunks.
    pub fn matmul_packed(
        self: &Arc<Self>,
        moduli: &[Modulus],
        (a, b): (Packed, Packed),
        (n, k, p): (usize, usize, usize),
    ) -> Result<Words> {
        let streams = self.lease_streams(1)?;
        let s = &streams[0];
        if let Some(d) = self.matmul_on_device(s, moduli, (a, b), (n, k, p), (0, false))? {
            return Ok(self.download_on(s, &d, moduli.len() * n * p)?.into());
        }
        let ra = self.reduce_words(moduli, a.0, a.1, a.1.len(), a.2)?;
        let rb = self.reduce_words(moduli, b.0, b.1, b.1.len(), b.2)?;
        self.matmul_per_channel(moduli, (n, k, p), &ra, &rb)
    }

    /// Reduces `a` and `b` modulo every channel and multiplies them on stream `s`,
    /// leaving the product there; `None` when that and `extra` more words do not fit the
    /// memory budget or the grid. With `number_major`, `a` and `b` are packed as by
    /// [`Gpu::pack_number_major`].
    fn matmul_on_device(
        &self,
        s: &Arc<CudaStream>,
        moduli: &[Modulus],
        (a, b): (Packed, Packed),
        (n, k, p): (usize, usize, usize),
        (extra, number_major): (usize, bool),
    ) -> Result<Option<CudaSlice<u32>>> {
        let (channels, np) = (moduli.len(), n * p);
        // Number-major words are uploaded, then transposed into a second buffer.
        let copies = 1 + number_major as usize;
        let words = copies * (a.0.len() + b.0.len()) + a.1.len() + b.1.len();
        let scratch = self.matmul_scratch_words(n, k, p);
        let bytes = 4 * (channels * (n * k + k * p + np + scratch) + words + extra);
        if np == 0 || n * k == 0 || channels > MAX_PRODUCT_CHANNELS || bytes > self.budget()? {
            return Ok(None);
        }
        let dm = self.upload_on(s, &moduli_words(moduli))?;
        let da = self.reduce_packed(s, &dm, a, (channels, number_major))?;
        let db = self.reduce_packed(s, &dm, b, (channels, number_major))?;
        let mut dprod = self.alloc_on(s, channels * np)?;
        self.launch_matmul(s, Matmul { n, k, p, channels }, &mut dprod, &da, &db, &dm)?;
        Ok(Some(dprod))
    }

    /// [`Gpu::det_words`], or when the residues do not fit the device at once, reduced
    /// and eliminated in chunks: the determinant modulo every one of `moduli`.
    pub fn det_packed(
        self: &Arc<Self>,
        moduli: &[Modulus],
        packed: Packed,
        n: usize,
    ) -> Result<Words> {
        if let Some(d) = self.det_words(moduli, packed, n)? {
            return Ok(d.into());
        }
        let (words, neg, nwords) = packed;
        let data = self.reduce_words(moduli, words, neg, neg.len(), nwords)?;
        Ok(self.det_per_channel(moduli, n, &data)?.into())
    }

    /// `dst[r·w + j] = src[r·cols + from + j]` for `r < lines`, `j < w = cols − from`:
    /// the columns `from..` of a stack of `lines` rows (`rns_gather_columns`).
    pub fn launch_gather_columns(
        &self,
        stream: &Arc<CudaStream>,
        dst: &mut CudaSlice<u32>,
        src: &CudaSlice<u32>,
        (lines, cols): (usize, usize),
        from: usize,
    ) -> Result<()> {
        let width = cols.saturating_sub(from);
        need("gathered columns", dst, lines * width)?;
        need("gather input", src, lines * cols)?;
        let len = lines * width;
        if len == 0 {
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit(
                    "gather blocks",
                    len.div_ceil(256).min(65_535),
                    i32::MAX as usize,
                )?,
                1,
                1,
            ),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let [n, c, f] = [len, cols, from].map(|v| v as u64);
        launch!(
            self,
            stream,
            &self.kernels().gather_columns,
            cfg,
            dst,
            src,
            &n,
            &c,
            &f
        )
    }

    /// `dst = srcᵀ` on `stream` for the `rows × cols` row-major words `src`
    /// (`rns_transpose`): channel-major data to number-major.
    pub fn launch_transpose(
        &self,
        stream: &Arc<CudaStream>,
        dst: &mut CudaSlice<u32>,
        src: &CudaSlice<u32>,
        (rows, cols): (usize, usize),
    ) -> Result<()> {
        need("transpose output", dst, rows * cols)?;
        need("transpose input", src, rows * cols)?;
        if rows * cols == 0 {
            return Ok(());
        }
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit("transpose tiles", cols.div_ceil(32), i32::MAX as usize)?,
                grid_limit("transpose tiles", rows.div_ceil(32), GRID_YZ)?,
                1,
            ),
            block_dim: (32, 8, 1),
            shared_mem_bytes: 32 * 33 * 4,
        };
        let (r, c) = (rows as u32, cols as u32);
        launch!(
            self,
            stream,
            &self.kernels().transpose,
            cfg,
            dst,
            src,
            &r,
            &c
        )
    }
}
