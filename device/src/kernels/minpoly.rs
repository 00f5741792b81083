//! The minimal polynomial modulo one prime per block: the steps of `rns_core::minpoly`
//! (Krylov sequences of generating vectors in reduced echelon form, a second echelon
//! basis for the span, the least common multiple of the generators' polynomials), the
//! threads of the block sharing each step.

use super::linalg::first_where;
use super::shuffle_down;
use core::arch::nvptx::*;
use rns_core::minpoly::{lcm_in_place, Layout};
use rns_core::Modulus;

/// The block's loop over `from..to`, a thread an index.
#[inline(always)]
unsafe fn each(from: usize, to: usize, mut f: impl FnMut(usize)) {
    let mut i = from + _thread_idx_x() as usize;
    let nt = _block_dim_x() as usize;
    while i < to {
        f(i);
        i += nt;
    }
}

/// `x[j] −= Σ_i mult[i]·rows[i][j]` for `j < width`, a thread a column (`rows` are
/// `stride` words apart). Ends with a barrier.
#[inline(always)]
unsafe fn reduce(
    x: *mut u32,
    width: usize,
    (rows, stride, count): (*const u32, usize, usize),
    mult: *const u32,
    m: Modulus,
) {
    each(0, width, |j| {
        let mut s = 0;
        for i in 0..count {
            s = m.add(s, m.mul(*mult.add(i), *rows.add(i * stride + j)));
        }
        *x.add(j) = m.sub(*x.add(j), s);
    });
    _syncthreads();
}

/// Scales `x` (`width` words) by `inv`, clears column `p` from the `count` rows (a warp
/// a row) with the multipliers staged in `mult`, and appends `x` as row `count` (zero
/// from `width` to `stride`). Starts after a barrier that published `inv`; ends with one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn append(
    x: *mut u32,
    width: usize,
    p: usize,
    inv: u32,
    (rows, stride, count): (*mut u32, usize, usize),
    mult: *mut u32,
    m: Modulus,
) {
    each(0, width, |j| *x.add(j) = m.mul(*x.add(j), inv));
    each(0, count, |i| *mult.add(i) = *rows.add(i * stride + p));
    _syncthreads();
    let (lane, warp) = (_thread_idx_x() as usize % 32, _thread_idx_x() as usize / 32);
    let nwarps = _block_dim_x() as usize / 32;
    let mut i = warp;
    while i < count {
        let f = *mult.add(i);
        if f != 0 {
            let row = rows.add(i * stride);
            let mut j = lane;
            while j < width {
                *row.add(j) = m.sub(*row.add(j), m.mul(f, *x.add(j)));
                j += 32;
            }
        }
        i += nwarps;
    }
    let row = rows.add(count * stride);
    each(0, stride, |j| {
        *row.add(j) = if j < width { *x.add(j) } else { 0 }
    });
    _syncthreads();
}

/// The minimal polynomial of the `n × n` row-major matrix of channel `blockIdx.x`
/// (`mats[c·n²…]`, read only) modulo its prime: `n + 1` coefficients, constant first
/// and zero above the degree, to `out[c·(n + 1)…]`; `scratch` holds
/// `minpoly_scratch_words(n)` words per channel. Each Krylov step: the term reduced
/// against the earlier ones (a thread a column, the multipliers known from the
/// reduced echelon form), its pivot found together, the earlier rows cleared at it (a
/// warp a row), the same against the span's basis, then the next term `A·v` (a warp a
/// row, a shuffle sum). One thread takes each least common multiple. Dynamic shared
/// memory: 16 bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_minpoly(
    out: *mut u32,
    mats: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    n: u32,
) {
    let ctl: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let nn = n as usize;
    let a = mats.add(c * nn * nn);
    let l = Layout::new(nn);
    let s = scratch.add(c * l.total);
    let (krylov, basis, w) = (s.add(l.krylov), s.add(l.basis), l.width);
    let (kpiv, bpiv, flags) = (s.add(l.kpiv), s.add(l.bpiv), s.add(l.flags));
    let (mut raw, mut next) = (s.add(l.raw), s.add(l.next));
    let (x, mult, mu) = (s.add(l.x), s.add(l.mult), s.add(l.mu));
    let tid = _thread_idx_x();
    let nt = _block_dim_x();
    let (lane, warp, nwarps) = (tid % 32, tid / 32, nt / 32);
    each(0, nn, |j| *flags.add(j) = 0);
    if tid == 0 {
        *mu = 1;
    }
    _syncthreads();
    let (mut dmu, mut brows) = (0usize, 0usize);
    while brows < nn {
        let col = first_where(ctl, (0, n), tid, nt, |j| *flags.add(j as usize) == 0) as usize;
        each(0, nn, |j| *raw.add(j) = (j == col) as u32);
        let first = brows == 0;
        let mut indep = !first;
        let mut krows = 0usize;
        _syncthreads();
        loop {
            // Term krows: [v | e_krows], reduced against the Krylov rows.
            let wid = nn + krows + 1;
            each(0, wid, |j| {
                *x.add(j) = if j < nn {
                    *raw.add(j)
                } else {
                    (j - nn == krows) as u32
                };
            });
            each(0, krows, |i| *mult.add(i) = *raw.add(*kpiv.add(i) as usize));
            _syncthreads();
            reduce(x, wid, (krylov, w, krows), mult, m);
            let p = first_where(ctl, (0, n), tid, nt, |j| *x.add(j as usize) != 0) as usize;
            if p == nn {
                if tid == 0 {
                    let scratch = (s.add(l.g), s.add(l.h));
                    *ctl.add(2) = lcm_in_place(mu, dmu, x.add(nn), krows, scratch, m) as u32;
                }
                _syncthreads();
                dmu = *ctl.add(2) as usize;
                break;
            }
            if tid == 0 {
                *ctl.add(1) = m.inv(*x.add(p)).unwrap_or(0);
                *kpiv.add(krows) = p as u32;
            }
            _syncthreads();
            append(x, wid, p, *ctl.add(1), (krylov, w, krows), mult, m);
            krows += 1;
            if indep {
                // The term against the span's basis: a new basis row, or none again.
                each(0, nn, |j| *next.add(j) = *x.add(j));
                each(0, brows, |i| *mult.add(i) = *x.add(*bpiv.add(i) as usize));
                _syncthreads();
                reduce(next, nn, (basis, nn, brows), mult, m);
                let q = first_where(ctl, (0, n), tid, nt, |j| *next.add(j as usize) != 0);
                if q == n {
                    indep = false;
                } else {
                    let q = q as usize;
                    if tid == 0 {
                        *ctl.add(1) = m.inv(*next.add(q)).unwrap_or(0);
                        *bpiv.add(brows) = q as u32;
                        *flags.add(q) = 1;
                    }
                    _syncthreads();
                    append(next, nn, q, *ctl.add(1), (basis, nn, brows), mult, m);
                    brows += 1;
                }
            }
            // The next term A·v: a warp a row.
            let mut r = warp as usize;
            while r < nn {
                let row = a.add(r * nn);
                let mut t = 0;
                let mut j = lane as usize;
                while j < nn {
                    t = m.add(t, m.mul(*row.add(j), *raw.add(j)));
                    j += 32;
                }
                let mut d = 16;
                while d > 0 {
                    t = m.add(t, shuffle_down(t, d));
                    d /= 2;
                }
                if lane == 0 {
                    *next.add(r) = t;
                }
                r += nwarps as usize;
            }
            _syncthreads();
            core::mem::swap(&mut raw, &mut next);
        }
        if first {
            // The first generator's rows are the span's basis in reduced echelon form.
            each(0, krows * nn, |t| {
                *basis.add(t) = *krylov.add((t / nn) * w + t % nn);
            });
            each(0, krows, |i| {
                let p = *kpiv.add(i);
                *bpiv.add(i) = p;
                *flags.add(p as usize) = 1;
            });
            brows = krows;
            _syncthreads();
        }
    }
    each(0, nn + 1, |d| {
        *out.add(c * (nn + 1) + d) = if d <= dmu { *mu.add(d) } else { 0 };
    });
}
