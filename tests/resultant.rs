//! Univariate resultants against references: Bareiss on the Sylvester matrix (rug),
//! `res(x − a, g) = g(a)`, the symmetry `res(f, g) = (−1)^(mn) res(g, f)`, common factors,
//! constants, and leading coefficients divisible by the primes the basis starts with.

use proptest::prelude::*;
use rns::resultant::sylvester;
use rns::{resultant, Backend, IntPoly};
use rns_suite::{bareiss_det, Gen};
use rug::Integer;

fn poly(g: &mut Gen, degree: usize, bits: u32) -> IntPoly {
    let mut c: Vec<Integer> = (0..=degree).map(|_| g.signed(bits)).collect();
    if c[degree] == 0 {
        c[degree] = Integer::from(1);
    }
    IntPoly::new(c).unwrap()
}

/// The product of two polynomials.
fn times(a: &IntPoly, b: &IntPoly) -> IntPoly {
    let mut c = vec![Integer::new(); a.degree() + b.degree() + 1];
    for (i, x) in a.coeffs().iter().enumerate() {
        for (j, y) in b.coeffs().iter().enumerate() {
            c[i + j] += Integer::from(x * y);
        }
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
