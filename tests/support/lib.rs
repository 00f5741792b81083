//! Reference algorithms and input generators shared by the cross-crate tests and the
//! examples: nothing here goes through residues, so it can check what does.

pub mod bench;
pub mod inputs;
pub mod lifting;

use rns::backend::gpu::Gpu;
use rns::poly::sylvester::sylvester_of;
use rns::{Backend, BackendChoice, BiPoly, IntMatrix, IntPoly, ModMatrices, RnsBasis, RnsVec};
use rug::rand::RandState;
use rug::{Integer, Rational};
use std::sync::Arc;

/// Determinant by fraction-free Gaussian elimination (Bareiss), exact over Z.
pub fn bareiss_det(a: &IntMatrix) -> Integer {
    assert!(a.is_square());
    let n = a.rows();
    let mut m: Vec<Vec<Integer>> = (0..n).map(|i| a.row(i).to_vec()).collect();
    let mut sign = 1i32;
    let mut prev = Integer::from(1);
    for k in 0..n {
        if m[k][k] == 0 {
            match (k + 1..n).find(|&i| m[i][k] != 0) {
                Some(p) => {
                    m.swap(k, p);
                    sign = -sign;
                }
                None => return Integer::new(),
            }
        }
        for i in k + 1..n {
            for j in k + 1..n {
                let t = Integer::from(&m[i][j] * &m[k][k]) - Integer::from(&m[i][k] * &m[k][j]);
                m[i][j] = t.div_exact(&prev);
            }
        }
        prev = m[k][k].clone();
    }
    if n == 0 {
        return Integer::from(1);
    }
    Integer::from(&m[n - 1][n - 1] * sign)
}

/// The edges of a basis's signed range: 0, ±1, ±H, ±(H−1) and ±2^b, where
/// `H = (M−1)/2` and `b` is the basis's `range_bits`.
pub fn edge_values(basis: &RnsBasis) -> Vec<Integer> {
    let h = basis.half().clone();
    let top = Integer::from(1) << basis.range_bits() as u32;
    vec![
        Integer::new(),
        Integer::from(1),
        Integer::from(-1),
        h.clone(),
        -h.clone(),
        Integer::from(&h - 1u32),
        Integer::from(1u32) - &h,
        top.clone(),
        -top,
    ]
}

/// Values of every length up to the range's end: its edges, `±10^j` and their
/// neighbours, `±(2^j − 1)`.
pub fn decimal_edges(b: &RnsBasis) -> Vec<Integer> {
    let h = b.half().clone();
    let mut col: Vec<Integer> = edge_values(b)
        .into_iter()
        .filter(|x| x.clone().abs() <= h)
        .collect();
    let mut p = Integer::from(1);
    while p < h {
        for x in [
            Integer::from(&p - 1u32),
            p.clone(),
            Integer::from(&p + 1u32),
        ] {
            col.push(-x.clone());
            col.push(x);
        }
        p *= 10;
    }
    for e in (1..b.range_bits()).step_by(7) {
        col.push((Integer::from(1) << e as u32) - 1u32);
    }
    col
}

/// `backend`'s text of `x · y` over `b` ([`Backend::matmul_integers_text`], with the
/// matrix format's header): `None` where it leaves the formatting to the integers.
pub fn product_text(
    backend: &Backend,
    b: &Arc<RnsBasis>,
    x: &IntMatrix,
    y: &IntMatrix,
) -> Option<String> {
    let (n, k, p) = (x.rows(), x.cols(), y.cols());
    let header = format!("{n} {p}\n");
    let (ea, eb) = (x.entries(), y.entries());
    let mut laps = rns::timing::Laps::start();
    backend
        .matmul_integers_text(b, ea, eb, (n, k, p), &header, &mut laps)
        .unwrap()
}

/// `backend`'s product text over the basis for `bits` against rug's, where `backend`
/// must make it ([`product_text`]): the range's edges and the chunks' boundaries
/// ([`decimal_edges`]) as a column times 1 (a line each) and times `[1 −1 0 1]` (four
/// a line), a random 37×19 by 19×41 product, and the first entry out of the range
/// reported at its index.
pub fn check_product_text(backend: &Backend, bits: u64, gen: &mut Gen, made_by: &str) {
    let b = Arc::new(RnsBasis::for_bits(bits));
    let col = decimal_edges(&b);
    let len = col.len();
    let text = |x: &IntMatrix, y: &IntMatrix| product_text(backend, &b, x, y).expect(made_by);
    let x = IntMatrix::new(len, 1, col.clone()).unwrap();
    let one = IntMatrix::new(1, 1, vec![Integer::from(1)]).unwrap();
    assert_eq!(text(&x, &one), x.to_text(), "{bits} bits: column");
    let row = [1, -1, 0, 1].map(Integer::from).to_vec();
    let y = IntMatrix::new(1, 4, row).unwrap();
    let want = naive_matmul(&x, &y).to_text();
    assert_eq!(text(&x, &y), want, "{bits} bits: four a line");
    let (x, y) = (
        gen.matrix(37, 19, bits as u32 / 2 - 5),
        gen.matrix(19, 41, 3),
    );
    let want = naive_matmul(&x, &y).to_text();
    assert_eq!(text(&x, &y), want, "{bits} bits: random");
    // Rows [x, 0] but for rows 3 (H + 1) and 7 (−H − 1): the first is reported.
    let pairs = pairs_out_of_range_at_3(&b, &col);
    let two = [Integer::from(1), Integer::from(1)];
    let mut laps = rns::timing::Laps::start();
    match backend.matmul_integers_text(&b, &pairs, &two, (len, 2, 1), "", &mut laps) {
        Err(rns::Error::OutOfRange { index: 3, .. }) => {}
        other => panic!("{bits} bits: want entry 3 out of range, got {other:?}"),
    }
}

/// Rows `[x, 0]` of the values `col`, but for rows 3 (`[H, 1]`: `H + 1` against `[1, 1]`)
/// and 7 (`−H − 1`): a `col.len() × 2` matrix whose product by `[1, 1]ᵀ` leaves the
/// range of `b` first at entry 3.
pub fn pairs_out_of_range_at_3(b: &RnsBasis, col: &[Integer]) -> Vec<Integer> {
    let h = b.half().clone();
    let mut pairs = Vec::new();
    for (i, v) in col.iter().enumerate() {
        let (v, w) = match i {
            3 => (h.clone(), Integer::from(1)),
            7 => (-h.clone(), Integer::from(-1)),
            _ => (v.clone(), Integer::new()),
        };
        pairs.extend([v, w]);
    }
    pairs
}

/// Values at the edges of the interval pass's undecided regions (`rns_core::interval`):
/// with `w = B·M/2^64` the width of the region around 0 in values, the values
/// `±w·f` and `±(H − w·f)` for factors `f` from 1/4 to 4, each with its neighbours ±1,
/// and small powers of two (decided only by the exact path).
pub fn interval_edges(basis: &RnsBasis) -> Vec<Integer> {
    let slack = rns_core::interval::slack(basis.range_moduli());
    let w = Integer::from(basis.product() * slack) >> 64u32;
    let h = basis.half();
    let mut v = Vec::new();
    for f in [1u32, 2, 3, 4, 6, 8, 16] {
        let x = Integer::from(&w * f) >> 2u32; // w·f/4
        for y in [x.clone(), Integer::from(h - &x)] {
            for d in [-1i32, 0, 1] {
                let z = Integer::from(&y + d);
                if z.as_abs().cmp(h).is_le() {
                    v.push(Integer::from(-&z));
                    v.push(z);
                }
            }
        }
    }
    for e in [0u32, 1, 31, 62, 63, 64, 100] {
        let p = Integer::from(1) << e;
        if p.as_abs().cmp(h).is_le() {
            v.push(Integer::from(-&p));
            v.push(p);
        }
    }
    v
}

/// A reproducible random generator for test and benchmark inputs.
pub struct Gen {
    state: RandState<'static>,
}

impl Gen {
    /// A generator seeded with `seed`: the same seed gives the same inputs everywhere.
    pub fn new(seed: u64) -> Gen {
        let mut state = RandState::new();
        state.seed(&Integer::from(seed));
        Gen { state }
    }

    /// A uniform signed integer with `|x| < 2^bits`.
    pub fn signed(&mut self, bits: u32) -> Integer {
        let x = Integer::from(Integer::random_bits(bits, &mut self.state));
        if self.below(2) == 1 {
            -x
        } else {
            x
        }
    }

    /// A polynomial of degree `d` with `bits`-bit coefficients (a zero leading one
    /// replaced by 3).
    pub fn poly(&mut self, d: usize, bits: u32) -> IntPoly {
        let mut c: Vec<Integer> = (0..=d).map(|_| self.signed(bits)).collect();
        if c[d] == 0 {
            c[d] = Integer::from(3);
        }
        IntPoly::new(c).expect("a non-empty polynomial")
    }

    /// A uniform integer in `[0, n)`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.state.below(n)
    }

    /// A uniform integer in `[−h, h]`.
    pub fn in_range(&mut self, h: &Integer) -> Integer {
        let width = Integer::from(h * 2u32) + 1u32;
        Integer::from(width.random_below_ref(&mut self.state)) - h
    }

    /// A `rows × cols` matrix of rank at most `r` (exactly `r` almost surely): the
    /// product of random `rows × r` and `r × cols` factors with `bits`-bit entries.
    pub fn low_rank(&mut self, rows: usize, cols: usize, r: usize, bits: u32) -> IntMatrix {
        let (x, y) = (self.matrix(rows, r, bits), self.matrix(r, cols, bits));
        naive_matmul(&x, &y)
    }

    /// A dense `f ∈ Z[x, y]` of degree `deg_y` in `y` and `deg_x` in `x` with signed
    /// `bits`-bit coefficients (the coefficient of `x^deg_x·y^deg_y` made non-zero).
    pub fn bipoly(&mut self, deg_y: usize, deg_x: usize, bits: u32) -> BiPoly {
        let mut rows: Vec<Vec<Integer>> = (0..=deg_y)
            .map(|_| (0..=deg_x).map(|_| self.signed(bits)).collect())
            .collect();
        if rows[deg_y][deg_x] == 0 {
            rows[deg_y][deg_x] = Integer::from(1);
        }
        BiPoly::from_rows(rows).expect("non-zero leading coefficient")
    }

    /// An `rows × cols` matrix of signed entries with `|a_ij| < 2^bits`.
    pub fn matrix(&mut self, rows: usize, cols: usize, bits: u32) -> IntMatrix {
        let data = (0..rows * cols).map(|_| self.signed(bits)).collect();
        IntMatrix::new(rows, cols, data).expect("shape matches")
    }
}

/// The product `A · B` by the schoolbook formula over Z.
/// `a` as a matrix of machine words ([`IntMatrix::from_i64`]; every entry within 64
/// bits).
pub fn words_of(a: &IntMatrix) -> IntMatrix {
    let w: Vec<i64> = a.entries().iter().map(|x| x.to_i64().unwrap()).collect();
    IntMatrix::from_i64(a.rows(), a.cols(), &w).unwrap()
}

pub fn naive_matmul(a: &IntMatrix, b: &IntMatrix) -> IntMatrix {
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    assert_eq!(k, b.rows());
    let data = (0..n * p)
        .map(|ij| {
            let (i, j) = (ij / p, ij % p);
            (0..k)
                .map(|t| Integer::from(a.get(i, t) * b.get(t, j)))
                .sum()
        })
        .collect();
    IntMatrix::new(n, p, data).unwrap()
}

/// `P·T·P⁻¹` for a random unit lower triangular `P` (entries in {−1, 0, 1}; its inverse
/// exact): a matrix similar to `t`, with the same characteristic and minimal polynomials.
pub fn conjugate(gen: &mut Gen, t: &IntMatrix) -> IntMatrix {
    let n = t.rows();
    let mut p = vec![Integer::new(); n * n];
    for i in 0..n {
        p[i * n + i] = Integer::from(1);
        for j in 0..i {
            p[i * n + j] = Integer::from(gen.below(3)) - 1;
        }
    }
    // P⁻¹ of a unit lower triangular P, row by row: X = I − (P − I)·X.
    let mut x = vec![Integer::new(); n * n];
    for i in 0..n {
        for j in 0..=i {
            let mut v = Integer::from((i == j) as u32);
            for k in j..i {
                v -= Integer::from(&p[i * n + k] * &x[k * n + j]);
            }
            x[i * n + j] = v;
        }
    }
    let [p, x] = [p, x].map(|v| IntMatrix::new(n, n, v).unwrap());
    naive_matmul(&naive_matmul(&p, t), &x)
}

/// `Π (x − r)` over the roots `roots`, constant first.
pub fn from_roots(roots: &[Integer]) -> Vec<Integer> {
    let mut p = vec![Integer::from(1)];
    for r in roots {
        let mut next = vec![Integer::new(); p.len() + 1];
        for (i, c) in p.iter().enumerate() {
            next[i + 1] += c;
            next[i] -= Integer::from(c * r);
        }
        p = next;
    }
    p
}

/// The companion matrix of the monic polynomial `c` (constant first, the last 1):
/// its characteristic and minimal polynomials are both `c`.
pub fn companion(c: &[Integer]) -> IntMatrix {
    let n = c.len() - 1;
    let mut data = vec![Integer::new(); n * n];
    for i in 1..n {
        data[i * n + i - 1] = Integer::from(1);
    }
    for i in 0..n {
        data[i * n + n - 1] = -c[i].clone();
    }
    IntMatrix::new(n, n, data).unwrap()
}

/// Gauss–Jordan over Q: the reduced row echelon form of `a` (rationals) and its rank.
pub fn rational_rref(a: &IntMatrix) -> (Vec<Vec<Rational>>, usize) {
    let (rows, cols) = (a.rows(), a.cols());
    let mut m: Vec<Vec<Rational>> = (0..rows)
        .map(|i| a.row(i).iter().map(|x| Rational::from(x.clone())).collect())
        .collect();
    let mut r = 0;
    for k in 0..cols {
        if r == rows {
            break;
        }
        let Some(p) = (r..rows).find(|&i| m[i][k] != 0) else {
            continue;
        };
        m.swap(p, r);
        let inv = Rational::from(1) / m[r][k].clone();
        for x in m[r].iter_mut() {
            *x *= &inv;
        }
        let pivot = m[r].clone();
        for (i, row) in m.iter_mut().enumerate() {
            if i != r && row[k] != 0 {
                let f = row[k].clone();
                for (x, y) in row.iter_mut().zip(&pivot) {
                    *x -= Rational::from(&f * y);
                }
            }
        }
        r += 1;
    }
    (m, r)
}

/// The exact solution of `A X = B` over Q by Gauss–Jordan on `[A | B]`, or `None` when
/// `A` is singular.
pub fn rational_solve(a: &IntMatrix, b: &IntMatrix) -> Option<Vec<Rational>> {
    let n = a.rows();
    let (m, _) = rational_rref(&a.augment(b).unwrap());
    for (i, row) in m.iter().enumerate() {
        if row[i] != 1 {
            return None;
        }
    }
    Some(m.iter().flat_map(|row| row[n..].to_vec()).collect())
}

/// Modular reference of Gauss–Jordan with `%` on 64-bit products: the reduced row
/// echelon form of a row-major `rows × cols` matrix over Z/p, pivoting on the first
/// `pivot_cols` columns, and the rank.
pub fn rref_mod_ref(
    a: &[u32],
    rows: usize,
    cols: usize,
    pivot_cols: usize,
    p: u32,
) -> (Vec<u32>, usize) {
    let p64 = p as u64;
    let mut m: Vec<u64> = a.iter().map(|&x| x as u64).collect();
    let pow = |mut b: u64, mut e: u64| {
        let mut acc = 1u64;
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * b % p64;
            }
            b = b * b % p64;
            e >>= 1;
        }
        acc
    };
    let mut r = 0;
    for k in 0..pivot_cols {
        if r == rows {
            break;
        }
        let Some(q) = (r..rows).find(|&i| m[i * cols + k] != 0) else {
            continue;
        };
        for j in 0..cols {
            m.swap(q * cols + j, r * cols + j);
        }
        let inv = pow(m[r * cols + k], p64 - 2);
        for j in 0..cols {
            m[r * cols + j] = m[r * cols + j] * inv % p64;
        }
        for i in 0..rows {
            let f = m[i * cols + k];
            if i != r && f != 0 {
                for j in 0..cols {
                    m[i * cols + j] = (m[i * cols + j] + p64 * p64 - f * m[r * cols + j]) % p64;
                }
            }
        }
        r += 1;
    }
    (m.into_iter().map(|x| x as u32).collect(), r)
}

/// Modular reference of the product with `%` on 64-bit products.
pub fn matmul_mod_ref(a: &[u32], b: &[u32], n: usize, k: usize, p: usize, m: u32) -> Vec<u32> {
    (0..n * p)
        .map(|ij| {
            let (i, j) = (ij / p, ij % p);
            (0..k).fold(0u64, |s, t| {
                (s + a[i * k + t] as u64 * b[t * p + j] as u64) % m as u64
            }) as u32
        })
        .collect()
}

/// A fingerprint of a sequence of integers, cheap to recompute elsewhere (Python):
/// `Σ_i x_i · (i + 1) mod (2^61 − 1)`, in `[0, 2^61 − 1)`.
pub fn fingerprint(values: impl IntoIterator<Item = Integer>) -> Integer {
    let p = Integer::from((1u64 << 61) - 1);
    let mut s = Integer::new();
    for (i, x) in values.into_iter().enumerate() {
        s += x * Integer::from(i + 1);
        s %= &p;
    }
    if s < 0 {
        s += &p;
    }
    s
}

/// `res_y(f, g)` at `x = a`, exact and without residues: Bareiss on the Sylvester matrix
/// of `f(a, y)` and `g(a, y)` with the formal degrees (it equals the resultant
/// polynomial's value even where a leading coefficient vanishes).
pub fn resultant_xy_at(f: &BiPoly, g: &BiPoly, a: &Integer) -> Integer {
    bareiss_det(&sylvester_of(&f.at_x(a), &g.at_x(a)))
}

/// `p(a)` for coefficients constant first.
pub fn eval_poly(p: &[Integer], a: &Integer) -> Integer {
    p.iter().rev().fold(Integer::new(), |acc, c| acc * a + c)
}

/// The product of two polynomials.
pub fn poly_mul(a: &IntPoly, b: &IntPoly) -> IntPoly {
    let mut c = vec![Integer::new(); a.degree() + b.degree() + 1];
    for (i, x) in a.coeffs().iter().enumerate() {
        for (j, y) in b.coeffs().iter().enumerate() {
            c[i + j] += Integer::from(x * y);
        }
    }
    IntPoly::new(c).expect("a non-empty product")
}

/// The product of two polynomials in `Z[x, y]`.
pub fn bipoly_mul(f: &BiPoly, g: &BiPoly) -> BiPoly {
    let mut terms = Vec::new();
    for j in 0..=f.deg_y() {
        for (i, a) in f.row(j).iter().enumerate() {
            for l in 0..=g.deg_y() {
                for (k, b) in g.row(l).iter().enumerate() {
                    terms.push((Integer::from(a * b), i + k, j + l));
                }
            }
        }
    }
    BiPoly::new(terms).expect("a product of non-zero polynomials")
}

/// The eight largest 31-bit primes, for the modular matrices of the tests.
pub const LARGEST_PRIMES: [u32; 8] = [
    2_147_483_647,
    2_147_483_629,
    2_147_483_587,
    2_147_483_579,
    2_147_483_563,
    2_147_483_549,
    2_147_483_543,
    2_147_483_497,
];

/// The images of `a` modulo the first `count` of [`LARGEST_PRIMES`].
pub fn images(a: &IntMatrix, count: usize) -> ModMatrices {
    ModMatrices::from_int_matrix(a, &LARGEST_PRIMES[..count]).unwrap()
}

/// The GPU backend, with poisoned output buffers, for the GPU tests; `None` (the test
/// prints `SKIPPED` and passes) without a usable GPU, unless `RNS_REQUIRE_GPU=1`, when
/// it fails instead.
pub fn gpu_backend() -> Option<Backend> {
    match Backend::select(BackendChoice::Gpu) {
        Ok(b) => {
            dev(&b).config().set_poison(true);
            Some(b)
        }
        Err(e) => {
            if std::env::var("RNS_REQUIRE_GPU").as_deref() == Ok("1") {
                panic!("RNS_REQUIRE_GPU=1 but the GPU backend is unusable: {e}");
            }
            // Written to the stderr handle, not eprintln!, so the test harness shows it.
            use std::io::Write;
            let _ = writeln!(std::io::stderr(), "SKIPPED: no usable GPU ({e})");
            None
        }
    }
}

/// Lifts the memory and shared-memory caps of device 0 when dropped, even when an
/// assertion fails: `let _lift = LiftCaps::hold();` before a test sets them. The caps are
/// the device's, shared by the tests that run at once, so a test that sets them holds a
/// lock for its whole run: another such test never runs under caps it did not set.
pub struct LiftCaps {
    _turn: std::sync::MutexGuard<'static, ()>,
}

/// The lock of [`LiftCaps`].
static CAPS: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl LiftCaps {
    /// Waits for the tests that set caps before this one, then holds the lock.
    pub fn hold() -> LiftCaps {
        LiftCaps {
            _turn: CAPS.lock().unwrap_or_else(|e| e.into_inner()),
        }
    }
}

impl Drop for LiftCaps {
    fn drop(&mut self) {
        if let Ok(g) = Gpu::get() {
            g.config().set_memory_limit(None);
            g.config().set_shared_memory_limit(None);
            g.config().set_block_resultant_from(None);
            g.config().set_resultant_threads(None);
            g.config().set_tensor_cores(None);
            g.config().set_tensor_split(None);
            g.config().set_det_panel(None);
            g.config().set_inverse_panels(None, None);
            g.config().set_inverse_recursion(None);
            g.config().set_lift_rows(None);
            g.config().set_lift_primes(None);
            g.config().set_lift_ring(true);
            g.config().set_block_split(None);
        }
    }
}

/// The device of a GPU backend.
pub fn dev(b: &Backend) -> &Arc<Gpu> {
    b.gpu().expect("a GPU backend")
}

/// Asserts equal slices, reporting the first difference instead of both slices.
#[track_caller]
pub fn same<T: PartialEq + std::fmt::Debug>(got: &[T], want: &[T], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: lengths differ");
    if let Some(i) = got.iter().zip(want).position(|(g, w)| g != w) {
        panic!(
            "{what}: first difference at {i} of {}: got {:?}, want {:?}",
            got.len(),
            got[i],
            want[i]
        );
    }
}

/// The basis of the `k` largest 31-bit primes (plus a redundant one).
pub fn basis(k: usize) -> Arc<RnsBasis> {
    Arc::new(RnsBasis::largest_primes(k).unwrap())
}

/// Random residues for every channel; every 7th number is 0, 1 or m − 1 in every channel.
pub fn random_with_edges(basis: &Arc<RnsBasis>, len: usize, seed: u64) -> RnsVec {
    let mut data = RnsVec::random(basis, len, seed).residues().to_vec();
    for (c, m) in basis.moduli().iter().enumerate() {
        for i in (3..len).step_by(7) {
            data[c * len + i] = [0, 1, m.m - 1][(i / 7 + c) % 3];
        }
    }
    RnsVec::from_residues(basis, len, data).unwrap()
}
