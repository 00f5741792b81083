//! Matrices mod p and exact linear algebra over Z and Q against references that do not
//! go through residues (`%` on 64-bit products, rug): random inputs and special
//! matrices (identity, zero, singular, 1×1, rectangular, negative and very large
//! entries, dependent rows, primes dividing the determinant).

use proptest::prelude::*;
use rns::{Backend, Error, IntMatrix, Method, ModMatrices, RatMatrix};
use rns_suite::{matmul_mod_ref, naive_matmul, rational_rref, rational_solve, rref_mod_ref, Gen};
use rug::{Integer, Rational};

const P1: u32 = 2_147_483_647; // 2^31 − 1
const P2: u32 = 2_147_483_629; // 2^31 − 19
const P_LOW: u32 = 1_073_741_827; // the smallest prime above 2^30

/// Random residues below each prime; every fifth entry is 0, 1 or p − 1.
fn residues(gen: &mut Gen, primes: &[u32], size: usize) -> Vec<u32> {
    let mut out = Vec::with_capacity(primes.len() * size);
    for &p in primes {
        for i in 0..size {
            out.push(match (i % 5, gen.below(3)) {
                (0, 0) => 0,
                (0, 1) => 1,
                (0, _) => p - 1,
                _ => gen.below(p),
            });
        }
    }
    out
}

fn rat(x: &RatMatrix) -> Vec<Rational> {
    x.entries().to_vec()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn products_mod_p_match_the_reference(n in 1usize..40, k in 1usize..40, p in 1usize..40, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let primes = [P1, P2, P_LOW];
        let a = ModMatrices::new(&primes, n, k, residues(&mut gen, &primes, n * k)).unwrap();
        let b = ModMatrices::new(&primes, k, p, residues(&mut gen, &primes, k * p)).unwrap();
        let c = Backend::Cpu.matmul_mod(&a, &b).unwrap();
        for (i, &m) in primes.iter().enumerate() {
            prop_assert_eq!(c.matrix(i), &matmul_mod_ref(a.matrix(i), b.matrix(i), n, k, p, m)[..]);
        }
    }

    #[test]
    fn echelon_forms_mod_p_match_the_reference(rows in 1usize..20, cols in 1usize..20, r in 0usize..20, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let a = gen.low_rank(rows, cols, r.min(rows).min(cols).max(1), 8);
        let primes = [P1, P_LOW];
        let am = ModMatrices::from_int_matrix(&a, &primes).unwrap();
        let e = Backend::Cpu.rref_mod(&am).unwrap();
        let ranks = Backend::Cpu.rank_mod(&am).unwrap();
        for (i, &p) in primes.iter().enumerate() {
            let (want, rank) = rref_mod_ref(am.matrix(i), rows, cols, cols, p);
            prop_assert_eq!(e.rref.matrix(i), &want[..]);
            prop_assert_eq!(e.ranks[i], rank);
            prop_assert_eq!(ranks[i], rank);
        }
    }

    #[test]
    fn inverse_and_solve_mod_p_are_checked_by_multiplication(n in 1usize..16, l in 1usize..5, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let primes = [P1, P2];
        let a = ModMatrices::new(&primes, n, n, residues(&mut gen, &primes, n * n)).unwrap();
        let b = ModMatrices::new(&primes, n, l, residues(&mut gen, &primes, n * l)).unwrap();
        let dets = Backend::Cpu.det_mod(&a).unwrap();
        match Backend::Cpu.solve_mod(&a, &b) {
            Ok(x) => {
                prop_assert!(dets.iter().all(|&d| d != 0));
                prop_assert_eq!(Backend::Cpu.matmul_mod(&a, &x).unwrap(), b.clone());
                let inv = Backend::Cpu.inverse_mod(&a).unwrap();
                let id = ModMatrices::from_int_matrix(&IntMatrix::identity(n), &primes).unwrap();
                prop_assert_eq!(Backend::Cpu.matmul_mod(&a, &inv).unwrap(), id);
            }
            Err(Error::Singular { prime: Some(p) }) => {
                let c = primes.iter().position(|&q| q == p).unwrap();
                prop_assert_eq!(dets[c], 0);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }

    #[test]
    fn exact_products_match_rug(n in 1usize..12, k in 1usize..12, p in 1usize..12, bits in 1u32..1200, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let (a, b) = (gen.matrix(n, k, bits), gen.matrix(k, p, bits / 2 + 1));
        prop_assert_eq!(rns::matmul(&a, &b, &Backend::Cpu).unwrap(), naive_matmul(&a, &b));
    }

    #[test]
    fn ranks_over_q_match_rug(rows in 1usize..14, cols in 1usize..14, r in 1usize..14, bits in 1u32..100, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let a = gen.low_rank(rows, cols, r, bits);
        prop_assert_eq!(rns::rank(&a, &Backend::Cpu).unwrap(), rational_rref(&a).1);
    }

    #[test]
    fn solutions_over_q_match_rug(n in 1usize..12, l in 1usize..4, bits in 1u32..120, seed in any::<u64>()) {
        let mut gen = Gen::new(seed);
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        match (rns::solve(&a, &b, &Backend::Cpu), rational_solve(&a, &b)) {
            (Ok(x), Some(want)) => {
                prop_assert!(x.entries().iter().all(|q| *q.denom() > 0));
                prop_assert_eq!(rat(&x), want);
            }
            (Err(Error::Singular { prime: None }), None) => {}
            (got, want) => prop_assert!(false, "solve gave {:?}, reference {:?}", got, want),
        }
    }
}

#[test]
fn special_products() {
    let cpu = Backend::Cpu;
    let mut gen = Gen::new(7);
    let a = gen.matrix(5, 3, 3000); // very large, negative entries
    assert_eq!(rns::matmul(&a, &IntMatrix::identity(3), &cpu).unwrap(), a);
    let zero = IntMatrix::from_i64(3, 2, &[0; 6]).unwrap();
    assert_eq!(
        rns::matmul(&a, &zero, &cpu).unwrap(),
        IntMatrix::from_i64(5, 2, &[0; 10]).unwrap()
    );
    let one = IntMatrix::from_i64(1, 1, &[-3]).unwrap();
    assert_eq!(
        rns::matmul(&one, &one, &cpu).unwrap().entries(),
        [Integer::from(9)]
    );
    // Row times column, column times row.
    let row = IntMatrix::from_i64(1, 3, &[1, -2, 3]).unwrap();
    let col = IntMatrix::from_i64(3, 1, &[4, 5, -6]).unwrap();
    assert_eq!(
        rns::matmul(&row, &col, &cpu).unwrap().entries(),
        [Integer::from(-24)]
    );
    assert_eq!(
        rns::matmul(&col, &row, &cpu).unwrap(),
        naive_matmul(&col, &row)
    );
    assert!(matches!(rns::matmul(&a, &a, &cpu), Err(Error::Shape(_))));
    // Mod p: the extremes of the centered range, long inner dimension (many folds).
    let k = 1000;
    let a = ModMatrices::new(&[P1], 2, k, [vec![P1 / 2; k], vec![P1 / 2 + 1; k]].concat()).unwrap();
    let b = ModMatrices::new(&[P1], k, 1, vec![P1 / 2 + 1; k]).unwrap();
    let c = cpu.matmul_mod(&a, &b).unwrap();
    assert_eq!(c.data(), matmul_mod_ref(a.data(), b.data(), 2, k, 1, P1));
}

#[test]
fn mod_p_errors_are_clear() {
    let cpu = Backend::Cpu;
    assert!(matches!(
        ModMatrices::new(&[7], 1, 1, vec![1]),
        Err(Error::Modulus(_))
    ));
    assert!(matches!(
        ModMatrices::new(&[P1 - 2], 1, 1, vec![1]),
        Err(Error::Modulus(_))
    ));
    assert!(matches!(
        ModMatrices::new(&[P1], 1, 1, vec![P1]),
        Err(Error::Shape(_))
    ));
    assert!(matches!(
        ModMatrices::new(&[P1], 2, 2, vec![1]),
        Err(Error::Shape(_))
    ));
    let a = ModMatrices::new(&[P1, P2], 2, 2, vec![1, 2, 2, 4, 1, 0, 0, 1]).unwrap();
    assert_eq!(cpu.det_mod(&a).unwrap(), [0, 1]);
    assert_eq!(cpu.rank_mod(&a).unwrap(), [1, 2]);
    assert_eq!(
        cpu.inverse_mod(&a),
        Err(Error::Singular { prime: Some(P1) })
    );
    let other = ModMatrices::new(&[P1], 2, 2, vec![0; 4]).unwrap();
    assert_eq!(cpu.matmul_mod(&a, &other), Err(Error::BasisMismatch));
    let rect = ModMatrices::new(&[P1, P2], 2, 3, vec![0; 12]).unwrap();
    assert!(matches!(cpu.det_mod(&rect), Err(Error::Shape(_))));
    assert!(matches!(cpu.solve_mod(&rect, &a), Err(Error::Shape(_))));
    assert!(matches!(
        cpu.solve_mod(&a, &rect.clone()),
        Err(Error::Singular { .. }) | Err(Error::Shape(_))
    ));
}

#[test]
fn special_ranks_and_solutions() {
    let cpu = Backend::Cpu;
    assert_eq!(
        rns::rank(&IntMatrix::from_i64(3, 4, &[0; 12]).unwrap(), &cpu).unwrap(),
        0
    );
    assert_eq!(rns::rank(&IntMatrix::identity(9), &cpu).unwrap(), 9);
    // Rank 2 although the two largest primes divide the only 2×2 minor.
    let d = Integer::from(P1) * P2;
    let a = IntMatrix::new(
        2,
        2,
        vec![1.into(), 1.into(), 1.into(), Integer::from(&d + 1u32)],
    )
    .unwrap();
    assert_eq!(rns::rank(&a, &cpu).unwrap(), 2);
    // So is the solve: det(A) = P1·P2 is singular modulo the first primes tried.
    let b = IntMatrix::from_i64(2, 1, &[1, 0]).unwrap();
    let x = rns::solve(&a, &b, &cpu).unwrap();
    assert_eq!(rat(&x), rational_solve(&a, &b).unwrap());
    // Inverse of a unimodular matrix is integral, printed without denominators.
    let u = IntMatrix::from_i64(2, 2, &[2, 1, 1, 1]).unwrap();
    assert_eq!(
        rns::inverse(&u, &cpu).unwrap().to_string(),
        "2 2\n1 -1\n-1 2\n"
    );
    // Singular: dependent rows, a zero column; wrong shapes.
    let s = IntMatrix::from_i64(3, 3, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    assert_eq!(
        rns::solve(&s, &IntMatrix::identity(3), &cpu),
        Err(Error::Singular { prime: None })
    );
    let z = IntMatrix::from_i64(2, 2, &[0, 1, 0, 2]).unwrap();
    assert_eq!(rns::inverse(&z, &cpu), Err(Error::Singular { prime: None }));
    // The inverse by each method: the solve's path with B = I, the same answer; a
    // rectangular matrix is refused as the inverse's, before any identity is built.
    let h = IntMatrix::from_i64(3, 3, &[4, -2, 1, 3, 6, -4, 2, 1, 8]).unwrap();
    let want = rational_solve(&h, &IntMatrix::identity(3)).unwrap();
    for method in Method::ALL {
        let opts = rns::SolveOptions { method };
        let (x, _) = rns::inverse_with(&h, &cpu, &opts).unwrap();
        assert_eq!(rat(&x), want, "{method:?}");
        assert_eq!(
            rns::inverse_with(&s, &cpu, &opts).map(|_| ()),
            Err(Error::Singular { prime: None }),
            "{method:?}"
        );
        let rect = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
        match rns::inverse_with(&rect, &cpu, &opts) {
            Err(Error::Shape(m)) => assert!(m.contains("the inverse"), "{m}"),
            other => panic!("{method:?}: {other:?}"),
        }
    }
    assert!(matches!(rns::solve(&s, &b, &cpu), Err(Error::Shape(_))));
    let rect = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    assert!(matches!(rns::solve(&rect, &b, &cpu), Err(Error::Shape(_))));
    assert_eq!(rns::rank(&rect, &cpu).unwrap(), 2);
    // No right-hand side (B is n × 0, as the Python fuzzer once passed): an empty
    // answer by either method, not a panic; a singular A is still refused.
    let none = IntMatrix::new(2, 0, Vec::new()).unwrap();
    for method in [Method::Dixon, Method::Multimodular] {
        let (x, _) = rns::solve_with(&u, &none, &cpu, &rns::SolveOptions { method }).unwrap();
        assert_eq!((x.rows(), x.cols()), (2, 0), "{method:?}");
        let zero = IntMatrix::new(3, 0, Vec::new()).unwrap();
        assert_eq!(
            rns::solve_with(&s, &zero, &cpu, &rns::SolveOptions { method }).map(|_| ()),
            Err(Error::Singular { prime: None }),
            "{method:?}"
        );
    }
    // 1×1 with a negative entry: a positive denominator.
    let m = IntMatrix::from_i64(1, 1, &[-6]).unwrap();
    let x = rns::solve(&m, &IntMatrix::from_i64(1, 1, &[4]).unwrap(), &cpu).unwrap();
    assert_eq!(x.to_string(), "1 1\n-2/3\n");
}

/// Residues straight from machine words equal those of the same integers, at the range
/// ends and across the grain of the parallel reduction (4096 entries), for several primes;
/// a wrong length or a bad prime is refused.
#[test]
fn residues_of_words_equal_residues_of_integers() {
    let primes = [2147483647, 2147483629, 1073741827];
    let mut words: Vec<i64> = vec![
        0,
        1,
        -1,
        i64::MIN,
        i64::MAX,
        i64::MIN + 1,
        2147483647,
        -2147483647,
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while words.len() < 70 * 70 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        words.push(x as i64 >> (x % 60));
    }
    let ints = IntMatrix::from_i64(70, 70, &words).unwrap();
    let direct = ModMatrices::from_i64(70, 70, &words, &primes).unwrap();
    assert_eq!(
        direct,
        ModMatrices::from_int_matrix(&ints, &primes).unwrap()
    );
    assert!(ModMatrices::from_i64(70, 69, &words, &primes).is_err());
    assert!(ModMatrices::from_i64(70, 70, &words, &[2147483646]).is_err());
    assert_eq!(
        ModMatrices::from_i64(0, 3, &[], &primes)
            .unwrap()
            .data()
            .len(),
        0
    );
}
