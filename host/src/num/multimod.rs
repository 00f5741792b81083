//! The residues of large integers modulo many primes by a remainder tree (as FLINT's
//! `fmpz_multi_mod`): the primes' products in pairs (below `2^62`), then pairs of those,
//! up to the root; an integer is reduced modulo the root once, and each remainder
//! modulo its node's two children on the way down, so that the work is about
//! `M(size)·log(primes)` instead of the direct `primes · size / 2` limb operations
//! ([`super::vector::residues_into`]: one `mpn_mod_1` pass per pair of primes).

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

/// Nodes whose left child's product has at least this many limbs hand their two
/// children to two tasks.
const PARALLEL_LIMBS: usize = 1 << 10;

impl RemainderTree {
    /// The tree of `moduli` (at least one).
    pub fn new(moduli: &[Modulus]) -> RemainderTree {
        let pairs = moduli
            .chunks(2)
            .map(|p| Integer::from(p.iter().map(|m| m.m as u64).product::<u64>()))
            .collect();
        let levels = super::products::pair_product_levels(pairs);
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
        // Each child gets the remainder modulo its own product.
        let child = |r: &Integer, own: &Integer, _: &Integer| reduce(r, own);
        self.walk((top, 0), r, out, &child, &|pair, r, out| {
            let t = r.to_u64().unwrap_or(0);
            for (o, m) in out.iter_mut().zip(&self.moduli[2 * pair..]) {
                *o = (t % m.m as u64) as u32;
            }
        });
        signed(x, &self.moduli, out);
    }

    /// The cofactors `(M / m_i) mod m_i` of every prime (`M` their product), down the
    /// tree: a node holding `C`, the product of the primes outside it modulo its own
    /// product, hands `C · P_right mod P_left` to its left child and `C · P_left mod
    /// P_right` to its right one.
    pub fn cofactors(&self) -> Vec<u32> {
        let mut out = vec![0u32; self.moduli.len()];
        let top = self.levels.len() - 1;
        let child =
            |c: &Integer, own: &Integer, sibling: &Integer| Integer::from(c * sibling) % own;
        self.walk(
            (top, 0),
            Integer::from(1),
            &mut out,
            &child,
            &|pair, c, out| {
                let ms = &self.moduli[2 * pair..(2 * pair + 2).min(self.moduli.len())];
                let c = c.to_u64().unwrap_or(0);
                for (j, (o, m)) in out.iter_mut().zip(ms).enumerate() {
                    // The other prime of the pair, if any, is outside this one too.
                    let other = ms.get(1 - j).map_or(1, |p| p.m as u64 % m.m as u64);
                    *o = ((c % m.m as u64) as u128 * other as u128 % m.m as u128) as u32;
                }
            },
        );
        out
    }

    /// Hands `value`, node `i` of `level`'s, down to the leaves: a child's value is
    /// `child(value, its product, its sibling's product)` (an odd last node, carried up,
    /// keeps it), and at level 0 `leaf(pair, value, out)` writes the pair's primes'
    /// words. `out` holds the words of the node's primes, from its first. The children
    /// of a node whose left child has [`PARALLEL_LIMBS`] limbs or more go as two tasks.
    fn walk<C, L>(
        &self,
        (level, i): (usize, usize),
        value: Integer,
        out: &mut [u32],
        child: &C,
        leaf: &L,
    ) where
        C: Fn(&Integer, &Integer, &Integer) -> Integer + Sync,
        L: Fn(usize, Integer, &mut [u32]) + Sync,
    {
        if level == 0 {
            return leaf(i, value, out);
        }
        let below = &self.levels[level - 1];
        let (l, rt) = (2 * i, 2 * i + 1);
        if rt >= below.len() {
            return self.walk((level - 1, l), value, out, child, leaf);
        }
        // Primes under the left child: 2 per pair, times the pairs under it.
        let split = (2usize << (level - 1)).min(out.len());
        let (lo, hi) = out.split_at_mut(split);
        let (pl, pr, v) = (&below[l], &below[rt], &value);
        let mut left = move || self.walk((level - 1, l), child(v, pl, pr), lo, child, leaf);
        let mut right = move || self.walk((level - 1, rt), child(v, pr, pl), hi, child, leaf);
        if pl.as_limbs().len() >= PARALLEL_LIMBS {
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

/// The residues of `|x|` in `out` made those of `x` (negated when `x < 0`): the last step
/// of every way to the residues of a signed integer (directly, by the tree, by the table).
pub(crate) fn signed(x: &Integer, moduli: &[Modulus], out: &mut [u32]) {
    if x.is_negative() {
        for (r, m) in out.iter_mut().zip(moduli) {
            *r = m.neg(*r);
        }
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
