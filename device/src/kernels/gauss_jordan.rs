//! Elimination of a few matrices, one per prime, by the whole GPU in one cooperative
//! launch, without grid barriers: each block holds a few rows of one matrix in shared
//! memory, and each pivot row, once its block has it, is handed to the others as tagged
//! words (`super::tagged`). Consecutive rows share a block, so the next pivot row is
//! usually ready as soon as the block has applied the current one to it. Gauss–Jordan
//! (for an inverse) or forward (for a determinant).

use super::tagged::{gpu_store_u64, tagged, wait_for, Watch};
use core::arch::nvptx::*;
use rns_core::Modulus;

/// The tag of a pivot row whose pivot is zero: every block stops before its step.
const STOP: u32 = u32::MAX;

/// The block's rows and what it shares with its threads.
struct Block {
    m: Modulus,
    /// Row `first + i` at `cache + i·cols` (shared memory).
    cache: *mut u32,
    /// Two pivot rows, step `k`'s at `prows + (k mod 2)·cols` (shared memory): a block
    /// publishes row `k + 1` while it still applies row `k`.
    prows: *mut u32,
    /// The pivot's inverse, the stop flag, the product of the block's pivots (shared).
    ctl: *mut u32,
    /// Every pivot row as it is published: `n × cols` tagged words.
    pivots: *mut u64,
    stop: *mut u32,
    first: u32,
    own: u32,
    cols: u32,
    /// Gauss–Jordan (every other row) or forward (the rows below the pivot).
    jordan: bool,
    watch: Watch,
    tid: u32,
    nt: u32,
}

impl Block {
    #[inline(always)]
    fn owns(&self, i: u32) -> bool {
        i >= self.first && i < self.first + self.own
    }

    #[inline(always)]
    unsafe fn row(&self, i: u32) -> *mut u32 {
        self.cache
            .add((i - self.first) as usize * self.cols as usize)
    }

    #[inline(always)]
    unsafe fn prow(&self, k: u32) -> *mut u32 {
        self.prows.add((k & 1) as usize * self.cols as usize)
    }

    /// Row `k` (this block's, eliminated by the pivots before it) scaled by its pivot's
    /// inverse, into the block's pivot row `k` and published tagged `k + 1`; a zero pivot
    /// publishes the row tagged [`STOP`] (unscaled) and sets `stop[0] = k`. Ends with a
    /// barrier.
    #[inline(always)]
    unsafe fn publish(&self, k: u32) {
        let r = self.row(k);
        if self.tid == 0 {
            let p = *r.add(k as usize);
            match self.m.inv(p) {
                Some(inv) => {
                    *self.ctl = inv;
                    *self.ctl.add(2) = self.m.mul(*self.ctl.add(2), p);
                }
                None => {
                    *self.ctl = 0;
                    *self.ctl.add(1) = 1;
                    *self.stop = k;
                }
            }
        }
        _syncthreads();
        let inv = *self.ctl;
        let tag = if inv == 0 { STOP } else { k + 1 };
        let out = self.pivots.add(k as usize * self.cols as usize);
        let prow = self.prow(k);
        let mut j = k + 1 + self.tid;
        while j < self.cols {
            let v = if inv == 0 {
                0
            } else {
                let v = self.m.mul(*r.add(j as usize), inv);
                *r.add(j as usize) = v;
                v
            };
            *prow.add(j as usize) = v;
            gpu_store_u64(out.add(j as usize), tagged(v, tag));
            j += self.nt;
        }
        _syncthreads();
    }

    /// Pivot row `k` from the block that published it into the block's pivot row; sets
    /// the stop flag when it came tagged [`STOP`]. Ends with a barrier.
    #[inline(always)]
    unsafe fn receive(&self, k: u32) {
        let at = self.pivots.add(k as usize * self.cols as usize);
        let prow = self.prow(k);
        let mut j = k + 1 + self.tid;
        while j < self.cols {
            let (v, ok) = wait_for(at.add(j as usize), k + 1, STOP, self.watch);
            *prow.add(j as usize) = v;
            if !ok {
                *self.ctl.add(1) = 1;
            }
            j += self.nt;
        }
        _syncthreads();
    }

    /// Row `i −= a[i][k] · (pivot row k)` over the columns after `k` (column `k` is
    /// never read again) for the block's rows `i` in `lo..hi` but `k` and `skip`: a
    /// thread takes its columns one at a time and the rows four at a time, their loads
    /// in flight together.
    #[inline(always)]
    unsafe fn eliminate(&self, k: u32, (lo, hi): (u32, u32), skip: u32) {
        let prow = self.prow(k);
        let changes = |r: u32| r < hi && r != k && r != skip;
        let mut j = k + 1 + self.tid;
        while j < self.cols && lo < hi {
            let p = *prow.add(j as usize);
            let mut i = lo;
            while i < hi {
                let (mut f, mut v) = ([0u32; 4], [0u32; 4]);
                for t in 0..4 {
                    if changes(i + t as u32) {
                        let row = self.row(i + t as u32);
                        (f[t], v[t]) = (*row.add(k as usize), *row.add(j as usize));
                    }
                }
                for t in 0..4 {
                    if changes(i + t as u32) {
                        let w = self.m.sub(v[t], self.m.mul(f[t], p));
                        *self.row(i + t as u32).add(j as usize) = w;
                    }
                }
                i += 4;
            }
            j += self.nt;
        }
    }
}

/// Elimination of channel `c = blockIdx.y`'s `n × cols` matrix (row `i` at
/// `a + c·size + offset + i·ld`; `cols ≥ n`, `[A | I]` for an inverse, or a strip of rows
/// of a larger matrix) modulo `moduli[c]`, without row swaps: Gauss–Jordan when `jordan`
/// is non-zero, else forward. Block `b = blockIdx.x`
/// holds rows `b·rows ..` in shared memory; pivot row `k`, scaled by its pivot's
/// inverse, is published in the channel's `pivots` (`n × cols` tagged words at
/// `pivots + c·n·cols`, zero before the launch) tagged `k + 1` by its block as soon as
/// pivot `k − 1` has been applied to it, and the other blocks wait for its words. At the
/// end each block writes its rows back and the product of its pivots to
/// `dets[c·gridDim.x + b]`. A zero pivot in row `k` (a swap is needed, or the matrix is
/// singular modulo the prime) sets `stop[c] = k` (`n` before the launch), and the
/// channel's blocks stop before step `k`: its matrix then holds the elimination by
/// pivots `0..k`, for the step kernels to go on from. A wait for a pivot row that gives
/// up (`watch`, the launch's word, and `limit_ns`: `super::tagged::Watch`) stops the
/// block as a zero pivot would. Dynamic shared memory: `4·((rows + 2)·cols + 4)` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_gauss_jordan(
    a: *mut u32,
    pivots: *mut u64,
    dets: *mut u32,
    stop: *mut u32,
    moduli: *const Modulus,
    size: u64,
    offset: u64,
    ld: u32,
    n: u32,
    cols: u32,
    rows: u32,
    jordan: u32,
    watch: *mut u32,
    limit_ns: u64,
) {
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let (c, cu) = (_block_idx_y() as usize, cols as usize);
    let a = a.add(c * size as usize + offset as usize);
    let pivots = pivots.add(c * n as usize * cu);
    let first = _block_idx_x() * rows;
    let b = Block {
        m: *moduli.add(c),
        cache: sh,
        prows: sh.add(rows as usize * cu),
        ctl: sh.add((rows as usize + 2) * cu),
        pivots,
        stop: stop.add(c),
        first,
        own: rows.min(n.saturating_sub(first)),
        cols,
        jordan: jordan != 0,
        watch: Watch::new(watch, limit_ns),
        tid: _thread_idx_x(),
        nt: _block_dim_x(),
    };
    let words = b.own as usize * cu;
    // Word `e` of the block's rows, in the matrix.
    let word = |e: usize| {
        let (i, j) = (
            e.checked_div(cu).unwrap_or(0),
            e.checked_rem(cu).unwrap_or(0),
        );
        a.add((first as usize + i) * ld as usize + j)
    };
    let mut e = b.tid as usize;
    while e < words {
        *b.cache.add(e) = *word(e);
        e += b.nt as usize;
    }
    if b.tid == 0 {
        *b.ctl.add(1) = 0;
        *b.ctl.add(2) = 1;
    }
    _syncthreads();
    if b.owns(0) {
        b.publish(0);
    }
    let mut k = 0;
    while k < n {
        if !b.owns(k) {
            b.receive(k);
        }
        if *b.ctl.add(1) != 0 {
            break;
        }
        // The next pivot row first: the other blocks wait for it.
        let next = k + 1;
        if next < n && b.owns(next) {
            b.eliminate(k, (next, next + 1), k);
            _syncthreads();
            b.publish(next);
        }
        // Then the block's other rows that step k changes: all but k for Gauss–Jordan,
        // those below k else.
        let lo = if b.jordan { first } else { first.max(k + 1) };
        b.eliminate(k, (lo, first + b.own), next);
        _syncthreads();
        k += 1;
    }
    let mut e = b.tid as usize;
    while e < words {
        *word(e) = *b.cache.add(e);
        e += b.nt as usize;
    }
    if b.tid == 0 {
        *dets.add(c * _grid_dim_x() as usize + _block_idx_x() as usize) = *b.ctl.add(2);
    }
}
