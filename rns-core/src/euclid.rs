//! Euclid's resultant modulo one prime, fraction-free, in passes of up to [`CHUNK`]
//! quotient terms: the steps of the block-per-prime GPU kernel (`rns_resultant_block`,
//! whose threads share each pass's coefficients) and of [`resultant_chunked`], the same
//! algorithm on one core.
//!
//! A pass of `f ÷ g` at `f`'s coefficient `top` ([`pass_multipliers`]) clears the top
//! `w ≤ CHUNK` coefficients as `f ← s·f − q₀·x^(top−dg)·g − q₁·x^(top−1−dg)·g` with
//! `s = lc(g)^w`: no inverse, so no thread waits for one between passes, and every lower
//! coefficient is updated independently ([`pass_coefficient`]). Generic inputs have
//! `deg f = deg g + 1` after the first step, so one pass per Euclidean step. The remainder
//! comes out multiplied by `c = lc(g)^(df − dg + 1)`; with `k` its degree
//! ([`top_degree`]), `res(f, g) = (−1)^(df·dg) · lc(g)^(df − k) · res(g, f mod g)` and
//! `res(g, c·r) = c^dg · res(g, r)` give each step's power of `lc(g)`
//! ([`step_exponents`]): the denominators are multiplied together, and inverted once, at
//! the end.

use crate::modulus::mad_wide;
use crate::Modulus;

/// Quotient terms cleared per pass.
pub const CHUNK: usize = 2;
// A coefficient's update sums `CHUNK + 1` products of residues in 64 bits: `3m² < 2^64`.
const _: () = assert!(CHUNK <= 2);

/// The multipliers of the pass that clears `f[top + 1 − w … top]` (`w ≤ CHUNK`) with `g`
/// of degree `dg`: `(s, q)` with `f ← s·f − q[0]·x^(top − dg)·g − q[1]·x^(top − 1 − dg)·g`
/// (`q[1] = 0` when `w = 1`), `s = lc(g)^w`.
///
/// # Safety
/// `f` must be readable at `top + 1 − w … top` and `g` at `dg − 1 … dg`, with
/// `1 ≤ w ≤ CHUNK` and `top + 1 − w ≥ dg ≥ 1`.
#[inline]
pub unsafe fn pass_multipliers(
    f: *const u32,
    g: *const u32,
    top: usize,
    dg: usize,
    w: usize,
    m: Modulus,
) -> (u32, [u32; CHUNK]) {
    let (lc, a) = (*g.add(dg), *f.add(top));
    if w < 2 {
        return (lc, [a, 0]);
    }
    // After clearing f[top], f[top − 1] is lc·f[top − 1] − a·g[dg − 1]; clearing it too
    // multiplies the first term by lc once more.
    let b = m.mul_sub_mul(lc, *f.add(top - 1), a, *g.add(dg - 1));
    (m.mul(lc, lc), [m.mul(lc, a), b])
}

/// Coefficient `j < top + 1 − w` of `f` after the pass with multipliers `(s, q)` of
/// [`pass_multipliers`]: `s·f_j − Σ_{i < w} q[i]·g[j − (top − i − dg)]`, over the terms
/// with `j ≥ top − i − dg`. The products (with `m − q[i]` for `−q[i]`) are summed in 64
/// bits, below `3m² < 2^64`, and reduced once ([`Modulus::reduce_wide`]).
///
/// # Safety
/// `g` must be readable at `0 … dg − 1`, `j < top + 1 − w` and `top + 1 − w ≥ dg`.
#[inline]
#[allow(clippy::too_many_arguments)]
pub unsafe fn pass_coefficient(
    fj: u32,
    j: usize,
    g: *const u32,
    top: usize,
    dg: usize,
    s: u32,
    q: &[u32; CHUNK],
    w: usize,
    m: Modulus,
) -> u32 {
    let mut acc = mad_wide(s, fj, 0);
    for (i, &qi) in q.iter().enumerate() {
        if i < w {
            let shift = top - i - dg;
            if j >= shift {
                acc = mad_wide(m.m - qi, *g.add(j - shift), acc);
            }
        }
    }
    m.reduce_wide(acc)
}

/// One thread's share of a pass: coefficients `j = first, first + stride, …` below
/// `top + 1 − w` of `f` updated as by [`pass_coefficient`] with the multipliers `(s, q)`
/// of [`pass_multipliers`]. The few low coefficients that lack a term go one by one; the
/// rest, which have all `w` terms, in a loop without tests.
///
/// # Safety
/// As for [`pass_coefficient`]; `f` must be writable at `0 … top − w` and no other
/// thread may touch this thread's coefficients during the pass.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub unsafe fn pass(
    f: *mut u32,
    g: *const u32,
    top: usize,
    dg: usize,
    (s, q, w): (u32, [u32; CHUNK], usize),
    m: Modulus,
    first: usize,
    stride: usize,
) {
    let (end, shift) = (top + 1 - w, top - dg);
    let mut j = first;
    while j < end && j < shift {
        *f.add(j) = pass_coefficient(*f.add(j), j, g, top, dg, s, &q, w, m);
        j += stride;
    }
    // From here on j ≥ shift: g[j − shift] and, with two terms, g[j − shift + 1].
    let (n0, n1) = (m.m - q[0], m.m - q[1]);
    let g = g.wrapping_sub(shift);
    if w == CHUNK {
        // Four coefficients an iteration, loads first: four independent chains, so a GPU
        // warp does not wait on one coefficient's loads and products before the next.
        while j + 3 * stride < end {
            let js = [j, j + stride, j + 2 * stride, j + 3 * stride];
            let fs = js.map(|i| *f.add(i));
            let (g0, g1) = (js.map(|i| *g.add(i)), js.map(|i| *g.add(i + 1)));
            for t in 0..4 {
                let acc = mad_wide(n0, g0[t], mad_wide(s, fs[t], 0));
                *f.add(js[t]) = m.reduce_wide(mad_wide(n1, g1[t], acc));
            }
            j += 4 * stride;
        }
        while j < end {
            let acc = mad_wide(n0, *g.add(j), mad_wide(s, *f.add(j), 0));
            *f.add(j) = m.reduce_wide(mad_wide(n1, *g.add(j + 1), acc));
            j += stride;
        }
    } else {
        while j < end {
            *f.add(j) = m.reduce_wide(mad_wide(n0, *g.add(j), mad_wide(s, *f.add(j), 0)));
            j += stride;
        }
    }
}

/// The multipliers `(s, n₀, n₁)` of a normal step (`f` of degree `d + 1` by `g` of degree
/// `d`): from `lc = g_d`, `a = f_(d+1)`, `f_d` and `g_(d−1)`, as [`pass_multipliers`]
/// gives them for a pass of two terms, with `n_i = m − q_i`, so that
/// `r_j = s·f_j + n₀·g_(j−1) + n₁·g_j` ([`normal_coefficient`]).
#[inline(always)]
pub fn normal_multipliers(lc: u32, a: u32, fd: u32, gd1: u32, m: Modulus) -> (u32, u32, u32) {
    let q1 = m.mul_sub_mul(lc, fd, a, gd1);
    (m.mul(lc, lc), m.m - m.mul(lc, a), m.m - q1)
}

/// `s·f_j + n₀·g_(j−1) + n₁·g_j mod m`, the products summed in 64 bits (below `3m²`) and
/// reduced once: a coefficient of a normal step's remainder.
#[inline(always)]
pub fn normal_coefficient(
    (s, n0, n1): (u32, u32, u32),
    fj: u32,
    below: u32,
    gj: u32,
    m: Modulus,
) -> u32 {
    m.reduce_wide(mad_wide(n1, gj, mad_wide(n0, below, mad_wide(s, fj, 0))))
}

/// The degree of the remainder held in `f[0 … below − 1]`: the highest `k < below` with
/// `f[k] ≠ 0`, or `None` when all are zero (then `f` and `g` share a factor).
///
/// # Safety
/// `f` must be readable at `0 … below − 1`.
#[inline]
pub unsafe fn top_degree(f: *const u32, below: usize) -> Option<usize> {
    let mut k = below;
    while k > 0 {
        k -= 1;
        if *f.add(k) != 0 {
            return Some(k);
        }
    }
    None
}

/// The remainder's degree bound after dividing `f` (degree `df`) by `g` (degree `dg`):
/// `dg` when a division took place, else `df + 1` (then `f` is its own remainder).
#[inline]
pub fn remainder_below(df: usize, dg: usize) -> usize {
    if df < dg {
        df + 1
    } else {
        dg
    }
}

/// The powers of `lc(g)` that Euclid's step from `(f, g)` of degrees `(df, dg)` to
/// `(g, r)`, `k = deg r`, contributes to the resultant: `(numerator, denominator)`
/// exponents. With a division (`df ≥ dg`) the remainder carries `lc(g)^(df − dg + 1)`,
/// so the net power is `lc(g)^(−((df − dg)·(dg − 1) + k))`; without one, `lc(g)^(df − k)`.
/// The sign `(−1)^(df·dg)` is apart.
#[inline]
pub fn step_exponents(df: usize, dg: usize, k: usize) -> (u64, u64) {
    if df < dg {
        ((df - k) as u64, 0)
    } else {
        (0, ((df - dg) * (dg - 1) + k) as u64)
    }
}

/// Room for the records of Euclid's steps (leading coefficient and denominator exponent)
/// for degrees `df`, `dg`: there are at most `min(df, dg) + 1` steps, and one spare.
#[inline]
pub const fn max_steps(df: usize, dg: usize) -> usize {
    if df < dg {
        df + 2
    } else {
        dg + 2
    }
}

/// The resultant modulo `m` of `f` and `g` (constant terms first, non-zero leading
/// coefficients, at least one coefficient each) by the passes of this module, on one
/// core: the GPU block kernel's algorithm, step for step. Both are overwritten.
pub fn resultant_chunked(f: &mut [u32], g: &mut [u32], m: Modulus) -> u32 {
    resultant_chunked_by(f, g, m, 1)
}

/// [`resultant_chunked`] with each pass split as among `threads` GPU threads (thread `t`
/// updates coefficients `t, t + threads, …`), run one share after another.
fn resultant_chunked_by(f: &mut [u32], g: &mut [u32], m: Modulus, threads: usize) -> u32 {
    let (mut df, mut dg) = (f.len() - 1, g.len() - 1);
    let (mut f, mut g) = (f, g);
    let (mut num, mut den) = (1u32, 1u32);
    while dg > 0 {
        let lc = g[dg];
        let Some(k) = divide_by(f, g, (df, dg), m, threads) else {
            return 0;
        };
        let (up, down) = step_exponents(df, dg, k);
        num = m.mul(num, m.pow(lc, up));
        den = m.mul(den, m.pow(lc, down));
        if df % 2 == 1 && dg % 2 == 1 {
            num = m.neg(num);
        }
        core::mem::swap(&mut f, &mut g);
        (df, dg) = (dg, k);
    }
    let res = m.mul(num, m.pow(g[0], df as u64));
    m.mul(res, m.inv(den).unwrap_or(0))
}

/// One Euclidean step on one core: `f` (degree `df`, at least `df + 1` coefficients)
/// replaced by its remainder modulo `g` (degree `dg ≥ 1`) times `lc(g)^(df − dg + 1)`, by
/// the passes as among `threads` GPU threads; the remainder's degree, `None` when it is
/// zero.
pub(crate) fn divide_by(
    f: &mut [u32],
    g: &[u32],
    (df, dg): (usize, usize),
    m: Modulus,
    threads: usize,
) -> Option<usize> {
    let mut top = df;
    while top >= dg {
        let w = CHUNK.min(top + 1 - dg);
        // SAFETY: top + 1 − w ≥ dg ≥ 1, f holds top + 1 coefficients, g holds dg + 1.
        unsafe {
            let (s, q) = pass_multipliers(f.as_ptr(), g.as_ptr(), top, dg, w, m);
            for t in 0..threads {
                pass(
                    f.as_mut_ptr(),
                    g.as_ptr(),
                    top,
                    dg,
                    (s, q, w),
                    m,
                    t,
                    threads,
                );
            }
        }
        top -= w;
    }
    // SAFETY: remainder_below(df, dg) ≤ df + 1 ≤ f.len().
    unsafe { top_degree(f.as_ptr(), remainder_below(df, dg)) }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::linalg::resultant_strided;
    use std::{vec, vec::Vec};

    /// A normal step by [`normal_multipliers`] and [`normal_coefficient`] (the GPU's
    /// rounds) equals the pass of two terms, coefficient for coefficient, with the
    /// residues' ends among the inputs.
    #[test]
    fn normal_steps_equal_the_pass() {
        let m = Modulus::new(2_147_483_629).unwrap();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = |j: usize| {
            crate::testing::xorshift(&mut x);
            match j % 5 {
                0 => m.m - 1,
                1 => 0,
                _ => (x % m.m as u64) as u32,
            }
        };
        for d in [1usize, 2, 7, 40] {
            let mut f: Vec<u32> = (0..d + 2).map(&mut next).collect();
            let g: Vec<u32> = (0..d + 1).map(|j| next(j + 3) | 1).collect();
            f[d + 1] |= 1;
            let (a, fd) = (f[d + 1], f[d]);
            let mult = normal_multipliers(g[d], a, fd, g[d - 1], m);
            let want: Vec<u32> = (0..d)
                .map(|j| {
                    let below = if j > 0 { g[j - 1] } else { 0 };
                    normal_coefficient(mult, f[j], below, g[j], m)
                })
                .collect();
            // SAFETY: f holds d + 2 coefficients, g d + 1; top = d + 1, w = 2, dg = d.
            unsafe {
                let (s, q) = pass_multipliers(f.as_ptr(), g.as_ptr(), d + 1, d, 2, m);
                assert_eq!((s, m.m - q[0], m.m - q[1]), mult);
                pass(f.as_mut_ptr(), g.as_ptr(), d + 1, d, (s, q, 2), m, 0, 1);
            }
            assert_eq!(f[..d], want[..], "degree {d}");
        }
    }

    fn strided(f: &[u32], g: &[u32], m: Modulus) -> u32 {
        let (mut f, mut g) = (f.to_vec(), g.to_vec());
        // SAFETY: both buffers hold their degree + 1 coefficients, stride 1.
        unsafe {
            resultant_strided(
                f.as_mut_ptr(),
                g.as_mut_ptr(),
                f.len() - 1,
                g.len() - 1,
                1,
                m,
            )
        }
    }

    fn chunked(f: &[u32], g: &[u32], m: Modulus) -> u32 {
        let want = resultant_chunked(&mut f.to_vec(), &mut g.to_vec(), m);
        for threads in [2, 3, 32] {
            let got = resultant_chunked_by(&mut f.to_vec(), &mut g.to_vec(), m, threads);
            assert_eq!(got, want, "{threads} threads");
        }
        want
    }

    #[test]
    fn small_resultants() {
        let m = Modulus::new(2_147_483_647).unwrap();
        for res in [strided, chunked] {
            assert_eq!(res(&[1, 0, 1], &[m.m - 2, 1], m), 5); // res(x² + 1, x − 2) = 5
            assert_eq!(res(&[m.m - 2, 1], &[1, 0, 1], m), 5);
            assert_eq!(res(&[m.m - 1, 0, 1], &[m.m - 1, 1], m), 0); // common factor x − 1
            assert_eq!(res(&[3], &[1, 2, 5], m), 9); // 3²
            assert_eq!(res(&[1, 2, 5], &[3], m), 9);
            assert_eq!(res(&[1, 1], &[1, 0, 0, 1], m), 0); // x + 1 divides x³ + 1
            assert_eq!(res(&[4], &[7], m), 1); // two constants
                                               // res(x² − 2, x² + 3x + 1) = g(√2)·g(−√2) = (3 + 3√2)(3 − 3√2) = −9.
            assert_eq!(res(&[m.m - 2, 0, 1], &[1, 3, 1], m), m.m - 9);
        }
    }

    /// Random pairs of every degree combination up to 12 (and some to 40), with zero
    /// coefficients sprinkled in so that remainders drop several degrees, against
    /// [`resultant_strided`] (one quotient coefficient per pass).
    #[test]
    fn chunked_matches_one_coefficient_per_pass() {
        let m = Modulus::new(1_073_741_827).unwrap();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |zero_one_in: u64| {
            crate::testing::xorshift(&mut x);
            if x.is_multiple_of(zero_one_in) {
                0
            } else {
                (x >> 20) as u32 % m.m
            }
        };
        let mut zero = 0;
        for (df, dg) in (0..13)
            .flat_map(|a| (0..13).map(move |b| (a, b)))
            .chain([(40, 7), (9, 40)])
        {
            for sparse in [1_000_000, 3] {
                let mut poly = |d: usize| {
                    let mut p: Vec<u32> = (0..=d).map(|_| next(sparse)).collect();
                    p[d] = p[d].max(1);
                    p
                };
                let (f, g) = (poly(df), poly(dg));
                let want = strided(&f, &g, m);
                zero += (want == 0) as usize;
                assert_eq!(chunked(&f, &g, m), want, "degrees {df}, {dg}: {f:?} {g:?}");
            }
        }
        // A common factor: (x − 1)·a and (x − 1)·b.
        let times_x_minus_1 = |p: &[u32]| {
            let mut out = vec![0u32; p.len() + 1];
            for (i, &c) in p.iter().enumerate() {
                out[i + 1] = m.add(out[i + 1], c);
                out[i] = m.sub(out[i], c);
            }
            out
        };
        let (a, b) = ([3, 1, 4, 1, 5], [9, 2, 6]);
        assert_eq!(chunked(&times_x_minus_1(&a), &times_x_minus_1(&b), m), 0);
        assert!(zero < 20, "{zero} random pairs had a zero resultant");
    }
}
