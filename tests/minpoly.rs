//! The minimal polynomial, modulo primes and over Z, against references that do not
//! share its steps: the first power `A^k` in the span of the lower ones, by Gauss–Jordan
//! over Q (small sizes), and matrices with known answers at sizes no reference reaches
//! (`P·J·P⁻¹` for a Jordan form `J` with chosen eigenvalues and block sizes:
//! `Π (x − λ)^(largest block of λ)`; companion matrices; rank one `u·vᵀ` with large
//! entries: `x² − (v·u)·x`). The GPU's residues equal the CPU's bit for bit, on both
//! sides of the kernel's thresholds (one row under a block's width, one over) and with
//! its channels split into chunks by a memory cap.

use rns::{charpoly, minpoly, Backend, IntMatrix, ModMatrices};
use rns_suite::{companion, conjugate, dev, from_roots, gpu_backend, naive_matmul, Gen, LiftCaps};
use rug::{Integer, Rational};

/// The monic polynomial of least degree with `f(A) = 0`: the powers of `A` as vectors of
/// `n²` rationals, each reduced against the earlier ones (with its combination of them)
/// until one reduces to zero.
fn reference(a: &IntMatrix) -> Vec<Integer> {
    let n = a.rows();
    let nn = n * n;
    let mut rows: Vec<(usize, Vec<Rational>)> = Vec::new();
    let mut power = IntMatrix::identity(n);
    for k in 0..=n {
        let mut x: Vec<Rational> = power.entries().iter().map(Rational::from).collect();
        x.extend((0..=n).map(|j| Rational::from((j == k) as u32)));
        for (p, row) in &rows {
            let f = x[*p].clone();
            if f != 0 {
                for (v, r) in x.iter_mut().zip(row) {
                    *v -= Rational::from(&f * r);
                }
            }
        }
        match (0..nn).find(|&j| x[j] != 0) {
            None => {
                return x[nn..=nn + k]
                    .iter()
                    .map(|c| {
                        assert_eq!(*c.denom(), 1, "monic over Z");
                        c.numer().clone()
                    })
                    .collect()
            }
            Some(p) => {
                let inv = Rational::from(1) / &x[p];
                for v in x.iter_mut() {
                    *v *= &inv;
                }
                for (_, row) in rows.iter_mut() {
                    let f = row[p].clone();
                    if f != 0 {
                        for (r, v) in row.iter_mut().zip(&x) {
                            *r -= Rational::from(&f * v);
                        }
                    }
                }
                rows.push((p, x));
            }
        }
        power = naive_matmul(&power, a);
    }
    unreachable!("Cayley–Hamilton")
}

/// The Jordan form with blocks `(λ, size)` in order.
fn jordan(blocks: &[(i64, usize)]) -> IntMatrix {
    let n: usize = blocks.iter().map(|b| b.1).sum();
    let mut data = vec![Integer::new(); n * n];
    let mut at = 0;
    for &(l, size) in blocks {
        for i in at..at + size {
            data[i * n + i] = Integer::from(l);
            if i + 1 < at + size {
                data[i * n + i + 1] = Integer::from(1);
            }
        }
        at += size;
    }
    IntMatrix::new(n, n, data).unwrap()
}

/// `Π (x − λ)^(largest block of λ)`.
fn jordan_minpoly(blocks: &[(i64, usize)]) -> Vec<Integer> {
    let mut roots = Vec::new();
    let mut seen: Vec<i64> = Vec::new();
    for &(l, _) in blocks {
        if !seen.contains(&l) {
            seen.push(l);
            let big = blocks
                .iter()
                .filter(|b| b.0 == l)
                .map(|b| b.1)
                .max()
                .unwrap();
            roots.extend(std::iter::repeat_n(Integer::from(l), big));
        }
    }
    from_roots(&roots)
}

fn backends() -> Vec<Backend> {
    let mut out = vec![Backend::Cpu];
    out.extend(gpu_backend());
    out
}

#[test]
fn small_matrices_match_the_definition() {
    let mut gen = Gen::new(71);
    for be in backends() {
        for n in 1..=7 {
            for bits in [1, 2, 8, 64, 200] {
                let a = gen.matrix(n, n, bits);
                assert_eq!(
                    minpoly(&a, &be).unwrap(),
                    reference(&a),
                    "{n}×{n}, {bits}-bit"
                );
            }
        }
        let z = IntMatrix::new(5, 5, vec![Integer::new(); 25]).unwrap();
        for a in [
            IntMatrix::identity(6),
            z,
            gen.low_rank(7, 7, 2, 40),
            gen.low_rank(6, 6, 1, 3),
        ] {
            assert_eq!(minpoly(&a, &be).unwrap(), reference(&a));
        }
        assert_eq!(minpoly(&IntMatrix::identity(0), &be).unwrap(), [1]);
    }
}

#[test]
fn known_answers_at_larger_sizes() {
    let mut gen = Gen::new(72);
    for be in backends() {
        // Derogatory: repeated eigenvalues in several blocks (many generators).
        let blocks = [
            (3, 4),
            (3, 2),
            (-5, 1),
            (-5, 1),
            (7, 3),
            (0, 2),
            (0, 5),
            (3, 4),
        ];
        let j = jordan(&blocks);
        for a in [j.clone(), conjugate(&mut gen, &j)] {
            assert_eq!(
                minpoly(&a, &be).unwrap(),
                jordan_minpoly(&blocks),
                "Jordan 22"
            );
        }
        for n in [31, 32, 33, 70] {
            let blocks: Vec<(i64, usize)> = (0..n / 3)
                .map(|i| (gen.below(5) as i64 - 2, 1 + (i % 4)))
                .collect();
            let a = conjugate(&mut gen, &jordan(&blocks));
            assert_eq!(minpoly(&a, &be).unwrap(), jordan_minpoly(&blocks), "{n}");
            // A scalar multiple of the identity, conjugated: degree one.
            let c = gen.signed(60);
            let cid = IntMatrix::new(
                n,
                n,
                (0..n * n)
                    .map(|k| {
                        if k % (n + 1) == 0 {
                            c.clone()
                        } else {
                            Integer::new()
                        }
                    })
                    .collect(),
            )
            .unwrap();
            assert_eq!(minpoly(&cid, &be).unwrap(), [-c.clone(), Integer::from(1)]);
        }
        // Non-derogatory: the minimal polynomial is the characteristic one.
        let want: Vec<Integer> = (0..40)
            .map(|_| gen.signed(400))
            .chain([Integer::from(1)])
            .collect();
        assert_eq!(minpoly(&companion(&want), &be).unwrap(), want, "companion");
        let a = gen.matrix(30, 30, 64);
        assert_eq!(
            minpoly(&a, &be).unwrap(),
            charpoly(&a, &be).unwrap(),
            "random 30×30"
        );
        // Rank one with 200-bit entries: x² − (v·u)·x, from a handful of primes.
        let n = 60;
        let (u, v): (Vec<Integer>, Vec<Integer>) =
            (0..n).map(|_| (gen.signed(100), gen.signed(100))).unzip();
        let data = (0..n * n)
            .map(|k| Integer::from(&u[k / n] * &v[k % n]))
            .collect();
        let a = IntMatrix::new(n, n, data).unwrap();
        let vu: Integer = u.iter().zip(&v).map(|(x, y)| Integer::from(x * y)).sum();
        assert_eq!(
            minpoly(&a, &be).unwrap(),
            [Integer::new(), -vu, Integer::from(1)]
        );
    }
}

#[test]
fn bad_shapes_are_refused() {
    let a = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    let err = minpoly(&a, &Backend::Cpu).unwrap_err().to_string();
    assert!(err.contains("square"), "{err}");
    let m = ModMatrices::new(&[2147483647], 2, 3, vec![0; 6]).unwrap();
    let err = Backend::Cpu.minpoly_mod(&m).unwrap_err().to_string();
    assert!(err.contains("square"), "{err}");
}

/// The GPU kernel's residues are the CPU's, bit for bit: random (one generator),
/// derogatory (many generators, the span's basis in use), around the block's width
/// (256 threads: the Krylov rows are `2n + 1` words), and in chunks under a memory cap.
#[test]
fn gpu_residues_equal_cpu_residues() {
    let Some(g) = gpu_backend() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(73);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(70)
        .collect();
    for n in [1usize, 2, 3, 31, 32, 33, 127, 128, 129, 257] {
        let blocks: Vec<(i64, usize)> = (0..n.div_ceil(3))
            .map(|i| (gen.below(3) as i64, 1 + i % 3))
            .collect();
        let derogatory = conjugate(&mut gen, &jordan(&blocks));
        for (a, what) in [(gen.matrix(n, n, 31), "random"), (derogatory, "derogatory")] {
            let m = ModMatrices::from_int_matrix(&a, &primes).unwrap();
            let want = Backend::Cpu.minpoly_mod(&m).unwrap();
            assert_eq!(
                g.minpoly_mod(&m).unwrap(),
                want,
                "{what} {}×{}",
                a.rows(),
                a.rows()
            );
            if n == 33 {
                let per = 4 * (n * n + n + 1 + rns_core::minpoly::minpoly_scratch_words(n));
                dev(&g).config().set_memory_limit(Some(8 * per));
                assert_eq!(g.minpoly_mod(&m).unwrap(), want, "{what} {n}×{n} in chunks");
                dev(&g).config().set_memory_limit(None);
            }
        }
    }
}

/// The CPU backend counts each busy thread's scratch (about `3n²` words) before the
/// work: 20 000² on 16 threads needs about 77 GB, refused against 64 GiB, where one
/// channel's scratch fits.
#[test]
fn the_cpu_scratch_is_counted_before_the_work() {
    use rns::limits::check_against;
    use rns::mat::modmat::MatrixPolynomial;
    let kind = MatrixPolynomial::Minimal;
    let words = kind.cpu_words(20_000, 16, 16);
    assert!(words > 19_000_000_000, "{words}");
    let err = check_against(words * 4, Some(64 << 30), kind.name()).unwrap_err();
    assert!(err.to_string().contains("minimal polynomial"), "{err}");
    assert!(check_against(kind.cpu_words(20_000, 1, 16) * 4, Some(64 << 30), "one").is_ok());
    // The characteristic polynomial also holds a copy of each busy thread's matrix.
    let c = MatrixPolynomial::Characteristic;
    assert_eq!(
        c.cpu_words(100, 4, 2),
        2 * (101 * 102 / 2 + 100 * 100) + 4 * 101
    );
}

/// A few large matrices on the GPU: the minimal polynomial by the characteristic one's
/// path with the whole device where every Hessenberg form is unreduced (a random
/// matrix: `ops::minpoly_mod_few` answers), else the general path (derogatory, whose
/// forms are all reduced; block diagonal, non-derogatory but reduced from `e_1`): the
/// CPU's polynomials in every case, for one and three primes, on both sides of the
/// order where the few-matrix path starts (64).
#[test]
fn gpu_few_large_matrices_minpoly() {
    let Some(g) = gpu_backend() else { return };
    let gpu = dev(&g);
    let mut gen = Gen::new(74);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(3)
        .collect();
    for n in [63, 64, 65, 129, 257] {
        let blocks: Vec<(i64, usize)> = (0..n / 4).map(|i| (i as i64 % 3, 1 + i % 5)).collect();
        let blocks = [
            blocks,
            vec![(9, n - (0..n / 4).map(|i| 1 + i % 5).sum::<usize>())],
        ]
        .concat();
        let derogatory = conjugate(&mut gen, &jordan(&blocks));
        let (r1, r2) = (
            gen.matrix(n / 2, n / 2, 31),
            gen.matrix(n - n / 2, n - n / 2, 31),
        );
        let diagonal = IntMatrix::new(
            n,
            n,
            (0..n * n)
                .map(|k| {
                    let (i, j, h) = (k / n, k % n, n / 2);
                    match (i < h, j < h) {
                        (true, true) => r1.get(i, j).clone(),
                        (false, false) => r2.get(i - h, j - h).clone(),
                        _ => Integer::new(),
                    }
                })
                .collect(),
        )
        .unwrap();
        let cases = [
            (gen.matrix(n, n, 31), "random", true),
            (derogatory, "derogatory", false),
            (diagonal, "block diagonal", false),
        ];
        for (a, what, few) in cases {
            for count in [1, 3] {
                let m = ModMatrices::from_int_matrix(&a, &primes[..count]).unwrap();
                let want = Backend::Cpu.minpoly_mod(&m).unwrap();
                assert_eq!(g.minpoly_mod(&m).unwrap(), want, "{what} {n}×{n}, {count}");
                let direct =
                    rns::backend::gpu::ops::minpoly_mod_few(gpu, m.moduli(), n, m.data()).unwrap();
                assert_eq!(direct.is_some(), few, "{what} {n}×{n}, {count}");
                if let Some(f) = direct {
                    assert_eq!(f, want, "{what} {n}×{n}, {count}: the few path");
                    assert_eq!(f, Backend::Cpu.charpoly_mod(&m).unwrap(), "{what}: χ = μ");
                }
            }
        }
    }
}
