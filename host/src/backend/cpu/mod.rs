//! The CPU backend: every operation in parallel over channels and numbers with rayon,
//! on the arithmetic of `rns-core`.

mod blocked;
pub mod det_bound;
pub(crate) mod ordering;
mod tiles;

use super::Op;
use crate::mat::modmat::MatrixPolynomial;
use crate::num::layout;
use rayon::prelude::*;
use rns_core::modulus::LAZY_PRODUCTS;
use rns_core::poly::{self, BiShape};
use rns_core::{linalg, mixed_radix, Modulus};

/// Numbers per rayon task inside one channel.
const CHUNK: usize = 1 << 14;

/// `out[c·len + i] = f(m_c, c, xs…)` over all channels and numbers; `N` inputs.
fn map<const N: usize>(
    moduli: &[Modulus],
    len: usize,
    inputs: [&[u32]; N],
    f: impl Fn(Modulus, usize, [u32; N]) -> u32 + Sync,
) -> Vec<u32> {
    let mut out = vec![0u32; moduli.len() * len];
    if len == 0 {
        return out;
    }
    out.par_chunks_mut(len).enumerate().for_each(|(c, col)| {
        let m = moduli[c];
        col.par_chunks_mut(CHUNK).enumerate().for_each(|(k, part)| {
            let start = c * len + k * CHUNK;
            for (j, o) in part.iter_mut().enumerate() {
                let args = inputs.map(|x| x[start + j]);
                *o = f(m, c, args);
            }
        });
    });
    out
}

/// Applies `op` to channel-major inputs (`inputs.len() == op.arity()`); `scalar` holds
/// one residue per channel for the scalar operations.
pub fn elementwise(
    op: Op,
    moduli: &[Modulus],
    len: usize,
    inputs: &[&[u32]],
    scalar: &[u32],
) -> Vec<u32> {
    let x = |i: usize| inputs[i];
    match op {
        Op::Add => map(moduli, len, [x(0), x(1)], |m, _, [a, b]| m.add(a, b)),
        Op::Sub => map(moduli, len, [x(0), x(1)], |m, _, [a, b]| m.sub(a, b)),
        Op::Neg => map(moduli, len, [x(0)], |m, _, [a]| m.neg(a)),
        Op::Mul => map(moduli, len, [x(0), x(1)], |m, _, [a, b]| m.mul(a, b)),
        Op::MulNaive => map(moduli, len, [x(0), x(1)], |m, _, [a, b]| m.mul_naive(a, b)),
        Op::MulAdd => map(moduli, len, [x(0), x(1), x(2)], |m, _, [a, b, c]| {
            m.mul_add(a, b, c)
        }),
        Op::MulSubMul => map(
            moduli,
            len,
            [x(0), x(1), x(2), x(3)],
            |m, _, [a, b, c, d]| m.mul_sub_mul(a, b, c, d),
        ),
        Op::AddScalar => map(moduli, len, [x(0)], |m, c, [a]| m.add(a, scalar[c])),
        Op::SubScalar => map(moduli, len, [x(0)], |m, c, [a]| m.sub(a, scalar[c])),
        Op::MulScalar => map(moduli, len, [x(0)], |m, c, [a]| m.mul(a, scalar[c])),
    }
}

/// Whether numbers `i` of `a` and `b` agree in every channel.
pub fn equal(channels: usize, len: usize, a: &[u32], b: &[u32]) -> Vec<bool> {
    (0..len)
        .into_par_iter()
        .map(|i| (0..channels).all(|c| a[c * len + i] == b[c * len + i]))
        .collect()
}

/// Mixed-radix digits over the `K` range channels of every number, number-major
/// (`K` digits per number, least significant first). `offset`, if given, is added
/// to every number first (one residue per range channel).
pub fn mixed_radix_digits(
    range: &[Modulus],
    table: &[u32],
    len: usize,
    data: &[u32],
    offset: Option<&[u32]>,
) -> Vec<u32> {
    let k = range.len();
    let mut digits = layout::to_number_major(&data[..k * len], len, k);
    digits.par_chunks_mut(k.max(1)).for_each(|x| {
        if let Some(off) = offset {
            for ((xj, m), &o) in x.iter_mut().zip(range).zip(off) {
                *xj = m.add(*xj, o);
            }
        }
        mixed_radix::to_digits(x, range, table);
    });
    digits
}

/// Gaussian elimination ([`linalg::eliminate`]) of one `rows × cols` matrix per channel,
/// pivoting on the first `pivot_cols` columns; channel `c` of `data` holds the row-major
/// matrix modulo `moduli[c]` and is overwritten. Returns `(rank, det)` per channel.
/// In parallel over channels; with fewer channels than threads, each elimination also
/// clears its rows in parallel (the same steps, so the same results). From
/// `blocked::BLOCKED_FROM` rows and pivot columns, by panels (`blocked::eliminate`:
/// the same pivots and results).
pub fn eliminate_per_channel(
    moduli: &[Modulus],
    rows: usize,
    cols: usize,
    pivot_cols: usize,
    jordan: bool,
    data: &mut [u32],
) -> Vec<linalg::Elimination> {
    let size = rows * cols;
    if size == 0 {
        return vec![linalg::Elimination::of_empty(rows, pivot_cols); moduli.len()];
    }
    let few = moduli.len() < rayon::current_num_threads();
    let inner = few && size >= ROWS_IN_PARALLEL;
    let blocked = rows.min(pivot_cols) >= blocked::BLOCKED_FROM;
    data.par_chunks_mut(size)
        .zip(moduli.par_iter())
        .map(|(a, &m)| {
            if blocked {
                return blocked::eliminate(a, (rows, cols, pivot_cols), jordan, m, few);
            }
            linalg::eliminate_with(
                a,
                (rows, cols, pivot_cols),
                jordan,
                m,
                |block, tail, k, inv| {
                    let clear = |rows: &mut [u32]| {
                        for row in rows.chunks_exact_mut(cols) {
                            linalg::clear_column(row, tail, k, inv, jordan, m);
                        }
                    };
                    if inner && block.len() >= ROWS_IN_PARALLEL {
                        // Tasks of whole rows, about 8192 entries each.
                        block
                            .par_chunks_mut(cols * (8192 / cols).max(1))
                            .for_each(clear);
                    } else {
                        clear(block);
                    }
                },
            )
        })
        .collect()
}

/// Entries below which a column is cleared by one thread.
const ROWS_IN_PARALLEL: usize = 1 << 14;

/// Columns of the product per CPU task, and rows of `a` sharing one pass over `b`.
pub(crate) const MM_COLS: usize = 256;
pub(crate) const MM_ROWS: usize = 32;

/// `a · b` modulo each channel: `a` is `n × k` and `b` is `k × p`, row-major, channel
/// `c` at offsets `c·n·k` and `c·k·p`; the result is `n × p` per channel. Centered
/// residues, delayed reduction ([`linalg::add_products`], one fold every
/// [`LAZY_PRODUCTS`] products), blocks of rows × columns in parallel.
pub fn matmul_per_channel(
    moduli: &[Modulus],
    n: usize,
    k: usize,
    p: usize,
    a: &[u32],
    b: &[u32],
) -> Vec<u32> {
    let mut out = vec![0u32; moduli.len() * n * p];
    if n * p == 0 {
        return out;
    }
    out.par_chunks_mut(n * p).enumerate().for_each(|(c, prod)| {
        let m = moduli[c];
        let center = |x: &[u32]| x.iter().map(|&v| m.center(v)).collect::<Vec<i32>>();
        let ac = center(&a[c * n * k..(c + 1) * n * k]);
        let bc = center(&b[c * k * p..(c + 1) * k * p]);
        let packed = tiles::pack_if_tiled(&bc, k, p, n);
        prod.par_chunks_mut(MM_ROWS * p)
            .enumerate()
            .for_each(|(rb, block)| {
                let rows = block.len() / p;
                for j0 in (0..p).step_by(MM_COLS) {
                    let w = MM_COLS.min(p - j0);
                    let mut acc = vec![0i64; rows * w];
                    let a_rows = &ac[rb * MM_ROWS * k..(rb * MM_ROWS + rows) * k];
                    matmul_block(
                        m,
                        a_rows,
                        rows,
                        (&bc, packed.as_deref()),
                        k,
                        p,
                        j0,
                        &mut acc,
                    );
                    for (r, row) in acc.chunks(w).enumerate() {
                        for (o, &s) in block[r * p + j0..r * p + j0 + w].iter_mut().zip(row) {
                            *o = m.reduce_i64(s);
                        }
                    }
                }
            });
    });
    out
}

/// `acc[r][j] = Σ_t a[r][t] · b[t][j0 + j]` for `rows` rows of `a` (row length `k`) and
/// `w = acc.len() / rows` columns of `b` (row length `p`), folded every
/// [`LAZY_PRODUCTS`] steps. Compiled twice: for AVX2 when the CPU has it (four signed
/// 32×32→64 products per instruction) and for the baseline.
/// `b` may come with its strips packed once ([`tiles::pack`], for the AVX-512 tiles; `j0`
/// then a multiple of 16).
#[allow(clippy::too_many_arguments)]
pub(crate) fn matmul_block(
    m: Modulus,
    a: &[i32],
    rows: usize,
    (b, packed): (&[i32], Option<&[i32]>),
    k: usize,
    p: usize,
    j0: usize,
    acc: &mut [i64],
) {
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn body(
        m: Modulus,
        a: &[i32],
        rows: usize,
        b: &[i32],
        k: usize,
        p: usize,
        j0: usize,
        acc: &mut [i64],
    ) {
        let t = m.fold_factor();
        let w = acc.len() / rows;
        for t0 in (0..k).step_by(LAZY_PRODUCTS) {
            for kk in t0..(t0 + LAZY_PRODUCTS).min(k) {
                let brow = &b[kk * p + j0..kk * p + j0 + w];
                for (r, row) in acc.chunks_exact_mut(w).enumerate() {
                    linalg::add_products(row, a[r * k + kk], brow);
                }
            }
            linalg::fold_all(acc, t);
        }
    }
    #[cfg(target_arch = "x86_64")]
    if rows >= 4 && acc.len() / rows >= 16 && std::arch::is_x86_feature_detected!("avx512f") {
        // SAFETY: the CPU has AVX-512F; the shapes are the caller's.
        let (r, c) = unsafe { tiles::tiles(m, a, rows, (b, packed), (k, p, j0), acc) };
        let w = acc.len() / rows;
        // Rows past the whole tiles, then the columns past them in the tiled rows (their
        // own block, copied into place).
        if r < rows {
            body(m, &a[r * k..], rows - r, b, k, p, j0, &mut acc[r * w..]);
        }
        if c < w {
            let mut edge = vec![0i64; r * (w - c)];
            body(m, &a[..r * k], r, b, k, p, j0 + c, &mut edge);
            for (row, e) in acc.chunks_exact_mut(w).zip(edge.chunks_exact(w - c)) {
                row[c..].copy_from_slice(e);
            }
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    {
        #[target_feature(enable = "avx2")]
        #[allow(clippy::too_many_arguments)]
        unsafe fn avx2(
            m: Modulus,
            a: &[i32],
            rows: usize,
            b: &[i32],
            k: usize,
            p: usize,
            j0: usize,
            acc: &mut [i64],
        ) {
            body(m, a, rows, b, k, p, j0, acc)
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { avx2(m, a, rows, b, k, p, j0, acc) };
        }
    }
    body(m, a, rows, b, k, p, j0, acc)
}

/// Resultant modulo each channel of `f` (degree `df`) and `g` (degree `dg`): channel `c`
/// of `data` holds `df + 1` coefficients of `f`, then `dg + 1` of `g`.
pub fn resultant_per_channel(moduli: &[Modulus], df: usize, dg: usize, data: &[u32]) -> Vec<u32> {
    let len = df + dg + 2;
    moduli
        .par_iter()
        .enumerate()
        .map(|(c, &m)| {
            let mut buf = data[c * len..(c + 1) * len].to_vec();
            let (f, g) = buf.split_at_mut(df + 1);
            // SAFETY: f and g hold df + 1 and dg + 1 coefficients, read with stride 1.
            unsafe { linalg::resultant_strided(f.as_mut_ptr(), g.as_mut_ptr(), df, dg, 1, m) }
        })
        .collect()
}

/// Collins' modular steps per channel (see `Backend::resultant_xy_per_channel`): `data`
/// holds `shape.len()` residues per channel; the result `degree_bound + 1` per channel.
pub fn resultant_xy_per_channel(
    moduli: &[Modulus],
    shape: BiShape,
    candidates: usize,
    data: &[u32],
) -> Vec<u32> {
    let n = shape.degree_bound() + 1;
    let mut out = vec![0u32; moduli.len() * n];
    out.par_chunks_mut(n)
        .zip(data.par_chunks(shape.len()))
        .zip(moduli.par_iter())
        .for_each(|((ys, coeffs), &m)| {
            let mut xs = Vec::with_capacity(n);
            let mut work = vec![0u32; shape.work_len()];
            for a in 0..candidates as u32 {
                if xs.len() == n {
                    break;
                }
                // SAFETY: coeffs holds shape.len() words, work shape.work_len().
                let r = unsafe {
                    poly::resultant_at_point(coeffs.as_ptr(), shape, a, work.as_mut_ptr(), 1, m)
                };
                if let Some(v) = r {
                    ys[xs.len()] = v;
                    xs.push(a);
                }
            }
            if xs.len() < n {
                ys[0] = poly::NO_POINT;
                return;
            }
            let mut inv = vec![0u32; candidates];
            poly::small_inverses(&mut inv, m);
            poly::interpolate(&xs, ys, &inv, m);
        });
    out
}

/// The characteristic or minimal polynomial of one `n × n` matrix per channel of `data`
/// (`rns_core::charpoly` or `rns_core::minpoly`, channels in parallel): `n + 1`
/// coefficients per channel, constant first (zero above a minimal polynomial's degree).
pub fn matrix_polynomial_per_channel(
    kind: MatrixPolynomial,
    moduli: &[Modulus],
    n: usize,
    data: &[u32],
) -> Vec<u32> {
    let mut out = vec![0u32; moduli.len() * (n + 1)];
    out.par_chunks_mut(n + 1)
        .zip(moduli.par_iter())
        .enumerate()
        .for_each(|(c, (poly, &m))| {
            let a = &data[c * n * n..(c + 1) * n * n];
            let mut scratch = vec![0u32; kind.scratch_words(n)];
            match kind {
                MatrixPolynomial::Characteristic => {
                    let sums = &mut vec![0u64; n + 1];
                    charpoly_one(&mut a.to_vec(), n, m, (&mut scratch, sums), poly)
                }
                MatrixPolynomial::Minimal => {
                    rns_core::minpoly::minpoly(a, n, m, &mut scratch, poly);
                }
            }
        });
    out
}

/// `rns_core::charpoly::charpoly`, compiled for AVX-512 where the CPU has it (its row
/// updates and sums then run 16 residues a vector: 200² 5.2 → 3.5 ms a prime on dev).
fn charpoly_one(
    a: &mut [u32],
    n: usize,
    m: Modulus,
    (scratch, sums): (&mut [u32], &mut [u64]),
    out: &mut [u32],
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq")
        && std::arch::is_x86_feature_detected!("avx512vl")
    {
        // SAFETY: the CPU has the features the function is compiled for.
        return unsafe { charpoly_avx512(a, n, m, (scratch, sums), out) };
    }
    rns_core::charpoly::charpoly(a, n, m, (scratch, sums), out)
}

/// [`charpoly_one`]'s body with AVX-512 enabled (the core functions inlined into it).
///
/// # Safety
/// The CPU must have AVX-512F, DQ and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512dq,avx512vl")]
unsafe fn charpoly_avx512(
    a: &mut [u32],
    n: usize,
    m: Modulus,
    (scratch, sums): (&mut [u32], &mut [u64]),
    out: &mut [u32],
) {
    rns_core::charpoly::charpoly(a, n, m, (scratch, sums), out)
}
