//! RNS vectors against rug: conversion round trips, every elementwise operation,
//! equality, sign and comparison, both CRT methods and the checked reconstruction,
//! on random values and the edges of the signed range.

use proptest::prelude::*;
use rns::num::crt::{self, combine_all, to_signed_all, Partial};
use rns::{Backend, CrtMethod, Error, Op, RnsBasis, RnsVec};
use rns_suite::{edge_values, interval_edges, Gen};
use rug::Integer;
use std::cmp::Ordering;
use std::sync::{Arc, OnceLock};

/// Bases of 1, 2, 7, 33, 98 and 291 range primes (the last two assemble integers from
/// mixed-radix digits by the digit tree).
fn bases() -> &'static [Arc<RnsBasis>] {
    static B: OnceLock<Vec<Arc<RnsBasis>>> = OnceLock::new();
    B.get_or_init(|| {
        [20u64, 40, 200, 1000, 3000, 9000]
            .iter()
            .map(|&b| Arc::new(RnsBasis::for_bits(b)))
            .collect()
    })
}

/// Values of the signed range: random, and the edges 0, ±1, ±H, ±(H−1), ±2^k.
fn values(basis: &RnsBasis, n: usize, seed: u64) -> Vec<Integer> {
    let h = basis.half().clone();
    let mut g = Gen::new(seed);
    let mut v = edge_values(basis);
    while v.len() < n {
        let x = if g.below(2) == 0 {
            g.in_range(&h)
        } else {
            let bits = 1 + g.below(basis.range_bits() as u32);
            g.signed(bits)
        };
        v.push(x);
    }
    v
}

/// Reduces an exact result into the signed range, as residue arithmetic does.
fn wrap(x: Integer, basis: &RnsBasis) -> Integer {
    let m = basis.product();
    let mut r = x % m;
    if r > *basis.half() {
        r -= m;
    } else if r < -basis.half().clone() {
        r += m;
    }
    r
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn round_trip_every_method(bi in 0usize..6, n in 0usize..80, seed in any::<u64>()) {
        let basis = &bases()[bi];
        let v = values(basis, n.max(9), seed);
        let x = RnsVec::from_integers(basis, &v).unwrap();
        prop_assert_eq!(&x.to_integers_with(CrtMethod::Weights), &v);
        prop_assert_eq!(&x.to_integers_with(CrtMethod::MixedRadix), &v);
        prop_assert_eq!(&x.to_integers_with(CrtMethod::Tree), &v);
        prop_assert_eq!(&x.to_integers_checked().unwrap(), &v);
    }

    #[test]
    fn elementwise_ops_match_rug(bi in 0usize..4, n in 1usize..60, seed in any::<u64>()) {
        let basis = &bases()[bi];
        let vs: Vec<Vec<Integer>> = (0..4).map(|k| {
            let mut v = values(basis, n.max(9), seed.wrapping_add(k));
            let mut g = Gen::new(seed ^ k);
            for i in (1..v.len()).rev() { v.swap(i, g.below(i as u32 + 1) as usize); }
            v
        }).collect();
        let xs: Vec<RnsVec> = vs.iter().map(|v| RnsVec::from_integers(basis, v).unwrap()).collect();
        let s = Gen::new(seed).in_range(basis.half());
        let cpu = Backend::Cpu;
        let ops = [Op::Add, Op::Sub, Op::Neg, Op::Mul, Op::MulNaive, Op::MulAdd, Op::MulSubMul,
                   Op::AddScalar, Op::SubScalar, Op::MulScalar];
        for op in ops {
            let args: Vec<&RnsVec> = xs.iter().take(op.arity()).collect();
            let out = cpu.elementwise(op, &args, op.has_scalar().then_some(&s)).unwrap().to_integers();
            for i in 0..vs[0].len() {
                let [a, b, c, d] = [&vs[0][i], &vs[1][i], &vs[2][i], &vs[3][i]];
                let exact: Integer = match op {
                    Op::Add => Integer::from(a + b),
                    Op::Sub => Integer::from(a - b),
                    Op::Neg => Integer::from(-a),
                    Op::Mul | Op::MulNaive => Integer::from(a * b),
                    Op::MulAdd => Integer::from(a * b) + c,
                    Op::MulSubMul => Integer::from(a * b) - Integer::from(c * d),
                    Op::AddScalar => Integer::from(a + &s),
                    Op::SubScalar => Integer::from(a - &s),
                    Op::MulScalar => Integer::from(a * &s),
                };
                prop_assert_eq!(&out[i], &wrap(exact, basis), "{:?} at {}", op, i);
            }
        }
    }

    #[test]
    fn equality_sign_compare_match_rug(bi in 0usize..4, n in 1usize..60, seed in any::<u64>()) {
        let basis = &bases()[bi];
        let va = values(basis, n.max(9), seed);
        let mut vb = values(basis, n.max(9), seed ^ 0xABCD);
        for i in (0..vb.len()).step_by(3) { vb[i] = va[i].clone(); } // some equal pairs
        vb.swap(0, 3); // 0 against H, and H against 0
        let (a, b) = (RnsVec::from_integers(basis, &va).unwrap(), RnsVec::from_integers(basis, &vb).unwrap());
        let cpu = Backend::Cpu;
        let eq = cpu.equal(&a, &b).unwrap();
        let sign = cpu.sign(&a).unwrap();
        let cmp = cpu.compare(&a, &b).unwrap();
        for i in 0..va.len() {
            prop_assert_eq!(eq[i], va[i] == vb[i]);
            prop_assert_eq!(sign[i], va[i].cmp0());
            prop_assert_eq!(cmp[i], va[i].cmp(&vb[i]), "{} vs {}", &va[i], &vb[i]);
        }
    }
}

/// Sign and comparison at the edges of the interval pass's undecided regions (every pair
/// of those values, so that some pairs are decided by the pass and some by the exact
/// path), against rug, for bases of 1 to 98 primes.
#[test]
fn sign_and_compare_at_the_interval_edges_match_rug() {
    for basis in bases().iter().take(5) {
        let v = interval_edges(basis);
        let n = v.len();
        let va: Vec<Integer> = (0..n * n).map(|p| v[p / n].clone()).collect();
        let vb: Vec<Integer> = (0..n * n).map(|p| v[p % n].clone()).collect();
        let (a, b) = (
            RnsVec::from_integers(basis, &va).unwrap(),
            RnsVec::from_integers(basis, &vb).unwrap(),
        );
        let cpu = Backend::Cpu;
        let (sign, cmp) = (cpu.sign(&a).unwrap(), cpu.compare(&a, &b).unwrap());
        for i in 0..n * n {
            assert_eq!(sign[i], va[i].cmp0(), "sign of {}", va[i]);
            assert_eq!(cmp[i], va[i].cmp(&vb[i]), "{} vs {}", va[i], vb[i]);
        }
    }
}

#[test]
fn large_bases_reconstruct_by_the_tree_without_tables() {
    let basis = Arc::new(RnsBasis::for_bits(100_000)); // 3227 primes: no K² tables built
    assert!(basis.range_len() > rns::num::crt::TREE_ABOVE);
    let v = values(&basis, 12, 3);
    let x = RnsVec::from_integers(&basis, &v).unwrap();
    assert_eq!(x.to_integers_checked().unwrap(), v);
}

#[test]
fn out_of_range_input_is_an_error() {
    let basis = &bases()[1];
    let too_big = Integer::from(basis.half() + 1u32);
    let err = RnsVec::from_integers(basis, &[Integer::new(), too_big.clone()]).unwrap_err();
    assert_eq!(
        err,
        Error::OutOfRange {
            index: 1,
            range_bits: basis.range_bits()
        }
    );
    assert!(RnsVec::from_integers(basis, &[-too_big]).is_err());
}

#[test]
fn overflow_is_detected_by_the_checked_reconstruction() {
    let basis = &bases()[2];
    let h = basis.half().clone();
    let a = RnsVec::from_integers(basis, &[h.clone(), Integer::from(3), -h.clone()]).unwrap();
    let b = RnsVec::from_integers(
        basis,
        &[Integer::from(1), Integer::from(4), Integer::from(-5)],
    )
    .unwrap();
    let cpu = Backend::Cpu;
    let sum = cpu.add(&a, &b).unwrap();
    assert_eq!(
        sum.to_integers_checked().unwrap_err(),
        Error::OutOfRange {
            index: 0,
            range_bits: basis.range_bits()
        }
    );
    let prod = cpu.mul(&a, &b).unwrap();
    assert!(matches!(
        prod.to_integers_checked(),
        Err(Error::OutOfRange { index: 2, .. })
    ));
    // A product that stays in range is fine.
    let small = cpu.mul(&b, &b).unwrap();
    assert_eq!(
        small.to_integers_checked().unwrap(),
        [1, 16, 25].map(Integer::from)
    );
}

#[test]
fn mismatched_operands_are_errors() {
    let cpu = Backend::Cpu;
    let a = RnsVec::from_i64(&bases()[0], &[1, 2]).unwrap();
    let b = RnsVec::from_i64(&bases()[1], &[1, 2]).unwrap();
    let c = RnsVec::from_i64(&bases()[0], &[1]).unwrap();
    assert_eq!(cpu.add(&a, &b).unwrap_err(), Error::BasisMismatch);
    assert_eq!(
        cpu.mul(&a, &c).unwrap_err(),
        Error::LengthMismatch { left: 2, right: 1 }
    );
    assert!(cpu.equal(&a, &b).is_err());
    assert!(cpu.compare(&a, &c).is_err());
    assert!(cpu.elementwise(Op::Add, &[&a], None).is_err());
    assert!(cpu.elementwise(Op::MulScalar, &[&a], None).is_err());
}

#[test]
fn bases_are_validated() {
    assert_eq!(RnsBasis::from_primes(&[]).unwrap_err(), Error::EmptyBasis);
    assert!(matches!(
        RnsBasis::from_primes(&[2_147_483_647, 15]),
        Err(Error::Modulus(_))
    ));
    assert!(matches!(
        RnsBasis::from_primes(&[2_147_483_649]),
        Err(Error::Modulus(_))
    ));
    assert!(matches!(
        RnsBasis::from_primes(&[2_147_483_645]),
        Err(Error::Modulus(_))
    ));
    assert_eq!(
        RnsBasis::from_primes(&[2_147_483_647, 2_147_483_647]).unwrap_err(),
        Error::DuplicateModulus(2_147_483_647)
    );
    let b = RnsBasis::from_primes(&[2_147_483_629, 2_147_483_587]).unwrap();
    assert_eq!(b.redundant().m, 2_147_483_647);
    assert_eq!(
        b.product(),
        &(Integer::from(2_147_483_629u32) * 2_147_483_587u32)
    );
}

#[test]
fn bit_bound_bases_cover_their_range() {
    for bits in [0u64, 1, 29, 30, 31, 61, 62, 100, 1000, 4000] {
        let b = RnsBasis::for_bits(bits);
        assert!(b.range_bits() >= bits, "bits {bits}");
        assert!(*b.half() >= Integer::from(1) << bits as u32);
        // minimal: one prime fewer would not do
        let fewer = b.product().clone() / b.range_moduli().last().unwrap().m;
        assert!(fewer <= Integer::from(1) << (bits + 1) as u32);
    }
}

#[test]
fn residues_are_validated() {
    let basis = &bases()[0];
    let ch = basis.channels();
    assert!(RnsVec::from_residues(basis, 2, vec![0; 2 * ch]).is_ok());
    assert!(RnsVec::from_residues(basis, 2, vec![0; 2 * ch + 1]).is_err());
    assert!(RnsVec::from_residues(basis, 1, vec![u32::MAX; ch]).is_err());
    let empty = RnsVec::from_integers(basis, &[]).unwrap();
    assert!(empty.to_integers().is_empty());
    assert_eq!(Backend::Cpu.sign(&empty).unwrap(), Vec::<Ordering>::new());
}

/// A basis's description of itself against rug: its primes, product, range and bounds.
#[test]
fn bases_describe_themselves() {
    for b in bases() {
        let primes = b.primes();
        let moduli: Vec<u32> = b.moduli().iter().map(|m| m.m).collect();
        assert_eq!(primes, moduli);
        assert_eq!(primes.len(), b.channels());
        assert_eq!(b.range_len() + 1, b.channels());
        assert_eq!(b.redundant().m, primes[b.range_len()]);
        let product = primes[..b.range_len()]
            .iter()
            .fold(Integer::from(1), |p, &m| p * m);
        assert_eq!(b.product(), &product);
        assert_eq!(*b.half(), Integer::from(&product - 1u32) / 2u32);
        assert!(Integer::from(1) << b.range_bits() as u32 <= *b.half());
        assert!(*b.half() < Integer::from(1) << (b.range_bits() + 1) as u32);
        assert!(b.contains(b.half()) && b.contains(&-Integer::from(b.half())));
        assert!(!b.contains(&(Integer::from(b.half()) + 1u32)));
        // Built again, the same basis: its vectors combine with this one's.
        let again = RnsBasis::from_primes(&primes[..b.range_len()]).unwrap();
        assert!(b.same_as(&again) && again.same_as(b));
    }
    assert!(!bases()[0].same_as(&bases()[1]));
}

/// Shares of a basis reconstructed on their own and combined by the CRT tree give the
/// signed values (the multi-GPU bivariate resultant's reconstruction).
#[test]
fn shares_combine_to_the_signed_values() {
    let basis = RnsBasis::largest_primes(23).unwrap();
    let h = basis.half().clone();
    let mut values: Vec<Integer> = vec![Integer::new(), Integer::from(1), Integer::from(-1)];
    values.extend([h.clone(), Integer::from(-&h), Integer::from(&h - 1u32)]);
    values.extend((1..40u32).map(|i| (Integer::from(&h / (i * 7 + 1)) * 3u32) - i));
    values.extend((1..40u32).map(|i| -(Integer::from(&h >> i) + i)));
    for cuts in [&[23][..], &[1, 23], &[5, 11, 23], &[7, 8, 9, 22, 23]] {
        let mut start = 0;
        let parts: Vec<Partial> = cuts
            .iter()
            .map(|&end| {
                let share = basis.share(start..end).unwrap();
                start = end;
                let m = share.product().clone();
                Partial {
                    values: values
                        .iter()
                        .map(|v| Integer::from(v.modulo_ref(&m)))
                        .collect(),
                    product: m,
                }
            })
            .collect();
        let got = to_signed_all(combine_all(parts).unwrap(), &basis).unwrap();
        assert_eq!(got, values, "{cuts:?}");
    }
    let one = Partial {
        values: vec![Integer::from(3)],
        product: Integer::from(7),
    };
    assert!(to_signed_all(one.clone(), &basis).is_err());
    assert!(combine_all(vec![one.clone(), one]).is_err());
    assert!(combine_all(Vec::new()).is_err());
}

/// Every reconstruction entry point of `crt` on the edge values of several bases: each
/// method of `reconstruct`, the sum of cofactor terms, and the digit paths (`from_digits_signed`, `from_digits_many`,
/// the digit tree beyond `2·DIGIT_LEAF` digits).
#[test]
fn every_reconstruction_gives_the_signed_values() {
    for b in bases() {
        let vals = values(b, 60, 9);
        let x = RnsVec::from_integers(b, &vals).unwrap();
        for (i, v) in vals.iter().enumerate() {
            let res = x.residues_of(i);
            for method in [CrtMethod::Weights, CrtMethod::MixedRadix, CrtMethod::Tree] {
                assert_eq!(&crt::reconstruct(&res, b, method), v, "{method:?}");
            }
            let y = crt::cofactor_terms(&res, b.range_moduli(), b.crt_inverses());
            assert_eq!(&crt::from_cofactor_terms(&y, b), v, "cofactor terms");
        }
        // Number-major digits.
        let by_number = Backend::Cpu.mixed_radix_digits(&x).unwrap();
        let kr = b.range_len();
        assert_eq!(crt::from_digits_many(b, &by_number), vals);
        for (i, v) in vals.iter().enumerate() {
            assert_eq!(
                &crt::from_digits_signed(&by_number[i * kr..(i + 1) * kr], b),
                v
            );
        }
    }
}

/// The default reconstruction method as documented: the precomputed weights, except for
/// bases above `TREE_ABOVE` range primes (their tables would be too large) and for fewer
/// numbers than `k / 64` (they would not pay for the tables).
#[test]
fn default_method_follows_its_documented_thresholds() {
    use rns::num::crt::{default_method, TREE_ABOVE};
    assert_eq!(default_method(1, 1), CrtMethod::Weights);
    assert_eq!(default_method(1092, 18), CrtMethod::Weights);
    assert_eq!(default_method(1092, 17), CrtMethod::Tree);
    assert_eq!(default_method(1024, 16), CrtMethod::Weights);
    assert_eq!(default_method(1025, 16), CrtMethod::Tree);
    assert_eq!(default_method(TREE_ABOVE, 1 << 20), CrtMethod::Weights);
    assert_eq!(default_method(TREE_ABOVE + 1, 1 << 20), CrtMethod::Tree);
}
