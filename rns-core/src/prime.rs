//! Deterministic primality for `u32` and generation of 31-bit primes.

/// Smallest modulus accepted: moduli must lie strictly between 2^30 and 2^31.
pub const MODULUS_MIN: u32 = (1 << 30) + 1;
/// Largest modulus accepted (exclusive bound is 2^31).
pub const MODULUS_MAX: u32 = (1 << 31) - 1;

/// `a^e mod n` with 64-bit intermediates, for any `n < 2^32`.
fn pow_mod(a: u64, mut e: u64, n: u64) -> u64 {
    let mut base = a % n;
    let mut acc = 1 % n;
    while e > 0 {
        if e & 1 == 1 {
            acc = acc * base % n;
        }
        base = base * base % n;
        e >>= 1;
    }
    acc
}

/// Whether `n` is prime. Deterministic for every `u32`: Miller–Rabin with the
/// bases 2, 7 and 61, which has no strong pseudoprime below 4,759,123,141.
pub fn is_prime(n: u32) -> bool {
    if n < 2 {
        return false;
    }
    for p in [
        2u32, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61,
    ] {
        if n == p {
            return true;
        }
        if n.is_multiple_of(p) {
            return false;
        }
    }
    let n64 = n as u64;
    let d_shift = (n - 1).trailing_zeros();
    let d = ((n - 1) >> d_shift) as u64;
    'bases: for a in [2u64, 7, 61] {
        let mut x = pow_mod(a, d, n64);
        if x == 1 || x == n64 - 1 {
            continue;
        }
        for _ in 1..d_shift {
            x = x * x % n64;
            if x == n64 - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// The primes of `[low, high]` in decreasing order, skipping those for which
/// `exclude` is true (a prime dividing a leading coefficient, say).
pub fn primes_descending<F: Fn(u32) -> bool>(
    low: u32,
    high: u32,
    exclude: F,
) -> impl Iterator<Item = u32> {
    let mut next = Some(high);
    core::iter::from_fn(move || loop {
        let n = next?;
        next = if n > low { Some(n - 1) } else { None };
        if n >= low && is_prime(n) && !exclude(n) {
            return Some(n);
        }
    })
}

/// The 31-bit primes (`2^30 < p < 2^31`, the range [`crate::Modulus`] accepts),
/// largest first, skipping those for which `exclude` is true.
pub fn moduli_descending<F: Fn(u32) -> bool>(exclude: F) -> impl Iterator<Item = u32> {
    primes_descending(MODULUS_MIN, MODULUS_MAX, exclude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_trial_division_on_small_numbers() {
        for n in 0u32..20_000 {
            let trial = n >= 2 && (2..n).take_while(|d| d * d <= n).all(|d| n % d != 0);
            assert_eq!(is_prime(n), trial, "n = {n}");
        }
    }

    #[test]
    fn known_values() {
        assert!(is_prime(2_147_483_647)); // 2^31 − 1
        assert!(is_prime(2_147_483_629)); // 2^31 − 19
        assert!(!is_prime(2_147_483_649));
        assert!(is_prime(4_294_967_291)); // largest 32-bit prime
        assert!(!is_prime(3_215_031_751)); // strong pseudoprime to bases 2, 3, 5, 7
        assert!(!is_prime(25_326_001));
    }

    #[test]
    fn largest_31_bit_primes() {
        let mut it = moduli_descending(|_| false);
        assert_eq!(it.next(), Some(2_147_483_647));
        assert_eq!(it.next(), Some(2_147_483_629));
        assert_eq!(it.next(), Some(2_147_483_587));
        let mut skip = moduli_descending(|p| p == 2_147_483_629);
        assert_eq!(skip.nth(1), Some(2_147_483_587));
    }

    #[test]
    fn range_is_inclusive_and_ends() {
        let v: [u32; 4] = {
            let mut it = primes_descending(10, 30, |_| false);
            [
                it.next().unwrap(),
                it.next().unwrap(),
                it.next().unwrap(),
                it.next().unwrap(),
            ]
        };
        assert_eq!(v, [29, 23, 19, 17]);
        assert_eq!(primes_descending(0, 1, |_| false).count(), 0);
        assert_eq!(primes_descending(2, 2, |_| false).count(), 1);
    }

    #[test]
    fn powers_for_every_exponent() {
        assert_eq!(pow_mod(3, 0, 7), 1);
        assert_eq!(pow_mod(10, 0, 7), 1);
        assert_eq!(pow_mod(3, 6, 7), 1);
        assert_eq!(pow_mod(2, 10, 1_000_003), 1024);
        assert_eq!(pow_mod(5, 1, 1), 0);
    }
}
