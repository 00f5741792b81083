//! [`minpoly`] against the definition: the first power `A^k` that is a combination of
//! `I, A, …, A^(k−1)` (Gaussian elimination on the powers as vectors of `n²` entries).

use super::*;

const P: u32 = 2_147_483_629;
const N: usize = 6;

fn mat_mul(a: &[u32], b: &[u32], n: usize, m: Modulus) -> [u32; N * N] {
    let mut c = [0u32; N * N];
    for i in 0..n {
        for j in 0..n {
            let mut s = 0;
            for k in 0..n {
                s = m.add(s, m.mul(a[i * n + k], b[k * n + j]));
            }
            c[i * n + j] = s;
        }
    }
    c
}

/// The monic polynomial of least degree with `f(A) = 0`, by brute force.
fn reference(a: &[u32], n: usize, m: Modulus) -> [u32; N + 1] {
    let nn = n * n;
    // Rows: [A^k as n² entries | combination of the powers (N + 1)].
    let w = nn + N + 1;
    let mut rows: [[u32; N * N + N + 1]; N + 1] = [[0; N * N + N + 1]; N + 1];
    let mut pivots = [0usize; N + 1];
    let mut power = [0u32; N * N];
    for i in 0..n {
        power[i * n + i] = 1;
    }
    for k in 0..=n {
        let mut x = [0u32; N * N + N + 1];
        x[..nn].copy_from_slice(&power[..nn]);
        x[nn + k] = 1;
        for r in 0..k {
            let f = x[pivots[r]];
            if f != 0 {
                for j in 0..w {
                    x[j] = m.sub(x[j], m.mul(f, rows[r][j]));
                }
            }
        }
        match (0..nn).find(|&j| x[j] != 0) {
            None => {
                let mut out = [0u32; N + 1];
                out[..=k].copy_from_slice(&x[nn..nn + k + 1]);
                return out;
            }
            Some(p) => {
                let inv = m.inv(x[p]).unwrap();
                for v in x.iter_mut() {
                    *v = m.mul(*v, inv);
                }
                // Reduce the earlier rows at the new pivot (reduced echelon form).
                for row in rows.iter_mut().take(k) {
                    let f = row[p];
                    if f != 0 {
                        for j in 0..w {
                            row[j] = m.sub(row[j], m.mul(f, x[j]));
                        }
                    }
                }
                rows[k] = x;
                pivots[k] = p;
            }
        }
        power = mat_mul(&power[..nn], a, n, m);
    }
    unreachable!("Cayley–Hamilton: A^n depends on the lower powers")
}

fn check(a: &[u32], n: usize, m: Modulus, what: &str) {
    let mut scratch = [0u32; minpoly_scratch_words(N)];
    let mut out = [7u32; N + 1];
    let d = minpoly(
        a,
        n,
        m,
        &mut scratch[..minpoly_scratch_words(n)],
        &mut out[..=n],
    );
    let want = reference(a, n, m);
    assert_eq!(
        out[..=n],
        want[..=n],
        "{what}: n = {n}, a = {:?}",
        &a[..n * n]
    );
    assert_eq!(out[d], 1, "{what}: monic of degree {d}");
}

#[test]
fn random_and_degenerate_matrices_match_the_definition() {
    let m = Modulus::new(P).unwrap();
    let mut seed = 17u64;
    let mut next = |k: u32| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as u32) % k
    };
    for n in 0..=N {
        for trial in 0..60 {
            // Entries in {0, 1, 2} (many repeated eigenvalues and Jordan blocks), in
            // {0, 1} on a sparse pattern, or full residues.
            let range = [2, 3, P][trial % 3];
            let a: [u32; N * N] = core::array::from_fn(|_| next(range));
            check(&a[..n * n], n, m, "random");
        }
    }
}

#[test]
fn known_structures() {
    let m = Modulus::new(P).unwrap();
    for n in 1..=N {
        let zero = [0u32; N * N];
        check(&zero[..n * n], n, m, "zero");
        let mut id = [0u32; N * N];
        let mut jordan = [0u32; N * N];
        let mut diag = [0u32; N * N];
        for i in 0..n {
            id[i * n + i] = 1;
            jordan[i * n + i] = 5;
            if i + 1 < n {
                jordan[i * n + i + 1] = 1;
            }
            diag[i * n + i] = (i % 2) as u32 + P - 1;
        }
        check(&id[..n * n], n, m, "identity");
        check(&jordan[..n * n], n, m, "one Jordan block");
        check(&diag[..n * n], n, m, "diagonal with repeats");
    }
    // J_2(0) ⊕ J_1(0): the minimal polynomial x² (the relative polynomials would give x).
    let a = [0, 1, 0, 0, 0, 0, 0, 0, 0];
    let mut scratch = [0u32; minpoly_scratch_words(3)];
    let mut out = [0u32; 4];
    assert_eq!(minpoly(&a, 3, m, &mut scratch, &mut out), 2);
    assert_eq!(out, [0, 0, 1, 0]);
    // A generator found late: e_0 is an eigenvector, the block on e_1, e_2 is x² + 1.
    let a = [3, 0, 0, 0, 0, P - 1, 0, 1, 0];
    assert_eq!(minpoly(&a, 3, m, &mut scratch, &mut out), 3);
    check(&a, 3, m, "late generator");
}

#[test]
fn lcm_of_coprime_and_shared_factors() {
    let m = Modulus::new(P).unwrap();
    // mu = (x − 1)(x − 2) = x² − 3x + 2; b = (x − 2)(x − 3) = x² − 5x + 6;
    // lcm = (x − 1)(x − 2)(x − 3) = x³ − 6x² + 11x − 6.
    let mut mu = [2, P - 3, 1, 0, 0];
    let b = [6, P - 5, 1];
    let (mut g, mut h) = ([0u32; 5], [0u32; 5]);
    // SAFETY: every buffer holds at least the words lcm_in_place reads and writes.
    let d = unsafe {
        lcm_in_place(
            mu.as_mut_ptr(),
            2,
            b.as_ptr(),
            2,
            (g.as_mut_ptr(), h.as_mut_ptr()),
            m,
        )
    };
    assert_eq!(d, 3);
    assert_eq!(mu[..4], [P - 6, 11, P - 6, 1]);
    // b divides mu: unchanged.
    let b = [P - 1, 1];
    let d = unsafe {
        lcm_in_place(
            mu.as_mut_ptr(),
            3,
            b.as_ptr(),
            1,
            (g.as_mut_ptr(), h.as_mut_ptr()),
            m,
        )
    };
    assert_eq!(d, 3);
    assert_eq!(mu[..4], [P - 6, 11, P - 6, 1]);
    // Coprime: x + 1 gives the product.
    let b = [1, 1];
    let d = unsafe {
        lcm_in_place(
            mu.as_mut_ptr(),
            3,
            b.as_ptr(),
            1,
            (g.as_mut_ptr(), h.as_mut_ptr()),
            m,
        )
    };
    // (x³ − 6x² + 11x − 6)(x + 1) = x⁴ − 5x³ + 5x² + 5x − 6.
    assert_eq!(d, 4);
    assert_eq!(mu, [P - 6, 5, 5, P - 5, 1]);
}
