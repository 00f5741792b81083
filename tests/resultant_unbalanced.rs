//! Resultants with one degree small against the other (the pseudo-remainder by halves,
//! `rns::algo::resultant_unbalanced`) and with a constant, against known answers:
//! `res(b·x − a, f) = Σ f_i·a^i·b^(m−i)` and multiplicativity over chosen rational roots,
//! on both sides of the degree from which the path applies (2047, 2048), small degrees 1,
//! 3, 16 and 17 (the multimodular path), leading coefficients ±1 and not, a common root
//! (0), both orders, constants; and `1 + x + … + x^1000000` against `1 + x` and `2 + x`.

use rns::algo::resultant_unbalanced::{LARGE_FROM, SMALL_MAX};
use rns::{resultant, Backend, IntPoly};
use rns_suite::Gen;
use rug::ops::Pow;
use rug::Integer;

/// `res(b·x − a, f)`: `b^m·f(a/b)`, by Horner.
fn linear_res(b: i64, a: i64, f: &IntPoly) -> Integer {
    let (mut acc, mut pb) = (Integer::new(), Integer::from(1));
    for c in f.coeffs().iter().rev() {
        acc = acc * a + c * pb.clone();
        pb *= b;
    }
    acc
}

/// `g = ∏ (b_j·x − a_j)` and `res(f, g) = (−1)^(m·k)·∏ res(b_j·x − a_j, f)`.
fn with_roots(f: &IntPoly, roots: &[(i64, i64)]) -> (IntPoly, Integer) {
    let mut g = vec![Integer::from(1)];
    let mut res_g_f = Integer::from(1);
    for &(b, a) in roots {
        let mut next = vec![Integer::new(); g.len() + 1];
        for (i, c) in g.iter().enumerate() {
            next[i + 1] += c * Integer::from(b);
            next[i] -= c * Integer::from(a);
        }
        g = next;
        res_g_f *= linear_res(b, a, f);
    }
    let (m, k) = (f.degree(), roots.len());
    let sign = if m * k % 2 == 1 { -1 } else { 1 };
    (IntPoly::new(g).unwrap(), res_g_f * sign)
}

fn poly(gen: &mut Gen, degree: usize, bits: u32) -> IntPoly {
    let mut c: Vec<Integer> = (0..=degree).map(|_| gen.signed(bits)).collect();
    c[degree] = Integer::from(1) + gen.signed(3).abs();
    IntPoly::new(c).unwrap()
}

#[test]
fn small_against_large_degrees_match_known_answers() {
    let cpu = Backend::Cpu;
    let mut gen = Gen::new(11);
    assert_eq!((LARGE_FROM, SMALL_MAX), (2048, 16));
    let roots: Vec<(i64, i64)> = (0..17i64).map(|j| (1 + j % 3, j - 8)).collect();
    for (m, k) in [
        (2047, 1),
        (2048, 1),
        (2048, 3),
        (3000, 16),
        (2500, 17),
        (5000, 2),
    ] {
        let f = poly(&mut gen, m, 20);
        for lead_one in [true, false] {
            let chosen: Vec<(i64, i64)> = roots[..k]
                .iter()
                .map(|&(b, a)| (if lead_one { 1 } else { b }, a))
                .collect();
            let (g, want) = with_roots(&f, &chosen);
            let what = format!("deg {m} against deg {k}, monic {lead_one}");
            assert_eq!(resultant(&f, &g, &cpu).unwrap(), want, "{what}");
            // The other order: (−1)^(m·k) times.
            let sign = if m * k % 2 == 1 { -1 } else { 1 };
            assert_eq!(
                resultant(&g, &f, &cpu).unwrap(),
                want * sign,
                "{what}, swapped"
            );
        }
    }
    // A common root: f with the factor 2x − 3, g with the root 3/2.
    let f = poly(&mut gen, 3000, 10);
    let mut fc = vec![Integer::new(); f.degree() + 2];
    for (i, c) in f.coeffs().iter().enumerate() {
        fc[i + 1] += c * Integer::from(2);
        fc[i] -= c * Integer::from(3);
    }
    let common = IntPoly::new(fc).unwrap();
    let (g, want) = with_roots(&common, &[(2, 3), (1, 5)]);
    assert_eq!(want, 0);
    assert_eq!(resultant(&common, &g, &cpu).unwrap(), 0, "a common root");
    // Constants: res(f, c) = c^deg f, res(c, g) = c^deg g.
    let c = IntPoly::from_i64(&[-3]).unwrap();
    assert_eq!(
        resultant(&f, &c, &cpu).unwrap(),
        Integer::from(-3).pow(3000u32)
    );
    assert_eq!(
        resultant(&c, &f, &cpu).unwrap(),
        Integer::from(-3).pow(3000u32)
    );
}

#[test]
fn a_million_ones_against_linear_polynomials() {
    let n = 1_000_000;
    let f = IntPoly::new(vec![Integer::from(1); n + 1]).unwrap();
    let cpu = Backend::Cpu;
    // res(f, x + 1) = f(−1) = 1 (n even); res(f, x + 2) = f(−2) = (1 + 2^(n+1)) / 3.
    assert_eq!(
        resultant(&f, &IntPoly::from_i64(&[1, 1]).unwrap(), &cpu).unwrap(),
        1
    );
    let want = (Integer::from(1) + Integer::from(2).pow((n + 1) as u32)) / 3;
    let two = IntPoly::from_i64(&[2, 1]).unwrap();
    assert_eq!(resultant(&f, &two, &cpu).unwrap(), want);
}
