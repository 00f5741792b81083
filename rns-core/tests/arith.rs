//! rns-core's residue operations against exact references (u128 and rug) on random
//! inputs, edge values and primes across the whole supported range.

use proptest::prelude::*;
use rns_core::modulus::{MODULUS_MAX, MODULUS_MIN};
use rns_core::{prime, Modulus};
use rug::Integer;

/// Primes at both ends and in the middle of (2^30, 2^31).
fn test_primes() -> Vec<u32> {
    let mut v: Vec<u32> = prime::moduli_descending(|_| false).take(3).collect();
    v.extend(prime::primes_descending(MODULUS_MIN, 3 << 29, |_| false).take(2));
    let mut low =
        prime::primes_descending(MODULUS_MIN, MODULUS_MIN + 1000, |_| false).collect::<Vec<_>>();
    low.reverse();
    v.extend(low.into_iter().take(3));
    v
}

fn modulus() -> impl Strategy<Value = Modulus> {
    prop::sample::select(test_primes()).prop_map(|m| Modulus::new(m).unwrap())
}

/// A residue in [0, m): uniform or one of 0, 1, 2, m−2, m−1, (m−1)/2, (m+1)/2.
fn residue(m: u32) -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => 0..m,
        1 => prop::sample::select(vec![0, 1, 2, m - 2, m - 1, (m - 1) / 2, m.div_ceil(2)]),
    ]
}

fn case() -> impl Strategy<Value = (Modulus, [u32; 4])> {
    modulus().prop_flat_map(|m| {
        let r = || residue(m.m);
        (Just(m), [r(), r(), r(), r()])
    })
}

fn exact_mul(a: u32, b: u32, m: u32) -> u32 {
    (a as u128 * b as u128 % m as u128) as u32
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn ops_match_exact_arithmetic((m, [a, b, c, d]) in case()) {
        let p = m.m as i128;
        let canon = |x: i128| x.rem_euclid(p) as u32;
        prop_assert_eq!(m.add(a, b), canon(a as i128 + b as i128));
        prop_assert_eq!(m.sub(a, b), canon(a as i128 - b as i128));
        prop_assert_eq!(m.neg(a), canon(-(a as i128)));
        prop_assert_eq!(m.mul(a, b), exact_mul(a, b, m.m));
        prop_assert_eq!(m.mul_naive(a, b), exact_mul(a, b, m.m));
        prop_assert_eq!(m.mul_shoup(a, b, m.shoup(b)), exact_mul(a, b, m.m));
        prop_assert_eq!(m.mul_add(a, b, c), canon(a as i128 * b as i128 + c as i128));
        prop_assert_eq!(m.mul_sub_mul(a, b, c, d), canon(a as i128 * b as i128 - c as i128 * d as i128));
    }

    #[test]
    fn pow_and_inverse_match_rug((m, [a, _, _, _]) in case(), e in any::<u64>()) {
        let big = |x: u32| Integer::from(x);
        let want = big(a).pow_mod(&Integer::from(e), &big(m.m)).unwrap();
        prop_assert_eq!(Integer::from(m.pow(a, e)), want);
        match m.inv(a) {
            None => prop_assert_eq!(a, 0),
            Some(x) => prop_assert_eq!(Integer::from(x), big(a).invert(&big(m.m)).unwrap()),
        }
    }

    #[test]
    fn reductions_match_rug(m in modulus(), x in any::<u64>(), y in any::<i64>(), limbs in prop::collection::vec(any::<u64>(), 0..20)) {
        prop_assert_eq!(m.reduce_u64(x) as u64, x % m.m as u64);
        prop_assert_eq!(m.reduce_i64(y) as i64, y.rem_euclid(m.m as i64));
        prop_assert_eq!(m.reduce_u32(x as u32), (x as u32) % m.m);
        let n = Integer::from_digits(&limbs, rug::integer::Order::Lsf);
        prop_assert_eq!(Integer::from(m.reduce_limbs(&limbs)), n % m.m);
    }
}

/// `mul_m` is canonical on many random products for primes all over the range,
/// including those just above 2^30, where the uncorrected seed version is off most often.
#[test]
fn mul_m_is_canonical_across_the_range() {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for _ in 0..200 {
        let start = MODULUS_MIN + (next() % (MODULUS_MAX - MODULUS_MIN) as u64) as u32;
        let p = prime::primes_descending(MODULUS_MIN, start, |_| false)
            .next()
            .unwrap();
        let m = Modulus::new(p).unwrap();
        for _ in 0..20_000 {
            let (a, b) = ((next() % p as u64) as u32, (next() % p as u64) as u32);
            assert_eq!(m.mul(a, b), exact_mul(a, b, p), "p={p} a={a} b={b}");
        }
    }
}

#[test]
fn seed_counterexample_is_fixed() {
    let m = Modulus::new(2_147_483_629).unwrap();
    assert_eq!(m.mul(57_573_543, 2_107_915_405), 3);
}
