//! The double-precision launches of the determinant's floating-point bound: the tiled
//! product `rns_f64_gemm`, the diagonal block's Cholesky factor and inverse
//! `rns_f64_cholesky_block`, and the column sums of squares `rns_f64_column_squares`.
//! Matrices are row-major `f64` in word buffers (two words an entry), each operand a
//! [`F64View`]: its first entry and its row stride.

use super::{grid_limit, launch, need, GRID_YZ};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use rayon::prelude::*;
use rns_core::launch::{
    f64_cholesky_smem_bytes, F64_CHOLESKY_BLOCK, F64_GEMM_SMEM_BYTES, F64_GEMM_THREADS,
    F64_SQUARES_ROWS, F64_TILE,
};
use std::sync::Arc;

/// Words of one `f64` entry.
pub const F64_WORDS: usize = 2;

/// `values` as device words, two an entry (low word first).
pub fn f64_words(values: &[f64]) -> Vec<u32> {
    let mut words = vec![0u32; F64_WORDS * values.len()];
    words
        .par_chunks_mut(F64_WORDS)
        .zip(values.par_iter())
        .for_each(|(w, x)| w.copy_from_slice(&[x.to_bits() as u32, (x.to_bits() >> 32) as u32]));
    words
}

/// The `f64` entries whose words (as [`f64_words`] lays them) `words` holds.
pub fn words_f64(words: &[u32]) -> Vec<f64> {
    words
        .chunks_exact(F64_WORDS)
        .map(|p| f64::from_bits(p[0] as u64 | (p[1] as u64) << 32))
        .collect()
}

/// An operand inside a row-major `f64` buffer: entry `(i, j)` at `first + i·ld + j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct F64View {
    /// Index of entry `(0, 0)`.
    pub first: usize,
    /// Entries from one row to the next.
    pub ld: usize,
}

impl F64View {
    /// Entry `(i, j)` of an `ld`-wide matrix as the first of a view with its stride.
    pub fn at(ld: usize, i: usize, j: usize) -> F64View {
        F64View {
            first: i * ld + j,
            ld,
        }
    }

    /// Entries of the buffer a `rows × cols` operand in this view reaches.
    fn reach(&self, rows: usize, cols: usize) -> usize {
        match rows * cols {
            0 => 0,
            _ => self.first + (rows - 1) * self.ld + cols,
        }
    }
}

/// One product `C (+)= ±op(A)·B` of `rns_f64_gemm`: `C` is `m × n`, the inner length
/// `k`, `mode` a sum of `rns_core::launch::F64_*` bits.
#[derive(Clone, Copy, Debug)]
pub struct F64Gemm {
    /// `(m, n, k)`.
    pub shape: (usize, usize, usize),
    /// Views of `C`, `A` and `B`.
    pub views: (F64View, F64View, F64View),
    /// `F64_TRANS_A | F64_ACCUMULATE | F64_NEGATE | F64_UPPER_ONLY | F64_B_UPPER`.
    pub mode: u32,
}

/// `rns_f64_gemm` as `g` says, `c` written, `a` and `b` read (`c` may be `a` or `b`'s
/// buffer only where the regions do not overlap; the caller's duty).
pub fn launch_f64_gemm(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    g: &F64Gemm,
    c: &mut CudaSlice<u32>,
    (a, b): (&CudaSlice<u32>, &CudaSlice<u32>),
) -> Result<()> {
    let Some((cfg, [mu, nu, ku, ldc, lda, ldb], [c0, a0, b0])) = gemm_launch(g, c, a, b)? else {
        return Ok(());
    };
    let f = &gpu.kernels().f64_gemm;
    launch!(gpu, stream, f, cfg, c, a, b, &c0, &a0, &b0, &mu, &nu, &ku, &ldc, &lda, &ldb, &g.mode)
}

/// [`launch_f64_gemm`] with `A` in `C`'s own buffer (`c`), where the two regions do not
/// overlap (the caller's duty: a block of a triangular matrix from the others).
pub fn launch_f64_gemm_into(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    g: &F64Gemm,
    c: &mut CudaSlice<u32>,
    b: &CudaSlice<u32>,
) -> Result<()> {
    let Some((cfg, [mu, nu, ku, ldc, lda, ldb], [c0, a0, b0])) = gemm_launch(g, c, c, b)? else {
        return Ok(());
    };
    if g.mode & rns_core::launch::F64_TRANS_A != 0 {
        return Err(Error::Internal("a transposed A in C's buffer".into()));
    }
    let a_ptr = {
        let (p, _record) = c.device_ptr_mut(stream);
        p
    };
    let f = &gpu.kernels().f64_gemm;
    launch!(
        gpu, stream, f, cfg, c, &a_ptr, b, &c0, &a0, &b0, &mu, &nu, &ku, &ldc, &lda, &ldb, &g.mode
    )
}

/// `g`'s operands checked against the buffers `c`, `a`, `b` hold, then its launch
/// geometry, its `u32` sizes (`m, n, k, ldc, lda, ldb`) and its first entries; `None`
/// for an empty product.
#[allow(clippy::type_complexity)]
fn gemm_launch(
    g: &F64Gemm,
    c: &CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
) -> Result<Option<(LaunchConfig, [u32; 6], [u64; 3])>> {
    let (m, n, k) = g.shape;
    if m == 0 || n == 0 {
        return Ok(None);
    }
    let (vc, va, vb) = g.views;
    let (ar, ac) = match g.mode & rns_core::launch::F64_TRANS_A != 0 {
        true => (k, m),
        false => (m, k),
    };
    need("f64 product", c, F64_WORDS * vc.reach(m, n))?;
    need("f64 factor A", a, F64_WORDS * va.reach(ar, ac))?;
    need("f64 factor B", b, F64_WORDS * vb.reach(k, n))?;
    let small = |v: usize| u32::try_from(v).map_err(|_| Error::Shape(format!("{v} past u32")));
    let sizes = [m, n, k, vc.ld, va.ld, vb.ld].map(small);
    let [mu, nu, ku, ldc, lda, ldb] = sizes;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("f64 tiles", n.div_ceil(F64_TILE), i32::MAX as usize)?,
            grid_limit("f64 tile rows", m.div_ceil(F64_TILE), GRID_YZ)?,
            1,
        ),
        block_dim: (F64_GEMM_THREADS, 1, 1),
        shared_mem_bytes: F64_GEMM_SMEM_BYTES as u32,
    };
    let firsts = [vc.first, va.first, vb.first].map(|v| v as u64);
    Ok(Some((cfg, [mu?, nu?, ku?, ldc?, lda?, ldb?], firsts)))
}

/// `rns_f64_cholesky_block`: the `w × w` diagonal block at `(k0, k0)` of the `ld`-wide
/// symmetric `g` factored into `r` (`Rᵀ·R`) and inverted into `z`, the inverse's
/// diagonal into `diag`, `info[0]` set to 1 on a pivot that is not positive.
#[allow(clippy::too_many_arguments)]
pub fn launch_f64_cholesky_block(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (ld, k0, w): (usize, usize, usize),
    (r, z): (&mut CudaSlice<u32>, &mut CudaSlice<u32>),
    diag: &mut CudaSlice<u32>,
    info: &mut CudaSlice<u32>,
    g: &CudaSlice<u32>,
) -> Result<()> {
    if w == 0 || w > F64_CHOLESKY_BLOCK || k0 + w > ld {
        return Err(Error::Internal(format!(
            "a Cholesky block of {w} at {k0} of {ld} (at most {F64_CHOLESKY_BLOCK})"
        )));
    }
    let words = F64_WORDS * ld * ld;
    for (what, buf) in [("gram", g), ("factor", &*r), ("inverse", &*z)] {
        need(what, buf, words)?;
    }
    need("inverse's diagonal", diag, F64_WORDS * ld)?;
    need("info", info, 1)?;
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: f64_cholesky_smem_bytes(w) as u32,
    };
    let [ldu, k0u, wu] = [ld, k0, w].map(|v| v as u32);
    let f = &gpu.kernels().f64_cholesky_block;
    launch!(gpu, stream, f, cfg, r, z, diag, info, g, &ldu, &k0u, &wu)
}

/// Pieces of rows `rns_f64_column_squares` sums a column in, for `rows` rows.
pub fn column_square_pieces(rows: usize) -> usize {
    rows.div_ceil(F64_SQUARES_ROWS).max(1)
}

/// `rns_f64_column_squares`: each column's sum of squares of the `rows × cols` operand
/// `m` into `out`, by pieces of rows ([`column_square_pieces`] partial sums a column,
/// piece-major).
pub fn launch_f64_column_squares(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (rows, cols): (usize, usize),
    out: &mut CudaSlice<u32>,
    (mat, view): (&CudaSlice<u32>, F64View),
) -> Result<()> {
    if rows == 0 || cols == 0 {
        return Ok(());
    }
    let pieces = column_square_pieces(rows);
    need("column squares", out, F64_WORDS * pieces * cols)?;
    need("squared matrix", mat, F64_WORDS * view.reach(rows, cols))?;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("f64 columns", cols.div_ceil(256), i32::MAX as usize)?,
            grid_limit("f64 row pieces", pieces, GRID_YZ)?,
            1,
        ),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let (m0, [ru, cu, ldu]) = (view.first as u64, [rows, cols, view.ld].map(|v| v as u32));
    let f = &gpu.kernels().f64_column_squares;
    launch!(gpu, stream, f, cfg, out, mat, &m0, &ru, &cu, &ldu)
}

/// `rns_f64_fma_chain` over `len` inputs, `iters` steps of eight chains each (the
/// roofline's double-precision limit).
pub fn launch_f64_fma_chain(
    gpu: &Gpu,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    (len, iters): (usize, u32),
) -> Result<()> {
    need("fma chain output", out, F64_WORDS * len)?;
    need("fma chain input", a, F64_WORDS * len)?;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("fma chains", len.div_ceil(256), i32::MAX as usize)?,
            1,
            1,
        ),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let lu = u32::try_from(len).map_err(|_| Error::Shape(format!("{len} past u32")))?;
    let f = &gpu.kernels().f64_fma_chain;
    launch!(gpu, gpu.stream(), f, cfg, out, a, &lu, &iters)
}

/// `rns_f64_from_limbs`: the `count` entries whose `limbs` signed limbs `words` holds
/// (limb-major) as `f64` into `out`.
pub fn launch_f64_from_limbs(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (count, limbs): (usize, usize),
    out: &mut CudaSlice<u32>,
    words: &CudaSlice<u32>,
) -> Result<()> {
    if limbs == 0 || limbs > 4 {
        return Err(Error::Internal(format!("{limbs} limbs to f64 (1 to 4)")));
    }
    need("f64 entries", out, F64_WORDS * count)?;
    need("limbs", words, limbs * count)?;
    let cfg = LaunchConfig {
        grid_dim: (count.div_ceil(256).clamp(1, 65_535) as u32, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let (c, l) = (count as u64, limbs as u32);
    let f = &gpu.kernels().f64_from_limbs;
    launch!(gpu, stream, f, cfg, out, words, &c, &l)
}
