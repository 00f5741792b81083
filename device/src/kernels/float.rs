//! Double-precision kernels for the determinant's floating-point bound
//! (`host/src/backend/gpu/ops/det_bound.rs`): a tiled product, the Cholesky factor and
//! inverse of one diagonal block, and column sums of squares. Matrices are row-major
//! `f64` in word buffers (two words an entry), each argument given by its first
//! entry's index and its row stride in entries. Every product is a chain of
//! fused multiply-adds from zero in the order of the inner index, so that the usual
//! bound `|fl(A·B) − A·B| ≤ γ_k·|A|·|B|` holds for it.

use core::arch::nvptx::*;
use core::intrinsics::{fmaf64, sqrtf64};
use rns_core::launch::{
    F64_ACCUMULATE as ACCUMULATE, F64_B_UPPER as B_UPPER, F64_CHOLESKY_BLOCK, F64_DEPTH,
    F64_NEGATE as NEGATE, F64_SQUARES_ROWS, F64_TILE, F64_TRANS_A as TRANS_A,
    F64_UPPER_ONLY as UPPER_ONLY,
};

const TILE: usize = F64_TILE;
const DEPTH: usize = F64_DEPTH;
/// Row stride of a staged tile (one entry of padding against bank conflicts).
const PAD: usize = TILE + 1;

/// `C[i][j] (+)= ±Σ_l op(A)[i][l]·B[l][j]` for `i < m`, `j < n`, `l < k` (`mode` as
/// the constants above say), `C`, `A`, `B` starting at entries `c0`, `a0`, `b0` of
/// their buffers with row strides `ldc`, `lda`, `ldb`. A block of 256 threads computes
/// a 64 × 64 tile (`blockIdx.x` over columns, `blockIdx.y` over rows), each thread
/// 4 × 4 entries, staging 16 inner entries of both operands at a time in shared
/// memory (dynamic, `F64_GEMM_SMEM_BYTES`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_f64_gemm(
    c: *mut f64,
    a: *const f64,
    b: *const f64,
    c0: u64,
    a0: u64,
    b0: u64,
    m: u32,
    n: u32,
    k: u32,
    ldc: u32,
    lda: u32,
    ldb: u32,
    mode: u32,
) {
    let sa: *mut f64 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f64>();
    let sb = sa.add(DEPTH * PAD);
    let (row0, col0) = (
        _block_idx_y() as usize * TILE,
        _block_idx_x() as usize * TILE,
    );
    let (m, n, k) = (m as usize, n as usize, k as usize);
    if row0 >= m || col0 >= n || (mode & UPPER_ONLY != 0 && row0 >= col0 + TILE) {
        return;
    }
    let (c, a, b) = (c.add(c0 as usize), a.add(a0 as usize), b.add(b0 as usize));
    let (ldc, lda, ldb) = (ldc as usize, lda as usize, ldb as usize);
    let tid = _thread_idx_x() as usize;
    let (tx, ty) = (tid % 16, tid / 16);
    // B upper triangular: its rows past this tile's last column are zero.
    let depth = match mode & B_UPPER != 0 {
        true => k.min(col0 + TILE),
        false => k,
    };
    let mut acc = [[0.0f64; 4]; 4];
    let mut l0 = 0;
    while l0 < depth {
        // 64 × 16 of A and 16 × 64 of B, four entries a thread each, zero outside.
        for p in 0..4 {
            let e = tid + 256 * p;
            let (i, l) = match mode & TRANS_A != 0 {
                true => (e % TILE, e / TILE),
                false => (e / DEPTH, e % DEPTH),
            };
            let (gi, gl) = (row0 + i, l0 + l);
            *sa.add(l * PAD + i) = match gi < m && gl < depth {
                true if mode & TRANS_A != 0 => *a.add(gl * lda + gi),
                true => *a.add(gi * lda + gl),
                false => 0.0,
            };
            let (l, j) = (e / TILE, e % TILE);
            let (gl, gj) = (l0 + l, col0 + j);
            *sb.add(l * PAD + j) = match gl < depth && gj < n {
                true => *b.add(gl * ldb + gj),
                false => 0.0,
            };
        }
        _syncthreads();
        for l in 0..DEPTH {
            let x: [f64; 4] = core::array::from_fn(|r| *sa.add(l * PAD + ty + 16 * r));
            let y: [f64; 4] = core::array::from_fn(|s| *sb.add(l * PAD + tx + 16 * s));
            for r in 0..4 {
                for s in 0..4 {
                    acc[r][s] = fmaf64(x[r], y[s], acc[r][s]);
                }
            }
        }
        _syncthreads();
        l0 += DEPTH;
    }
    for (r, row) in acc.iter().enumerate() {
        let i = row0 + ty + 16 * r;
        for (s, &v) in row.iter().enumerate() {
            let j = col0 + tx + 16 * s;
            if i < m && j < n {
                let v = if mode & NEGATE != 0 { -v } else { v };
                let out = c.add(i * ldc + j);
                *out = if mode & ACCUMULATE != 0 { *out + v } else { v };
            }
        }
    }
}

/// The Cholesky factor and its inverse of the `w × w` diagonal block at `(k0, k0)` of
/// the symmetric `g` (its upper triangle read), row stride `ld`, by one block: `R`
/// (upper triangular, `Rᵀ·R = G_kk`) into `r` and `R⁻¹` into `z` at the same place,
/// zeros below their diagonals, and `R⁻¹`'s diagonal into `diag[k0..k0 + w]`.
/// A pivot that is not positive and finite sets `*info` to 1 (the results are then
/// meaningless). Dynamic shared memory `8·w·(w + 1)` bytes; `w ≤ 64`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_f64_cholesky_block(
    r: *mut f64,
    z: *mut f64,
    diag: *mut f64,
    info: *mut u32,
    g: *const f64,
    ld: u32,
    k0: u32,
    w: u32,
) {
    let s: *mut f64 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<f64>();
    let (ld, k0, w) = (ld as usize, k0 as usize, w as usize);
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    let sw = w + 1;
    let at = |i: usize, j: usize| s.add(i * sw + j);
    each_pair(0, w, (tid, nt), |i, j| {
        if i <= j {
            *at(i, j) = *g.add((k0 + i) * ld + k0 + j);
        }
    });
    _syncthreads();
    for kk in 0..w {
        let piv = *at(kk, kk);
        _syncthreads();
        let d = sqrtf64(piv);
        if tid == 0 {
            // NaN fails the comparison too.
            if !(piv > 0.0 && piv <= f64::MAX) {
                *info = 1;
            }
            *at(kk, kk) = d;
        }
        let mut j = kk + 1 + tid;
        while j < w {
            *at(kk, j) = *at(kk, j) / d;
            j += nt;
        }
        _syncthreads();
        // The trailing upper triangle: G_ij −= R_ki·R_kj for kk < i ≤ j.
        each_pair(kk + 1, w, (tid, nt), |i, j| {
            if i <= j {
                *at(i, j) = fmaf64(-*at(kk, i), *at(kk, j), *at(i, j));
            }
        });
        _syncthreads();
    }
    each_pair(0, w, (tid, nt), |i, j| {
        *r.add((k0 + i) * ld + k0 + j) = if i <= j { *at(i, j) } else { 0.0 };
        if i > j {
            *z.add((k0 + i) * ld + k0 + j) = 0.0;
        }
    });
    // R⁻¹ column by column, a thread each, by back substitution; each thread reads
    // only what it wrote.
    let mut j = tid;
    while j < w {
        let zc = z.add(k0 * ld + k0 + j);
        let zjj = 1.0 / *at(j, j);
        *zc.add(j * ld) = zjj;
        *diag.add(k0 + j) = zjj;
        let mut i = j;
        while i > 0 {
            i -= 1;
            let mut t = 0.0;
            for l in i + 1..=j {
                t = fmaf64(*at(i, l), *zc.add(l * ld), t);
            }
            let zij = -t / *at(i, i);
            *zc.add(i * ld) = zij;
        }
        j += nt;
    }
}

/// Calls `f(i, j)` for every `from ≤ i, j < to`, a warp a row at a time.
#[inline(always)]
unsafe fn each_pair(
    from: usize,
    to: usize,
    (tid, nt): (usize, usize),
    mut f: impl FnMut(usize, usize),
) {
    let mut i = from + tid / 32;
    while i < to {
        let mut j = from + tid % 32;
        while j < to {
            f(i, j);
            j += 32;
        }
        i += nt / 32;
    }
}

/// Column sums of squares of the `rows × cols` matrix at entry `m0` of `mat`, row
/// stride `ld`, in pieces of `F64_SQUARES_ROWS` rows: `out[y·cols + j] = Σ mat[i][j]²` over the rows
/// `i` of piece `y = blockIdx.y`, by fused multiply-adds in row order (the host adds
/// the pieces).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_f64_column_squares(
    out: *mut f64,
    mat: *const f64,
    m0: u64,
    rows: u32,
    cols: u32,
    ld: u32,
) {
    let j = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let (rows, cols, ld) = (rows as usize, cols as usize, ld as usize);
    let y = _block_idx_y() as usize;
    if j >= cols {
        return;
    }
    let mat = mat.add(m0 as usize);
    let (lo, hi) = (y * F64_SQUARES_ROWS, ((y + 1) * F64_SQUARES_ROWS).min(rows));
    let mut s = 0.0;
    for i in lo..hi {
        let x = *mat.add(i * ld + j);
        s = fmaf64(x, x, s);
    }
    *out.add(y * cols + j) = s;
}

/// The double-precision roof of the roofline table: for each of `len` inputs `y`, eight
/// independent chains `x ← x·y + 0.5` (fused), `iters` steps each, their sum written
/// to `out`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_f64_fma_chain(
    out: *mut f64,
    a: *const f64,
    len: u32,
    iters: u32,
) {
    let mut i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while i < len as usize {
        let y = *a.add(i);
        let mut acc: [f64; 8] = core::array::from_fn(|j| y + j as f64);
        let mut t = 0;
        while t < iters {
            for x in acc.iter_mut() {
                *x = fmaf64(*x, y, 0.5);
            }
            t += 1;
        }
        *out.add(i) = acc.iter().sum();
        i += stride;
    }
}

/// `A` from its signed limbs (limb-major: limb `t` of entry `e` at `words[t·count + e]`,
/// `x = Σ_t limb_t·2^(29t)`, every limb with the sign of `x`, `limbs ≤ 4`) as `f64`
/// into `out[e]`: `|x|` exactly as a 128-bit word, then its high and low halves rounded
/// and added (within `3.01u·|x|`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_f64_from_limbs(
    out: *mut f64,
    words: *const u32,
    count: u64,
    limbs: u32,
) {
    let count = count as usize;
    let mut e = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while e < count {
        let (mut mag, mut negative) = (0u128, false);
        for t in 0..(limbs as usize).min(4) {
            let w = *words.add(t * count + e) as i32;
            negative |= w < 0;
            mag |= (w.unsigned_abs() as u128) << (rns_core::padic::LIMB_BITS as usize * t);
        }
        let (hi, lo) = ((mag >> 64) as u64, mag as u64);
        let f = (hi as f64) * 18_446_744_073_709_551_616.0 + lo as f64;
        *out.add(e) = if negative { -f } else { f };
        e += stride;
    }
}
