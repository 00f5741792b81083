//! The CRT sum `Σ y_i·(M/m_i)` of [`CrtMethod::Weights`](super::crt::CrtMethod::Weights)
//! as one vector product: each weight `M/m_i` is kept in 16-bit halves, so that
//! `y_i·half < 2^48` and the sum of a column over up to `2^16 − 1` primes fits 64 bits
//! (more primes go in several such sums); the columns are summed eight lanes at a time (one AVX-512 register each), then
//! their carries are propagated once. GMP's way, one `mpz_addmul_ui` per prime, walks
//! the whole sum once per prime.

use super::multimod_table::split_halves;
use rug::integer::Order;
use rug::Integer;

/// Halves summed per register (the 64-bit lanes of an AVX-512 register).
const LANES: usize = 8;

/// Rows whose products one 64-bit column holds: `(2^16 − 1)·(2^32 − 1)·(2^16 − 1) < 2^64`.
const ROWS_PER_SUM: usize = (1 << 16) - 1;

/// Columns of the sum kept in registers while the primes go by: 8 registers.
pub(super) const COLUMNS_IN_REGISTERS: usize = 8 * LANES;

/// The weights `M/m_i` of a basis in 16-bit halves: row `i` holds weight `i`'s
/// `width` halves (least significant first, zero-padded to a multiple of eight).
#[derive(Debug)]
pub struct WeightHalves {
    width: usize,
    halves: Vec<u32>,
}

impl WeightHalves {
    /// The halves of `weights` (non-negative).
    pub fn new(weights: &[Integer]) -> WeightHalves {
        let limbs = weights
            .iter()
            .map(|w| w.as_limbs().len())
            .max()
            .unwrap_or(0);
        let width = (4 * limbs).div_ceil(LANES).max(1) * LANES;
        let mut halves = vec![0u32; weights.len() * width];
        for (row, w) in halves.chunks_exact_mut(width).zip(weights) {
            split_halves(w.as_limbs(), row);
        }
        WeightHalves { width, halves }
    }

    /// `Σ y_i·w_i` over the first `y.len()` weights (each `y_i < 2^32`).
    pub fn sum(&self, y: &[u32]) -> Integer {
        let rows = y.len().min(self.halves.len() / self.width);
        (0..rows)
            .step_by(ROWS_PER_SUM)
            .map(|r0| {
                let part = &y[r0..(r0 + ROWS_PER_SUM).min(rows)];
                self.rows_sum(&self.halves[r0 * self.width..], part)
            })
            .sum()
    }

    /// `Σ y_i·w_i` for the rows of `halves` (at most [`ROWS_PER_SUM`]): the columns'
    /// sums, then their carries.
    fn rows_sum(&self, halves: &[u32], y: &[u32]) -> Integer {
        let mut columns = vec![0u64; self.width];
        column_sums(halves, self.width, y, &mut columns);
        let mut limbs = vec![0u64; self.width / 4 + 2];
        let mut carry = 0u128;
        for (j, &c) in columns.iter().enumerate() {
            let t = c as u128 + carry;
            limbs[j / 4] |= ((t & 0xffff) as u64) << (16 * (j % 4));
            carry = t >> 16;
        }
        let top = self.width / 4;
        limbs[top] = carry as u64;
        limbs[top + 1] = (carry >> 64) as u64;
        Integer::from_digits(&limbs, Order::Lsf)
    }
}

/// `columns[j] = Σ_i y_i · halves[i·width + j]`. Compiled twice: for AVX-512 when the CPU
/// has it (a block of columns in registers while every prime goes by) and for the
/// baseline.
pub(super) fn column_sums(halves: &[u32], width: usize, y: &[u32], columns: &mut [u64]) {
    #[inline(always)]
    fn body(halves: &[u32], width: usize, y: &[u32], columns: &mut [u64]) {
        for (&v, row) in y.iter().zip(halves.chunks_exact(width)) {
            for (c, &h) in columns.iter_mut().zip(row) {
                *c += v as u64 * h as u64;
            }
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        /// Columns `j0 … j0 + 63` in eight registers, each prime's halves loaded
        /// widened to 64-bit lanes, multiplied by the broadcast `y_i` and added.
        #[target_feature(enable = "avx512f")]
        unsafe fn avx512(halves: &[u32], width: usize, y: &[u32], columns: &mut [u64]) {
            use std::arch::x86_64::*;
            let rows = y.len().min(halves.len() / width);
            let mut j0 = 0;
            while j0 + COLUMNS_IN_REGISTERS <= width {
                let mut acc = [_mm512_setzero_si512(); COLUMNS_IN_REGISTERS / LANES];
                for (i, &v) in y.iter().enumerate().take(rows) {
                    let yv = _mm512_set1_epi64(v as i64);
                    let row = halves[i * width + j0..].as_ptr();
                    for (r, a) in acc.iter_mut().enumerate() {
                        // SAFETY: row has COLUMNS_IN_REGISTERS halves from j0 (j0 + 64 ≤ width).
                        let h = unsafe { _mm256_loadu_si256(row.add(r * LANES).cast()) };
                        *a = _mm512_add_epi64(*a, _mm512_mul_epu32(_mm512_cvtepu32_epi64(h), yv));
                    }
                }
                for (r, a) in acc.iter().enumerate() {
                    // SAFETY: columns has width ≥ j0 + 64 entries.
                    unsafe {
                        _mm512_storeu_si512(columns[j0 + r * LANES..].as_mut_ptr().cast(), *a)
                    };
                }
                j0 += COLUMNS_IN_REGISTERS;
            }
            // The last columns (fewer than 64) the plain way.
            for (&v, row) in y.iter().zip(halves.chunks_exact(width)) {
                for (c, &h) in columns[j0..].iter_mut().zip(&row[j0..]) {
                    *c += v as u64 * h as u64;
                }
            }
        }
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F.
            return unsafe { avx512(halves, width, y, columns) };
        }
    }
    body(halves, width, y, columns)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against rug's sum of products, for 1 to 300 weights of up to 9600 bits and 70 000
    /// of 100 bits (more than one column sum holds), with the largest `y_i` (`2^32 − 1`)
    /// and random ones, widths on both sides of a register block (64 halves).
    #[test]
    fn sums_match_rug() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        // The last: more weights than one column sum holds.
        for (k, bits) in [
            (1, 10),
            (3, 1000),
            (66, 2046),
            (70, 4096),
            (300, 9600),
            (70_000, 100),
        ] {
            let weights: Vec<Integer> = (0..k)
                .map(|i| (Integer::from(1) << bits) - 1u32 - i as u32 % 1000 * 977)
                .collect();
            let table = WeightHalves::new(&weights);
            for all_ones in [true, false] {
                let y: Vec<u32> = (0..k)
                    .map(|_| if all_ones { u32::MAX } else { next() as u32 })
                    .collect();
                let want: Integer = weights
                    .iter()
                    .zip(&y)
                    .map(|(w, &v)| Integer::from(w * v))
                    .sum();
                assert_eq!(table.sum(&y), want, "{k} weights of {bits} bits");
            }
        }
    }
}
