//! Linear algebra modulo one prime on a row-major matrix in a caller's buffer.

use crate::modulus::Modulus;

/// The determinant modulo `m` of the `n × n` row-major matrix `a` (residues in
/// `[0, m)`), by Gaussian elimination with row swaps. `a` is overwritten.
/// A column without a pivot gives 0.
#[inline]
pub fn det_in_place(a: &mut [u32], n: usize, m: Modulus) -> u32 {
    assert_eq!(a.len(), n * n, "matrix buffer must be n×n");
    let mut det = 1u32;
    for k in 0..n {
        let Some(p) = (k..n).find(|&i| a[i * n + k] != 0) else {
            return 0;
        };
        if p != k {
            for j in k..n {
                a.swap(p * n + j, k * n + j);
            }
            det = m.neg(det);
        }
        let pivot = a[k * n + k];
        det = m.mul(det, pivot);
        let inv = m.inv(pivot).expect("pivot is non-zero modulo a prime");
        let (top, bottom) = a.split_at_mut((k + 1) * n);
        let pivot_row = &top[k * n + k + 1..k * n + n];
        for row in bottom.chunks_exact_mut(n) {
            let lead = row[k];
            if lead == 0 {
                continue;
            }
            let f = m.mul(lead, inv);
            let f_shoup = m.shoup(f);
            for (x, &y) in row[k + 1..].iter_mut().zip(pivot_row) {
                *x = m.sub(*x, m.mul_shoup(y, f, f_shoup));
            }
        }
    }
    det
}

/// The resultant modulo `m` of two polynomials held in place with stride `s`: `f` has
/// degree `df` at `f[0], f[s], …, f[df·s]` (constant first), `g` degree `dg` likewise,
/// and both leading coefficients must be non-zero modulo `m`. Euclid's algorithm with
/// `res(f, g) = (−1)^(df·dg) · lc(g)^(df − k) · res(g, f mod g)`, `k = deg(f mod g)`,
/// O(df·dg) products. Both buffers are overwritten.
///
/// # Safety
/// `f` and `g` must be valid for reads and writes at every index `i·s` up to their
/// degrees. (Raw pointers and a stride, so that the GPU can keep one prime's
/// coefficients interleaved with the others'.)
#[inline]
pub unsafe fn resultant_strided(
    mut f: *mut u32,
    mut g: *mut u32,
    mut df: usize,
    mut dg: usize,
    s: usize,
    m: Modulus,
) -> u32 {
    let at = |p: *mut u32, i: usize| p.add(i * s);
    let mut res = 1u32;
    loop {
        if dg == 0 {
            return m.mul(res, m.pow(*g, df as u64));
        }
        let lead = *at(g, dg);
        let inv = m.inv(lead).unwrap_or(0);
        // f ← f mod g, from the top coefficient down.
        let mut top = df;
        while top >= dg {
            let q = m.mul(*at(f, top), inv);
            if q != 0 {
                let (base, q_shoup) = (top - dg, m.shoup(q));
                let mut j = 0;
                while j < dg {
                    let x = at(f, base + j);
                    *x = m.sub(*x, m.mul_shoup(*at(g, j), q, q_shoup));
                    j += 1;
                }
            }
            *at(f, top) = 0;
            top -= 1;
        }
        // k = deg(f mod g) ≤ min(df, dg − 1); a zero remainder means a common factor.
        let mut k = if df < dg { df + 1 } else { dg };
        loop {
            if k == 0 {
                return 0;
            }
            k -= 1;
            if *at(f, k) != 0 {
                break;
            }
        }
        res = m.mul(res, m.pow(lead, (df - k) as u64));
        if df % 2 == 1 && dg % 2 == 1 {
            res = m.neg(res);
        }
        core::mem::swap(&mut f, &mut g);
        df = dg;
        dg = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_resultants() {
        let m = Modulus::new(2_147_483_647).unwrap();
        let res = |f: &[u32], g: &[u32]| {
            let (mut f, mut g) = (f.to_vec(), g.to_vec());
            unsafe {
                resultant_strided(
                    f.as_mut_ptr(),
                    g.as_mut_ptr(),
                    f.len() - 1,
                    g.len() - 1,
                    1,
                    m,
                )
            }
        };
        assert_eq!(res(&[1, 0, 1], &[m.m - 2, 1]), 5); // res(x² + 1, x − 2) = 5
        assert_eq!(res(&[m.m - 2, 1], &[1, 0, 1]), 5);
        assert_eq!(res(&[m.m - 1, 0, 1], &[m.m - 1, 1]), 0); // common factor x − 1
        assert_eq!(res(&[3], &[1, 2, 5]), 9); // 3²
        assert_eq!(res(&[1, 1], &[1, 0, 0, 1]), 0); // x + 1 divides x³ + 1
    }

    #[test]
    fn small_determinants() {
        let m = Modulus::new(2_147_483_647).unwrap();
        let mut a = [2, 3, 1, 4]; // 2·4 − 3·1 = 5
        assert_eq!(det_in_place(&mut a, 2, m), 5);
        let mut b = [0, 1, 1, 0]; // −1
        assert_eq!(det_in_place(&mut b, 2, m), m.m - 1);
        let mut c = [1, 2, 2, 4];
        assert_eq!(det_in_place(&mut c, 2, m), 0);
        let mut e: [u32; 0] = [];
        assert_eq!(det_in_place(&mut e, 0, m), 1);
    }
}
