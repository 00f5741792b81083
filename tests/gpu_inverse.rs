//! Inverses of a few large matrices modulo primes by recursive Schur complements
//! (`host/src/backend/gpu/ops/inverse.rs`) against the CPU backend bit for bit: on both
//! sides of one leaf (192) and of `primes × order` from which they apply (3000 by
//! default, 1 where a test sets it), with splits of every kind (whole tiles, a ragged last block),
//! a singular leading leaf of `A` and of a Schur complement (Gauss–Jordan with row swaps
//! takes over, for every prime or one of three; and the exact determinant whose lifting
//! starts from such inverses), a singular matrix, and at a large order against
//! `A·(X·v) = v`.

use rns::{Backend, Error, IntMatrix, ModMatrices};
use rns_suite::bench::xorshift_below as random_mod;
use rns_suite::{dev, gpu_backend as gpu, images, matmul_mod_ref, Gen, LiftCaps, LARGEST_PRIMES};
use rug::Integer;

/// The GPU's inverse equals the CPU's, modulo `count` primes.
fn same_inverse(g: &Backend, a: &IntMatrix, count: usize, what: &str) {
    let a = images(a, count);
    assert_eq!(
        g.inverse_mod(&a).unwrap(),
        Backend::Cpu.inverse_mod(&a).unwrap(),
        "{what}"
    );
}

/// `a` with row 1 equal to row 0 in columns `0..cols`: its leading blocks of up to
/// `cols` columns are singular, the matrix (random elsewhere) is not.
fn rows_equal_in(mut a: Vec<Integer>, n: usize, cols: usize) -> Vec<Integer> {
    for j in 0..cols {
        a[n + j] = a[j].clone();
    }
    a
}

#[test]
fn recursive_inverses_match_the_cpu_around_the_leaf_and_the_threshold() {
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(4242);
    // The default (primes × order 3000): just below by Gauss–Jordan, from it by
    // recursion.
    for (n, count) in [(999, 3), (1000, 3), (1499, 2), (1500, 2)] {
        same_inverse(&g, &gen.matrix(n, n, 40), count, &format!("{n}² × {count}"));
    }
    let _caps = LiftCaps::hold();
    dev(&g).config().set_inverse_recursion(Some(1));
    // One leaf, one more row (a leaf of 128 and one of 65), splits into whole tiles
    // and ragged ones, three levels.
    for (n, count) in [(192, 1), (193, 2), (256, 1), (300, 3), (449, 1), (1000, 1)] {
        same_inverse(&g, &gen.matrix(n, n, 40), count, &format!("{n}², from 1"));
    }
    // Entries at the ends of the primes' range: 0, 1, p − 1 and random.
    let n = 400;
    let p = LARGEST_PRIMES[0];
    let mut data = random_mod(n * n, p, 99);
    for (i, v) in data.iter_mut().enumerate().step_by(7) {
        *v = [0, 1, p - 1][i % 3];
    }
    let a = ModMatrices::new(&[p], n, n, data).unwrap();
    assert_eq!(
        g.inverse_mod(&a).unwrap(),
        Backend::Cpu.inverse_mod(&a).unwrap(),
        "range ends"
    );
}

#[test]
fn singular_leaves_fall_back_to_row_swaps() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    dev(&g).config().set_inverse_recursion(Some(1));
    let mut gen = Gen::new(77);
    // A's leading leaf singular (rows 0 and 1 equal in the first half).
    let n = 400;
    let e = rows_equal_in(gen.matrix(n, n, 30).entries().to_vec(), n, n / 2);
    same_inverse(
        &g,
        &IntMatrix::new(n, n, e).unwrap(),
        2,
        "singular leading leaf",
    );
    // The same modulo the first of three primes only: the other two by recursion.
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    for j in 0..n / 2 {
        e[j] = Integer::from(&e[n + j] + LARGEST_PRIMES[0] * (j as u32 % 3));
    }
    let a = IntMatrix::new(n, n, e).unwrap();
    same_inverse(&g, &a, 3, "singular leading leaf modulo one prime of three");
    // The exact determinant lifts from such inverses (all three by row swaps).
    let n = 600;
    let e = rows_equal_in(gen.matrix(n, n, 30).entries().to_vec(), n, n / 2);
    let a = IntMatrix::new(n, n, e).unwrap();
    assert_eq!(
        rns::det(&a, &g).unwrap(),
        rns::det(&a, &Backend::Cpu).unwrap(),
        "det with a singular leading leaf"
    );
    // The Schur complement's leading leaf singular: A = [I, B; C, C·B + S] has
    // complement S, whose rows 0 and 1 agree in its first 192 columns. 800 splits
    // into 448 and 352, and S's 352 into 192 and 160.
    let (n, h) = (800, 448);
    let s_n = n - h;
    let s = rows_equal_in(gen.matrix(s_n, s_n, 20).entries().to_vec(), s_n, 192);
    let (b, c) = (gen.matrix(h, s_n, 10), gen.matrix(s_n, h, 10));
    let mut e = vec![Integer::new(); n * n];
    for i in 0..h {
        e[i * n + i] = Integer::from(1);
        for j in 0..s_n {
            e[i * n + h + j] = b.entries()[i * s_n + j].clone();
        }
    }
    for i in 0..s_n {
        for j in 0..h {
            e[(h + i) * n + j] = c.entries()[i * h + j].clone();
        }
        for j in 0..s_n {
            let cb: Integer = (0..h)
                .map(|t| Integer::from(&c.entries()[i * h + t] * &b.entries()[t * s_n + j]))
                .sum();
            e[(h + i) * n + h + j] = cb + &s[i * s_n + j];
        }
    }
    same_inverse(
        &g,
        &IntMatrix::new(n, n, e).unwrap(),
        1,
        "singular Schur leaf",
    );
    // Under a memory cap that the recursion's scratch passes (its estimate refuses it)
    // while Gauss–Jordan fits: the same inverse.
    let n = 600;
    let a = images(&gen.matrix(n, n, 30), 2);
    let want = Backend::Cpu.inverse_mod(&a).unwrap();
    let words = 2 * (2 * n * n) + 2 * rns::backend::gpu::ops::inverse::invert_scratch_words(n);
    dev(&g).config().set_memory_limit(Some(4 * words - 4));
    assert_eq!(g.inverse_mod(&a).unwrap(), want, "under a memory cap");
    dev(&g).config().set_memory_limit(None);
    // A singular matrix: the error names the prime.
    let low = images(&gen.low_rank(600, 600, 599, 20), 1);
    assert!(matches!(
        g.inverse_mod(&low),
        Err(Error::Singular { prime: Some(p) }) if p == LARGEST_PRIMES[0]
    ));
}

#[test]
fn a_large_inverse_solves_a_random_system() {
    let Some(g) = gpu() else { return };
    let n = 3000;
    let p = LARGEST_PRIMES[1];
    let data = random_mod(n * n, p, 7);
    let a = ModMatrices::new(&[p], n, n, data.clone()).unwrap();
    let inv = g.inverse_mod(&a).unwrap();
    let xm = inv.matrix(0);
    let v = random_mod(n, p, 8);
    let mul = |m: &[u32], v: &[u32]| matmul_mod_ref(m, v, n, n, 1, p);
    assert_eq!(mul(&data, &mul(xm, &v)), v, "A·(X·v) = v at {n}²");
}
