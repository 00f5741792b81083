//! [`RnsBasis`]: the moduli of a residue number system and everything precomputed from them.

use super::crt_decimal::DecimalWeights;
use super::crt_weights::WeightHalves;
use crate::error::{Error, Result};
use crate::lazy::get_or_build;
use rns_core::{interval, mixed_radix, prime, Modulus};
use rug::Integer;
use std::collections::HashSet;
use std::sync::OnceLock;

/// A set of distinct 31-bit primes `m_0 … m_{K−1}` (the *range* moduli, whose product
/// `M` fixes the signed range `[−(M−1)/2, (M−1)/2]`) plus one *redundant* prime
/// `m_K` that every vector also carries, so that reconstruction can detect a value
/// that left the range.
///
/// Vectors hold `K + 1` channels: the range channels in order, then the redundant one.
///
/// The mixed-radix and CRT tables are built on first use: they take `K²` words and
/// `K²·31` bits, which a basis of tens of thousands of primes (a large resultant) must
/// not pay for unless it converts many numbers. They are built through
/// [`crate::lazy::get_or_build`], since their first use is often inside a parallel loop
/// ([`super::crt::prepare`] builds them before one).
///
/// ```
/// use rns::RnsBasis;
///
/// let b = RnsBasis::for_bits(1000); // every integer of up to 1000 bits, either sign
/// assert!(b.range_bits() >= 1000);
/// assert_eq!(b.channels(), b.range_len() + 1); // and the redundant prime
/// assert!(RnsBasis::from_primes(&[2147483647, 2147483647]).is_err());
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Debug)]
pub struct RnsBasis {
    moduli: Vec<Modulus>,
    product: Integer,
    half: Integer,
    range_bits: u64,
    mixed_radix: OnceLock<(Vec<u32>, Vec<u32>)>,
    interval: OnceLock<IntervalTables>,
    crt_weights: OnceLock<WeightHalves>,
    decimal_weights: OnceLock<DecimalWeights>,
    digit_tree: OnceLock<Vec<Vec<Integer>>>,
}

/// `(m − 1)/2` for every modulus `m` of `range`: the residues of `H = (M − 1)/2`.
pub fn half_residues(range: &[Modulus]) -> Vec<u32> {
    range.iter().map(|m| (m.m - 1) / 2).collect()
}

/// Per-channel constants of [`rns_core::interval`] over the range moduli.
#[derive(Debug)]
pub struct IntervalTables {
    /// `c_i = inv(M/m_i) mod m_i`.
    pub coef: Vec<u32>,
    /// `⌊2^64 / m_i⌋`.
    pub weights: Vec<u64>,
    /// `(m_i − 1)/2`, the residues of `H = (M − 1)/2`.
    pub half: Vec<u32>,
    /// `Σ (m_i − 1)`, the bound of the fixed-point error.
    pub slack: u64,
}

impl RnsBasis {
    /// The smallest basis of the largest 31-bit primes whose signed range holds every
    /// integer of absolute value at most `2^bits`.
    pub fn for_bits(bits: u64) -> RnsBasis {
        Self::for_bits_excluding(bits, |_| false)
    }

    /// As [`RnsBasis::for_bits`], skipping the primes for which `exclude` is true
    /// (for example primes that divide a leading coefficient).
    pub fn for_bits_excluding(bits: u64, exclude: impl Fn(u32) -> bool) -> RnsBasis {
        // (M − 1)/2 ≥ 2^bits  ⇔  M ≥ 2^(bits+1) + 1; M is odd, so M > 2^(bits+1) suffices.
        let target = Integer::from(1) << (bits + 1) as u32;
        let mut candidates = crate::num::sieve::moduli_descending(&exclude);
        let mut next = || {
            candidates
                .next()
                .expect("enough 31-bit primes for any bound")
        };
        // Enough primes by their logarithms (one bit of margin covers the rounding), then
        // the fewest whose exact product (a balanced tree) exceeds the target: an
        // O(M(n) log n) check instead of a product grown one prime at a time, O(n²).
        let mut primes = Vec::new();
        let mut log2 = 0.0f64;
        while log2 < (bits + 2) as f64 {
            primes.push(next());
            log2 += (*primes.last().expect("a prime") as f64).log2();
        }
        let last = primes.pop().expect("at least one prime");
        let mut head = super::products::product(&primes);
        // Each prime adds over 30 bits, so the margin leaves at most `last` to spare; it
        // is then the next prime after the basis, the redundant one.
        let (product, redundant) = if !primes.is_empty() && head > target {
            (head, last)
        } else {
            primes.push(last);
            head *= last;
            while head <= target {
                let p = next();
                primes.push(p);
                head *= p;
            }
            (head, next())
        };
        // The sieve's primes need no second primality test.
        let moduli = primes
            .iter()
            .chain([&redundant])
            .map(|&p| Modulus::new_unchecked(p))
            .collect();
        Self::assemble(moduli, product)
    }

    /// A basis of the `k` largest 31-bit primes (plus the next one as the redundant prime).
    pub fn largest_primes(k: usize) -> Result<RnsBasis> {
        let primes: Vec<u32> = prime::moduli_descending(|_| false).take(k).collect();
        Self::from_primes(&primes)
    }

    /// A basis of the given primes (validated: each a prime with `2^30 < p < 2^31`,
    /// distinct, at least one). The redundant prime is the largest 31-bit prime not listed.
    pub fn from_primes(primes: &[u32]) -> Result<RnsBasis> {
        let listed: HashSet<u32> = primes.iter().copied().collect();
        let redundant = prime::moduli_descending(|p| listed.contains(&p))
            .next()
            .expect("a 31-bit prime outside any practical basis");
        Self::build(primes.to_vec(), redundant)
    }

    /// A basis of the given range primes and redundant prime (validated as
    /// [`RnsBasis::from_primes`]).
    pub fn with_redundant(primes: &[u32], redundant: u32) -> Result<RnsBasis> {
        Self::build(primes.to_vec(), redundant)
    }

    /// The basis of the range primes `range` of this one, with the same redundant prime:
    /// a share of the primes, reconstructed on its own ([`crate::num::crt::combine_all`]).
    pub fn share(&self, range: std::ops::Range<usize>) -> Result<RnsBasis> {
        let primes = self.range_moduli().get(range).unwrap_or(&[]);
        Self::build(primes.iter().map(|m| m.m).collect(), self.redundant().m)
    }

    fn build(primes: Vec<u32>, redundant: u32) -> Result<RnsBasis> {
        if primes.is_empty() {
            return Err(Error::EmptyBasis);
        }
        let mut seen = HashSet::new();
        let mut moduli = Vec::with_capacity(primes.len() + 1);
        for &p in primes.iter().chain([redundant].iter()) {
            if !seen.insert(p) {
                return Err(Error::DuplicateModulus(p));
            }
            moduli.push(Modulus::new(p)?);
        }
        Ok(Self::assemble(moduli, super::products::product(&primes)))
    }

    /// The basis of validated, distinct `moduli` (range moduli, then the redundant one)
    /// whose range moduli multiply to `product`.
    fn assemble(moduli: Vec<Modulus>, product: Integer) -> RnsBasis {
        let half = Integer::from(&product - 1u32) >> 1u32;
        let range_bits = half.significant_bits() as u64 - 1;
        RnsBasis {
            moduli,
            product,
            half,
            range_bits,
            mixed_radix: OnceLock::new(),
            interval: OnceLock::new(),
            crt_weights: OnceLock::new(),
            decimal_weights: OnceLock::new(),
            digit_tree: OnceLock::new(),
        }
    }

    fn mixed_radix_tables(&self) -> &(Vec<u32>, Vec<u32>) {
        get_or_build(&self.mixed_radix, || {
            let range = self.range_moduli();
            let k = range.len();
            let mut table = vec![0u32; k * k];
            mixed_radix::fill_table(range, &mut table);
            let mut half_digits = vec![0u32; k];
            mixed_radix::fill_half_digits(range, &table, &mut half_digits);
            (table, half_digits)
        })
    }

    /// The tables of sign and comparison by interval evaluation
    /// ([`rns_core::interval`]), built on first use (`O(K²)` modular products).
    pub fn interval_tables(&self) -> &IntervalTables {
        self.interval_tables_from(|| Ok(super::crt::cofactor_inverses(self.range_moduli())))
            .expect("the host computes the inverses")
    }

    /// [`RnsBasis::interval_tables`], their cofactor inverses `inv(M/m_i) mod m_i` from
    /// `coef` when they are not built yet (the GPU computes them in milliseconds where the
    /// host takes seconds for tens of thousands of primes). `coef` must return them in the
    /// order of the range moduli.
    pub fn interval_tables_from(
        &self,
        coef: impl FnOnce() -> Result<Vec<u32>>,
    ) -> Result<&IntervalTables> {
        if let Some(t) = self.interval.get() {
            return Ok(t);
        }
        let range = self.range_moduli();
        let coef = coef()?;
        if coef.len() != range.len() {
            return Err(Error::Internal(format!(
                "{} cofactor inverses for {} moduli",
                coef.len(),
                range.len()
            )));
        }
        Ok(get_or_build(&self.interval, || IntervalTables {
            coef,
            weights: range.iter().map(|&m| interval::weight(m)).collect(),
            half: half_residues(range),
            slack: interval::slack(range),
        }))
    }

    /// All channels' moduli: the `K` range moduli, then the redundant one.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// The `K` range moduli.
    pub fn range_moduli(&self) -> &[Modulus] {
        &self.moduli[..self.range_len()]
    }

    /// The redundant modulus.
    pub fn redundant(&self) -> Modulus {
        self.moduli[self.range_len()]
    }

    /// The primes of all channels, as plain numbers.
    pub fn primes(&self) -> Vec<u32> {
        self.moduli.iter().map(|m| m.m).collect()
    }

    /// Number of channels a vector carries (`K + 1`).
    pub fn channels(&self) -> usize {
        self.moduli.len()
    }

    /// Number of range moduli `K`.
    pub fn range_len(&self) -> usize {
        self.moduli.len() - 1
    }

    /// `M`, the product of the range moduli.
    pub fn product(&self) -> &Integer {
        &self.product
    }

    /// `(M − 1)/2`, the largest value of the signed range.
    pub fn half(&self) -> &Integer {
        &self.half
    }

    /// The largest `b` with `2^b ≤ (M − 1)/2`: every integer of absolute value up to `2^b` fits.
    pub fn range_bits(&self) -> u64 {
        self.range_bits
    }

    /// The `K × K` mixed-radix table `inv(m_i) mod m_j` (`i < j`), row-major.
    pub fn mr_table(&self) -> &[u32] {
        &self.mixed_radix_tables().0
    }

    /// Mixed-radix digits of `(M − 1)/2`, least significant first.
    pub fn half_digits(&self) -> &[u32] {
        &self.mixed_radix_tables().1
    }

    /// `inv(M/m_i) mod m_i` for each range modulus.
    pub fn crt_inverses(&self) -> &[u32] {
        &self.interval_tables().coef
    }

    /// Products of the range moduli for assembling integers from mixed-radix digits
    /// ([`super::crt::from_digits`]), built on first use.
    pub fn digit_tree(&self) -> &[Vec<Integer>] {
        get_or_build(&self.digit_tree, || {
            super::products::digit_tree_levels(self.range_moduli())
        })
    }

    /// `M/m_i` for each range modulus, in 16-bit halves for the vector CRT sum.
    pub fn crt_weights(&self) -> &WeightHalves {
        get_or_build(&self.crt_weights, || {
            let range = self.range_moduli();
            let weights: Vec<Integer> = range
                .iter()
                .map(|m| Integer::from(&self.product / m.m))
                .collect();
            WeightHalves::new(&weights)
        })
    }

    /// `M/m_i`, `M` and `H` in decimal digits for text straight from residues, built on
    /// first use.
    pub fn decimal_weights(&self) -> &DecimalWeights {
        get_or_build(&self.decimal_weights, || DecimalWeights::new(self))
    }

    /// Whether `x` lies in the signed range.
    pub fn contains(&self, x: &Integer) -> bool {
        x.as_abs().cmp(&self.half).is_le()
    }

    /// Whether two bases have the same channels.
    pub fn same_as(&self, other: &RnsBasis) -> bool {
        std::ptr::eq(self, other) || self.moduli == other.moduli
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fewest primes (largest first, skipping `exclude`) whose product exceeds
    /// `2^(bits + 1)`, by a product grown one prime at a time; and the next prime.
    fn fewest(bits: u64, exclude: impl Fn(u32) -> bool) -> (Vec<u32>, u32) {
        let target = Integer::from(1) << (bits + 1) as u32;
        let (mut primes, mut product) = (Vec::new(), Integer::from(1));
        let mut it = prime::moduli_descending(exclude);
        while product <= target {
            let p = it.next().unwrap();
            primes.push(p);
            product *= p;
        }
        (primes, it.next().unwrap())
    }

    #[test]
    fn for_bits_takes_the_fewest_primes_and_the_next_as_redundant() {
        let exclude = |p: u32| p % 5 == 1;
        // Around every multiple of 31 bits, where the count changes, up to 40 000 bits.
        let sizes = (1..40).flat_map(|i| [31 * i - 2, 31 * i - 1, 31 * i, 31 * i + 1]);
        for bits in sizes.chain([0, 1, 5_000, 39_999]) {
            let b = RnsBasis::for_bits_excluding(bits, exclude);
            let (primes, redundant) = fewest(bits, exclude);
            let got: Vec<u32> = b.range_moduli().iter().map(|m| m.m).collect();
            assert_eq!(
                (got, b.redundant().m),
                (primes.clone(), redundant),
                "{bits} bits"
            );
            assert_eq!(*b.product(), crate::num::products::product(&primes));
            assert!(b.range_bits() >= bits);
        }
    }
}
