//! Large inputs made fast, the same on every run: a fixed pseudo-random stream
//! (splitmix64) indexed by entry, so that all cores make a matrix at once and the
//! benchmarks (`examples/scale.rs`, `examples/multi_gpu_bench.rs`) give FLINT and every
//! backend the same inputs.

use rayon::prelude::*;
use rns::IntMatrix;
use rug::Integer;

/// The `i`-th value of a fixed pseudo-random stream (splitmix64).
pub fn mix(seed: u64, i: u64) -> u64 {
    let mut z = seed.wrapping_add(i.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A signed value of at most `bits` bits (≤ 64).
pub fn value(seed: u64, i: u64, bits: u32) -> i128 {
    let v = mix(seed, i);
    let mag = if bits >= 64 {
        v >> 1
    } else {
        v & ((1u64 << (bits - 1)) - 1)
    };
    if v & 1 == 1 {
        -(mag as i128)
    } else {
        mag as i128
    }
}

/// A signed value of at most `bits` bits, any number of them (`value` for ≤ 64).
pub fn entry(seed: u64, i: u64, bits: u32) -> Integer {
    if bits <= 64 {
        return Integer::from(value(seed, i, bits));
    }
    let words = u64::from(bits.div_ceil(64));
    let limbs: Vec<u64> = (0..words)
        .map(|w| mix(seed ^ 0x9E37_79B9_7F4A_7C15, i * words + w))
        .collect();
    let mut x = Integer::from_digits(&limbs, rug::integer::Order::Lsf);
    x.keep_bits_mut(bits - 1);
    if mix(seed, i) & 1 == 1 {
        -x
    } else {
        x
    }
}

/// A random `rows × cols` matrix with entries of `bits` bits, by all cores.
pub fn random(rows: usize, cols: usize, bits: u32, seed: u64) -> IntMatrix {
    let data = (0..rows * cols)
        .into_par_iter()
        .map(|e| entry(seed, e as u64, bits))
        .collect();
    IntMatrix::new(rows, cols, data).expect("shape")
}

/// A `rows × cols` matrix of rank `r ≤ rows` (almost surely: its first `r` rows made are
/// random, entries of `bits − 1` bits), each further row the sum of two made rows
/// (entries of `bits` bits at most), the rows then interleaved by a fixed stride so
/// that the dependent ones are spread through the matrix. Linear in the entries, for
/// orders where a product of factors would be too slow to make.
pub fn rank_deficient(rows: usize, cols: usize, r: usize, bits: u32, seed: u64) -> IntMatrix {
    assert!(r >= 1 && r <= rows, "rank between 1 and the rows");
    let base = random(r, cols, bits - 1, seed);
    let made = |i: usize| -> Vec<Integer> {
        if i < r {
            return base.row(i).to_vec();
        }
        let (x, y) = (base.row((i - r) % r), base.row((i - r + 1) % r));
        x.iter().zip(y).map(|(x, y)| Integer::from(x + y)).collect()
    };
    let stride = (7..).find(|s| gcd(*s, rows) == 1).expect("a stride");
    let data = (0..rows)
        .into_par_iter()
        .flat_map_iter(|j| made(j * stride % rows))
        .collect();
    IntMatrix::new(rows, cols, data).expect("shape")
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}
