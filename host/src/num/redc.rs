//! Montgomery products modulo a large odd `r` in residues ([`rns_core::redc`]): the two
//! bases and the redundant prime chosen for `r`, every channel's constants, and the
//! product of many numbers modulo `r` by a tree of such products. The device runs the
//! tree with its base extensions as matrix products (`backend::gpu::ops::redc`); the
//! tree here is the reference it matches word for word, `O(|B|²)` a product.
//!
//! The product of `N` numbers comes out as `V ≡ Π x_i · B^{−(N−1)} (mod r)`, `0 ≤ V <
//! c·r`; `B` is coprime to `r`, so `gcd(V, r) = gcd(Π x_i, r)`.

use super::basis::RnsBasis;
use super::crt::{cofactor_terms, from_cofactor_terms};
use super::multimod::RemainderTree;
use rayon::prelude::*;
use rns_core::prime::moduli_descending;
use rns_core::redc::{end_step, gamma, mid_step, pair_step, weight, Crt3};
use rns_core::Modulus;
use rug::Integer;
use std::collections::{HashMap, HashSet};

/// Bits of a leaf's digits on the device: below every channel prime, so that a sum of
/// digit-by-power products is exact in [`Crt3`].
pub const DIGIT_BITS: u32 = 30;

/// The bases of Montgomery products modulo one `r` and every constant of their steps.
///
/// Channels are numbered `B` (`0..k`), then `B'` (`k..k + k2`), then `m_r` (the last;
/// `B`'s redundant prime; `B'`'s own is not used).
#[derive(Debug)]
pub struct RedcBases {
    /// The odd modulus.
    pub r: Integer,
    /// `B` as a basis (its redundant prime is `m_r`).
    pub b: RnsBasis,
    /// `B'` as a basis.
    pub b2: RnsBasis,
    /// The channel primes of the extensions' matrix products, above every other prime.
    pub crt: Crt3,
    /// Every channel's modulus.
    pub moduli: Vec<Modulus>,
    /// Three words a channel: in `B` `(w_j, B' mod b_j, 0)` with `w_j = −r⁻¹·(B/b_j)⁻¹`;
    /// in `B'` `(r, B⁻¹, (B'/b'_i)⁻¹)` modulo `b'_i`; in `m_r` `(r, B⁻¹, B'⁻¹)` modulo it.
    pub consts: Vec<u32>,
    /// `B mod m` for every channel of `B' ∪ {m_r}`: the first extension's column factors.
    pub b_mod: Vec<u32>,
    /// `B' mod m` for every channel of `B ∪ {m_r}`: the second extension's.
    pub b2_mod: Vec<u32>,
    /// `c·r` with `c = 2·|B|`: every input and every product is below it.
    pub bound: Integer,
}

impl RedcBases {
    /// The bases for an odd `r > 1` (`None` otherwise): `B` and `B'` of 31-bit primes that
    /// do not divide `r`, each above `2c·r`, `m_r` the redundant prime of `B`.
    pub fn new(r: &Integer) -> Option<RedcBases> {
        if *r <= 1 || r.is_even() {
            return None;
        }
        let top: Vec<u32> = moduli_descending(|_| false).take(3).collect();
        let crt = Crt3::new(core::array::from_fn(|i| Modulus::new_unchecked(top[i])))?;
        // r modulo every prime the bases could take, by one remainder tree: those that
        // divide r (fewer than bits/30 of them) are left out.
        let bits = r.significant_bits() as u64;
        let per_base = bits as usize / 30 + 2;
        let pool: Vec<Modulus> = moduli_descending(|_| false)
            .skip(3)
            .take(2 * per_base + 8)
            .map(Modulus::new_unchecked)
            .collect();
        let mut r_pool = vec![0u32; pool.len()];
        RemainderTree::new(&pool).residues_into(r, &mut r_pool);
        let r_mod: HashMap<u32, u32> = pool.iter().map(|m| m.m).zip(r_pool).collect();
        let dividing = |p: u32| r_mod.get(&p) == Some(&0);
        // A signed range of this many bits exceeds 4·k·r for any k ≤ per_base.
        let range = bits + 3 + (4 * per_base).next_power_of_two().trailing_zeros() as u64;
        let left_out = |p: u32| top.contains(&p) || dividing(p);
        let b = RnsBasis::for_bits_excluding(range, left_out);
        let taken: HashSet<u32> = b.moduli().iter().map(|m| m.m).collect();
        let b2 = RnsBasis::for_bits_excluding(range, |p| left_out(p) || taken.contains(&p));
        Self::with_bases(r, b, b2, crt, &r_mod)
    }

    fn with_bases(
        r: &Integer,
        b: RnsBasis,
        b2: RnsBasis,
        crt: Crt3,
        r_mod: &HashMap<u32, u32>,
    ) -> Option<RedcBases> {
        let (bm, b2m, red) = (b.range_moduli(), b2.range_moduli(), b.redundant());
        let k = bm.len();
        let (tree, tree2) = (RemainderTree::new(bm), RemainderTree::new(b2m));
        let residues = |x: &Integer, tree: &RemainderTree, len: usize| {
            let mut out = vec![0u32; len];
            tree.residues_into(x, &mut out);
            out.push(x.mod_u(red.m));
            out
        };
        // r modulo the bases' primes (a prime past the pool, never, would leave it out).
        let of_r = |moduli: &[Modulus]| -> Option<Vec<u32>> {
            let mut v: Vec<u32> = moduli
                .iter()
                .map(|m| r_mod.get(&m.m).copied())
                .collect::<Option<_>>()?;
            v.push(r.mod_u(red.m));
            Some(v)
        };
        let (r_b, r_b2) = (of_r(bm)?, of_r(b2m)?);
        let b_mod = residues(b.product(), &tree2, b2m.len());
        let b2_mod = residues(b2.product(), &tree, k);
        let inverses = |tree: &RemainderTree, moduli: &[Modulus]| -> Option<Vec<u32>> {
            let cofactors = tree.cofactors();
            cofactors
                .par_iter()
                .zip(moduli)
                .map(|(&c, m)| m.inv(c))
                .collect()
        };
        let (cof, cof2) = (inverses(&tree, bm)?, inverses(&tree2, b2m)?);
        // Three words a channel, by all cores (a prime of B dividing r, never as chosen,
        // would leave no inverse).
        let in_b = bm.par_iter().enumerate().map(|(j, m)| {
            let r_inv = m.inv(r_b[j])?;
            Some([m.neg(m.mul(r_inv, cof[j])), b2_mod[j], 0])
        });
        let in_b2 = b2m
            .par_iter()
            .chain(rayon::iter::once(&red))
            .enumerate()
            .map(|(i, m)| {
                let last = match i < cof2.len() {
                    true => cof2[i],
                    false => m.inv(b2_mod[k])?,
                };
                Some([r_b2[i], m.inv(b_mod[i])?, last])
            });
        let words: Vec<[u32; 3]> = in_b.chain(in_b2).collect::<Option<_>>()?;
        let consts = words.concat();
        let moduli = bm.iter().chain(b2m).chain([&red]).copied().collect();
        let bound = Integer::from(r * (2 * k as u32));
        Some(RedcBases {
            r: r.clone(),
            b,
            b2,
            crt,
            moduli,
            consts,
            b_mod,
            b2_mod,
            bound,
        })
    }

    /// Channels of `B`.
    pub fn k(&self) -> usize {
        self.b.range_len()
    }

    /// Channels of `B'`.
    pub fn k2(&self) -> usize {
        self.b2.range_len()
    }

    /// All channels: `B`, `B'` and `m_r`.
    pub fn channels(&self) -> usize {
        self.moduli.len()
    }

    /// The 30-bit digits of a leaf (every leaf below [`RedcBases::bound`] has at most
    /// this many).
    pub fn digits(&self) -> usize {
        self.bound.significant_bits().div_ceil(DIGIT_BITS) as usize
    }

    /// A leaf for `x`: `|x|`, reduced modulo `r` where it is not below the bound.
    pub fn leaf(&self, x: &Integer) -> Integer {
        let x = Integer::from(x.abs_ref());
        match x < self.bound {
            true => x,
            false => x % &self.r,
        }
    }

    /// The 30-bit digits of `x`'s leaf into `out` (as long as [`RedcBases::digits`]),
    /// least significant first: `|x|`'s own digits, not copied, when it is below the bound.
    pub fn leaf_digits(&self, x: &Integer, out: &mut [u32]) {
        let abs = x.as_abs();
        match *abs < self.bound {
            true => digits_into(abs.as_limbs(), out),
            false => digits_into(self.leaf(x).as_limbs(), out),
        }
    }

    /// Every channel's residue of `x` (`0 ≤ x` below the bound).
    pub fn residues(&self, x: &Integer) -> Vec<u32> {
        self.moduli.iter().map(|m| x.mod_u(m.m)).collect()
    }

    /// The value of a product's residues: `B'`'s reconstructed.
    pub fn value(&self, x: &[u32]) -> Integer {
        let (k, k2) = (self.k(), self.k2());
        let cof: Vec<u32> = (k..k + k2).map(|ch| self.consts[3 * ch + 2]).collect();
        let terms = cofactor_terms(&x[k..k + k2], self.b2.range_moduli(), &cof);
        from_cofactor_terms(&terms, &self.b2)
    }

    /// The Montgomery product `(x·y + S·r)/B` of two numbers' residues (each below the
    /// bound), by the five steps with the extensions summed directly.
    pub fn multiply(&self, x: &[u32], y: &[u32]) -> Vec<u32> {
        let (k, k2, n) = (self.k(), self.k2(), self.channels());
        let c = &self.consts;
        let (p, sigma): (Vec<u32>, Vec<u32>) = (0..n)
            .map(|ch| pair_step(self.moduli[ch], x[ch], y[ch], c[3 * ch]))
            .unzip();
        let mut t = vec![0u32; n];
        let s = self.extend(&sigma[..k], 0..k, &(k..n).collect::<Vec<_>>(), &self.b_mod);
        let mut sigma2 = vec![0u32; k2];
        for (i, ch) in (k..n).enumerate() {
            let q = (c[3 * ch], c[3 * ch + 1], c[3 * ch + 2]);
            let (ti, si) = mid_step(self.moduli[ch], p[ch], s[i], q);
            t[ch] = ti;
            if i < k2 {
                sigma2[i] = si;
            }
        }
        let targets: Vec<usize> = (0..k).chain([n - 1]).collect();
        let s2 = self.extend(&sigma2, k..k + k2, &targets, &self.b2_mod);
        let red = self.moduli[n - 1];
        let g = gamma(red, s2[k], t[n - 1], c[3 * (n - 1) + 2]);
        for j in 0..k {
            t[j] = end_step(self.moduli[j], s2[j], g, c[3 * j + 1]);
        }
        t
    }

    /// `Σ_j σ_j·(F/f_j) mod m` over the `from` channels (product `F`) for every `to`
    /// channel `m`, given `F mod m` for each.
    fn extend(
        &self,
        sigma: &[u32],
        from: std::ops::Range<usize>,
        to: &[usize],
        f_mod: &[u32],
    ) -> Vec<u32> {
        to.iter()
            .zip(f_mod)
            .map(|(&ch, &fm)| {
                let m = self.moduli[ch];
                let sum: u128 = from
                    .clone()
                    .zip(sigma)
                    .map(|(j, &s)| s as u128 * weight(m, fm, self.moduli[j].m) as u128)
                    .sum();
                (sum % m.m as u128) as u32
            })
            .collect()
    }

    /// The product of every number's residues by a tree of [`RedcBases::multiply`]: pairs
    /// level by level, an odd last one carried up; `None` for none.
    pub fn tree(&self, mut level: Vec<Vec<u32>>) -> Option<Vec<u32>> {
        while level.len() > 1 {
            let carried = (level.len() % 2 == 1).then(|| level.pop()).flatten();
            level = level
                .par_chunks(2)
                .map(|p| self.multiply(&p[0], &p[1]))
                .collect();
            level.extend(carried);
        }
        level.pop()
    }
}

/// The base-`2^DIGIT_BITS` digits of the integer with 64-bit `limbs` (least significant
/// first) into `out`, which must hold them all; the rest of `out` zero.
fn digits_into(limbs: &[u64], out: &mut [u32]) {
    let mask = (1u64 << DIGIT_BITS) - 1;
    let (mut acc, mut have, mut at) = (0u128, 0u32, 0usize);
    for &l in limbs {
        if at == out.len() {
            break;
        }
        acc |= (l as u128) << have;
        have += 64;
        // Digits past `out` are the top limb's zero bits.
        while have >= DIGIT_BITS && at < out.len() {
            out[at] = (acc as u64 & mask) as u32;
            (acc, have, at) = (acc >> DIGIT_BITS, have - DIGIT_BITS, at + 1);
        }
    }
    if have > 0 && at < out.len() {
        out[at] = acc as u32;
        at += 1;
    }
    let len = out.len();
    out[at.min(len)..].fill(0);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random_odd(bits: u32, rand: &mut rug::rand::RandState) -> Integer {
        Integer::from(Integer::random_bits(bits, rand)) | (Integer::from(1) << (bits - 1)) | 1u32
    }

    /// `V ≡ Π x_i · B^{−(N−1)} (mod r)` and `0 ≤ V < c·r`.
    fn assert_tree(bases: &RedcBases, xs: &[Integer]) -> Integer {
        let leaves = xs.iter().map(|x| bases.residues(&bases.leaf(x))).collect();
        let root = bases.tree(leaves).unwrap();
        let v = bases.value(&root);
        assert!(v >= 0 && v < bases.bound, "V out of its bound");
        assert_eq!(bases.residues(&v), root, "the root's channels disagree");
        let r = &bases.r;
        let b_inv = Integer::from(bases.b.product().invert_ref(r).unwrap());
        let scale = b_inv.pow_mod(&Integer::from(xs.len() - 1), r).unwrap();
        let want = xs.iter().fold(scale, |acc, x| acc * x.clone().abs() % r);
        assert_eq!(Integer::from(&v % r), want);
        v
    }

    #[test]
    fn products_of_many_numbers_modulo_r() {
        let mut rand = rug::rand::RandState::new();
        for bits in [3u32, 31, 62, 200, 1000, 2500] {
            let r = random_odd(bits, &mut rand);
            let bases = RedcBases::new(&r).unwrap();
            assert!(*bases.b.product() > Integer::from(&bases.bound * 2u32));
            assert!(*bases.b2.product() > Integer::from(&bases.bound * 2u32));
            for n in [1usize, 2, 3, 7, 16] {
                let mut xs: Vec<Integer> = (0..n)
                    .map(|_| Integer::from(Integer::random_below_ref(&bases.bound, &mut rand)))
                    .collect();
                // The range's ends, negatives and a value past the bound.
                xs[0] = Integer::from(&bases.bound - 1u32);
                if n > 2 {
                    xs[1] = -Integer::from(&r - 1u32);
                    xs[2] = Integer::from(&bases.bound * 3u32) + 5u32;
                }
                let v = assert_tree(&bases, &xs);
                let whole = xs.iter().fold(Integer::from(1), |a, x| a * x);
                assert_eq!(
                    Integer::from(v.gcd_ref(&r)),
                    Integer::from(whole.gcd_ref(&r))
                );
            }
        }
    }

    #[test]
    fn a_shared_factor_shows_in_the_gcd() {
        let mut rand = rug::rand::RandState::new();
        let (f, g) = (random_odd(300, &mut rand), random_odd(400, &mut rand));
        let r = Integer::from(&f * &g);
        let bases = RedcBases::new(&r).unwrap();
        let mut xs: Vec<Integer> = (0..9).map(|_| random_odd(690, &mut rand)).collect();
        let coprime = xs.iter().fold(Integer::from(1), |a, x| a * x).gcd(&r) == 1;
        let v = assert_tree(&bases, &xs);
        assert_eq!(v.gcd(&r) == 1, coprime);
        xs[4] = Integer::from(&f * 3u32);
        let v = assert_tree(&bases, &xs);
        assert_eq!(Integer::from(v.gcd_ref(&r)) % &f, 0);
        xs[4] = Integer::new();
        assert_eq!(assert_tree(&bases, &xs), 0);
    }

    #[test]
    fn leaf_digits_rebuild_the_leaf() {
        let mut rand = rug::rand::RandState::new();
        let bases = RedcBases::new(&random_odd(700, &mut rand)).unwrap();
        let below = Integer::from(&bases.bound - 1u32);
        for x in [
            Integer::new(),
            Integer::from(-1),
            below.clone(),
            -below,
            bases.bound.clone(),
        ] {
            let mut d = vec![u32::MAX; bases.digits()];
            bases.leaf_digits(&x, &mut d);
            let back = d
                .iter()
                .rev()
                .fold(Integer::new(), |a, &w| (a << DIGIT_BITS) + w);
            assert_eq!(back, bases.leaf(&x), "{x}");
        }
    }

    #[test]
    fn primes_dividing_r_are_left_out() {
        // r = the two largest usable primes times 3: neither may join a basis.
        let primes: Vec<u32> = moduli_descending(|_| false).skip(3).take(2).collect();
        let r = Integer::from(primes[0]) * primes[1] * 3u32;
        let bases = RedcBases::new(&r).unwrap();
        assert!(bases.moduli.iter().all(|m| !primes.contains(&m.m)));
        assert_tree(
            &bases,
            &[Integer::from(5), Integer::from(7), Integer::from(11)],
        );
        assert!(RedcBases::new(&Integer::from(1)).is_none());
        assert!(RedcBases::new(&Integer::from(1u64 << 40)).is_none());
    }
}
