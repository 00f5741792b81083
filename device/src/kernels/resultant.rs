//! Resultant kernels: Euclid modulo one prime per thread or per block, Collins' step per
//! (prime, point), interpolation per prime.

use super::ballot;
use super::resultant_rounds::{round_of, Ahead};
use core::arch::nvptx::*;
use rns_core::euclid::{
    pass, pass_multipliers, remainder_below, step_exponents, top_degree, CHUNK,
};
use rns_core::launch::{
    interpolation_words, resultant_block_records, resultant_block_scratch, resultant_round_from,
    RESULTANT_ROUND_FROM, RESULTANT_ROUND_STEPS, RESULTANT_ROUND_STEPS_WIDE, RESULTANT_ROUND_WORDS,
};
use rns_core::poly::{divided_difference, newton_shift, resultant_at_point, BiShape, NO_POINT};
use rns_core::Modulus;

/// Resultant modulo channel `c` (one thread per channel) of `f` (degree `df`) and `g`
/// (degree `dg`), whose coefficients are interleaved across channels: coefficient `j`
/// of `f` at `data[j·channels + c]`, of `g` at `data[(df + 1 + j)·channels + c]`
/// (overwritten). Leading coefficients must be non-zero modulo every channel.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_resultant(
    out: *mut u32,
    data: *mut u32,
    moduli: *const Modulus,
    channels: u32,
    df: u32,
    dg: u32,
) {
    let c = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if c >= channels {
        return;
    }
    let s = channels as usize;
    let f = data.add(c as usize);
    let g = data.add((df as usize + 1) * s + c as usize);
    *out.add(c as usize) = rns_core::linalg::resultant_strided(
        f,
        g,
        df as usize,
        dg as usize,
        s,
        *moduli.add(c as usize),
    );
}

/// Resultant modulo channel `c = blockIdx.x`, the whole block on one channel: the
/// fraction-free passes of [`rns_core::euclid`] (the steps of `resultant_chunked`) on `f`
/// (degree `df`) and `g` (degree `dg`), copied from `data[c·(df + dg + 2) …]` (`f`'s
/// coefficients, then `g`'s; not modified) into dynamic shared memory (into the
/// channel's scratch after its records and a round's multipliers in
/// [`rns_resultant_block_global`]). Each pass's coefficients are spread over the threads,
/// one barrier per pass; every thread finds the remainder's degree itself; thread 0
/// records each step's leading coefficient and denominator exponent in the channel's
/// scratch (`scratch[c·per …]`, `per = resultant_block_scratch(df, dg, shared)`), whose
/// powers the threads multiply together at the end (one inverse per channel). From
/// `deg g =` [`RESULTANT_ROUND_FROM`], normal steps go [`RESULTANT_ROUND_STEPS`] at a
/// time ([`RESULTANT_ROUND_STEPS_WIDE`] in [`rns_resultant_block_global_wide`], from `deg
/// g = resultant_round_from(16)`; `resultant_rounds`: integer-only Montgomery steps, two
/// records a round). Leading coefficients must be non-zero modulo every channel.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_resultant_block(
    out: *mut u32,
    data: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    df: u32,
    dg: u32,
) {
    resultant_block::<true, false>(out, data, scratch, moduli, (df, dg));
}

/// [`rns_resultant_block`] with the polynomials in the channel's global scratch, for
/// degrees whose polynomials do not fit shared memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_resultant_block_global(
    out: *mut u32,
    data: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    df: u32,
    dg: u32,
) {
    resultant_block::<false, false>(out, data, scratch, moduli, (df, dg));
}

/// [`rns_resultant_block_global`] with rounds of [`RESULTANT_ROUND_STEPS_WIDE`] steps:
/// half the reads, writes and barriers a step, for large degrees (a kernel of its own,
/// so that each keeps its registers).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_resultant_block_global_wide(
    out: *mut u32,
    data: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    df: u32,
    dg: u32,
) {
    resultant_block::<false, true>(out, data, scratch, moduli, (df, dg));
}

/// The body of the block kernels: a separate instance for each placement, so that the
/// shared one addresses shared memory directly rather than through generic pointers, and
/// for each round width (`WIDE`: [`RESULTANT_ROUND_STEPS_WIDE`] steps).
#[inline(always)]
unsafe fn resultant_block<const SHARED: bool, const WIDE: bool>(
    out: *mut u32,
    data: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    (df, dg): (u32, u32),
) {
    let (k, from) = if WIDE {
        (
            RESULTANT_ROUND_STEPS_WIDE,
            resultant_round_from(RESULTANT_ROUND_STEPS_WIDE),
        )
    } else {
        (RESULTANT_ROUND_STEPS, RESULTANT_ROUND_FROM)
    };
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let (mut df, mut dg) = (df as usize, dg as usize);
    let len = df + dg + 2;
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    // Two words per step: lc(g), then its denominator exponent.
    let rec = scratch.add(c * resultant_block_scratch(df, dg, SHARED));
    // A round's two areas: after the records, or in the wide kernel in the block's
    // shared memory (3 % faster at deg 32 000 on the H200, the areas read every step).
    const { assert!(!(SHARED && WIDE)) };
    let areas = rec.add(resultant_block_records(df, dg));
    let mults = if WIDE {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>()
    } else {
        areas
    };
    let coeffs = if SHARED {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>()
    } else {
        areas.add(RESULTANT_ROUND_WORDS)
    };
    let src = data.add(c * len);
    let mut i = tid;
    while i < len {
        *coeffs.add(i) = *src.add(i);
        i += nt;
    }
    let (mut f, mut g) = (coeffs, coeffs.add(df + 1));
    let mut steps = 0usize;
    let mut num = 1u32; // thread 0's: the numerator powers and the signs
    _syncthreads();
    let rounds = nt % 32 == 0;
    let mut ahead = Ahead {
        ready: false,
        cur: 0,
    };
    while dg > 0 {
        if rounds && df == dg + 1 && dg >= from {
            let areas = (mults, rec.add(2 * steps));
            if round_of::<WIDE>((f, g, dg), m, areas, &mut ahead) {
                steps += k;
                (df, dg) = (df - k, dg - k);
                continue;
            }
        }
        let Some(k) = block_step(f, g, (df, dg), (&mut num, rec.add(2 * steps)), m) else {
            if tid == 0 {
                *out.add(c) = 0;
            }
            return;
        };
        steps += 1;
        core::mem::swap(&mut f, &mut g);
        (df, dg) = (dg, k);
    }
    block_finish(out.add(c), rec, steps, (*g, df), num, m);
}

/// One Euclidean step of `f` (degree `df`) by `g` (degree `dg ≥ 1`) by the block's
/// threads (a barrier after each pass), returning the remainder's degree (`None` when
/// it is zero, for every thread); thread 0 multiplies its numerator `num` by the step's
/// power and sign and writes the step's record (`lc(g)`, denominator exponent) at `rec`.
#[inline(always)]
unsafe fn block_step(
    f: *mut u32,
    g: *const u32,
    (df, dg): (usize, usize),
    (num, rec): (&mut u32, *mut u32),
    m: Modulus,
) -> Option<usize> {
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    let mut top = df;
    while top >= dg {
        let w = if top + 1 - dg < CHUNK {
            top + 1 - dg
        } else {
            CHUNK
        };
        let (s, q) = pass_multipliers(f, g, top, dg, w, m);
        pass(f, g, top, dg, (s, q, w), m, tid, nt);
        _syncthreads();
        top -= w;
    }
    let k = top_degree(f, remainder_below(df, dg))?;
    if tid == 0 {
        let lc = *g.add(dg);
        let (up, down) = step_exponents(df, dg, k);
        *num = m.mul(*num, m.pow(lc, up));
        if df % 2 == 1 && dg % 2 == 1 {
            *num = m.neg(*num);
        }
        // An exponent beyond 32 bits (a first quotient of a very unbalanced pair) is
        // applied here instead.
        let (base, e) = if down >> 32 == 0 {
            (lc, down as u32)
        } else {
            (m.pow(lc, down), 1)
        };
        *rec = base;
        *rec.add(1) = e;
    }
    Some(k)
}

/// The resultant from `steps` records at `rec` (each `(base, exponent)` of the
/// denominator: their powers in place, then their product by a tree), thread 0's
/// numerator `num` and the last `g`'s constant `g0` to the power `df`: written to `out`
/// by thread 0. Every thread of the block calls it.
#[inline(always)]
unsafe fn block_finish(
    out: *mut u32,
    rec: *mut u32,
    steps: usize,
    (g0, df): (u32, usize),
    num: u32,
    m: Modulus,
) {
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    _syncthreads();
    let mut t = tid;
    while t < steps {
        *rec.add(2 * t) = m.pow(*rec.add(2 * t), *rec.add(2 * t + 1) as u64);
        t += nt;
    }
    _syncthreads();
    let mut span = 1;
    while span < steps {
        let mut t = 2 * span * tid;
        while t + span < steps {
            *rec.add(2 * t) = m.mul(*rec.add(2 * t), *rec.add(2 * (t + span)));
            t += 2 * span * nt;
        }
        _syncthreads();
        span *= 2;
    }
    if tid == 0 {
        let den = if steps > 0 { *rec } else { 1 };
        let res = m.mul(num, m.pow(g0, df as u64));
        *out = m.mul(res, m.inv(den).unwrap_or(0));
    }
}

/// Collins' step for the points `x = first … first + piece − 1` (below `points`) of
/// every channel: thread `(c, i)` (`c = blockIdx.y`, `i` over the x dimension) writes
/// `res_y(f(a, y), g(a, y)) mod m_c`, `a = first + i`, to `vals[c·points + a]`, or
/// `NO_POINT` where a leading coefficient in `y` vanishes at `x = a`
/// ([`rns_core::poly::resultant_at_point`]). `coeffs` holds the dense pair of shape
/// `(fy, fx, gy, gx)` per channel; `work` gives each thread of the piece `fy + gy + 2`
/// words, interleaved across the grid's threads so that they are read coalesced.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_resultant_points(
    vals: *mut u32,
    work: *mut u32,
    coeffs: *const u32,
    moduli: *const Modulus,
    fy: u32,
    fx: u32,
    gy: u32,
    gx: u32,
    first: u32,
    piece: u32,
    points: u32,
) {
    let c = _block_idx_y() as usize;
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    let a = first.wrapping_add(i);
    if i >= piece || a >= points || a < first {
        return;
    }
    let s = BiShape { fy, fx, gy, gx };
    let total = _grid_dim_y() as usize * piece as usize;
    let t = c * piece as usize + i as usize;
    let r = resultant_at_point(
        coeffs.add(c * s.len()),
        s,
        a,
        work.add(t),
        total,
        *moduli.add(c),
    );
    *vals.add(c * points as usize + a as usize) = r.unwrap_or(NO_POINT);
}

/// Interpolation, one block per channel `c`: the first `n` points `x = i` whose value
/// `vals[c·points + i]` is not `NO_POINT` give the `n` coefficients `out[c·n + j]`
/// (constant first) of the polynomial of degree below `n` through them: the steps of
/// [`rns_core::poly::interpolate`], each level's divided differences (then each Newton
/// step) spread over the threads, between two buffers. Scratch per channel: `3n + points
/// + 1` words, in dynamic shared memory when `shared` is set, else at
/// `scratch + c·(3n + points + 1)`. With fewer than `n` points, `out[c·n] = NO_POINT`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_interpolate(
    out: *mut u32,
    vals: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    points: u32,
    n: u32,
    shared: u32,
) {
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let (nu, pu) = (n as usize, points as usize);
    let base = if shared != 0 {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>()
    } else {
        scratch.add(c * interpolation_words(nu, pu))
    };
    let (xs, mut src, mut dst, inv) = (base, base.add(nu), base.add(2 * nu), base.add(3 * nu));
    let found = inv.add(pu);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let mut g = tid;
    while g < points {
        *inv.add(g as usize) = m.inv(g).unwrap_or(0);
        g += nt;
    }
    if tid < 32 {
        // Warp 0 keeps the first n good points in order: a ballot per 32 candidates.
        let lane = tid;
        let (mut count, mut i0) = (0u32, 0u32);
        while i0 < points && count < n {
            let i = i0 + lane;
            let v = if i < points {
                *vals.add(c * pu + i as usize)
            } else {
                NO_POINT
            };
            let mask = ballot((v != NO_POINT) as u32);
            let pos = count + (mask & ((1u32 << lane) - 1)).count_ones();
            if v != NO_POINT && pos < n {
                *xs.add(pos as usize) = i;
                *src.add(pos as usize) = v;
            }
            count += mask.count_ones();
            i0 += 32;
        }
        if lane == 0 {
            *found = count;
        }
    }
    _syncthreads();
    if *found < n {
        if tid == 0 {
            *out.add(c * nu) = NO_POINT;
        }
        return;
    }
    // Divided differences: level k writes entries k − 1 (a copy, already final) to n − 1.
    let mut k = 1;
    while k < n {
        let mut i = k - 1 + tid;
        while i < n {
            let iu = i as usize;
            *dst.add(iu) = if i == k - 1 {
                *src.add(iu)
            } else {
                let gap = (*xs.add(iu)).wrapping_sub(*xs.add(iu - k as usize));
                divided_difference(*src.add(iu), *src.add(iu - 1), *inv.add(gap as usize), m)
            };
            i += nt;
        }
        _syncthreads();
        core::mem::swap(&mut src, &mut dst);
        k += 1;
    }
    // Newton form to monomials: both buffers start with every coefficient c_j.
    let mut j = tid;
    while j < n {
        *dst.add(j as usize) = *src.add(j as usize);
        j += nt;
    }
    _syncthreads();
    let mut k = n - 1;
    while k > 0 {
        k -= 1;
        let xk = *xs.add(k as usize);
        let mut j = k + tid;
        while j < n {
            let ju = j as usize;
            let above = if j + 1 < n { *src.add(ju + 1) } else { 0 };
            *dst.add(ju) = newton_shift(*src.add(ju), above, xk, m);
            j += nt;
        }
        _syncthreads();
        core::mem::swap(&mut src, &mut dst);
    }
    let mut j = tid;
    while j < n {
        *out.add(c * nu + j as usize) = *src.add(j as usize);
        j += nt;
    }
}
