//! The pseudo-remainder `prem(f, g) = c^(deg f − deg g + 1) · f mod g` (`c` the leading
//! coefficient of `g`) over Z, for `deg g` small against `deg f`, by halves: `f`'s
//! coefficients in leaves of at least `deg g` of them, each reduced by schoolbook
//! pseudo-division, then joined pairwise up a tree,
//! `R(lo + x^L·hi) = c^(len hi)·R(lo) + prem(X_L · R(hi))` with `X_L = prem(x^L)` from
//! repeated squaring. Every product is of two polynomials of degree below `deg g` (GMP's
//! subquadratic products on the large coefficients near the root), so the cost is about
//! `deg g² · M(size of the result) · log(deg f)`, against `deg f · deg g` products of
//! growing numbers for the schoolbook division.

use rug::ops::Pow;
use rug::{Complete, Integer};

/// Coefficients of `f` per leaf at least (and at least `deg g`).
const LEAF: usize = 64;

/// `prem(f, g)`, constant term first, `deg g` coefficients (trailing zeros kept), for
/// `f` and `g` given constant term first with `deg f ≥ deg g ≥ 1` (non-zero leading
/// coefficients).
pub fn pseudo_remainder(f: &[Integer], g: &[Integer]) -> Vec<Integer> {
    let k = g.len() - 1;
    let leaf = LEAF.max(k);
    // Leaves of `leaf` coefficients; the last takes the rest (up to `2·leaf − 1`).
    let count = (f.len() / leaf).max(1);
    let leaves: Vec<&[Integer]> = (0..count)
        .map(|i| {
            let end = if i + 1 == count {
                f.len()
            } else {
                (i + 1) * leaf
            };
            &f[i * leaf..end]
        })
        .collect();
    let c = &g[k];
    // `X` for the left halves' lengths `leaf · 2^j`, and `c^(leaf · 2^j)`.
    let mut powers_x = vec![monomial_prem(leaf, g)];
    while (leaf << powers_x.len()) < f.len() {
        let last = powers_x.last().expect("one power at least");
        let sq = mul(last, last);
        powers_x.push(prem_of_product(&sq, g, k - 1));
    }
    let reduced = join(&leaves, g, c, &powers_x, leaf);
    reduced.value
}

/// A reduced run of `f`'s coefficients: `c^(len − k)·run mod g`.
struct Reduced {
    value: Vec<Integer>,
    len: usize,
}

/// The leaves `leaves` joined: the left part a power of two of them.
fn join(
    leaves: &[&[Integer]],
    g: &[Integer],
    c: &Integer,
    powers_x: &[Vec<Integer>],
    leaf: usize,
) -> Reduced {
    if leaves.len() == 1 {
        let run = leaves[0];
        return Reduced {
            value: schoolbook(run, g),
            len: run.len(),
        };
    }
    let j = usize::BITS - 1 - (leaves.len() - 1).leading_zeros();
    let split = 1usize << j;
    let (lo, hi) = rayon::join(
        || join(&leaves[..split], g, c, powers_x, leaf),
        || join(&leaves[split..], g, c, powers_x, leaf),
    );
    debug_assert_eq!(lo.len, leaf << j);
    let k = g.len() - 1;
    let scale = c.clone().pow(hi.len as u32);
    let product = mul(&powers_x[j as usize], &hi.value);
    let shifted = prem_of_product(&product, g, k - 1);
    let value = lo
        .value
        .iter()
        .zip(&shifted)
        .map(|(l, s)| (l * &scale).complete() + s)
        .collect();
    Reduced {
        value,
        len: lo.len + hi.len,
    }
}

/// `prem(x^len)`: `c^(len − k + 1)·x^len mod g` (`len ≥ k`).
fn monomial_prem(len: usize, g: &[Integer]) -> Vec<Integer> {
    let mut x = vec![Integer::new(); len + 1];
    x[len] = Integer::from(1);
    schoolbook(&x, g)
}

/// `c^max(0, len − k)·h mod g`, for `h` of `len` coefficients, by schoolbook
/// pseudo-division: `k` coefficients.
fn schoolbook(h: &[Integer], g: &[Integer]) -> Vec<Integer> {
    let k = g.len() - 1;
    let c = &g[k];
    let mut r: Vec<Integer> = h.to_vec();
    r.resize(r.len().max(k), Integer::new());
    let unit = *c == 1;
    for i in (k..r.len()).rev() {
        let q = std::mem::take(&mut r[i]);
        let shift = i - k;
        if !unit {
            for v in &mut r[..i] {
                *v *= c;
            }
        }
        if q != 0 {
            for (t, gt) in g[..k].iter().enumerate() {
                r[shift + t] -= (&q * gt).complete();
            }
        }
    }
    r.truncate(k);
    r
}

/// `c^e · p mod g` for a product `p` of two reduced polynomials (`len p ≤ 2k − 1`),
/// where `e ≥ len p − k` makes it integral; `k` coefficients.
fn prem_of_product(p: &[Integer], g: &[Integer], e: usize) -> Vec<Integer> {
    let k = g.len() - 1;
    let steps = p.len().saturating_sub(k);
    let mut r = schoolbook(p, g);
    if e > steps {
        let extra = g[k].clone().pow((e - steps) as u32);
        for v in &mut r {
            *v *= &extra;
        }
    }
    r
}

/// The product of two polynomials, schoolbook (`a`, `b` of at most `k` coefficients).
fn mul(a: &[Integer], b: &[Integer]) -> Vec<Integer> {
    let mut out = vec![Integer::new(); a.len() + b.len() - 1];
    for (i, x) in a.iter().enumerate() {
        if *x == 0 {
            continue;
        }
        for (j, y) in b.iter().enumerate() {
            out[i + j] += (x * y).complete();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Schoolbook pseudo-division of the whole of `f`, the definition.
    fn reference(f: &[Integer], g: &[Integer]) -> Vec<Integer> {
        schoolbook(f, g)
    }

    fn ints(v: &[i64]) -> Vec<Integer> {
        v.iter().map(|&x| Integer::from(x)).collect()
    }

    #[test]
    fn by_halves_equals_schoolbook() {
        let mut state = 7u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as i64 % 2001 - 1000
        };
        for (m, k) in [
            (1, 1),
            (63, 1),
            (64, 1),
            (200, 1),
            (300, 3),
            (1000, 7),
            (129, 64),
            (500, 70),
        ] {
            for lead in [1, -1, 3, 1000] {
                let f: Vec<Integer> = (0..=m)
                    .map(|_| Integer::from(next()))
                    .chain([Integer::from(5)])
                    .collect();
                let mut g: Vec<Integer> = (0..k).map(|_| Integer::from(next())).collect();
                g.push(Integer::from(lead));
                assert_eq!(
                    pseudo_remainder(&f, &g),
                    reference(&f, &g),
                    "m {m} k {k} lead {lead}"
                );
            }
        }
        // Zeros: x^m − 1 by x − 1 leaves 0.
        let mut f = ints(&[-1]);
        f.extend(vec![Integer::new(); 999]);
        f.push(Integer::from(1));
        assert_eq!(pseudo_remainder(&f, &ints(&[-1, 1])), vec![Integer::new()]);
    }
}
