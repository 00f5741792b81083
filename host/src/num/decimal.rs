//! Decimal text of big integers, both ways, without GMP's string buffers: tokens of up to
//! [`HORNER_MAX_DIGITS`] digits are read into limbs by Horner's rule on chunks of 19
//! digits (GMP's own basecase, minus rug's copy of the digits), longer ones by GMP's
//! subquadratic conversion; GMP writes digits straight into the caller's text. A
//! token's [`Span`] keeps its place in the text for a reader that converts it later (the
//! device, or [`Span::value`]).

use gmp_mpfr_sys::gmp;
use rayon::prelude::*;
use rug::integer::Order;
use rug::Integer;
use std::ffi::CStr;
use std::fmt::Write as _;

/// Digits read by Horner's rule (quadratic; on dev it beats GMP's conversion up to about
/// 7000 digits); longer tokens go to GMP.
pub const HORNER_MAX_DIGITS: usize = 4800;

/// Digits of a chunk: 10^19 < 2^64.
const CHUNK: usize = 19;

/// The value of `digits` (ASCII decimal digits only, which the caller has checked),
/// negated when `neg`.
pub fn parse_digits(digits: &[u8], neg: bool) -> Integer {
    debug_assert!(digits.iter().all(u8::is_ascii_digit));
    let x = if digits.len() <= HORNER_MAX_DIGITS {
        horner(digits)
    } else {
        // Only ASCII digits: valid UTF-8, and a valid number for GMP.
        let s = std::str::from_utf8(digits).unwrap_or("0");
        Integer::from_str_radix(s, 10).unwrap_or_default()
    };
    if neg {
        -x
    } else {
        x
    }
}

/// `digits` by Horner's rule on chunks of 19 digits: limbs `l ← l · 10^19 + chunk`, the
/// first chunk the short one.
fn horner(digits: &[u8]) -> Integer {
    const BASE: u64 = 10_000_000_000_000_000_000;
    let value = |chunk: &[u8]| chunk.iter().fold(0u64, |v, &d| v * 10 + (d - b'0') as u64);
    let first = match digits.len() % CHUNK {
        0 => CHUNK.min(digits.len()),
        r => r,
    };
    // 10^19 < 2^64: a limb per chunk bounds the value.
    let mut limbs = Vec::with_capacity(digits.len() / CHUNK + 2);
    limbs.push(value(&digits[..first]));
    for chunk in digits[first..].chunks_exact(CHUNK) {
        let mut carry = value(chunk) as u128;
        for l in limbs.iter_mut() {
            let t = *l as u128 * BASE as u128 + carry;
            *l = t as u64;
            carry = t >> 64;
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
    }
    Integer::from_digits(&limbs, Order::Lsf)
}

/// The sign and the digits of a decimal integer token: an optional `-`, then ASCII
/// digits, nothing else (`None` for any other token).
pub fn split_token(token: &str) -> Option<(bool, &str)> {
    let (neg, digits) = match token.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, token),
    };
    (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())).then_some((neg, digits))
}

/// Where a decimal integer token lies in its text: its first digit's byte, its digits
/// and its sign.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// Byte offset of the first digit.
    pub at: u64,
    /// Decimal digits.
    pub digits: u64,
    /// Whether a `-` came before them.
    pub neg: bool,
}

/// A text and the places of its numbers in it.
pub type Located<'a> = (&'a str, &'a [Span]);

impl Span {
    /// The span of `token`, a slice of `text`, when it is a decimal integer as
    /// [`crate::mat::matrix::parse_integer`] reads one: an optional `-`, then ASCII digits.
    pub fn of(text: &str, token: &str) -> Option<Span> {
        let (neg, digits) = split_token(token)?;
        let at = digits.as_ptr() as usize - text.as_ptr() as usize;
        Some(Span {
            at: at as u64,
            digits: digits.len() as u64,
            neg,
        })
    }

    /// Its value in `text` (the text it was taken from).
    pub fn value(&self, text: &str) -> Integer {
        let at = self.at as usize;
        parse_digits(&text.as_bytes()[at..at + self.digits as usize], self.neg)
    }
}

/// Writes `x` in decimal: machine integers without GMP's string conversion, larger ones
/// by GMP straight into `out` (no string of their own).
pub fn write_integer(out: &mut String, x: &Integer) {
    if let Some(v) = x.to_i64() {
        let _ = write!(out, "{v}");
        return;
    }
    let raw = x.as_raw();
    // SAFETY: `raw` is a valid mpz for the call. GMP's digit count may exceed the true
    // one by one; with the sign and the terminating NUL, `need` bytes suffice for
    // `mpz_get_str`, which writes ASCII digits (and `-`) then a NUL into the reserved
    // spare capacity. Only the bytes before the NUL join the string: it stays UTF-8.
    unsafe {
        let need = gmp::mpz_sizeinbase(raw, 10) + 2;
        let bytes = out.as_mut_vec();
        bytes.reserve(need);
        let at = bytes.as_mut_ptr().add(bytes.len());
        gmp::mpz_get_str(at.cast(), 10, raw);
        let len = CStr::from_ptr(at.cast()).to_bytes().len();
        bytes.set_len(bytes.len() + len);
    }
}

/// Bytes that bound `x` in decimal with its sign and a separator (log10 2 < 1233/4096).
pub fn decimal_width(x: &Integer) -> usize {
    ((x.significant_bits() as usize * 1233) >> 12) + 3
}

/// `head`, then the strings one after another, copied by all cores into a buffer that
/// the system zeroes on first touch (a large text copied by one core costs about as much
/// as writing it).
pub fn join_text(head: &str, parts: &[String]) -> String {
    let total = head.len() + parts.iter().map(String::len).sum::<usize>();
    let mut bytes = vec![0u8; total];
    let (first, mut rest) = bytes.split_at_mut(head.len());
    first.copy_from_slice(head.as_bytes());
    let mut pieces = Vec::with_capacity(parts.len());
    for p in parts {
        let (piece, tail) = rest.split_at_mut(p.len());
        pieces.push(piece);
        rest = tail;
    }
    pieces
        .into_par_iter()
        .zip(parts)
        .for_each(|(piece, p)| piece.copy_from_slice(p.as_bytes()));
    // SAFETY: the bytes are the UTF-8 strings `head` and `parts`, whole, in order.
    unsafe { String::from_utf8_unchecked(bytes) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every length around the chunk size and the switch to GMP, digits of all nines
    /// (the largest carries), leading zeros and random digits read as GMP reads them.
    #[test]
    fn digits_read_as_gmp_reads_them() {
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u8 % 10
        };
        let lengths = (1..=80).chain([152, 171, 190, 302, 605, 4799, 4800, 4801, 9000]);
        for len in lengths {
            let random: Vec<u8> = (0..len).map(|_| b'0' + next()).collect();
            let nines = vec![b'9'; len];
            let mut zeros = vec![b'0'; len];
            zeros[len - 1] = b'7';
            for digits in [random, nines, zeros] {
                let text = std::str::from_utf8(&digits).unwrap();
                let want = Integer::from_str_radix(text, 10).unwrap();
                assert_eq!(parse_digits(&digits, false), want, "{text}");
                assert_eq!(parse_digits(&digits, true), -want, "-{text}");
            }
        }
    }
}
