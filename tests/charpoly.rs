//! The characteristic polynomial, modulo primes and over Z, against references that do
//! not share its steps: Faddeev–LeVerrier over rug's integers (small sizes), and
//! matrices with known answers at sizes no reference reaches (`P·T·P⁻¹` for a unit
//! triangular `P` and a triangular `T` with a chosen diagonal: `Π (x − t_ii)`;
//! companion matrices of chosen polynomials). The GPU's residues equal the CPU's bit for
//! bit, on both sides of the kernel's thresholds (a warp per row up to 32 rows, then
//! rows shared by warps) and with its channels split into chunks by a memory cap.

use rns::{charpoly, Backend, IntMatrix, ModMatrices};
use rns_suite::{companion, conjugate, dev, from_roots, gpu_backend, naive_matmul, Gen, LiftCaps};
use rug::Integer;

/// `det(x·I − A)` by Faddeev–LeVerrier: `M_k = A·M_{k−1} + c_{n−k+1}·I`,
/// `c_{n−k} = −tr(A·M_k)/k` (exact divisions).
fn leverrier(a: &IntMatrix) -> Vec<Integer> {
    let n = a.rows();
    let mut c = vec![Integer::new(); n + 1];
    c[n] = Integer::from(1);
    let mut mk = IntMatrix::new(n, n, vec![Integer::new(); n * n]).unwrap();
    for k in 1..=n {
        let am = naive_matmul(a, &mk);
        let mut data = am.entries().to_vec();
        for i in 0..n {
            data[i * n + i] += &c[n - k + 1];
        }
        mk = IntMatrix::new(n, n, data).unwrap();
        let amk = naive_matmul(a, &mk);
        let tr: Integer = (0..n).map(|i| amk.get(i, i).clone()).sum();
        c[n - k] = -(tr / Integer::from(k));
    }
    c
}

/// `P·T·P⁻¹` with `T` upper triangular with diagonal `d`: its characteristic
/// polynomial is `Π (x − d_i)`.
fn similar_to_triangular(gen: &mut Gen, d: &[Integer]) -> IntMatrix {
    let n = d.len();
    let mut t = vec![Integer::new(); n * n];
    for i in 0..n {
        t[i * n + i] = d[i].clone();
        for j in i + 1..n {
            t[i * n + j] = gen.signed(20);
        }
    }
    conjugate(gen, &IntMatrix::new(n, n, t).unwrap())
}

fn backends() -> Vec<Backend> {
    let mut out = vec![Backend::Cpu];
    out.extend(gpu_backend());
    out
}

/// The device's memory limit is shared by this binary's tests: each that sets it holds
/// this (run side by side, one's limit starved another's grid).
fn settings() -> std::sync::MutexGuard<'static, ()> {
    static LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

#[test]
fn small_matrices_match_leverrier() {
    let mut gen = Gen::new(61);
    for be in backends() {
        for n in 1..=9 {
            for bits in [1, 8, 64, 300] {
                let a = gen.matrix(n, n, bits);
                assert_eq!(
                    charpoly(&a, &be).unwrap(),
                    leverrier(&a),
                    "{n}×{n}, {bits}-bit"
                );
            }
        }
        for a in [
            IntMatrix::identity(6),
            IntMatrix::new(5, 5, vec![Integer::new(); 25]).unwrap(),
            gen.low_rank(7, 7, 2, 40),
        ] {
            assert_eq!(charpoly(&a, &be).unwrap(), leverrier(&a));
        }
        // Strictly upper triangular: nilpotent, x^n.
        let n = 6;
        let data = (0..n * n)
            .map(|k| {
                if k % n > k / n {
                    gen.signed(50)
                } else {
                    Integer::new()
                }
            })
            .collect();
        let c = charpoly(&IntMatrix::new(n, n, data).unwrap(), &be).unwrap();
        assert!(c[..n].iter().all(|x| *x == 0) && c[n] == 1);
    }
}

#[test]
fn known_answers_at_larger_sizes() {
    let mut gen = Gen::new(62);
    for be in backends() {
        for n in [31, 32, 33, 80] {
            let d: Vec<Integer> = (0..n).map(|_| gen.signed(40)).collect();
            let a = similar_to_triangular(&mut gen, &d);
            assert_eq!(charpoly(&a, &be).unwrap(), from_roots(&d), "{n}×{n}");
        }
        // The companion matrix of a chosen monic polynomial with 500-bit coefficients.
        let n = 40;
        let want: Vec<Integer> = (0..n)
            .map(|_| gen.signed(500))
            .chain([Integer::from(1)])
            .collect();
        let a = companion(&want);
        assert_eq!(charpoly(&a, &be).unwrap(), want, "companion");
    }
}

#[test]
fn bad_shapes_are_refused() {
    let a = IntMatrix::from_i64(2, 3, &[1, 2, 3, 4, 5, 6]).unwrap();
    let err = charpoly(&a, &Backend::Cpu).unwrap_err().to_string();
    assert!(err.contains("square"), "{err}");
    let m = ModMatrices::new(&[2147483647], 2, 3, vec![0; 6]).unwrap();
    assert!(Backend::Cpu.charpoly_mod(&m).is_err());
}

/// The GPU kernel's residues are the CPU's, bit for bit, at sizes around its warp
/// thresholds, with zero columns (skipped pivots) and row swaps, and with the channels
/// in chunks under a memory cap.
#[test]
fn gpu_residues_equal_cpu_residues() {
    let _settings = settings();
    let Some(g) = gpu_backend() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(63);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(70)
        .collect();
    for n in [1, 2, 3, 31, 32, 33, 64, 129] {
        let mut a = gen.matrix(n, n, 31);
        if n > 3 {
            // A zero column, and a zero subdiagonal entry: skipped pivots and swaps.
            let mut data = a.entries().to_vec();
            for i in 0..n {
                data[i * n + 1] = Integer::new();
            }
            data[n] = Integer::new();
            a = IntMatrix::new(n, n, data).unwrap();
        }
        let m = ModMatrices::from_int_matrix(&a, &primes).unwrap();
        let want = Backend::Cpu.charpoly_mod(&m).unwrap();
        assert_eq!(g.charpoly_mod(&m).unwrap(), want, "{n}×{n}");
        // Room for a few channels at a time: several chunks.
        let per = 4 * (n * n + n + 1 + rns_core::charpoly::charpoly_scratch_words(n));
        dev(&g).config().set_memory_limit(Some(8 * per));
        assert_eq!(g.charpoly_mod(&m).unwrap(), want, "{n}×{n} in chunks");
        dev(&g).config().set_memory_limit(None);
    }
}

/// A few large matrices on the GPU: their Hessenberg forms with the whole device (three
/// launches a column), then the recurrence with the whole device (two launches a step).
/// The polynomials equal the CPU's bit for bit on both sides of the order where that
/// path starts (64), at 32-column tile edges and 256-term chunk edges, with skipped columns and row and column swaps, for one and
/// three primes, and under a memory cap that leaves them to a block per prime.
#[test]
fn gpu_few_large_matrices_take_the_whole_device() {
    let _settings = settings();
    let Some(g) = gpu_backend() else { return };
    let mut gen = Gen::new(64);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(3)
        .collect();
    // 255 to 257 and 511 to 513: the recurrence's chunks of 256 terms.
    for n in [63, 64, 65, 100, 129, 255, 256, 257, 511, 513] {
        let mut data = gen.matrix(n, n, 31).entries().to_vec();
        // Column 1 zero (a skipped step), a zero subdiagonal entry (a swap), and a
        // low-rank corner.
        for i in 0..n {
            data[i * n + 1] = Integer::new();
        }
        data[n] = Integer::new();
        data[2 * n + 2] = Integer::new();
        let a = IntMatrix::new(n, n, data).unwrap();
        for count in [1, 3] {
            let m = ModMatrices::from_int_matrix(&a, &primes[..count]).unwrap();
            let want = Backend::Cpu.charpoly_mod(&m).unwrap();
            assert_eq!(g.charpoly_mod(&m).unwrap(), want, "{n}×{n}, {count} primes");
        }
    }
    // Known answers through that path: P·T·P⁻¹ modulo one prime.
    let d: Vec<Integer> = (0..150).map(|_| gen.signed(30)).collect();
    let a = similar_to_triangular(&mut gen, &d);
    let m = ModMatrices::from_int_matrix(&a, &primes[..1]).unwrap();
    let want: Vec<u32> = from_roots(&d).iter().map(|c| c.mod_u(primes[0])).collect();
    assert_eq!(
        g.charpoly_mod(&m).unwrap(),
        want,
        "P·T·P⁻¹ modulo one prime"
    );
    let m = ModMatrices::from_int_matrix(&gen.matrix(100, 100, 31), &primes).unwrap();
    let want = Backend::Cpu.charpoly_mod(&m).unwrap();
    dev(&g).config().set_memory_limit(Some(8 * 100 * 100));
    assert_eq!(g.charpoly_mod(&m).unwrap(), want, "capped");
    dev(&g).config().set_memory_limit(None);
}

/// Device words a prime of the whole-grid charpoly path holds at order `n` (its matrix,
/// the polynomials' triangle, the steps' vectors): for the memory caps below.
fn grid_channel_words(n: usize) -> usize {
    n * n
        + 4 * n
        + 3
        + rns_core::charpoly::charpoly_scratch_words(n)
        + rns::backend::gpu::launch::HESS_STATE_WORDS
}

/// Many primes of one large matrix on the GPU: from `ops::CHARPOLY_GRID_FROM` (400) by
/// whole-grid launches (`ops::charpoly_mod_grid`), below by a block per prime; 40 primes
/// are too many for the few-matrix rule on any current GPU (4 multiprocessors a prime).
/// The CPU's polynomials on both sides of the order, with a skipped pivot and a swap,
/// and in groups of three primes under a memory cap.
#[test]
fn gpu_many_primes_of_a_large_matrix() {
    let _settings = settings();
    let Some(g) = gpu_backend() else { return };
    let mut gen = Gen::new(65);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(40)
        .collect();
    let from = rns::backend::gpu::ops::CHARPOLY_GRID_FROM;
    for n in [from - 1, from, from + 1] {
        let mut data = gen.matrix(n, n, 31).entries().to_vec();
        for i in 0..n {
            data[i * n + 1] = Integer::new();
        }
        data[n] = Integer::new();
        let a = IntMatrix::new(n, n, data).unwrap();
        let m = ModMatrices::from_int_matrix(&a, &primes).unwrap();
        let want = Backend::Cpu.charpoly_mod(&m).unwrap();
        assert_eq!(g.charpoly_mod(&m).unwrap(), want, "{n}×{n}");
        if n == from {
            let words = grid_channel_words(n);
            dev(&g)
                .config()
                .set_memory_limit(Some(4 * words * 3 + 2 * words));
            let grid = rns::backend::gpu::ops::charpoly_mod_grid(dev(&g), m.moduli(), n, m.data());
            dev(&g).config().set_memory_limit(None);
            assert_eq!(grid.unwrap().unwrap(), want, "{n}×{n} in groups of three");
        }
    }
}

/// An integer matrix's images reduced on the device (`Backend::charpoly_integers`, the
/// path of charpoly over Z from `ops::CHARPOLY_GRID_FROM`): the CPU's residues for
/// entries of one to four words, negative ones among them, on both sides of the order,
/// in groups of three primes under a memory cap; and the whole charpoly over Z of a
/// matrix with a few 100-bit entries, against the CPU backend's.
#[test]
fn gpu_charpoly_of_integers_reduced_on_the_device() {
    let _settings = settings();
    let Some(g) = gpu_backend() else { return };
    let mut gen = Gen::new(66);
    let primes: Vec<u32> = rns::num::sieve::moduli_descending(|_| false)
        .take(40)
        .collect();
    let from = rns::backend::gpu::ops::CHARPOLY_GRID_FROM;
    for (n, bits) in [(from - 1, 100), (from, 31), (from, 100), (from + 1, 120)] {
        let a = gen.matrix(n, n, bits);
        let want = Backend::Cpu.charpoly_integers(&a, &primes).unwrap();
        assert_eq!(
            g.charpoly_integers(&a, &primes).unwrap(),
            want,
            "{n}×{n}, {bits}-bit"
        );
        if n == from && bits == 100 {
            let words = grid_channel_words(n);
            let packed = n * n * (4 + 1);
            dev(&g)
                .config()
                .set_memory_limit(Some(4 * (packed + 3 * words + words / 2)));
            let grouped = g.charpoly_integers(&a, &primes);
            dev(&g).config().set_memory_limit(None);
            assert_eq!(grouped.unwrap(), want, "{n}×{n} in groups of three");
        }
    }
    let mut data = gen.matrix(from, from, 8).entries().to_vec();
    for k in [0, 7 * from + 3, from * from - 1] {
        data[k] = gen.signed(100);
    }
    let a = IntMatrix::new(from, from, data).unwrap();
    let want = rns::charpoly(&a, &Backend::Cpu).unwrap();
    assert_eq!(
        rns::charpoly(&a, &g).unwrap(),
        want,
        "over Z, {from}×{from}"
    );
}
