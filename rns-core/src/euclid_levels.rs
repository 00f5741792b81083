//! Euclid's resultant modulo one prime by levels of `k` normal steps: each level's
//! quotients from the remainders' top `2k + 1` coefficients alone, then one product of
//! its 2×2 transform with the whole remainders. The quadratic work shrinks from about
//! `deg²` step products to `2·deg·k` (the tops), and the rest becomes a product of
//! polynomials ([`transform_low`]), which a device can do as a matrix product.
//!
//! **Normal steps.** With `deg r₀ = d` and `deg r₁ = d − 1`, Euclid's remainders
//! `r_{j+1} = r_{j−1} − q_j·r_j` are *normal* when every degree drops by one (`q_j` of
//! degree one). Then `res(r_{j−1}, r_j) = lc(r_j)²·res(r_j, r_{j+1})` (the sign
//! `(−1)^{(d−j+1)(d−j)}` is `+1`), so `res(r₀, r₁) = ∏_{j ≤ J} lc(r_j)² · res(r_J, r_{J+1})`.
//!
//! **The tops.** Coefficient `t` of `r_j` depends on the coefficients `≥ t − (j − 1)` of
//! `r₀` and `r₁` only (each step shifts `r_j` up by one). So `r₀[s …]` and `r₁[s …]`,
//! `s = d − 2k`, give `q₁ … q_k` and `lc(r₁) … lc(r_k)` exactly ([`level_steps`]), and the
//! product `M = Q_k ⋯ Q₁` of the steps' matrices `Q_j = [[0, 1], [1, −q_j]]`, whose
//! entries have degree at most `k`. Then `(r_k, r_{k+1}) = M·(r₀, r₁)`, of which only the
//! coefficients below `d − k + 1` are needed ([`transform_low`]).
//!
//! **Not normal.** A zero leading coefficient among the tops' remainders, or `r_{k+1}`
//! short of degree `d − k − 1`, ends the levels: the level is dropped and the rest is
//! [`resultant_chunked`]'s, from the last level's remainders. Generic inputs modulo a
//! 31-bit prime are normal throughout with probability about `1 − deg/m`.

use crate::euclid::{divide_by, resultant_chunked, step_exponents};
use crate::modulus::mad_wide;
use crate::Modulus;

/// Words of scratch [`resultant_levels`] needs for degrees `df`, `dg` and `k` steps a
/// level: four remainders, the two tops and the transform's four entries.
pub const fn levels_scratch_len(df: usize, dg: usize, k: usize) -> usize {
    let n = if df > dg { df + 1 } else { dg + 1 };
    let k = if k == 0 { 1 } else { k };
    4 * n + (4 * k + 1) + 4 * (k + 1)
}

/// The resultant modulo `m` of `f` and `g` (constant terms first, non-zero leading
/// coefficients, at least one coefficient each), by levels of `k` normal steps (`k = 0`
/// is taken as 1) while the degree exceeds `2k`, then [`resultant_chunked`]. `scratch` holds at least
/// [`levels_scratch_len`] words. Equal to [`resultant_chunked`] for every input.
pub fn resultant_levels(f: &[u32], g: &[u32], m: Modulus, k: usize, scratch: &mut [u32]) -> u32 {
    resultant_levels_with(f, g, m, k, scratch, &mut transform_low).0
}

/// The product [`resultant_levels_with`] applies each level's transform by: as
/// [`transform_low`], `out` from `(p₀, p₁)`, `x₀`, `x₁` modulo `m`.
pub type Product<'a> = dyn FnMut(&mut [u32], (&[u32], &[u32]), &[u32], &[u32], Modulus) + 'a;

/// [`resultant_levels`] with each level's transform applied by `product` (which must
/// give what [`transform_low`] gives: a faster product, or a device's), and the number
/// of levels committed.
pub fn resultant_levels_with(
    f: &[u32],
    g: &[u32],
    m: Modulus,
    k: usize,
    scratch: &mut [u32],
    product: &mut Product<'_>,
) -> (u32, usize) {
    let k = k.max(1);
    let (mut f, mut g) = (f, g);
    let mut sign = false;
    if f.len() < g.len() {
        // res(f, g) = (−1)^(df·dg)·res(g, f).
        sign = (f.len() - 1) % 2 == 1 && (g.len() - 1) % 2 == 1;
        core::mem::swap(&mut f, &mut g);
    }
    let (df, dg) = (f.len() - 1, g.len() - 1);
    let mut taken = 0;
    let res = if dg == 0 {
        m.pow(g[0], df as u64)
    } else {
        let n = df + 1;
        let (bufs, rest) = scratch.split_at_mut(4 * n);
        let (cur, next) = bufs.split_at_mut(2 * n);
        let (mut u, mut v) = cur.split_at_mut(n);
        u.copy_from_slice(f);
        v[..dg + 1].copy_from_slice(g);
        let (mut d, mut dv, mut num, mut den) = (df, dg, 1u32, 1u32);
        if df != dg + 1 {
            // One step by a division first: (f, g) → (g, c·(f mod g)).
            let Some(r) = divide_by(u, v, (df, dg), m, 1) else {
                return (0, 0);
            };
            let (up, down) = step_exponents(df, dg, r);
            num = m.pow(g[dg], up);
            den = m.pow(g[dg], down);
            if df % 2 == 1 && dg % 2 == 1 {
                num = m.neg(num);
            }
            core::mem::swap(&mut u, &mut v); // (u, v) = (g, the remainder)
            (d, dv) = (dg, r);
        }
        let (lcs, tail) = if dv + 1 == d {
            let mut pair = (u, v);
            let mut spare = next.split_at_mut(n);
            let lcs;
            (lcs, taken) = levels(&mut pair, &mut spare, &mut d, k, m, rest, product);
            (lcs, finish(pair.0, pair.1, d, d - 1, m))
        } else {
            (1, finish(u, v, d, dv, m)) // the first remainder is not normal
        };
        m.mul(m.mul(m.mul(num, lcs), tail), m.inv(den).unwrap_or(0))
    };
    (if sign { m.neg(res) } else { res }, taken)
}

/// Remainders `(r_j, r_{j+1})`, each in a buffer of its own.
type Pair<'a> = (&'a mut [u32], &'a mut [u32]);

/// Levels of `k` normal steps from `pair` of degrees `(d, d − 1)` while `d > 2k`, each
/// level written into `spare` and then exchanged with `pair`: the product of the
/// committed steps' `lc(r_j)²` and how many levels were committed. On return `pair`
/// holds the remainders, of degrees `(d, d − 1)`.
fn levels<'a>(
    pair: &mut Pair<'a>,
    spare: &mut Pair<'a>,
    d: &mut usize,
    k: usize,
    m: Modulus,
    scratch: &mut [u32],
    product: &mut Product<'_>,
) -> (u32, usize) {
    let (tops, mat) = scratch.split_at_mut(4 * k + 1);
    let (mut acc, mut taken) = (1u32, 0);
    while *d > 2 * k {
        let (src_u, src_v) = (&pair.0[..=*d], &pair.1[..*d]);
        let s = *d - 2 * k;
        let (tu, tv) = tops.split_at_mut(2 * k + 1);
        tu.copy_from_slice(&src_u[s..]);
        tv.copy_from_slice(&src_v[s..]);
        let Some(level) = level_steps(tu, tv, k, m, mat) else {
            break;
        };
        let e = *d - k; // deg r_k
        let (m0, m1) = mat.split_at(2 * (k + 1));
        let (dst_u, dst_v) = (&mut spare.0[..=e], &mut spare.1[..e]);
        product(dst_u, (&m0[..k + 1], &m0[k + 1..]), src_u, src_v, m);
        product(dst_v, (&m1[..k + 1], &m1[k + 1..]), src_u, src_v, m);
        if dst_v[e - 1] == 0 {
            break; // r_{k+1} is not normal: the level is dropped
        }
        acc = m.mul(acc, level);
        taken += 1;
        *d = e;
        core::mem::swap(pair, spare);
    }
    (acc, taken)
}

/// `res(u, v)` with `deg u = du`, `deg v = dv < du` (`v[dv] ≠ 0`), by
/// [`resultant_chunked`]; both are overwritten.
fn finish(u: &mut [u32], v: &mut [u32], du: usize, dv: usize, m: Modulus) -> u32 {
    resultant_chunked(&mut u[..=du], &mut v[..=dv], m)
}

/// `k` normal steps on the tops of `r₀` (`u`, `2k + 1` coefficients, `lc` last) and `r₁`
/// (`v`, `2k` coefficients, non-zero `lc` last): `∏_{j ≤ k} lc(r_j)²`, with the transform
/// `M = Q_k ⋯ Q₁` in `mat` (`4·(k + 1)` words: `M₀₀, M₀₁, M₁₀, M₁₁`, constant terms first,
/// so that `r_k = M₀₀·r₀ + M₀₁·r₁` and `r_{k+1} = M₁₀·r₀ + M₁₁·r₁`). `None` when a
/// remainder among `r₂ … r_k` is not normal. `u` and `v` are overwritten.
pub fn level_steps(
    u: &mut [u32],
    v: &mut [u32],
    k: usize,
    m: Modulus,
    mat: &mut [u32],
) -> Option<u32> {
    let w = k + 1;
    mat[..4 * w].fill(0);
    // Rows of the cofactors: `a` belongs to the remainder in `x`, `b` to the one in `y`.
    let (a, b) = mat[..4 * w].split_at_mut(2 * w);
    a[0] = 1; // r₀ = 1·r₀ + 0·r₁
    b[w] = 1; // r₁ = 0·r₀ + 1·r₁
    let (mut x, mut y): (&mut [u32], &mut [u32]) = (u, v);
    let (mut ra, mut rb): (&mut [u32], &mut [u32]) = (a, b);
    let mut acc = 1u32;
    for j in 1..=k {
        // x = r_{j−1}: lc at `top`; y = r_j: lc at `top − 1`.
        let top = 2 * k + 1 - j;
        let lc = y[top - 1];
        let inv = m.inv(lc)?; // none: r_j's degree dropped by more than one
        acc = m.mul(acc, m.mul(lc, lc));
        let alpha = m.mul(x[top], inv);
        let c = m.sub(x[top - 1], m.mul(alpha, y[top - 2]));
        let beta = m.mul(c, inv);
        // x ← x − (αx + β)·y below `top − 1`; then (x, y) ← (y, x).
        let (na, nb) = (m.m - alpha, m.m - beta);
        x[0] = m.reduce_wide(mad_wide(nb, y[0], x[0] as u64));
        for t in 1..top - 1 {
            let acc2 = mad_wide(na, y[t - 1], x[t] as u64);
            x[t] = m.reduce_wide(mad_wide(nb, y[t], acc2));
        }
        x[top - 1] = 0;
        x[top] = 0;
        // The cofactors: row(x) ← row(x) − (αx + β)·row(y), entries of degree ≤ j.
        for half in 0..2 {
            let (px, py) = (
                &mut ra[half * w..(half + 1) * w],
                &rb[half * w..(half + 1) * w],
            );
            for t in 0..=j {
                let below = if t > 0 { py[t - 1] } else { 0 };
                let acc2 = mad_wide(na, below, px[t] as u64);
                px[t] = m.reduce_wide(mad_wide(nb, py[t], acc2));
            }
        }
        core::mem::swap(&mut x, &mut y);
        core::mem::swap(&mut ra, &mut rb);
    }
    // After k swaps the row of r_k is in `ra`, of r_{k+1} in `rb`: written in order.
    if k % 2 == 1 {
        // ra is the original `b` half: exchange the halves' contents.
        let (a, b) = mat[..4 * w].split_at_mut(2 * w);
        a.swap_with_slice(b);
    }
    Some(acc)
}

/// `out[t] = Σ_i p₀[i]·x₀[t − i] + Σ_i p₁[i]·x₁[t − i]` for `t < out.len()`, over the
/// terms inside both operands: the low coefficients of `p₀·x₀ + p₁·x₁`. The products are
/// summed exactly in two 64-bit limbs and reduced once.
pub fn transform_low(
    out: &mut [u32],
    (p0, p1): (&[u32], &[u32]),
    x0: &[u32],
    x1: &[u32],
    m: Modulus,
) {
    for (t, o) in out.iter_mut().enumerate() {
        let (mut lo, mut hi) = (0u64, 0u64);
        for (p, x) in [(p0, x0), (p1, x1)] {
            let first = t.saturating_sub(x.len().saturating_sub(1));
            for i in first..p.len().min(t + 1) {
                let (s, c) = lo.overflowing_add(p[i] as u64 * x[t - i] as u64);
                lo = s;
                hi += c as u64;
            }
        }
        *o = m.reduce_limbs(&[lo, hi]);
    }
}

#[cfg(test)]
#[path = "euclid_levels_tests.rs"]
mod tests;
