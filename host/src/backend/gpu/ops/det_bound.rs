//! The factorization behind the determinant's floating-point bound
//! ([`crate::mat::det_bound_float`]) on one device, in `f64`: `G = ÃᵀÃ` (its upper
//! triangle), then by diagonal blocks of `F64_CHOLESKY_BLOCK` the Cholesky factor `R`
//! (`rns_f64_cholesky_block` factors and inverts the block; one product gives the
//! block's row of `R`, another updates the rest of `G`), then `Z = R⁻¹` by halves (two
//! products a level, as large as the halves); then `M = Ã·Z` and the column sums of squares of `Ã`, `M`, `Z`. `Ã`
//! comes from the host ([`factor`]) or from the lifting's limbs on the device
//! ([`factor_limbs`]). Four
//! `n × n` matrices live on the device at once; a matrix they do not fit gives `None`
//! (the caller keeps Hadamard's bound).

use super::dixon::DeviceLimbs;
use crate::backend::gpu::launch::float::{
    column_square_pieces, f64_words, launch_f64_cholesky_block, launch_f64_column_squares,
    launch_f64_from_limbs, launch_f64_gemm, launch_f64_gemm_into, words_f64, F64Gemm, F64View,
    F64_WORDS,
};
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::mat::det_bound_float::{Factored, Scaled};
use cudarc::driver::CudaSlice;
use rns_core::launch::{
    F64_ACCUMULATE, F64_B_UPPER, F64_CHOLESKY_BLOCK, F64_NEGATE, F64_TRANS_A, F64_UPPER_ONLY,
};

/// Device bytes of the factorization of an `n × n` matrix: `Ã`, `G` (then the inverse's
/// scratch, then `M`), `R`, `Z`, and the small outputs.
pub fn factor_bytes(n: usize) -> usize {
    let b = F64_CHOLESKY_BLOCK;
    8 * (4 * n * n + b * b + n + 3 * column_square_pieces(n) * n) + 64
}

/// The factorization of `scaled` on `gpu` ([`Factored`]); `None` when it does not fit
/// the device's budget or the Cholesky factorization meets a pivot that is not positive.
pub fn factor(gpu: &Gpu, scaled: &Scaled) -> Result<Option<Factored>> {
    let n = scaled.n;
    if n == 0 || factor_bytes(n) > gpu.budget()? {
        return Ok(None);
    }
    let a = gpu.upload_words(&f64_words(&scaled.values))?;
    factor_resident(gpu, &a, n)
}

/// [`factor`] of the matrix whose signed limbs are on `gpu` already (Dixon's lifting's),
/// converted there, unscaled (`D = I`: every exponent 0).
pub fn factor_limbs(gpu: &Gpu, limbs: &DeviceLimbs) -> Result<Option<Factored>> {
    let n = limbs.n;
    if n == 0 || factor_bytes(n) > gpu.budget()? {
        return Ok(None);
    }
    let mut a = gpu.alloc_on(gpu.stream(), F64_WORDS * n * n)?;
    launch_f64_from_limbs(
        gpu,
        gpu.stream(),
        (n * n, limbs.limbs),
        &mut a,
        limbs.words(),
    )?;
    factor_resident(gpu, &a, n)
}

/// `Z[lo..hi, lo..hi] = R[lo..hi, lo..hi]⁻¹` for the upper triangular `R` (`ld = n`)
/// whose diagonal blocks' inverses `Z` holds already (blocks of `F64_CHOLESKY_BLOCK` from
/// 0; `lo` a multiple): the halves first, then
/// `Z_12 = −Z_11·(R_12·Z_22)`, two products as large as the halves, `T` in `scratch`.
fn invert_upper(
    gpu: &Gpu,
    n: usize,
    (lo, hi): (usize, usize),
    (z, scratch): (&mut CudaSlice<u32>, &mut CudaSlice<u32>),
    r: &CudaSlice<u32>,
) -> Result<()> {
    let b = F64_CHOLESKY_BLOCK;
    if hi - lo <= b {
        return Ok(());
    }
    let mid = lo + (hi - lo).div_ceil(b) / 2 * b;
    invert_upper(gpu, n, (lo, mid), (z, scratch), r)?;
    invert_upper(gpu, n, (mid, hi), (z, scratch), r)?;
    let at = |i, j| F64View::at(n, i, j);
    let (top, right) = (mid - lo, hi - mid);
    let t = F64Gemm {
        shape: (top, right, right),
        views: (at(0, 0), at(lo, mid), at(mid, mid)),
        mode: F64_B_UPPER,
    };
    launch_f64_gemm(gpu, gpu.stream(), &t, scratch, (r, z))?;
    let z12 = F64Gemm {
        shape: (top, right, top),
        views: (at(lo, mid), at(lo, lo), at(0, 0)),
        mode: F64_NEGATE,
    };
    launch_f64_gemm_into(gpu, gpu.stream(), &z12, z, scratch)
}

/// [`factor`] of the `n × n` matrix `Ã` on `gpu` (`f64`, row-major).
fn factor_resident(gpu: &Gpu, a: &CudaSlice<u32>, n: usize) -> Result<Option<Factored>> {
    let stream = gpu.stream();
    let nn = F64_WORDS * n * n;
    let b = F64_CHOLESKY_BLOCK;
    let (mut g, mut r, mut z) = (
        gpu.alloc_on(stream, nn)?,
        gpu.zeros_on(stream, nn)?,
        gpu.zeros_on(stream, nn)?,
    );
    let mut diag = gpu.alloc_on(stream, F64_WORDS * n)?;
    let mut info = gpu.zeros_on(stream, 1)?;
    let at = |i, j| F64View::at(n, i, j);
    let gemm = |shape, views, mode| F64Gemm { shape, views, mode };
    launch_f64_gemm(
        gpu,
        stream,
        &gemm(
            (n, n, n),
            (at(0, 0), at(0, 0), at(0, 0)),
            F64_TRANS_A | F64_UPPER_ONLY,
        ),
        &mut g,
        (a, a),
    )?;
    for k0 in (0..n).step_by(b) {
        let (w, k1) = (b.min(n - k0), (k0 + b).min(n));
        launch_f64_cholesky_block(
            gpu,
            stream,
            (n, k0, w),
            (&mut r, &mut z),
            &mut diag,
            &mut info,
            &g,
        )?;
        if k1 < n {
            // The block's row of R: R_kk⁻ᵀ·G_k,rest (R_kk⁻¹ is Z's diagonal block).
            let row = gemm(
                (w, n - k1, w),
                (at(k0, k1), at(k0, k0), at(k0, k1)),
                F64_TRANS_A,
            );
            launch_f64_gemm(gpu, stream, &row, &mut r, (&z, &g))?;
            // G_rest −= R_k,restᵀ·R_k,rest (its upper triangle).
            let update = gemm(
                (n - k1, n - k1, w),
                (at(k1, k1), at(k0, k1), at(k0, k1)),
                F64_TRANS_A | F64_ACCUMULATE | F64_NEGATE | F64_UPPER_ONLY,
            );
            launch_f64_gemm(gpu, stream, &update, &mut g, (&r, &r))?;
        }
    }
    // Z = R⁻¹ from its diagonal blocks, G's place as scratch.
    invert_upper(gpu, n, (0, n), (&mut z, &mut g), &r)?;
    // M = Ã·Z into G's place.
    let m = gemm((n, n, n), (at(0, 0), at(0, 0), at(0, 0)), F64_B_UPPER);
    launch_f64_gemm(gpu, stream, &m, &mut g, (a, &z))?;
    let pieces = column_square_pieces(n);
    let mut a_squares = gpu.alloc_on(stream, F64_WORDS * pieces * n)?;
    launch_f64_column_squares(gpu, stream, (n, n), &mut a_squares, (a, at(0, 0)))?;
    let mut squares = gpu.alloc_on(stream, F64_WORDS * pieces * n)?;
    let mut z_squares = gpu.alloc_on(stream, F64_WORDS * pieces * n)?;
    launch_f64_column_squares(gpu, stream, (n, n), &mut squares, (&g, at(0, 0)))?;
    launch_f64_column_squares(gpu, stream, (n, n), &mut z_squares, (&z, at(0, 0)))?;
    let flag = gpu.download_on(stream, &info, 1)?;
    if flag[0] != 0 {
        return Ok(None);
    }
    let summed = |w: Vec<u32>| -> Vec<f64> {
        let v = words_f64(&w);
        (0..n)
            .map(|j| (0..pieces).map(|p| v[p * n + j]).sum())
            .collect()
    };
    let a_all: f64 = words_f64(&gpu.download_on(stream, &a_squares, F64_WORDS * pieces * n)?)
        .iter()
        .sum();
    Ok(Some(Factored {
        a_squares: a_all,
        m_squares: summed(gpu.download_on(stream, &squares, F64_WORDS * pieces * n)?),
        z_squares: summed(gpu.download_on(stream, &z_squares, F64_WORDS * pieces * n)?),
        z_diag: words_f64(&gpu.download_on(stream, &diag, F64_WORDS * n)?),
    }))
}
