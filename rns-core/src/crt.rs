//! Constants of the Chinese remainder theorem that need no big integers.

use crate::modulus::Modulus;

/// Writes `out[i] = (M / m_i)^(−1) mod m_i`, where `M` is the product of all moduli.
/// With it, `x = Σ_i ((x_i · out[i]) mod m_i) · (M / m_i)  (mod M)`.
/// The moduli must be distinct primes.
pub fn fill_inverses(moduli: &[Modulus], out: &mut [u32]) {
    assert_eq!(out.len(), moduli.len(), "one inverse per modulus");
    for (i, o) in out.iter_mut().enumerate() {
        *o = cofactor_inverse(moduli, i).expect("moduli must be distinct primes");
    }
}

/// `(M / m_i)^(−1) mod m_i` for one `i < moduli.len()` (`O(K)`); `None` when the
/// cofactor is not invertible, that is when the moduli are not distinct primes.
#[inline]
pub fn cofactor_inverse(moduli: &[Modulus], i: usize) -> Option<u32> {
    let mi = *moduli.get(i)?;
    let mut prod = 1u32;
    for (j, mj) in moduli.iter().enumerate() {
        if i != j {
            prod = mi.mul(prod, mi.reduce_u32(mj.m));
        }
    }
    mi.inv(prod)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverses_of_the_cofactors() {
        let moduli = [
            2_147_483_647u32,
            2_147_483_629,
            2_147_483_587,
            1_073_741_827,
        ]
        .map(|m| Modulus::new(m).unwrap());
        let mut out = [0u32; 4];
        fill_inverses(&moduli, &mut out);
        for (i, mi) in moduli.iter().enumerate() {
            // (M / m_i) mod m_i, from the other moduli directly.
            let cof = moduli
                .iter()
                .enumerate()
                .filter(|&(j, _)| j != i)
                .fold(1u64, |c, (_, mj)| c * mj.m as u64 % mi.m as u64);
            assert_eq!(cof * out[i] as u64 % mi.m as u64, 1, "modulus {i}");
        }
        let mut one = [0u32; 1];
        fill_inverses(&moduli[..1], &mut one);
        assert_eq!(one, [1]);
    }
}
