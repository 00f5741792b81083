//! Throughput probes for the roofline (`examples/roofline`): independent chains of one
//! hot kernel's inner step a thread, no memory traffic but one read and one write a
//! number, so each measures the rate its units can issue that step at.

use super::channel_loop;
use rns_core::euclid_redc::{inv_mod_two32, redc_coefficient};
use rns_core::modulus::mad_wide;
use rns_core::Modulus;

/// Throughput probe: four independent chains of `iters` canonical `mul_m` per thread,
/// unrolled by four (as nvcc unrolls the CUDA C reference; `iters` is a multiple of 4).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_mul_chain(
    out: *mut u32,
    a: *const u32,
    moduli: *const Modulus,
    len: u32,
    iters: u32,
) {
    channel_loop(len, |ch, k| {
        let m = *moduli.add(ch);
        let y = *a.add(k);
        let (mut x0, mut x1, mut x2, mut x3) = (y, m.add(y, 1), m.add(y, 2), m.add(y, 3));
        let mut t = 0;
        while t < iters {
            let mut u = 0;
            while u < 4 {
                x0 = m.mul(x0, y);
                x1 = m.mul(x1, y);
                x2 = m.mul(x2, y);
                x3 = m.mul(x3, y);
                u += 1;
            }
            t += 4;
        }
        *out.add(k) = x0 ^ x1 ^ x2 ^ x3;
    });
}

/// Eight independent chains from `init(j)`, each `iters` applications of `step`,
/// unrolled by four (`iters` a multiple of 4).
#[inline(always)]
fn chains<T: Copy>(init: impl Fn(usize) -> T, step: impl Fn(T) -> T, iters: u32) -> [T; 8] {
    let mut s = [init(0); 8];
    let mut j = 1;
    while j < 8 {
        s[j] = init(j);
        j += 1;
    }
    let mut t = 0;
    while t < iters {
        let mut u = 0;
        while u < 4 {
            let mut j = 0;
            while j < 8 {
                s[j] = step(s[j]);
                j += 1;
            }
            u += 1;
        }
        t += 4;
    }
    s
}

/// Throughput probe of the integer-unit product's inner step: eight independent chains
/// of `iters` wide mul-adds (`acc += lo(acc) · y`, one `mad.wide.u32` each) per thread,
/// unrolled by four (`iters` a multiple of 4); the roof of `rns_matmul`'s mul-adds.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_mad_chain(
    out: *mut u32,
    a: *const u32,
    len: u32,
    iters: u32,
) {
    channel_loop(len, |_, k| {
        let y = *a.add(k);
        let acc = chains(
            |j| y as u64 + j as u64,
            |acc| mad_wide(acc as u32, y, acc),
            iters,
        );
        let x = acc.iter().fold(0u64, |x, a| x ^ a);
        *out.add(k) = (x ^ (x >> 32)) as u32;
    });
}

/// Throughput probe of the block resultant kernel's coefficient-step: eight independent
/// chains of `iters` [`redc_coefficient`] steps per thread (`(a, b, c) ← (b, c,
/// REDC(a + n₀·b + n₁·c))`, two wide signed products and a Montgomery reduction each,
/// the multipliers `n₀ = y − (m−1)/2`, `n₁ = (m−1)/2 − y` from the input `y < m`),
/// unrolled by four (`iters` a multiple of 4). The roof of the rounds' sweep.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_redc_chain(
    out: *mut u32,
    a: *const u32,
    moduli: *const Modulus,
    len: u32,
    iters: u32,
) {
    channel_loop(len, |ch, k| {
        let m = (*moduli.add(ch)).m;
        let y = *a.add(k);
        let (mi, half) = (inv_mod_two32(m), (m - 1) / 2);
        let n = (y as i32 - half as i32, half as i32 - y as i32);
        let s = chains(
            |j| {
                let v = (y as i32) - j as i32;
                (v, v >> 1, -(v >> 2))
            },
            |(x, b, c)| (b, c, redc_coefficient(n, x, b, c, m as i32, mi)),
            iters,
        );
        *out.add(k) = s.iter().fold(0u32, |x, s| x ^ s.2 as u32);
    });
}
