//! Many reductions modulo one large number `m` (Barrett): `⌊4^b / m⌋` computed once
//! (`b` the bits of `m`), then each `x mod m` for `0 ≤ x < m²` by two products and a
//! subtraction, where a division would recompute an inverse of `m` every time.

use rug::Integer;

/// `m` and its Barrett constant.
#[derive(Clone, Debug)]
pub struct Barrett {
    m: Integer,
    mu: Integer,
    bits: u32,
}

impl Barrett {
    /// The reducer modulo `m > 0`; `None` for `m ≤ 0`.
    ///
    /// ```
    /// use rns::num::barrett::Barrett;
    /// use rug::Integer;
    ///
    /// let r = Barrett::new(Integer::from(1000003)).unwrap();
    /// assert_eq!(r.reduce(Integer::from(1000003u64 * 999 + 17)), 17);
    /// ```
    pub fn new(m: Integer) -> Option<Barrett> {
        if m <= 0 {
            return None;
        }
        let bits = m.significant_bits();
        let mu = (Integer::from(1) << (2 * bits)) / &m;
        Some(Barrett { m, mu, bits })
    }

    /// The modulus.
    pub fn modulus(&self) -> &Integer {
        &self.m
    }

    /// `x mod m` in `[0, m)` for `0 ≤ x < m²` (any other `x` by a division).
    pub fn reduce(&self, x: Integer) -> Integer {
        if x < 0 || x.significant_bits() > 2 * self.bits {
            return x.modulo(&self.m);
        }
        // q ≤ ⌊x / m⌋ and ⌊x / m⌋ − q ≤ 2.
        let q = (Integer::from(&x >> (self.bits - 1)) * &self.mu) >> (self.bits + 1);
        let mut r = x - q * &self.m;
        while r >= self.m {
            r -= &self.m;
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_remainder_at_the_ends_of_the_range() {
        let mut rand = rug::rand::RandState::new();
        for bits in [1u32, 2, 31, 64, 65, 1000, 20_000] {
            let m = Integer::from(Integer::random_bits(bits, &mut rand)) | 1u32;
            let r = Barrett::new(m.clone()).unwrap();
            let square = Integer::from(&m * &m);
            let mut xs = vec![
                Integer::new(),
                Integer::from(1),
                Integer::from(&m - 1u32),
                m.clone(),
                Integer::from(&m + 1u32),
                Integer::from(&square - 1u32),
                square.clone(),
                -Integer::from(&m + 5u32),
            ];
            for _ in 0..50 {
                xs.push(Integer::from(square.random_below_ref(&mut rand)));
            }
            for x in xs {
                assert_eq!(r.reduce(x.clone()), x.modulo(&m), "{bits} bits");
            }
        }
        assert!(Barrett::new(Integer::new()).is_none());
        assert!(Barrett::new(Integer::from(-7)).is_none());
    }
}
