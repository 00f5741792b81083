//! Decimal text of numbers given by their mixed-radix digits, without binary limbs:
//! [`crate::limbs::signed_magnitude`] in base `10^9` gives a number's chunks of nine
//! digits, least significant first; [`text_len`] and [`chunk_place`] lay its text out
//! (`-`, the top chunk without leading zeros, then every other chunk with all nine), so
//! that each chunk is written on its own ([`write_digits`]). The way in:
//! [`words_of_digits`] reads decimal digits into binary words, nine digits a step.
//! Written once for the CPU and for the GPU, where a thread writes one chunk or reads
//! one number.

use crate::limbs::{Base, Limbs};

/// The base of a chunk.
pub const CHUNK_BASE: u32 = 1_000_000_000;
/// Decimal digits of a full chunk.
pub const CHUNK_DIGITS: usize = 9;

/// The base `10^9`: chunks of nine decimal digits.
pub struct Decimal;

impl Base for Decimal {
    #[inline(always)]
    fn split(t: u64) -> (u32, u64) {
        let q = t / CHUNK_BASE as u64;
        ((t - q * CHUNK_BASE as u64) as u32, q)
    }
    #[inline(always)]
    fn inc(x: u32) -> (u32, bool) {
        if x + 1 == CHUNK_BASE {
            (0, true)
        } else {
            (x + 1, false)
        }
    }
}

/// Decimal digits of `x` (1 for 0).
#[inline(always)]
pub fn digits_of(x: u32) -> usize {
    let mut d = 1;
    let mut p = 10u64;
    while d < 10 && x as u64 >= p {
        d += 1;
        p *= 10;
    }
    d
}

/// Bytes of the text of a number whose magnitude has `used` chunks (0 for zero), the top
/// one `top`: the sign, then the digits.
#[inline(always)]
pub fn text_len(negative: bool, used: usize, top: u32) -> usize {
    let digits = match used {
        0 => 1,
        u => CHUNK_DIGITS * (u - 1) + digits_of(top),
    };
    negative as usize + digits
}

/// Chunks of the number whose text has `len` bytes (at least one, the zero chunk of 0).
#[inline(always)]
pub fn chunks_of(negative: bool, len: usize) -> usize {
    (len - negative as usize - 1) / CHUNK_DIGITS + 1
}

/// Where chunk `j` of a number with `len` bytes of text goes: its first byte and its
/// digits (the top chunk after the sign and without leading zeros, the others nine).
#[inline(always)]
pub fn chunk_place(negative: bool, len: usize, j: usize) -> (usize, usize) {
    let chunks = chunks_of(negative, len);
    if j + 1 == chunks {
        let at = negative as usize;
        (at, len - at - CHUNK_DIGITS * j)
    } else {
        (len - CHUNK_DIGITS * (j + 1), CHUNK_DIGITS)
    }
}

/// Writes the last `width` decimal digits of `x` (zero-padded) through `put(i, byte)`,
/// `i < width` from the most significant.
#[inline(always)]
pub fn write_digits(mut x: u32, width: usize, mut put: impl FnMut(usize, u8)) {
    let mut i = width;
    while i > 0 {
        i -= 1;
        put(i, b'0' + (x % 10) as u8);
        x /= 10;
    }
}

/// Reads the `nd` ASCII digits `digit(0..nd)` (most significant first, checked by the
/// caller) into 32-bit words `0..used` of `out`, least significant first, by Horner's
/// rule on chunks of nine digits (the first the short one), and returns `used` (0 for
/// zero) and the value's bits. `n` words must hold the value; a larger one never writes
/// past `n` but is wrong.
#[inline(always)]
pub fn words_of_digits<L: Limbs + ?Sized>(
    nd: usize,
    digit: impl Fn(usize) -> u8,
    out: &mut L,
    n: usize,
) -> (usize, u32) {
    let mut used = 0;
    let mut at = 0;
    let mut width = match nd % CHUNK_DIGITS {
        0 => CHUNK_DIGITS,
        r => r,
    };
    while at < nd {
        let (mut chunk, mut scale) = (0u32, 1u64);
        let mut d = 0;
        while d < width {
            chunk = chunk * 10 + (digit(at + d) - b'0') as u32;
            scale *= 10;
            d += 1;
        }
        let mut carry = chunk as u64;
        let mut j = 0;
        while j < used {
            let t = out.get(j) as u64 * scale + carry;
            out.set(j, t as u32);
            carry = t >> 32;
            j += 1;
        }
        if carry != 0 && used < n {
            out.set(used, carry as u32);
            used += 1;
        }
        at += width;
        width = CHUNK_DIGITS;
    }
    let bits = match used {
        0 => 0,
        u => 32 * u as u32 - out.get(u - 1).leading_zeros(),
    };
    (used, bits)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::limbs::signed_magnitude;
    use crate::mixed_radix::{fill_half_digits, fill_table, to_digits};
    use crate::Modulus;
    use std::string::{String, ToString};
    use std::vec;

    const PRIMES: [u32; 4] = [2_147_483_647, 2_147_483_629, 2_147_483_587, 1_073_741_827];

    /// The text of the signed value of `x ∈ [0, M)` by the functions above.
    fn text_of(x: u128, moduli: &[Modulus]) -> String {
        let k = moduli.len();
        let mut table = [0u32; 16];
        fill_table(moduli, &mut table[..k * k]);
        let mut half = [0u32; 4];
        fill_half_digits(moduli, &table[..k * k], &mut half[..k]);
        let mut d = [0u32; 4];
        for (di, m) in d.iter_mut().zip(moduli) {
            *di = (x % m.m as u128) as u32;
        }
        to_digits(&mut d[..k], moduli, &table[..k * k]);
        let mut chunks = [0u32; 6];
        let (neg, used) = signed_magnitude::<Decimal, _>(
            k,
            |i| d[i],
            |i| moduli[i],
            |i| half[i],
            &mut chunks[..],
            5,
        );
        assert_eq!(chunks[5], 0, "wrote past the chunks");
        let top = if used == 0 { 0 } else { chunks[used - 1] };
        let len = text_len(neg, used, top);
        let mut text = vec![b'?'; len];
        if neg {
            text[0] = b'-';
        }
        for (j, &c) in chunks.iter().enumerate().take(chunks_of(neg, len)) {
            let (at, width) = chunk_place(neg, len, j);
            write_digits(c, width, |i, b| text[at + i] = b);
        }
        String::from_utf8(text).unwrap()
    }

    #[test]
    fn text_at_the_edges_of_the_range_and_of_the_chunks() {
        for k in 1..=4 {
            let moduli: [Modulus; 4] = PRIMES.map(Modulus::new_unchecked);
            let moduli = &moduli[..k];
            let big_m: u128 = moduli.iter().map(|m| m.m as u128).product();
            let h = (big_m - 1) / 2;
            let signed = |x: u128| {
                if x > h {
                    "-".to_string() + &(big_m - x).to_string()
                } else {
                    x.to_string()
                }
            };
            let mut xs = vec![0, 1, 2, 9, 10, h - 1, h, h + 1, h + 2, big_m - 2, big_m - 1];
            // Powers of ten and their neighbours, both signs: the chunks' boundaries.
            let mut p = 1u128;
            while p < h {
                for x in [p - 1, p, p + 1] {
                    xs.extend([x, big_m - x]);
                }
                p *= 10;
            }
            let mut s = 0x9e37_79b9_7f4a_7c15u128;
            for _ in 0..200 {
                s = s
                    .wrapping_mul(0x2545_f491_4f6c_dd1d)
                    .wrapping_add(0x1234_5678_9abc);
                xs.push((s >> 7) % big_m);
            }
            for x in xs {
                assert_eq!(text_of(x % big_m, moduli), signed(x % big_m), "x = {x}");
            }
        }
    }

    #[test]
    fn words_of_digits_of_every_length() {
        let mut xs: std::vec::Vec<u128> = std::vec![0, 1, 9, 10, u128::MAX, u128::MAX - 1];
        let mut p = 1u128;
        for _ in 0..38 {
            xs.extend([p - 1, p, p + 1]);
            p *= 10;
        }
        for e in 0..128 {
            xs.extend([(1u128 << e) - 1, 1u128 << e]);
        }
        for x in xs {
            let text = x.to_string();
            // Leading zeros read as the same value.
            for t in [text.clone(), std::format!("000{text}")] {
                let mut out = [0xdead_beefu32; 5];
                let (used, bits) = words_of_digits(t.len(), |i| t.as_bytes()[i], &mut out[..], 4);
                let got = out[..used]
                    .iter()
                    .rev()
                    .fold(0u128, |a, &w| (a << 32) | w as u128);
                assert_eq!(got, x, "{t}");
                assert_eq!(bits, 128 - x.leading_zeros(), "{t}");
                assert_eq!(out[used], 0xdead_beef, "{t}: wrote past the value");
            }
        }
    }

    #[test]
    fn digits_of_every_length() {
        let mut p = 1u32;
        for d in 1..=9 {
            assert_eq!(digits_of(p), d);
            assert_eq!(digits_of(p * 10 - 1), d);
            p = p.saturating_mul(10);
        }
        assert_eq!(digits_of(0), 1);
        assert_eq!(digits_of(u32::MAX), 10);
    }
}
