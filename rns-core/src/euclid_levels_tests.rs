//! [`resultant_levels`] against [`resultant_chunked`] and the strided elimination: random
//! inputs at degrees on both sides of each level's threshold, remainder sequences built
//! with a step that is not normal where chosen, common factors and the residues' ends.

extern crate std;
use super::*;
use crate::linalg::resultant_strided;
use crate::testing::rng;
use std::{vec, vec::Vec};

const PRIMES: [u32; 3] = [2_147_483_629, 2_147_483_587, 1_073_741_827];

/// A random polynomial of degree `d` (non-zero leading coefficient), with the residues'
/// ends `0, 1, m − 1` among its coefficients.
fn poly(d: usize, m: u32, next: &mut impl FnMut() -> u64) -> Vec<u32> {
    let mut p: Vec<u32> = (0..=d)
        .map(|_| match next() % 8 {
            0 => 0,
            1 => 1,
            2 => m - 1,
            _ => (next() % m as u64) as u32,
        })
        .collect();
    if p[d] == 0 {
        p[d] = m - 1;
    }
    p
}

/// The reference: the chunked passes, checked against the strided elimination.
fn reference(f: &[u32], g: &[u32], m: Modulus) -> u32 {
    let (mut a, mut b) = (f.to_vec(), g.to_vec());
    let r = resultant_chunked(&mut a, &mut b, m);
    let (mut a, mut b) = (f.to_vec(), g.to_vec());
    // SAFETY: a and b hold deg + 1 coefficients each, stride 1.
    let s = unsafe {
        resultant_strided(
            a.as_mut_ptr(),
            b.as_mut_ptr(),
            f.len() - 1,
            g.len() - 1,
            1,
            m,
        )
    };
    assert_eq!(r, s, "the two references differ");
    r
}

fn levels(f: &[u32], g: &[u32], m: Modulus, k: usize) -> u32 {
    levels_counted(f, g, m, k).0
}

/// The value and the levels committed, with scratch full of junk.
fn levels_counted(f: &[u32], g: &[u32], m: Modulus, k: usize) -> (u32, usize) {
    let mut scratch = vec![0xDEAD_BEEF; levels_scratch_len(f.len() - 1, g.len() - 1, k)];
    resultant_levels_with(f, g, m, k, &mut scratch, &mut transform_low)
}

/// Levels a normal pair of degrees `(d, d − 1)` takes: while the degree exceeds `2k`.
fn levels_for(mut d: usize, k: usize) -> usize {
    let mut n = 0;
    while d > 2 * k {
        d -= k;
        n += 1;
    }
    n
}

/// `a·b + c` modulo `m`.
fn mul_add(a: &[u32], b: &[u32], c: &[u32], m: Modulus) -> Vec<u32> {
    let mut out = vec![0u32; (a.len() + b.len() - 1).max(c.len())];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            out[i + j] = m.mul_add(x, y, out[i + j]);
        }
    }
    for (o, &z) in out.iter_mut().zip(c) {
        *o = m.add(*o, z);
    }
    out
}

/// `(r₀, r₁)` whose remainders have the quotients of degrees `degs` (first step first),
/// ending in `last` (a constant, or a common factor of degree ≥ 1).
fn from_quotients(
    degs: &[usize],
    last: &[u32],
    m: Modulus,
    next: &mut impl FnMut() -> u64,
) -> (Vec<u32>, Vec<u32>) {
    let (mut hi, mut lo) = (last.to_vec(), vec![0u32]);
    for &dq in degs.iter().rev() {
        let q = poly(dq, m.m, next);
        let up = mul_add(&q, &hi, &lo, m);
        lo = hi;
        hi = up;
    }
    (hi, lo)
}

#[test]
fn random_inputs_equal_the_chunked_passes() {
    let mut next = rng(0x5DEE_CE66_D1CE_4E5B);
    for &p in &PRIMES {
        let m = Modulus::new(p).unwrap();
        for k in [1usize, 2, 3, 4, 7, 16] {
            // Degrees on both sides of 2k (no level), of each level's end, and of the
            // last level's.
            for d in [
                1,
                2,
                2 * k,
                2 * k + 1,
                2 * k + 2,
                3 * k,
                3 * k + 1,
                4 * k + 1,
                5 * k + 3,
                9 * k + 2,
            ] {
                for dg in [d.saturating_sub(1), d, d + 1, d / 2, 0] {
                    let (f, g) = (poly(d, p, &mut next), poly(dg, p, &mut next));
                    let (got, taken) = levels_counted(&f, &g, m, k);
                    assert_eq!(got, reference(&f, &g, m), "m {p} k {k} ({d}, {dg})");
                    if dg + 1 == d {
                        assert_eq!(taken, levels_for(d, k), "m {p} k {k} ({d}, {dg})");
                    }
                }
            }
        }
    }
}

#[test]
fn steps_that_are_not_normal_anywhere() {
    let mut next = rng(0x0123_4567_89AB_CDEF);
    let m = Modulus::new(PRIMES[0]).unwrap();
    let k = 4;
    for n in [12, 13, 20, 31] {
        // A quotient of degree two at each step in turn: inside a level's tops, at its
        // last step, at the boundary between levels, in the tail.
        for at in 0..n {
            let degs: Vec<usize> = (0..n).map(|i| if i == at { 2 } else { 1 }).collect();
            for last in [vec![5u32], vec![m.m - 1], vec![3, 1]] {
                let (f, g) = from_quotients(&degs, &last, m, &mut next);
                let want = reference(&f, &g, m);
                if last.len() > 1 {
                    assert_eq!(want, 0, "a common factor");
                }
                let (got, taken) = levels_counted(&f, &g, m, k);
                assert_eq!(got, want, "n {n} at {at} last {last:?}");
                // The levels wholly before the step of degree two are committed.
                let d0 = f.len() - 1;
                let before = (0..)
                    .take_while(|&l| (l + 1) * k < at && d0 - l * k > 2 * k)
                    .count();
                assert!(
                    taken >= before.min(levels_for(d0, k)),
                    "n {n} at {at}: {taken} < {before}"
                );
            }
        }
    }
}

#[test]
fn normal_sequences_with_known_resultants() {
    // All quotients of degree one: res = ∏ lc(r_j)² · r_n, from the built remainders.
    let mut next = rng(0xA076_1D64_78BD_642F);
    let m = Modulus::new(PRIMES[1]).unwrap();
    for (n, k) in [(40, 4), (65, 8), (130, 16), (64, 1)] {
        let degs = vec![1; n];
        let (f, g) = from_quotients(&degs, &[7], m, &mut next);
        assert_eq!((f.len(), g.len()), (n + 1, n));
        let (got, taken) = levels_counted(&f, &g, m, k);
        assert_eq!(got, reference(&f, &g, m), "n {n} k {k}");
        assert_eq!(
            taken,
            levels_for(n, k),
            "every level committed, n {n} k {k}"
        );
        assert!(taken >= 2);
    }
}

#[test]
fn structured_inputs_fall_back() {
    // x^n + 1 against x^(n−1) + … sparse: no step is normal.
    let m = Modulus::new(PRIMES[2]).unwrap();
    for n in [9, 10, 33, 64] {
        let mut f = vec![0u32; n + 1];
        f[0] = 1;
        f[n] = 1;
        let mut g = vec![0u32; n];
        g[n - 1] = 1;
        g[n / 2] = m.m - 1;
        g[0] = 2;
        for k in [1, 2, 4] {
            assert_eq!(levels(&f, &g, m, k), reference(&f, &g, m), "n {n} k {k}");
            assert_eq!(
                levels(&g, &f, m, k),
                reference(&g, &f, m),
                "swapped, n {n} k {k}"
            );
        }
    }
}

#[test]
fn no_steps_a_level_is_one() {
    let mut next = rng(99);
    let m = Modulus::new(PRIMES[0]).unwrap();
    let (f, g) = (poly(9, m.m, &mut next), poly(8, m.m, &mut next));
    let want = reference(&f, &g, m);
    let mut scratch = vec![0; levels_scratch_len(9, 8, 1)];
    assert_eq!(resultant_levels(&f, &g, m, 0, &mut scratch), want);
    assert_eq!(levels_counted(&f, &g, m, 0), levels_counted(&f, &g, m, 1));
}

#[test]
fn transform_low_is_the_low_product() {
    let mut next = rng(7);
    let m = Modulus::new(PRIMES[0]).unwrap();
    let (p0, p1) = (poly(5, m.m, &mut next), poly(6, m.m, &mut next));
    let (x0, x1) = (poly(20, m.m, &mut next), poly(19, m.m, &mut next));
    let full = mul_add(&p0, &x0, &mul_add(&p1, &x1, &[0], m), m);
    let mut out = vec![0u32; 18];
    transform_low(&mut out, (&p0, &p1), &x0, &x1, m);
    assert_eq!(out[..], full[..18]);
    // Every term m − 1: the 128-bit sums at their largest.
    let ends = vec![m.m - 1; 300];
    let mut out = vec![0u32; 300];
    transform_low(&mut out, (&ends, &ends), &ends, &ends, m);
    let sq = m.mul(m.m - 1, m.m - 1);
    for (t, &o) in out.iter().enumerate() {
        assert_eq!(o, m.mul(sq, m.reduce_u64(2 * (t as u64 + 1))), "t {t}");
    }
}
