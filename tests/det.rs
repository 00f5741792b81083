//! Exact determinants against the Bareiss reference: random matrices up to 20×20
//! and special ones.

use proptest::prelude::*;
use rns::{det, Backend, Error, IntMatrix};
use rns_suite::{bareiss_det, Gen};
use rug::Integer;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(60))]

    #[test]
    fn random_matrices_match_bareiss(n in 1usize..=20, bits in 1u32..200, seed in any::<u64>()) {
        let a = Gen::new(seed).matrix(n, n, bits);
        prop_assert_eq!(det(&a, &Backend::Cpu).unwrap(), bareiss_det(&a));
    }

    #[test]
    fn dependent_rows_give_zero(n in 3usize..=12, seed in any::<u64>()) {
        let mut g = Gen::new(seed);
        let a = g.matrix(n, n, 40);
        // last row = 3·row0 − 2·row1 (+ row2 when that is not the last row)
        let mut data = a.entries().to_vec();
        for j in 0..n {
            let mut x = Integer::from(&data[j] * 3) - Integer::from(&data[n + j] * 2);
            if n > 3 { x += &data[2 * n + j]; }
            data[(n - 1) * n + j] = x;
        }
        let a = IntMatrix::new(n, n, data).unwrap();
        prop_assert_eq!(det(&a, &Backend::Cpu).unwrap(), Integer::new());
    }
}

#[test]
fn special_matrices() {
    let cpu = Backend::Cpu;
    assert_eq!(det(&IntMatrix::identity(17), &cpu).unwrap(), 1);
    assert_eq!(
        det(&IntMatrix::from_i64(1, 1, &[-7]).unwrap(), &cpu).unwrap(),
        -7
    );
    assert_eq!(
        det(&IntMatrix::from_i64(1, 1, &[0]).unwrap(), &cpu).unwrap(),
        0
    );
    assert_eq!(
        det(&IntMatrix::from_i64(2, 2, &[0, 1, 1, 0]).unwrap(), &cpu).unwrap(),
        -1
    );
    assert_eq!(
        det(&IntMatrix::from_i64(2, 2, &[-3, -4, -5, -6]).unwrap(), &cpu).unwrap(),
        -2
    );
    assert_eq!(
        det(
            &IntMatrix::from_i64(3, 3, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap(),
            &cpu
        )
        .unwrap(),
        0
    );
    assert_eq!(
        det(&IntMatrix::from_i64(2, 2, &[5, 7, 0, 0]).unwrap(), &cpu).unwrap(),
        0
    );
    let extremes = IntMatrix::from_i64(2, 2, &[i64::MIN, i64::MAX, i64::MAX, i64::MIN]).unwrap();
    assert_eq!(det(&extremes, &cpu).unwrap(), bareiss_det(&extremes));
    // A diagonal of huge entries: the determinant is their product.
    let big = Integer::from(1) << 3000u32;
    let mut data = vec![Integer::new(); 9];
    data[0] = big.clone() + 1u32;
    data[4] = -big.clone();
    data[8] = big.clone() - 1u32;
    let d = IntMatrix::new(3, 3, data).unwrap();
    assert_eq!(det(&d, &cpu).unwrap(), bareiss_det(&d));
}

#[test]
fn a_zero_pivot_needs_a_row_swap_mod_every_prime() {
    // a[0][0] = 0 exactly, so every prime's elimination must swap rows.
    let a = IntMatrix::from_i64(3, 3, &[0, 2, 3, 4, 0, 6, 7, 8, 0]).unwrap();
    assert_eq!(det(&a, &Backend::Cpu).unwrap(), bareiss_det(&a));
}

#[test]
fn stats_report_the_bound_and_primes() {
    let a = Gen::new(7).matrix(30, 30, 64);
    let (d, st) = rns::det_with(&a, &Backend::Cpu, &rns::DetOptions::default()).unwrap();
    assert_eq!(d, bareiss_det(&a));
    assert!(Integer::from(d.abs_ref()) <= Integer::from(1) << st.bound_bits as u32);
    assert!(st.primes as u64 * 31 >= st.bound_bits);
    let names: Vec<&str> = st.stages.iter().map(|(n, _)| *n).collect();
    assert_eq!(names, ["bound", "primes", "reduce, det mod p", "crt"]);
}

#[test]
fn non_square_is_an_error() {
    let a = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    assert!(matches!(det(&a, &Backend::Cpu), Err(Error::Shape(_))));
}

proptest! {
    #[test]
    fn the_norm_bound_holds_and_is_tight(seed in any::<u64>(), len in 1usize..40) {
        // Entries of wildly different sizes (1 to 3000 bits, some zero), both signs.
        let mut g = Gen::new(seed);
        let v: Vec<Integer> = (0..len)
            .map(|_| { let bits = 1 + g.below(3000); g.signed(bits) })
            .collect();
        let norm2: Integer = v.iter().map(|x| x.clone().square()).sum();
        match rns::mat::bounds::log2_norm(&v) {
            None => prop_assert_eq!(norm2, 0),
            Some(b) => {
                // log2 Σx² from its top 53 bits (error below 1e-15), against 2b.
                let (f, e) = norm2.to_f64_exp();
                let exact = e as f64 + f.log2();
                prop_assert!(2.0 * b >= exact + 1e-9, "{b} below {exact}/2");
                prop_assert!(2.0 * b - exact < 1e-6, "{b} far above {exact}/2");
            }
        }
    }
}

proptest! {
    #[test]
    fn cramer_bounds_are_the_columns_norms(seed in any::<u64>(), rows in 1usize..12, cols in 1usize..70) {
        // Columns read in blocks, row by row: the same bounds as each column's own norm
        // (entries of 1 to 300 bits, zeros, a zero column now and then).
        let mut g = Gen::new(seed);
        let zero_col = g.below(4) as usize;
        let e: Vec<Integer> = (0..rows * cols)
            .map(|k| match (k % cols == zero_col, g.below(5)) {
                (true, _) | (_, 0) => Integer::new(),
                _ => { let bits = 1 + g.below(300); g.signed(bits) }
            })
            .collect();
        let a = IntMatrix::new(rows, cols, e).unwrap();
        let b = (0..2 * rows).map(|k| g.signed(1 + (k as u32 % 90))).collect();
        let b = IntMatrix::new(rows, 2, b).unwrap();
        let t = a.transpose();
        let col: Vec<Option<f64>> = (0..cols).map(|j| rns::mat::bounds::log2_norm(t.row(j))).collect();
        let bt = b.transpose();
        let b_max = (0..2).filter_map(|j| rns::mat::bounds::log2_norm(bt.row(j))).fold(0.0f64, f64::max);
        let want = col.iter().copied().collect::<Option<Vec<f64>>>().map(|c| {
            let sum: f64 = c.iter().map(|&x| x.max(0.0)).sum();
            let min = c.iter().copied().fold(f64::INFINITY, f64::min).max(0.0);
            (sum.ceil() as u64 + 1, (sum.max(sum - min + b_max)).ceil() as u64 + 1)
        });
        prop_assert_eq!(rns::mat::bounds::cramer_bits(&a, &b), want);
    }
}

/// Hadamard's bound where it is exact (rows of norm 1 and 5), its slack and margin
/// included, and what `det_with_stats` reports.
#[test]
fn hadamard_bound_of_small_cases_and_statistics() {
    use rns::mat::bounds::hadamard_bits;
    assert_eq!(hadamard_bits(&IntMatrix::identity(3)), Some(2));
    let a = IntMatrix::from_i64(3, 3, &[3, 4, 0, 4, -3, 0, 0, 0, 1]).unwrap(); // det −25, bound 25
    assert_eq!(hadamard_bits(&a), Some(6));
    let (d, st) = rns::det_with(&a, &Backend::Cpu, &rns::DetOptions::default()).unwrap();
    assert_eq!(d, -25);
    assert_eq!(
        (st.backend, st.method, st.bound_bits),
        ("cpu", "multimodular", 6)
    );
    // Orders 0 to 2 by the formula, unless a method is asked for.
    let b = IntMatrix::from_i64(2, 2, &[3, 4, 4, -3]).unwrap();
    let (d, st) = rns::det_with(&b, &Backend::Cpu, &rns::DetOptions::default()).unwrap();
    assert_eq!((d, st.method), (Integer::from(-25), "direct"));
    let asked = rns::DetOptions {
        method: rns::Method::Multimodular,
    };
    let (d, st) = rns::det_with(&b, &Backend::Cpu, &asked).unwrap();
    assert_eq!((d, st.method), (Integer::from(-25), "multimodular"));
    let one = IntMatrix::from_i64(1, 1, &[-7]).unwrap();
    assert_eq!(rns::det(&one, &Backend::Cpu).unwrap(), -7);
    assert_eq!(rns::det(&IntMatrix::identity(0), &Backend::Cpu).unwrap(), 1);
}

/// `Auto` lifts on the CPU for long matrices of short entries, not for short matrices of
/// long entries (each lifting step grows with the entries' size, and the steps too).
#[test]
fn auto_lifts_only_where_the_entries_are_short() {
    use rns::algo::method::{Lifting, Method, DIXON_DET_MIN};
    let lifts = |n: usize, bits: u64| Method::Auto.det_lifting((n, bits), false, || false);
    assert_eq!(lifts(DIXON_DET_MIN, 64), Some(Lifting::Cpu));
    assert_eq!(lifts(DIXON_DET_MIN - 1, 64), None);
    assert_eq!(lifts(50, 264), Some(Lifting::Cpu));
    assert_eq!(lifts(50, 265), None);
    assert_eq!(lifts(50, 100_000), None);
    assert_eq!(
        Method::Dixon.det_lifting((50, 100_000), false, || false),
        Some(Lifting::Cpu)
    );
}
