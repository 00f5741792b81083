//! Reconstruction of signed integers from their residues (Chinese remainder theorem).
//!
//! Three methods, all exact for every value of the signed range:
//! * [`CrtMethod::MixedRadix`] (Garner): mixed-radix digits with `rns-core`, then
//!   Horner's rule in big integers. The digit step is what the GPU computes.
//! * [`CrtMethod::Weights`]: `x = Σ y_i · (M/m_i) − k·M` with `y_i = x_i · inv(M/m_i) mod m_i`,
//!   precomputed weights (in 16-bit halves, summed as vectors: [`super::crt_weights`]) and
//!   `k` estimated in floating point, then corrected exactly.
//! * [`CrtMethod::Tree`]: the same sum `Σ y_i · (M/m_i)` up a product tree
//!   (`S = S_L·P_R + S_R·P_L`, products only), with the inverses `inv(M/m_i) mod m_i`
//!   from a remainder tree ([`cofactor_inverses`]); needs no `K²` tables, so it serves
//!   bases of many thousands (or millions) of primes.
//!
//! [`combine_all`] joins reconstructions made from shares of the primes (one per GPU) by
//! the same step.

use super::basis::RnsBasis;
use super::products::DIGIT_LEAF;
use crate::error::{Error, Result};
use rayon::prelude::*;
use rns_core::mixed_radix;
use rug::Integer;

/// Which reconstruction algorithm to use.
///
/// ```
/// use rns::{CrtMethod, RnsBasis, RnsVec};
/// use rug::Integer;
/// use std::sync::Arc;
///
/// let basis = Arc::new(RnsBasis::for_bits(300));
/// let x = vec![Integer::from(-7), Integer::from(1) << 299u32];
/// let v = RnsVec::from_integers(&basis, &x)?;
/// for m in [CrtMethod::MixedRadix, CrtMethod::Weights, CrtMethod::Tree] {
///     assert_eq!(v.to_integers_with(m), x);
/// }
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CrtMethod {
    /// Garner's mixed-radix conversion followed by Horner's rule.
    MixedRadix,
    /// Precomputed CRT weights `M/m_i` and one correction by a multiple of `M`.
    Weights,
    /// The CRT sum up a product tree, with no `K²` tables.
    Tree,
}

/// Range moduli above which [`CrtMethod::Weights`] is not used by default: its tables
/// would take `K²·31` bits.
pub const TREE_ABOVE: usize = 2048;

/// The default method for `len` numbers over a basis of `k` range moduli: the
/// precomputed weights, unless the basis is too large for their tables or too few numbers
/// would pay for building them (about as long as 16 numbers take, measured at `k` = 1092,
/// and growing as `k²`; the tree converts one number of that size in 2 ms instead of 18).
pub fn default_method(k: usize, len: usize) -> CrtMethod {
    if k > TREE_ABOVE || len * 64 < k {
        CrtMethod::Tree
    } else {
        CrtMethod::Weights
    }
}

/// Range moduli from which the cofactor inverses come from a remainder tree
/// ([`cofactor_inverses`]) instead of `K` products each.
const INVERSES_BY_TREE_FROM: usize = 256;

/// `inv(M/m_i) mod m_i` for each of `moduli` (distinct primes, `M` their product): for
/// many, the cofactors `M/m_i mod m_i` down a product tree
/// ([`RemainderTree::cofactors`](super::multimod::RemainderTree::cofactors), `O(M(K)·log K)`),
/// each then inverted; for few, `K` products each.
pub fn cofactor_inverses(moduli: &[rns_core::Modulus]) -> Vec<u32> {
    let mut coef = vec![0u32; moduli.len()];
    if moduli.len() < INVERSES_BY_TREE_FROM {
        rns_core::crt::fill_inverses(moduli, &mut coef);
        return coef;
    }
    let cofactors = super::multimod::RemainderTree::new(moduli).cofactors();
    coef.par_iter_mut()
        .zip(cofactors.par_iter().zip(moduli))
        .for_each(|(o, (&c, m))| *o = m.inv(c).expect("moduli must be distinct primes"));
    coef
}

/// `Σ y_i · (P/m_i)` over `moduli` with `P` their product, and `P` when `product` is
/// asked for: `S = S_L·P_R + S_R·P_L` up a balanced tree, multiplications only.
fn cofactor_sum(y: &[u32], moduli: &[rns_core::Modulus], product: bool) -> (Integer, Integer) {
    if y.len() == 1 {
        return (Integer::from(y[0]), Integer::from(moduli[0].m));
    }
    let h = y.len() / 2;
    let (l, r) = ((&y[..h], &moduli[..h]), (&y[h..], &moduli[h..]));
    let ((sl, pl), (sr, pr)) = if y.len() > 256 {
        rayon::join(
            || cofactor_sum(l.0, l.1, true),
            || cofactor_sum(r.0, r.1, true),
        )
    } else {
        (cofactor_sum(l.0, l.1, true), cofactor_sum(r.0, r.1, true))
    };
    let s = sl * &pr + sr * &pl;
    (s, if product { pl * pr } else { Integer::new() })
}

/// The CRT terms `y_i = x_i · coef_i mod m_i` of the residues `x` over `moduli`, with
/// `coef` the cofactor inverses `inv(M/m_i) mod m_i`.
pub fn cofactor_terms(x: &[u32], moduli: &[rns_core::Modulus], coef: &[u32]) -> Vec<u32> {
    let mut y = Vec::with_capacity(x.len());
    cofactor_terms_into(x, moduli, coef, &mut y);
    y
}

/// [`cofactor_terms`] into `y` (cleared first), for a caller that reuses it.
pub fn cofactor_terms_into(
    x: &[u32],
    moduli: &[rns_core::Modulus],
    coef: &[u32],
    y: &mut Vec<u32>,
) {
    y.clear();
    y.extend((x.iter().zip(moduli).zip(coef)).map(|((&v, m), &c)| m.mul(v, c)));
}

/// `x` in `[0, M)` from `sum = Σ y_i·(M/m_i) = x + t·M` for the range's CRT terms `y`:
/// `t = ⌊Σ y_i/m_i⌋ < K` estimated in floating point, then corrected exactly.
fn reduce_cofactor_sum(mut sum: Integer, y: &[u32], basis: &RnsBasis) -> Integer {
    let fraction: f64 = (y.iter().zip(basis.range_moduli()))
        .map(|(&v, m)| v as f64 / m.m as f64)
        .sum();
    let m = basis.product();
    sum -= Integer::from(m * (fraction.floor() as u64));
    while sum < 0 {
        sum += m;
    }
    while sum >= *m {
        sum -= m;
    }
    sum
}

/// The signed integer whose `K` range residues `x_i` have the CRT terms
/// `y_i = x_i · inv(M/m_i) mod m_i` ([`cofactor_terms`]; `y.len() ≥ K`, extra entries
/// are ignored): `Σ y_i·(M/m_i)` summed up a product tree, then reduced modulo `M`.
/// Given the inverses (the GPU computes them in milliseconds; the host by
/// [`cofactor_inverses`]), it needs products only: the way to reconstruct a few numbers
/// over tens of thousands of primes.
pub fn from_cofactor_terms(y: &[u32], basis: &RnsBasis) -> Integer {
    let range = basis.range_moduli();
    let y = &y[..range.len()];
    let (sum, _) = cofactor_sum(y, range, false);
    to_signed(reduce_cofactor_sum(sum, y, basis), basis)
}

/// Maps a value of `[0, M)` onto the signed range.
fn to_signed(mut x: Integer, basis: &RnsBasis) -> Integer {
    if x > *basis.half() {
        x -= basis.product();
    }
    x
}

/// `Σ d_i · m_0 ⋯ m_{i−1}` for the digits `d` and radices `m` (the last radix unused):
/// Horner's rule `x ← x·m_i + d_i` from the top digit, on 64-bit limbs in one
/// preallocated buffer (a big-integer type that grows step by step allocates too often).
fn horner(digits: &[u32], moduli: &[rns_core::Modulus]) -> Integer {
    let mut limbs: Vec<u64> = Vec::with_capacity(digits.len() / 2 + 2);
    for i in (0..digits.len()).rev() {
        let m = if i + 1 < digits.len() {
            moduli[i].m as u128
        } else {
            0
        };
        let mut carry = digits[i] as u128;
        for l in limbs.iter_mut() {
            let t = *l as u128 * m + carry;
            *l = t as u64;
            carry = t >> 64;
        }
        if carry > 0 {
            limbs.push(carry as u64);
        }
    }
    Integer::from_digits(&limbs, rug::integer::Order::Lsf)
}

/// The integer of `[0, M)` with these mixed-radix digits (least significant first).
/// Up to `2·DIGIT_LEAF` digits by Horner's rule; beyond, by a product tree: leaves of
/// `DIGIT_LEAF` digits by Horner, then pairs joined as `x_L + P_L · x_R` level by level,
/// where `P_L` is the product of the left part's radices (precomputed once per basis,
/// [`RnsBasis::digit_tree`]); that is `O(M(n) log n)` per number instead of `O(n²)`.
pub fn from_digits(digits: &[u32], basis: &RnsBasis) -> Integer {
    let moduli = basis.range_moduli();
    if digits.len() <= 2 * DIGIT_LEAF {
        return horner(digits, moduli);
    }
    let tree = basis.digit_tree();
    let mut level: Vec<Integer> = digits
        .chunks(DIGIT_LEAF)
        .zip(moduli.chunks(DIGIT_LEAF))
        .map(|(d, m)| horner(d, m))
        .collect();
    for products in tree {
        level = level
            .chunks(2)
            .zip(products.iter().step_by(2))
            .map(|(pair, p)| match pair {
                [l, r] => Integer::from(p * r) + l,
                [l] => l.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
    }
    level.pop().expect("one root")
}

/// The signed integers of number-major mixed-radix digits (`K` per number) over the
/// range moduli, by all cores.
pub fn from_digits_many(basis: &RnsBasis, digits: &[u32]) -> Vec<Integer> {
    prepare_digit_tree(basis);
    digits
        .par_chunks(basis.range_len())
        .map(|d| from_digits_signed(d, basis))
        .collect()
}

/// The signed integers of `flags.len()` numbers given by their magnitudes' 32-bit limbs
/// (`nlimbs` each, number-major, least significant first) and their flags (the device's
/// `rns_digits_limbs`), by all cores; [`Error::OutOfRange`] for the first whose flag says
/// its redundant residue disagreed (`range_bits` the basis's).
pub fn from_signed_limbs(
    limbs: &[u32],
    flags: &[u32],
    nlimbs: usize,
    range_bits: u64,
) -> Result<Vec<Integer>> {
    use rns_core::limbs::NEGATIVE;
    check_signed_limbs(limbs, flags, nlimbs, range_bits)?;
    Ok(limbs
        .par_chunks(nlimbs.max(1))
        .zip(flags.par_iter())
        .map(|(l, &f)| {
            let x = Integer::from_digits(l, rug::integer::Order::Lsf);
            if f == NEGATIVE {
                -x
            } else {
                x
            }
        })
        .collect())
}

/// Whether a device's signed limbs (`nlimbs` for each of the `flags`) are whole, and no
/// flag says `OUT_OF_RANGE` ([`Error::OutOfRange`] naming the first that does).
pub fn check_signed_limbs(
    limbs: &[u32],
    flags: &[u32],
    nlimbs: usize,
    range_bits: u64,
) -> Result<()> {
    if limbs.len() != flags.len() * nlimbs {
        return Err(Error::Internal(format!(
            "{} limbs for {} numbers of {nlimbs}",
            limbs.len(),
            flags.len()
        )));
    }
    match flags
        .par_iter()
        .position_first(|&f| f == rns_core::limbs::OUT_OF_RANGE)
    {
        Some(index) => Err(Error::OutOfRange { index, range_bits }),
        None => Ok(()),
    }
}

/// The signed integer with these mixed-radix digits over the range moduli.
pub fn from_digits_signed(digits: &[u32], basis: &RnsBasis) -> Integer {
    to_signed(from_digits(digits, basis), basis)
}

/// Builds the digit tree of `basis` when [`from_digits`] assembles its numbers by it
/// (beyond `2·DIGIT_LEAF` range moduli), before a parallel loop asks for it.
fn prepare_digit_tree(basis: &RnsBasis) {
    if basis.range_len() > 2 * DIGIT_LEAF {
        basis.digit_tree();
    }
}

/// Builds the tables of `basis` that [`reconstruct`] by `method` uses, so that a
/// parallel loop of reconstructions finds them built (see [`crate::lazy`]).
pub fn prepare(basis: &RnsBasis, method: CrtMethod) {
    match method {
        CrtMethod::MixedRadix => {
            basis.mr_table();
            prepare_digit_tree(basis);
        }
        CrtMethod::Weights => {
            basis.crt_inverses();
            basis.crt_weights();
        }
        CrtMethod::Tree => {
            basis.crt_inverses();
        }
    }
}

/// The signed integer with the given residues for the `K` range channels
/// (`residues.len() == K`; extra entries are ignored).
pub fn reconstruct(residues: &[u32], basis: &RnsBasis, method: CrtMethod) -> Integer {
    let k = basis.range_len();
    let residues = &residues[..k];
    let unsigned = match method {
        CrtMethod::MixedRadix => {
            let mut digits = residues.to_vec();
            mixed_radix::to_digits(&mut digits, basis.range_moduli(), basis.mr_table());
            from_digits(&digits, basis)
        }
        CrtMethod::Weights => {
            let y = cofactor_terms(residues, basis.range_moduli(), basis.crt_inverses());
            reduce_cofactor_sum(basis.crt_weights().sum(&y), &y, basis)
        }
        CrtMethod::Tree => {
            let y = cofactor_terms(residues, basis.range_moduli(), basis.crt_inverses());
            let (sum, _) = cofactor_sum(&y, basis.range_moduli(), false);
            reduce_cofactor_sum(sum, &y, basis)
        }
    };
    to_signed(unsigned, basis)
}

/// Integers known modulo `product` only, in `[0, product)`: a share of the primes'
/// reconstruction ([`combine_all`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Partial {
    /// The values.
    pub values: Vec<Integer>,
    /// The product of the share's primes.
    pub product: Integer,
}

/// The values modulo `a.product · b.product` from their residues modulo the two
/// (coprime) products: `x = a + A · ((b − a) · A⁻¹ mod B)`, by all cores.
pub fn combine(a: &Partial, b: &Partial) -> Result<Partial> {
    if a.values.len() != b.values.len() {
        return Err(Error::Internal(
            "partial reconstructions of different lengths".into(),
        ));
    }
    let inv = Integer::from(&a.product % &b.product)
        .invert(&b.product)
        .map_err(|_| Error::Internal("shares of the primes that are not coprime".into()))?;
    let values = a
        .values
        .par_iter()
        .zip(&b.values)
        .map(|(x, y)| {
            let mut t = Integer::from(y - x);
            t *= &inv;
            t.modulo_mut(&b.product);
            t *= &a.product;
            t += x;
            t
        })
        .collect();
    Ok(Partial {
        values,
        product: Integer::from(&a.product * &b.product),
    })
}

/// The shares combined pairwise, level by level (a balanced tree: `O(M(n) log d)` per
/// value for `d` shares); at least one share.
pub fn combine_all(mut level: Vec<Partial>) -> Result<Partial> {
    while level.len() > 1 {
        let mut next = Vec::with_capacity(level.len().div_ceil(2));
        for pair in level.chunks(2) {
            next.push(match pair {
                [a, b] => combine(a, b)?,
                _ => pair[0].clone(),
            });
        }
        level = next;
    }
    level
        .pop()
        .ok_or_else(|| Error::Internal("no share to reconstruct from".into()))
}

/// The signed values in the range of `basis` of values known modulo its product.
pub fn to_signed_all(p: Partial, basis: &RnsBasis) -> Result<Vec<Integer>> {
    if p.product != *basis.product() {
        return Err(Error::Internal(
            "the shares do not make up the basis".into(),
        ));
    }
    Ok(p.values.into_iter().map(|x| to_signed(x, basis)).collect())
}
