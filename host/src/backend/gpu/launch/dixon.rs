//! Launches of Dixon's lifting (`device/src/kernels/dixon.rs`, `lift.rs`): a matrix of
//! signed 29-bit limbs reduced modulo primes (`rns_limbs_mod`), and the lifting steps in
//! one cooperative launch: digits `A⁻¹ y mod p`, the exact update of the 128-bit
//! residuals, `y` and `x` exchanged between the blocks as tagged words. The rows of
//! `A⁻¹ mod p` and of `A`'s limbs stay in the blocks' shared memory where they fit
//! (`rns_dixon_lift`, one prime), else every step reads them from global memory
//! (`rns_dixon_lift_global`: any order whose matrices fit the device, a step lifting by
//! the product of up to `LIFT_GLOBAL_MAX_PRIMES` primes).

use super::{channel_grid, channel_ranges, need};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::driver::watch::LaunchWatch;
use crate::backend::gpu::{Gpu, LiftRows};
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::{
    LIFT_DEFAULT_PRIMES, LIFT_GLOBAL_MAX_LIMBS, LIFT_GLOBAL_MAX_PRIMES, LIFT_GLOBAL_MAX_RHS,
    LIFT_GLOBAL_THREADS, LIFT_RING_THREADS, LIFT_RING_WORDS,
};
use std::sync::Arc;

/// Threads per block of `rns_dixon_lift` (a warp per row).
const LIFT_THREADS: u32 = 512;

/// Bytes of staged digits (`k·n·l` words) up to which `rns_dixon_lift_global` takes
/// another prime a step (its registers allow one block a multiprocessor).
const LIFT_STAGE_BYTES: usize = 160 << 10;

/// One run of lifting steps: the system's sizes, the prime, the steps.
#[derive(Clone, Copy, Debug)]
pub struct LiftArgs {
    /// Rows of `A`.
    pub n: usize,
    /// Right-hand sides.
    pub l: usize,
    /// Limbs per entry of `A`.
    pub limbs: usize,
    /// Primes a step (as many as `layout` allows at most).
    pub primes: usize,
    /// `P⁻¹ mod 2^128` for their product `P`.
    pub p_inv: u128,
    /// Steps taken before this run.
    pub from: usize,
    /// Steps of this run.
    pub steps: usize,
    /// Where the rows are kept, and the launch's shape ([`lift_layout`]).
    pub layout: LiftLayout,
    /// The rows this launch lifts, as (first, count): `(0, n)` on one device; a share
    /// when the lifting is split by rows across devices (from global memory only).
    pub rows: (usize, usize),
}

/// The shape of a lifting launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiftLayout {
    /// `rns_dixon_lift`: `rows` rows of the matrices per block in shared memory,
    /// `smem` bytes of it.
    Shared {
        /// Rows per block.
        rows: usize,
        /// Bytes of dynamic shared memory.
        smem: usize,
    },
    /// `rns_dixon_lift_global`: `blocks` blocks, the matrices read from global memory,
    /// a step by the product of `primes` primes, `smem` bytes of shared memory (`y` or
    /// `x` staged, the warps' partial sums, and with `ring` the warps' rings).
    Global {
        /// Blocks of the launch.
        blocks: usize,
        /// Bytes of dynamic shared memory.
        smem: usize,
        /// Primes a step.
        primes: usize,
        /// Whether the warps stream their rows through rings of shared memory
        /// (`cp.async`) rather than loading them into registers.
        ring: bool,
    },
}

impl LiftLayout {
    /// The primes a step lifts by (one in shared memory).
    pub fn primes(&self) -> usize {
        match self {
            LiftLayout::Shared { .. } => 1,
            LiftLayout::Global { primes, .. } => *primes,
        }
    }
}

/// The launch of the lifting of an `n × n` matrix of `limbs` limbs with `l` right-hand
/// sides: its rows in shared memory (a block per multiprocessor at most, a warp per row
/// at least, 1 to 32 right-hand sides) where they fit, else read from global memory
/// (at most `LIFT_GLOBAL_MAX_LIMBS` limbs and `LIFT_GLOBAL_MAX_RHS` right-hand sides,
/// `y` staged in shared memory), as [`crate::backend::gpu::GpuConfig::lift_rows`]
/// allows. From global memory a step lifts by up to `max_primes` primes (as
/// [`crate::backend::gpu::GpuConfig::lift_primes`] asks, else [`LIFT_DEFAULT_PRIMES`] as
/// long as the staged digits stay within `LIFT_STAGE_BYTES`), through the warps' rings
/// where they fit beside the staged digits (by default with fewer primes rather than
/// without the rings; as asked, with the primes asked), else from registers. `None`
/// when neither applies.
pub fn lift_layout(
    gpu: &Gpu,
    n: usize,
    limbs: usize,
    l: usize,
    max_primes: usize,
) -> Option<LiftLayout> {
    let shared = || {
        let warps = (LIFT_THREADS / 32) as usize;
        let rows = n.div_ceil(gpu.multiprocessors().max(1)).max(1);
        let smem = 4 * (n * l + rows * (1 + limbs) * n + 4 * l * warps);
        let fits = rows <= warps && (1..=32).contains(&l) && smem <= gpu.shared_memory();
        fits.then_some(LiftLayout::Shared { rows, smem })
    };
    let global = |cap: Option<usize>| {
        // Shared memory with and without the rings: the staged digits, the warps' sums
        // and the rings (`lift_threads` threads either way).
        let smem = |k: usize, ring: bool| {
            let threads = lift_threads(ring) as usize;
            let rings = if ring { LIFT_RING_WORDS * threads } else { 0 };
            4 * (k * n * l + 4 * l * threads / 32 + rings)
        };
        let most = max_primes.clamp(1, LIFT_GLOBAL_MAX_PRIMES);
        let asked = gpu.config().lift_primes();
        let wanted = match asked {
            Some(k) => k.clamp(1, most),
            None => (1..=most.min(LIFT_DEFAULT_PRIMES))
                .rev()
                .find(|&k| 4 * k * n * l <= LIFT_STAGE_BYTES)
                .unwrap_or(1),
        };
        // The most primes up to `wanted` whose launch fits, with or without the rings.
        let most_fitting = |ring: bool| {
            (1..=wanted)
                .rev()
                .find(|&k| smem(k, ring) <= gpu.shared_memory())
        };
        let rings = gpu.config().lift_ring();
        let (primes, ring) = match (asked, rings.then(|| most_fitting(true)).flatten()) {
            // By default the rings with fewer primes rather than registers with more
            // (a step through the rings reads about 1.4× faster).
            (None, Some(k)) => (k, true),
            _ => {
                let k = most_fitting(false).unwrap_or(1);
                (k, rings && smem(k, true) <= gpu.shared_memory())
            }
        };
        let smem = smem(primes, ring);
        let fits = n > 0
            && (1..=LIFT_GLOBAL_MAX_RHS).contains(&l)
            && (1..=LIFT_GLOBAL_MAX_LIMBS).contains(&limbs)
            && smem <= gpu.shared_memory()
            && u32::try_from(2 * n * n).is_ok();
        if !fits {
            return None;
        }
        let f = lift_global_kernel(gpu, primes, ring);
        // The occupancy query needs the device's context on this thread.
        gpu.context().bind_to_thread().ok()?;
        let per_sm = f
            .occupancy_max_active_blocks_per_multiprocessor(lift_threads(ring), smem, None)
            .ok()? as usize;
        let blocks = (per_sm * gpu.multiprocessors()).min(cap.unwrap_or(usize::MAX));
        (blocks > 0).then_some(LiftLayout::Global {
            blocks,
            smem,
            primes,
            ring,
        })
    };
    match gpu.config().lift_rows() {
        Some(LiftRows::Shared) => shared(),
        Some(LiftRows::Global { blocks }) => global(blocks),
        None => shared().or_else(|| global(None)),
    }
}

/// Threads per block of the lifting from global memory, with or without the rings.
fn lift_threads(ring: bool) -> u32 {
    if ring {
        LIFT_RING_THREADS
    } else {
        LIFT_GLOBAL_THREADS
    }
}

/// Whether `layout` keeps the rows in shared memory (`rns_dixon_lift`, one device).
fn rows_in_shared(layout: LiftLayout) -> bool {
    matches!(layout, LiftLayout::Shared { .. })
}

/// The entry point of `rns_dixon_lift_global` (`rns_dixon_lift_ring` with `ring`) for
/// `primes` primes a step (1 to `LIFT_GLOBAL_MAX_PRIMES`).
fn lift_global_kernel(gpu: &Gpu, primes: usize, ring: bool) -> &cudarc::driver::CudaFunction {
    &gpu.kernels().dixon_lift_global[ring as usize][primes.clamp(1, LIFT_GLOBAL_MAX_PRIMES) - 1]
}

/// An `n × n` matrix given as `limbs` signed 29-bit limb matrices (`a`, limb-major)
/// modulo each of `channels` primes (`moduli`, device words), channel `c` at `c·n·ld`,
/// rows `ld` wide: `a`'s `n` columns, then `ld − n` columns of the identity.
pub fn launch_limbs_mod(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (a, n, limbs): (&CudaSlice<u32>, usize, usize),
    moduli: &CudaSlice<u32>,
    channels: usize,
    ld: usize,
) -> Result<CudaSlice<u32>> {
    need("limbs", a, limbs * n * n)?;
    need("moduli", moduli, channels * MODULUS_WORDS)?;
    let size = n * ld;
    if size > u32::MAX as usize {
        return Err(Error::Shape(format!(
            "a {n} × {ld} matrix exceeds the limbs kernel's 32-bit index"
        )));
    }
    let mut out = gpu.alloc_on(stream, channels * size)?;
    let (n, ld, l) = (n as u32, ld as u32, limbs as u32);
    for r in channel_ranges(channels) {
        let mut o = out.slice_mut(r.start * size..r.end * size);
        let m = moduli.slice(r.start * MODULUS_WORDS..r.end * MODULUS_WORDS);
        let cfg = channel_grid(size, r.len())?;
        let mut b = stream.launch_builder(&gpu.kernels().limbs_mod);
        b.arg(&mut o).arg(a).arg(&m).arg(&n).arg(&n);
        b.arg(&ld).arg(&l);
        super::launch_built(gpu, b, cfg)?;
    }
    Ok(out)
}

/// The lifting's matrices and constants on the device: `A⁻¹ mod p_q` for each prime
/// (`inverses`, `n × n` each, one after the other), `A`'s limbs, the primes' words and
/// their mixed-radix inverses (`garner`, `LIFT_GLOBAL_MAX_PRIMES²` words:
/// `rns_core::padic::mixed_radix`).
pub struct LiftMatrices<'a> {
    /// `A⁻¹ mod p_q`, prime after prime.
    pub inverses: &'a CudaSlice<u32>,
    /// `A`'s limb matrices.
    pub limbs: &'a CudaSlice<u32>,
    /// The primes' device words.
    pub moduli: &'a CudaSlice<u32>,
    /// `p_u⁻¹ mod p_q` at `u·LIFT_GLOBAL_MAX_PRIMES + q`.
    pub garner: &'a CudaSlice<u32>,
    /// On several devices: the other devices' `y` and `x` (device addresses, a pair per
    /// peer, each as two little-endian words; mapped here by peer access), where this
    /// launch's rows are stored too.
    pub peers: Option<&'a CudaSlice<u32>>,
}

/// `args.steps` lifting steps in one cooperative launch on `stream`: the state
/// `[r, y, x, digits, first]` (residuals, tagged `y` and `x` for each prime, every row's
/// digits, row 0's; `args.primes` digit levels a step) updated in place, from `mats`;
/// the kernel as `args.layout` says, its waits bounded by `watch`.
pub(crate) fn launch_dixon_lift(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    args: LiftArgs,
    [r, y, x, digits, first]: [&mut CudaSlice<u32>; 5],
    mats: LiftMatrices,
    watch: &LaunchWatch,
) -> Result<()> {
    let LiftArgs {
        n, l, primes: k, ..
    } = args;
    if k == 0 || k > args.layout.primes() {
        return Err(Error::Internal(format!(
            "lifting by {k} primes a step in a layout for {}",
            args.layout.primes()
        )));
    }
    let cap = digits.len() / (k * n * l).max(1);
    if args.from + args.steps > cap || first.len() < cap * k * l {
        return Err(Error::Internal("lifting past the digits' capacity".into()));
    }
    need("lifting inverses", mats.inverses, k * n * n)?;
    need("lifting limbs", mats.limbs, args.limbs * n * n)?;
    need("lifting residuals", r, 4 * n * l)?;
    need("lifting y", y, 2 * k * n * l)?;
    need("lifting x", x, 2 * k * n * l)?;
    need("moduli", mats.moduli, k * MODULUS_WORDS)?;
    need(
        "mixed-radix inverses",
        mats.garner,
        LIFT_GLOBAL_MAX_PRIMES.pow(2),
    )?;
    let (lo, hi) = (args.p_inv as u64, (args.p_inv >> 64) as u64);
    let (inv, limbs, dm) = (mats.inverses, mats.limbs, mats.moduli);
    let (nn, ll, ld, lb) = (n as u32, l as u32, n as u32, args.limbs as u32);
    let (s0, s) = (args.from as u32, args.steps as u32);
    let (first_row, count) = args.rows;
    let split = args.rows != (0, n) || mats.peers.is_some();
    if first_row + count > n || count == 0 || (split && rows_in_shared(args.layout)) {
        return Err(Error::Internal(format!(
            "lifting rows {:?} of {n} in {:?}",
            args.rows, args.layout
        )));
    }
    let (row0, count) = (first_row as u32, count as u32);
    let npeers = mats.peers.map_or(0, |p| p.len() / 4) as u32;
    let k = gpu.kernels();
    let (f, cfg, rows) = match args.layout {
        LiftLayout::Shared { rows, smem } => (
            &k.dixon_lift,
            LaunchConfig {
                grid_dim: (n.div_ceil(rows) as u32, 1, 1),
                block_dim: (LIFT_THREADS, 1, 1),
                shared_mem_bytes: smem as u32,
            },
            Some(rows as u32),
        ),
        LiftLayout::Global {
            blocks, smem, ring, ..
        } => (
            lift_global_kernel(gpu, args.primes, ring),
            LaunchConfig {
                grid_dim: (blocks as u32, 1, 1),
                block_dim: (lift_threads(ring), 1, 1),
                shared_mem_bytes: smem as u32,
            },
            None,
        ),
    };
    let mut b = stream.launch_builder(f);
    b.arg(r).arg(y).arg(x);
    b.arg(digits).arg(first).arg(inv).arg(limbs).arg(dm);
    if rows.is_none() {
        b.arg(mats.garner);
    }
    b.arg(&nn).arg(&ll).arg(&ld).arg(&lb);
    b.arg(&lo).arg(&hi);
    b.arg(&s0).arg(&s);
    let null = 0u64;
    match &rows {
        Some(rows) => {
            b.arg(rows);
        }
        None => {
            b.arg(&row0).arg(&count);
            match mats.peers {
                Some(p) => b.arg(p),
                None => b.arg(&null),
            };
            b.arg(&npeers);
        }
    }
    b.arg(watch.word()).arg(&watch.limit_ns);
    super::launch_built_cooperative(gpu, b, cfg)
}
