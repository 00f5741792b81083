//! Dixon's lifting for matrices whose rows do not fit in the blocks' shared memory
//! (`rns_dixon_lift` keeps them there): every step reads `A⁻¹ mod p` and `A`'s limbs
//! from global memory, so a step is one pass over `n²·(1 + limbs)` words, bound by the
//! device's bandwidth. The same arithmetic (`rns_core::padic`) and the same exchange of
//! tagged words as `rns_dixon_lift`, so the same digits.

use super::dixon::{shuffle_down, warp_sum_i128};
use super::tagged::{gpu_load_u64, gpu_store_u64, stage_tagged, tagged};
use core::arch::nvptx::*;
use rns_core::padic;
use rns_core::Modulus;

/// Limbs of `A`'s entries at most.
const MAX_LIMBS: usize = rns_core::launch::LIFT_GLOBAL_MAX_LIMBS;

/// This warp's place in a block of `rns_dixon_lift_global`: the block takes
/// `rows_here` rows from `first_row`, each worked on by `parts` warps (each taking every
/// `parts`-th group of 32 columns) when the block has fewer rows than warps; else each
/// warp takes every `concurrent`-th row.
struct Place {
    first_row: u32,
    rows_here: u32,
    parts: u32,
    part: u32,
    /// This warp's first row (local to the block), and the rows taken at once.
    local: u32,
    concurrent: u32,
    warp: u32,
    lane: u32,
}

impl Place {
    unsafe fn of(n: u32) -> Place {
        let wpb = _block_dim_x() / 32;
        let blocks = _grid_dim_x().max(1);
        let rpb = n.div_ceil(blocks).max(1);
        let first_row = _block_idx_x() * rpb;
        let parts = if rpb >= wpb {
            1
        } else {
            wpb.checked_div(rpb).unwrap_or(1).max(1)
        };
        let warp = _thread_idx_x() / 32;
        let concurrent = wpb.checked_div(parts).unwrap_or(1).max(1);
        Place {
            first_row,
            rows_here: rpb.min(n.saturating_sub(first_row)),
            parts,
            part: warp % parts,
            // Warps beyond `concurrent · parts` have no row.
            local: if warp < concurrent * parts {
                warp / parts
            } else {
                u32::MAX
            },
            concurrent,
            warp,
            lane: _thread_idx_x() % 32,
        }
    }

    /// Word `w` of column `c`'s partial result of part `part` of this warp's row
    /// (`l` columns, 4 words each, per warp).
    unsafe fn slot(&self, slots: *mut u32, l: u32, part: u32, c: u32, w: u32) -> *mut u32 {
        let warp = self.warp - self.part + part;
        slots.add((4 * (warp * l + c) + w) as usize)
    }
}

/// Dixon's lifting, steps `step0 .. step0 + steps` in one cooperative launch, with
/// `A⁻¹ mod p` (`inv`, rows `ld` apart) and `A`'s limbs (limb `t` of entry `(i, j)` at
/// `a[t·n² + i·n + j]`) read from global memory on every step. Block `b` takes the rows
/// `b·R ..` (`R = ⌈n / blocks⌉`), its warps splitting each row into parts when it has
/// fewer rows than warps ([`Place`]); `r` (two 64-bit words an entry), `y`, `x` are
/// `n × l` (row-major), the residuals kept in global memory between steps. Each step:
/// `y` staged (centered) in shared memory, the digits `x = A⁻¹·y mod p` of the block's
/// rows published tagged `s + 1` (into `digits[s·n·l ..]`, row 0's also into
/// `first[s·l ..]`), `x` staged, then `r ← (r − A·x)/p` and `y = r mod p` published
/// tagged `s + 2`. At most `LIFT_GLOBAL_MAX_LIMBS` limbs. Dynamic shared memory:
/// `4·(n·l + 4·l·warps)` bytes.
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
    let slots = sh.add((n * l) as usize);
    let m = *modulus;
    let (nu, lu) = (n as usize, l as usize);
    let p_inv = p_inv_lo as u128 | ((p_inv_hi as u128) << 64);
    let w = Place::of(n);
    // Columns a lane reads: `lane + 32·part`, then every `32·parts`-th.
    let (j0, stride) = ((w.lane + 32 * w.part) as usize, 32 * w.parts as usize);
    let t = m.fold_factor();
    let mut step = step0;
    while step < step0 + steps {
        stage_tagged(y, sh, (n, l), step + 1, Some(m));
        // The digits of this warp's rows (their parts).
        let mut local = w.local;
        while local < w.rows_here {
            let i = w.first_row + local;
            let row = inv.add(i as usize * ld as usize);
            let mut c = 0;
            while c < l {
                let ys = sh.add(c as usize * nu);
                let mut acc = 0i64;
                let mut j = j0;
                // Four loads in flight, then the four products and one fold
                // (`LAZY_PRODUCTS` of them fit between folds).
                while j + 3 * stride < nu {
                    let v = [0, 1, 2, 3].map(|k| *row.add(j + k * stride));
                    for (k, v) in v.into_iter().enumerate() {
                        acc += m.center(v) as i64 * *ys.add(j + k * stride) as i32 as i64;
                    }
                    acc = Modulus::fold(acc, t);
                    j += 4 * stride;
                }
                while j < nu {
                    acc += m.center(*row.add(j)) as i64 * *ys.add(j) as i32 as i64;
                    j += stride;
                }
                let mut d = m.reduce_i64(acc);
                let mut s = 16;
                while s > 0 {
                    d = m.add(d, shuffle_down(d, s));
                    s /= 2;
                }
                if w.lane == 0 {
                    match w.parts {
                        1 => publish_digit(d, (i, c), (n, l), step, (digits, x, first)),
                        _ => *w.slot(slots, l, w.part, c, 0) = d,
                    }
                }
                c += 1;
            }
            local += w.concurrent;
        }
        _syncthreads();
        // The parts' digits added up by lane `c` of each row's part 0.
        if w.parts > 1 && w.part == 0 && w.local < w.rows_here && w.lane < l {
            let c = w.lane;
            let mut d = 0;
            for p in 0..w.parts {
                d = m.add(d, *w.slot(slots, l, p, c, 0));
            }
            let i = w.first_row + w.local;
            publish_digit(d, (i, c), (n, l), step, (digits, x, first));
        }
        // Every warp of the block is done with `y` (and the slots) before `x` takes its
        // place.
        _syncthreads();
        stage_tagged(x, sh, (n, l), step + 1, None);
        // The residuals of this warp's rows (their parts).
        let mut local = w.local;
        while local < w.rows_here {
            let i = w.first_row + local;
            let mut c = 0;
            while c < l {
                let xs = sh.add(c as usize * nu) as *const i32;
                // Every limb's sum in one pass over the row (at most `MAX_LIMBS`), two
                // columns a lane at a time: their loads in flight together.
                let mut sums = [0i128; MAX_LIMBS];
                let row = a.add(i as usize * nu);
                let mut j = j0;
                // Four columns a lane at a time where they are all there.
                while j + 3 * stride < nu {
                    let xv = [0, 1, 2, 3].map(|k| *xs.add(j + k * stride) as i64);
                    for (t, s) in sums.iter_mut().enumerate().take(limbs as usize) {
                        let limb = row.add(t * nu * nu);
                        let av = [0, 1, 2, 3].map(|k| *limb.add(j + k * stride) as i64);
                        let pairs = (av[0] * xv[0] + av[1] * xv[1]) as i128;
                        *s += pairs + (av[2] * xv[2]) as i128 + (av[3] * xv[3]) as i128;
                    }
                    j += 4 * stride;
                }
                while j < nu {
                    let x0 = *xs.add(j) as i64;
                    for (t, s) in sums.iter_mut().enumerate().take(limbs as usize) {
                        *s += (*row.add(t * nu * nu + j) as i64 * x0) as i128;
                    }
                    j += stride;
                }
                let limb_sum = |t: usize| sums.get(t).copied().unwrap_or(0);
                let total = warp_sum_i128(padic::join(limbs as usize, limb_sum));
                if w.lane == 0 {
                    match w.parts {
                        1 => update_residual(total, (i, c), l, step, (r, y), (m, p_inv)),
                        _ => {
                            let u = total as u128;
                            for k in 0..4 {
                                *w.slot(slots, l, w.part, c, k) = (u >> (32 * k)) as u32;
                            }
                        }
                    }
                }
                c += 1;
            }
            local += w.concurrent;
        }
        _syncthreads();
        if w.parts > 1 && w.part == 0 && w.local < w.rows_here && w.lane < l {
            let c = w.lane;
            let mut total = 0u128;
            for p in 0..w.parts {
                let word = |k: u32| (*w.slot(slots, l, p, c, k) as u128) << (32 * k);
                total = total.wrapping_add(word(0) | word(1) | word(2) | word(3));
            }
            let i = w.first_row + w.local;
            update_residual(total as i128, (i, c), l, step, (r, y), (m, p_inv));
        }
        // And done with `x` (and the slots) before the next step's `y` takes its place.
        _syncthreads();
        step += 1;
    }
}

/// Publishes digit `d` of entry `(i, c)` at `step`: into `digits` (and `first` for row
/// 0) and, tagged `step + 1`, into `x`.
#[inline(always)]
unsafe fn publish_digit(
    d: u32,
    (i, c): (u32, u32),
    (n, l): (u32, u32),
    step: u32,
    (digits, x, first): (*mut u32, *mut u64, *mut u32),
) {
    let e = (i * l + c) as usize;
    *digits.add(step as usize * (n * l) as usize + e) = d;
    gpu_store_u64(x.add(e), tagged(d, step + 1));
    if i == 0 {
        *first.add((step * l + c) as usize) = d;
    }
}

/// `r[i][c] ← (r[i][c] − total) / p` (exact) and its residue published in `y`, tagged
/// `step + 2`.
#[inline(always)]
unsafe fn update_residual(
    total: i128,
    (i, c): (u32, u32),
    l: u32,
    step: u32,
    (r, y): (*mut u64, *mut u64),
    (m, p_inv): (Modulus, u128),
) {
    let e = (i * l + c) as usize;
    let at = r.add(2 * e);
    let old = (gpu_load_u64(at) as u128 | ((gpu_load_u64(at.add(1)) as u128) << 64)) as i128;
    let new = padic::update(old, total, p_inv);
    gpu_store_u64(at, new as u64);
    gpu_store_u64(at.add(1), ((new as u128) >> 64) as u64);
    gpu_store_u64(y.add(e), tagged(padic::reduce_i128(new, m), step + 2));
}
