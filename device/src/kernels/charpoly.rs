//! The characteristic polynomial modulo one prime per block: the steps of
//! `rns_core::charpoly` (the Hessenberg form, then the recurrence of the leading
//! blocks' polynomials), the threads of the block sharing each step.

use super::linalg::first_nonzero;
use super::shuffle_down;
use core::arch::nvptx::*;
use rns_core::charpoly::{
    charpoly_scratch_words, hessenberg_coefficients, poly_offset, recurrence_term,
};
use rns_core::Modulus;

/// The characteristic polynomial of the `n × n` row-major matrix of channel
/// `blockIdx.x` (`mats[c·n²…]`, overwritten by its Hessenberg form) modulo its prime:
/// `n + 1` coefficients, constant first, to `out[c·(n + 1)…]`; `scratch` holds
/// `charpoly_scratch_words(n)` words per channel. Per column `k` of the Hessenberg
/// step, the block finds the pivot together (shared-memory minimum), swaps, then each
/// warp updates whole rows (lanes along the columns), then each warp sums one row's
/// column products (lanes along the row, a shuffle sum). Dynamic shared memory: 16 bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_charpoly(
    out: *mut u32,
    mats: *mut u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    n: u32,
) {
    let ctl: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let nn = n as usize;
    let a = mats.add(c * nn * nn);
    let at = |i: u32, j: u32| a.add(i as usize * nn + j as usize);
    let tid = _thread_idx_x();
    let nt = _block_dim_x();
    let (lane, warp, nwarps) = (tid % 32, tid / 32, nt / 32);
    let mut k = 0;
    while k + 2 < n {
        let p = first_nonzero(ctl, &at, (k + 1, n), k, tid, nt);
        if p == n {
            k += 1; // column k is already zero below the subdiagonal
            continue;
        }
        if p != k + 1 {
            swap_into_subdiagonal(&at, p, k, n, tid, nt);
        }
        if tid == 0 {
            *ctl.add(2) = m.inv(*at(k + 1, k)).unwrap_or(0);
        }
        _syncthreads();
        let inv = *ctl.add(2);
        let mut i = k + 2 + tid;
        while i < n {
            *at(i, k) = m.mul(*at(i, k), inv);
            i += nt;
        }
        _syncthreads();
        // Row i −= u_i · row k+1.
        let mut i = k + 2 + warp;
        while i < n {
            let u = *at(i, k);
            if u != 0 {
                let mut j = k + 1 + lane;
                while j < n {
                    *at(i, j) = m.sub(*at(i, j), m.mul(u, *at(k + 1, j)));
                    j += 32;
                }
            }
            i += nwarps;
        }
        _syncthreads();
        // Column k+1 += Σ u_i · column i: a warp per row.
        let mut r = warp;
        while r < n {
            let mut s = 0;
            let mut i = k + 2 + lane;
            while i < n {
                s = m.add(s, m.mul(*at(i, k), *at(r, i)));
                i += 32;
            }
            let mut d = 16;
            while d > 0 {
                s = m.add(s, shuffle_down(s, d));
                d /= 2;
            }
            if lane == 0 {
                *at(r, k + 1) = m.add(*at(r, k + 1), s);
            }
            r += nwarps;
        }
        _syncthreads();
        let mut i = k + 2 + tid;
        while i < n {
            *at(i, k) = 0;
            i += nt;
        }
        _syncthreads();
        k += 1;
    }
    recurrence(out, a, scratch, m, nn);
}

/// The similarity that brings row `p` to row `k + 1` of the `n × n` matrix `at`: rows `p`
/// and `k + 1` swapped from column `k` on (the columns before are zero in both), then
/// columns `p` and `k + 1` in every row, by the whole block. Ends with a barrier.
#[inline(always)]
pub(super) unsafe fn swap_into_subdiagonal(
    at: &impl Fn(u32, u32) -> *mut u32,
    p: u32,
    k: u32,
    n: u32,
    tid: u32,
    nt: u32,
) {
    let mut j = k + tid;
    while j < n {
        core::ptr::swap(at(p, j), at(k + 1, j));
        j += nt;
    }
    _syncthreads();
    let mut r = tid;
    while r < n {
        core::ptr::swap(at(r, p), at(r, k + 1));
        r += nt;
    }
    _syncthreads();
}

/// The recurrence of the leading blocks' polynomials of channel `blockIdx.x`'s
/// Hessenberg matrix `a`, by the block: `n + 1` coefficients to `out[c·(n + 1)…]`,
/// `charpoly_scratch_words(n)` words of `scratch` per channel.
#[inline(always)]
unsafe fn recurrence(out: *mut u32, a: *mut u32, scratch: *mut u32, m: Modulus, nn: usize) {
    let c = _block_idx_x() as usize;
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let polys = scratch.add(c * charpoly_scratch_words(nn));
    if tid == 0 {
        *polys = 1;
    }
    for k in 0..nn {
        if tid == 0 {
            hessenberg_coefficients(a, nn, k, m);
        }
        _syncthreads();
        let mut d = tid as usize;
        while d <= k + 1 {
            *polys.add(poly_offset(k + 1) + d) = recurrence_term(a, nn, k, d, polys, m);
            d += nt as usize;
        }
        _syncthreads();
    }
    let mut d = tid as usize;
    while d <= nn {
        *out.add(c * (nn + 1) + d) = *polys.add(poly_offset(nn) + d);
        d += nt as usize;
    }
}
