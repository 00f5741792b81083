//! Launches of the block lifting (`device/src/kernels/dixon_block.rs`): one step of
//! Dixon's lifting for `l` right-hand sides as two tiled products over the whole grid,
//! `X = A⁻¹·Y mod p` (`rns_block_digits`) and `R ← (R − A·X)/p`, `Y = R mod p`
//! (`rns_block_update`).

use super::{grid_limit, launch, need, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::LIFT_GLOBAL_MAX_LIMBS;
use std::sync::Arc;

/// Rows and columns of a block's tile (`dixon_block.rs`'s `TILE`).
const TILE: usize = 32;
/// Words of a staged tile (`TILE` rows of `TILE + 1`).
const TILE_WORDS: usize = TILE * (TILE + 1);

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
}

/// The launch shape of both kernels: a block of 16 × 16 threads per 32 × 32 tile.
fn tiles(n: usize, l: usize, smem: usize) -> Result<LaunchConfig> {
    Ok(LaunchConfig {
        grid_dim: (
            grid_limit("block lifting columns", l.div_ceil(TILE), 1 << 31)?,
            grid_limit("block lifting rows", n.div_ceil(TILE), GRID_YZ)?,
            1,
        ),
        block_dim: (16, 16, 1),
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
        n, l, limbs: lb, ..
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
    let (nn, ll, lw) = (n as u32, l as u32, lb as u32);
    let (lo, hi) = (step.p_inv as u64, (step.p_inv >> 64) as u64);
    let k = gpu.kernels();
    let BlockState {
        r,
        y,
        mut x,
        mut first,
    } = state;
    let cfg = tiles(n, l, 4 * 2 * TILE_WORDS)?;
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
        &ll
    )?;
    let cfg = tiles(n, l, 4 * (lb + 1) * TILE_WORDS)?;
    launch!(
        gpu,
        stream,
        &k.block_update,
        cfg,
        r,
        y,
        &mut x,
        limbs,
        modulus,
        &nn,
        &ll,
        &lw,
        &lo,
        &hi
    )
}
