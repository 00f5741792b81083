//! The CPU backend: every operation in parallel over channels and numbers with rayon,
//! on the arithmetic of `rns-core`.

use crate::layout;
use rayon::prelude::*;
use rns_core::{linalg, mixed_radix, Modulus};
use std::cmp::Ordering;

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

/// The elementwise operations, with their residue formula from `rns-core`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// `a + b`
    Add,
    /// `a − b`
    Sub,
    /// `−a`
    Neg,
    /// `a · b` by the canonical `mul_m`
    Mul,
    /// `a · b` by a 64-bit product and `%` (the reference, for comparison)
    MulNaive,
    /// `a · b + c`
    MulAdd,
    /// `a · b − c · d`
    MulSubMul,
    /// `a + s` for a scalar `s`
    AddScalar,
    /// `a − s` for a scalar `s`
    SubScalar,
    /// `a · s` for a scalar `s`
    MulScalar,
}

impl Op {
    /// Number of vector operands.
    pub fn arity(self) -> usize {
        match self {
            Op::Neg | Op::AddScalar | Op::SubScalar | Op::MulScalar => 1,
            Op::Add | Op::Sub | Op::Mul | Op::MulNaive => 2,
            Op::MulAdd => 3,
            Op::MulSubMul => 4,
        }
    }

    /// Whether the operation takes a scalar (one residue per channel).
    pub fn has_scalar(self) -> bool {
        matches!(self, Op::AddScalar | Op::SubScalar | Op::MulScalar)
    }
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

/// The sign of every number (compared with 0) from its mixed-radix digits.
pub fn signs(digits: &[u32], half: &[u32]) -> Vec<Ordering> {
    let k = half.len();
    digits
        .par_chunks(k.max(1))
        .map(|d| {
            if d.iter().all(|&x| x == 0) {
                Ordering::Equal
            } else if mixed_radix::is_negative(d, half) {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        })
        .collect()
}

/// Compares numbers pairwise from the digits of `a + H` and `b + H` (offset representation).
pub fn compare(da: &[u32], db: &[u32], k: usize) -> Vec<Ordering> {
    da.par_chunks(k.max(1))
        .zip(db.par_chunks(k.max(1)))
        .map(|(x, y)| mixed_radix::cmp_digits(x, y))
        .collect()
}

/// The determinant of one `n × n` matrix per channel: channel `c` of `data` holds
/// the row-major matrix modulo `moduli[c]`.
pub fn det_per_channel(moduli: &[Modulus], n: usize, data: &[u32]) -> Vec<u32> {
    let nn = n * n;
    moduli
        .par_iter()
        .enumerate()
        .map(|(c, &m)| {
            let mut a = data[c * nn..(c + 1) * nn].to_vec();
            linalg::det_in_place(&mut a, n, m)
        })
        .collect()
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
