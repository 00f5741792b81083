//! [`GpuConfig`]: the settings of one [`super::Gpu`], read from the environment once
//! when the device opens and adjustable at run time (tests force the chunked paths).

use super::fault::{Fault, FaultSite, Faults, FAULT_VAR};
use crate::error::Result;
use rns_core::launch::{det_panel_for, RESULTANT_BLOCK_MIN_DEGREE, RESULTANT_WIDE_FROM};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicU8, AtomicUsize, Ordering};
use std::time::Duration;

/// The environment variable that caps the device memory one operation may use, in bytes.
pub const MEM_LIMIT_VAR: &str = "RNS_GPU_MEM_LIMIT";

/// The environment variable that sets the stall limit, in seconds
/// ([`GpuConfig::set_stall_limit`]).
pub const STALL_VAR: &str = "RNS_GPU_STALL_S";

/// The stall limit by default: a wait of one launch's blocks for each other's words
/// takes microseconds, so a minute without progress is no slow device but a stalled one.
pub const STALL_LIMIT: Duration = Duration::from_secs(60);

/// The smallest dimension from which modular matrix products run on the INT8 tensor
/// cores by default (H200: 3.3× the integer kernel at 1024³, 3.9× at 4096³).
pub const TENSOR_CORES_FROM: usize = 128;

/// The smallest dimension from which products on the tensor cores split residues by
/// small moduli rather than byte planes by default (H200: 1.02× the byte planes at
/// 1024³ × 32, 1.24× at 2048³, 1.51× at 4096³; slower below, where the splitting and
/// the CRT of every entry weigh more).
pub const SMALL_MODULI_FROM: usize = 1024;

/// The smallest order from which determinants run their trailing updates on the tensor
/// cores by default (`rns_lu_panel`, `rns_lu_rows` and products by small moduli instead
/// of the fused `rns_det_blocked`). H200, exact det with 64-bit entries, fused against
/// tensor cores: 500² 50.4 / 52.6 ms, 768² 174.0 / 159.2 ms, 1000² 465.9 / 387.7 ms.
pub const TENSOR_DET_FROM: usize = 768;

/// The smallest order of `A` from which the Gauss–Jordan elimination of `[A | B]` runs
/// by panels with its updates on the tensor cores by default (instead of
/// `rns_eliminate`). H200, `[A | I]` with 64-bit entries, integers in and the kept
/// columns out: 500² 1584 against 844 ms, 1000² 17.8 against 8.4 s.
pub const TENSOR_GAUSS_JORDAN_FROM: usize = 384;

/// The smallest order from which determinants, solves and inverses modulo a few primes
/// factor by panel inverses by default (`rns_block_inverse`, then products by small
/// moduli: `crate::backend::gpu::launch::panels`).
pub const INVERSE_PANELS_FROM: usize = 512;

/// The least `primes × order` from which a few matrices modulo primes are inverted by
/// recursive Schur complements by default (`crate::backend::gpu::ops::inverse`),
/// instead of Gauss–Jordan by panels: the primes go in one batch, which pays when there
/// are several. H200, on the device, recursion against panels (one prime after
/// another): one prime 1000² 6.3 / 3.7 ms, 2000² 12.8 / 11.3, 4000² 27.9 / 42.0, 8000²
/// 66.9 / 189; three primes 1000² 6.4 / 11.1, 2000² 13.8 / 33.9, 4000² 33.3 / 126.
pub const INVERSE_RECURSION_FROM: usize = 3000;

/// The least `entries × bits` of the numerators' modulus `P^s` from which a solve's
/// numerators `den·x mod P^s` come by default from one exact product of the lifting's
/// digits on the device (`crate::algo::lift::numerators`) instead of the host's GMP
/// (each entry's value from its digits, then a product by `den`: about six
/// multiplications of that size an entry).
pub const NUMERATORS_ON_DEVICE_FROM: usize = 1 << 24;

/// The least `entries × bits` of a solve's numerators (the bits of its denominator's
/// rough part) from which they are proved coprime to it by default by one product on
/// the device (`crate::backend::gpu::ops::redc`) instead of the host's products modulo
/// it in chunks (three multiplications of that size an entry).
pub const COPRIME_ON_DEVICE_FROM: usize = 1 << 27;

/// Columns per panel of a factorization by panel inverses of `channels` matrices
/// `n × cols` (LU, or with `jordan` Gauss–Jordan) by default: the products' inner
/// dimension, and the block that one thread block inverts in shared memory, whose steps
/// do not spread over the GPU. H100, one prime, the matrix on the device, ms for panels
/// of 64 / 128 / 192: LU 2000² 7.7 / 11.6 / 20.7, 4000² 27.4 / 29.7 / 46.0, 8000² 152 /
/// 107 / 125; `[A | b]` 2000 10.0 / 12.6 / 21.3, 4000 39.4 / 35.4 / 49.7; `[A | I]`
/// 2000 15.9 / 15.6 / 23.3, 4000 86.7 / 59.6 / 66.0, 8000 606 / 343 / 285. With many
/// primes the block inverses run side by side and the products' traffic (which falls
/// as the panels widen) is what counts: the det of a 4000² matrix modulo 100 primes,
/// panels of 64 / 128 / 192 / 224, 1655 / 877 / 635 / 580 ms.
pub fn inverse_panel_by_size(n: usize, cols: usize, jordan: bool, channels: usize) -> usize {
    match (jordan, n) {
        _ if channels >= 8 => 224,
        (false, ..6000) | (true, ..3000) => 64,
        _ if n * cols < 100_000_000 => 128,
        _ => 192,
    }
}

/// How a product on the INT8 tensor cores turns 31-bit residues into bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TensorSplit {
    /// Four byte planes, sixteen INT8 products per prime (`rns_matmul_imma`).
    BytePlanes,
    /// Signed bytes modulo 9–10 small moduli, one INT8 product each, for inner
    /// dimensions up to [`rns_core::ozaki::MAX_INNER`] (`rns_matmul_ozaki`).
    SmallModuli,
}

/// Where Dixon's lifting keeps the rows of `A⁻¹ mod p` and of `A`'s limbs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiftRows {
    /// In the blocks' shared memory for the whole launch (`rns_dixon_lift`).
    Shared,
    /// In global memory, read on every step (`rns_dixon_lift_global`), on `blocks`
    /// blocks (`None`: every block that fits on the device at once).
    Global {
        /// Blocks of the launch, when capped (tests: several rows per warp).
        blocks: Option<usize>,
    },
}

/// Settings of one device. Every field is atomic: operations on other threads see a
/// change at their next allocation.
#[derive(Debug)]
pub struct GpuConfig {
    poison: AtomicBool,
    /// Bytes one operation may place on the device (0: 70% of free memory).
    mem_limit: AtomicUsize,
    /// Bytes of dynamic shared memory the interpolation, mixed-radix and block resultant
    /// kernels may use (`usize::MAX`: the device's maximum).
    smem_limit: AtomicUsize,
    /// The larger degree from which univariate resultants take a block per channel.
    block_resultant_from: AtomicUsize,
    /// Threads per block of the block-per-channel resultant kernel (0: by degree).
    resultant_threads: AtomicU32,
    /// The larger degree from which the block resultant kernel's rounds take 16 steps.
    resultant_wide_from: AtomicUsize,
    /// Modular matrix products on the INT8 tensor cores: 0 by size, 1 always, 2 never.
    tensor_cores: AtomicU8,
    /// The split on the tensor cores: 0 by size, 1 byte planes, 2 small moduli.
    tensor_split: AtomicU8,
    /// Columns per panel of the determinant on the tensor cores.
    det_panel: AtomicUsize,
    /// The order from which few-prime factorizations go by panel inverses.
    inverse_panels_from: AtomicUsize,
    /// Columns per panel of those factorizations (0: by size).
    inverse_panel: AtomicUsize,
    /// The least `primes × order` of inverses by recursive Schur complements.
    inverse_recursion_from: AtomicUsize,
    /// The least `entries × bits` of the solve's numerators made on the device.
    numerators_on_device_from: AtomicUsize,
    /// The least `entries × bits` of the numerators proved coprime on the device.
    coprime_on_device_from: AtomicUsize,
    /// Dixon's lifting: 0 rows in shared memory where they fit, 1 always there, 2
    /// always in global memory; with 2, the blocks of the launch (0: all that fit).
    lift_rows: AtomicU8,
    lift_blocks: AtomicUsize,
    lift_primes: AtomicUsize,
    /// Whether that lifting streams its rows through its rings where they fit.
    lift_ring: AtomicBool,
    /// Whether the products by small moduli take Hopper's warpgroup kernel where the
    /// device has it.
    wgmma: AtomicBool,
    /// The block lifting's split of each step's sums (0: by size).
    block_split: AtomicUsize,
    /// The stall limit in milliseconds.
    stall_ms: AtomicU64,
    /// The armed test fault, if any ([`super::fault`]).
    faults: Faults,
}

impl GpuConfig {
    /// The settings a device starts with: no poisoning, the memory cap of
    /// `RNS_GPU_MEM_LIMIT` when that is set to a number of bytes, no shared-memory cap,
    /// the fault of `RNS_GPU_FAULT` when that is set (an error when it cannot be read),
    /// the stall limit of `RNS_GPU_STALL_S` (seconds) or [`STALL_LIMIT`].
    pub(crate) fn from_env() -> Result<GpuConfig> {
        let limit = std::env::var(MEM_LIMIT_VAR)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .unwrap_or(0);
        let stall = match std::env::var(STALL_VAR) {
            Ok(s) => s
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|&x| x > 0.0 && x < 1e9)
                .map(Duration::from_secs_f64)
                .ok_or_else(|| {
                    crate::error::Error::no_gpu(format!(
                        "{STALL_VAR}={s:?}: expected a positive number of seconds"
                    ))
                })?,
            Err(_) => STALL_LIMIT,
        };
        let faults = Faults::default();
        if let Ok(s) = std::env::var(FAULT_VAR) {
            faults.set(Some(s.parse()?));
        }
        Ok(GpuConfig {
            poison: AtomicBool::new(false),
            mem_limit: AtomicUsize::new(limit),
            smem_limit: AtomicUsize::new(usize::MAX),
            block_resultant_from: AtomicUsize::new(RESULTANT_BLOCK_MIN_DEGREE),
            resultant_threads: AtomicU32::new(0),
            resultant_wide_from: AtomicUsize::new(RESULTANT_WIDE_FROM),
            tensor_cores: AtomicU8::new(0),
            tensor_split: AtomicU8::new(0),
            det_panel: AtomicUsize::new(0),
            inverse_panels_from: AtomicUsize::new(INVERSE_PANELS_FROM),
            inverse_panel: AtomicUsize::new(0),
            inverse_recursion_from: AtomicUsize::new(INVERSE_RECURSION_FROM),
            numerators_on_device_from: AtomicUsize::new(NUMERATORS_ON_DEVICE_FROM),
            coprime_on_device_from: AtomicUsize::new(COPRIME_ON_DEVICE_FROM),
            lift_rows: AtomicU8::new(0),
            lift_blocks: AtomicUsize::new(0),
            lift_primes: AtomicUsize::new(0),
            lift_ring: AtomicBool::new(true),
            wgmma: AtomicBool::new(true),
            block_split: AtomicUsize::new(0),
            stall_ms: AtomicU64::new(stall.as_millis().max(1) as u64),
            faults,
        })
    }

    /// Fill every output buffer with `0xFFFF_FFFF` (never a residue, digit or flag the
    /// kernels write) before use, so that tests see any element a kernel missed.
    pub fn set_poison(&self, on: bool) {
        self.poison.store(on, Ordering::Relaxed);
    }

    /// Whether output buffers are poisoned.
    pub fn poison(&self) -> bool {
        self.poison.load(Ordering::Relaxed)
    }

    /// Caps the device memory one operation may use (`None`: 70% of free memory); a
    /// small cap forces the chunked paths.
    pub fn set_memory_limit(&self, bytes: Option<usize>) {
        self.mem_limit.store(bytes.unwrap_or(0), Ordering::Relaxed);
    }

    /// The memory cap, if one is set.
    pub fn memory_limit(&self) -> Option<usize> {
        Some(self.mem_limit.load(Ordering::Relaxed)).filter(|&b| b > 0)
    }

    /// Caps the dynamic shared memory of the interpolation, mixed-radix and block
    /// resultant kernels (`None`: the device's maximum); `Some(0)` forces their
    /// global-memory paths.
    pub fn set_shared_memory_limit(&self, bytes: Option<usize>) {
        self.smem_limit
            .store(bytes.unwrap_or(usize::MAX), Ordering::Relaxed);
    }

    /// The shared-memory cap (`usize::MAX` when none is set).
    pub fn shared_memory_limit(&self) -> usize {
        self.smem_limit.load(Ordering::Relaxed)
    }

    /// Univariate resultants whose larger degree is at least `degree` run a block per
    /// channel (their polynomials in shared memory where they fit), smaller ones a thread per
    /// channel (`None`: [`RESULTANT_BLOCK_MIN_DEGREE`]; `Some(0)`: always a block,
    /// `Some(usize::MAX)`: never).
    pub fn set_block_resultant_from(&self, degree: Option<usize>) {
        self.block_resultant_from.store(
            degree.unwrap_or(RESULTANT_BLOCK_MIN_DEGREE),
            Ordering::Relaxed,
        );
    }

    /// The larger degree from which univariate resultants run a block per channel.
    pub fn block_resultant_from(&self) -> usize {
        self.block_resultant_from.load(Ordering::Relaxed)
    }

    /// Threads per block of the block-per-channel resultant kernel: `Some(t)`, a multiple
    /// of 32 up to 1024, or `None` (the default) for
    /// [`resultant_block_threads`](rns_core::launch::resultant_block_threads) of the degrees
    /// ([`resultant_block_threads_global`](rns_core::launch::resultant_block_threads_global)
    /// with the polynomials in global memory). The wide-round kernel takes at most
    /// [`RESULTANT_WIDE_THREADS`](rns_core::launch::RESULTANT_WIDE_THREADS).
    pub fn set_resultant_threads(&self, threads: Option<u32>) {
        let t = threads.map_or(0, |t| t.clamp(32, 1024) / 32 * 32);
        self.resultant_threads.store(t, Ordering::Relaxed);
    }

    /// The threads per block set by [`GpuConfig::set_resultant_threads`], if any.
    pub fn resultant_threads(&self) -> Option<u32> {
        Some(self.resultant_threads.load(Ordering::Relaxed)).filter(|&t| t > 0)
    }

    /// The larger degree from which the block-per-channel resultant kernel, with its
    /// polynomials in global memory, takes its rounds
    /// [`RESULTANT_ROUND_STEPS_WIDE`](rns_core::launch::RESULTANT_ROUND_STEPS_WIDE) steps
    /// at a time (`None`: [`RESULTANT_WIDE_FROM`]; `Some(0)`: always, `Some(usize::MAX)`:
    /// never).
    pub fn set_resultant_wide_from(&self, degree: Option<usize>) {
        let d = degree.unwrap_or(RESULTANT_WIDE_FROM);
        self.resultant_wide_from.store(d, Ordering::Relaxed);
    }

    /// The larger degree from which the block resultant kernel's rounds take 16 steps.
    pub fn resultant_wide_from(&self) -> usize {
        self.resultant_wide_from.load(Ordering::Relaxed)
    }

    /// Runs the batched modular matrix products (and the determinants' trailing updates)
    /// on the INT8 tensor cores (`Some(true)`), on the integer units (`rns_matmul`,
    /// `rns_det_blocked`, `Some(false)`), or by size (`None`, the default:
    /// [`TENSOR_CORES_FROM`], [`TENSOR_DET_FROM`]).
    pub fn set_tensor_cores(&self, on: Option<bool>) {
        let mode = match on {
            None => 0,
            Some(true) => 1,
            Some(false) => 2,
        };
        self.tensor_cores.store(mode, Ordering::Relaxed);
    }

    /// Whether a product of `n × k` by `k × p` per channel runs on the tensor cores: as
    /// set, or by default when every dimension is at least [`TENSOR_CORES_FROM`].
    pub fn tensor_cores_for(&self, n: usize, k: usize, p: usize) -> bool {
        match self.tensor_cores.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => n.min(k).min(p) >= TENSOR_CORES_FROM,
        }
    }

    /// Whether the determinant of `n × n` matrices runs its trailing updates on the
    /// tensor cores: as [`GpuConfig::set_tensor_cores`] says, or by default from
    /// [`TENSOR_DET_FROM`].
    pub fn tensor_det_for(&self, n: usize) -> bool {
        match self.tensor_cores.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => n >= TENSOR_DET_FROM,
        }
    }

    /// Whether the Gauss–Jordan elimination of `[A | B]` with `A` `n × n` runs by panels
    /// on the tensor cores: as [`GpuConfig::set_tensor_cores`] says, or by default from
    /// [`TENSOR_GAUSS_JORDAN_FROM`].
    pub fn tensor_gauss_jordan_for(&self, n: usize) -> bool {
        match self.tensor_cores.load(Ordering::Relaxed) {
            1 => true,
            2 => false,
            _ => n >= TENSOR_GAUSS_JORDAN_FROM,
        }
    }

    /// Columns per panel of the determinant on the tensor cores (`None`: by the order,
    /// `rns_core::launch::det_panel_for`), at least 1 and at most 1024 (the products'
    /// inner dimension).
    pub fn set_det_panel(&self, columns: Option<usize>) {
        let c = columns.map_or(0, |c| c.clamp(1, 1024));
        self.det_panel.store(c, Ordering::Relaxed);
    }

    /// Columns per panel of the determinant of `n × n` matrices on the tensor cores.
    pub fn det_panel(&self, n: usize) -> usize {
        match self.det_panel.load(Ordering::Relaxed) {
            0 => det_panel_for(n),
            c => c,
        }
    }

    /// Determinants, solves and inverses modulo a few primes factor by panel inverses
    /// from order `from` (`None`: [`INVERSE_PANELS_FROM`]; `Some(usize::MAX)`: never),
    /// in panels of `panel` columns (`None`: [`inverse_panel_by_size`]; at least 1).
    pub fn set_inverse_panels(&self, from: Option<usize>, panel: Option<usize>) {
        let from = from.unwrap_or(INVERSE_PANELS_FROM);
        self.inverse_panels_from.store(from, Ordering::Relaxed);
        let panel = panel.map_or(0, |c| c.max(1));
        self.inverse_panel.store(panel, Ordering::Relaxed);
    }

    /// The columns per panel of a factorization by panel inverses of `channels` matrices
    /// `n × cols` (LU, or with `jordan` Gauss–Jordan), or `None` when it does not take
    /// them: below the order set, or with the tensor cores turned off
    /// ([`GpuConfig::set_tensor_cores`]).
    pub fn inverse_panel_for(
        &self,
        (n, cols): (usize, usize),
        jordan: bool,
        channels: usize,
    ) -> Option<usize> {
        let off = self.tensor_cores.load(Ordering::Relaxed) == 2;
        if off || n < self.inverse_panels_from.load(Ordering::Relaxed) {
            return None;
        }
        Some(match self.inverse_panel.load(Ordering::Relaxed) {
            0 => inverse_panel_by_size(n, cols, jordan, channels),
            c => c,
        })
    }

    /// Inverts a few matrices modulo primes by recursive Schur complements from
    /// `primes × order` = `from` (`None`: [`INVERSE_RECURSION_FROM`]; `Some(usize::MAX)`:
    /// never; never with the tensor cores turned off).
    pub fn set_inverse_recursion(&self, from: Option<usize>) {
        let from = from.unwrap_or(INVERSE_RECURSION_FROM);
        self.inverse_recursion_from.store(from, Ordering::Relaxed);
    }

    /// Whether `channels` matrices `n × n` are inverted by recursive Schur complements
    /// (as [`GpuConfig::set_inverse_recursion`] says).
    pub fn inverse_recursion_for(&self, n: usize, channels: usize) -> bool {
        let off = self.tensor_cores.load(Ordering::Relaxed) == 2;
        let from = self.inverse_recursion_from.load(Ordering::Relaxed);
        !off && channels.saturating_mul(n) >= from
    }

    /// Makes a solve's numerators on the device from `entries × bits` = `from` (`None`:
    /// [`NUMERATORS_ON_DEVICE_FROM`]; `Some(usize::MAX)`: never, the host's GMP always).
    pub fn set_numerators_on_device(&self, from: Option<usize>) {
        let from = from.unwrap_or(NUMERATORS_ON_DEVICE_FROM);
        self.numerators_on_device_from
            .store(from, Ordering::Relaxed);
    }

    /// Whether `entries` numerators modulo a number of `bits` bits are made on the device
    /// (as [`GpuConfig::set_numerators_on_device`] says).
    pub fn numerators_on_device_for(&self, entries: usize, bits: u64) -> bool {
        let from = self.numerators_on_device_from.load(Ordering::Relaxed);
        from != usize::MAX && (entries as u128) * (bits as u128) >= from as u128
    }

    /// Proves a solve's numerators coprime to their denominator on the device from
    /// `entries × bits` = `from` (`None`: [`COPRIME_ON_DEVICE_FROM`]; `Some(usize::MAX)`:
    /// never, the host's products always).
    pub fn set_coprime_on_device(&self, from: Option<usize>) {
        let from = from.unwrap_or(COPRIME_ON_DEVICE_FROM);
        self.coprime_on_device_from.store(from, Ordering::Relaxed);
    }

    /// Whether `entries` numerators are proved coprime to a rough part of `bits` bits on
    /// the device (as [`GpuConfig::set_coprime_on_device`] says).
    pub fn coprime_on_device_for(&self, entries: usize, bits: u64) -> bool {
        let from = self.coprime_on_device_from.load(Ordering::Relaxed);
        from != usize::MAX && (entries as u128) * (bits as u128) >= from as u128
    }

    /// Splits residues for the tensor cores as given, or by size (`None`, the default:
    /// small moduli when every dimension is at least [`SMALL_MODULI_FROM`]).
    pub fn set_tensor_split(&self, split: Option<TensorSplit>) {
        let mode = match split {
            None => 0,
            Some(TensorSplit::BytePlanes) => 1,
            Some(TensorSplit::SmallModuli) => 2,
        };
        self.tensor_split.store(mode, Ordering::Relaxed);
    }

    /// The split of an `n × k` by `k × p` product on the tensor cores: as set, or by
    /// size, but byte planes whenever `k` exceeds [`rns_core::ozaki::MAX_INNER`].
    pub fn tensor_split_for(&self, n: usize, k: usize, p: usize) -> TensorSplit {
        if k > rns_core::ozaki::MAX_INNER {
            return TensorSplit::BytePlanes;
        }
        match self.tensor_split.load(Ordering::Relaxed) {
            1 => TensorSplit::BytePlanes,
            2 => TensorSplit::SmallModuli,
            _ if n.min(k).min(p) >= SMALL_MODULI_FROM => TensorSplit::SmallModuli,
            _ => TensorSplit::BytePlanes,
        }
    }

    /// Keeps the lifting's rows as given (`None`, the default: in shared memory where
    /// they fit, else in global memory); tests force either.
    pub fn set_lift_rows(&self, rows: Option<LiftRows>) {
        let (mode, blocks) = match rows {
            None => (0, 0),
            Some(LiftRows::Shared) => (1, 0),
            Some(LiftRows::Global { blocks }) => (2, blocks.unwrap_or(0)),
        };
        self.lift_blocks.store(blocks, Ordering::Relaxed);
        self.lift_rows.store(mode, Ordering::Relaxed);
    }

    /// Where the lifting's rows are kept: `None` by fit, else as set.
    pub fn lift_rows(&self) -> Option<LiftRows> {
        match self.lift_rows.load(Ordering::Relaxed) {
            1 => Some(LiftRows::Shared),
            2 => Some(LiftRows::Global {
                blocks: Some(self.lift_blocks.load(Ordering::Relaxed)).filter(|&b| b > 0),
            }),
            _ => None,
        }
    }

    /// Lifts by the product of `primes` primes a step where the lifting reads its
    /// matrices from global memory (`None`, the default: as many as
    /// `launch::lift_layout` finds room for; capped at
    /// `rns_core::launch::LIFT_GLOBAL_MAX_PRIMES`); tests and benchmarks set it.
    pub fn set_lift_primes(&self, primes: Option<usize>) {
        self.lift_primes
            .store(primes.unwrap_or(0), Ordering::Relaxed);
    }

    /// The primes a lifting step from global memory is asked for: `None` by room.
    pub fn lift_primes(&self) -> Option<usize> {
        Some(self.lift_primes.load(Ordering::Relaxed)).filter(|&k| k > 0)
    }

    /// Whether the lifting from global memory streams its rows through rings of shared
    /// memory where they fit (`true`, the default) or always loads them into registers;
    /// tests and benchmarks set it.
    pub fn set_lift_ring(&self, on: bool) {
        self.lift_ring.store(on, Ordering::Relaxed);
    }

    /// Whether the rings may be taken ([`GpuConfig::set_lift_ring`]).
    pub fn lift_ring(&self) -> bool {
        self.lift_ring.load(Ordering::Relaxed)
    }

    /// Whether the products by small moduli on the tensor cores take Hopper's warpgroup
    /// products (`rns_matmul_wgmma`, `true`, the default, on 9.0 devices) or the
    /// warp-level ones every device of 8.0 or newer has (`rns_matmul_ozaki`); tests and
    /// benchmarks set it.
    pub fn set_wgmma(&self, on: bool) {
        self.wgmma.store(on, Ordering::Relaxed);
    }

    /// Whether the warpgroup products may be taken ([`GpuConfig::set_wgmma`]).
    pub fn wgmma(&self) -> bool {
        self.wgmma.load(Ordering::Relaxed)
    }

    /// Splits each step's sums of the block lifting into `ranges` ranges of terms
    /// (`None`, the default: as `launch::block_split` finds by the tiles' count; clamped
    /// there); tests and benchmarks set it.
    pub fn set_block_split(&self, ranges: Option<usize>) {
        self.block_split
            .store(ranges.unwrap_or(0), Ordering::Relaxed);
    }

    /// The block lifting's split as asked: `None` by size.
    pub fn block_split(&self) -> Option<usize> {
        Some(self.block_split.load(Ordering::Relaxed)).filter(|&k| k > 0)
    }

    /// How long the device may make no progress before a call gives up with
    /// [`crate::Error::GpuStalled`] (`None`: [`STALL_LIMIT`], or `RNS_GPU_STALL_S`): a
    /// wait of one launch's blocks for each other that long ends the launch, and the
    /// host waits for queued work up to the larger of this and 20 times the call's own
    /// estimate ([`super::watch::Expecting`]).
    pub fn set_stall_limit(&self, limit: Option<Duration>) {
        let ms = limit
            .unwrap_or(STALL_LIMIT)
            .as_millis()
            .clamp(1, u64::MAX as u128);
        self.stall_ms.store(ms as u64, Ordering::Relaxed);
    }

    /// The stall limit.
    pub fn stall_limit(&self) -> Duration {
        Duration::from_millis(self.stall_ms.load(Ordering::Relaxed))
    }

    /// Arms a test fault: the `nth` allocation, copy, launch… of this device from now on
    /// fails as the driver would fail it (`None` disarms). See [`super::fault`].
    pub fn set_fault(&self, fault: Option<Fault>) {
        self.faults.set(fault);
    }

    /// Whether the fault armed last has failed an operation yet.
    pub fn fault_fired(&self) -> bool {
        self.faults.fired()
    }

    /// Counts one operation at `site` against the armed fault: its error when this is
    /// the occurrence to fail.
    pub(crate) fn check_fault(&self, site: FaultSite) -> Result<()> {
        self.faults.check(site)
    }
}
