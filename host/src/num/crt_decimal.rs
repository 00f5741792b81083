//! The CRT straight to decimal text, the CPU's way to print many large results without
//! building integers: the sum `Σ y_i·(M/m_i)` of [`super::crt_weights`] with the weights
//! in base-`10^4` digits instead of 16-bit halves (the same vector column sums), the
//! carries propagated in base `10^4`, then `t·M` taken off (`t = ⌊Σ y_i/m_i⌋`, estimated
//! in floating point and corrected exactly), the sign decided against `H`, and the
//! digits written. The redundant prime checks each value from its terms, before any
//! digit is written.

use super::basis::RnsBasis;
use super::crt::cofactor_terms_into;
use super::crt_weights::{column_sums, COLUMNS_IN_REGISTERS};
use super::decimal::join_text;
use crate::error::{Error, Result};
use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;
use std::cmp::Ordering;

/// The base of a digit.
const BASE: u64 = 10_000;

/// Digits a column sum's carry can add (`K·2^31·10^4 < 10^24` for `K ≤ 2^16`).
const SPARE: usize = 6;

/// A basis's tables for [`DecimalWeights::write`].
#[derive(Debug)]
pub struct DecimalWeights {
    /// Digits a weight row (whole blocks of the vector sums' registers).
    width: usize,
    /// Row `i`: `M/m_i` in base-`10^4` digits, least significant first.
    weights: Vec<u32>,
    /// `M` and `H = (M − 1)/2` in the digits of `M` and the sum's spare ones.
    m: Vec<u32>,
    half: Vec<u32>,
    /// `1/m_i` in floating point, for the estimate of `t`.
    inverses: Vec<f64>,
    /// `(M/m_i) mod q` and `M mod q` for the redundant prime `q`.
    weights_mod_q: Vec<u32>,
    m_mod_q: u32,
}

/// Buffers [`DecimalWeights::write`] reuses from one value to the next.
#[derive(Debug, Default)]
pub struct Scratch {
    y: Vec<u32>,
    columns: Vec<u64>,
    x: Vec<u32>,
    tm: Vec<u32>,
}

/// Base-`10^4` digits of `x ≥ 0` into `out` (zero-padded).
fn digits_into(x: &Integer, out: &mut [u32]) {
    let text = x.to_string_radix(10);
    let bytes = text.as_bytes();
    for (j, d) in out.iter_mut().enumerate() {
        let end = bytes.len().saturating_sub(4 * j);
        let start = end.saturating_sub(4);
        *d = bytes[start..end]
            .iter()
            .fold(0, |v, &b| v * 10 + (b - b'0') as u32);
    }
}

/// Compares digit arrays of one length from the top.
fn compare(a: &[u32], b: &[u32]) -> Ordering {
    a.iter().rev().cmp(b.iter().rev())
}

/// `a ← a + b` over the digits of `a`; returns the carry out of the top.
fn add(a: &mut [u32], b: &[u32]) -> u32 {
    let mut carry = 0;
    for (x, &y) in a.iter_mut().zip(b) {
        let t = *x + y + carry;
        carry = (t >= BASE as u32) as u32;
        *x = t - carry * BASE as u32;
    }
    carry
}

/// `a ← a − b` (`a ≥ b`).
fn sub(a: &mut [u32], b: &[u32]) {
    let mut borrow = 0;
    for (x, &y) in a.iter_mut().zip(b) {
        let t = *x as i32 - y as i32 - borrow;
        borrow = (t < 0) as i32;
        *x = (t + borrow * BASE as i32) as u32;
    }
}

impl DecimalWeights {
    /// The tables of `basis`'s range and redundant prime.
    pub fn new(basis: &RnsBasis) -> DecimalWeights {
        let (m, q) = (basis.product(), basis.redundant());
        let digits = ((m.significant_bits() as usize * 1233) >> 12) / 4 + 2;
        // Whole blocks of the vector sums' registers.
        let width = digits.div_ceil(COLUMNS_IN_REGISTERS) * COLUMNS_IN_REGISTERS;
        let range = basis.range_moduli();
        let mut weights = vec![0u32; range.len() * width];
        let mut weights_mod_q = Vec::with_capacity(range.len());
        for (row, mi) in weights.chunks_exact_mut(width).zip(range) {
            let w = Integer::from(m / mi.m);
            digits_into(&w, row);
            weights_mod_q.push(Integer::from(&w % q.m).to_u32().unwrap_or(0));
        }
        let len = digits + SPARE;
        let mut mm = vec![0u32; len];
        let mut half = vec![0u32; len];
        digits_into(m, &mut mm);
        digits_into(basis.half(), &mut half);
        DecimalWeights {
            width,
            inverses: range.iter().map(|m| 1.0 / m.m as f64).collect(),
            weights,
            m: mm,
            half,
            weights_mod_q,
            m_mod_q: Integer::from(m % q.m).to_u32().unwrap_or(0),
        }
    }

    /// Writes in decimal the signed value whose range residues are `residues` (`K`) and
    /// whose residue modulo the redundant prime is `redundant`; `false` (and nothing
    /// written) when they disagree: the value left the range.
    pub fn write(
        &self,
        basis: &RnsBasis,
        (residues, redundant): (&[u32], u32),
        out: &mut Vec<u8>,
        s: &mut Scratch,
    ) -> bool {
        let range = basis.range_moduli();
        let y = &mut s.y;
        cofactor_terms_into(residues, range, basis.crt_inverses(), y);
        s.columns.clear();
        s.columns.resize(self.width, 0);
        column_sums(&self.weights, self.width, y, &mut s.columns);
        // x = S − t·M with the carries, t = ⌊Σ y_i/m_i⌋ estimated, then corrected by
        // whole M's.
        let fraction: f64 = y
            .iter()
            .zip(&self.inverses)
            .map(|(&v, r)| v as f64 * r)
            .sum();
        let mut t = fraction.floor() as u64;
        let x = &mut s.x;
        x.clear();
        let mut carry = 0i64;
        for (j, &m) in self.m.iter().enumerate() {
            let v = s.columns.get(j).map_or(0, |&c| c as i64) - m as i64 * t as i64 + carry;
            let q = v.div_euclid(BASE as i64);
            x.push((v - q * BASE as i64) as u32);
            carry = q;
        }
        let mut borrow = carry;
        while borrow < 0 {
            borrow += add(x, &self.m) as i64;
            t -= 1;
        }
        while compare(x, &self.m) != Ordering::Less {
            sub(x, &self.m);
            t += 1;
        }
        let negative = compare(x, &self.half) == Ordering::Greater;
        if !self.agrees(basis.redundant(), y, (t, negative), redundant) {
            return false;
        }
        if negative {
            // |v| = M − x.
            s.tm.clear();
            s.tm.extend_from_slice(&self.m);
            sub(&mut s.tm, x);
            std::mem::swap(x, &mut s.tm);
            out.push(b'-');
        }
        // The top digit without leading zeros, then every other with all four (written
        // out here: `rns_core::decimal::write_digits`'s loop of divisions costs this hot
        // path about 8%).
        let top = x.iter().rposition(|&d| d != 0).unwrap_or(0);
        let first = x[top];
        let mut p = 1000;
        while p > 1 && first < p {
            p /= 10;
        }
        while p > 0 {
            out.push(b'0' + (first / p % 10) as u8);
            p /= 10;
        }
        for &d in x[..top].iter().rev() {
            out.extend_from_slice(&[
                b'0' + (d / 1000) as u8,
                b'0' + (d / 100 % 10) as u8,
                b'0' + (d / 10 % 10) as u8,
                b'0' + (d % 10) as u8,
            ]);
        }
        true
    }

    /// Whether the value `Σ y_i·(M/m_i) − t·M` (less `M` when `negative`) is
    /// `redundant` modulo `q`.
    fn agrees(&self, q: Modulus, y: &[u32], (t, negative): (u64, bool), redundant: u32) -> bool {
        let mut r = 0;
        for (&v, &w) in y.iter().zip(&self.weights_mod_q) {
            r = q.mul_add(q.reduce_u32(v), w, r);
        }
        let t = t + negative as u64;
        let tm = q.mul(q.reduce_u32((t % q.m as u64) as u32), self.m_mod_q);
        q.sub(r, tm) == redundant
    }
}

/// The text of `len` numbers given by their residues over `basis` (channel-major, the
/// redundant channel last): `prefix`, then the numbers, `cols` a line (a space between,
/// a newline after each line), the lines written by all cores.
/// [`Error::OutOfRange`] for the first number whose redundant residue disagrees.
pub fn matrix_text(
    basis: &RnsBasis,
    residues: &[u32],
    (len, cols): (usize, usize),
    prefix: &str,
) -> Result<String> {
    let k = basis.range_len();
    if residues.len() < (k + 1) * len || cols == 0 {
        return Err(Error::Internal(format!(
            "the text of {len} numbers from {} residues, {cols} a line",
            residues.len()
        )));
    }
    let table = basis.decimal_weights();
    let out_of_range = |index| Error::OutOfRange {
        index,
        range_bits: basis.range_bits(),
    };
    let lines: Vec<Result<String>> = (0..len.div_ceil(cols))
        .into_par_iter()
        .map(|row| {
            let mut s = Scratch::default();
            let mut line = Vec::with_capacity(cols * (4 * table.width + 2));
            let mut r = vec![0u32; k];
            for i in row * cols..((row + 1) * cols).min(len) {
                for (c, v) in r.iter_mut().enumerate() {
                    *v = residues[c * len + i];
                }
                if !table.write(basis, (&r, residues[k * len + i]), &mut line, &mut s) {
                    return Err(out_of_range(i));
                }
                line.push(if (i + 1) % cols == 0 { b'\n' } else { b' ' });
            }
            String::from_utf8(line).map_err(|_| Error::Internal("decimal text not ASCII".into()))
        })
        .collect();
    let parts = lines.into_iter().collect::<Result<Vec<String>>>()?;
    Ok(join_text(prefix, &parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::num::vector::RnsVec;
    use std::sync::Arc;

    /// Every value's text as rug writes it, over bases of 1 to 300 primes: the range's
    /// edges, the digits' boundaries of both signs, random values; and a value out of
    /// range refused.
    #[test]
    fn text_matches_rug() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        for bits in [10, 31, 62, 200, 2046, 9000] {
            let b = Arc::new(RnsBasis::for_bits(bits));
            let h = b.half().clone();
            let mut xs = vec![Integer::new(), Integer::from(1), Integer::from(-1)];
            xs.extend([
                h.clone(),
                -h.clone(),
                Integer::from(&h - 1u32),
                1 - h.clone(),
            ]);
            // The digits' boundaries: 10^(4j) and one less, both signs.
            let digits = h.to_string().len() as u32;
            for j in (0..digits).step_by(4) {
                let p = Integer::from(Integer::u_pow_u(10, j));
                xs.extend([p.clone(), -p.clone(), Integer::from(&p - 1u32), 1 - p]);
            }
            for _ in 0..200 {
                let r = Integer::from(next()) << (next() % (bits + 1)) as u32;
                xs.push(Integer::from(&r % &h) * if next() % 2 == 0 { 1 } else { -1 });
            }
            let v = RnsVec::from_integers(&b, &xs).unwrap();
            let (k, len) = (b.range_len(), xs.len());
            let table = DecimalWeights::new(&b);
            let mut scratch = Scratch::default();
            for (i, x) in xs.iter().enumerate() {
                let r: Vec<u32> = (0..k).map(|c| v.residues()[c * len + i]).collect();
                let red = v.residues()[k * len + i];
                let mut out = Vec::new();
                assert!(table.write(&b, (&r, red), &mut out, &mut scratch), "{x}");
                assert_eq!(
                    String::from_utf8(out).unwrap(),
                    x.to_string(),
                    "{bits} bits"
                );
                let q = b.redundant().m;
                let mut out = Vec::new();
                assert!(!table.write(&b, (&r, (red + 1) % q), &mut out, &mut scratch));
                assert!(out.is_empty());
            }
        }
    }
}
