//! Dixon's lifting with a block of right-hand sides (`R`, `Y`, `X` of `n × l`, any
//! `l`): each step as two tiled matrix products over the whole grid, so that a step
//! reads `A⁻¹ mod p` and `A`'s limbs once for all the columns, where
//! `rns_dixon_lift` reads them once per column group. A step is
//! `X = A⁻¹·Y mod p` (`rns_block_digits`), then `R ← (R − A·X)/p` and
//! `Y = R mod p` (`rns_block_update`), both with the arithmetic of
//! `rns_core::padic`, so that the digits are those of the one-column lifting.
//!
//! A block of 16 × 16 threads computes a 32 × 32 tile of the product, each thread
//! 2 × 2 entries (rows `ty`, `ty + 16`, columns `tx`, `tx + 16` of the tile), the
//! factors staged through shared memory 32 terms at a time. Where the tiles are too few
//! to fill the device, the sums are split over `blockIdx.z` into `split` ranges of
//! terms, each block writing its partial sums, and `rns_block_join_digits` and
//! `rns_block_join_update` finish them.

use core::arch::nvptx::*;
use rns_core::padic;
use rns_core::Modulus;

/// Rows and columns of a block's tile, and terms staged at a time.
const TILE: usize = rns_core::launch::BLOCK_LIFT_TILE;
/// Padded row length of a staged tile of the left factor (no bank conflicts).
const PAD: usize = TILE + 1;
/// Threads per side of a block.
const SIDE: usize = TILE / 2;
/// Terms whose limb products (below `2^60` each) an `i64` sums exactly.
const LIMB_TERMS: usize = 8;

/// The block's tile origin `(row, column)` and this thread's `(ty, tx)`.
#[inline(always)]
unsafe fn place() -> ((usize, usize), (usize, usize)) {
    (
        (
            _block_idx_y() as usize * TILE,
            _block_idx_x() as usize * TILE,
        ),
        (_thread_idx_y() as usize, _thread_idx_x() as usize),
    )
}

/// The terms `[from, to)` of this block's share (`blockIdx.z` of `split`) of sums of
/// `n` terms, whole tiles each.
#[inline(always)]
unsafe fn terms(n: usize, split: u32) -> (usize, usize) {
    let per = n.div_ceil(TILE).div_ceil(split.max(1) as usize) * TILE;
    let from = _block_idx_z() as usize * per;
    (from, (from + per).min(n))
}

/// Stages the `TILE × TILE` tile at `(i0, j0)` of the `rows × cols` row-major matrix
/// read by `get(i, j)` into `to` (rows `stride` words apart), zeros outside it.
#[inline(always)]
unsafe fn stage(
    to: *mut i32,
    stride: usize,
    (i0, j0): (usize, usize),
    (rows, cols): (usize, usize),
    get: impl Fn(usize, usize) -> i32,
) {
    let tid = _thread_idx_y() as usize * SIDE + _thread_idx_x() as usize;
    let mut e = tid;
    while e < TILE * TILE {
        let (r, c) = (e / TILE, e % TILE);
        let (i, j) = (i0 + r, j0 + c);
        *to.add(r * stride + c) = if i < rows && j < cols { get(i, j) } else { 0 };
        e += SIDE * SIDE;
    }
}

/// One step's digits `X = A⁻¹·Y mod p` into `x` (`n × l`, in `[0, p)`), row 0's
/// also into `first` (`l` words): `inv` is `A⁻¹ mod p` (`n × n`, in `[0, p)`), `y` the
/// residuals modulo `p`, centered. The products of centered residues are summed in
/// 64 bits, folded every `rns_core::modulus::LAZY_PRODUCTS`. Grid: x over 32-column
/// tiles of `l`, y over 32-row tiles of `n`; blocks of 16 × 16 threads; 8 KiB of
/// dynamic shared memory (`2·32·33` words). With `split > 1`, block `blockIdx.z`
/// sums its share of the terms into `partial[z·n·l ..]` (reduced, in `[0, p)`) instead,
/// for `rns_block_join_digits`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_block_digits(
    x: *mut u32,
    first: *mut u32,
    inv: *const u32,
    y: *const i32,
    modulus: *const Modulus,
    n: u32,
    l: u32,
    split: u32,
    partial: *mut u32,
) {
    let sh: *mut i32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<i32>();
    let (sa, sy) = (sh, sh.add(TILE * PAD));
    let ((i0, j0), (ty, tx)) = place();
    let (n, l) = (n as usize, l as usize);
    let m = *modulus;
    let t = m.fold_factor();
    let mut acc = [[0i64; 2]; 2];
    let (mut k0, end) = terms(n, split);
    while k0 < end {
        stage(sa, PAD, (i0, k0), (n, end), |i, j| {
            m.center(*inv.add(i * n + j))
        });
        stage(sy, PAD, (k0, j0), (end, l), |i, j| *y.add(i * l + j));
        _syncthreads();
        let mut k = 0;
        while k < TILE {
            let mut q = 0;
            while q < rns_core::modulus::LAZY_PRODUCTS {
                let a = [*sa.add(ty * PAD + k), *sa.add((ty + SIDE) * PAD + k)];
                let b = [*sy.add(k * PAD + tx), *sy.add(k * PAD + tx + SIDE)];
                for (u, au) in a.iter().enumerate() {
                    for (v, bv) in b.iter().enumerate() {
                        acc[u][v] += *au as i64 * *bv as i64;
                    }
                }
                k += 1;
                q += 1;
            }
            for row in acc.iter_mut() {
                for s in row.iter_mut() {
                    *s = Modulus::fold(*s, t);
                }
            }
        }
        _syncthreads();
        k0 += TILE;
    }
    for (u, row) in acc.iter().enumerate() {
        for (v, s) in row.iter().enumerate() {
            let (i, j) = (i0 + ty + u * SIDE, j0 + tx + v * SIDE);
            if i < n && j < l {
                let d = m.reduce_i64(*s);
                if split > 1 {
                    *partial.add(_block_idx_z() as usize * n * l + i * l + j) = d;
                } else {
                    *x.add(i * l + j) = d;
                    if i == 0 {
                        *first.add(j) = d;
                    }
                }
            }
        }
    }
}

/// One step's update after `rns_block_digits`: `R ← (R − A·X)/p` (`r`: `n × l`
/// residuals, two 64-bit words each, low first) and `y = R mod p`, centered, with `A`
/// as `limbs` (1 to 4) matrices of signed 29-bit limbs (limb `t` of entry `(i, j)` at
/// `a[t·n² + i·n + j]`) and `x` the digits. Each limb's products (below `2^60`) are
/// summed 8 at a time in 64 bits, then joined into the 128-bit total
/// (`rns_core::padic::join`, modulo `2^128`); `p_inv = p⁻¹ mod 2^128`. Grid and
/// blocks as `rns_block_digits`; `4·(limbs + 1)·32·33` bytes of dynamic shared memory.
/// With `split > 1`, block `blockIdx.z` writes its share's 128-bit sums to
/// `partial[2·(z·n·l + e) ..]` (two 64-bit words, low first) instead, for
/// `rns_block_join_update`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_block_update(
    r: *mut u64,
    y: *mut i32,
    x: *const u32,
    a: *const i32,
    modulus: *const Modulus,
    n: u32,
    l: u32,
    limbs: u32,
    p_inv_lo: u64,
    p_inv_hi: u64,
    split: u32,
    partial: *mut u64,
) {
    let p_inv = p_inv_lo as u128 | ((p_inv_hi as u128) << 64);
    let (n, l) = (n as usize, l as usize);
    let out = match split > 1 {
        true => Some(partial.add(2 * _block_idx_z() as usize * n * l)),
        false => None,
    };
    let args = (r, y, x, a, *modulus, (n, l, split), p_inv, out);
    match limbs {
        1 => update_tile::<1>(args),
        2 => update_tile::<2>(args),
        3 => update_tile::<3>(args),
        _ => update_tile::<4>(args),
    }
}

/// [`rns_block_update`] for `L` limbs.
#[inline(always)]
#[allow(clippy::type_complexity)]
unsafe fn update_tile<const L: usize>(
    (r, y, x, a, m, (n, l, split), p_inv, out): (
        *mut u64,
        *mut i32,
        *const u32,
        *const i32,
        Modulus,
        (usize, usize, u32),
        u128,
        Option<*mut u64>,
    ),
) {
    let sh: *mut i32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<i32>();
    let sx = sh.add(L * TILE * PAD);
    let ((i0, j0), (ty, tx)) = place();
    let mut total = [[0i128; 2]; 2];
    let (mut k0, end) = terms(n, split);
    while k0 < end {
        let mut t = 0;
        while t < L {
            let limb = a.add(t * n * n);
            stage(sh.add(t * TILE * PAD), PAD, (i0, k0), (n, end), |i, j| {
                *limb.add(i * n + j)
            });
            t += 1;
        }
        stage(sx, PAD, (k0, j0), (end, l), |i, j| *x.add(i * l + j) as i32);
        _syncthreads();
        let mut k = 0;
        while k < TILE {
            let mut acc = [[[0i64; 2]; 2]; L];
            let mut q = 0;
            while q < LIMB_TERMS {
                let b = [*sx.add(k * PAD + tx), *sx.add(k * PAD + tx + SIDE)];
                for (t, acc_t) in acc.iter_mut().enumerate() {
                    let at = sh.add(t * TILE * PAD);
                    let a = [*at.add(ty * PAD + k), *at.add((ty + SIDE) * PAD + k)];
                    for (u, au) in a.iter().enumerate() {
                        for (v, bv) in b.iter().enumerate() {
                            acc_t[u][v] += *au as i64 * *bv as i64;
                        }
                    }
                }
                k += 1;
                q += 1;
            }
            for (u, row) in total.iter_mut().enumerate() {
                for (v, s) in row.iter_mut().enumerate() {
                    *s = s.wrapping_add(padic::join(L, |t| acc[t][u][v] as i128));
                }
            }
        }
        _syncthreads();
        k0 += TILE;
    }
    for (u, row) in total.iter().enumerate() {
        for (v, s) in row.iter().enumerate() {
            let (i, j) = (i0 + ty + u * SIDE, j0 + tx + v * SIDE);
            if i < n && j < l {
                let e = i * l + j;
                match out {
                    Some(out) => {
                        *out.add(2 * e) = *s as u64;
                        *out.add(2 * e + 1) = ((*s as u128) >> 64) as u64;
                    }
                    None => residual_update(r, y, e, *s, (m, p_inv)),
                }
            }
        }
    }
}

/// Entry `e`'s residual `r ← (r − ax)/p` (`rns_core::padic::update`) and `y = r mod p`,
/// centered.
#[inline(always)]
unsafe fn residual_update(
    r: *mut u64,
    y: *mut i32,
    e: usize,
    ax: i128,
    (m, p_inv): (Modulus, u128),
) {
    let at = r.add(2 * e);
    let old = (*at as u128 | ((*at.add(1) as u128) << 64)) as i128;
    let new = padic::update(old, ax, p_inv);
    *at = new as u64;
    *at.add(1) = ((new as u128) >> 64) as u64;
    *y.add(e) = m.center(padic::reduce_i128(new, m));
}

/// The digits from `rns_block_digits`'s `split` partial sums (`partial`, `n·l` words
/// each): `x[e] = Σ_z partial[z·n·l + e] mod p`, row 0's also into `first`. A thread an
/// entry (grid-stride).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_block_join_digits(
    x: *mut u32,
    first: *mut u32,
    partial: *const u32,
    modulus: *const Modulus,
    n: u32,
    l: u32,
    split: u32,
) {
    let (len, l) = (n as usize * l as usize, l as usize);
    let m = *modulus;
    super::number_loop(len, |e| {
        let mut d = 0;
        let mut z = 0;
        while z < split as usize {
            d = m.add(d, *partial.add(z * len + e));
            z += 1;
        }
        *x.add(e) = d;
        if e < l {
            *first.add(e) = d;
        }
    });
}

/// The update from `rns_block_update`'s `split` partial sums (`partial`, `2·n·l` words
/// each): their total modulo `2^128` is `A·X`'s entry, then as `rns_block_update`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_block_join_update(
    r: *mut u64,
    y: *mut i32,
    partial: *const u64,
    modulus: *const Modulus,
    n: u32,
    l: u32,
    split: u32,
    p_inv_lo: u64,
    p_inv_hi: u64,
) {
    let p_inv = p_inv_lo as u128 | ((p_inv_hi as u128) << 64);
    let len = n as usize * l as usize;
    let m = *modulus;
    super::number_loop(len, |e| {
        let mut total = 0u128;
        let mut z = 0;
        while z < split as usize {
            let at = partial.add(2 * (z * len + e));
            total = total.wrapping_add(*at as u128 | ((*at.add(1) as u128) << 64));
            z += 1;
        }
        residual_update(r, y, e, total as i128, (m, p_inv));
    });
}
