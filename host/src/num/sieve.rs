//! The 31-bit primes, largest first, by a segmented sieve of Eratosthenes: the same
//! sequence as `rns_core::prime::moduli_descending` (one Miller–Rabin test per odd
//! candidate), about ten times faster, for the bases of tens of thousands of primes that
//! large resultants and determinants need.

use rns_core::modulus::{MODULUS_MAX, MODULUS_MIN};

/// Numbers per sieved segment.
const SEGMENT: u32 = 1 << 16;

/// The odd primes up to `n`, by a plain sieve.
pub(crate) fn odd_primes_to(n: u32) -> Vec<u32> {
    let mut composite = vec![false; n as usize + 1];
    let mut out = Vec::new();
    for p in (3..=n).step_by(2) {
        if !composite[p as usize] {
            out.push(p);
            for q in (p as usize * p as usize..=n as usize).step_by(2 * p as usize) {
                composite[q] = true;
            }
        }
    }
    out
}

/// The primes of `[lo, hi]` in decreasing order, for `2^16 < lo ≤ hi < 2^32` and odd
/// primes `small` covering `√hi`.
fn primes_in(lo: u32, hi: u32, small: &[u32]) -> Vec<u32> {
    let (lo64, hi64) = (lo as u64, hi as u64);
    let mut composite = vec![false; (hi - lo) as usize + 1];
    for &p in small {
        let p = p as u64;
        if p * p > hi64 {
            break;
        }
        let mut q = lo64.div_ceil(p) * p;
        while q <= hi64 {
            composite[(q - lo64) as usize] = true;
            q += p;
        }
    }
    (lo..=hi)
        .rev()
        .filter(|&n| n % 2 == 1 && !composite[(n - lo) as usize])
        .collect()
}

/// The 31-bit primes (`2^30 < p < 2^31`), largest first, skipping those for which
/// `exclude` is true.
pub fn moduli_descending(exclude: impl Fn(u32) -> bool) -> impl Iterator<Item = u32> {
    let small = odd_primes_to(46_341); // ⌊√(2^31)⌋ = 46 340
    let mut next_hi = Some(MODULUS_MAX);
    let mut batch = Vec::new().into_iter();
    std::iter::from_fn(move || loop {
        if let Some(p) = batch.next() {
            if !exclude(p) {
                return Some(p);
            }
            continue;
        }
        let hi = next_hi?;
        let lo = hi.saturating_sub(SEGMENT - 1).max(MODULUS_MIN);
        next_hi = (lo > MODULUS_MIN).then(|| lo - 1);
        batch = primes_in(lo, hi, &small).into_iter();
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rns_core::prime::is_prime;

    #[test]
    fn small_primes_are_the_odd_primes() {
        let want: Vec<u32> = (3..2000).filter(|&n| is_prime(n)).collect();
        assert_eq!(odd_primes_to(2000), want);
        assert_eq!(odd_primes_to(46_341).last(), Some(&46_337));
    }

    #[test]
    fn segments_match_miller_rabin_at_both_ends_of_the_range() {
        let small = odd_primes_to(65_536); // covers √(2^32)
        for (lo, hi) in [
            (MODULUS_MIN, MODULUS_MIN + 5000),
            (MODULUS_MAX - 5000, MODULUS_MAX),
            (u32::MAX - 3000, u32::MAX),
            (1 << 20, (1 << 20) + 100),
        ] {
            let want: Vec<u32> = (lo..=hi).rev().filter(|&n| is_prime(n)).collect();
            assert_eq!(primes_in(lo, hi, &small), want, "[{lo}, {hi}]");
        }
    }

    #[test]
    fn the_sequence_is_the_miller_rabin_one_across_segments() {
        let exclude = |p: u32| p % 7 == 3;
        let want: Vec<u32> = rns_core::prime::moduli_descending(exclude)
            .take(9000)
            .collect();
        let got: Vec<u32> = moduli_descending(exclude).take(9000).collect();
        assert_eq!(got, want);
        assert!(*want.last().unwrap() < MODULUS_MAX - 2 * SEGMENT);
    }
}
