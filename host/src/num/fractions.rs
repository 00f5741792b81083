//! Many fractions over one denominator in lowest terms: `y_i / d` for a solve's
//! `det(A)·X` and `det(A)`, with fewer gcds than one per entry.
//!
//! `d = s·r` with `s` the part of `d` made of primes below [`SMOOTH_BELOW`]. Once every
//! `y_i` is proved coprime to `r`, each `gcd(y_i, d)` is `gcd(y_i mod s, s)`, a gcd of
//! small numbers. The proof is `Π y_i mod r` coprime to `r`: on the device for all the
//! numerators at once where a caller gives it (`backend::gpu::ops::redc`), else here in
//! chunks of [`CHUNK`] numerators (one product modulo `r` per entry, about a fifth of a
//! gcd at 68 000 bits). A chunk whose product shares a factor with `r` takes a whole gcd
//! per entry.

use super::barrett::Barrett;
use crate::error::Result;
use rayon::prelude::*;
use rug::{Integer, Rational};

/// The trial divisors of `d`'s smooth part: the primes below this.
pub const SMOOTH_BELOW: u32 = 1 << 16;
/// Numerators proved coprime to `r` by one product.
pub const CHUNK: usize = 64;
/// Trial divisors multiplied together for one division of the denominator.
pub const TRIAL_BLOCK: usize = 128;
/// Denominators of fewer bits take one gcd per entry (cheap at that size).
pub const BATCH_FROM_BITS: u32 = 4096;

/// `y_i / d` for every `y_i` of `nums`, in lowest terms with positive denominators;
/// `None` when `d` is zero.
pub fn over_denominator(nums: Vec<Integer>, d: &Integer) -> Option<Vec<Rational>> {
    over_denominator_by(nums, d, |_, _| Ok(None)).unwrap_or(None)
}

/// [`over_denominator`], with `prove(nums, r)` telling at once whether every numerator
/// is coprime to the rough part `r > 1` of `d` (`None`: not known, or `Some(false)`: some
/// is not; both leave the proof to the chunks). Its error is returned.
pub fn over_denominator_by(
    nums: Vec<Integer>,
    d: &Integer,
    prove: impl FnOnce(&[Integer], &Integer) -> Result<Option<bool>>,
) -> Result<Option<Vec<Rational>>> {
    if *d == 0 {
        return Ok(None);
    }
    if d.significant_bits() < BATCH_FROM_BITS || nums.len() < CHUNK {
        return Ok(Some(
            nums.into_par_iter()
                .map(|y| Rational::from((y, d.clone())))
                .collect(),
        ));
    }
    let (s, r) = split_smooth(d);
    let all = r == 1 || prove(&nums, &r)? == Some(true);
    let Some(modulo_r) = Barrett::new(r.clone()) else {
        return Ok(None);
    };
    let abs = Integer::from(d.abs_ref());
    let negative = *d < 0;
    let mut nums = nums;
    let out = nums
        .par_chunks_mut(CHUNK)
        .flat_map_iter(|chunk| {
            let coprime_to_r = all || {
                let mut p = Integer::from(1);
                for y in chunk.iter() {
                    p = modulo_r.reduce(p * &*y.as_abs());
                }
                p.gcd(&r) == 1
            };
            let mut part = Vec::with_capacity(chunk.len());
            for y in chunk.iter_mut() {
                let mut y = std::mem::take(y);
                if negative {
                    y = -y;
                }
                let g = match coprime_to_r {
                    true => gcd_small(&y, &s),
                    false => Integer::from(y.gcd_ref(&abs)),
                };
                let den = match g == 1 {
                    true => abs.clone(),
                    false => {
                        y.div_exact_mut(&g);
                        Integer::from(abs.div_exact_ref(&g))
                    }
                };
                // SAFETY: the denominator is positive and, divided by g = gcd(y, |d|),
                // coprime to the numerator.
                part.push(unsafe { Rational::from_canonical(y, den) });
            }
            part
        })
        .collect();
    Ok(Some(out))
}

/// `(s, r)` with `|d| = s·r`, `s` the product of the prime powers of `|d|` below
/// [`SMOOTH_BELOW`] and `r` free of such primes. The primes that divide `|d|` are found
/// from `|d|` modulo products of [`TRIAL_BLOCK`] of them (one division by a small number
/// each, by all cores), not one division of `|d|` a prime.
fn split_smooth(d: &Integer) -> (Integer, Integer) {
    let mut r = Integer::from(d.abs_ref());
    let primes = trial_primes();
    let whole = &r;
    let dividing: Vec<u32> = primes
        .par_chunks(TRIAL_BLOCK)
        .flat_map_iter(|block| {
            let q = block.iter().fold(Integer::from(1), |q, &p| q * p);
            let rem = Integer::from(whole % &q);
            block
                .iter()
                .copied()
                .filter(|&p| rem.is_divisible_u(p))
                .collect::<Vec<u32>>()
        })
        .collect();
    let mut s = Integer::from(1);
    for p in dividing {
        while r.is_divisible_u(p) {
            r.div_exact_u_mut(p);
            s *= p;
        }
    }
    (s, r)
}

/// The primes below [`SMOOTH_BELOW`], in order.
fn trial_primes() -> Vec<u32> {
    std::iter::once(2)
        .chain(crate::num::sieve::odd_primes_to(SMOOTH_BELOW))
        .collect()
}

/// `gcd(y, s)` through `y mod s` (cheap for a small `s`).
fn gcd_small(y: &Integer, s: &Integer) -> Integer {
    Integer::from(y % s).gcd(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lowest_terms_equal_one_gcd_per_entry() {
        // d = −2^5·3^2·65537·q with q = 2^4423 − 1 (a Mersenne prime) times a large
        // random cofactor, and numerators sharing each of its factors with it (small
        // ones in chunks otherwise coprime to the rough part).
        let q = (Integer::from(1) << 4423u32) - 1u32;
        let mut rand = rug::rand::RandState::new();
        let big = Integer::from(Integer::random_bits(5000, &mut rand)) | 1u32;
        let d = -(Integer::from(32 * 9) * 65537u32 * &q * &big);
        let mut nums: Vec<Integer> = (0..1000)
            .map(|_| {
                Integer::from(Integer::random_bits(9000, &mut rand)) - (Integer::from(1) << 8999u32)
            })
            .collect();
        nums[0] = Integer::new();
        nums[1] = d.clone();
        nums[2] = Integer::from(&q * 7u32);
        nums[3] = Integer::from(65537 * 12);
        nums[100] = Integer::from(2 * 3 * 5);
        nums[101] = Integer::from(1 << 10);
        nums[500] = Integer::from(&big * &q);
        nums[999] = Integer::from(-1);
        assert_one_gcd_each(nums, &d);
        assert!(over_denominator(vec![Integer::from(1)], &Integer::new()).is_none());
    }

    #[test]
    fn the_smooth_part_holds_every_small_prime_power() {
        // Powers of the smallest and largest trial primes, one in every block, and a
        // prime just above them left in the rough part.
        let primes = trial_primes();
        let mut s = Integer::from(1);
        for (i, &p) in primes.iter().enumerate() {
            if i % TRIAL_BLOCK == 0 || i + 1 == primes.len() {
                s *= Integer::from(Integer::u_pow_u(p, 1 + (i % 3) as u32));
            }
        }
        s <<= 40u32;
        let rough = Integer::from(65537u32) * ((Integer::from(1) << 4423u32) - 1u32);
        let (got_s, got_r) = split_smooth(&-(Integer::from(&s * &rough)));
        assert_eq!((got_s, got_r), (s, rough));
        assert_eq!(
            split_smooth(&Integer::from(1)),
            (Integer::from(1), Integer::from(1))
        );
    }

    #[test]
    fn small_denominators_and_few_numerators() {
        let d = Integer::from(-12);
        assert_one_gcd_each((-20..20).map(Integer::from).collect(), &d);
    }

    #[test]
    fn a_prover_that_says_no_or_nothing_leaves_the_chunks_to_prove() {
        // d's rough part shares a factor with one numerator: a prover that answers "not
        // all" or "not known" gives the same fractions as the chunks alone; an error is
        // returned as it is.
        let mut rand = rug::rand::RandState::new();
        let q = (Integer::from(1) << 4423u32) - 1u32;
        let d = Integer::from(&q * 3u32);
        let mut nums: Vec<Integer> = (0..200)
            .map(|_| Integer::from(Integer::random_bits(4500, &mut rand)))
            .collect();
        nums[150] = Integer::from(&q * 5u32);
        let want = over_denominator(nums.clone(), &d).unwrap();
        for answer in [None, Some(false)] {
            let mut asked = None;
            let got = over_denominator_by(nums.clone(), &d, |y, r| {
                asked = Some((y.len(), r.clone()));
                Ok(answer)
            });
            assert_eq!(got.unwrap().unwrap(), want);
            assert_eq!(asked, Some((200, q.clone())));
        }
        let failed = over_denominator_by(nums, &d, |_, _| Err(crate::Error::Internal("x".into())));
        assert!(failed.is_err());
    }

    /// [`over_denominator`] equals a canonicalisation (one gcd) per entry.
    fn assert_one_gcd_each(nums: Vec<Integer>, d: &Integer) {
        let got = over_denominator(nums.clone(), d).unwrap();
        let want: Vec<Rational> = nums
            .into_iter()
            .map(|y| Rational::from((y, d.clone())))
            .collect();
        assert_eq!(got, want);
    }
}
