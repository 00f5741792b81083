//! Typed kernel launches: one shape struct per kernel family ([`super::shapes`],
//! re-exported here), whose lengths are checked against the buffers before the launch (a
//! short buffer is an [`Error::Internal`], never an out-of-bounds access), and the launch
//! geometry of `rns_core::launch`.

use super::device::cuda;
use super::memory::MODULUS_WORDS;
pub use super::shapes::*;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchArgs, LaunchConfig, PushKernelArg};
use rns_core::launch::*;
use std::sync::Arc;

/// The inputs of a mixed-radix launch: residues, offset (or none), moduli, table.
pub type DigitsInputs<'a> = (
    &'a CudaSlice<u32>,
    Option<&'a CudaSlice<u32>>,
    &'a CudaSlice<u32>,
    &'a CudaSlice<u32>,
);

/// Grid dimensions y and z (channels, rows of tiles) may not exceed this.
pub(super) const GRID_YZ: usize = 65_535;

/// [`Error::Internal`] unless `buf` holds at least `words` words.
pub(super) fn need(what: &str, buf: &CudaSlice<u32>, words: usize) -> Result<()> {
    if buf.len() < words {
        return Err(Error::Internal(format!(
            "{what}: a device buffer of {} words where the launch needs {words}",
            buf.len()
        )));
    }
    Ok(())
}

/// The buffers of a univariate resultant launch: one output word per channel, `per`
/// coefficients per channel, the moduli.
fn need_resultant(
    channels: usize,
    per: usize,
    out: &CudaSlice<u32>,
    data: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("resultants", out, channels)?;
    need("resultant coefficients", data, per * channels)?;
    need("moduli", moduli, channels * MODULUS_WORDS)
}

/// [`Error::Shape`] when `n` exceeds a grid dimension's limit.
pub(super) fn grid_limit(what: &str, n: usize, limit: usize) -> Result<u32> {
    if n > limit {
        return Err(Error::Shape(format!(
            "{what}: {n} exceeds the GPU grid limit of {limit}"
        )));
    }
    Ok(n.max(1) as u32)
}

/// The per-channel elementwise grid: x over numbers (grid-stride), y over channels.
pub(super) fn channel_grid(len: usize, channels: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (
            len.div_ceil(ELEMENT_THREADS as usize).clamp(1, 65_535) as u32,
            grid_limit("channels", channels, GRID_YZ)?,
            1,
        ),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    })
}

/// Launches kernel `$f` of device `$gpu` on `$stream` with the listed arguments.
macro_rules! launch {
    ($gpu:expr, $stream:expr, $f:expr, $cfg:expr, $($arg:expr),+ $(,)?) => {{
        let mut b = $stream.launch_builder($f);
        $( b.arg($arg); )+
        $gpu.launch_built(b, $cfg)
    }};
}
pub(super) use launch;

impl Gpu {
    /// Launches a kernel whose arguments `b` holds (the one place that launches, after
    /// the fault hook's check).
    pub(super) fn launch_built(&self, mut b: LaunchArgs, cfg: LaunchConfig) -> Result<()> {
        self.config().check_fault(super::FaultSite::Launch)?;
        // SAFETY: every caller checks its buffers against the shape the kernel reads.
        unsafe { b.launch(cfg) }.map_err(cuda).map(drop)
    }

    /// [`Gpu::launch_built`] as a cooperative launch: every block resident at once (for
    /// kernels with grid-wide barriers; too large a grid is an error, never a hang).
    pub(super) fn launch_built_cooperative(
        &self,
        mut b: LaunchArgs,
        cfg: LaunchConfig,
    ) -> Result<()> {
        self.config().check_fault(super::FaultSite::Launch)?;
        // SAFETY: every caller checks its buffers against the shape the kernel reads.
        unsafe { b.launch_cooperative(cfg) }.map_err(cuda).map(drop)
    }

    /// `out = op(inputs…)` per channel; `inputs.len() == op.arity()`, `scalar` holds one
    /// residue per channel for the scalar operations (any buffer otherwise).
    pub fn launch_elementwise(
        &self,
        stream: &CudaStream,
        s: Elementwise,
        out: &mut CudaSlice<u32>,
        inputs: &[&CudaSlice<u32>],
        scalar: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        let words = s.len * s.channels;
        if inputs.len() != s.op.arity() {
            return Err(Error::Internal(format!(
                "{:?} launched with {} operands",
                s.op,
                inputs.len()
            )));
        }
        need("elementwise output", out, words)?;
        for x in inputs {
            need("elementwise operand", x, words)?;
        }
        if s.op.has_scalar() {
            need("elementwise scalar", scalar, s.channels)?;
        }
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let f = &self.kernels().elementwise[s.op.index()];
        let len = s.len as u32;
        // Operand slots a, b, c, d: unused ones repeat the last given (never read).
        let x = |k: usize| inputs[k.min(inputs.len() - 1)];
        let cfg = channel_grid(s.len, s.channels)?;
        launch!(
            self,
            stream,
            f,
            cfg,
            out,
            x(0),
            x(1),
            x(2),
            x(3),
            scalar,
            moduli,
            &len
        )
    }

    /// The `mul_m` throughput probe (`out`, `a`: `len × channels` words).
    pub fn launch_mul_chain(
        &self,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        s: MulChain,
    ) -> Result<()> {
        let words = s.len * s.channels;
        need("mul_chain output", out, words)?;
        need("mul_chain input", a, words)?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let len = s.len as u32;
        let cfg = channel_grid(s.len, s.channels)?;
        launch!(
            self,
            self.stream(),
            &self.kernels().mul_chain,
            cfg,
            out,
            a,
            moduli,
            &len,
            &s.iters
        )
    }

    /// Whether numbers `a[i]`, `b[i]` agree in every channel: one word per number.
    pub fn launch_equal(
        &self,
        stream: &CudaStream,
        s: Equal,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
    ) -> Result<()> {
        need("equality output", out, s.len)?;
        need("equality operand", a, s.len * s.channels)?;
        need("equality operand", b, s.len * s.channels)?;
        let k = self.kernels();
        let (f, smem) = match s.kernel {
            EqualKernel::SharedTree => (&k.equal_shared, NUMBERS_PER_BLOCK * CHANNEL_LANES * 4),
            EqualKernel::WarpVote => (&k.equal_vote, CHANNEL_LANES * 4),
        };
        let cfg = LaunchConfig {
            grid_dim: (
                s.len.div_ceil(NUMBERS_PER_BLOCK as usize).max(1) as u32,
                1,
                1,
            ),
            block_dim: (NUMBERS_PER_BLOCK, CHANNEL_LANES, 1),
            shared_mem_bytes: smem,
        };
        let (len, ch) = (s.len as u32, s.channels as u32);
        launch!(self, stream, f, cfg, out, a, b, &len, &ch)
    }

    /// Numbers per block of the mixed-radix kernel for `len` numbers over `k` channels: up
    /// to 32, as many as the shared-memory tile allows, and fewer when that leaves SMs
    /// idle; `None` when not even one number's tile fits (the kernel then converts in
    /// place in global memory).
    pub fn digits_per_block(&self, len: usize, k: usize) -> Option<u32> {
        // One word stays free for the block's vote when only pending numbers convert.
        let fit = self.shared_memory().saturating_sub(4) / (4 * k.max(1));
        if fit == 0 {
            return None;
        }
        let mut nb = NUMBERS_PER_BLOCK.min(fit.min(32) as u32).max(1);
        nb = 1 << (31 - nb.leading_zeros()); // a power of two, dividing the 256 threads
        while nb > 1 && len.div_ceil(nb as usize) < self.multiprocessors() {
            nb /= 2;
        }
        Some(nb)
    }

    /// Mixed-radix digits (`k × len`, channel-major) of the first `k` channels of `x`;
    /// `offset` is one residue per channel or `None`; `table` the `k × k` table.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_digits(
        &self,
        stream: &CudaStream,
        s: Digits,
        digits: &mut CudaSlice<u32>,
        x: &CudaSlice<u32>,
        offset: Option<&CudaSlice<u32>>,
        moduli: &CudaSlice<u32>,
        table: &CudaSlice<u32>,
    ) -> Result<()> {
        let ins = (x, offset, moduli, table);
        self.launch_digits_of(stream, s, digits, ins, None)
    }

    /// As [`Gpu::launch_digits`] (`ins` = `x`, `offset`, `moduli`, `table`), converting
    /// only the numbers whose entry of `pending` (one per number, when given) is
    /// `interval::AMBIGUOUS`; blocks without such numbers return at once.
    pub fn launch_digits_of(
        &self,
        stream: &CudaStream,
        s: Digits,
        digits: &mut CudaSlice<u32>,
        ins: DigitsInputs,
        pending: Option<&CudaSlice<u32>>,
    ) -> Result<()> {
        let (x, offset, moduli, table) = ins;
        need("digits output", digits, s.k * s.len)?;
        need("digits input", x, s.k * s.len)?;
        need("moduli", moduli, s.k * MODULUS_WORDS)?;
        need("mixed-radix table", table, s.k * s.k)?;
        if let Some(o) = offset {
            need("offset", o, s.k)?;
        }
        if let Some(p) = pending {
            need("pending flags", p, s.len)?;
        }
        let per_block = self.digits_per_block(s.len, s.k);
        let shared = per_block.is_some();
        let nb = per_block.unwrap_or(NUMBERS_PER_BLOCK);
        let tile = per_block.map_or(0, |nb| s.k * nb as usize * 4);
        let cfg = LaunchConfig {
            grid_dim: (s.len.div_ceil(nb as usize).max(1) as u32, 1, 1),
            block_dim: (nb, NUMBERS_PER_BLOCK * CHANNEL_LANES / nb, 1),
            shared_mem_bytes: (tile + if pending.is_some() { 4 } else { 0 }) as u32,
        };
        let (len, k, sh) = (s.len as u32, s.k as u32, shared as u32);
        let f = &self.kernels().mrc_digits;
        let null = 0u64;
        let mut b = stream.launch_builder(f);
        b.arg(digits).arg(x);
        match offset {
            Some(o) => b.arg(o),
            None => b.arg(&null),
        };
        b.arg(moduli).arg(table);
        match pending {
            Some(p) => b.arg(p),
            None => b.arg(&null),
        };
        b.arg(&len).arg(&k).arg(&sh);
        self.launch_built(b, cfg)
    }

    /// The `k × k` mixed-radix table of `moduli` (`k` moduli) into `table`.
    pub fn launch_mr_table(
        &self,
        stream: &CudaStream,
        k: usize,
        table: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("mixed-radix table", table, k * k)?;
        need("moduli", moduli, k * MODULUS_WORDS)?;
        let cfg = LaunchConfig {
            grid_dim: (
                (k * k).div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 16) as u32,
                1,
                1,
            ),
            block_dim: (ELEMENT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let k32 = k as u32;
        launch!(
            self,
            stream,
            &self.kernels().mr_table,
            cfg,
            table,
            moduli,
            &k32
        )
    }

    /// `out[i]` = −1, 0, 1 for `a[i]` <, =, > `b[i]` by their digits (or `b` itself, `k`
    /// digits, when `broadcast`).
    pub fn launch_cmp(
        &self,
        stream: &CudaStream,
        s: Cmp,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: &CudaSlice<u32>,
    ) -> Result<()> {
        need("comparison output", out, s.len)?;
        need("comparison digits", a, s.k * s.len)?;
        need(
            "comparison digits",
            b,
            if s.broadcast { s.k } else { s.k * s.len },
        )?;
        let cfg = LaunchConfig {
            grid_dim: (s.len.div_ceil(ELEMENT_THREADS as usize).max(1) as u32, 1, 1),
            block_dim: (ELEMENT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (bc, po) = (s.broadcast as u32, s.pending_only as u32);
        let (len, k) = (s.len as u32, s.k as u32);
        let f = &self.kernels().cmp_digits;
        launch!(self, stream, f, cfg, out, a, b, &bc, &po, &len, &k)
    }

    /// Residues (`channels × len`) of word-major integers (`words[w·len + i]`, `nwords`
    /// per number) with sign flags `neg`.
    pub fn launch_reduce(
        &self,
        stream: &CudaStream,
        s: Reduce,
        out: &mut CudaSlice<u32>,
        words: &CudaSlice<u32>,
        neg: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("reduction output", out, s.channels * s.len)?;
        need("reduction words", words, s.nwords * s.len)?;
        need("reduction signs", neg, s.len)?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let (len, nw) = (s.len as u32, s.nwords as u32);
        let cfg = channel_grid(s.len, s.channels)?;
        let f = &self.kernels().reduce_words;
        launch!(self, stream, f, cfg, out, words, neg, moduli, &len, &nw)
    }

    /// Gaussian elimination, one block per channel, on `mats` (overwritten); `ranks` and
    /// `dets` get one word per channel.
    pub fn launch_eliminate(
        &self,
        stream: &CudaStream,
        s: Eliminate,
        ranks: &mut CudaSlice<u32>,
        dets: &mut CudaSlice<u32>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("elimination matrices", mats, s.channels * s.rows * s.cols)?;
        need("ranks", ranks, s.channels)?;
        need("determinants", dets, s.channels)?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
            block_dim: (eliminate_threads(s.rows), 1, 1),
            shared_mem_bytes: ELIMINATE_SMEM_BYTES,
        };
        let (r, c, p, j) = (
            s.rows as u32,
            s.cols as u32,
            s.pivot_cols as u32,
            s.jordan as u32,
        );
        let f = &self.kernels().eliminate;
        launch!(self, stream, f, cfg, ranks, dets, mats, moduli, &r, &c, &p, &j)
    }

    /// Blocked LU determinant on `mats` (overwritten): the fused kernel, one block per
    /// channel, or with the trailing updates on the tensor cores
    /// ([`Gpu::det_on_tensor_cores`]).
    pub fn launch_det(
        &self,
        stream: &Arc<CudaStream>,
        s: Det,
        dets: &mut CudaSlice<u32>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("determinant matrices", mats, s.channels * s.n * s.n)?;
        need("determinants", dets, s.channels)?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        if self.det_on_tensor_cores(s.n, s.channels) {
            return self.launch_det_tensor(stream, s, dets, mats, moduli);
        }
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
            block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
            shared_mem_bytes: DET_SMEM_BYTES,
        };
        let n = s.n as u32;
        launch!(
            self,
            stream,
            &self.kernels().det_blocked,
            cfg,
            dets,
            mats,
            moduli,
            &n
        )
    }

    /// Univariate resultants, one thread per channel, on coefficients interleaved across
    /// channels (`data[j·channels + c]`: `f`'s `df + 1`, then `g`'s `dg + 1`; overwritten).
    pub fn launch_resultant(
        &self,
        stream: &CudaStream,
        s: Resultant,
        out: &mut CudaSlice<u32>,
        data: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need_resultant(s.channels, s.df + s.dg + 2, out, data, moduli)?;
        let cfg = LaunchConfig {
            grid_dim: (
                s.channels.div_ceil(RESULTANT_THREADS as usize).max(1) as u32,
                1,
                1,
            ),
            block_dim: (RESULTANT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (c, df, dg) = (s.channels as u32, s.df as u32, s.dg as u32);
        launch!(
            self,
            stream,
            &self.kernels().resultant,
            cfg,
            out,
            data,
            moduli,
            &c,
            &df,
            &dg
        )
    }

    /// Univariate resultants, one block per channel, on coefficients laid out per channel
    /// (`data[c·(df + dg + 2) …]`: `f`'s `df + 1`, then `g`'s `dg + 1`; read only).
    pub fn launch_resultant_block(
        &self,
        stream: &CudaStream,
        s: ResultantBlock,
        out: &mut CudaSlice<u32>,
        data: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need_resultant(s.channels, s.df + s.dg + 2, out, data, moduli)?;
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
            block_dim: (s.threads, 1, 1),
            shared_mem_bytes: (resultant_block_words(s.df, s.dg) * 4) as u32,
        };
        let (df, dg) = (s.df as u32, s.dg as u32);
        let f = &self.kernels().resultant_block;
        launch!(self, stream, f, cfg, out, data, moduli, &df, &dg)
    }

    /// Whether the block-per-channel resultant kernel runs for degrees `df`, `dg`: the
    /// larger reaches the configured degree, and both polynomials and the step records
    /// fit shared memory (which also keeps `df + dg` below the kernel's 2^16).
    pub fn resultant_in_blocks(&self, df: usize, dg: usize) -> bool {
        df.max(dg) >= self.config().block_resultant_from()
            && df + dg < 1 << 16
            && resultant_block_words(df, dg) * 4 <= self.shared_memory()
    }

    /// Collins' step for every (channel, point): `vals` gets `channels × candidates`
    /// resultants (or `NO_POINT`), `work` is scratch, `coeffs` holds `shape.len()`
    /// residues per channel.
    pub fn launch_resultant_points(
        &self,
        stream: &CudaStream,
        s: ResultantPoints,
        vals: &mut CudaSlice<u32>,
        work: &mut CudaSlice<u32>,
        coeffs: &CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        let pairs = s.channels * s.candidates;
        need("point values", vals, pairs)?;
        need("point scratch", work, pairs * s.shape.work_len())?;
        need("coefficients", coeffs, s.channels * s.shape.len())?;
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let cfg = LaunchConfig {
            grid_dim: (
                s.candidates.div_ceil(RESULTANT_THREADS as usize).max(1) as u32,
                grid_limit("channels", s.channels, GRID_YZ)?,
                1,
            ),
            block_dim: (RESULTANT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (sh, points) = (s.shape, s.candidates as u32);
        let f = &self.kernels().resultant_points;
        let (fy, fx, gy, gx) = (&sh.fy, &sh.fx, &sh.gy, &sh.gx);
        launch!(self, stream, f, cfg, vals, work, coeffs, moduli, fy, fx, gy, gx, &points)
    }

    /// Whether the interpolation scratch of `n` coefficients from `candidates` points fits
    /// a block's shared memory.
    pub fn interpolation_in_shared(&self, n: usize, candidates: usize) -> bool {
        interpolation_words(n, candidates) * 4 <= self.shared_memory()
    }

    /// Interpolation of `n` coefficients per channel from `vals` into `out`, the scratch
    /// in shared memory when `s.shared`, else in `scratch`.
    pub fn launch_interpolate(
        &self,
        stream: &CudaStream,
        s: Interpolate,
        out: &mut CudaSlice<u32>,
        vals: &CudaSlice<u32>,
        scratch: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        let words = interpolation_words(s.n, s.candidates);
        need("coefficients", out, s.channels * s.n)?;
        need("point values", vals, s.channels * s.candidates)?;
        if !s.shared {
            need("interpolation scratch", scratch, s.channels * words)?;
        }
        need("moduli", moduli, s.channels * MODULUS_WORDS)?;
        let cfg = LaunchConfig {
            grid_dim: (grid_limit("channels", s.channels, i32::MAX as usize)?, 1, 1),
            block_dim: (INTERPOLATE_THREADS, 1, 1),
            shared_mem_bytes: if s.shared { (words * 4) as u32 } else { 0 },
        };
        let (c, n, sh) = (s.candidates as u32, s.n as u32, s.shared as u32);
        let f = &self.kernels().interpolate;
        launch!(self, stream, f, cfg, out, vals, scratch, moduli, &c, &n, &sh)
    }
}
