//! Linear algebra modulo one prime on a row-major matrix in a caller's buffer.

use crate::modulus::Modulus;

/// What [`eliminate`] found: the rank, and the determinant of the pivot columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Elimination {
    /// Number of pivots found (the rank of the pivot columns).
    pub rank: u32,
    /// When the pivot columns form a square matrix (`pivot_cols == rows`): its
    /// determinant (0 when singular). Otherwise 0.
    pub det: u32,
}

impl Elimination {
    /// The result for a matrix with no entries (`rows · cols = 0`): rank 0, and
    /// determinant 1 for the empty square matrix.
    pub fn of_empty(rows: usize, pivot_cols: usize) -> Elimination {
        Elimination {
            rank: 0,
            det: (rows == 0 && pivot_cols == 0) as u32,
        }
    }
}

/// Gaussian elimination modulo `m` of the `rows × cols` row-major matrix `a`, pivoting on
/// its first `pivot_cols` columns (the rest, such as the right-hand sides of
/// `[A | B]`, are carried along). The pivot of column `k` is the first row at or below
/// the current one with a non-zero entry; a column without one is skipped.
///
/// `jordan = false`: forward elimination (row echelon form, entries below each pivot
/// zeroed, pivots not scaled), `rows·cols·rank` products at most. `jordan = true`:
/// Gauss–Jordan to the reduced row echelon form (each pivot 1, the only non-zero of its
/// column), which is unique: `[A | B]` with `A` invertible becomes `[I | A⁻¹B]`.
///
/// The GPU kernel `rns_eliminate` runs the same steps with a block of threads per prime.
#[inline]
pub fn eliminate(
    a: &mut [u32],
    rows: usize,
    cols: usize,
    pivot_cols: usize,
    jordan: bool,
    m: Modulus,
) -> Elimination {
    eliminate_with(
        a,
        (rows, cols, pivot_cols),
        jordan,
        m,
        |block, tail, k, inv| {
            for row in block.chunks_exact_mut(cols) {
                clear_column(row, tail, k, inv, jordan, m);
            }
        },
    )
}

/// [`eliminate`] with the clearing of a column left to `clear(rows, pivot_tail, k, inv)`:
/// it must apply [`clear_column`] to every row of `rows` (whole rows, one after another),
/// in any order or in parallel, since the rows are independent.
/// `shape = (rows, cols, pivot_cols)`.
#[inline]
pub fn eliminate_with(
    a: &mut [u32],
    (rows, cols, pivot_cols): (usize, usize, usize),
    jordan: bool,
    m: Modulus,
    mut clear: impl FnMut(&mut [u32], &[u32], usize, u32),
) -> Elimination {
    assert_eq!(a.len(), rows * cols, "matrix buffer must be rows×cols");
    assert!(pivot_cols <= cols, "pivot columns must be columns");
    let mut r = 0;
    let mut det = 1u32;
    for k in 0..pivot_cols {
        if r == rows {
            break;
        }
        let Some(inv) = take_pivot(a, (rows, cols), (r, k), k, &mut det, m) else {
            continue;
        };
        if jordan {
            let inv_shoup = m.shoup(inv);
            for x in &mut a[r * cols + k + 1..(r + 1) * cols] {
                *x = m.mul_shoup(*x, inv, inv_shoup);
            }
            a[r * cols + k] = 1;
        }
        let (above, rest) = a.split_at_mut(r * cols);
        let (pivot_row, below) = rest.split_at_mut(cols);
        let pivot_tail = &pivot_row[k + 1..];
        clear(below, pivot_tail, k, inv);
        if jordan {
            clear(above, pivot_tail, k, inv);
        }
        r += 1;
    }
    let square = pivot_cols == rows && r == rows;
    Elimination {
        rank: r as u32,
        det: if square { det } else { 0 },
    }
}

/// Brings column `k`'s pivot to row `r`: the first row at or below `r` with a non-zero
/// entry in column `k` is swapped with row `r` over the columns from `from` (a swap
/// negates `det`), and the pivot multiplies `det`. Returns the pivot's inverse, or `None`
/// when the column has no non-zero entry from row `r` down.
#[inline]
pub fn take_pivot(
    a: &mut [u32],
    (rows, cols): (usize, usize),
    (r, k): (usize, usize),
    from: usize,
    det: &mut u32,
    m: Modulus,
) -> Option<u32> {
    let p = (r..rows).find(|&i| a[i * cols + k] != 0)?;
    if p != r {
        for j in from..cols {
            a.swap(p * cols + j, r * cols + j);
        }
        *det = m.neg(*det);
    }
    let pivot = a[r * cols + k];
    *det = m.mul(*det, pivot);
    Some(m.inv(pivot).expect("pivot is non-zero modulo a prime"))
}

/// Clears column `k` of `row` with the pivot row's entries after column `k`
/// (`pivot_tail`): subtracts the multiple of the pivot row that zeroes `row[k]` (the
/// pivot is 1 after Gauss–Jordan scaling, else its inverse is `inv`).
#[inline(always)]
pub fn clear_column(
    row: &mut [u32],
    pivot_tail: &[u32],
    k: usize,
    inv: u32,
    jordan: bool,
    m: Modulus,
) {
    let lead = row[k];
    if lead == 0 {
        return;
    }
    let f = if jordan { lead } else { m.mul(lead, inv) };
    sub_mul_row(&mut row[k + 1..], pivot_tail, f, m);
    row[k] = 0;
}

/// `row[j] ← row[j] − f · pivot[j]` for every `j` (one Shoup product each).
#[inline(always)]
pub fn sub_mul_row(row: &mut [u32], pivot: &[u32], f: u32, m: Modulus) {
    let f_shoup = m.shoup(f);
    for (x, &y) in row.iter_mut().zip(pivot) {
        *x = m.sub(*x, m.mul_shoup(y, f, f_shoup));
    }
}

/// The determinant modulo `m` of the `n × n` row-major matrix `a` (residues in
/// `[0, m)`) by forward elimination ([`eliminate`]). `a` is overwritten.
#[inline]
pub fn det_in_place(a: &mut [u32], n: usize, m: Modulus) -> u32 {
    if n == 0 {
        return 1;
    }
    eliminate(a, n, n, n, false, m).det
}

/// `acc[j] += x · b[j]` for centered residues ([`Modulus::center`]): the inner step of
/// a matrix product with delayed reduction. At most [`crate::modulus::LAZY_PRODUCTS`]
/// such steps may follow a [`fold_all`].
#[inline(always)]
pub fn add_products(acc: &mut [i64], x: i32, b: &[i32]) {
    for (s, &y) in acc.iter_mut().zip(b) {
        *s += x as i64 * y as i64;
    }
}

/// [`Modulus::fold`] on every accumulator (`t = m.fold_factor()`).
#[inline(always)]
pub fn fold_all(acc: &mut [i64], t: i32) {
    for s in acc.iter_mut() {
        *s = Modulus::fold(*s, t);
    }
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
    use crate::testing::rng;

    #[test]
    fn gauss_jordan_inverts_and_ranks() {
        let m = Modulus::new(2_147_483_647).unwrap();
        // [A | I] with A = [[2, 1], [1, 1]] → [I | A⁻¹], A⁻¹ = [[1, −1], [−1, 2]].
        let mut a = [2, 1, 1, 0, 1, 1, 0, 1];
        let e = eliminate(&mut a, 2, 4, 2, true, m);
        assert_eq!(e, Elimination { rank: 2, det: 1 });
        assert_eq!(a, [1, 0, 1, m.m - 1, 0, 1, m.m - 1, 2]);
        // Rank 1 with a zero first column: [[0, 1, 2], [0, 2, 4]] → [[0, 1, 2], [0, 0, 0]].
        let mut b = [0, 1, 2, 0, 2, 4];
        let e = eliminate(&mut b, 2, 3, 3, true, m);
        assert_eq!(e, Elimination { rank: 1, det: 0 });
        assert_eq!(b, [0, 1, 2, 0, 0, 0]);
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

    /// The determinant by expansion along the first row (n ≤ 5).
    fn det_expand(a: &[u32], n: usize, m: Modulus) -> u32 {
        if n == 0 {
            return 1;
        }
        let mut d = 0;
        for c in 0..n {
            let minor: Vec<u32> = (1..n)
                .flat_map(|r| (0..n).filter(move |&j| j != c).map(move |j| (r, j)))
                .map(|(r, j)| a[r * n + j])
                .collect();
            let t = m.mul(a[c], det_expand(&minor, n - 1, m));
            d = if c % 2 == 0 { m.add(d, t) } else { m.sub(d, t) };
        }
        d
    }

    extern crate std;
    use std::vec::Vec;

    #[test]
    fn determinants_match_expansion_with_row_swaps_anywhere() {
        let m = Modulus::new(2_147_483_629).unwrap();
        let mut next = rng(0x2545_F491_4F6C_DD1D);
        for n in 1..=5 {
            for case in 0..200 {
                // Mostly zeros in the small cases, so that pivots are often missing and
                // rows are swapped below the first pivot.
                let a: Vec<u32> = (0..n * n)
                    .map(|_| match next() % 4 {
                        0 if case % 2 == 0 => 0,
                        1 => m.m - 1 - (next() % 3) as u32,
                        _ => (next() % m.m as u64) as u32,
                    })
                    .collect();
                let want = det_expand(&a, n, m);
                let mut b = a.clone();
                assert_eq!(det_in_place(&mut b, n, m), want, "{n}×{n} {a:?}");
            }
        }
        // The second pivot needs a swap: [[1, 2, 3], [0, 0, 1], [0, 5, 7]], det −5.
        let mut a = [1, 2, 3, 0, 0, 1, 0, 5, 7];
        assert_eq!(det_in_place(&mut a, 3, m), m.m - 5);
    }

    #[test]
    fn gauss_jordan_gives_the_inverse_with_swaps_below_the_first_row() {
        let m = Modulus::new(2_147_483_647).unwrap();
        let mut next = rng(0x9E37_79B9_7F4A_7C15);
        for n in 1..=6 {
            for _ in 0..50 {
                let a: Vec<u32> = (0..n * n)
                    .map(|_| {
                        if next().is_multiple_of(3) {
                            0
                        } else {
                            (next() % m.m as u64) as u32
                        }
                    })
                    .collect();
                // [A | I] → [I | A⁻¹] when A is invertible.
                let w = 2 * n;
                let mut aug: Vec<u32> = (0..n * w)
                    .map(|e| {
                        let (r, c) = (e / w, e % w);
                        if c < n {
                            a[r * n + c]
                        } else {
                            (c - n == r) as u32
                        }
                    })
                    .collect();
                let e = eliminate(&mut aug, n, w, n, true, m);
                let want = det_expand(&a, n, m);
                assert_eq!(e.det, want);
                if want == 0 {
                    assert!((e.rank as usize) < n);
                    continue;
                }
                assert_eq!(e.rank as usize, n);
                for r in 0..n {
                    for c in 0..n {
                        assert_eq!(aug[r * w + c], (r == c) as u32, "left half is I");
                        // (A · A⁻¹)[r][c]
                        let mut s = 0;
                        for k in 0..n {
                            s = m.add(s, m.mul(a[r * n + k], aug[k * w + n + c]));
                        }
                        assert_eq!(s, (r == c) as u32, "A · A⁻¹ = I");
                    }
                }
            }
        }
    }

    #[test]
    fn empty_and_non_square_eliminations() {
        let m = Modulus::new(2_147_483_647).unwrap();
        assert_eq!(Elimination::of_empty(0, 0), Elimination { rank: 0, det: 1 });
        assert_eq!(Elimination::of_empty(0, 3), Elimination { rank: 0, det: 0 });
        assert_eq!(Elimination::of_empty(3, 0), Elimination { rank: 0, det: 0 });
        // Full rank 2 on 3 pivot columns: the pivot columns are not square, det 0.
        let mut a = [1, 2, 3, 4, 5, 6];
        assert_eq!(
            eliminate(&mut a, 2, 3, 3, false, m),
            Elimination { rank: 2, det: 0 }
        );
        // More rows than pivot columns: rank 2, det 0.
        let mut b = [1, 0, 0, 1, 1, 1];
        assert_eq!(
            eliminate(&mut b, 3, 2, 2, false, m),
            Elimination { rank: 2, det: 0 }
        );
    }

    #[test]
    fn delayed_reduction_matches_the_exact_dot_product() {
        let m = Modulus::new(2_147_483_629).unwrap();
        let t = m.fold_factor();
        let mut next = rng(7);
        let k = 4 * crate::modulus::LAZY_PRODUCTS + 3;
        let worst = [m.m - 1, m.m / 2, m.m / 2 + 1];
        let a: Vec<u32> = (0..k)
            .map(|i| {
                if i % 2 == 0 {
                    worst[i % 3]
                } else {
                    (next() % m.m as u64) as u32
                }
            })
            .collect();
        let b: Vec<[u32; 2]> = (0..k)
            .map(|i| [worst[(i + 1) % 3], (next() % m.m as u64) as u32])
            .collect();
        let mut acc = [0i64; 2];
        for (i, (&x, y)) in a.iter().zip(&b).enumerate() {
            if i % crate::modulus::LAZY_PRODUCTS == 0 {
                fold_all(&mut acc, t);
            }
            add_products(&mut acc, m.center(x), &y.map(|v| m.center(v)));
        }
        for (j, &s) in acc.iter().enumerate() {
            let want = a.iter().zip(&b).fold(0u128, |s, (&x, y)| {
                (s + x as u128 * y[j] as u128) % m.m as u128
            });
            assert_eq!(m.reduce_i64(s) as u128, want, "column {j}");
        }
        // The largest products, all of one sign: without the folds the sum overflows.
        let h = m.m / 2; // centered, (m − 1)/2: the largest
        let mut acc = [0i64; 1];
        for i in 0..k {
            if i % crate::modulus::LAZY_PRODUCTS == 0 {
                fold_all(&mut acc, t);
            }
            add_products(&mut acc, m.center(h), &[m.center(h)]);
        }
        let want = (h as u128 * h as u128 * k as u128 % m.m as u128) as u32;
        assert_eq!(m.reduce_i64(acc[0]), want, "{k} largest products");
    }
}
