//! Dixon's p-adic lifting for `A X = B` over Q (as FLINT's `fmpz_mat_solve_dixon`): one
//! inverse of `A` modulo a prime `p`, then `k` lifting steps, each a product by that
//! inverse modulo `p` and an exact update `R ← (R − A·X_i)/p`, so that
//! `X ≡ Σ X_i p^i (mod p^k)`; rational reconstruction with a common denominator, certain
//! (early answers included) by a bound: with `|Y| ≤ β`, `d ≤ β` (`β = ⌊√(p^k/2)⌋`),
//! `A·Y − d·B ≡ 0 (mod p^k)` and `|A·Y − d·B| < (n·‖A‖ + ‖B‖)·β < p^k` once `p^k` has
//! about `2·log2(n·‖A‖)` bits, so it is 0 (`certified`); a check modulo two primes
//! besides guards against a faulty device. Below that size, an exact check.
//! The steps run on the CPU ([`cpu`]) or on the GPU ([`gpu`], which may lift by several
//! primes a step) with the same reconstruction (this module), so that both give the same
//! answers.

pub mod cpu;
pub mod gpu;
mod numerators;
mod steps;

use crate::error::{Error, Result};
use crate::mat::matrix::IntMatrix;
use crate::num::barrett::Barrett;
use crate::num::ratrecon::rational_reconstruct;
use crate::num::vector::residues_into;
use rayon::prelude::*;
use rns_core::padic::LIMB_BITS;
use rug::{Complete, Integer};

/// Primes tried for the inverse before giving up (a non-singular `A` is singular modulo
/// at most a handful of 31-bit primes; a singular one modulo all).
pub(crate) const PRIMES_TRIED: usize = 3;

/// `A X = B` solved: `X = numerators / denominator`, the denominator the least common
/// one (positive), numerators row-major like `B`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DixonSolution {
    /// `d·X`, row-major.
    pub numerators: Vec<Integer>,
    /// `d > 0`, the least common denominator of `X`'s entries (it divides `det A`).
    pub denominator: Integer,
    /// The prime lifted (the first of them when a step lifts by several).
    pub prime: u32,
    /// Lifting steps taken.
    pub steps: usize,
    /// Primes a step lifted by (their product is the base of the expansion).
    pub primes: usize,
    /// Devices the lifting was split across (1 on the CPU and on one GPU).
    pub devices: usize,
}

/// The digits of the p-adic expansion, one residue per entry each, in levels: a step
/// lifts by the product `P` of `radices` (one prime on the CPU; up to
/// `rns_core::launch::LIFT_GLOBAL_MAX_PRIMES` on the device), its digit `X_s` given as
/// mixed-radix digits, level `s·k + q` of radix `radices[q]`
/// (`rns_core::padic::mixed_radix`), so that `X ≡ Σ_s X_s P^s`.
pub(crate) struct Expansion {
    /// Level `t` of every entry.
    pub digits: Vec<Vec<u32>>,
    /// The primes of a step, in the order of its levels.
    pub radices: Vec<u32>,
}

impl Expansion {
    /// The expansion of one entry from its digit levels.
    pub(crate) fn of_row(digits: &[u32], radices: &[u32]) -> Expansion {
        Expansion {
            digits: digits.iter().map(|&d| vec![d]).collect(),
            radices: radices.to_vec(),
        }
    }

    /// Whole steps so far.
    pub(crate) fn steps(&self) -> usize {
        self.digits.len() / self.radices.len().max(1)
    }

    /// `P`, the product of a step's primes.
    pub(crate) fn base(&self) -> Integer {
        base_of(&self.radices)
    }

    /// Entry `e` of `Σ X_s P^s` over the steps so far: each step's digit from its
    /// levels, then pairs joined level by level (`powers` from [`Expansion::powers`]).
    pub(crate) fn value(&self, e: usize, powers: &[Integer]) -> Integer {
        self.value_upto(e, powers, self.steps())
    }

    /// [`Expansion::value`] over the first `steps` steps (`powers` from
    /// [`Expansion::powers_for`] of them).
    pub(crate) fn value_upto(&self, e: usize, powers: &[Integer], steps: usize) -> Integer {
        let k = self.radices.len().max(1);
        let levels = &self.digits[..(steps * k).min(self.digits.len())];
        let (mut level, mut j): (Vec<Integer>, usize) = match self.radices[..] {
            // One prime below 2^31: four steps' digits joined in a u128 (below p^4 <
            // 2^124), a quarter of the numbers, the pairing from P^4 on.
            [p] if p < 1 << 31 => (
                levels
                    .chunks(4)
                    .map(|four| {
                        let v = four
                            .iter()
                            .rev()
                            .fold(0u128, |v, d| v * p as u128 + d[e] as u128);
                        Integer::from(v)
                    })
                    .collect(),
                2,
            ),
            _ => (
                levels
                    .chunks(k)
                    .filter(|step| step.len() == k)
                    .map(|step| {
                        // x_0 + p_0·(x_1 + p_1·(x_2 + …)), from the top.
                        let mut v = Integer::from(step[k - 1][e]);
                        for q in (0..k - 1).rev() {
                            v *= self.radices[q];
                            v += step[q][e];
                        }
                        v
                    })
                    .collect(),
                0,
            ),
        };
        while level.len() > 1 {
            level = level
                .chunks_mut(2)
                .map(|pair| match pair {
                    [lo, hi] => (&powers[j] * &*hi).complete() + &*lo,
                    [lo] => std::mem::take(lo),
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            j += 1;
        }
        level.pop().unwrap_or_default()
    }

    /// `P^(2^j)` for every level of the pairing.
    pub(crate) fn powers(&self) -> Vec<Integer> {
        self.powers_for(self.steps())
    }

    /// [`Expansion::powers`] for the first `steps` steps.
    pub(crate) fn powers_for(&self, steps: usize) -> Vec<Integer> {
        let mut powers = vec![self.base()];
        while (1usize << powers.len()) < steps {
            let top = powers.last().expect("one power at least");
            powers.push(top.clone().square());
        }
        powers
    }
}

/// The product of `primes`: the base of an expansion that lifts by them.
pub(crate) fn base_of(primes: &[u32]) -> Integer {
    primes.iter().fold(Integer::from(1), |b, &p| b * p)
}

/// Bits of margin asked of row 0's fraction before the bound: below it, a fraction that
/// happens to reconstruct from too few digits (about half the time, for a random residue)
/// is taken for the answer once in `2^20` tries instead of every other.
pub(crate) const EARLY_MARGIN_BITS: u32 = 20;

/// Limb `t` of `x` as a signed 29-bit limb: `x = Σ_t limb_t · 2^(29t)`, every limb with
/// the sign of `x`.
pub(crate) fn limb_of(x: &Integer, t: usize) -> i32 {
    if let Some(w) = x.to_i64() {
        // Most entries: word arithmetic.
        return limb_of_word(w, t);
    }
    let mask = (1u64 << LIMB_BITS) - 1;
    let v = Integer::from(&*x.as_abs() >> (LIMB_BITS * t as u32)) & mask;
    let v = v.to_i32().expect("a 29-bit limb");
    if *x < 0 {
        -v
    } else {
        v
    }
}

/// [`limb_of`] of a machine word.
pub(crate) fn limb_of_word(w: i64, t: usize) -> i32 {
    let mask = (1u64 << LIMB_BITS) - 1;
    let v = (w
        .unsigned_abs()
        .checked_shr(LIMB_BITS * t as u32)
        .unwrap_or(0)
        & mask) as i32;
    if w < 0 {
        -v
    } else {
        v
    }
}

/// Lifting steps for `P^k > 2·max(N, D)²` with Cramer's bounds `N, D ≤ 2^bits`, `P` the
/// product of `primes`: `k·log2(P) ≥ 2·bits + 1`.
pub(crate) fn steps_for((det_bits, num_bits): (u64, u64), primes: &[u32]) -> usize {
    let log_p: f64 = primes.iter().map(|&p| (p as f64).log2()).sum();
    ((2 * det_bits.max(num_bits) + 2) as f64 / log_p).ceil() as usize
}

/// The denominator of entry 0 of the expansion `x`, lifted to the bound where its
/// reconstruction is unique, with the steps taken.
pub(crate) fn divisor_of(x: &Expansion) -> Result<(Integer, usize)> {
    let k = x.steps();
    match row0_denominator(&x.value(0, &x.powers()), &x.base(), k, false) {
        Some(d) => Ok((d, k)),
        None => Err(Error::Internal(
            "Dixon lifting reached its bound without a solution".into(),
        )),
    }
}

/// `P^k` and the bound `⌊√(P^k / 2)⌋` up to which fractions reconstruct uniquely.
pub(crate) fn modulus_and_bound(base: &Integer, k: usize) -> (Integer, Integer) {
    let modulus = Integer::from(rug::ops::Pow::pow(base, k as u32));
    let bound = Integer::from(&modulus >> 1u32).sqrt();
    (modulus, bound)
}

/// The denominator of row 0's fraction in the `k`-digit expansion whose row 0 is
/// `value`, if it reconstructs; `early` (before the bound) asks it for
/// [`EARLY_MARGIN_BITS`] to spare.
pub(crate) fn row0_denominator(
    value: &Integer,
    base: &Integer,
    k: usize,
    early: bool,
) -> Option<Integer> {
    let (modulus, bound) = modulus_and_bound(base, k);
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
pub(crate) fn finish(
    a: &IntMatrix,
    b: &IntMatrix,
    x: &Expansion,
    early: bool,
) -> Result<Option<DixonSolution>> {
    let first = x.value(0, &x.powers());
    match row0_denominator(&first, &x.base(), x.steps(), early) {
        Some(den) => finish_with(a, b, (x, x.steps(), None), den, Values::Host),
        None => Ok(None),
    }
}

/// The steps of a `k`-step expansion (base `base`) that [`finish_with`] reads for every
/// entry: those whose power of `P` certifies numerators within the bound, about half.
pub(crate) fn numerator_steps(a: &IntMatrix, b: &IntMatrix, base: &Integer, k: usize) -> usize {
    let (_, bound) = modulus_and_bound(base, k);
    short_modulus(residual_sizes(a, b).as_ref(), &bound, (base, k)).0
}

/// The whole expansion, from the first steps (`x`) or from `whole` where `x` holds
/// only the first [`numerator_steps`].
pub(crate) type Whole<'a> = Option<&'a dyn Fn() -> Result<Expansion>>;

/// Every entry's value over the first `steps` steps of `x` ([`Expansion::value_upto`]),
/// by all cores: what [`finish_with`] reads of the numerators' steps, which a lifting
/// may form while its later steps run ([`finish_with`]'s `values`).
pub(crate) fn entry_values(x: &Expansion, entries: usize, steps: usize) -> Vec<Integer> {
    let powers = x.powers_for(steps);
    (0..entries)
        .into_par_iter()
        .map(|e| x.value_upto(e, &powers, steps))
        .collect()
}

/// `den·x_e modulo P^s` (up to a multiple of it) for the first `entries` entries of an
/// expansion over its first `s` steps, given `den` and `P^s`; `None` where it could not
/// (the host then forms them).
pub(crate) type Products<'a> =
    &'a dyn Fn(&Expansion, (usize, usize), &Integer, &Integer) -> Result<Option<Vec<Integer>>>;

/// Where [`finish_with`] gets each entry's `den·x_e mod P^s`.
pub(crate) enum Values<'a> {
    /// From its digits, on the host.
    Host,
    /// From its value over the numerators' steps, formed already ([`entry_values`]).
    Formed(Vec<Integer>),
    /// From this, else on the host.
    Products(Products<'a>),
}

/// [`finish`] from row 0's denominator `den` of a `k`-step expansion of which `x`
/// holds at least the [`numerator_steps`] (the rest from `whole` when an entry needs
/// them): every entry over a common denominator (grown by one reconstruction per entry
/// it does not explain), checked exactly. `values` says where each entry's product by
/// `den` comes from ([`Values::Formed`] taken when `x` holds the numerators' steps of
/// `k`).
pub(crate) fn finish_with(
    a: &IntMatrix,
    b: &IntMatrix,
    (x, k, whole): (&Expansion, usize, Whole<'_>),
    mut den: Integer,
    values: Values<'_>,
) -> Result<Option<DixonSolution>> {
    let (n, l) = (a.rows(), b.cols());
    let base = x.base();
    let mut fetched: Option<Expansion> = None;
    let (modulus, bound) = modulus_and_bound(&base, k);
    // The numerators are within the bound, so their residues modulo a power of p a
    // little over the bound's square root settle them: the first `short` steps only
    // (about half), the fewest that certify the answer (`certified`).
    let sizes = residual_sizes(a, b);
    let (short, short_modulus, certifies) = short_modulus(sizes.as_ref(), &bound, (&base, k));
    // The balanced residue of `v` modulo p^short.
    let half = Integer::from(&short_modulus >> 1u32);
    let reducer = Barrett::new(short_modulus.clone())
        .ok_or_else(|| Error::Internal("a lifting modulus below 1".into()))?;
    let balanced = |v: Integer| {
        let y = reducer.reduce(v);
        if y > half {
            y - &short_modulus
        } else {
            y
        }
    };
    // Every entry over the denominator so far, in parallel; an entry it does not
    // explain (rare) grows it by that entry's own denominator (from all its digits), and
    // all are redone.
    // The denominator reduced once: each product is then of two numbers below p^short
    // (about half the bits of den·v, and half the reduction).
    let den_short = den.clone().modulo(&short_modulus);
    let products = match &values {
        Values::Products(f) => f(x, (n * l, short), &den_short, &short_modulus)?,
        _ => None,
    };
    let mut ys: Vec<Integer> = match products {
        Some(p) => p.into_par_iter().map(balanced).collect(),
        None => {
            let values = match values {
                Values::Formed(v) if v.len() == n * l && x.steps() == short => v,
                _ => entry_values(x, n * l, short),
            };
            values
                .par_iter()
                .map(|v| balanced(Integer::from(&den_short * v)))
                .collect()
        }
    };
    let mut within = true;
    while let Some(e) = ys.par_iter().position_first(|y| *y.as_abs() > bound) {
        let all = match (whole, &fetched) {
            (None, _) => x,
            (Some(_), Some(all)) => all,
            (Some(get), None) => fetched.insert(get()?),
        };
        let value = all.value_upto(e, &all.powers_for(k), k);
        let Some((_, d)) = rational_reconstruct(&value, &modulus, &bound) else {
            return Ok(None);
        };
        let grown = Integer::from(den.lcm_ref(&d));
        if grown > bound {
            return Ok(None);
        }
        if grown == den {
            // Explained by no denominator: the exact check below decides.
            within = false;
            break;
        }
        // den·v ≡ y, so (grown/den)·y is the new numerator modulo p^short: a small
        // factor times each y instead of a product by the whole denominator.
        let f = grown.clone().div_exact(&den);
        den = grown;
        ys = ys
            .par_iter()
            .map(|y| balanced(Integer::from(&f * y)))
            .collect();
    }
    let sound = match within && certifies {
        true => checks_modulo_primes(a, b, &ys, &den),
        false => checks(a, b, &ys, &den),
    };
    if !sound {
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
        prime: x.radices[0],
        steps: k,
        primes: x.radices.len(),
        devices: 1,
    }))
}

/// The fewest steps `s ≤ k` and `P^s` that `certified` numerators and denominators
/// within `bound` (`sizes` from [`residual_sizes`]), and whether `P^s` does: from the
/// bits of `sizes·bound`, a step more when rounding fell short; `k` when none does.
fn short_modulus(
    sizes: Option<&Integer>,
    bound: &Integer,
    (base, k): (&Integer, usize),
) -> (usize, Integer, bool) {
    let power = |s: usize| Integer::from(rug::ops::Pow::pow(base, s as u32));
    let Some(sizes) = sizes else {
        return (k, power(k), false);
    };
    let need = Integer::from(sizes * bound);
    let log_p = base.significant_bits() as f64 - 1.0;
    let mut s = ((need.significant_bits() as f64 / log_p).ceil() as usize).min(k);
    loop {
        let m = power(s);
        let certifies = certified(sizes, bound, &m);
        if s >= k || certifies {
            return (s, m, certifies);
        }
        s += 1;
    }
}

/// `n·2^a + 2^b` for `A` (`n` columns) and `B` with entries of `a` and `b` bits: a bound
/// on `|A·Y − d·B| / max(|Y|, d)`. `None` when the bits overflow.
fn residual_sizes(a: &IntMatrix, b: &IntMatrix) -> Option<Integer> {
    let a_bits = u32::try_from(a.max_bits()).ok()?;
    let b_bits = u32::try_from(b.max_bits()).ok()?;
    Some((Integer::from(a.cols()) << a_bits) + (Integer::from(1) << b_bits))
}

/// Whether `|A·Y − d·B| < p^k` for every `Y`, `d` within the reconstruction bound `β`
/// (`sizes·β < p^k`, `sizes` from [`residual_sizes`]): then `A·Y ≡ d·B (mod p^k)`, which
/// the reconstruction gives, makes `A·Y = d·B`.
fn certified(sizes: &Integer, bound: &Integer, modulus: &Integer) -> bool {
    Integer::from(sizes * bound) < *modulus
}

/// Whether `A·Y ≡ d·B` modulo two primes (which `certified` makes a check against a
/// faulty device, not a proof): each entry reduced modulo both at once, in one pass
/// over `A`.
fn checks_modulo_primes(a: &IntMatrix, b: &IntMatrix, y: &[Integer], d: &Integer) -> bool {
    let (n, l) = (a.rows(), b.cols());
    let moduli: Vec<rns_core::Modulus> = rns_core::prime::moduli_descending(|_| false)
        .skip(16)
        .take(2)
        .map(|p| rns_core::Modulus::new(p).expect("a generated prime"))
        .collect();
    let both = |x: &Integer| {
        let mut r = [0u32; 2];
        residues_into(x, &moduli, &mut r);
        r
    };
    let ym: Vec<[u32; 2]> = y.par_iter().map(both).collect();
    let dm = both(d);
    let both_word = |&x: &i64| [moduli[0].reduce_i64(x), moduli[1].reduce_i64(x)];
    // Row by row: each row of `A` reduced once for all the right-hand sides.
    (0..n).into_par_iter().all(|i| {
        let row: Vec<[u32; 2]> = match a.word_row(i) {
            Some(w) => w.iter().map(both_word).collect(),
            None => a.row(i).iter().map(both).collect(),
        };
        (0..l).all(|c| {
            let bm = both(&b.entries()[i * l + c]);
            moduli.iter().enumerate().all(|(q, m)| {
                let mut s = 0u32;
                for (j, r) in row.iter().enumerate() {
                    s = m.add(s, m.mul(r[q], ym[j * l + c][q]));
                }
                s == m.mul(dm[q], bm[q])
            })
        })
    })
}

/// Whether `A·Y = d·B` exactly.
fn checks(a: &IntMatrix, b: &IntMatrix, y: &[Integer], d: &Integer) -> bool {
    let (n, l) = (a.rows(), b.cols());
    (0..n * l).into_par_iter().all(|e| {
        let (i, c) = (e / l, e % l);
        let mut s = Integer::new();
        match a.word_row(i) {
            Some(w) => {
                for (j, &aij) in w.iter().enumerate() {
                    s += &y[j * l + c] * aij;
                }
            }
            None => {
                for (j, aij) in a.row(i).iter().enumerate() {
                    s += aij * &y[j * l + c];
                }
            }
        }
        s == (d * &b.entries()[e]).complete()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_certifies_only_above_the_residuals_size() {
        // A: 2 × 2 of 3-bit entries, B of 2 bits: (2·2^3 + 2^2)·β < M needs M > 20·β.
        let a = IntMatrix::from_i64(2, 2, &[5, -7, 3, 2]).unwrap();
        let b = IntMatrix::from_i64(2, 1, &[3, -2]).unwrap();
        let sizes = residual_sizes(&a, &b).unwrap();
        assert_eq!(sizes, 20);
        let (m, beta) = modulus_and_bound(&Integer::from(7), 2);
        assert!(!certified(&sizes, &beta, &m), "49 against 20·4");
        let (m, beta) = modulus_and_bound(&Integer::from(7), 3);
        assert!(certified(&sizes, &beta, &m), "343 against 20·13");
    }

    #[test]
    fn the_modular_check_finds_a_wrong_solution() {
        // x = (1/2, 3/2): A·(1, 3) = 2·B.
        // A as machine words and as big integers (the checks read either).
        let words = IntMatrix::from_i64(2, 2, &[5, -1, 1, 1]).unwrap();
        let ints = IntMatrix::new(2, 2, words.entries().to_vec()).unwrap();
        let b = IntMatrix::from_i64(2, 1, &[1, 2]).unwrap();
        let (y, d) = ([Integer::from(1), Integer::from(3)], Integer::from(2));
        let wrong = [
            Integer::from(1),
            Integer::from(3) + (Integer::from(1) << 200),
        ];
        for a in [IntMatrix::from_i64(2, 2, &[5, -1, 1, 1]).unwrap(), ints] {
            assert!(checks_modulo_primes(&a, &b, &y, &d) && checks(&a, &b, &y, &d));
            assert!(!checks_modulo_primes(&a, &b, &wrong, &d));
            assert!(!checks(&a, &b, &wrong, &d));
        }
    }
}
