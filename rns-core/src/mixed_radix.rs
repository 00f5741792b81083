//! Mixed-radix conversion (MRC): the digits `d_i` with
//! `x = d_0 + d_1·m_0 + d_2·m_0·m_1 + … + d_{K−1}·m_0⋯m_{K−2}`, `0 ≤ d_i < m_i`,
//! computed from the residues of `x` without big integers, and the sign test of
//! the signed range `[−(M−1)/2, (M−1)/2]` by comparison with the digits of `(M−1)/2`.
//!
//! Step `i` fixes digit `i` and updates every later channel with [`step`]; the
//! GPU runs the channels of one step in parallel, the CPU in a loop.

use crate::modulus::Modulus;
use core::cmp::Ordering;

/// Fills the `K × K` row-major table with `table[i·K + j] = m_i^(−1) mod m_j`
/// for `i < j` (other entries 0). The moduli must be distinct primes.
pub fn fill_table(moduli: &[Modulus], table: &mut [u32]) {
    let k = moduli.len();
    assert_eq!(table.len(), k * k, "mixed-radix table must be K×K");
    for (i, mi) in moduli.iter().enumerate() {
        for (j, mj) in moduli.iter().enumerate() {
            table[i * k + j] = if i < j {
                mj.inv(mi.m).expect("moduli must be distinct primes")
            } else {
                0
            };
        }
    }
}

/// One MRC update of channel `j` after digit `d_i` is fixed:
/// `x_j ← (x_j − d_i) · m_i^(−1) mod m_j`, with `inv_mi = m_i^(−1) mod m_j`. A digit
/// is below `2·m_j` (`d_i < m_i < 2^31 < 2·m_j`), so one conditional subtraction
/// reduces it.
#[inline(always)]
pub fn step(mj: Modulus, xj: u32, di: u32, inv_mi: u32) -> u32 {
    debug_assert!(di < 1 << 31);
    let r = di.wrapping_sub(mj.m);
    let d = if r < di { r } else { di };
    mj.mul(mj.sub(xj, d), inv_mi)
}

/// Turns the residues `x` (one per modulus) into mixed-radix digits, in place.
pub fn to_digits(x: &mut [u32], moduli: &[Modulus], table: &[u32]) {
    let k = moduli.len();
    for i in 0..k {
        let di = x[i];
        let row = &table[i * k..(i + 1) * k];
        for j in i + 1..k {
            x[j] = step(moduli[j], x[j], di, row[j]);
        }
    }
}

/// Writes the mixed-radix digits of `H = (M − 1)/2`, the largest non-negative
/// value of the signed range (M is odd). Its residues are `(m_j − 1)/2`.
pub fn fill_half_digits(moduli: &[Modulus], table: &[u32], out: &mut [u32]) {
    for (o, m) in out.iter_mut().zip(moduli) {
        *o = (m.m - 1) / 2;
    }
    to_digits(out, moduli, table);
}

/// Compares two numbers given by their mixed-radix digits in the same radix.
/// The most significant digit is the last; the first difference from the top decides.
#[inline]
pub fn cmp_digits(a: &[u32], b: &[u32]) -> Ordering {
    for (x, y) in a.iter().rev().zip(b.iter().rev()) {
        if x != y {
            return x.cmp(y);
        }
    }
    Ordering::Equal
}

/// Whether the number with these digits is negative in the signed range,
/// that is, larger than `(M − 1)/2` whose digits are `half`.
#[inline]
pub fn is_negative(digits: &[u32], half: &[u32]) -> bool {
    let k = digits.len().min(half.len());
    crate::limbs::is_negative(k, |i| digits[i], |i| half[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_of_small_numbers() {
        let moduli = [2_147_483_647u32, 2_147_483_629, 2_147_483_587].map(Modulus::new_unchecked);
        let mut table = [0u32; 9];
        fill_table(&moduli, &mut table);
        // x = 5 + 7·m0 + 3·m0·m1 as u128
        let (m0, m1) = (moduli[0].m as u128, moduli[1].m as u128);
        let x: u128 = 5 + 7 * m0 + 3 * m0 * m1;
        let mut r = moduli.map(|m| (x % m.m as u128) as u32);
        to_digits(&mut r, &moduli, &table);
        assert_eq!(r, [5, 7, 3]);
        let mut half = [0u32; 3];
        fill_half_digits(&moduli, &table, &mut half);
        assert!(!is_negative(&r, &half));
        assert!(is_negative(&[0, 0, moduli[2].m - 1], &half));
    }

    #[test]
    fn a_step_reduces_any_digit_below_2_to_the_31() {
        // Digits of the largest modulus into the smallest, and the other way.
        let small = Modulus::new_unchecked(1_073_741_827);
        let large = Modulus::new_unchecked(2_147_483_647);
        for (mj, mi) in [(small, large), (large, small)] {
            let w = mj.inv(mi.m).unwrap();
            for xj in [0, 1, mj.m - 1] {
                for di in [0, 1, mj.m - 1, mj.m, mi.m - 1] {
                    let want = ((xj as i64 - (di % mj.m) as i64).rem_euclid(mj.m as i64) as u64
                        * w as u64)
                        % mj.m as u64;
                    assert_eq!(step(mj, xj, di, w) as u64, want, "x {xj} d {di}");
                }
            }
        }
    }

    #[test]
    fn the_sign_changes_between_half_and_half_plus_one() {
        let moduli = [2_147_483_647u32, 2_147_483_629, 1_073_741_827].map(Modulus::new_unchecked);
        let mut table = [0u32; 9];
        fill_table(&moduli, &mut table);
        let mut half = [0u32; 3];
        fill_half_digits(&moduli, &table, &mut half);
        let big_m: u128 = moduli.iter().map(|m| m.m as u128).product();
        let h = (big_m - 1) / 2;
        for (x, negative) in [
            (0, false),
            (1, false),
            (h - 1, false),
            (h, false),
            (h + 1, true),
            (big_m - 1, true),
        ] {
            let mut d = moduli.map(|m| (x % m.m as u128) as u32);
            to_digits(&mut d, &moduli, &table);
            assert_eq!(is_negative(&d, &half), negative, "x = {x}");
        }
    }
}
