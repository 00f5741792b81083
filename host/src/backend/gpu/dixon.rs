//! Dixon's lifting and few-prime eliminations on the device (`device/src/kernels/dixon.rs`):
//! a square matrix uploaded once as signed 29-bit limbs, reduced there modulo each prime;
//! eliminations one pivot per launch, so that one prime has the whole GPU; the lifting
//! steps in one cooperative launch (digits by `A⁻¹ mod p`, then the exact update of the
//! 128-bit residuals, grid barriers between them), of which only row 0's digits come
//! back.
//!
//! The eliminations launch thousands of small kernels: their buffers' device pointers
//! are taken once and passed as plain words, so that no launch records events.

use super::memory::moduli_words;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use rns_core::padic::inverse_mod_2_128;
use rns_core::Modulus;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Words of a channel's elimination state (`rns_step_pivot`): pivot row, determinant,
/// pivot inverse, singular flag.
const STATE_WORDS: usize = 4;
/// Threads of `rns_step_pivot`'s block (one per channel).
const PIVOT_THREADS: u32 = 256;
/// Rows covered by one block of `rns_step_update` (32 × 8 threads, four rows each).
const UPDATE_BLOCK_ROWS: usize = 32;
/// Threads per block of `rns_dixon_lift` (a warp per row).
const LIFT_THREADS: u32 = 512;
/// Threads per block of `rns_limbs_mod`.
const LIMBS_THREADS: u32 = 256;

/// A square `n × n` integer matrix on the device, as `limbs` matrices of signed 29-bit
/// limbs (`rns_core::padic`).
pub struct DeviceLimbs {
    words: CudaSlice<u32>,
    /// The dimension.
    pub n: usize,
    /// Limbs per entry.
    pub limbs: usize,
}

/// What [`Gpu::lift_first`] brings back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lifted {
    /// The prime lifted (the first of those tried modulo which `A` is invertible).
    pub prime: u32,
    /// `det A mod prime`.
    pub det_mod_prime: u32,
    /// Row 0's digits `x_0, x_1, …` of the p-adic expansion of `A⁻¹ b`.
    pub digits: Vec<u32>,
    /// Wall-clock time of the inverses (every prime tried).
    pub inverse_time: Duration,
}

/// The 1-D launch of `threads`-wide blocks over `items` threads.
fn line(items: usize, threads: u32) -> Result<LaunchConfig> {
    let blocks = items.div_ceil(threads as usize);
    if blocks > i32::MAX as usize {
        return Err(Error::Shape(format!(
            "{items} threads exceed the GPU grid limit"
        )));
    }
    Ok(LaunchConfig {
        grid_dim: (blocks.max(1) as u32, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    })
}

impl Gpu {
    /// `rns_dixon_lift`'s rows per block and bytes of shared memory for an `n × n`
    /// matrix of `limbs` limbs, when its rows fit: a block per multiprocessor at most,
    /// a warp per row at least.
    pub fn lift_layout(&self, n: usize, limbs: usize) -> Option<(usize, usize)> {
        let warps = (LIFT_THREADS / 32) as usize;
        let rows = n.div_ceil(self.multiprocessors().max(1)).max(1);
        let bytes = 4 * (n + rows * (1 + limbs) * n + 4 * warps);
        (rows <= warps && bytes <= self.shared_memory()).then_some((rows, bytes))
    }

    /// Uploads `a` (`limbs` limb matrices of `n × n`, limb-major, the signed limbs'
    /// bits as words) on `stream`.
    pub fn upload_limbs(
        &self,
        stream: &Arc<CudaStream>,
        a: &[u32],
        n: usize,
        limbs: usize,
    ) -> Result<DeviceLimbs> {
        if a.len() != limbs * n * n {
            return Err(Error::Internal(format!(
                "{} limb words for {limbs} limbs of a {n} × {n} matrix",
                a.len()
            )));
        }
        Ok(DeviceLimbs {
            words: self.upload_on(stream, a)?,
            n,
            limbs,
        })
    }

    /// `a` modulo each of `channels` primes (`moduli`, device words), channel `c` at
    /// `c·n·ld`, rows `ld` wide: `a`'s `n` columns, then `ld − n` columns of the identity.
    fn limbs_mod(
        &self,
        stream: &Arc<CudaStream>,
        a: &DeviceLimbs,
        moduli: &CudaSlice<u32>,
        channels: usize,
        ld: usize,
    ) -> Result<CudaSlice<u32>> {
        let mut out = self.alloc_on(stream, channels * a.n * ld)?;
        let mut cfg = line(a.n * ld, LIMBS_THREADS)?;
        cfg.grid_dim.0 = cfg.grid_dim.0.min(65_535);
        cfg.grid_dim.1 = channels as u32;
        let (n, ld, l) = (a.n as u32, ld as u32, a.limbs as u32);
        let mut b = stream.launch_builder(&self.kernels().limbs_mod);
        b.arg(&mut out).arg(&a.words).arg(moduli).arg(&n).arg(&n);
        b.arg(&ld).arg(&l);
        self.launch_built(b, cfg)?;
        Ok(out)
    }

    /// Eliminates each of `channels` `rows × cols` matrices in `mats` (device words,
    /// channel-major) one pivot column at a time over the first `rows` columns, the
    /// whole grid on each step: Gauss–Jordan when `jordan`, else forward (for the
    /// determinant). Returns each channel's state (`STATE_WORDS` words: determinant at
    /// 1, singular flag at 3).
    #[allow(clippy::too_many_arguments)]
    fn eliminate_steps(
        &self,
        stream: &Arc<CudaStream>,
        mats: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
        channels: usize,
        (rows, cols): (usize, usize),
        jordan: bool,
    ) -> Result<Vec<u32>> {
        let init: Vec<u32> = (0..channels).flat_map(|_| [0, 1, 0, 0]).collect();
        let mut state = self.upload_on(stream, &init)?;
        if channels > u16::MAX as usize {
            return Err(Error::Shape(format!(
                "{channels} primes exceed the GPU grid limit of {}",
                u16::MAX
            )));
        }
        {
            let (pm, _g1) = mats.device_ptr_mut(stream);
            let (ps, _g2) = state.device_ptr_mut(stream);
            let (pq, _g3) = moduli.device_ptr(stream);
            let (r, c, jo) = (rows as u32, cols as u32, jordan as u32);
            let pivot_cfg = LaunchConfig {
                grid_dim: (channels as u32, 1, 1),
                block_dim: (PIVOT_THREADS, 1, 1),
                shared_mem_bytes: 0,
            };
            for k in 0..rows.min(cols) {
                let kk = k as u32;
                let mut b = stream.launch_builder(&self.kernels().step_pivot);
                b.arg(&pm).arg(&ps).arg(&pq).arg(&r).arg(&c).arg(&kk);
                self.launch_built(b, pivot_cfg)?;
                let (strip, below) = (cols - k - 1, if jordan { rows } else { rows - k - 1 });
                if strip == 0 || below == 0 {
                    continue;
                }
                let cfg = LaunchConfig {
                    grid_dim: (
                        strip.div_ceil(32) as u32,
                        below.div_ceil(UPDATE_BLOCK_ROWS) as u32,
                        channels as u32,
                    ),
                    block_dim: (32, 8, 1),
                    shared_mem_bytes: 0,
                };
                if cfg.grid_dim.1 > u16::MAX as u32 {
                    return Err(Error::Shape(format!(
                        "{rows} rows exceed the GPU grid limit"
                    )));
                }
                let mut b = stream.launch_builder(&self.kernels().step_update);
                b.arg(&pm)
                    .arg(&ps)
                    .arg(&pq)
                    .arg(&r)
                    .arg(&c)
                    .arg(&kk)
                    .arg(&jo);
                self.launch_built(b, cfg)?;
            }
        }
        self.download_on(stream, &state, channels * STATE_WORDS)
    }

    /// `det a mod m` for each of `moduli` (few primes, large matrices: each step of the
    /// elimination spreads over the whole GPU).
    pub fn det_mod_limbs(&self, a: &DeviceLimbs, moduli: &[Modulus]) -> Result<Vec<u32>> {
        if moduli.is_empty() {
            return Ok(Vec::new());
        }
        let stream = self.stream();
        let dm = self.upload_on(stream, &moduli_words(moduli))?;
        let mut mats = self.limbs_mod(stream, a, &dm, moduli.len(), a.n)?;
        let state =
            self.eliminate_steps(stream, &mut mats, &dm, moduli.len(), (a.n, a.n), false)?;
        Ok(state.chunks(STATE_WORDS).map(|s| s[1]).collect())
    }

    /// Dixon's lifting of `A x = b` for one right-hand side `b` (`rhs`, 128-bit), `steps(p)`
    /// steps, modulo the first of `primes` modulo which `a` is invertible (`None` when
    /// there is none): the inverse by Gauss–Jordan on the device, then two launches per
    /// step; row 0's digits come back. The caller checks that the residuals fit in 128
    /// bits (`rns_core::padic::residual_fits`).
    pub fn lift_first(
        &self,
        a: &DeviceLimbs,
        rhs: &[i128],
        primes: impl IntoIterator<Item = Modulus>,
        steps: impl Fn(u32) -> usize,
    ) -> Result<Option<Lifted>> {
        let n = a.n;
        if rhs.len() != n || n == 0 {
            return Err(Error::Internal(format!(
                "lifting: {} right-hand side entries for {n} rows",
                rhs.len()
            )));
        }
        let stream = self.stream();
        let start = Instant::now();
        for m in primes {
            let dm = self.upload_on(stream, &moduli_words(&[m]))?;
            let mut aug = self.limbs_mod(stream, a, &dm, 1, 2 * n)?;
            let state = self.eliminate_steps(stream, &mut aug, &dm, 1, (n, 2 * n), true)?;
            if state[3] != 0 {
                continue;
            }
            let inverse_time = start.elapsed();
            let digits = self.lift_steps(stream, a, &aug, &dm, (m, rhs), steps(m.m))?;
            return Ok(Some(Lifted {
                prime: m.m,
                det_mod_prime: state[1],
                digits,
                inverse_time,
            }));
        }
        Ok(None)
    }

    /// The lifting loop of [`Gpu::lift_first`] over the inverse in `aug`'s right half.
    fn lift_steps(
        &self,
        stream: &Arc<CudaStream>,
        a: &DeviceLimbs,
        aug: &CudaSlice<u32>,
        dm: &CudaSlice<u32>,
        (m, rhs): (Modulus, &[i128]),
        steps: usize,
    ) -> Result<Vec<u32>> {
        let n = a.n;
        let r_words: Vec<u32> = rhs
            .iter()
            .flat_map(|&v| {
                let u = v as u128;
                [0, 32, 64, 96].map(|s| (u >> s) as u32)
            })
            .collect();
        let y_words: Vec<u32> = rhs
            .iter()
            .map(|&v| rns_core::padic::reduce_i128(v, m))
            .collect();
        let mut r = self.upload_on(stream, &r_words)?;
        let mut y = self.upload_on(stream, &y_words)?;
        let mut x = self.alloc_on(stream, n)?;
        let mut first = self.alloc_on(stream, steps)?;
        let p_inv = inverse_mod_2_128(m.m);
        let (lo, hi) = (p_inv as u64, (p_inv >> 64) as u64);
        let mut bar = self.upload_on(stream, &[0, 0])?;
        let (rows, smem) = self.lift_layout(n, a.limbs).ok_or_else(|| {
            Error::Shape(format!(
                "lifting a {n} × {n} system on the device: its rows do not fit in shared memory"
            ))
        })?;
        let cfg = LaunchConfig {
            grid_dim: (n.div_ceil(rows) as u32, 1, 1),
            block_dim: (LIFT_THREADS, 1, 1),
            shared_mem_bytes: smem as u32,
        };
        let inv = aug.slice(n..);
        let (nn, ld, l, s, rr) = (
            n as u32,
            2 * n as u32,
            a.limbs as u32,
            steps as u32,
            rows as u32,
        );
        let mut b = stream.launch_builder(&self.kernels().dixon_lift);
        b.arg(&mut r)
            .arg(&mut y)
            .arg(&mut x)
            .arg(&mut first)
            .arg(&inv);
        b.arg(&a.words)
            .arg(dm)
            .arg(&mut bar)
            .arg(&nn)
            .arg(&ld)
            .arg(&l);
        b.arg(&lo).arg(&hi).arg(&s).arg(&rr);
        self.launch_built_cooperative(b, cfg)?;
        self.download_on(stream, &first, steps)
            .map_err(|e| match e {
                Error::Gpu(s) => Error::Gpu(format!("{s} (Dixon lifting)")),
                e => e,
            })
    }
}
