//! Launches of the block lifting (`device/src/kernels/dixon_block.rs`): one step of
//! Dixon's lifting for `l` right-hand sides as two tiled products over the whole grid,
//! `X = A⁻¹·Y mod p` (`rns_block_digits`) and `R ← (R − A·X)/p`, `Y = R mod p`
//! (`rns_block_update`); where the tiles are too few to fill the device
//! ([`block_split`]), each product's sums split over blocks and joined by
//! `rns_block_join_digits` and `rns_block_join_update`.

use super::{grid_limit, launch, need, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::LIFT_GLOBAL_MAX_LIMBS;
use std::sync::Arc;

/// Rows and columns of a block's tile.
const TILE: usize = rns_core::launch::BLOCK_LIFT_TILE;
/// Words of a staged tile (`TILE` rows of `TILE + 1`).
const TILE_WORDS: usize = TILE * (TILE + 1);

/// Blocks a multiprocessor that the split aims for.
const BLOCKS_PER_SM: usize = 4;
/// The most ranges a block step's sums are split into.
pub const MAX_SPLIT: usize = 16;

/// The ranges of terms a step's sums of an `n × n` system with `l` right-hand sides are
/// split into on `gpu` (1: none): enough for four blocks a multiprocessor
/// where the `32 × 32` tiles are fewer, at most one a tile of terms and [`MAX_SPLIT`];
/// `GpuConfig::set_block_split` forces it (clamped to the same bounds).
pub fn block_split(gpu: &Gpu, n: usize, l: usize) -> usize {
    let (k_tiles, tiles) = (n.div_ceil(TILE), n.div_ceil(TILE) * l.div_ceil(TILE));
    let most = k_tiles.clamp(1, MAX_SPLIT);
    match gpu.config().block_split() {
        Some(s) => s.clamp(1, most),
        None => (BLOCKS_PER_SM * gpu.multiprocessors())
            .div_ceil(tiles.max(1))
            .clamp(1, most),
    }
}

/// Device words of the partial sums of a split step: `4·n·l` a range (the update's
/// 128-bit sums; the digits' use a quarter of them first).
pub fn block_split_words(n: usize, l: usize, split: usize) -> usize {
    if split > 1 {
        4 * split * n * l
    } else {
        0
    }
}

/// The shape and constants of a block lifting's step.
#[derive(Clone, Copy, Debug)]
pub struct BlockStep {
    /// Rows of `A`.
    pub n: usize,
    /// Right-hand sides.
    pub l: usize,
    /// Limbs per entry of `A` (1 to `LIFT_GLOBAL_MAX_LIMBS`).
    pub limbs: usize,
    /// `p⁻¹ mod 2^128`.
    pub p_inv: u128,
    /// Ranges the sums are split into ([`block_split`]).
    pub split: usize,
}

/// The state of a block lifting on the device: residuals (`4·n·l` words), `Y`
/// (`n·l`), and the current step's digits (`n·l`) and row 0's (`l`), views into the
/// lifting's digit buffers.
pub struct BlockState<'a> {
    /// `R`, two 64-bit words an entry.
    pub r: &'a mut CudaSlice<u32>,
    /// `R mod p`, centered.
    pub y: &'a mut CudaSlice<u32>,
    /// The step's digits.
    pub x: cudarc::driver::CudaViewMut<'a, u32>,
    /// The step's row 0 digits.
    pub first: cudarc::driver::CudaViewMut<'a, u32>,
    /// The partial sums of a split step ([`block_split_words`]).
    pub partial: &'a mut CudaSlice<u32>,
}

/// The launch shape of both kernels: a block of 16 × 16 threads per 32 × 32 tile.
fn tiles(n: usize, l: usize, split: usize, smem: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (
            grid_limit("block lifting columns", l.div_ceil(TILE), 1 << 31)?,
            grid_limit("block lifting rows", n.div_ceil(TILE), GRID_YZ)?,
            grid_limit("block lifting split", split, MAX_SPLIT)?,
        ),
        block_dim: (TILE as u32 / 2, TILE as u32 / 2, 1),
        shared_mem_bytes: smem as u32,
    })
}

/// One step of the block lifting on `stream`: the digits `X = A⁻¹·Y mod p` into
/// `state.x` (and row 0's into `state.first`), then `R` and `Y` updated in place, from
/// `inv` (`A⁻¹ mod p`, `n × n`), `A`'s limb matrices and the prime's device words.
pub fn launch_block_step(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    step: BlockStep,
    state: BlockState<'_>,
    (inv, limbs, modulus): (&CudaSlice<u32>, &CudaSlice<u32>, &CudaSlice<u32>),
) -> Result<()> {
    let BlockStep {
        n,
        l,
        limbs: lb,
        split,
        ..
    } = step;
    if !(1..=LIFT_GLOBAL_MAX_LIMBS).contains(&lb) || n == 0 || l == 0 {
        return Err(Error::Internal(format!(
            "a block lifting of {n} rows, {l} columns and {lb} limbs"
        )));
    }
    if u32::try_from(n * n.max(l)).is_err() {
        return Err(Error::Shape(format!(
            "a {n} × {n} block lifting with {l} right-hand sides exceeds 32-bit sizes"
        )));
    }
    need("block lifting inverse", inv, n * n)?;
    need("block lifting limbs", limbs, lb * n * n)?;
    need("block lifting modulus", modulus, MODULUS_WORDS)?;
    need("block lifting residuals", state.r, 4 * n * l)?;
    need("block lifting y", state.y, n * l)?;
    if state.x.len() < n * l || state.first.len() < l {
        return Err(Error::Internal("block lifting digits too short".into()));
    }
    need(
        "block lifting partial sums",
        state.partial,
        block_split_words(n, l, split),
    )?;
    let (nn, ll, lw, ss) = (n as u32, l as u32, lb as u32, split as u32);
    let (lo, hi) = (step.p_inv as u64, (step.p_inv >> 64) as u64);
    let k = gpu.kernels();
    let BlockState {
        r,
        y,
        mut x,
        mut first,
        partial,
    } = state;
    let cfg = tiles(n, l, split, 4 * 2 * TILE_WORDS)?;
    launch!(
        gpu,
        stream,
        &k.block_digits,
        cfg,
        &mut x,
        &mut first,
        inv,
        &*y,
        modulus,
        &nn,
        &ll,
        &ss,
        &mut *partial
    )?;
    let joins = super::channel_grid(n * l, 1)?;
    if split > 1 {
        launch!(
            gpu,
            stream,
            &k.block_join_digits,
            joins,
            &mut x,
            &mut first,
            &*partial,
            modulus,
            &nn,
            &ll,
            &ss
        )?;
    }
    let cfg = tiles(n, l, split, 4 * (lb + 1) * TILE_WORDS)?;
    launch!(
        gpu,
        stream,
        &k.block_update,
        cfg,
        &mut *r,
        &mut *y,
        &mut x,
        limbs,
        modulus,
        &nn,
        &ll,
        &lw,
        &lo,
        &hi,
        &ss,
        &mut *partial
    )?;
    if split > 1 {
        launch!(
            gpu,
            stream,
            &k.block_join_update,
            joins,
            r,
            y,
            &*partial,
            modulus,
            &nn,
            &ll,
            &ss,
            &lo,
            &hi
        )?;
    }
    Ok(())
}
