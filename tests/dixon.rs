//! Dixon's p-adic solve against the multimodular solve and exact rational elimination
//! (rug), on random and adversarial systems: mixed entry sizes, unimodular matrices,
//! several right-hand sides, matrices singular modulo the primes Dixon tries, singular
//! matrices, zero right-hand sides.

use rns::algo::lift::cpu::solve as solve_dixon;
use rns::algo::lift::DixonSolution;
use rns::{Backend, Error, IntMatrix, Method};
use rns_suite::{naive_matmul, rational_solve, words_of, Gen};
use rug::{Integer, Rational};

/// The solution as fractions, row-major.
fn fractions(s: &DixonSolution) -> Vec<Rational> {
    s.numerators
        .iter()
        .map(|y| Rational::from((y.clone(), s.denominator.clone())))
        .collect()
}

/// Checks `s` against the multimodular solve, and that its denominator is the least.
fn check(a: &IntMatrix, b: &IntMatrix, s: &DixonSolution, what: &str) {
    let want = rns::solve(a, b, &Backend::Cpu).unwrap();
    assert_eq!(fractions(s), want.entries(), "{what}");
    let lcm = want
        .entries()
        .iter()
        .fold(Integer::from(1), |d, x| d.lcm(x.denom()));
    assert_eq!(s.denominator, lcm, "{what}: the least common denominator");
}

#[test]
fn random_systems_match_the_multimodular_solve() {
    let mut g = Gen::new(14);
    for (n, l, bits) in [
        (1, 1, 5),
        (2, 1, 64),
        (5, 3, 10),
        (17, 1, 100),
        (30, 2, 63),
        (40, 1, 200),
        (64, 1, 64),
        (25, 4, 300),
        // Rows split among threads: residuals in 128 bits, then in big integers; both
        // sides of where 128 bits end (118 + 6 + 1 bits, then 119 + 6 + 1).
        (100, 1, 64),
        (80, 3, 40),
        (60, 2, 118),
        (60, 1, 119),
        (90, 2, 120),
    ] {
        let (a, b) = (g.matrix(n, n, bits), g.matrix(n, l, bits));
        let s = solve_dixon(&a, &b)
            .unwrap()
            .expect("invertible modulo a prime");
        check(&a, &b, &s, &format!("{n}×{n}, {l} rhs, {bits} bits"));
        if n <= 5 && l == 1 {
            assert_eq!(fractions(&s), rational_solve(&a, &b).unwrap());
        }
    }
}

#[test]
fn mixed_sizes_unimodular_and_zero_right_hand_sides() {
    let mut g = Gen::new(7);
    // Entries of 1 to 500 bits in one matrix (several limbs beside one-limb ones).
    let n = 12;
    let data: Vec<Integer> = (0..n * n)
        .map(|e| g.signed([1, 2, 61, 62, 63, 64, 500][e % 7]))
        .collect();
    let a = IntMatrix::new(n, n, data).unwrap();
    let b = g.matrix(n, 2, 40);
    check(
        &a,
        &b,
        &solve_dixon(&a, &b).unwrap().unwrap(),
        "mixed sizes",
    );
    // Unimodular (upper unitriangular times lower): denominator 1.
    let mut u = IntMatrix::identity(n).entries().to_vec();
    let mut lo = u.clone();
    for i in 0..n {
        for j in i + 1..n {
            u[i * n + j] = g.signed(30);
            lo[j * n + i] = g.signed(30);
        }
    }
    let a = naive_matmul(
        &IntMatrix::new(n, n, u).unwrap(),
        &IntMatrix::new(n, n, lo).unwrap(),
    );
    let s = solve_dixon(&a, &b).unwrap().unwrap();
    assert_eq!(s.denominator, 1);
    check(&a, &b, &s, "unimodular");
    let zero = IntMatrix::new(n, 1, vec![Integer::new(); n]).unwrap();
    let s = solve_dixon(&a, &zero).unwrap().unwrap();
    assert!(s.numerators.iter().all(|y| *y == 0) && s.denominator == 1);
    // A small solution of a large system: found by an early try, the threads stopped
    // midway.
    let (a, x0) = (g.matrix(100, 100, 64), g.matrix(100, 1, 10));
    let b = naive_matmul(&a, &x0);
    let s = solve_dixon(&a, &b).unwrap().unwrap();
    assert_eq!(
        (&s.numerators[..], s.denominator.to_u32()),
        (x0.entries(), Some(1))
    );
    assert!(s.steps <= 32, "{} steps", s.steps);
}

#[test]
fn singular_matrices_are_left_to_the_multimodular_solve() {
    let mut g = Gen::new(3);
    let b = g.matrix(6, 1, 20);
    // Singular over Q: singular modulo every prime.
    let a = g.low_rank(6, 6, 4, 20);
    assert_eq!(solve_dixon(&a, &b).unwrap(), None);
    // A zero column: singular, said at once.
    let mut z = g.matrix(6, 6, 20).entries().to_vec();
    for i in 0..6 {
        z[i * 6 + 2] = Integer::new();
    }
    let z = IntMatrix::new(6, 6, z).unwrap();
    assert!(matches!(solve_dixon(&z, &b), Err(Error::Singular { .. })));
    // det = the product of the three largest 31-bit primes: singular modulo each prime
    // Dixon tries, though invertible over Q.
    let primes: Vec<u32> = rns_core::prime::moduli_descending(|_| false)
        .take(3)
        .collect();
    let mut d = IntMatrix::identity(6).entries().to_vec();
    d[0] = primes.iter().fold(Integer::from(1), |x, &p| x * p);
    d[1] = g.signed(40);
    let d = IntMatrix::new(6, 6, d).unwrap();
    assert_eq!(solve_dixon(&d, &b).unwrap(), None);
    // One of them only: the next prime lifts.
    let mut e = IntMatrix::identity(6).entries().to_vec();
    e[0] = Integer::from(primes[0]) * 3;
    let e = IntMatrix::new(6, 6, e).unwrap();
    let s = solve_dixon(&e, &b).unwrap().unwrap();
    assert_eq!(s.prime, primes[1]);
    check(&e, &b, &s, "singular modulo the first prime");
}

#[test]
fn bad_shapes_are_errors() {
    let a = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    let b = IntMatrix::from_i64(2, 1, &[1, 2]).unwrap();
    assert!(matches!(solve_dixon(&a, &b), Err(Error::Shape(_))));
    let a = IntMatrix::from_i64(2, 2, &[1, 2, 3, 4]).unwrap();
    let b = IntMatrix::from_i64(3, 1, &[1, 2, 3]).unwrap();
    assert!(matches!(solve_dixon(&a, &b), Err(Error::Shape(_))));
    let empty = IntMatrix::new(0, 0, vec![]).unwrap();
    let s = solve_dixon(&empty, &IntMatrix::new(0, 1, vec![]).unwrap())
        .unwrap()
        .unwrap();
    assert!(s.numerators.is_empty() && s.denominator == 1);
}

/// The determinant by both methods against Bareiss (rug), for one matrix.
fn det_both(a: &IntMatrix, what: &str) -> Integer {
    let want = rns_suite::bareiss_det(a);
    for method in [Method::Dixon, Method::Multimodular, Method::Auto] {
        let (d, st) = rns::det_with(a, &Backend::Cpu, &rns::DetOptions { method }).unwrap();
        assert_eq!(d, want, "{what}: {method}");
        if method == Method::Multimodular {
            assert_eq!(st.method, "multimodular");
        }
    }
    want
}

#[test]
fn divisor_trick_determinants_match_bareiss() {
    let mut g = Gen::new(60);
    for (n, bits) in [(1, 10), (2, 64), (40, 20), (45, 100), (64, 64), (41, 1)] {
        let a = g.matrix(n, n, bits);
        det_both(&a, &format!("{n}×{n} {bits}-bit"));
        let (_, st) = rns::det_with(&a, &Backend::Cpu, &Method::Dixon.into()).unwrap();
        assert_eq!(st.method, "dixon");
        // The divisor is most of the determinant: few primes remain.
        if n >= 40 && bits >= 20 {
            assert!(
                st.primes <= 4,
                "{n}×{n}: {} primes after the divisor",
                st.primes
            );
        }
    }
    let n = 40;
    // Unimodular: det ±1.
    let mut u = IntMatrix::identity(n).entries().to_vec();
    for i in 0..n {
        for j in i + 1..n {
            u[i * n + j] = g.signed(20);
        }
    }
    let u = naive_matmul(
        &IntMatrix::new(n, n, u.clone()).unwrap(),
        &IntMatrix::new(n, n, u).unwrap().transpose(),
    );
    assert_eq!(det_both(&u, "unimodular").as_abs().to_u32(), Some(1));
    // A large square factor and a small divisor: 6·U, U unimodular, has det ±6^n but
    // the solution's denominators are 6 at most, so det / d needs many primes.
    let six: Vec<Integer> = u.entries().iter().map(|x| Integer::from(x * 6)).collect();
    let six = IntMatrix::new(n, n, six).unwrap();
    let d6 = det_both(&six, "6·U");
    assert_eq!(
        Integer::from(d6.abs_ref()),
        Integer::from(Integer::u_pow_u(6, n as u32))
    );
    let (_, st) = rns::det_with(&six, &Backend::Cpu, &Method::Dixon.into()).unwrap();
    assert!(st.divisor_bits <= 3 && st.primes > 3, "{st:?}");
}

#[test]
fn singular_determinants_and_primes_that_divide_them() {
    let mut g = Gen::new(61);
    let n = 42;
    assert_eq!(det_both(&g.low_rank(n, n, n - 1, 30), "rank n − 1"), 0);
    let mut z = g.matrix(n, n, 30).entries().to_vec();
    for i in 0..n {
        z[i * n + 5] = Integer::new();
    }
    assert_eq!(
        det_both(&IntMatrix::new(n, n, z).unwrap(), "zero column"),
        0
    );
    // det divisible by each prime Dixon tries: the multimodular path takes over.
    let primes: Vec<u32> = rns_core::prime::moduli_descending(|_| false)
        .take(3)
        .collect();
    let mut d = g.matrix(n, n, 10).entries().to_vec();
    // The first row times p1·p2·p3.
    let q = primes.iter().fold(Integer::from(1), |x, &p| x * p);
    for x in &mut d[..n] {
        *x *= &q;
    }
    let d = IntMatrix::new(n, n, d).unwrap();
    let want = det_both(&d, "det divisible by the lifting primes");
    assert!(want.is_divisible_u(primes[0]) && want != 0);
    let (_, st) = rns::det_with(&d, &Backend::Cpu, &Method::Dixon.into()).unwrap();
    assert_eq!(st.method, "multimodular", "fell back");
}

/// `solve_over_denominator` by every method against `solve`: the same `X` (each entry
/// `N/d` reduces to the fraction `solve` gives), `d` their least common denominator, on
/// random systems, entries that share factors with `d` (an integer solution, a column of
/// zeros), a unimodular matrix, and a singular one.
#[test]
fn solutions_over_one_denominator_match_the_fractions() {
    let mut g = Gen::new(41);
    let diag = IntMatrix::from_i64(3, 3, &[2, 0, 0, 0, 4, 0, 0, 0, 6]).unwrap();
    let cases = [
        (g.matrix(6, 6, 40), g.matrix(6, 2, 40)),
        (g.matrix(30, 30, 64), g.matrix(30, 1, 64)),
        // X = [[1/2, 0, 1], [1/4, 0, 1], [1/6, 0, 1]]: d = 12, and entries over 1.
        (
            diag.clone(),
            IntMatrix::from_i64(3, 3, &[1, 0, 2, 1, 0, 4, 1, 0, 6]).unwrap(),
        ),
        // Unimodular: d = 1.
        (
            IntMatrix::from_i64(2, 2, &[2, 1, 1, 1]).unwrap(),
            g.matrix(2, 3, 20),
        ),
    ];
    for (i, (a, b)) in cases.iter().enumerate() {
        let want = rns::solve(a, b, &Backend::Cpu).unwrap();
        for m in Method::ALL {
            let opts = rns::SolveOptions::from(m);
            let ((d, n), _) = rns::solve_over_denominator_with(a, b, &Backend::Cpu, &opts).unwrap();
            let (want_d, want_n) = want.over_common_denominator();
            assert_eq!((&d, &n), (&want_d, &want_n), "case {i}, {m:?}");
            assert!(d > 0, "case {i}, {m:?}");
        }
    }
    let (d, n) = rns::solve_over_denominator(&cases[2].0, &cases[2].1, &Backend::Cpu).unwrap();
    assert_eq!(
        (d.to_string(), n.to_text()),
        ("12".into(), "3 3\n6 0 12\n3 0 12\n2 0 12\n".into())
    );
    let singular = IntMatrix::from_i64(2, 2, &[1, 2, 2, 4]).unwrap();
    let e = rns::solve_over_denominator(&singular, &cases[3].1, &Backend::Cpu).unwrap_err();
    assert!(matches!(e, Error::Singular { .. }), "{e}");
    let e = rns::solve_over_denominator(&cases[0].0, &cases[1].1, &Backend::Cpu).unwrap_err();
    assert!(matches!(e, Error::Shape(_)), "{e}");
}

#[test]
fn word_matrices_give_the_same_answers_without_making_big_integers() {
    let mut g = Gen::new(77);
    for (n, bits) in [(1, 63), (2, 63), (9, 40), (40, 63), (120, 63)] {
        let mut a = g.matrix(n, n, bits);
        if n > 2 {
            // Range ends and zero among random entries.
            let mut e = a.into_entries();
            e[0] = Integer::from(i64::MIN);
            e[1] = Integer::from(i64::MAX);
            e[n] = Integer::new();
            e[n + 1] = Integer::from(-1);
            a = IntMatrix::new(n, n, e).unwrap();
        }
        let b = g.matrix(n, 2, 63);
        let (aw, bw) = (words_of(&a), words_of(&b));
        let what = format!("{n}×{n}");
        let det = rns::det(&aw, &Backend::Cpu).unwrap();
        assert_eq!(det, rns::det(&a, &Backend::Cpu).unwrap(), "{what}");
        let x = rns::solve(&aw, &bw, &Backend::Cpu).unwrap();
        assert_eq!(x, rns::solve(&a, &b, &Backend::Cpu).unwrap(), "{what}");
        if n >= 40 {
            // Small orders take the direct formula or the multimodular paths, which
            // read the integers.
            assert!(
                !aw.integers_made(),
                "{what}: the det or solve made A's integers"
            );
        }
    }
}
