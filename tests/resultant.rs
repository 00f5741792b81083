//! Bivariate resultants against Bareiss on the Sylvester matrix at enough points to
//! determine them, and against the univariate path at random points.
//!
//! Univariate resultants against references: Bareiss on the Sylvester matrix (rug),
//! `res(x − a, g) = g(a)`, the symmetry `res(f, g) = (−1)^(mn) res(g, f)`, common factors,
//! constants, and leading coefficients divisible by the primes the basis starts with.

use proptest::prelude::*;
use rns::algo::resultant::basis_for;
use rns::poly::bounds::resultant_bits as bound_bits;
use rns::poly::sylvester::sylvester;
use rns::{resultant, resultant_xy, Backend, BiPoly, IntPoly};
use rns::{Error, RnsBasis};
use rns_suite::{bareiss_det, bipoly_mul, eval_poly, poly_mul as times, resultant_xy_at, Gen};
use rug::Integer;
use std::sync::Arc;

fn poly(g: &mut Gen, degree: usize, bits: u32) -> IntPoly {
    let mut c: Vec<Integer> = (0..=degree).map(|_| g.signed(bits)).collect();
    if c[degree] == 0 {
        c[degree] = Integer::from(1);
    }
    IntPoly::new(c).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn random_resultants_match_bareiss(m in 0usize..9, n in 0usize..9, bits in 1u32..120, seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let (f, h) = (poly(&mut g, m, bits), poly(&mut g, n, bits));
        let r = resultant(&f, &h, &Backend::Cpu).unwrap();
        prop_assert_eq!(&r, &bareiss_det(&sylvester(&f, &h)));
        let sign = if (m * n) % 2 == 1 { -1 } else { 1 };
        prop_assert_eq!(Integer::from(&r * sign), resultant(&h, &f, &Backend::Cpu).unwrap());
    }

    #[test]
    fn linear_factor_gives_the_value(a in any::<i64>(), n in 1usize..12, seed in any::<u64>()) {
        let h = poly(&mut Gen::new(seed), n, 80);
        let x_minus_a = IntPoly::new(vec![Integer::from(-a), Integer::from(1)]).unwrap();
        prop_assert_eq!(resultant(&x_minus_a, &h, &Backend::Cpu).unwrap(), h.eval(&Integer::from(a)));
    }

    #[test]
    fn a_common_factor_gives_zero(seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let d = 1 + g.below(3) as usize;
        let common = poly(&mut g, d, 30);
        let (a, b) = (poly(&mut g, 2, 30), poly(&mut g, 3, 30));
        let r = resultant(&times(&common, &a), &times(&common, &b), &Backend::Cpu).unwrap();
        prop_assert_eq!(r, Integer::new());
    }
}

#[test]
fn constants_follow_the_standard_definition() {
    let cpu = Backend::Cpu;
    let c = IntPoly::from_i64(&[-3]).unwrap();
    let d = IntPoly::from_i64(&[7]).unwrap();
    let g = IntPoly::from_i64(&[1, 2, 0, 5]).unwrap(); // degree 3
    assert_eq!(resultant(&c, &d, &cpu).unwrap(), 1);
    assert_eq!(resultant(&c, &g, &cpu).unwrap(), -27); // (−3)^3
    assert_eq!(resultant(&g, &c, &cpu).unwrap(), -27);
}

#[test]
fn leading_coefficients_divisible_by_the_first_primes() {
    // lc(f) = p0·p1 and lc(g) = p0 for the two largest 31-bit primes: every basis starts
    // with them, and the Sylvester determinant must still come out exact.
    let (p0, p1) = (
        Integer::from(2_147_483_647u32),
        Integer::from(2_147_483_629u32),
    );
    let f = IntPoly::new(vec![
        Integer::from(5),
        Integer::from(-7),
        Integer::from(&p0 * &p1),
    ])
    .unwrap();
    let g = IntPoly::new(vec![
        Integer::from(3),
        Integer::from(1),
        Integer::from(2),
        p0.clone(),
    ])
    .unwrap();
    let r = resultant(&f, &g, &Backend::Cpu).unwrap();
    assert_eq!(r, bareiss_det(&sylvester(&f, &g)));
    assert!(r != 0);
    // The basis the library picks skips p0 and p1, and gives the same answer when given;
    // a basis that holds p0, or too few bits, is refused.
    let basis = basis_for(&f, &g);
    assert!(!basis
        .moduli()
        .iter()
        .any(|m| m.m == 2_147_483_647 || m.m == 2_147_483_629));
    let (given, st) = rns::resultant_with(
        &f,
        &g,
        &Backend::Cpu,
        &rns::ResultantOptions {
            basis: Some(basis.clone()),
        },
    )
    .unwrap();
    assert_eq!((given, st.primes()), (r, basis.range_len()));
    for bad in [
        RnsBasis::for_bits(bound_bits(&f, &g)),
        RnsBasis::largest_primes(1).unwrap(),
    ] {
        let bad = rns::resultant_with(
            &f,
            &g,
            &Backend::Cpu,
            &rns::ResultantOptions {
                basis: Some(Arc::new(bad)),
            },
        );
        assert!(
            matches!(bad, Err(Error::Shape(ref s)) if s.contains("does not suit")),
            "{bad:?}"
        );
    }
}

#[test]
fn zero_and_empty_polynomials_are_errors() {
    assert!(IntPoly::from_i64(&[0, 0]).is_err());
    assert!(IntPoly::parse("", "f").is_err());
    assert!(IntPoly::parse("1 x", "f")
        .unwrap_err()
        .to_string()
        .contains("`x`"));
    assert_eq!(IntPoly::parse("1 2 0 0\n", "f").unwrap().degree(), 1);
}

// ---- Bivariate resultants res_y(f, g) ∈ Z[x] ----

/// Checks `r = res_y(f, g)` against Bareiss on the Sylvester matrix at `D + 1` points
/// (which determines a polynomial of degree ≤ D) and at a few negative and large ones.
fn check_xy(f: &BiPoly, g: &BiPoly, r: &[Integer]) {
    let d = g.deg_y() * f.deg_x() + f.deg_y() * g.deg_x();
    assert!(
        !r.is_empty() && r.len() <= d + 1,
        "degree {} > bound {d}",
        r.len() - 1
    );
    assert!(r.len() == 1 || *r.last().unwrap() != 0, "trailing zero");
    let points = (0..=d as i64).chain([-1, -7, 1 << 40]);
    for a in points.map(Integer::from) {
        assert_eq!(eval_poly(r, &a), resultant_xy_at(f, g, &a), "at x = {a}");
    }
}

fn term(c: i64, i: usize, j: usize) -> (Integer, usize, usize) {
    (Integer::from(c), i, j)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(30))]

    #[test]
    fn random_bivariate_resultants_match_sylvester_determinants(
        fy in 0usize..4, fx in 0usize..4, gy in 0usize..4, gx in 0usize..4,
        bits in 1u32..70, seed in any::<u64>(),
    ) {
        let mut gen = Gen::new(seed);
        let (f, g) = (gen.bipoly(fy, fx, bits), gen.bipoly(gy, gx, bits));
        let r = resultant_xy(&f, &g, &Backend::Cpu).unwrap();
        check_xy(&f, &g, &r);
    }

    #[test]
    fn bivariate_at_a_point_is_the_univariate_resultant(seed in any::<u64>(), a in -50i64..50) {
        let mut gen = Gen::new(seed);
        let (f, g) = (gen.bipoly(3, 4, 40), gen.bipoly(2, 5, 40));
        let r = resultant_xy(&f, &g, &Backend::Cpu).unwrap();
        let a = Integer::from(a);
        let (fa, ga) = (f.at_x(&a), g.at_x(&a));
        // The univariate path needs the degrees kept: skip points where a leading coefficient vanishes.
        prop_assume!(*fa.last().unwrap() != 0 && *ga.last().unwrap() != 0);
        let uni = resultant(&IntPoly::new(fa).unwrap(), &IntPoly::new(ga).unwrap(), &Backend::Cpu).unwrap();
        prop_assert_eq!(eval_poly(&r, &a), uni);
    }

    #[test]
    fn a_common_factor_in_y_gives_the_zero_polynomial(seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let dy = 1 + gen.below(2) as usize;
        let h = gen.bipoly(dy, 2, 20);
        let (a, b) = (gen.bipoly(1, 2, 20), gen.bipoly(2, 1, 20));
        let r = resultant_xy(&bipoly_mul(&h, &a), &bipoly_mul(&h, &b), &Backend::Cpu).unwrap();
        prop_assert_eq!(r, vec![Integer::new()]);
    }
}

#[test]
fn bivariate_constants_in_y_follow_the_standard_definition() {
    let cpu = Backend::Cpu;
    let c = BiPoly::new([term(3, 0, 0), term(-2, 1, 0)]).unwrap(); // 3 − 2x, degree 0 in y
    let g = BiPoly::new([term(1, 0, 2), term(1, 1, 0)]).unwrap(); // y² + x
                                                                  // res_y(c, g) = c² = 9 − 12x + 4x², either way round (deg_y c = 0: no sign).
    assert_eq!(resultant_xy(&c, &g, &cpu).unwrap(), [9, -12, 4]);
    assert_eq!(resultant_xy(&g, &c, &cpu).unwrap(), [9, -12, 4]);
    let d = BiPoly::new([term(5, 0, 0)]).unwrap();
    assert_eq!(resultant_xy(&c, &d, &cpu).unwrap(), [1]); // two constants in y
                                                          // A constant in x but not in y: the univariate resultant as a constant polynomial.
    let e = BiPoly::new([term(1, 0, 2), term(1, 0, 0)]).unwrap(); // y² + 1
    let h = BiPoly::new([term(1, 0, 1), term(-2, 0, 0)]).unwrap(); // y − 2
    assert_eq!(resultant_xy(&e, &h, &cpu).unwrap(), [5]);
}

#[test]
fn vanishing_leading_coefficients_drop_points_and_skip_primes() {
    // lc_y(f) = p0·p1·x(x − 1)(x − 2)(x − 3): the first four points are dropped for every
    // prime, and p0, p1 (the primes every basis starts with) are skipped.
    let (p0, p1) = (2_147_483_647i64, 2_147_483_629i64);
    let lc: [i64; 5] = [0, -6, 11, -6, 1]; // x(x − 1)(x − 2)(x − 3)
    let mut terms: Vec<_> = lc
        .iter()
        .enumerate()
        .map(|(i, &c)| (Integer::from(c) * p0 * p1, i, 2))
        .collect();
    terms.extend([term(-5, 0, 0), term(7, 3, 1), term(1, 1, 0)]);
    let f = BiPoly::new(terms).unwrap();
    let g = BiPoly::new([term(2, 0, 3), term(-1, 2, 1), term(9, 0, 0), term(4, 1, 3)]).unwrap();
    let r = resultant_xy(&f, &g, &Backend::Cpu).unwrap();
    check_xy(&f, &g, &r);
    assert!(r.len() > 1);
}

#[test]
fn bivariate_files_parse_and_bad_ones_are_errors() {
    let f = BiPoly::parse("# f\n3 0 0\n-2 1 0\n\n1 2 1\n1 2 1\n", "f").unwrap();
    assert_eq!((f.deg_y(), f.deg_x()), (1, 2));
    assert_eq!(f.row(1), [0, 0, 2]);
    for (text, needle) in [
        ("", "empty"),
        ("0 1 1\n", "zero polynomial"),
        ("1 2\n", "got 2 tokens"),
        ("x 1 1\n", "`x`"),
        ("1 -1 0\n", "`-1`"),
        ("1 100000 100000\n", "too large"),
        // Exponents at usize::MAX (found by the fuzzer: `i + 1` overflowed).
        ("1 2 18446744073709551615\n", "too large"),
        ("1 18446744073709551615 0\n", "too large"),
    ] {
        let e = BiPoly::parse(text, "f").unwrap_err().to_string();
        assert!(e.contains(needle), "{text:?}: {e}");
    }
}

/// The bounds at their smallest, where the formulas give exact values (their slack and
/// the `+ 1` margin included), and the statistics of a bivariate resultant.
#[test]
fn bounds_and_statistics_of_small_cases() {
    use rns::poly::bounds::{resultant_bits as bound_bits, resultant_xy_bits as bound_bits_xy};
    let x = IntPoly::from_i64(&[0, 1]).unwrap();
    // ‖x‖ = 1: Hadamard 2^0, rounded up through the slack to 1 bit, plus the margin.
    assert_eq!(bound_bits(&x, &x), 2);
    let y = BiPoly::from_rows(vec![vec![Integer::new()], vec![Integer::from(1)]]).unwrap();
    assert_eq!(bound_bits_xy(&y, &y), 2);
    // f = y² − x, g = y − 2: res_y = 4 − x, of degree bound gy·fx + fy·gx = 1.
    let f = BiPoly::new([(Integer::from(1), 0, 2), (Integer::from(-1), 1, 0)]).unwrap();
    let g = BiPoly::new([(Integer::from(1), 0, 1), (Integer::from(-2), 0, 0)]).unwrap();
    let (r, st) =
        rns::resultant_xy_with(&f, &g, &Backend::Cpu, &rns::ResultantOptions::default()).unwrap();
    assert_eq!(r, [Integer::from(4), Integer::from(-1)]);
    assert_eq!((st.degree_bound, st.backend), (1, "cpu"));
    assert!(st.candidates > st.degree_bound, "{st:?}");
}
