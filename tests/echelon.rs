//! The reduced echelon form over Q and the nullspace over Z, against Gauss–Jordan over
//! rug's rationals (`rational_rref`), on the CPU and (when one is usable) the GPU:
//! random matrices of every shape and rank, zero, identity, 1×1, entries up to 1000
//! bits, and matrices whose profile the first primes get wrong (entries that are
//! multiples of them), which the certificate must reject before the right answer.

use rns::{nullspace, rref, Backend, IntMatrix, ModMatrices};
use rns_suite::{dev, gpu_backend, naive_matmul, rational_rref, rref_mod_ref, Gen};
use rug::{Integer, Rational};

/// The CPU backend, and the GPU's when one is usable.
fn backends() -> Vec<Backend> {
    let mut out = vec![Backend::Cpu];
    out.extend(gpu_backend());
    out
}

/// Checks `rref(a)` against the reference and `nullspace(a)` by its definition.
fn check(a: &IntMatrix, be: &Backend, what: &str) {
    let (want, rank) = rational_rref(a);
    let got = rref(a, be).unwrap_or_else(|e| panic!("{what}: {e}"));
    assert_eq!(got.rank, rank, "{what}: rank");
    let flat: Vec<Rational> = want.into_iter().flatten().collect();
    assert_eq!(got.matrix.entries(), &flat[..], "{what}: the form");
    assert_eq!(got.pivots.len(), rank, "{what}: pivots");
    let x = nullspace(a, be).unwrap();
    assert_eq!(
        (x.rows(), x.cols()),
        (a.cols(), a.cols() - rank),
        "{what}: shape"
    );
    let ax = naive_matmul(a, &x);
    assert!(ax.entries().iter().all(|v| *v == 0), "{what}: A·X ≠ 0");
    let free: Vec<usize> = (0..a.cols()).filter(|j| !got.pivots.contains(j)).collect();
    for (t, &j) in free.iter().enumerate() {
        let col: Vec<&Integer> = (0..x.rows()).map(|i| x.get(i, t)).collect();
        assert!(
            *col[j] > 0,
            "{what}: vector {t} not positive at its column {j}"
        );
        let g = col.iter().fold(Integer::new(), |g, v| g.gcd(v));
        assert_eq!(g, 1, "{what}: vector {t} not primitive");
        for (u, &k) in free.iter().enumerate() {
            assert!(
                u == t || *col[k] == 0,
                "{what}: vector {t} non-zero at free column {k}"
            );
        }
    }
}

#[test]
fn random_matrices_of_every_shape_and_rank() {
    let mut gen = Gen::new(53);
    for be in backends() {
        for (m, n) in [
            (1, 1),
            (1, 5),
            (5, 1),
            (3, 3),
            (4, 7),
            (7, 4),
            (9, 9),
            (12, 15),
            (16, 11),
        ] {
            for r in [0, 1, m.min(n) / 2, m.min(n)] {
                for bits in [1, 20, 64, 300] {
                    let a = match r == m.min(n) {
                        true => gen.matrix(m, n, bits),
                        false => gen.low_rank(m, n, r, bits),
                    };
                    check(&a, &be, &format!("{m}×{n} rank ≤ {r}, {bits}-bit"));
                }
            }
        }
        let a = gen.matrix(6, 8, 1000);
        check(&a, &be, "6×8 1000-bit");
        check(&IntMatrix::identity(5), &be, "identity");
        check(&IntMatrix::from_i64(1, 1, &[-7]).unwrap(), &be, "1×1");
    }
}

/// Column 0 is a multiple of every prime the first tries use: modulo them its pivot
/// moves right and the rank drops, so the certificate rejects those tries.
#[test]
fn primes_that_get_the_profile_wrong_are_rejected() {
    let first: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(6)
        .collect();
    let q = first.iter().fold(Integer::from(1), |q, &p| q * p);
    for be in backends() {
        // [[q, 1], [2q, 3]]: rank 2 over Q, rank 1 modulo each p (pivot column 1).
        let data = vec![
            q.clone(),
            Integer::from(1),
            Integer::from(&q * 2),
            Integer::from(3),
        ];
        let a = IntMatrix::new(2, 2, data).unwrap();
        check(&a, &be, "rank 2, rank 1 modulo the first primes");
        // [[q, 1, 5]]: the pivot is column 0 over Q, column 1 modulo each p.
        let data = vec![q.clone(), Integer::from(1), Integer::from(5)];
        let a = IntMatrix::new(1, 3, data).unwrap();
        check(&a, &be, "pivot column 0, column 1 modulo the first primes");
        let r = rref(&a, &be).unwrap();
        assert_eq!(r.pivots, [0]);
        assert_eq!(*r.matrix.get(0, 1), Rational::from((1, q.clone())));
    }
}

/// The nullspace modulo p: the vectors with 1 at each free column that the form gives.
#[test]
fn nullspace_mod_p_annihilates() {
    let mut gen = Gen::new(54);
    let p = 2_147_483_629u32;
    for be in backends() {
        let a = gen.low_rank(9, 13, 5, 31);
        let m = ModMatrices::from_int_matrix(&a, &[p]).unwrap();
        let e = be.rref_mod(&m).unwrap();
        let x = e.nullspace(0);
        assert_eq!((x.rows(), x.cols()), (13, 8));
        let ax = be.matmul_mod(&m, &x).unwrap();
        assert!(ax.data().iter().all(|&v| v == 0));
    }
}

/// A few large matrices on the GPU take the whole device, rank-revealing (one pivot
/// column per launch pair): their forms equal the CPU's bit for bit on both sides of
/// the order where that path starts (64), at 32-column strip edges, for full, low and
/// zero rank, wide and tall, with zero columns; and under a memory cap that leaves
/// them to a block per prime.
#[test]
fn gpu_rref_of_few_large_matrices_equals_cpu() {
    let Some(g) = gpu_backend() else { return };
    let mut gen = Gen::new(55);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(3)
        .collect();
    let shapes = [
        (63, 63, 63),
        (64, 64, 64),
        (64, 65, 40),
        (65, 97, 33),
        (70, 70, 0),
        (200, 257, 150),
        (300, 120, 100),
        (129, 129, 128),
    ];
    for (rows, cols, rank) in shapes {
        let mut a = if rank == 0 {
            IntMatrix::new(rows, cols, vec![Integer::new(); rows * cols]).unwrap()
        } else {
            gen.low_rank(rows, cols, rank, 31)
        };
        if rank > 0 && cols > 3 {
            // Zero columns at the start and in the middle: skipped pivots.
            let mut data = a.entries().to_vec();
            for i in 0..rows {
                data[i * cols] = Integer::new();
                data[i * cols + cols / 2] = Integer::new();
            }
            a = IntMatrix::new(rows, cols, data).unwrap();
        }
        for count in [1, 3] {
            let m = ModMatrices::from_int_matrix(&a, &primes[..count]).unwrap();
            let want = Backend::Cpu.rref_mod(&m).unwrap();
            let got = g.rref_mod(&m).unwrap();
            let what = format!("{rows}×{cols} rank {rank}, {count} primes");
            assert_eq!(got.ranks, want.ranks, "{what}");
            assert_eq!(got.rref.data(), want.rref.data(), "{what}");
        }
    }
    let a = gen.low_rank(100, 110, 90, 31);
    let m = ModMatrices::from_int_matrix(&a, &primes).unwrap();
    let (want, _) = rref_mod_ref(&m.data()[..100 * 110], 100, 110, 110, primes[0]);
    assert_eq!(&g.rref_mod(&m).unwrap().rref.data()[..100 * 110], &want[..]);
    dev(&g).config().set_memory_limit(Some(8 * 100 * 110));
    assert_eq!(
        &g.rref_mod(&m).unwrap().rref.data()[..100 * 110],
        &want[..],
        "capped"
    );
    dev(&g).config().set_memory_limit(None);
}
