//! Dixon's lifting for matrices whose rows do not fit in the blocks' shared memory
//! (`rns_dixon_lift` keeps them there): every step reads `A⁻¹ mod p` and `A`'s limbs
//! from global memory, so a step is one pass over `n²·(1 + limbs)` words, bound by the
//! device's bandwidth. The same arithmetic (`rns_core::padic`) and the same exchange of
//! tagged words as `rns_dixon_lift`, so the same digits.

use super::dixon::{shuffle_down, warp_sum_i128};
use super::tagged::{gpu_load_u64, gpu_store_u64, tagged};
use core::arch::nvptx::*;
use rns_core::padic;
use rns_core::Modulus;

/// Tagged words a thread polls at once when staging `y` or `x`.
const POLLED: usize = 4;

/// Limbs of `A`'s entries at most.
const MAX_LIMBS: usize = rns_core::launch::LIFT_GLOBAL_MAX_LIMBS;

/// Copies the values of the `n × l` tagged words at `v` (row-major) into the block's
/// shared memory `stage` column by column (centered residues when `centered`), waiting
/// for each to carry `tag`; then a block barrier.
#[inline(always)]
unsafe fn stage(v: *const u64, stage: *mut u32, (n, l): (u32, u32), tag: u32, m: Option<Modulus>) {
    let (nt, len) = (_block_dim_x(), n * l);
    let at = |e: u32| {
        let (c, j) = (e.checked_div(n).unwrap_or(0), e.checked_rem(n).unwrap_or(0));
        v.add((j * l + c) as usize)
    };
    let mut j0 = _thread_idx_x();
    while j0 < len {
        let mut w = [0u64; POLLED];
        loop {
            for (i, w) in w.iter_mut().enumerate() {
                let j = j0 + i as u32 * nt;
                if j < len {
                    *w = gpu_load_u64(at(j));
                }
            }
            let mut ready = true;
            for (i, w) in w.iter().enumerate() {
                ready &= j0 + i as u32 * nt >= len || (*w >> 32) as u32 == tag;
            }
            if ready {
                break;
            }
        }
        for (i, w) in w.iter().enumerate() {
            let j = j0 + i as u32 * nt;
            if j < len {
                let v = *w as u32;
                *stage.add(j as usize) = match m {
                    Some(m) => m.center(v) as u32,
                    None => v,
                };
            }
        }
        j0 += POLLED as u32 * nt;
    }
    _syncthreads();
}

/// Dixon's lifting, steps `step0 .. step0 + steps` in one cooperative launch, with
/// `A⁻¹ mod p` (`inv`, rows `ld` apart) and `A`'s limbs (limb `t` of entry `(i, j)` at
/// `a[t·n² + i·n + j]`) read from global memory on every step. Warp `w` of the `W`
/// warps of the grid takes rows `w, w + W, …`; `r` (two 64-bit words an entry), `y`,
/// `x` are `n × l` (row-major), the residuals kept in global memory between steps. Each
/// step: `y` staged (centered) in shared memory, the digits `x = A⁻¹·y mod p` of the
/// warp's rows published tagged `s + 1` (into `digits[s·n·l ..]`, row 0's also into
/// `first[s·l ..]`), `x` staged, then `r ← (r − A·x)/p` and `y = r mod p` published
/// tagged `s + 2`. At most `LIFT_GLOBAL_MAX_LIMBS` limbs. Dynamic shared memory: `4·n·l` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_dixon_lift_global(
    r: *mut u64,
    y: *mut u64,
    x: *mut u64,
    digits: *mut u32,
    first: *mut u32,
    inv: *const u32,
    a: *const i32,
    modulus: *const Modulus,
    n: u32,
    l: u32,
    ld: u32,
    limbs: u32,
    p_inv_lo: u64,
    p_inv_hi: u64,
    step0: u32,
    steps: u32,
) {
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let m = *modulus;
    let (nu, lu) = (n as usize, l as usize);
    let p_inv = p_inv_lo as u128 | ((p_inv_hi as u128) << 64);
    let lane = _thread_idx_x() % 32;
    let warps = _grid_dim_x() * (_block_dim_x() / 32);
    let warp = _block_idx_x() * (_block_dim_x() / 32) + _thread_idx_x() / 32;
    let t = m.fold_factor();
    let mut step = step0;
    while step < step0 + steps {
        stage(y, sh, (n, l), step + 1, Some(m));
        // The digits of this warp's rows.
        let mut i = warp;
        while i < n {
            let row = inv.add(i as usize * ld as usize);
            let mut c = 0;
            while c < l {
                let ys = sh.add(c as usize * nu);
                let mut acc = 0i64;
                let mut j = lane as usize;
                // Four loads in flight, then the four products and one fold
                // (`LAZY_PRODUCTS` of them fit between folds).
                while j + 96 < nu {
                    let v = [0, 32, 64, 96].map(|o| *row.add(j + o));
                    for (o, v) in [0, 32, 64, 96].into_iter().zip(v) {
                        acc += m.center(v) as i64 * *ys.add(j + o) as i32 as i64;
                    }
                    acc = Modulus::fold(acc, t);
                    j += 128;
                }
                while j < nu {
                    acc += m.center(*row.add(j)) as i64 * *ys.add(j) as i32 as i64;
                    j += 32;
                }
                let mut d = m.reduce_i64(acc);
                let mut s = 16;
                while s > 0 {
                    d = m.add(d, shuffle_down(d, s));
                    s /= 2;
                }
                if lane == 0 {
                    let e = i as usize * lu + c as usize;
                    *digits.add(step as usize * nu * lu + e) = d;
                    gpu_store_u64(x.add(e), tagged(d, step + 1));
                    if i == 0 {
                        *first.add((step * l + c) as usize) = d;
                    }
                }
                c += 1;
            }
            i += warps;
        }
        // Every warp of the block is done with `y` before `x` takes its place.
        _syncthreads();
        stage(x, sh, (n, l), step + 1, None);
        // The residuals of this warp's rows.
        let mut i = warp;
        while i < n {
            let mut c = 0;
            while c < l {
                let xs = sh.add(c as usize * nu) as *const i32;
                // Every limb's sum in one pass over the row (at most `MAX_LIMBS`), two
                // columns a lane at a time: their loads in flight together.
                let mut sums = [0i128; MAX_LIMBS];
                let row = a.add(i as usize * nu);
                let mut j = lane as usize;
                while j < nu {
                    let (x0, j1) = (*xs.add(j) as i64, j + 32);
                    let x1 = if j1 < nu { *xs.add(j1) as i64 } else { 0 };
                    for (t, s) in sums.iter_mut().enumerate().take(limbs as usize) {
                        let limb = row.add(t * nu * nu);
                        let a1 = if j1 < nu { *limb.add(j1) as i64 } else { 0 };
                        *s += (*limb.add(j) as i64 * x0) as i128 + (a1 * x1) as i128;
                    }
                    j += 64;
                }
                let limb_sum = |t: usize| sums.get(t).copied().unwrap_or(0);
                let total = warp_sum_i128(padic::join(limbs as usize, limb_sum));
                if lane == 0 {
                    let e = i as usize * lu + c as usize;
                    let at = r.add(2 * e);
                    let old = (gpu_load_u64(at) as u128 | ((gpu_load_u64(at.add(1)) as u128) << 64))
                        as i128;
                    let new = padic::update(old, total, p_inv);
                    gpu_store_u64(at, new as u64);
                    gpu_store_u64(at.add(1), ((new as u128) >> 64) as u64);
                    gpu_store_u64(y.add(e), tagged(padic::reduce_i128(new, m), step + 2));
                }
                c += 1;
            }
            i += warps;
        }
        // And done with `x` before the next step's `y` takes its place.
        _syncthreads();
        step += 1;
    }
}
