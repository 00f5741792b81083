//! The launch layer: typed kernel launches, one file per kernel family, each with a shape
//! struct ([`shapes`]) whose lengths are checked against the buffers before the launch (a
//! short buffer is an [`Error::Internal`], never an out-of-bounds access), with the
//! launch geometry of `rns_core::launch`. `launch_built` and its cooperative twin
//! are the only places that launch (after the fault hook's check).

// Public (and used) only with the `raw-gpu` feature; crate-internal otherwise.
#![cfg_attr(
    not(feature = "raw-gpu"),
    allow(unreachable_pub, unused_imports, dead_code)
)]

mod decimal;
mod digits;
mod dixon;
mod dixon_block;
pub mod float;
mod linalg;
pub mod lu;
pub mod matmul;
pub mod panels;
pub mod redc;
pub mod resultant;
pub mod rows;
pub mod shapes;
mod vectors;

pub use decimal::{
    chunks_for, launch_decimal_text, launch_decimal_words, launch_digits_decimal, Chunks,
};
pub use digits::{
    digits_per_block, launch_carry_terms, launch_cmp, launch_compare, launch_digits,
    launch_digits_limbs, launch_digits_of, launch_interval, launch_interval_table, launch_mr_table,
};
pub use digits::{limbs_for, product_mod, MrcTables};
pub(crate) use dixon::launch_dixon_lift;
pub use dixon::{launch_limbs_mod, lift_layout};
pub use dixon::{LiftArgs, LiftLayout, LiftMatrices};
pub use dixon_block::{
    block_split, block_split_words, launch_block_step, BlockState, BlockStep, MAX_SPLIT,
};
pub use linalg::{
    launch_det, launch_eliminate, launch_gather_columns, launch_matrix_polynomial,
    launch_place_columns, launch_transpose,
};
pub use lu::{
    det_on_tensor_cores, det_scratch_words, gauss_jordan_on_tensor_cores, launch_det_tensor,
    launch_gauss_jordan_tensor, lu_scratch_words,
};
pub use matmul::View;
pub use matmul::{
    launch_matmul, matmul_scratch_words, small_moduli_planes, small_moduli_product,
    small_moduli_scratch_words, SmallPlanes,
};
pub use panels::{
    block_inverse_fits, inverse_panel, inverse_panels_scratch_words, launch_block_inverse,
    launch_inverse_panels, BlockOut,
};
pub use resultant::{
    interpolation_in_shared, launch_interpolate, launch_resultant, launch_resultant_block,
    launch_resultant_points, resultant_block_shape, resultant_block_wide, resultant_in_blocks,
};
pub use rows::{
    charpoly_recurrence_steps, eliminate_rows, eliminate_steps, hessenberg_steps, rows_layout,
    rref_steps, HESS_STATE_WORDS, RREF_STATE_WORDS,
};
pub use shapes::*;
pub use vectors::{
    launch_elementwise, launch_equal, launch_mad_chain, launch_mul_chain, launch_redc_chain,
    launch_reduce,
};

use super::driver::device::cuda;
use super::driver::fault::FaultSite;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, LaunchArgs, LaunchConfig};
use rns_core::launch::ELEMENT_THREADS;
use std::ops::Range;

/// The inputs of a mixed-radix launch: residues, offset (or none), moduli, table.
pub type DigitsInputs<'a> = (
    &'a CudaSlice<u32>,
    Option<&'a CudaSlice<u32>>,
    &'a CudaSlice<u32>,
    &'a CudaSlice<u32>,
);

/// Grid dimensions y and z (channels, rows of tiles) may not exceed this.
pub(crate) const GRID_YZ: usize = 65_535;

/// [`Error::Internal`] unless `buf` holds at least `words` words.
pub(crate) fn need(what: &str, buf: &CudaSlice<u32>, words: usize) -> Result<()> {
    if buf.len() < words {
        return Err(Error::Internal(format!(
            "{what}: a device buffer of {} words where the launch needs {words}",
            buf.len()
        )));
    }
    Ok(())
}

/// [`Error::Shape`] when `n` exceeds a grid dimension's limit.
pub(crate) fn grid_limit(what: &str, n: usize, limit: usize) -> Result<u32> {
    if n > limit {
        return Err(Error::Shape(format!(
            "{what}: {n} exceeds the GPU grid limit of {limit}"
        )));
    }
    Ok(n.max(1) as u32)
}

/// The channel ranges of a launch over `channels` channels, at most the grid's y limit
/// each: such a launch goes one range at a time, every per-channel buffer viewed from the
/// range's first channel (none for no channel).
pub(crate) fn channel_ranges(channels: usize) -> impl Iterator<Item = Range<usize>> {
    (0..channels)
        .step_by(GRID_YZ)
        .map(move |s| s..(s + GRID_YZ).min(channels))
}

/// The per-channel elementwise grid: x over numbers (grid-stride), y over `channels`
/// channels (at most [`GRID_YZ`]: see [`channel_ranges`]).
pub(crate) fn channel_grid(len: usize, channels: usize) -> Result<LaunchConfig> {
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
        $crate::backend::gpu::launch::launch_built($gpu, b, $cfg)
    }};
}
pub(crate) use launch;

/// Launches a kernel whose arguments `b` holds (the one place that launches, after
/// the fault hook's check).
pub(crate) fn launch_built(gpu: &Gpu, mut b: LaunchArgs, cfg: LaunchConfig) -> Result<()> {
    gpu.config().check_fault(FaultSite::Launch)?;
    // SAFETY: every caller checks its buffers against the shape the kernel reads.
    unsafe { b.launch(cfg) }.map_err(cuda).map(drop)
}

/// `launch_built` as a cooperative launch: every block resident at once (for
/// kernels with grid-wide barriers; too large a grid is an error, never a hang).
pub(crate) fn launch_built_cooperative(
    gpu: &Gpu,
    mut b: LaunchArgs,
    cfg: LaunchConfig,
) -> Result<()> {
    gpu.config().check_fault(FaultSite::Launch)?;
    // SAFETY: every caller checks its buffers against the shape the kernel reads.
    unsafe { b.launch_cooperative(cfg) }.map_err(cuda).map(drop)
}
