//! The residues of large integers modulo many primes by a remainder tree (as FLINT's
//! `fmpz_multi_mod`): the primes' products in pairs (below `2^62`), then pairs of those,
//! up to the root; an integer is reduced modulo the root once, and each remainder
//! modulo its node's two children on the way down, so that the work is about
//! `M(size)·log(primes)` instead of the direct `primes · size / 2` limb operations
//! ([`super::vector::residues_into`]: one `mpn_mod_1` pass per pair of primes).

use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;

/// Limbs of an integer from which the remainder tree pays off (`examples/multimod_bench.rs`,
/// dev, one core, µs per value direct / by the tree: 1024 primes, 16 limbs 30.9 / 59.3,
/// 64 limbs 131 / 81, 1024 limbs 2128 / 298; 16 384 primes, 8192 limbs 273 460 / 13 253;
/// the same crossing from 64 to 16 384 primes).
pub const TREE_MIN_LIMBS: usize = 40;

/// Primes from which the tree is worth building (64 primes: 0.23 ms).
pub const TREE_MIN_CHANNELS: usize = 64;

/// The product tree of a list of primes: `levels[0]` the products of pairs (an odd
/// last prime alone), each next level the products of pairs of the one below (an odd
/// last node carried up), the last level the root alone.
pub struct RemainderTree {
    levels: Vec<Vec<Integer>>,
    moduli: Vec<Modulus>,
}

/// Nodes of at least this many limbs split their two children over two tasks.
const PARALLEL_LIMBS: usize = 1 << 12;

impl RemainderTree {
    /// The tree of `moduli` (at least one).
    pub fn new(moduli: &[Modulus]) -> RemainderTree {
        let mut level: Vec<Integer> = moduli
            .chunks(2)
            .map(|p| Integer::from(p.iter().map(|m| m.m as u64).product::<u64>()))
            .collect();
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
        levels.push(level);
        RemainderTree {
            levels,
            moduli: moduli.to_vec(),
        }
    }

    /// The residues of `x` modulo every prime, in order, into `out` (as long as the
    /// primes).
    pub fn residues_into(&self, x: &Integer, out: &mut [u32]) {
        let top = self.levels.len() - 1;
        let r = reduce(&Integer::from(x.abs_ref()), &self.levels[top][0]);
        self.descend(top, 0, r, out);
        if x.is_negative() {
            for (v, m) in out.iter_mut().zip(&self.moduli) {
                *v = m.neg(*v);
            }
        }
    }

    /// Node `i` of `level` holds the remainder `r` (below its product): its primes'
    /// residues into `out` (theirs only, from the node's first prime).
    fn descend(&self, level: usize, i: usize, r: Integer, out: &mut [u32]) {
        if level == 0 {
            let t = r.to_u64().unwrap_or(0);
            for (o, m) in out.iter_mut().zip(&self.moduli[2 * i..]) {
                *o = (t % m.m as u64) as u32;
            }
            return;
        }
        let below = &self.levels[level - 1];
        let (l, rt) = (2 * i, 2 * i + 1);
        if rt >= below.len() {
            // An odd last node, carried up unchanged.
            return self.descend(level - 1, l, r, out);
        }
        // Primes under the left child: 2 per pair, times the pairs under it.
        let split = (2usize << (level - 1)).min(out.len());
        let (lo, hi) = out.split_at_mut(split);
        let r = &r;
        let mut left = move || self.descend(level - 1, l, reduce(r, &below[l]), lo);
        let mut right = move || self.descend(level - 1, rt, reduce(r, &below[rt]), hi);
        if r.as_limbs().len() >= PARALLEL_LIMBS {
            rayon::join(left, right);
        } else {
            left();
            right();
        }
    }

    /// The cofactors `(M / m_i) mod m_i` of every prime (`M` their product), down the
    /// tree: a node holding `C`, the product of the primes outside it modulo its own
    /// product, hands `C · P_right mod P_left` to its left child and `C · P_left mod
    /// P_right` to its right one.
    pub fn cofactors(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.moduli.len()];
        let top = self.levels.len() - 1;
        self.cofactors_below(top, 0, Integer::from(1), &mut out);
        out
    }

    fn cofactors_below(&self, level: usize, i: usize, c: Integer, out: &mut [u32]) {
        if level == 0 {
            let ms = &self.moduli[2 * i..(2 * i + 2).min(self.moduli.len())];
            let c = c.to_u64().unwrap_or(0);
            for (j, (o, m)) in out.iter_mut().zip(ms).enumerate() {
                // The other prime of the pair, if any, is outside this one too.
                let other = ms.get(1 - j).map_or(1, |p| p.m as u64 % m.m as u64);
                *o = ((c % m.m as u64) as u128 * other as u128 % m.m as u128) as u32;
            }
            return;
        }
        let below = &self.levels[level - 1];
        let (l, rt) = (2 * i, 2 * i + 1);
        if rt >= below.len() {
            return self.cofactors_below(level - 1, l, c, out);
        }
        let split = (2usize << (level - 1)).min(out.len());
        let (lo, hi) = out.split_at_mut(split);
        let (pl, pr) = (&below[l], &below[rt]);
        let c = &c;
        let mut left = move || self.cofactors_below(level - 1, l, Integer::from(c * pr) % pl, lo);
        let mut right = move || self.cofactors_below(level - 1, rt, Integer::from(c * pl) % pr, hi);
        if pl.as_limbs().len() >= PARALLEL_LIMBS / 4 {
            rayon::join(left, right);
        } else {
            left();
            right();
        }
    }
}

/// `r mod p` for `r ≥ 0` (`r` itself when it is already below `p`).
fn reduce(r: &Integer, p: &Integer) -> Integer {
    if r < p {
        r.clone()
    } else {
        Integer::from(r % p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::vector::residues_into;
    use rug::ops::Pow;

    #[test]
    fn the_tree_equals_the_direct_residues() {
        let primes: Vec<Modulus> = rns_core::prime::moduli_descending(|_| false)
            .take(1001)
            .map(|p| Modulus::new(p).unwrap())
            .collect();
        for count in [1, 2, 3, 4, 5, 7, 8, 9, 64, 255, 256, 1000, 1001] {
            let tree = RemainderTree::new(&primes[..count]);
            let three = Integer::from(3);
            for x in [
                Integer::new(),
                Integer::from(1),
                Integer::from(-1),
                Integer::from(primes[0].m),
                three.clone().pow(20_000u32) - 1,
                -(three.pow(70_001u32)),
                Integer::from(u64::MAX) * Integer::from(u64::MAX),
            ] {
                let (mut a, mut b) = (vec![0; count], vec![0; count]);
                tree.residues_into(&x, &mut a);
                residues_into(&x, &primes[..count], &mut b);
                assert_eq!(a, b, "{count} primes");
            }
            let want: Vec<u32> = (0..count)
                .map(|i| {
                    let inv = rns_core::crt::cofactor_inverse(&primes[..count], i).unwrap();
                    primes[i].inv(inv).unwrap()
                })
                .collect();
            assert_eq!(tree.cofactors(), want, "{count} primes: cofactors");
        }
    }
}
