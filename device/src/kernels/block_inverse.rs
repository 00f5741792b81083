//! The inverse of a panel's diagonal block, for the factorizations by panel inverses
//! (`host/src/backend/gpu/launch/panels.rs`): each panel's pivot block is inverted here,
//! in shared memory by one block per channel, and everything else is a product on the
//! tensor cores.

use core::arch::nvptx::*;
use rns_core::Modulus;

/// The inverse modulo channel `c = blockIdx.x`'s prime of the `b × b` block at rows
/// `r0..r0 + b` and columns `k0..k0 + b` of its `n × cols` row-major matrix
/// (`mats + c·n·cols`; `r0 = k0` but for a device's share of the rows), written
/// row-major to `inv + c·inv_stride`, `inv_ld` words a row, with `dets[c]` multiplied by the block's
/// determinant (`dets[c]` is taken as 1 when `k0 = 0`). In place in shared memory by
/// Gauss–Jordan without divisions: step `k` replaces every other row by
/// `pivot · row − a[i][k] · row k`, so that a step is one pass and one barrier, and the
/// `b` row scalings (suffix products of the pivots) are inverted together at the end.
/// Row pivoting (the first non-zero entry at or below the diagonal) only when the
/// diagonal entry is zero; the row swaps are undone on the columns at the end. When the
/// block is singular, or `dets[c]` is already 0, `dets[c]` becomes 0 and nothing else
/// is written: the caller factors that channel another way. Any block size; dynamic
/// shared memory `4·(b² + 4b + 2)` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_block_inverse(
    dets: *mut u32,
    inv: *mut u32,
    mats: *const u32,
    moduli: *const Modulus,
    n: u32,
    cols: u32,
    r0: u32,
    k0: u32,
    b: u32,
    inv_stride: u32,
    inv_ld: u32,
) {
    let c = _block_idx_x() as usize;
    let det0 = if k0 == 0 { 1 } else { *dets.add(c) };
    if det0 == 0 || b == 0 || r0 + b > n || k0 + b > cols {
        return;
    }
    let m = *moduli.add(c);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let w = (tid % 32, tid / 32, nt / 32);
    let s: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let (bu, cu) = (b as usize, cols as usize);
    // The pivots, the row scalings before each step, the row swaps, the inverses of
    // the rows' final scalings, two control words.
    let pivs = s.add(bu * bu);
    let (scales, perm, dinv) = (pivs.add(bu), pivs.add(2 * bu), pivs.add(3 * bu));
    let ctl = pivs.add(4 * bu);
    let at = |i: u32, j: u32| s.add(i as usize * bu + j as usize);
    let a = mats.add(c * n as usize * cu + r0 as usize * cu + k0 as usize);
    each_entry(b, w, |i, j| {
        let x = *a.add(i as usize * cu + j as usize);
        *at(i, j) = x;
        if i == 0 && j == 0 {
            *pivs = x;
        }
    });
    _syncthreads();
    // Every row not yet a pivot row carries the same scaling: the product of the
    // pivots so far (kept by every thread alike).
    let (mut scale, mut negate) = (1u32, false);
    let mut k = 0;
    while k < b {
        let mut piv = *pivs.add(k as usize);
        if piv == 0 {
            let Some(p) = swap_in_pivot(at, ctl, perm, (k, b), tid, nt) else {
                if tid == 0 {
                    *dets.add(c) = 0;
                }
                return;
            };
            piv = p;
            negate = !negate;
        } else if tid == 0 {
            *perm.add(k as usize) = k;
        }
        if tid == 0 {
            *pivs.add(k as usize) = piv;
            *scales.add(k as usize) = scale;
        }
        // Rows by warps: each warp reads its row's factor before any lane writes it.
        let (lane, warp, warps) = w;
        let mut i = warp;
        while i < b {
            let f = *at(i, k);
            warp_sync();
            let mut j = lane;
            while j < b {
                if i != k {
                    let x = if j == k {
                        m.neg(m.mul(f, scale))
                    } else {
                        m.mul_sub_mul(piv, *at(i, j), f, *at(k, j))
                    };
                    *at(i, j) = x;
                    if i == k + 1 && j == k + 1 {
                        *pivs.add(j as usize) = x;
                    }
                } else if j == k {
                    // The pivot row is left as it is, but for its column of the inverse.
                    *at(i, j) = scale;
                }
                j += 32;
            }
            i += warps;
        }
        scale = m.mul(scale, piv);
        _syncthreads();
        k += 1;
    }
    // Row `i`'s final scaling is the product of the pivots from step `i` on.
    let mut i = tid;
    while i < b {
        let mut d = 1;
        let mut j = i;
        while j < b {
            d = m.mul(d, *pivs.add(j as usize));
            j += 1;
        }
        *dinv.add(i as usize) = m.inv(d).unwrap_or(0);
        // The inverse of the row-permuted block, its columns swapped back (last swap
        // first): each thread owns whole rows, so no barrier is needed between swaps.
        let mut k = b;
        while k > 0 {
            k -= 1;
            let q = *perm.add(k as usize);
            if q != k {
                let t = *at(i, k);
                *at(i, k) = *at(i, q);
                *at(i, q) = t;
            }
        }
        i += nt;
    }
    _syncthreads();
    let (out, ld) = (inv.add(c * inv_stride as usize), inv_ld as usize);
    each_entry(b, w, |i, j| {
        *out.add(i as usize * ld + j as usize) = m.mul(*at(i, j), *dinv.add(i as usize))
    });
    if tid == 0 {
        // The true pivot of step `k` is `pivs[k] / scales[k]`.
        let (mut num, mut den) = (det0, 1);
        let mut k = 0;
        while k < b {
            num = m.mul(num, *pivs.add(k as usize));
            den = m.mul(den, *scales.add(k as usize));
            k += 1;
        }
        let det = m.mul(num, m.inv(den).unwrap_or(0));
        *dets.add(c) = if negate { m.neg(det) } else { det };
    }
}

/// `bar.warp.sync` over the whole warp.
#[inline(always)]
unsafe fn warp_sync() {
    core::arch::asm!("bar.warp.sync 0xffffffff;");
}

/// `f(i, j)` for every entry of a `b × b` block: rows by warps, columns by lanes
/// (coalesced in global memory, no bank conflicts in shared memory).
#[inline(always)]
fn each_entry(b: u32, (lane, warp, warps): (u32, u32, u32), mut f: impl FnMut(u32, u32)) {
    let mut i = warp;
    while i < b {
        let mut j = lane;
        while j < b {
            f(i, j);
            j += 32;
        }
        i += warps;
    }
}

/// The rare step whose diagonal entry is zero, by the whole block: the first row
/// `q > k` with a non-zero entry in column `k` is swapped into row `k` (`perm[k] = q`);
/// its pivot, or `None` (for every thread) when the column has none and the block is
/// singular. `ctl` is one word of shared memory. Starts with the threads having read
/// the old pivot, ends with a barrier.
#[inline(never)]
unsafe fn swap_in_pivot(
    at: impl Fn(u32, u32) -> *mut u32,
    ctl: *mut u32,
    perm: *mut u32,
    (k, b): (u32, u32),
    tid: u32,
    nt: u32,
) -> Option<u32> {
    _syncthreads();
    if tid == 0 {
        let mut q = k + 1;
        while q < b && *at(q, k) == 0 {
            q += 1;
        }
        *ctl = q;
        *perm.add(k as usize) = q;
    }
    _syncthreads();
    let q = *ctl;
    if q >= b {
        return None;
    }
    let mut j = tid;
    while j < b {
        let t = *at(q, j);
        *at(q, j) = *at(k, j);
        *at(k, j) = t;
        j += nt;
    }
    _syncthreads();
    let piv = *at(k, k);
    // Every thread has its pivot before the step's updates overwrite it.
    _syncthreads();
    Some(piv)
}
