//! Constants of the Chinese remainder theorem that need no big integers.

use crate::modulus::Modulus;

/// Writes `out[i] = (M / m_i)^(−1) mod m_i`, where `M` is the product of all moduli.
/// With it, `x = Σ_i ((x_i · out[i]) mod m_i) · (M / m_i)  (mod M)`.
/// The moduli must be distinct primes.
pub fn fill_inverses(moduli: &[Modulus], out: &mut [u32]) {
    assert_eq!(out.len(), moduli.len(), "one inverse per modulus");
    for (i, mi) in moduli.iter().enumerate() {
        let mut prod = 1u32;
        for (j, mj) in moduli.iter().enumerate() {
            if i != j {
                prod = mi.mul(prod, mi.reduce_u32(mj.m));
            }
        }
        out[i] = mi.inv(prod).expect("moduli must be distinct primes");
    }
}
