//! The Hessenberg form of a few large matrices, one per prime, with the whole GPU: for
//! each column `k`, `rns_hess_pivot` (a block per prime: the subdiagonal pivot swapped in
//! by a row and column swap, the multipliers `u_i = a[i][k] / a[k+1][k]` staged and
//! column `k` cleared below the subdiagonal), `rns_hess_rows` (the whole grid: row
//! `i −= u_i · row k+1`) and `rns_hess_cols` (a warp per row: column `k+1 += Σ u_i ·
//! column i`), the steps of `rns_core::charpoly::hessenberg`. The characteristic
//! polynomial then follows by the recurrence of the leading blocks' polynomials, step `k`
//! by two launches over the whole grid: `rns_charpoly_sums` and `rns_charpoly_next`.

use super::charpoly::swap_into_subdiagonal;
use super::linalg::first_nonzero;
use super::shuffle_down;
use core::arch::nvptx::*;
use core::sync::atomic::{AtomicU64, Ordering};
use rns_core::charpoly::poly_offset;
use rns_core::launch::RECURRENCE_CHUNK;
use rns_core::Modulus;

/// Words of a channel's state: 1 when this step's column is already reduced, and the
/// pivot search's scratch.
pub const HESS_STATE_WORDS: usize = 2;

/// Rows per thread of `rns_hess_rows` (its blocks are 32 × 8 threads).
const ROWS_PER_THREAD: u32 = 4;

/// Pivot step for column `k` of channel `c = blockIdx.x`'s `n × n` matrix (`mats +
/// c·n²`): the first row `p > k` with `a[p][k] ≠ 0` swapped into row `k + 1` (columns
/// `k` on) and column `p` with column `k + 1` (every row); `u[c·n + i] = a[i][k] /
/// a[k+1][k]` and `a[i][k] = 0` for `i > k + 1`. No such row: the step is skipped.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_hess_pivot(
    mats: *mut u32,
    u: *mut u32,
    state: *mut u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
) {
    let c = _block_idx_x() as usize;
    let ctl = state.add(c * HESS_STATE_WORDS);
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let p = first_nonzero(ctl.add(1), &at, (k + 1, n), k, tid, nt);
    if p == n {
        if tid == 0 {
            *ctl = 1;
        }
        return;
    }
    if p != k + 1 {
        swap_into_subdiagonal(&at, p, k, n, tid, nt);
    }
    let m = *moduli.add(c);
    let inv = m.inv(*at(k + 1, k)).unwrap_or(0);
    let uc = u.add(c * n as usize);
    let mut i = k + 2 + tid;
    while i < n {
        *uc.add(i as usize) = m.mul(*at(i, k), inv);
        *at(i, k) = 0;
        i += nt;
    }
    if tid == 0 {
        *ctl = 0;
    }
}

/// Row `i −= u_i · row k+1` over the columns after `k`, for the rows after `k + 1`, on
/// the whole grid (z: channels, x: 32-column strips, y: groups of 32 rows).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_hess_rows(
    mats: *mut u32,
    u: *const u32,
    state: *const u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
) {
    let c = _block_idx_z() as usize;
    if *state.add(c * HESS_STATE_WORDS) != 0 {
        return;
    }
    let m = *moduli.add(c);
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
    let j = k + 1 + _block_idx_x() * 32 + _thread_idx_x();
    if j >= n {
        return;
    }
    let pivot = *at(k + 1, j);
    let uc = u.add(c * n as usize);
    let mut i = k + 2 + _block_idx_y() * 8 * ROWS_PER_THREAD + _thread_idx_y();
    let mut s = 0;
    while s < ROWS_PER_THREAD && i < n {
        let f = *uc.add(i as usize);
        if f != 0 {
            *at(i, j) = m.sub(*at(i, j), m.mul(f, pivot));
        }
        i += 8;
        s += 1;
    }
}

/// Column `k+1 += Σ_{i > k+1} u_i · column i`, a warp per row (a shuffle sum), the
/// whole grid (z: channels, x: blocks of warps).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_hess_cols(
    mats: *mut u32,
    u: *const u32,
    state: *const u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
) {
    let c = _block_idx_z() as usize;
    if *state.add(c * HESS_STATE_WORDS) != 0 {
        return;
    }
    let lane = _thread_idx_x() % 32;
    let r = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) / 32;
    if r >= n {
        return;
    }
    let m = *moduli.add(c);
    let row = mats.add(c * n as usize * n as usize + r as usize * n as usize);
    let uc = u.add(c * n as usize);
    let mut s = 0;
    let mut i = k + 2 + lane;
    while i < n {
        s = m.add(s, m.mul(*uc.add(i as usize), *row.add(i as usize)));
        i += 32;
    }
    let mut d = 16;
    while d > 0 {
        s = m.add(s, shuffle_down(s, d));
        d /= 2;
    }
    if lane == 0 {
        *row.add(k as usize + 1) = m.add(*row.add(k as usize + 1), s);
    }
}

/// Channel `c`'s prime, Hessenberg matrix (`n × n`) and polynomials
/// (`poly_offset(n + 1)` words) in the recurrence's buffers.
#[inline(always)]
unsafe fn channel(
    c: usize,
    (moduli, mats, polys): (*const Modulus, *const u32, *const u32),
    n: usize,
) -> (Modulus, *const u32, *const u32) {
    (
        *moduli.add(c),
        mats.add(c * n * n),
        polys.add(c * poly_offset(n + 1)),
    )
}

/// The sums of step `k` of the recurrence (`rns_core::charpoly::recurrence_term`) of
/// channel `c = blockIdx.z`'s Hessenberg matrix (`mats + c·n²`): for `d < k`, over the
/// block's chunk of `i` (`blockIdx.y`, 256 of them) within `d ≤ i < k`,
/// `Σ c_i·p_i(d)` with `c_i = h[i][k]·t[i]` (`t[i] = Π_{i ≤ j < k} h[j+1][j]`, kept by
/// `rns_charpoly_next`), added into `acc[c·(n + 1) + d]` (64-bit, reduced by
/// `rns_charpoly_next`). `polys` holds `p_0 … p_k` (`rns_core::charpoly::poly_offset`,
/// `poly_offset(n + 1)` words a channel). Blocks of 256 threads over `d` (`blockIdx.x`),
/// 1 KiB of dynamic shared memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_charpoly_sums(
    acc: *mut u64,
    polys: *const u32,
    mats: *const u32,
    t: *const u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
) {
    let c = _block_idx_z() as usize;
    let (nn, k) = (n as usize, k as usize);
    let (m, h, pol) = channel(c, (moduli, mats, polys), nn);
    let cs: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let tid = _thread_idx_x() as usize;
    let i0 = _block_idx_y() as usize * RECURRENCE_CHUNK;
    let i = i0 + tid;
    *cs.add(tid) = if i < k {
        m.mul(*h.add(i * nn + k), *t.add(c * nn + i))
    } else {
        0
    };
    _syncthreads();
    let d = _block_idx_x() as usize * RECURRENCE_CHUNK + tid;
    let (lo, hi) = (d.max(i0), k.min(i0 + RECURRENCE_CHUNK));
    let mut s = 0;
    let mut i = lo;
    while i < hi {
        s = m.add(s, m.mul(*cs.add(i - i0), *pol.add(poly_offset(i) + d)));
        i += 1;
    }
    if s != 0 {
        AtomicU64::from_ptr(acc.add(c * (nn + 1) + d)).fetch_add(s as u64, Ordering::Relaxed);
    }
}

/// Step `k` of the recurrence after `rns_charpoly_sums`, channel `blockIdx.y`, a thread
/// per coefficient `d ≤ k + 1` (`blockIdx.x`): `p_{k+1}(d) = p_k(d − 1) − h[k][k]·p_k(d)
/// − acc[d]`, with `acc[d]` cleared (`p_0 = 1`, written at step 0 into the zeroed
/// triangle); and for `d ≤ k`, `t[d]` (1 for `d = k`) multiplied
/// by the subdiagonal `h[k+1][k]`, for the next step.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_charpoly_next(
    polys: *mut u32,
    acc: *mut u64,
    mats: *const u32,
    t: *mut u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
) {
    let c = _block_idx_y() as usize;
    let (nn, k) = (n as usize, k as usize);
    let d = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    if d > k + 1 {
        return;
    }
    let (m, h, pol) = channel(c, (moduli, mats, polys), nn);
    let pol = pol as *mut u32;
    // p_0 = 1 (the triangle starts zeroed): read as such at step 0, written by its
    // thread 0 for the sums of the steps after.
    let coeff = |j: usize| match (j <= k, k) {
        (false, _) => 0,
        (true, 0) => 1,
        (true, _) => *pol.add(poly_offset(k) + j),
    };
    let shifted = if d == 0 { 0 } else { coeff(d - 1) };
    let a = acc.add(c * (nn + 1) + d);
    let x = m.sub(shifted, m.mul(*h.add(k * nn + k), coeff(d)));
    *pol.add(poly_offset(k + 1) + d) = m.sub(x, m.reduce_u64(*a));
    *a = 0;
    if k == 0 && d == 0 {
        *pol = 1;
    }
    if d <= k && k + 1 < nn {
        let td = t.add(c * nn + d);
        let old = if d == k { 1 } else { *td };
        *td = m.mul(old, *h.add((k + 1) * nn + k));
    }
}
