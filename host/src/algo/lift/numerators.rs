//! The solve's numerators `den·x_e mod P^s` from a lifting's digits by one exact product
//! on the device ([`ops::weighted_sums`]). With `w_t` the weight of digit level `t` (the
//! product of the radices of the levels below it) and `R_t = den·w_t mod P^s`,
//! `den·x_e ≡ Σ_t d_t[e]·R_t (mod P^s)`: a sum below `levels·2^32·P^s`, which a
//! reduction with a quotient of a few words brings into `[0, P^s)`. On the host each
//! entry would take its value from its digits and a product by `den` modulo `P^s`
//! (about six multiplications of the numerators' size); here the host makes the table
//! `R`, one multiplication by a word and one short division a level.

use super::Expansion;
use crate::backend::gpu::{ops, Gpu};
use crate::error::Result;
use crate::timing::Laps;
use rayon::prelude::*;
use rug::ops::Pow;
use rug::Integer;
use std::sync::Arc;

/// `den·x_e` modulo `modulus = P^steps`, up to a multiple of it (a sum below
/// `levels·2^32·modulus`), for the first `entries` entries of `x` over its first `steps`
/// steps, on `gpu` (stages on `laps`); `None` when that does not fit its memory budget.
pub(crate) fn numerators_on_device(
    gpu: &Arc<Gpu>,
    x: &Expansion,
    (entries, steps): (usize, usize),
    den: &Integer,
    modulus: &Integer,
    laps: &mut Laps,
) -> Result<Option<Vec<Integer>>> {
    let levels = (steps * x.radices.len()).min(x.digits.len());
    let (table, words) = weights_table(&x.radices, levels, den, modulus);
    laps.lap("lift: numerators: table (host)");
    ops::weighted_sums(gpu, &x.digits[..levels], &table, (entries, words), laps)
}

/// `den·w_t mod m` for the first `levels` digit levels of an expansion by `radices`
/// (`w_t` the product of the radices of the levels below `t`), as rows of 32-bit
/// words (least significant first), with the words a row. In pieces, one per task:
/// each piece's first row by a product and a division, the next by a word.
pub(crate) fn weights_table(
    radices: &[u32],
    levels: usize,
    den: &Integer,
    m: &Integer,
) -> (Vec<u32>, usize) {
    let words = (m.significant_bits() as usize).div_ceil(32).max(1);
    let mut table = vec![0u32; levels * words];
    let k = radices.len().max(1);
    // Two pieces a thread: each piece's first row costs a few products of m's size.
    let piece = levels.div_ceil(2 * rayon::current_num_threads()).max(16);
    table
        .par_chunks_mut(piece * words)
        .enumerate()
        .for_each(|(c, rows)| {
            let t0 = c * piece;
            let base = super::base_of(radices);
            let w = base.pow((t0 / k) as u32) * super::base_of(&radices[..t0 % k]);
            let mut r = (w * den).modulo(m);
            for (i, row) in rows.chunks_mut(words).enumerate() {
                put_words(&r, row);
                r *= radices[(t0 + i) % k];
                r %= m;
            }
        });
    (table, words)
}

/// `r ≥ 0`'s 32-bit words into `row` (as long as `r` needs or longer; the rest zero).
fn put_words(r: &Integer, row: &mut [u32]) {
    let limbs = r.as_limbs();
    for (pair, &limb) in row.chunks_mut(2).zip(limbs) {
        // GMP's limbs are 64 bits on the 64-bit machines this builds for.
        pair[0] = limb as u32;
        if let Some(hi) = pair.get_mut(1) {
            *hi = (limb >> 32) as u32;
        }
    }
    let end = (2 * limbs.len()).min(row.len());
    row[end..].fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;
    use rug::integer::Order;

    #[test]
    fn the_table_holds_den_times_each_weight() {
        let radices = [2147483647u32, 2147483629, 2147483587];
        let base = super::super::base_of(&radices);
        let m = Integer::from((&base).pow(20u32));
        let den = Integer::from(-12345678901234567i64) * &base + 99;
        // Several pieces (at least 16 levels each), and levels beyond m's.
        let levels = 70;
        let (table, words) = weights_table(&radices, levels, &den, &m);
        let mut w = Integer::from(1);
        for t in 0..levels {
            let got = Integer::from_digits(&table[t * words..(t + 1) * words], Order::Lsf);
            assert_eq!(got, Integer::from(&den * &w).modulo(&m), "level {t}");
            w *= radices[t % 3];
        }
    }

    #[test]
    fn digit_sums_over_the_table_are_den_times_each_value() {
        // What the device sums, summed here: an expansion of 3 entries by two primes a
        // step, over its first 4 steps (of 5), against den·x_e modulo P^4.
        let radices = vec![2147483647u32, 2147483629];
        let mut rand = rug::rand::RandState::new();
        let digits: Vec<Vec<u32>> = (0..10)
            .map(|t| {
                let p = radices[t % 2];
                (0..3).map(|_| rand.below(p)).collect()
            })
            .collect();
        let x = Expansion { digits, radices };
        let den = Integer::from(Integer::random_bits(150, &mut rand)) + 1;
        let m = x.base().pow(4u32);
        let levels = 8;
        let (table, words) = weights_table(&x.radices, levels, &den, &m);
        for e in 0..3 {
            let z = (0..levels).fold(Integer::new(), |z, t| {
                let r = Integer::from_digits(&table[t * words..(t + 1) * words], Order::Lsf);
                z + r * x.digits[t][e]
            });
            assert!(z < Integer::from(&m * levels) << 32u32);
            let value = x.value_upto(e, &x.powers_for(4), 4);
            assert_eq!(z.modulo(&m), (value * &den).modulo(&m), "entry {e}");
        }
    }
}
