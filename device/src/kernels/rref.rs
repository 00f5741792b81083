//! The reduced row echelon form of a few large matrices, one per prime, with the whole
//! GPU: one pivot column per pair of launches (`rns_rref_pivot` then `rns_rref_update`,
//! whose row updates are `rns_step_update`'s), rank-revealing: a column with no non-zero
//! entry at or below the next pivot row is skipped. Then `rns_rref_units` writes the
//! pivot columns, which the updates leave as they were.

use super::dixon::strip_update;
use super::linalg::first_nonzero;
use core::arch::nvptx::*;
use rns_core::Modulus;

/// Words of a channel's state: pivot rows so far (the rank), this step's pivot row
/// ([`SKIPPED`] when the column has none), and the pivot search's scratch.
pub const RREF_STATE_WORDS: usize = 4;

/// This step's pivot row when its column has no pivot.
const SKIPPED: u32 = u32::MAX;

/// Pivot step for column `k` of channel `c = blockIdx.x`'s `rows × cols` row-major
/// matrix (at `mats + c·rows·cols`): with `r` the rank so far, the first row from `r` on
/// with a non-zero entry in column `k` is swapped into row `r` (columns `k` on) and
/// scaled to 1 there; `k` is recorded as pivot `r` (`pivots[c·rows + r]`) and the rank
/// becomes `r + 1`. No such row: the step is skipped (the update then does nothing).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_rref_pivot(
    mats: *mut u32,
    state: *mut u32,
    pivots: *mut u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    k: u32,
) {
    let c = _block_idx_x() as usize;
    let ctl = state.add(c * RREF_STATE_WORDS);
    let a = mats.add(c * rows as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let r = *ctl;
    let p = match r < rows {
        true => first_nonzero(ctl.add(2), &at, (r, rows), k, tid, nt),
        false => rows,
    };
    if p == rows {
        if tid == 0 {
            *ctl.add(1) = SKIPPED;
        }
        return;
    }
    if p != r {
        let mut j = k + tid;
        while j < cols {
            core::ptr::swap(at(p, j), at(r, j));
            j += nt;
        }
        _syncthreads();
    }
    let m = *moduli.add(c);
    let inv = m.inv(*at(r, k)).unwrap_or(0);
    // Every thread has the pivot before row r is scaled.
    _syncthreads();
    let mut j = k + tid;
    while j < cols {
        *at(r, j) = m.mul(*at(r, j), inv);
        j += nt;
    }
    if tid == 0 {
        *ctl.add(1) = r;
        *ctl = r + 1;
        *pivots.add(c * rows as usize + r as usize) = k;
    }
}

/// The update of column `k`'s step after `rns_rref_pivot`, on the whole grid (z:
/// channels, x: 32-column strips after `k`, y: groups of 32 rows): every row but the
/// pivot row less its multiple of it.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_rref_update(
    mats: *mut u32,
    state: *const u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    k: u32,
) {
    let c = _block_idx_z() as usize;
    let pr = *state.add(c * RREF_STATE_WORDS + 1);
    if pr != SKIPPED {
        strip_update(c, mats, *moduli.add(c), (rows, cols), (pr, k), 0);
    }
}

/// Pivot columns as unit vectors after the steps: for each row `i` (x: rows, a thread
/// each; z: channels), entry `(i, pivots[t]) = [i = t]` for `t` below the rank.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_rref_units(
    mats: *mut u32,
    state: *const u32,
    pivots: *const u32,
    rows: u32,
    cols: u32,
) {
    let c = _block_idx_z() as usize;
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if i >= rows {
        return;
    }
    let rank = *state.add(c * RREF_STATE_WORDS);
    let row = mats.add(c * rows as usize * cols as usize + i as usize * cols as usize);
    let piv = pivots.add(c * rows as usize);
    for t in 0..rank {
        *row.add(*piv.add(t as usize) as usize) = (i == t) as u32;
    }
}
