//! Montgomery products modulo a large odd `r` in residues (`rns_core::redc`): the
//! tables of the base extensions and of the leaves' digits, the exact sums of the
//! extensions' matrix products reduced column by column, and the three elementwise
//! steps around the two extensions. Numbers are rows of `n` channels (`B`, `B'`, `m_r`);
//! every kernel is one grid-stride loop over its entries, so no grid dimension bounds
//! its sizes.

use super::number_loop;
use rns_core::redc::{end_step, gamma, mid_step, pair_step, weight, Crt3};
use rns_core::Modulus;

/// `(e / cols, e % cols)`, with no panicking path (`cols > 0` wherever it is called).
#[inline(always)]
fn split(e: usize, cols: usize) -> (usize, usize) {
    (
        e.checked_div(cols).unwrap_or(0),
        e.checked_rem(cols).unwrap_or(0),
    )
}

/// `out[w·cols + c] = 2^(30·w) mod m_c` for `w < rows`: the weights of a leaf's 30-bit
/// digits in every channel.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_powers(
    out: *mut u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
) {
    let cols = cols as usize;
    number_loop(rows as usize * cols, |e| {
        let (w, c) = split(e, cols);
        let m = *moduli.add(c);
        *out.add(e) = m.pow(m.reduce_u32(1 << 30), w as u64);
    });
}

/// `out[j·cols + c] = (F/f_j) mod m_c` for the `rows` primes `f_j` of a basis of
/// product `F`, given `to_prod[c] = F mod m_c`: an extension's matrix.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_weights(
    out: *mut u32,
    from: *const Modulus,
    to: *const Modulus,
    to_prod: *const u32,
    rows: u32,
    cols: u32,
) {
    let cols = cols as usize;
    number_loop(rows as usize * cols, |e| {
        let (j, c) = split(e, cols);
        *out.add(e) = weight(*to.add(c), *to_prod.add(c), (*from.add(j)).m);
    });
}

/// `out[i·stride + c] = S mod m_c` for the exact sums `S < P0·P1·P2` of a `rows × cols`
/// product given modulo the three channel primes `p` (channel-major in `sums`).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_columns(
    out: *mut u32,
    sums: *const u32,
    p: *const Modulus,
    inv0: u32,
    inv01: u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    stride: u32,
) {
    let crt = Crt3 {
        p: [*p, *p.add(1), *p.add(2)],
        inv0,
        inv01,
    };
    let (cols, plane) = (cols as usize, rows as usize * cols as usize);
    number_loop(plane, |e| {
        let s = [*sums.add(e), *sums.add(plane + e), *sums.add(2 * plane + e)];
        let (i, c) = split(e, cols);
        *out.add(i * stride as usize + c) = crt.reduce(s, *moduli.add(c));
    });
}

/// `s` at entry `at` of each of `sigma`'s three planes of `plane` words: an extension's
/// left operand, once for each channel prime.
#[inline(always)]
unsafe fn store_thrice(sigma: *mut u32, plane: usize, at: usize, s: u32) {
    for c in 0..3 {
        *sigma.add(c * plane + at) = s;
    }
}

/// Step 1 for `pairs` pairs of rows of `x` (rows `2i` and `2i + 1`): `prod` (a row of
/// `n` a pair) and, in `B`'s `k` channels, `σ` three times over (channel-major, `pairs
/// × k` each: the first extension's left operand in every channel prime).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_pairs(
    prod: *mut u32,
    sigma: *mut u32,
    x: *const u32,
    moduli: *const Modulus,
    consts: *const u32,
    pairs: u32,
    k: u32,
    n: u32,
) {
    let (pairs, k, n) = (pairs as usize, k as usize, n as usize);
    number_loop(pairs * n, |e| {
        let (i, ch) = split(e, n);
        let (a, b) = (*x.add(2 * i * n + ch), *x.add((2 * i + 1) * n + ch));
        let (p, s) = pair_step(*moduli.add(ch), a, b, *consts.add(3 * ch));
        *prod.add(e) = p;
        if ch < k {
            store_thrice(sigma, pairs * k, i * k + ch, s);
        }
    });
}

/// Step 3: for every pair and channel of `B' ∪ {m_r}` (`k2 + 1` of them, from channel
/// `k`), `t` into row `i` of `xn` from `prod` and the first extension's sums `ext`
/// (`pairs × (k2 + 1)`), and in `B'` `σ'` three times over (`pairs × k2` each).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_mid(
    xn: *mut u32,
    sigma: *mut u32,
    prod: *const u32,
    ext: *const u32,
    moduli: *const Modulus,
    consts: *const u32,
    pairs: u32,
    k: u32,
    k2: u32,
) {
    let (pairs, k, k2) = (pairs as usize, k as usize, k2 as usize);
    let (cols, n) = (k2 + 1, k + k2 + 1);
    number_loop(pairs * cols, |e| {
        let (i, c) = split(e, cols);
        let ch = k + c;
        let q = (
            *consts.add(3 * ch),
            *consts.add(3 * ch + 1),
            *consts.add(3 * ch + 2),
        );
        let (t, s) = mid_step(*moduli.add(ch), *prod.add(i * n + ch), *ext.add(e), q);
        *xn.add(i * n + ch) = t;
        if c < k2 {
            store_thrice(sigma, pairs * k2, i * k2 + c, s);
        }
    });
}

/// Step 5: for every pair and channel of `B`, `t` into row `i` of `xn` from the second
/// extension's sums `ext` (`pairs × (k + 1)`, `m_r`'s last) and `t mod m_r`, which
/// [`rns_redc_mid`] wrote.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_end(
    xn: *mut u32,
    ext: *const u32,
    moduli: *const Modulus,
    consts: *const u32,
    pairs: u32,
    k: u32,
    k2: u32,
) {
    let (pairs, k, k2) = (pairs as usize, k as usize, k2 as usize);
    let n = k + k2 + 1;
    let red = *moduli.add(n - 1);
    number_loop(pairs * k, |e| {
        let (i, j) = split(e, k);
        let s_red = *ext.add(i * (k + 1) + k);
        let g = gamma(
            red,
            s_red,
            *xn.add(i * n + n - 1),
            *consts.add(3 * (n - 1) + 2),
        );
        let s = *ext.add(i * (k + 1) + j);
        *xn.add(i * n + j) = end_step(*moduli.add(j), s, g, *consts.add(3 * j + 1));
    });
}

/// Rows of `a` a thread of [`rns_redc_extend`] sums for: its column of `w` is read once
/// for them.
const EXTEND_ROWS: usize = rns_core::launch::REDC_EXTEND_ROWS as usize;

/// `Σ_j a[i·inner + j]·w[j·cols + c]` over the inner positions of chunk `blockIdx.z`
/// (`chunk` of them; all when `gridDim.z = 1`), reduced modulo `m_c`, into
/// `out[z·rows·cols + i·cols + c]`, on the integer units: each thread one column and
/// [`EXTEND_ROWS`] rows (grid-stride over both), four products summed in 64 bits (each
/// below `2^62`) before they join a 128-bit sum, so one read of `w` serves every row of
/// the group. Chunks of the inner dimension keep the device busy when rows and columns
/// are few; [`rns_redc_extend_sum`] then adds them.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_extend(
    out: *mut u32,
    a: *const u32,
    w: *const u32,
    moduli: *const Modulus,
    rows: u32,
    inner: u32,
    cols: u32,
    chunk: u32,
) {
    use core::arch::nvptx::*;
    let (rows, inner, cols) = (rows as usize, inner as usize, cols as usize);
    let z = _block_idx_z() as usize;
    let j0 = z * chunk as usize;
    let j1 = (j0 + chunk as usize).min(inner);
    let out = out.add(z * rows * cols);
    let groups = rows.div_ceil(EXTEND_ROWS);
    let mut g = _block_idx_y() as usize;
    while g < groups {
        let first = g * EXTEND_ROWS;
        let here = (rows - first).min(EXTEND_ROWS);
        let mut c = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
        while c < cols {
            let mut acc = [0u128; EXTEND_ROWS];
            let mut j = j0;
            while j + 4 <= j1 {
                let wj = [0, 1, 2, 3].map(|t| *w.add((j + t) * cols + c) as u64);
                for (r, s) in acc.iter_mut().enumerate().take(here) {
                    let ar = a.add((first + r) * inner + j);
                    let four = (0..4).fold(0u64, |x, t| x + *ar.add(t) as u64 * wj[t]);
                    *s += four as u128;
                }
                j += 4;
            }
            while j < j1 {
                let wj = *w.add(j * cols + c) as u64;
                for (r, s) in acc.iter_mut().enumerate().take(here) {
                    *s += (*a.add((first + r) * inner + j) as u64 * wj) as u128;
                }
                j += 1;
            }
            let m = *moduli.add(c);
            for (r, s) in acc.iter().enumerate().take(here) {
                let v = m.reduce_limbs(&[*s as u64, (*s >> 64) as u64]);
                *out.add((first + r) * cols + c) = v;
            }
            c += (_grid_dim_x() * _block_dim_x()) as usize;
        }
        g += _grid_dim_y() as usize;
    }
}

/// `out[e] = Σ_z part[z·len + e] mod m_(e mod cols)` over `chunks` partial results of
/// [`rns_redc_extend`] (`len` entries of rows of `cols` each).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_extend_sum(
    out: *mut u32,
    part: *const u32,
    moduli: *const Modulus,
    len: u32,
    cols: u32,
    chunks: u32,
) {
    let len = len as usize;
    number_loop(len, |e| {
        let m = *moduli.add(split(e, cols as usize).1);
        let sum = (0..chunks as usize).fold(0, |s, z| m.add(s, *part.add(z * len + e)));
        *out.add(e) = sum;
    });
}
