//! Sign and comparison on the CPU: the interval pass of [`rns_core::interval`] over
//! blocks of numbers (channel by channel, so that the reads are sequential), then exact
//! mixed-radix conversion for the numbers it left undecided. The device runs the same
//! two steps (`gpu/order.rs`); both are exact, so their answers agree bit for bit.

use crate::num::basis::RnsBasis;
use rayon::prelude::*;
use rns_core::{interval, mixed_radix};
use std::cmp::Ordering;

/// Numbers per rayon task of the interval pass.
const BLOCK: usize = 1024;

/// `a[i]` against `b[i]`, or the sign of `a[i]` when `b` is `None`, for the `len`
/// numbers of the channel-major residues `a` and `b` (range channels first).
pub(crate) fn compare(basis: &RnsBasis, len: usize, a: &[u32], b: Option<&[u32]>) -> Vec<Ordering> {
    let range = basis.range_moduli();
    let t = basis.interval_tables();
    // The sum of 0 (that is, of H), where b starts for the sign; 0 where it is added up.
    let zero: u64 = match b {
        Some(_) => 0,
        None => (range.iter().enumerate())
            .map(|(c, &m)| interval::term(m, 0, t.half[c], t.coef[c], t.weights[c]))
            .fold(0, u64::wrapping_add),
    };
    let mut out = vec![Ordering::Equal; len];
    out.par_chunks_mut(BLOCK).enumerate().for_each(|(blk, o)| {
        let (start, n) = (blk * BLOCK, o.len());
        let (mut sa, mut sb) = ([0u64; BLOCK], [zero; BLOCK]);
        let mut equal = [true; BLOCK];
        for (c, &m) in range.iter().enumerate() {
            let (h, cf, w) = (t.half[c], t.coef[c], t.weights[c]);
            let ra = &a[c * len + start..][..n];
            for (j, &r) in ra.iter().enumerate() {
                sa[j] = sa[j].wrapping_add(interval::term(m, r, h, cf, w));
            }
            match b {
                Some(b) => {
                    let rb = &b[c * len + start..][..n];
                    for (j, (&x, &y)) in ra.iter().zip(rb).enumerate() {
                        sb[j] = sb[j].wrapping_add(interval::term(m, y, h, cf, w));
                        equal[j] &= x == y;
                    }
                }
                None => ra.iter().zip(&mut equal).for_each(|(&x, e)| *e &= x == 0),
            }
        }
        for (j, o) in o.iter_mut().enumerate() {
            *o = match interval::decide(sa[j], sb[j], equal[j], t.slack) {
                interval::LESS => Ordering::Less,
                interval::EQUAL => Ordering::Equal,
                interval::GREATER => Ordering::Greater,
                _ => exact(basis, len, start + j, a, b),
            };
        }
    });
    out
}

/// The exact comparison of number `i`: the mixed-radix digits of `a[i] + H` against those
/// of `b[i] + H` (or of `H`, for the sign).
fn exact(basis: &RnsBasis, len: usize, i: usize, a: &[u32], b: Option<&[u32]>) -> Ordering {
    let (range, table, half) = (
        basis.range_moduli(),
        basis.mr_table(),
        &basis.interval_tables().half,
    );
    let digits = |x: &[u32]| {
        let mut d: Vec<u32> = (range.iter().enumerate())
            .map(|(c, m)| m.add(x[c * len + i], half[c]))
            .collect();
        mixed_radix::to_digits(&mut d, range, table);
        d
    };
    let da = digits(a);
    match b {
        Some(b) => mixed_radix::cmp_digits(&da, &digits(b)),
        None => mixed_radix::cmp_digits(&da, basis.half_digits()),
    }
}
