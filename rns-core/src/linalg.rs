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

#[cfg(test)]
mod tests {
    use super::*;

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
