//! The characteristic polynomial `det(x·I − A)` modulo one prime, in `O(n³)`: a
//! similarity transform to upper Hessenberg form (eliminations below the subdiagonal,
//! each row operation matched by the inverse column operation), then the polynomials
//! `p_k` of the leading `k × k` blocks by their recurrence. The GPU kernel
//! `rns_charpoly` runs the same steps with a block of threads per prime.

use crate::modulus::Modulus;

/// Words of scratch [`charpoly`] needs for an `n × n` matrix: `p_0, …, p_n`, `p_i` with
/// its `i + 1` coefficients (constant first) at [`poly_offset`]`(i)`.
pub const fn charpoly_scratch_words(n: usize) -> usize {
    (n + 1) * (n + 2) / 2
}

/// Where `p_i` starts in the scratch of [`charpoly`].
pub const fn poly_offset(i: usize) -> usize {
    i * (i + 1) / 2
}

/// Step `k` of [`hessenberg`]: the first row `p > k` with `a[p][k] ≠ 0`, moved to row
/// `k + 1` by a row and column swap; `None` when column `k` is already zero below the
/// subdiagonal.
#[inline]
fn hessenberg_pivot(a: &mut [u32], n: usize, k: usize) -> Option<u32> {
    let p = (k + 1..n).find(|&i| a[i * n + k] != 0)?;
    if p != k + 1 {
        for j in k..n {
            a.swap(p * n + j, (k + 1) * n + j);
        }
        for r in 0..n {
            a.swap(r * n + p, r * n + k + 1);
        }
    }
    Some(a[(k + 1) * n + k])
}

/// Reduces the row-major `n × n` matrix `a` in place to an upper Hessenberg matrix
/// similar to it modulo `m` (the same characteristic polynomial). For each column `k`:
/// a pivot on the subdiagonal (row and column swapped in), `u_i = a[i][k] / a[k+1][k]`,
/// row `i` −= `u_i`·row `k+1` for `i > k + 1`, then column `k+1` += `Σ u_i`·column `i`
/// (the inverse operation on the right), and column `k` zeroed below the subdiagonal.
/// `u` is scratch of `n` words (the multipliers, contiguous for the column sums).
#[inline]
pub fn hessenberg(a: &mut [u32], n: usize, m: Modulus, u: &mut [u32]) {
    for k in 0..n.saturating_sub(2) {
        let Some(pivot) = hessenberg_pivot(a, n, k) else {
            continue;
        };
        let inv = m.inv(pivot).unwrap_or(0);
        let u = &mut u[k + 2..n];
        for (i, x) in u.iter_mut().enumerate() {
            let e = &mut a[(k + 2 + i) * n + k];
            *x = m.mul(*e, inv);
            *e = 0;
        }
        let (head, tail) = a.split_at_mut((k + 2) * n);
        let pivot_row = &head[(k + 1) * n + k + 1..(k + 2) * n];
        for (row, &f) in tail.chunks_exact_mut(n).zip(u.iter()) {
            if f != 0 {
                let fs = m.shoup(f);
                for (x, &p) in row[k + 1..].iter_mut().zip(pivot_row) {
                    *x = m.sub(*x, m.mul_shoup(p, f, fs));
                }
            }
        }
        // Column k+1 += Σ u_i · column i, the products summed in 128 bits (no chain of
        // reductions: n·2^62 stays far below 2^128) and reduced once.
        for row in a.chunks_exact_mut(n) {
            let sum = row[k + 1] as u128 + dot_wide(&row[k + 2..], u);
            row[k + 1] = m.reduce_limbs(&[sum as u64, (sum >> 64) as u64]);
        }
    }
}

/// The characteristic polynomial of the upper Hessenberg `n × n` matrix `h`, its
/// `n + 1` coefficients (constant first, the last 1) written to `out`:
/// `p_0 = 1`, `p_{k+1} = (x − h[k][k])·p_k − Σ_{i<k} h[i][k]·(h[i+1][i] ⋯ h[k][k−1])·p_i`.
/// Column `k` of `h` above the diagonal is overwritten by those products' coefficients
/// `c_i`; `scratch` holds [`charpoly_scratch_words`]`(n)` words, `acc` `n + 1` (each
/// step's sums, reduced once a coefficient).
#[inline]
pub fn charpoly_of_hessenberg(
    h: &mut [u32],
    n: usize,
    m: Modulus,
    (scratch, acc): (&mut [u32], &mut [u64]),
    out: &mut [u32],
) {
    assert!(h.len() >= n * n && scratch.len() >= charpoly_scratch_words(n) && out.len() > n);
    assert!(acc.len() > n, "n + 1 sums");
    scratch[0] = 1;
    let r62 = m.reduce_u64(1 << 62);
    for k in 0..n {
        // SAFETY: the sizes were checked above.
        unsafe { hessenberg_coefficients(h.as_mut_ptr(), n, k, m) };
        // `recurrence_term` for every d at once, the sum over i outermost so that each
        // p_i is read in order.
        let (done, next) = scratch.split_at_mut(poly_offset(k + 1));
        let (pk, next) = (&done[poly_offset(k)..], &mut next[..k + 2]);
        let hkk = h[k * n + k];
        for (d, x) in next.iter_mut().enumerate() {
            let at = |j: usize| if j <= k { pk[j] } else { 0 };
            let shifted = if d == 0 { 0 } else { at(d - 1) };
            *x = m.sub(shifted, m.mul(hkk, at(d)));
        }
        // Σ_i c_i·p_i(d) in 64-bit words, three products at most between folds.
        let sums = &mut acc[..k + 2];
        sums.fill(0);
        let mut pending = 0;
        for i in 0..k {
            let c = h[i * n + k];
            if c != 0 {
                if pending == 3 {
                    fold_62(&mut sums[..i], r62);
                    pending = 0;
                }
                let pi = &done[poly_offset(i)..poly_offset(i) + i + 1];
                for (s, &p) in sums.iter_mut().zip(pi) {
                    *s += c as u64 * p as u64;
                }
                pending += 1;
            }
        }
        for (x, &s) in next.iter_mut().zip(sums.iter()) {
            *x = m.sub(*x, m.reduce_u64(s));
        }
    }
    out[..n + 1].copy_from_slice(&scratch[poly_offset(n)..poly_offset(n) + n + 1]);
}

/// `Σ x_j·y_j` of residues below `2^31`, exactly: the products (each below `2^62`)
/// summed four to a 64-bit lane, sixteen at a time (a loop the compiler vectorizes),
/// the lanes in 128 bits.
#[inline]
pub fn dot_wide(x: &[u32], y: &[u32]) -> u128 {
    let len = x.len().min(y.len());
    let (xh, xt) = x[..len].split_at(len - len % 16);
    let (yh, yt) = y[..len].split_at(len - len % 16);
    let mut acc = 0u128;
    for (r, v) in xh.chunks_exact(16).zip(yh.chunks_exact(16)) {
        let mut lanes = [0u64; 4];
        for k in 0..4 {
            for (l, s) in lanes.iter_mut().enumerate() {
                *s += r[4 * k + l] as u64 * v[4 * k + l] as u64;
            }
        }
        acc += lanes.iter().map(|&s| s as u128).sum::<u128>();
    }
    for (&a, &b) in xt.iter().zip(yt) {
        acc += (a as u64 * b as u64) as u128;
    }
    acc
}

/// Each word `s` (below `2^64`) made `⌊s / 2^62⌋·r62 + s mod 2^62`, below `2^62 + 2^33`
/// and congruent to `s` for `r62 = 2^62 mod m`: room for three more products of
/// residues (each below `2^62 − 2^33`).
#[inline]
fn fold_62(sums: &mut [u64], r62: u32) {
    for s in sums {
        *s = (*s >> 62) * r62 as u64 + (*s & ((1 << 62) - 1));
    }
}

/// `c_i = h[i][k]·h[i+1][i]⋯h[k][k−1]` for `i < k`, written over `h[i][k]`.
///
/// # Safety
/// `h` points to a row-major `n × n` matrix (`k < n`) that no other thread touches
/// meanwhile. Raw pointers: the kernel shares this code and may not hold a bounds check.
#[inline]
pub unsafe fn hessenberg_coefficients(h: *mut u32, n: usize, k: usize, m: Modulus) {
    let mut t = 1;
    let mut i = k;
    while i > 0 {
        i -= 1;
        t = m.mul(t, *h.add((i + 1) * n + i));
        *h.add(i * n + k) = m.mul(*h.add(i * n + k), t);
    }
}

/// Coefficient `d ≤ k + 1` of `p_{k+1}` from `p_0, …, p_k` (`polys`, at [`poly_offset`])
/// and the `c_i` that [`hessenberg_coefficients`] left in column `k` of `h`.
///
/// # Safety
/// `h` points to the `n × n` matrix (`k < n`) and `polys` to at least
/// `poly_offset(k + 1)` words.
#[inline]
pub unsafe fn recurrence_term(
    h: *const u32,
    n: usize,
    k: usize,
    d: usize,
    polys: *const u32,
    m: Modulus,
) -> u32 {
    let pk = polys.add(poly_offset(k));
    let coeff = |j: usize| if j <= k { *pk.add(j) } else { 0 };
    let shifted = if d == 0 { 0 } else { coeff(d - 1) };
    let mut x = m.sub(shifted, m.mul(*h.add(k * n + k), coeff(d)));
    for i in d..k {
        x = m.sub(x, m.mul(*h.add(i * n + k), *polys.add(poly_offset(i) + d)));
    }
    x
}

/// The characteristic polynomial of the row-major `n × n` matrix `a` modulo `m`
/// (overwritten), its `n + 1` coefficients (constant first) written to `out`;
/// `scratch` holds [`charpoly_scratch_words`]`(n)` words, `acc` `n + 1`.
#[inline]
pub fn charpoly(
    a: &mut [u32],
    n: usize,
    m: Modulus,
    (scratch, acc): (&mut [u32], &mut [u64]),
    out: &mut [u32],
) {
    hessenberg(a, n, m, &mut scratch[..n]);
    charpoly_of_hessenberg(a, n, m, (scratch, acc), out);
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: u32 = 2_147_483_629;

    /// `det(x·I − a)` by cofactor expansion at `n + 1` points and Lagrange
    /// interpolation, for small `n`: an independent reference.
    fn reference(a: &[u32], n: usize, m: Modulus) -> [u32; 6] {
        fn det(a: &mut [u32; 25], n: usize, m: Modulus) -> u32 {
            let mut d = 1;
            for k in 0..n {
                let Some(p) = (k..n).find(|&i| a[i * 5 + k] != 0) else {
                    return 0;
                };
                if p != k {
                    for j in 0..n {
                        a.swap(p * 5 + j, k * 5 + j);
                    }
                    d = m.neg(d);
                }
                d = m.mul(d, a[k * 5 + k]);
                let inv = m.inv(a[k * 5 + k]).unwrap();
                for i in k + 1..n {
                    let f = m.mul(a[i * 5 + k], inv);
                    for j in k..n {
                        a[i * 5 + j] = m.sub(a[i * 5 + j], m.mul(f, a[k * 5 + j]));
                    }
                }
            }
            d
        }
        let mut values = [0u32; 6];
        for (x, v) in values.iter_mut().enumerate().take(n + 1) {
            let mut b = [0u32; 25];
            for i in 0..n {
                for j in 0..n {
                    let e = m.neg(a[i * n + j]);
                    b[i * 5 + j] = if i == j { m.add(e, x as u32) } else { e };
                }
            }
            *v = det(&mut b, n, m);
        }
        // Lagrange: Σ v_x · Π_{y≠x} (t − y)/(x − y), expanded.
        let mut out = [0u32; 6];
        for (x, &value) in values.iter().enumerate().take(n + 1) {
            let mut basis = [0u32; 6];
            basis[0] = 1;
            let mut denom = 1;
            for y in (0..=n).filter(|&y| y != x) {
                let mut next = [0u32; 6];
                for d in 0..n {
                    next[d + 1] = m.add(next[d + 1], basis[d]);
                    next[d] = m.sub(next[d], m.mul(basis[d], y as u32));
                }
                basis = next;
                denom = m.mul(denom, m.sub(x as u32, y as u32));
            }
            let f = m.mul(value, m.inv(denom).unwrap());
            for (o, &b) in out.iter_mut().zip(&basis).take(n + 1) {
                *o = m.add(*o, m.mul(f, b));
            }
        }
        out
    }

    /// The kernel's recurrence ([`recurrence_term`], one coefficient at a time) gives
    /// the CPU's polynomials ([`charpoly_of_hessenberg`], the sums in row order).
    #[test]
    fn kernel_recurrence_matches_the_cpu_one() {
        let m = Modulus::new(P).unwrap();
        let n = 5;
        let mut seed = 5u64;
        let mut h: [u32; 25] = core::array::from_fn(|k| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            if k / n > k % n + 1 {
                0
            } else {
                ((seed >> 33) as u32) % P
            }
        });
        let mut h2 = h;
        let (mut scratch, mut out) = ([0u32; 21], [0u32; 6]);
        charpoly_of_hessenberg(&mut h, n, m, (&mut scratch, &mut [0u64; 6]), &mut out);
        let mut polys = [0u32; 21];
        polys[0] = 1;
        for k in 0..n {
            // SAFETY: h2 is 5 × 5 and polys holds p_0 … p_5.
            unsafe { hessenberg_coefficients(h2.as_mut_ptr(), n, k, m) };
            for d in 0..=k + 1 {
                let x = unsafe { recurrence_term(h2.as_ptr(), n, k, d, polys.as_ptr(), m) };
                polys[poly_offset(k + 1) + d] = x;
            }
        }
        assert_eq!(polys[poly_offset(n)..], out[..]);
    }

    /// The CPU's sums in 64-bit words with folds every three products stay exact at the
    /// bound: a 24 × 24 Hessenberg matrix of `m − 1` (every product `(m − 1)²`, every
    /// coefficient `c_i` large) and of random residues, against the kernel's recurrence
    /// (one reduction a product).
    #[test]
    fn folded_sums_are_exact_at_the_largest_residues() {
        const N: usize = 24;
        let m = Modulus::new(P).unwrap();
        let mut seed = 9u64;
        for all_max in [true, false] {
            let mut h = [0u32; N * N];
            for (k, x) in h.iter_mut().enumerate() {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                if k / N <= k % N + 1 {
                    *x = if all_max {
                        P - 1
                    } else {
                        ((seed >> 33) as u32) % P
                    };
                }
            }
            let mut h2 = h;
            let mut scratch = [0u32; (N + 1) * (N + 2) / 2];
            let mut out = [0u32; N + 1];
            charpoly_of_hessenberg(&mut h, N, m, (&mut scratch, &mut [0u64; N + 1]), &mut out);
            let mut polys = [0u32; (N + 1) * (N + 2) / 2];
            polys[0] = 1;
            for k in 0..N {
                // SAFETY: h2 is N × N and polys holds p_0 … p_N.
                unsafe { hessenberg_coefficients(h2.as_mut_ptr(), N, k, m) };
                for d in 0..=k + 1 {
                    let x = unsafe { recurrence_term(h2.as_ptr(), N, k, d, polys.as_ptr(), m) };
                    polys[poly_offset(k + 1) + d] = x;
                }
            }
            assert_eq!(polys[poly_offset(N)..], out[..], "all m − 1: {all_max}");
        }
        // dot_wide at 16-lane edges and with (m − 1)² terms: exact in 128 bits.
        let x = [P - 1; 40];
        for len in [0, 1, 15, 16, 17, 33, 40] {
            let want = len as u128 * ((P - 1) as u128 * (P - 1) as u128);
            assert_eq!(dot_wide(&x[..len], &x[..len]), want, "{len}");
        }
    }

    #[test]
    fn charpoly_matches_interpolated_determinants() {
        let m = Modulus::new(P).unwrap();
        let mut seed = 11u64;
        let mut next = |k: u32| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as u32) % k
        };
        for n in 0..=5 {
            for trial in 0..40 {
                // Small entries (many zeros, so pivots move and columns are skipped),
                // or full-size residues.
                let range = if trial % 2 == 0 { 3 } else { P };
                let a: [u32; 25] =
                    core::array::from_fn(|k| if k < n * n { next(range) } else { 0 });
                let mut work = a;
                let mut scratch = [0u32; 21];
                let mut out = [0u32; 6];
                charpoly(
                    &mut work[..n * n],
                    n,
                    m,
                    (&mut scratch, &mut [0u64; 6]),
                    &mut out,
                );
                let want = reference(&a[..n * n], n, m);
                assert_eq!(out[..=n], want[..=n], "n = {n}, trial {trial}");
            }
        }
    }
}
