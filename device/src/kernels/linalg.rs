//! Kernels on matrices modulo one prime per block (or per grid z): elimination and the
//! batched product with delayed reduction (the blocked LU's kernels are in `lu.rs`).

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
/// by the whole block through `ctl[0]` ([`first_where`]).
#[inline(always)]
pub(super) unsafe fn first_nonzero(
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

/// The first `i` of `from..to` with `f(i)` (`to` when none), by the whole block through
/// `ctl[0]`: each thread stops at its first such `i`, then one shared-memory minimum per
/// thread at most. Starts and ends with a barrier.
#[inline(always)]
pub(super) unsafe fn first_where(
    ctl: *mut u32,
    (from, to): (u32, u32),
    tid: u32,
    nt: u32,
    f: impl Fn(u32) -> bool,
) -> u32 {
    if tid == 0 {
        *ctl = to;
    }
    _syncthreads();
    let mut i = from + tid;
    while i < to {
        if f(i) {
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
pub(super) struct Quad([i32; 4]);

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
pub(super) fn for_each_entry(acc: &[[i64; 4]; 4], mut f: impl FnMut(u32, u32, i64)) {
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
pub(super) unsafe fn stage_tiles(
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
pub(super) unsafe fn tile_products(
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
