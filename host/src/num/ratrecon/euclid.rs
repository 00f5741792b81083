//! Euclid's remainder sequence with Lehmer's blocks: while the remainders are far above
//! where the steps stop, the quotients are found from the numbers' leading 62 bits in
//! single precision (Knuth's Algorithm L, each block checked so that every quotient is
//! exact) and applied to the big numbers at once; the last steps are plain Euclid.

use rug::{Assign, Integer};

/// Euclid's steps on `r = (r0, r1)`, `r0 > r1 ≥ 0`, and alike on each of `pairs` (the
/// cofactors: a step `(r0, r1) ← (r1, r0 − q·r1)` does the same to each pair), while
/// `go(r1)`; Lehmer's blocks (which may take up to about 62 bits of steps at once)
/// only while `r1` has more than `block_above` bits.
pub(super) fn steps(
    r: &mut [Integer; 2],
    pairs: &mut [[Integer; 2]],
    block_above: u32,
    go: impl Fn(&Integer) -> bool,
) {
    let (mut q, mut t) = (Integer::new(), Integer::new());
    while go(&r[1]) && r[1] != 0 {
        let block = if r[1].significant_bits() > block_above {
            lehmer_block(&r[0], &r[1])
        } else {
            None
        };
        match block {
            Some(m) => {
                combine(r, m, &mut t);
                for pair in pairs.iter_mut() {
                    combine(pair, m, &mut t);
                }
            }
            None => {
                q.assign(&r[0] / &r[1]); // both positive: the floor
                step(r, &q, &mut t);
                for pair in pairs.iter_mut() {
                    step(pair, &q, &mut t);
                }
            }
        }
    }
}

/// `(x, y) ← (y, x − q·y)`.
fn step(v: &mut [Integer; 2], q: &Integer, t: &mut Integer) {
    t.assign(q * &v[1]);
    v[0] -= &*t;
    v.swap(0, 1);
}

/// `(x, y) ← (a·x + b·y, c·x + d·y)` for `m = [a, b, c, d]`.
fn combine(v: &mut [Integer; 2], [a, b, c, d]: [i64; 4], t: &mut Integer) {
    let [x, y] = v;
    t.assign(&*x * a);
    *t += &*y * b;
    *y *= d;
    *y += &*x * c;
    std::mem::swap(x, t);
}

/// The matrix `[a, b, c, d]` of several Euclidean steps on `(x, y)`, `x > y`, found
/// from their leading 62 bits (Knuth's Algorithm L: a quotient is taken only when both
/// ends of its interval give it, so every step is the exact one); `None` when not even
/// one step is certain.
fn lehmer_block(x: &Integer, y: &Integer) -> Option<[i64; 4]> {
    let shift = x.significant_bits().saturating_sub(62);
    let mut xh = Integer::from(x >> shift).to_i128()?;
    let mut yh = Integer::from(y >> shift).to_i128()?;
    let (mut a, mut b, mut c, mut d) = (1i128, 0i128, 0i128, 1i128);
    loop {
        if yh + c == 0 || yh + d == 0 {
            break;
        }
        let q = (xh + a) / (yh + c);
        if q != (xh + b) / (yh + d) {
            break;
        }
        (a, c) = (c, a - q * c);
        (b, d) = (d, b - q * d);
        (xh, yh) = (yh, xh - q * yh);
    }
    if b == 0 {
        return None;
    }
    Some([a as i64, b as i64, c as i64, d as i64])
}
