//! Dixon's lifting on the device, for few primes and large matrices: elimination one
//! pivot per launch (the whole grid on each step, where `rns_eliminate` gives a prime one
//! block), the inverse modulo the lifting prime, and the lifting steps
//! (`rns_core::padic`), one warp per row.

use super::linalg::pivot_step;
use super::shuffle_down;
use super::tagged::{gpu_store_u64, stage_tagged, tagged, Watch};
use core::arch::nvptx::*;
use rns_core::padic;
use rns_core::Modulus;

/// Words of a channel's elimination state: pivot row, running determinant, pivot
/// inverse, and a flag set once a column had no pivot (the matrix is singular).
pub const STATE_WORDS: usize = 4;

/// Rows per thread of `rns_step_update` (its blocks are 32 × 8 threads).
const UPDATE_ROWS: u32 = 4;

/// `out[c]` (`rows × ld` at `out + c·rows·ld`) = the `rows × cols` matrix of `limbs`
/// signed 29-bit limbs (limb `t` of entry `e` at `a[t·rows·cols + e]`) modulo channel
/// `c = blockIdx.y`, then `ld − cols` columns of the identity (`[A | I]` for an inverse).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_limbs_mod(
    out: *mut u32,
    a: *const i32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    ld: u32,
    limbs: u32,
) {
    let (cols, ld) = (cols as usize, ld as usize);
    let (len, size) = (rows as usize * cols, rows * ld as u32);
    super::channel_loop(size, |c, k| {
        let e = k - c * size as usize;
        let (i, j) = (
            e.checked_div(ld).unwrap_or(0),
            e.checked_rem(ld).unwrap_or(0),
        );
        *out.add(k) = if j < cols {
            let at = i * cols + j;
            padic::limbs_residue(limbs as usize, |t| *a.add(t * len + at), *moduli.add(c))
        } else {
            (j - cols == i) as u32
        };
    });
}

/// Pivot step `k` of the elimination of channel `c = blockIdx.x`'s `rows × cols`
/// row-major matrix (at `mats + c·rows·cols`): the first row from `k` on with a non-zero
/// entry in column `k` is swapped into row `k`, the running determinant
/// (`state[c·4 + 1]`) multiplied by the pivot (negated after a swap), and row `k`
/// scaled by the pivot's inverse. No pivot: the channel's singular flag is set and its
/// determinant zeroed, and later steps leave it alone.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_step_pivot(
    mats: *mut u32,
    state: *mut u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    k: u32,
) {
    let c = _block_idx_x() as usize;
    let ctl = state.add(c * STATE_WORDS);
    if *ctl.add(3) != 0 {
        return;
    }
    let m = *moduli.add(c);
    let a = mats.add(c * rows as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    match pivot_step(ctl, at, (k, k, k), (rows, cols), m, tid, nt) {
        None => {
            if tid == 0 {
                *ctl.add(1) = 0;
                *ctl.add(3) = 1;
            }
        }
        Some(inv) => {
            let mut j = k + tid;
            while j < cols {
                *at(k, j) = m.mul(*at(k, j), inv);
                j += nt;
            }
        }
    }
}

/// The update of step `k` after `rns_step_pivot`, on the whole grid (z: channels, x:
/// 32-column strips, y: groups of 32 rows): row `i −= a[i][k] · row k` over the columns
/// after `k`, for every row but `k` when `jordan` is non-zero (Gauss–Jordan), else for
/// the rows below `k`. Column `k` is left as it was (never read again).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_step_update(
    mats: *mut u32,
    state: *const u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    k: u32,
    jordan: u32,
) {
    let c = _block_idx_z() as usize;
    if *state.add(c * STATE_WORDS + 3) != 0 {
        return;
    }
    let first = if jordan != 0 { 0 } else { k + 1 };
    strip_update(c, mats, *moduli.add(c), (rows, cols), (k, k), first);
}

/// This thread's share of a step's update of channel `c`'s `rows × cols` matrix: column
/// `j = k + 1 + blockIdx.x·32 + threadIdx.x`, rows from `first` in the block's group
/// (`blockIdx.y`, eight rows apart), row `i −= a[i][k] · a[pr][j]` for every row but
/// the pivot row `pr`.
#[inline(always)]
pub(super) unsafe fn strip_update(
    c: usize,
    mats: *mut u32,
    m: Modulus,
    (rows, cols): (u32, u32),
    (pr, k): (u32, u32),
    first: u32,
) {
    let a = mats.add(c * rows as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let j = k + 1 + _block_idx_x() * 32 + _thread_idx_x();
    if j >= cols {
        return;
    }
    let pivot = *at(pr, j);
    let mut i = first + _block_idx_y() * 8 * UPDATE_ROWS + _thread_idx_y();
    let mut s = 0;
    while s < UPDATE_ROWS && i < rows {
        if i != pr {
            let f = *at(i, k);
            if f != 0 {
                *at(i, j) = m.sub(*at(i, j), m.mul(f, pivot));
            }
        }
        i += 8;
        s += 1;
    }
}

/// The sum over the warp of a signed 128-bit value, in lane 0.
#[inline(always)]
pub(super) unsafe fn warp_sum_i128(mut v: i128) -> i128 {
    let mut d = 16;
    while d > 0 {
        let u = v as u128;
        let w = |s: u32| shuffle_down((u >> s) as u32, d) as u128;
        let o = w(0) | (w(32) << 32) | (w(64) << 64) | (w(96) << 96);
        v = v.wrapping_add(o as i128);
        d /= 2;
    }
    v
}

/// The buffers and constants of the lifting (`rns_dixon_lift`'s arguments), and this
/// warp's place: a block holds `rows` rows of `A⁻¹ mod p` and of `A`'s limbs in shared
/// memory, each row worked on by `parts` warps, each of which takes every `parts`-th
/// group of 32 columns. `R`, `y` and `x` are `n × l` (`l ≤ 32` right-hand sides,
/// row-major); lane `c` of a row's part 0 looks after column `c`.
struct Lifting {
    /// `y` for the next step, tagged (`super::tagged`).
    y: *mut u64,
    /// The digits of the current step, tagged.
    x: *mut u64,
    /// The digits, `n × l` per step (step-major).
    digits: *mut u32,
    /// Row 0's digits, `l` per step.
    first: *mut u32,
    m: Modulus,
    n: u32,
    l: u32,
    limbs: u32,
    p_inv: u128,
    /// The block's copy of `y` or `x` (`n × l` words of dynamic shared memory, column
    /// by column).
    stage: *mut u32,
    /// This warp's row: `A⁻¹ mod p`, then `A`'s limbs, `n` words each (shared memory).
    cached: *const u32,
    /// The partial results of the block's warps (`4·l` words each, shared memory).
    partial: *mut u32,
    /// This warp's row of the matrix (`n` or more: none).
    row: u32,
    /// This warp's part of its row, and the parts per row.
    part: u32,
    parts: u32,
    lane: u32,
}

impl Lifting {
    /// Word `w` of column `c` of this row's part `part`'s partial result.
    #[inline(always)]
    unsafe fn slot(&self, part: u32, c: u32, w: usize) -> *mut u32 {
        let base = (_thread_idx_x() / 32 - self.part + part) as usize;
        self.partial
            .add(4 * (base * self.l as usize + c as usize) + w)
    }

    /// This warp's part of its row's digits `Σ_j inv[j]·y[j][c] mod p` (both staged
    /// centered; the products summed in 64 bits with delayed reduction), into its
    /// partial slots; then lane `c` of part 0 adds the parts up into
    /// `digits[step·n·l + row·l + c]` (row 0's also to `first[step·l + c]`) and publishes
    /// it in `x`, tagged `step + 1`.
    #[inline(always)]
    unsafe fn digit(&self, step: u32) {
        let m = self.m;
        if self.row < self.n {
            let t = m.fold_factor();
            let mut c = 0;
            while c < self.l {
                let y = self.stage.add((c * self.n) as usize);
                let (mut acc, mut since) = (0i64, 0usize);
                let mut j = self.part * 32 + self.lane;
                while j < self.n {
                    let (a, v) = (*self.cached.add(j as usize), *y.add(j as usize));
                    acc += a as i32 as i64 * v as i32 as i64;
                    since += 1;
                    if since == rns_core::modulus::LAZY_PRODUCTS {
                        acc = Modulus::fold(acc, t);
                        since = 0;
                    }
                    j += 32 * self.parts;
                }
                let mut r = m.reduce_i64(acc);
                let mut d = 16;
                while d > 0 {
                    r = m.add(r, shuffle_down(r, d));
                    d /= 2;
                }
                if self.lane == 0 {
                    *self.slot(self.part, c, 0) = r;
                }
                c += 1;
            }
        }
        _syncthreads();
        let c = self.lane;
        if self.row < self.n && self.part == 0 && c < self.l {
            let mut r = 0;
            let mut w = 0;
            while w < self.parts {
                r = m.add(r, *self.slot(w, c, 0));
                w += 1;
            }
            let e = (self.row * self.l + c) as usize;
            *self
                .digits
                .add(step as usize * (self.n * self.l) as usize + e) = r;
            gpu_store_u64(self.x.add(e), tagged(r, step + 1));
            if self.row == 0 {
                *self.first.add((step * self.l + c) as usize) = r;
            }
        }
    }

    /// This warp's part of its row's `Σ_j a[j]·x[j][c]` (`x` staged; limb by limb,
    /// joined modulo `2^128`) into its partial slots; then lane `c` of part 0 adds the
    /// parts up and updates the residual `r[row][c]`, which it keeps in its registers
    /// (`r`), to `(r − Σ_j a[j]·x[j][c]) / p` (`rns_core::padic::update`), and publishes
    /// `y[row][c]`, its residue modulo `p`, tagged `step + 2` (for step `step + 1`).
    #[inline(always)]
    unsafe fn update(&self, step: u32, r: &mut i128) {
        let n = self.n as usize;
        if self.row < self.n {
            let mut c = 0;
            while c < self.l {
                let x = self.stage.add(c as usize * n);
                // The lane's limb sums joined first (modulo 2^128), then one sum over the
                // warp.
                let lane_sum = |t: usize| {
                    let limb_row = self.cached.add((1 + t) * n) as *const i32;
                    let mut s = 0i128;
                    let mut j = (self.part * 32 + self.lane) as usize;
                    while j < n {
                        s += (*limb_row.add(j) as i64 * *x.add(j) as i64) as i128;
                        j += 32 * self.parts as usize;
                    }
                    s
                };
                let total = warp_sum_i128(padic::join(self.limbs as usize, lane_sum));
                if self.lane == 0 {
                    let u = total as u128;
                    for w in 0..4 {
                        *self.slot(self.part, c, w) = (u >> (32 * w)) as u32;
                    }
                }
                c += 1;
            }
        }
        _syncthreads();
        let c = self.lane;
        if self.row < self.n && self.part == 0 && c < self.l {
            let mut total = 0u128;
            let mut w = 0;
            while w < self.parts {
                let word = |k: usize| (*self.slot(w, c, k) as u128) << (32 * k);
                total = total.wrapping_add(word(0) | word(1) | word(2) | word(3));
                w += 1;
            }
            *r = padic::update(*r, total as i128, self.p_inv);
            let y = padic::reduce_i128(*r, self.m);
            gpu_store_u64(
                self.y.add((self.row * self.l + c) as usize),
                tagged(y, step + 2),
            );
        }
    }
}

/// Dixon's lifting, steps `step0 .. step0 + steps` in one cooperative launch (`r`, `y`
/// and `x` carry over to the next launch). Block `b`
/// holds rows `b·rows ..` of `A⁻¹ mod p` (`inv`, rows `ld` apart) and of `A`'s limbs
/// (limb `t` of entry `(i, j)` at `a[t·n² + i·n + j]`) in shared memory for the whole
/// launch, its warps split evenly among them. `r`, `y` and `x` are `n × l` (`l ≤ 32`
/// right-hand sides, row-major; `r` two 64-bit words an entry). Each step `s`: the digits
/// `x = A⁻¹·y mod p` into `digits[s·n·l ..]` (row 0's also to `first[s·l ..]`), then the
/// residuals `r ← (r − A·x)/p` and `y = r mod p`.
///
/// No grid barrier: the blocks exchange `y` and `x` as tagged words (`n × l` each; a step
/// `s` reads `y` tagged `s + 1` and `x` tagged `s + 1`; before the first launch `y`
/// holds `b mod p` tagged 1 and `x` zeros), each reader waiting for the tag of each word
/// it reads. One buffer each is enough: a block writes its rows' `x` (or `y`) only after
/// reading all of `y` (of `x`), which every block wrote after it had read all of the
/// previous `x` (`y`). Every wait is bounded by the launch's `watch` word and
/// `limit_ns` (`super::tagged::Watch`). Dynamic shared memory:
/// `4·(n·l + rows·(1 + limbs)·n + 4·l·warps)` bytes.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_dixon_lift(
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
    rows: u32,
    watch: *mut u32,
    limit_ns: u64,
) {
    let watch = Watch::new(watch, limit_ns);
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let (nu, per_row) = (n as usize, (1 + limbs as usize) * n as usize);
    let first_row = _block_idx_x() * rows;
    let m = *modulus;
    // The block's rows into shared memory, once (the inverse's centered).
    let cache = sh.add(nu * l as usize);
    let mut e = _thread_idx_x() as usize;
    while e < rows as usize * per_row {
        let (local, rest) = (
            e.checked_div(per_row).unwrap_or(0),
            e.checked_rem(per_row).unwrap_or(0),
        );
        let (t, j) = (
            rest.checked_div(nu).unwrap_or(0),
            rest.checked_rem(nu).unwrap_or(0),
        );
        let i = first_row as usize + local;
        if i < nu {
            *cache.add(e) = if t == 0 {
                m.center(*inv.add(i * ld as usize + j)) as u32
            } else {
                *a.add((t - 1) * nu * nu + i * nu + j) as u32
            };
        }
        e += _block_dim_x() as usize;
    }
    let warp = _thread_idx_x() / 32;
    let parts = (_block_dim_x() / 32).checked_div(rows).unwrap_or(1).max(1);
    let local = warp / parts;
    let lift = Lifting {
        y,
        x,
        digits,
        first,
        m,
        n,
        l,
        limbs,
        p_inv: p_inv_lo as u128 | ((p_inv_hi as u128) << 64),
        stage: sh,
        cached: cache.add(local as usize * per_row),
        partial: cache.add(rows as usize * per_row),
        row: if local < rows { first_row + local } else { n },
        part: warp % parts,
        parts,
        lane: _thread_idx_x() % 32,
    };
    _syncthreads();
    // Lane c of a row's part 0 keeps the row's residual c in its registers.
    let keeper = lift.row < n && lift.part == 0 && lift.lane < l;
    let at = r.add(2 * (lift.row.min(n - 1) * l + lift.lane.min(l - 1)) as usize);
    let mut res = if keeper {
        (*at as u128 | ((*at.add(1) as u128) << 64)) as i128
    } else {
        0
    };
    let mut step = step0;
    while step < step0 + steps {
        stage_tagged(
            y,
            lift.stage,
            (lift.n, lift.l),
            step + 1,
            Some(lift.m),
            watch,
        );
        lift.digit(step);
        stage_tagged(x, lift.stage, (lift.n, lift.l), step + 1, None, watch);
        lift.update(step, &mut res);
        step += 1;
    }
    if keeper {
        *at = res as u64;
        *at.add(1) = ((res as u128) >> 64) as u64;
    }
}
