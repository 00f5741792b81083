//! Kernels on matrices modulo one prime per block (or per grid z): elimination, the
//! batched product with delayed reduction, the blocked determinant.

use core::arch::nvptx::*;
use core::sync::atomic::{AtomicU32, Ordering};
use rns_core::launch::{MM_A_STRIDE, MM_TILE, MM_TK};
use rns_core::Modulus;

/// One pivot step of the elimination kernels, by the whole block: finds the first row
/// `p` of `r..rows` with a non-zero entry in column `k`, swaps rows `p` and `r` from
/// column `from` on, multiplies the running determinant `ctl[1]` by the pivot (negated
/// after a swap) and returns the pivot's inverse; `None`, for every thread, when the
/// column has no pivot. `ctl` is three words of shared memory (pivot row, determinant,
/// inverse). Starts after a barrier and ends with one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn pivot_step(
    ctl: *mut u32,
    at: impl Fn(u32, u32) -> *mut u32,
    (r, k, from): (u32, u32, u32),
    (rows, cols): (u32, u32),
    m: Modulus,
    tid: u32,
    nt: u32,
) -> Option<u32> {
    // Almost always the diagonal entry itself: every thread reads it, so the branch is
    // the same for all and the search (two barriers) is skipped.
    if r >= rows {
        return None;
    }
    let swapped = *at(r, k) == 0;
    if swapped && !swap_in_pivot(ctl, &at, (r, k, from), (rows, cols), tid, nt) {
        return None;
    }
    if tid == 0 {
        // After a swap the diagonal entry is the pivot, and the sign changes.
        let pivot = *at(r, k);
        let det = m.mul(*ctl.add(1), pivot);
        *ctl.add(1) = if swapped { m.neg(det) } else { det };
        *ctl.add(2) = m.inv(pivot).unwrap_or(0);
    }
    _syncthreads();
    Some(*ctl.add(2))
}

/// The rare part of [`pivot_step`], when the diagonal entry is zero: the first row `p`
/// below `r` with a non-zero entry in column `k` is swapped with row `r` from column
/// `from` on; `false` (for every thread) when there is none. Out of line: inlined, it
/// costs the elimination loops registers. Ends with a barrier.
#[inline(never)]
unsafe fn swap_in_pivot(
    ctl: *mut u32,
    at: &impl Fn(u32, u32) -> *mut u32,
    (r, k, from): (u32, u32, u32),
    (rows, cols): (u32, u32),
    tid: u32,
    nt: u32,
) -> bool {
    let p = first_nonzero(ctl, at, (r + 1, rows), k, tid, nt);
    if p == rows {
        return false;
    }
    let mut j = from + tid;
    while j < cols {
        let t = *at(p, j);
        *at(p, j) = *at(r, j);
        *at(r, j) = t;
        j += nt;
    }
    _syncthreads();
    true
}

/// The first row of `r0..rows` with a non-zero entry in column `k` (`rows` when none),
/// by the whole block through `ctl[0]`: each thread stops at its first such row, then
/// one shared-memory minimum per thread at most. Starts and ends with a barrier.
#[inline(always)]
unsafe fn first_nonzero(
    ctl: *mut u32,
    at: &impl Fn(u32, u32) -> *mut u32,
    (r0, rows): (u32, u32),
    k: u32,
    tid: u32,
    nt: u32,
) -> u32 {
    if tid == 0 {
        *ctl = rows;
    }
    _syncthreads();
    let mut i = r0 + tid;
    while i < rows {
        if *at(i, k) != 0 {
            AtomicU32::from_ptr(ctl).fetch_min(i, Ordering::Relaxed);
            break;
        }
        i += nt;
    }
    _syncthreads();
    let p = *ctl;
    // Every thread has read it before the next step may write it.
    _syncthreads();
    p
}

/// Gaussian elimination modulo channel `blockIdx.x` of the `rows × cols` row-major matrix
/// at `mats[c·rows·cols…]` (overwritten), pivoting on the first `pivot_cols` columns:
/// forward elimination, or Gauss–Jordan to the reduced echelon form when `jordan` is
/// non-zero. The same steps as `rns_core::linalg::eliminate`, one block per channel: the
/// threads find the pivot row together (shared-memory minimum), swap, then each warp
/// updates whole rows, its lanes along the columns (coalesced). Writes the rank to
/// `ranks[c]` and the determinant of the pivot columns (when square) to `dets[c]`.
/// Dynamic shared memory: 16 bytes (pivot row, running determinant, pivot inverse).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_eliminate(
    ranks: *mut u32,
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    pivot_cols: u32,
    jordan: u32,
) {
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let a = mats.add(c * rows as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let tid = _thread_idx_x();
    let nt = _block_dim_x();
    let (lane, warp, nwarps) = (tid % 32, tid / 32, nt / 32);
    let jordan = jordan != 0;
    if tid == 0 {
        *sh.add(1) = 1; // running determinant
    }
    let (mut r, mut k) = (0u32, 0u32);
    while k < pivot_cols && r < rows {
        let Some(inv) = pivot_step(sh, at, (r, k, k), (rows, cols), m, tid, nt) else {
            k += 1; // no pivot in this column (the same answer for every thread)
            continue;
        };
        if jordan {
            let mut j = k + 1 + tid;
            while j < cols {
                *at(r, j) = m.mul(*at(r, j), inv);
                j += nt;
            }
            _syncthreads();
        }
        // Row i −= f · row r over the columns after k, for the rows below r (and above it
        // for Gauss–Jordan). Column k is only read here, so rows need no barrier between them.
        let mut i = if jordan { warp } else { r + 1 + warp };
        while i < rows {
            if i != r {
                let lead = *at(i, k);
                let f = if jordan { lead } else { m.mul(lead, inv) };
                if f != 0 {
                    let mut j = k + 1 + lane;
                    while j < cols {
                        *at(i, j) = m.sub(*at(i, j), m.mul(*at(r, j), f));
                        j += 32;
                    }
                }
            }
            i += nwarps;
        }
        _syncthreads();
        // Column k: the unit column of a reduced pivot, or zeros below a forward pivot.
        let mut i = tid;
        while i < rows {
            if jordan {
                *at(i, k) = (i == r) as u32;
            } else if i > r {
                *at(i, k) = 0;
            }
            i += nt;
        }
        r += 1;
        k += 1;
    }
    if tid == 0 {
        *ranks.add(c) = r;
        *dets.add(c) = if pivot_cols == rows && r == rows {
            *sh.add(1)
        } else {
            0
        };
    }
}

/// A 16-byte aligned group of four centered residues (one `ld.shared.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([i32; 4]);

/// Products summed between two folds.
const LAZY: usize = rns_core::modulus::LAZY_PRODUCTS;
const _: () = assert!(MM_TK as usize % LAZY == 0);
// `factor_panel` covers a panel with one group of 16 lanes per row.
const _: () = assert!(MM_TK == 16);

/// Batched matrix product modulo each channel (`blockIdx.z`): `out = a · b` with `a`
/// `n × k`, `b` `k × p`, row-major, channel `c` at offset `c·n·k` (and `c·k·p`, `c·n·p`).
/// A 16 × 16 block computes a 64 × 64 tile of the product, 4 × 4 entries per thread,
/// from 16-wide k-tiles staged in shared memory as centered residues. Delayed
/// reduction: products are summed in signed 64 bits and folded once every
/// `LAZY_PRODUCTS` (`Modulus::fold`), then reduced once at the end. Dynamic shared memory:
/// `(68 + 64) · 16 · 4` bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_matmul(
    out: *mut u32,
    a: *const u32,
    b: *const u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
    p: u32,
) {
    let quads: *mut Quad = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Quad>();
    let sa = quads as *mut i32; // sa[kk·68 + row]
    let sb = sa.add((MM_TK * MM_A_STRIDE) as usize); // sb[kk·64 + col]
    let c = _block_idx_z() as usize;
    let m = *moduli.add(c);
    let t = m.fold_factor();
    let (nk, kp, np) = (
        n as usize * k as usize,
        k as usize * p as usize,
        n as usize * p as usize,
    );
    let (a, b, out) = (a.add(c * nk), b.add(c * kp), out.add(c * np));
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let tid = ty * 16 + tx;
    let (row0, col0) = (_block_idx_y() * MM_TILE, _block_idx_x() * MM_TILE);
    let mut acc = [[0i64; 4]; 4];
    let mut k0 = 0;
    while k0 < k {
        // Staged inline rather than through `stage_tiles`: with the closures this kernel
        // needs 104 registers instead of 80.
        let mut q = 0;
        while q < 4 {
            let e = tid + 256 * q;
            let (r, kk) = (e / MM_TK, e % MM_TK);
            let (gi, gk) = (row0 + r, k0 + kk);
            *sa.add((kk * MM_A_STRIDE + r) as usize) = if gi < n && gk < k {
                m.center(*a.add(gi as usize * k as usize + gk as usize))
            } else {
                0
            };
            let (kk, col) = (e / MM_TILE, e % MM_TILE);
            let (gk, gj) = (k0 + kk, col0 + col);
            *sb.add((kk * MM_TILE + col) as usize) = if gk < k && gj < p {
                m.center(*b.add(gk as usize * p as usize + gj as usize))
            } else {
                0
            };
            q += 1;
        }
        _syncthreads();
        tile_products(&mut acc, sa, sb, tx, ty, t);
        _syncthreads();
        k0 += MM_TK;
    }
    // A loop, once per output tile (`acc` goes to local memory for it): written out by
    // `for_each_entry` at 82 registers, capped to 80, this kernel measured 2.42 T
    // mul-adds/s at 1024³ × 32 on the H200, against 3.46 as it is.
    for (i, row) in acc.iter().enumerate() {
        let gi = row0 + ty * 4 + i as u32;
        for (j, &s) in row.iter().enumerate() {
            let gj = col0 + tx * 4 + j as u32;
            if gi < n && gj < p {
                *out.add(gi as usize * p as usize + gj as usize) = m.reduce_i64(s);
            }
        }
    }
}

/// `f(i, j, acc[i][j])` for the 16 accumulators, written out with constant indices: a
/// loop over `acc` would keep it in local memory (and zero it byte by byte).
#[inline(always)]
fn for_each_entry(acc: &[[i64; 4]; 4], mut f: impl FnMut(u32, u32, i64)) {
    macro_rules! row {
        ($i:literal) => {
            f($i, 0, acc[$i][0]);
            f($i, 1, acc[$i][1]);
            f($i, 2, acc[$i][2]);
            f($i, 3, acc[$i][3]);
        };
    }
    row!(0);
    row!(1);
    row!(2);
    row!(3);
}

/// Stages one k-tile of a 64 × 64 block product in shared memory (block of 16 × 16
/// threads, `tid = ty·16 + tx`): `sa[kk·68 + r] = a(r, kk)` for the tile's 64 rows and
/// `sb[kk·64 + col] = b(kk, col)` for its 64 columns, `kk < 16`, as centered residues.
#[inline(always)]
unsafe fn stage_tiles(
    sa: *mut i32,
    sb: *mut i32,
    tid: u32,
    a: impl Fn(u32, u32) -> i32,
    b: impl Fn(u32, u32) -> i32,
) {
    // All eight loads before the stores to shared memory, which they could otherwise
    // not pass (the compiler cannot tell the two apart): one memory latency, not eight.
    let e = [tid, tid + 256, tid + 512, tid + 768];
    let va = e.map(|e| a(e / MM_TK, e % MM_TK));
    let vb = e.map(|e| b(e / MM_TILE, e % MM_TILE));
    for q in 0..4 {
        let (r, kk) = (e[q] / MM_TK, e[q] % MM_TK);
        *sa.add((kk * MM_A_STRIDE + r) as usize) = va[q];
        let (kk, col) = (e[q] / MM_TILE, e[q] % MM_TILE);
        *sb.add((kk * MM_TILE + col) as usize) = vb[q];
    }
}

/// Adds the 16 products of one staged k-tile to thread `(tx, ty)`'s 4 × 4 accumulators
/// (rows `ty·4 …`, columns `tx·4 …` of the tile), folding every `LAZY_PRODUCTS`
/// (`t = fold_factor()`): afterwards each accumulator is below `2^61 + 2^32`.
#[inline(always)]
unsafe fn tile_products(
    acc: &mut [[i64; 4]; 4],
    sa: *const i32,
    sb: *const i32,
    tx: u32,
    ty: u32,
    t: i32,
) {
    let mut kk = 0;
    while kk < MM_TK {
        // LAZY steps of 16 products each, then one fold: fully unrolled, so that the
        // accumulators stay in registers.
        #[allow(clippy::needless_range_loop)]
        for u in 0..LAZY as u32 {
            let av = *(sa.add(((kk + u) * MM_A_STRIDE + ty * 4) as usize) as *const Quad);
            let bv = *(sb.add(((kk + u) * MM_TILE + tx * 4) as usize) as *const Quad);
            for i in 0..4 {
                for j in 0..4 {
                    acc[i][j] += av.0[i] as i64 * bv.0[j] as i64;
                }
            }
        }
        for row in acc.iter_mut() {
            for s in row.iter_mut() {
                *s = Modulus::fold(*s, t);
            }
        }
        kk += LAZY as u32;
    }
}

/// Factors the panel of columns `k0..k1` (at most `MM_TK` = 16) of the `n × n` matrix
/// `at` in place, by the whole block: per column a [`pivot_step`] (rows swapped from
/// column `from ≤ k0` to the end: the multipliers of earlier columns still to be used
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
    from: u32,
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
        let Some(inv) = pivot_step(ctl, at, (k, k, from), (n, n), m, tid, nt) else {
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
    from: u32,
    m: Modulus,
    det: *mut u32,
    tid: u32,
) -> bool {
    let done = factor_panel(ctl, at, panel, from, m, tid, 256);
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

/// One panel step of the determinant whose trailing updates run as separate batched
/// products (on the tensor cores, `rns_matmul_ozaki`): for channel `c = blockIdx.x` of
/// the `n × n` matrices at `mats + c·n²`, the panel of columns `k0..k1` is factored (and
/// with `rns_lu_rows` the rows `k0..k1` right of it solved, `U12 = L11⁻¹ · A12`), so
/// that only `A22 −= L21 · U12` is left. Within the panel the steps of `rns_det_blocked`, by sub-panels of
/// `MM_TK` columns ([`factor_panel`], [`solve_panel_rows`], [`update_tiles`]) on the
/// panel's columns only; then `rns_lu_rows` solves `U12`. The running determinant is
/// kept in `dets[c]` (started at 1 when `k0 = 0`; 0 once singular, after which the
/// channel's later panels do nothing). A block of 16 × 16 threads; dynamic shared memory
/// `DET_SMEM_BYTES`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_lu_panel(
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
    k0: u32,
    k1: u32,
) {
    let (sa, sb, ctl) = det_shared();
    let c = _block_idx_x() as usize;
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    let det = if k0 == 0 { 1 } else { *dets.add(c) };
    if det == 0 || k1 > n || k0 >= k1 {
        return;
    }
    let m = *moduli.add(c);
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
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
        if !factor_or_zero(ctl, at, (s0, s1, n), k0, m, dets.add(c), tid) {
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
/// in place by the panel's sub-panels of `MM_TK` ([`solve_panel_rows`],
/// [`update_tiles`]), for channel `c = blockIdx.x` unless its determinant `dets[c]` is
/// already 0. A kernel of its own so that each part fits the registers of three blocks
/// per SM. A block of 16 × 16 threads; dynamic shared memory as `rns_lu_panel`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_lu_rows(
    dets: *const u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
    k0: u32,
    k1: u32,
) {
    let (sa, sb, _) = det_shared();
    let c = _block_idx_x() as usize;
    if *dets.add(c) == 0 || k1 > n || k0 >= k1 {
        return;
    }
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    let m = *moduli.add(c);
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
    let mut s0 = k0;
    while s0 < k1 {
        let s1 = if k1 - s0 < MM_TK { k1 } else { s0 + MM_TK };
        solve_panel_rows(at, (s0, s1), (k1, n), m, tid, nt);
        update_tiles((sa, sb), at, (s0, s1), (s1, k1), (k1, n), m, (tx, ty));
        s0 = s1;
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
        if !factor_or_zero(ctl, at, (k0, k1, n), k0, m, dets.add(c), tid) {
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
