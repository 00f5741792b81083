//! Blocked LU modulo one prime per block: the fused determinant `rns_det_blocked`, and
//! the panel kernels of the factorizations whose trailing updates run as batched
//! products on the tensor cores (`rns_lu_panel`, `rns_lu_rows`, `rns_lu_upper`).

use super::linalg::{for_each_entry, pivot_step, stage_tiles, tile_products, Quad};
use core::arch::nvptx::*;
use rns_core::launch::{MM_A_STRIDE, MM_TILE, MM_TK};
use rns_core::Modulus;

/// Factors the panel of columns `k0..k1` (at most `MM_TK` = 16) of the `n × cols`
/// matrix `at` in place, by the whole block: per column a [`pivot_step`] over rows
/// `k..n` (rows swapped from column `from ≤ k0` to `cols`: the multipliers of earlier columns still to be used
/// move with their rows), the multipliers below the diagonal, and the panel's columns
/// right of the pivot updated (the rest of each row is left to [`solve_panel_rows`] and
/// the trailing update). A group of 16 lanes per row, lane `t` on column `k0 + t`, so
/// that a row's panel entries are read and written together (coalesced); the pivot
/// column's entry reaches the group by a shuffle. The running determinant is `ctl[1]`.
/// `false` (for every thread) when a column has no pivot: the matrix is singular modulo
/// the prime. Ends with a barrier.
#[inline(always)]
unsafe fn factor_panel(
    ctl: *mut u32,
    at: impl Fn(u32, u32) -> *mut u32 + Copy,
    (k0, k1, n): (u32, u32, u32),
    (from, cols): (u32, u32),
    m: Modulus,
    tid: u32,
    nt: u32,
) -> bool {
    let (t, groups) = (tid % 16, nt / 16);
    let j = k0 + t;
    let live = j < k1;
    let mask = 0xFFFFu32 << (tid % 32 / 16 * 16);
    let mut k = k0;
    while k < k1 {
        let Some(inv) = pivot_step(ctl, at, (k, k, from), (n, cols), m, tid, nt) else {
            return false;
        };
        let right = live && j > k;
        let pivot_row = if right { *at(k, j) } else { 0 };
        // Four rows per group at a time, all loads first: the loop is bound by the
        // memory's latency, not by its arithmetic. Whether a row exists is the same for
        // the whole group, which the shuffle needs.
        let mut i = k + 1 + tid / 16;
        while i < n {
            let rows = [i, i + groups, i + 2 * groups, i + 3 * groups];
            let load = |r: u32| if live && r < n { *at(r, j) } else { 0 };
            let x = [load(rows[0]), load(rows[1]), load(rows[2]), load(rows[3])];
            macro_rules! row {
                ($q:literal) => {
                    if rows[$q] < n {
                        let l = m.mul(shuffle16(x[$q], k - k0, mask), inv);
                        if j == k {
                            *at(rows[$q], j) = l;
                        } else if right && l != 0 {
                            *at(rows[$q], j) = m.sub(x[$q], m.mul(l, pivot_row));
                        }
                    }
                };
            }
            row!(0);
            row!(1);
            row!(2);
            row!(3);
            i += 4 * groups;
        }
        _syncthreads();
        k += 1;
    }
    true
}

/// `x` of lane `src` of this thread's group of 16 lanes (`mask`: the group's lanes,
/// all of which call this together).
#[inline(always)]
unsafe fn shuffle16(x: u32, src: u32, mask: u32) -> u32 {
    let r: u32;
    core::arch::asm!(
        "shfl.sync.idx.b32 {r}, {x}, {src}, 0x101f, {mask};",
        r = out(reg32) r,
        x = in(reg32) x,
        src = in(reg32) src,
        mask = in(reg32) mask,
    );
    r
}

/// [`factor_panel`] by a block of 256 threads; when the matrix is singular modulo the
/// prime, writes 0 to `det` and returns `false` (for every thread).
#[inline(always)]
unsafe fn factor_or_zero(
    ctl: *mut u32,
    at: impl Fn(u32, u32) -> *mut u32 + Copy,
    panel: (u32, u32, u32),
    swaps: (u32, u32),
    m: Modulus,
    det: *mut u32,
    tid: u32,
) -> bool {
    let done = factor_panel(ctl, at, panel, swaps, m, tid, 256);
    if !done && tid == 0 {
        *det = 0;
    }
    done
}

/// Rows `k0..k1` of a factored panel (columns `k0..k1`) in columns `c0..c1` right of
/// it: `U12 = L11⁻¹ · A12` in place, one column per thread. Ends with a barrier.
#[inline(always)]
unsafe fn solve_panel_rows(
    at: impl Fn(u32, u32) -> *mut u32,
    (k0, k1): (u32, u32),
    (c0, c1): (u32, u32),
    m: Modulus,
    tid: u32,
    nt: u32,
) {
    let mut j = c0 + tid;
    while j < c1 {
        let mut r = k0 + 1;
        while r < k1 {
            let mut s = *at(r, j);
            let mut q = k0;
            while q < r {
                s = m.sub(s, m.mul(*at(r, q), *at(q, j)));
                q += 1;
            }
            *at(r, j) = s;
            r += 1;
        }
        j += nt;
    }
    _syncthreads();
}

/// The dynamic shared memory of the blocked determinant kernels (`DET_SMEM_BYTES`): the
/// staged A and B tiles of [`update_tiles`], then three control words (pivot row,
/// running determinant, pivot inverse).
#[inline(always)]
unsafe fn det_shared() -> (*mut i32, *mut i32, *mut u32) {
    let quads: *mut Quad = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Quad>();
    let sa = quads as *mut i32;
    let sb = sa.add((MM_TK * MM_A_STRIDE) as usize);
    (sa, sb, sb.add((MM_TK * MM_TILE) as usize) as *mut u32)
}

/// One panel step of the LU factorization whose trailing updates run as separate
/// batched products (on the tensor cores, `rns_matmul_ozaki`): for channel
/// `c = blockIdx.x` of the `n × cols` matrices (`cols ≥ n`, row-major) at
/// `mats + c·n·cols`, the panel of columns `k0..k1` is factored, pivoting on rows
/// `k0..n` (whole rows swapped from column `k0` on), so that with `rns_lu_rows`
/// (`U12 = L11⁻¹ · A12` on rows `k0..k1`, columns `k1..cols`) only `A22 −= L21 · U12`
/// is left. Within the panel the steps of `rns_det_blocked`, by sub-panels of `MM_TK`
/// columns ([`factor_panel`], [`solve_panel_rows`], [`update_tiles`]) on the panel's
/// columns only. The running determinant of the first `n` columns is kept in `dets[c]`
/// (started at 1 when `k0 = 0`; 0 once singular, after which the channel's later panels
/// do nothing). A block of 16 × 16 threads; dynamic shared memory `DET_SMEM_BYTES`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_lu_panel(
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
    cols: u32,
    k0: u32,
    k1: u32,
) {
    let (sa, sb, ctl) = det_shared();
    let c = _block_idx_x() as usize;
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    let det = if k0 == 0 { 1 } else { *dets.add(c) };
    if det == 0 || k1 > n || k0 >= k1 || cols < n {
        return;
    }
    let m = *moduli.add(c);
    let a = mats.add(c * n as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    if tid == 0 {
        *ctl.add(1) = det;
    }
    // The panel, by sub-panels, its columns only: every row swap then moves whole rows
    // whose part right of the panel is still untouched.
    let sub = |s0: u32| if k1 - s0 < MM_TK { k1 } else { s0 + MM_TK };
    let mut s0 = k0;
    while s0 < k1 {
        let s1 = sub(s0);
        // The whole panel's multipliers feed the trailing product: swaps start at k0.
        if !factor_or_zero(ctl, at, (s0, s1, n), (k0, cols), m, dets.add(c), tid) {
            return;
        }
        solve_panel_rows(at, (s0, s1), (s1, k1), m, tid, nt);
        update_tiles((sa, sb), at, (s0, s1), (s1, n), (s1, k1), m, (tx, ty));
        s0 = s1;
    }
    if tid == 0 {
        *dets.add(c) = *ctl.add(1);
    }
}

/// The rows `k0..k1` right of a panel that `rns_lu_panel` factored: `U12 = L11⁻¹ · A12`
/// in place (columns `k1..cols`) by the panel's sub-panels of `MM_TK`
/// ([`solve_panel_rows`], [`update_tiles`]), for channel `c = blockIdx.x` unless its
/// determinant `dets[c]` is already 0. A kernel of its own so that each part fits the
/// registers of three blocks per SM. A block of 16 × 16 threads; dynamic shared memory
/// as `rns_lu_panel`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_lu_rows(
    dets: *const u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
    cols: u32,
    k0: u32,
    k1: u32,
) {
    let (sa, sb, _) = det_shared();
    let Some(m) = live_channel(dets, moduli, (n, cols), (k0, k1)) else {
        return;
    };
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    let a = mats.add(_block_idx_x() as usize * n as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let mut s0 = k0;
    while s0 < k1 {
        let s1 = if k1 - s0 < MM_TK { k1 } else { s0 + MM_TK };
        solve_panel_rows(at, (s0, s1), (k1, cols), m, tid, nt);
        update_tiles((sa, sb), at, (s0, s1), (s1, k1), (k1, cols), m, (tx, ty));
        s0 = s1;
    }
}

/// Channel `blockIdx.x`'s modulus, unless its determinant `dets[c]` is already 0 or
/// the panel `k0..k1` does not fit its `n × cols` matrix.
#[inline(always)]
unsafe fn live_channel(
    dets: *const u32,
    moduli: *const Modulus,
    (n, cols): (u32, u32),
    (k0, k1): (u32, u32),
) -> Option<Modulus> {
    let c = _block_idx_x() as usize;
    if *dets.add(c) == 0 || k1 > n || k0 >= k1 || cols < n {
        return None;
    }
    Some(*moduli.add(c))
}

/// The Gauss–Jordan step after `rns_lu_rows` and the update below the panel: the rows
/// `k0..k1` right of the panel become `R = U11⁻¹ · U12` in place (columns `k1..cols`),
/// so that the rows above the panel need only `A[..k0, k1..] −= A[..k0, k0..k1] · R`.
/// By the panel's sub-panels of `MM_TK` from the last: each is solved by back
/// substitution (its pivots' inverses staged in shared memory), then subtracted from
/// the panel's rows above it ([`update_tiles`]). For channel `c = blockIdx.x` unless
/// `dets[c]` is 0. A block of 16 × 16 threads; dynamic shared memory as `rns_lu_panel`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_lu_upper(
    dets: *const u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
    cols: u32,
    k0: u32,
    k1: u32,
) {
    let (sa, sb, _) = det_shared();
    let Some(m) = live_channel(dets, moduli, (n, cols), (k0, k1)) else {
        return;
    };
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    let a = mats.add(_block_idx_x() as usize * n as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let inverses = sa as *mut u32;
    let mut s1 = k1;
    while s1 > k0 {
        let s0 = if s1 - k0 < MM_TK { k0 } else { s1 - MM_TK };
        if tid < s1 - s0 {
            let r = s0 + tid;
            *inverses.add(tid as usize) = m.inv(*at(r, r)).unwrap_or(0);
        }
        _syncthreads();
        let mut j = k1 + tid;
        while j < cols {
            let mut r = s1;
            while r > s0 {
                r -= 1;
                let mut s = *at(r, j);
                let mut q = r + 1;
                while q < s1 {
                    s = m.sub(s, m.mul(*at(r, q), *at(q, j)));
                    q += 1;
                }
                *at(r, j) = m.mul(s, *inverses.add((r - s0) as usize));
            }
            j += nt;
        }
        _syncthreads();
        update_tiles((sa, sb), at, (s0, s1), (k0, s0), (k1, cols), m, (tx, ty));
        s1 = s0;
    }
}

/// `A[r0..r1, c0..c1] −= A[r0..r1, k0..k1] · A[k0..k1, c0..c1]` (inner dimension at most
/// `MM_TK`) for the matrix `at`, by the whole 16 × 16 block in 64 × 64 tiles
/// staged in shared memory `sa`, `sb` (as `rns_matmul`), delayed reduction.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn update_tiles(
    (sa, sb): (*mut i32, *mut i32),
    at: impl Fn(u32, u32) -> *mut u32,
    (k0, k1): (u32, u32),
    (r0, r1): (u32, u32),
    (c0, c1): (u32, u32),
    m: Modulus,
    (tx, ty): (u32, u32),
) {
    let (tid, t) = (ty * 16 + tx, m.fold_factor());
    if c0 >= c1 {
        return;
    }
    let mut tile = (r0, c0);
    while tile.0 < r1 {
        let (row0, col0) = tile;
        stage_tiles(
            sa,
            sb,
            tid,
            |r, kk| {
                let (gi, gk) = (row0 + r, k0 + kk);
                if gi < r1 && gk < k1 {
                    m.center(*at(gi, gk))
                } else {
                    0
                }
            },
            |kk, col| {
                let (gk, gj) = (k0 + kk, col0 + col);
                if gk < k1 && gj < c1 {
                    m.center(*at(gk, gj))
                } else {
                    0
                }
            },
        );
        _syncthreads();
        let mut acc = [[0i64; 4]; 4];
        tile_products(&mut acc, sa, sb, tx, ty, t);
        for_each_entry(&acc, |i, j, s| {
            let (gi, gj) = (row0 + ty * 4 + i, col0 + tx * 4 + j);
            if gi < r1 && gj < c1 {
                *at(gi, gj) = m.sub(*at(gi, gj), m.reduce_i64(s));
            }
        });
        _syncthreads();
        tile.1 += MM_TILE;
        if tile.1 >= c1 {
            tile = (tile.0 + MM_TILE, c0);
        }
    }
}

/// Determinant modulo channel `c` (one block of 16 × 16 threads per channel) of the
/// `n × n` matrix at `mats + c·n²` (overwritten): blocked LU with the same pivot rule as
/// [`rns_core::linalg::eliminate`] (the first non-zero entry at or below the diagonal).
/// Per panel of 16 columns: the panel is factored in place (multipliers below the
/// diagonal; only the panel's columns are updated), the 16 rows to its right are solved
/// by the panel's unit lower triangle, and the trailing matrix is updated by
/// `rns_matmul`'s tiles with delayed reduction, so that it streams once per 16 pivots
/// instead of once per pivot. Dynamic shared memory: `(68 + 64) · 16 · 4 + 16` bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_det_blocked(
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
) {
    let (sa, sb, ctl) = det_shared();
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    if tid == 0 {
        *ctl.add(1) = 1;
    }
    let mut k0 = 0;
    while k0 < n {
        let k1 = if n - k0 < MM_TK { n } else { k0 + MM_TK };
        // Columns before the panel are never read again: swaps start at k0.
        if !factor_or_zero(ctl, at, (k0, k1, n), (k0, n), m, dets.add(c), tid) {
            return;
        }
        solve_panel_rows(at, (k0, k1), (k1, n), m, tid, nt);
        // The trailing matrix: A22 −= L21 · U12.
        update_tiles((sa, sb), at, (k0, k1), (k1, n), (k1, n), m, (tx, ty));
        k0 = k1;
    }
    if tid == 0 {
        *dets.add(c) = *ctl.add(1);
    }
}
