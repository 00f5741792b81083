//! A few large matrices modulo primes on the GPU backend with the whole device (a block
//! per prime would leave it idle): solves and inverses by Gauss–Jordan over the whole
//! grid (rows in shared memory while no row swap is needed, then one pivot per launch),
//! and ranks from their determinants, against the CPU backend bit for bit: on both sides
//! of the order from which it applies (64), of the order from which the rows no longer
//! fit in shared memory, with zero pivots, and singular modulo one prime only.

use rns::{Backend, Error, IntMatrix};
use rns_suite::{gpu_backend as gpu, images, Gen, LARGEST_PRIMES};
use rug::Integer;

/// `a` with row 1 copied into row 0 modulo the first prime only (singular there).
fn singular_mod_first(a: &IntMatrix) -> IntMatrix {
    let n = a.cols();
    let mut e = a.entries().to_vec();
    for j in 0..n {
        e[j] = Integer::from(&e[n + j] + LARGEST_PRIMES[0] * (j as u32 % 3));
    }
    IntMatrix::new(a.rows(), n, e).unwrap()
}

#[test]
fn solves_inverses_and_ranks_of_few_large_matrices_match_the_cpu() {
    let Some(g) = gpu() else { return };
    let cpu = Backend::Cpu;
    let mut gen = Gen::new(71);
    for (n, count, inverse) in [
        (63, 1, true),
        (64, 1, true),
        (200, 3, true),
        (700, 2, false),
        (2100, 1, false),
    ] {
        let what = format!("{n}×{n} modulo {count} primes");
        let a = images(&gen.matrix(n, n, 40), count);
        let b = images(&gen.matrix(n, 2, 40), count);
        assert_eq!(
            g.solve_mod(&a, &b).unwrap(),
            cpu.solve_mod(&a, &b).unwrap(),
            "{what}: solve"
        );
        if inverse {
            assert_eq!(
                g.inverse_mod(&a).unwrap(),
                cpu.inverse_mod(&a).unwrap(),
                "{what}: inverse"
            );
        }
        assert_eq!(g.rank_mod(&a).unwrap(), vec![n; count], "{what}: rank");
        // Singular modulo the first prime only: the error names it; its rank drops.
        let s = images(&singular_mod_first(&gen.matrix(n, n, 30)), count);
        let e = g.solve_mod(&s, &b).unwrap_err();
        assert_eq!(
            e,
            Error::Singular {
                prime: Some(LARGEST_PRIMES[0])
            },
            "{what}"
        );
        assert_eq!(
            g.rank_mod(&s).unwrap(),
            cpu.rank_mod(&s).unwrap(),
            "{what}: singular rank"
        );
    }
    // Zero pivots: the leading entry zero, and a singular leading 3 × 3 minor.
    let n = 300;
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    e[0] = Integer::new();
    for j in 0..3 {
        e[2 * n + j] = e[n + j].clone();
    }
    let a = images(&IntMatrix::new(n, n, e).unwrap(), 2);
    let b = images(&gen.matrix(n, 1, 30), 2);
    assert_eq!(
        g.solve_mod(&a, &b).unwrap(),
        cpu.solve_mod(&a, &b).unwrap(),
        "zero pivots"
    );
    // A low-rank matrix: every prime's determinant is zero, ranks by elimination.
    let low = images(&gen.low_rank(128, 128, 77, 20), 3);
    assert_eq!(g.rank_mod(&low).unwrap(), vec![77; 3]);
}
