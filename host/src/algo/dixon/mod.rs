//! Dixon's p-adic lifting for `A X = B` over Q (as FLINT's `fmpz_mat_solve_dixon`): one
//! inverse of `A` modulo a prime `p`, then `k` lifting steps, each a product by that
//! inverse modulo `p` and an exact update `R ← (R − A·X_i)/p`, so that
//! `X ≡ Σ X_i p^i (mod p^k)`; rational reconstruction with a common denominator, and an
//! exact check `A·Y = d·B` that makes every answer certain (early answers included).
//!
//! `A`'s entries are split into signed 29-bit limbs, so each step's product `A·X_i` is
//! dot products of 32-bit integers whose terms stay below `2^60` ([`dot_i32`]: summed
//! four at a time in 64-bit lanes, which vector units multiply several at once), and
//! only the update touches big integers.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::bounds::cramer_bits;
use crate::mat::matrix::{require_rhs, require_square, IntMatrix};
use crate::mat::modmat::ModMatrices;
use crate::num::ratrecon::rational_reconstruct;
use rayon::prelude::*;
use rns_core::{prime, Modulus};
use rug::{Complete, Integer};

/// Primes tried for the inverse before giving up (a non-singular `A` is singular modulo
/// at most a handful of 31-bit primes; a singular one modulo all).
pub(crate) const PRIMES_TRIED: usize = 3;

mod steps;

use rns_core::padic::{self, limbs_for_bits, LIMB_BITS};
use steps::Lifting;

/// `A X = B` solved: `X = numerators / denominator`, the denominator the least common
/// one (positive), numerators row-major like `B`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DixonSolution {
    /// `d·X`, row-major.
    pub numerators: Vec<Integer>,
    /// `d > 0`, the least common denominator of `X`'s entries (it divides `det A`).
    pub denominator: Integer,
    /// The prime lifted.
    pub prime: u32,
    /// Lifting steps taken.
    pub steps: usize,
}

/// `A⁻¹ mod p` (row-major, residues) for the first of a few 31-bit primes modulo which
/// `A` is invertible, or `None`.
fn inverse_mod_prime(a: &IntMatrix) -> Result<Option<(Modulus, Vec<u32>)>> {
    for p in prime::moduli_descending(|_| false).take(PRIMES_TRIED) {
        let m = Modulus::new(p).expect("a generated prime");
        match Backend::Cpu.inverse_mod(&ModMatrices::reduce(a, &[m])) {
            Ok(inv) => return Ok(Some((m, inv.data().to_vec()))),
            Err(Error::Singular { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// Limb `t` of `x` as a signed 29-bit limb: `x = Σ_t limb_t · 2^(29t)`, every limb with
/// the sign of `x`.
pub(crate) fn limb_of(x: &Integer, t: usize) -> i32 {
    let mask = (1u64 << LIMB_BITS) - 1;
    let v = match x.to_i64() {
        // Most entries: word arithmetic.
        Some(w) => {
            (w.unsigned_abs()
                .checked_shr(LIMB_BITS * t as u32)
                .unwrap_or(0)
                & mask) as i32
        }
        None => {
            let v = Integer::from(&*x.as_abs() >> (LIMB_BITS * t as u32)) & mask;
            v.to_i32().expect("a 29-bit limb")
        }
    };
    if *x < 0 {
        -v
    } else {
        v
    }
}

/// `A`'s entries as `limbs` signed 29-bit limbs each ([`limb_of`]), limb `t` of every
/// entry in matrix `t` (row-major).
fn split_limbs(a: &IntMatrix, limbs: usize) -> Vec<Vec<i32>> {
    (0..limbs)
        .map(|t| a.entries().par_iter().map(|x| limb_of(x, t)).collect())
        .collect()
}

/// Lifting steps for `p^k > 2·max(N, D)²` with Cramer's bounds `N, D ≤ 2^bits`:
/// `k·log2(p) ≥ 2·bits + 1`.
pub(crate) fn steps_for((det_bits, num_bits): (u64, u64), p: u32) -> usize {
    ((2 * det_bits.max(num_bits) + 2) as f64 / (p as f64).log2()).ceil() as usize
}

/// The digits `X_0, X_1, …` (one residue per entry each) of the p-adic expansion, and
/// the powers `p^(2^j)` that assemble them.
pub(crate) struct Expansion {
    /// Digit `i` of every entry.
    pub digits: Vec<Vec<u32>>,
    /// The prime.
    pub p: u32,
}

impl Expansion {
    /// The expansion of one entry from its digits.
    pub(crate) fn of_row(digits: &[u32], p: u32) -> Expansion {
        Expansion {
            digits: digits.iter().map(|&d| vec![d]).collect(),
            p,
        }
    }

    /// Entry `e` of `Σ X_i p^i` over the digits so far, by pairs joined level by level.
    pub(crate) fn value(&self, e: usize, powers: &[Integer]) -> Integer {
        let mut level: Vec<Integer> = self.digits.iter().map(|d| Integer::from(d[e])).collect();
        let mut j = 0;
        while level.len() > 1 {
            level = level
                .chunks(2)
                .map(|pair| match pair {
                    [lo, hi] => (&powers[j] * hi).complete() + lo,
                    [lo] => lo.clone(),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            j += 1;
        }
        level.pop().unwrap_or_default()
    }

    /// `p^(2^j)` for every level of a `k`-digit expansion.
    pub(crate) fn powers(&self) -> Vec<Integer> {
        let mut powers = vec![Integer::from(self.p)];
        while (1usize << powers.len()) < self.digits.len() {
            let top = powers.last().expect("one power at least");
            powers.push(top.clone().square());
        }
        powers
    }
}

/// `A X = B` over Q by Dixon's lifting; `None` when `A` is singular modulo every prime
/// tried (then the multimodular solve decides). `Error::Singular` when `A` has a zero
/// column. Reconstruction is tried after 16, 32, 64, … steps (each answer checked
/// exactly), and at the bound, where it cannot fail.
pub fn solve_dixon(a: &IntMatrix, b: &IntMatrix) -> Result<Option<DixonSolution>> {
    let n = require_square(a.rows(), a.cols(), "solving A X = B")?;
    require_rhs(n, b.rows())?;
    if n == 0 || b.cols() == 0 {
        return Ok(Some(DixonSolution {
            numerators: b.entries().to_vec(),
            denominator: Integer::from(1),
            prime: 0,
            steps: 0,
        }));
    }
    let mut next_try = 16;
    lift(a, b, |x, last| {
        let step = x.digits.len();
        if step < next_try && !last {
            return Ok(None);
        }
        next_try = 2 * step;
        let s = finish(a, b, x, !last)?;
        if s.is_none() && last {
            return Err(Error::Internal(
                "Dixon lifting reached its bound without a solution".into(),
            ));
        }
        Ok(s)
    })
}

/// A divisor of `det A` (FLINT's `fmpz_mat_det_divisor`): the denominator, in lowest
/// terms, of the first entry of `A⁻¹ b`, lifted to the bound where its reconstruction is
/// unique (so no check is needed: it divides `det A` whatever `b` is), with the lifting
/// steps taken. `None` when `A` is singular modulo every prime tried; `Error::Singular`
/// when `A` has a zero column.
pub fn det_divisor(a: &IntMatrix, b: &IntMatrix) -> Result<Option<(Integer, usize)>> {
    require_square(a.rows(), a.cols(), "the determinant")?;
    require_rhs(a.rows(), b.rows())?;
    if a.rows() == 0 || b.cols() == 0 {
        return Ok(Some((Integer::from(1), 0)));
    }
    lift(a, b, |x, last| {
        if last {
            divisor_of(x).map(Some)
        } else {
            Ok(None)
        }
    })
}

/// The denominator of entry 0 of the expansion `x`, lifted to the bound where its
/// reconstruction is unique, with the steps taken.
pub(crate) fn divisor_of(x: &Expansion) -> Result<(Integer, usize)> {
    let k = x.digits.len();
    match row0_denominator(&x.value(0, &x.powers()), x.p, k, false) {
        Some(d) => Ok((d, k)),
        None => Err(Error::Internal(
            "Dixon lifting reached its bound without a solution".into(),
        )),
    }
}

/// The lifting loop: after each step, `done(expansion, last)` may end it with a value;
/// `last` is true at the step count where reconstruction is unique (`p^k > 2·max(N,
/// D)²` for Cramer's bounds `N`, `D`), after which the loop stops.
fn lift<T>(
    a: &IntMatrix,
    b: &IntMatrix,
    done: impl FnMut(&Expansion, bool) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let (n, l) = (a.rows(), b.cols());
    let (det_bits, num_bits) = cramer_bits(a, b).ok_or(Error::Singular { prime: None })?;
    let Some((m, inv)) = inverse_mod_prime(a)? else {
        return Ok(None);
    };
    let p = m.m;
    let k_max = steps_for((det_bits, num_bits), p);
    let a_bits = a.max_bits().min(u32::MAX as u64) as u32;
    let lifting = Lifting {
        inv_c: inv.iter().map(|&x| m.center(x)).collect(),
        a_limbs: split_limbs(a, limbs_for_bits(a_bits)),
        p_inv: padic::inverse_mod_2_128(p),
        m,
        n,
        l,
    };
    let rhs_bits = b.max_bits().min(u32::MAX as u64) as u32;
    let small: Option<Vec<i128>> = padic::residual_fits(n, a_bits, rhs_bits)
        .then(|| b.entries().iter().map(Integer::to_i128).collect())
        .flatten();
    match small {
        Some(r) => steps::run(&lifting, r, k_max, done),
        None => steps::run(&lifting, b.entries().to_vec(), k_max, done),
    }
}

/// Bits of margin asked of row 0's fraction before the bound: below it, a fraction that
/// happens to reconstruct from too few digits (about half the time, for a random residue)
/// is taken for the answer once in `2^20` tries instead of every other.
pub(crate) const EARLY_MARGIN_BITS: u32 = 20;

/// `p^k` and the bound `⌊√(p^k / 2)⌋` up to which fractions reconstruct uniquely.
pub(crate) fn modulus_and_bound(p: u32, k: usize) -> (Integer, Integer) {
    let modulus = Integer::u_pow_u(p, k as u32).complete();
    let bound = Integer::from(&modulus >> 1u32).sqrt();
    (modulus, bound)
}

/// The denominator of row 0's fraction in the `k`-digit expansion whose row 0 is
/// `value`, if it reconstructs; `early` (before the bound) asks it for
/// [`EARLY_MARGIN_BITS`] to spare.
pub(crate) fn row0_denominator(value: &Integer, p: u32, k: usize, early: bool) -> Option<Integer> {
    let (modulus, bound) = modulus_and_bound(p, k);
    let bound = if early {
        bound >> EARLY_MARGIN_BITS
    } else {
        bound
    };
    rational_reconstruct(value, &modulus, &bound).map(|(_, d)| d)
}

/// The solution from the digits so far, if the reconstruction checks out exactly;
/// `early` as for [`row0_denominator`]. Row 0 alone first: until the lifting has gone
/// far enough its reconstruction fails, and the other entries need not be assembled.
fn finish(
    a: &IntMatrix,
    b: &IntMatrix,
    x: &Expansion,
    early: bool,
) -> Result<Option<DixonSolution>> {
    let first = x.value(0, &x.powers());
    match row0_denominator(&first, x.p, x.digits.len(), early) {
        Some(den) => finish_with(a, b, x, den),
        None => Ok(None),
    }
}

/// [`finish`] from row 0's denominator `den`: every entry over a common denominator
/// (grown by one reconstruction per entry it does not explain), checked exactly.
pub(crate) fn finish_with(
    a: &IntMatrix,
    b: &IntMatrix,
    x: &Expansion,
    mut den: Integer,
) -> Result<Option<DixonSolution>> {
    let (n, l) = (a.rows(), b.cols());
    let k = x.digits.len();
    let powers = x.powers();
    let (modulus, bound) = modulus_and_bound(x.p, k);
    let values: Vec<Integer> = (0..n * l)
        .into_par_iter()
        .map(|e| x.value(e, &powers))
        .collect();
    // The balanced residue of `v` modulo p^k.
    let half = Integer::from(&modulus >> 1u32);
    let balanced = |v: Integer| {
        let y = v.modulo(&modulus);
        if y > half {
            y - &modulus
        } else {
            y
        }
    };
    // Every entry over the denominator so far, in parallel; an entry it does not
    // explain (rare) grows it by that entry's own denominator, and all are redone.
    let mut ys: Vec<Integer> = values
        .par_iter()
        .map(|v| balanced(Integer::from(&den * v)))
        .collect();
    while let Some(e) = ys.par_iter().position_first(|y| *y.as_abs() > bound) {
        let Some((_, d)) = rational_reconstruct(&values[e], &modulus, &bound) else {
            return Ok(None);
        };
        let grown = Integer::from(den.lcm_ref(&d));
        if grown > bound {
            return Ok(None);
        }
        if grown == den {
            // Explained by no denominator: the exact check below decides.
            break;
        }
        // den·v ≡ y, so (grown/den)·y is the new numerator modulo p^k: a small factor
        // times each y instead of a product by the whole denominator.
        let f = grown.clone().div_exact(&den);
        den = grown;
        ys = ys
            .par_iter()
            .map(|y| balanced(Integer::from(&f * y)))
            .collect();
    }
    if !checks(a, b, &ys, &den) {
        return Ok(None);
    }
    // The least common denominator: divide out what every numerator shares with it
    // (usually nothing after a few entries: the gcd stops at 1).
    let mut g = den.clone();
    for y in &ys {
        if g == 1 {
            break;
        }
        g = g.gcd(y);
    }
    let (numerators, denominator) = if g == 1 {
        (ys, den)
    } else {
        (
            ys.into_iter().map(|y| y.div_exact(&g)).collect(),
            den.div_exact(&g),
        )
    };
    Ok(Some(DixonSolution {
        numerators,
        denominator,
        prime: x.p,
        steps: k,
    }))
}

/// Whether `A·Y = d·B` exactly.
fn checks(a: &IntMatrix, b: &IntMatrix, y: &[Integer], d: &Integer) -> bool {
    let (n, l) = (a.rows(), b.cols());
    (0..n * l).into_par_iter().all(|e| {
        let (i, c) = (e / l, e % l);
        let mut s = Integer::new();
        for (j, aij) in a.row(i).iter().enumerate() {
            s += aij * &y[j * l + c];
        }
        s == (d * &b.entries()[e]).complete()
    })
}
