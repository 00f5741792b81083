//! Products of primes: the product of a set, and the levels of the product tree over
//! groups of them that assembles integers from their mixed-radix digits. Used by the
//! bases (their `M`) and the CRT.

use rayon::prelude::*;
use rug::Integer;

/// Digits per leaf of the digit tree: below this many, Horner's rule alone.
pub const DIGIT_LEAF: usize = 32;

/// The product of the primes, by a balanced tree of multiplications.
pub fn product(primes: &[u32]) -> Integer {
    match primes.len() {
        0 => Integer::from(1),
        1 => Integer::from(primes[0]),
        n => {
            let (a, b) = primes.split_at(n / 2);
            product(a) * product(b)
        }
    }
}

/// The levels of the digit tree of `moduli`: level 0 holds the product of each leaf's
/// `DIGIT_LEAF` radices, each next level the products of pairs (an odd last node is
/// carried up), up to the level whose pairs make the root.
pub fn digit_tree_levels(moduli: &[rns_core::Modulus]) -> Vec<Vec<Integer>> {
    let primes: Vec<u32> = moduli.iter().map(|m| m.m).collect();
    let mut levels = pair_product_levels(primes.chunks(DIGIT_LEAF).map(product).collect());
    levels.pop(); // the root
    levels
}

/// `level`, then the products of its pairs (an odd last node carried up), and so on to
/// the root: every level, the root's last (none for an empty `level`). The products of
/// a level on all cores.
pub fn pair_product_levels(mut level: Vec<Integer>) -> Vec<Vec<Integer>> {
    let mut levels = Vec::new();
    while level.len() > 1 {
        let next = level
            .par_chunks(2)
            .map(|p| match p {
                [a, b] => Integer::from(a * b),
                [a] => a.clone(),
                _ => unreachable!("chunks of two"),
            })
            .collect();
        levels.push(std::mem::replace(&mut level, next));
    }
    if !level.is_empty() {
        levels.push(level);
    }
    levels
}
