//! Blocked elimination modulo one prime on the CPU, as LAPACK's right-looking LU: a panel
//! of [`PANEL`] columns is factored by halves (its multipliers kept where the zeros will
//! go), then the rest of the matrix is updated by one product per panel with delayed
//! reduction ([`super::matmul_block`]). The pivots are those of [`linalg::eliminate`]
//! (the first non-zero at or below the current row), and so is the result: the echelon
//! form with the entries below each pivot zeroed, or the reduced echelon form, which is
//! unique. `n³/3` products at the product's rate instead of one Shoup product each.

use super::{matmul_block, MM_COLS, MM_ROWS};
use rayon::prelude::*;
use rns_core::linalg::{self, Elimination};
use rns_core::Modulus;

/// Columns of a panel.
pub(crate) const PANEL: usize = 256;

/// Pivot columns and rows from which [`eliminate`] goes by panels: below, the product's
/// blocks would be too thin to pay for the panels' bookkeeping.
pub(crate) const BLOCKED_FROM: usize = 128;

/// Rows of a panel's factorization per rayon task, when it runs in parallel.
const PANEL_ROWS_PER_TASK: usize = 256;

/// [`linalg::eliminate`] of the `rows × cols` matrix `a` modulo `m` (pivoting on the
/// first `pivot_cols` columns, to the reduced echelon form when `jordan`), by panels;
/// `parallel` spreads each panel and each update over the rows.
pub(crate) fn eliminate(
    a: &mut [u32],
    (rows, cols, pivot_cols): (usize, usize, usize),
    jordan: bool,
    m: Modulus,
    parallel: bool,
) -> Elimination {
    assert_eq!(a.len(), rows * cols, "matrix buffer must be rows×cols");
    assert!(pivot_cols <= cols, "pivot columns must be columns");
    let (mut r, mut det) = (0usize, 1u32);
    let mut k0 = 0;
    while k0 < pivot_cols && r < rows {
        let kb = PANEL.min(pivot_cols - k0);
        let at = Panel {
            rows,
            cols,
            r,
            k0,
            c0: k0,
            c1: k0 + kb,
        };
        let piv = factor_panel(a, at, m, &mut det, parallel);
        let s = piv.len();
        if s > 0 {
            let (above, rest) = a.split_at_mut(r * cols);
            let (block, below) = rest.split_at_mut(s * cols);
            let span = (k0 + kb, cols);
            if span.0 < cols {
                substitute_forward(block, cols, &piv, span, m);
                let u12 = centered(block, cols, span, m);
                update(below, cols, (&piv, span), &u12, m, parallel);
            }
            clear_multipliers(below, cols, &piv);
            for (t, row) in block.chunks_exact_mut(cols).enumerate() {
                for &c in &piv[..t] {
                    row[c] = 0;
                }
            }
            if jordan {
                // The block to its reduced form, `U⁻¹·block` (`U` its pivot columns), then
                // the rows above cleared by it: `above −= above[·][piv]·block`.
                reduce_block(block, cols, (&piv, k0), m, parallel);
                let reduced = centered(block, cols, (k0, cols), m);
                update(above, cols, (&piv, (k0, cols)), &reduced, m, parallel);
            }
        }
        r += s;
        k0 += kb;
    }
    let square = pivot_cols == rows && r == rows;
    Elimination {
        rank: r as u32,
        det: if square { det } else { 0 },
    }
}

/// Factors columns `c0 .. c1` from row `r` on (updating no column from `c1` on): for each
/// column, the first row at or below the next pivot row with a non-zero entry becomes
/// that row (a swap of the rows from column `k0`, the panel's first, negates `det`), the
/// pivot multiplies `det`, and each row below keeps its multiplier `a[i][c] / pivot` in
/// the pivot's column. By halves down to [`LEAF`] columns (the left half factored, the
/// right half's rows below its pivots updated by one product, then factored), so that
/// most of the panel's work is products too. Returns the pivot columns, in order.
fn factor_panel(a: &mut [u32], at: Panel, m: Modulus, det: &mut u32, parallel: bool) -> Vec<usize> {
    let Panel {
        cols, r, c0, c1, ..
    } = at;
    if c1 - c0 <= LEAF {
        return factor_leaf(a, at, m, det, parallel);
    }
    let cm = c0 + (c1 - c0) / 2;
    let mut piv = factor_panel(a, Panel { c1: cm, ..at }, m, det, parallel);
    let s = piv.len();
    if s > 0 {
        let (block, below) = a[r * cols..].split_at_mut(s * cols);
        substitute_forward(block, cols, &piv, (cm, c1), m);
        let u12 = centered(block, cols, (cm, c1), m);
        update(below, cols, (&piv, (cm, c1)), &u12, m, parallel);
    }
    let right = factor_panel(
        a,
        Panel {
            r: r + s,
            c0: cm,
            ..at
        },
        m,
        det,
        parallel,
    );
    piv.extend(right);
    piv
}

/// Where [`factor_panel`] works: the matrix's `rows × cols`, the first row `r` not yet a
/// pivot row, the panel's first column `k0` (rows are swapped from there), and the
/// columns `c0 .. c1` to factor.
#[derive(Clone, Copy)]
struct Panel {
    rows: usize,
    cols: usize,
    r: usize,
    k0: usize,
    c0: usize,
    c1: usize,
}

/// Columns of a panel factored row by row.
const LEAF: usize = 32;

/// [`factor_panel`] of at most [`LEAF`] columns, one pivot at a time.
fn factor_leaf(a: &mut [u32], at: Panel, m: Modulus, det: &mut u32, parallel: bool) -> Vec<usize> {
    let Panel {
        rows,
        cols,
        r,
        k0,
        c0,
        c1,
    } = at;
    let mut piv = Vec::with_capacity(c1 - c0);
    for c in c0..c1 {
        let rp = r + piv.len();
        if rp == rows {
            break;
        }
        let Some(inv) = linalg::take_pivot(a, (rows, cols), (rp, c), k0, det, m) else {
            continue;
        };
        let (head, below) = a.split_at_mut((rp + 1) * cols);
        let prow = &head[rp * cols + c + 1..rp * cols + c1];
        let clear = |rows: &mut [u32]| {
            for row in rows.chunks_exact_mut(cols) {
                let lead = row[c];
                if lead != 0 {
                    let l = m.mul(lead, inv);
                    linalg::sub_mul_row(&mut row[c + 1..c1], prow, l, m);
                    row[c] = l;
                }
            }
        };
        if parallel && below.len() / cols > 2 * PANEL_ROWS_PER_TASK {
            below
                .par_chunks_mut(PANEL_ROWS_PER_TASK * cols)
                .for_each(clear);
        } else {
            clear(below);
        }
        piv.push(c);
    }
    piv
}

/// The pivot rows' columns `span = (from, to)`, eliminated by the pivot rows above them
/// (their multipliers kept in the pivot columns): `U₁₂ = L₁₁⁻¹·A₁₂`. By halves down to
/// [`LEAF`] rows, the lower half's update by the upper half one product.
fn substitute_forward(
    block: &mut [u32],
    cols: usize,
    piv: &[usize],
    (from, to): (usize, usize),
    m: Modulus,
) {
    let s = piv.len();
    if s > LEAF {
        let h = s / 2;
        let (top, bottom) = block.split_at_mut(h * cols);
        substitute_forward(top, cols, &piv[..h], (from, to), m);
        let u = centered(top, cols, (from, to), m);
        update(bottom, cols, (&piv[..h], (from, to)), &u, m, false);
        substitute_forward(bottom, cols, &piv[h..], (from, to), m);
        return;
    }
    for t in 1..s {
        let (done, rest) = block.split_at_mut(t * cols);
        let row = &mut rest[..cols];
        for (u, &c) in piv[..t].iter().enumerate() {
            let l = row[c];
            if l != 0 {
                linalg::sub_mul_row(
                    &mut row[from..to],
                    &done[u * cols + from..u * cols + to],
                    l,
                    m,
                );
            }
        }
    }
}

/// The pivot rows' columns `from .. to`, centered ([`Modulus::center`]), row-major.
fn centered(block: &[u32], cols: usize, (from, to): (usize, usize), m: Modulus) -> Vec<i32> {
    block
        .chunks_exact(cols)
        .flat_map(|row| row[from..to].iter().map(|&x| m.center(x)))
        .collect()
}

/// `rows[·][from..to] −= L·U₁₂` for every row of `rows`, `L` the row's multipliers in the
/// pivot columns `piv`: blocks of [`MM_ROWS`] rows, each a product with delayed reduction.
fn update(
    rows: &mut [u32],
    cols: usize,
    (piv, (tail, to)): (&[usize], (usize, usize)),
    u12: &[i32],
    m: Modulus,
    parallel: bool,
) {
    let (s, w) = (piv.len(), to - tail);
    let packed = super::tiles::pack_if_tiled(u12, s, w, rows.len() / cols);
    #[cfg(target_arch = "x86_64")]
    let dq = std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512dq");
    let run = |block: &mut [u32], (l, acc): &mut (Vec<i32>, Vec<i64>)| {
        let n = block.len() / cols;
        l.clear();
        l.extend(
            block
                .chunks_exact(cols)
                .flat_map(|row| piv.iter().map(|&c| m.center(row[c]))),
        );
        if l.iter().all(|&x| x == 0) {
            return;
        }
        acc.resize(n * MM_COLS.min(w), 0);
        for j0 in (0..w).step_by(MM_COLS) {
            let wc = MM_COLS.min(w - j0);
            let acc = &mut acc[..n * wc];
            acc.fill(0);
            matmul_block(m, l, n, (u12, packed.as_deref()), s, w, j0, acc);
            for (row, sums) in block.chunks_exact_mut(cols).zip(acc.chunks_exact(wc)) {
                let row = &mut row[tail + j0..tail + j0 + wc];
                #[cfg(target_arch = "x86_64")]
                if dq {
                    // SAFETY: the CPU has AVX-512F and DQ; `sums` is as long as `row`.
                    unsafe { super::tiles::sub_reduced(m, row, sums) };
                    continue;
                }
                for (x, &p) in row.iter_mut().zip(sums) {
                    *x = m.sub(*x, m.reduce_i64(p));
                }
            }
        }
    };
    if parallel {
        rows.par_chunks_mut(MM_ROWS * cols)
            .for_each_init(|| (Vec::new(), Vec::new()), |bufs, block| run(block, bufs));
    } else {
        let mut bufs = (Vec::new(), Vec::new());
        for block in rows.chunks_mut(MM_ROWS * cols) {
            run(block, &mut bufs);
        }
    }
}

/// Zeroes the pivot columns of `rows`, where the multipliers were kept.
fn clear_multipliers(rows: &mut [u32], cols: usize, piv: &[usize]) {
    for row in rows.chunks_exact_mut(cols) {
        for &c in piv {
            row[c] = 0;
        }
    }
}

/// Gauss–Jordan's pivot rows (factored, their tails substituted, zero below their
/// pivots) brought to the reduced form `U⁻¹·block` over the columns from `k0`, `U` the
/// upper triangular matrix of their pivot columns: `U⁻¹` by back substitution (`s³/6`
/// products), then one product.
fn reduce_block(
    block: &mut [u32],
    cols: usize,
    (piv, k0): (&[usize], usize),
    m: Modulus,
    parallel: bool,
) {
    let s = piv.len();
    // `inv` row-major `s × s`, upper triangular: column `t` solves `U·x = e_t` upwards.
    let mut inv = vec![0u32; s * s];
    let d: Vec<u32> = (0..s)
        .map(|t| m.inv(block[t * cols + piv[t]]).expect("pivot is non-zero"))
        .collect();
    for t in 0..s {
        inv[t * s + t] = d[t];
        for i in (0..t).rev() {
            // x_i = −(Σ_{i<u≤t} U[i][u]·x_u) / U[i][i]
            let mut acc = 0u32;
            for u in i + 1..=t {
                acc = m.add(acc, m.mul(block[i * cols + piv[u]], inv[u * s + t]));
            }
            inv[i * s + t] = m.neg(m.mul(acc, d[i]));
        }
    }
    let inv: Vec<i32> = inv.iter().map(|&x| m.center(x)).collect();
    let b = centered(block, cols, (k0, cols), m);
    let w = cols - k0;
    let chunks: Vec<(usize, Vec<u32>)> = {
        let work = |j0: usize| {
            let wc = MM_COLS.min(w - j0);
            let mut out = vec![0u32; s * wc];
            for r0 in (0..s).step_by(MM_ROWS) {
                let n = MM_ROWS.min(s - r0);
                let mut acc = vec![0i64; n * wc];
                matmul_block(
                    m,
                    &inv[r0 * s..(r0 + n) * s],
                    n,
                    (&b, None),
                    s,
                    w,
                    j0,
                    &mut acc,
                );
                for (o, &p) in out[r0 * wc..(r0 + n) * wc].iter_mut().zip(&acc) {
                    *o = m.reduce_i64(p);
                }
            }
            (j0, out)
        };
        let starts: Vec<usize> = (0..w).step_by(MM_COLS).collect();
        if parallel {
            starts.into_par_iter().map(work).collect()
        } else {
            starts.into_iter().map(work).collect()
        }
    };
    for (j0, out) in chunks {
        let wc = out.len() / s;
        for (t, row) in block.chunks_exact_mut(cols).enumerate() {
            row[k0 + j0..k0 + j0 + wc].copy_from_slice(&out[t * wc..(t + 1) * wc]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prime of the tests.
    const P: u32 = 2_147_483_629;

    /// A `rows × cols` matrix of entries below `range` (`≤ P`) from a fixed stream, with the patterns that make
    /// panels pivot, skip and swap: zero leading entries (a row swap in every panel),
    /// columns zero below row 40 at a panel's and a leaf's first column and at a random
    /// place, and `dup` rows repeating earlier ones (rank deficiency).
    fn matrix(rows: usize, cols: usize, range: u32, seed: u64, dup: usize) -> Vec<u32> {
        let mut z = seed;
        let mut next = move || {
            z = z
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((z >> 33) % range as u64) as u32
        };
        let mut a: Vec<u32> = (0..rows * cols).map(|_| next()).collect();
        for i in 0..rows.min(cols) {
            if i % 7 == 0 {
                a[i * cols + i] = 0;
            }
        }
        for c in [PANEL, PANEL + LEAF, 77] {
            if c < cols {
                for i in 40.min(rows)..rows {
                    a[i * cols + c] = 0;
                }
            }
        }
        for d in 0..dup.min(rows / 2) {
            let (src, dst) = (d * 3 % rows, rows - 1 - d);
            for j in 0..cols {
                a[dst * cols + j] = a[src * cols + j];
            }
        }
        a
    }

    /// The blocked elimination gives the unblocked one's matrix, rank and determinant:
    /// square, wide (`[A | B]`), tall, rank-deficient, forward and Gauss–Jordan, in
    /// parallel and not, with random and 0/1 entries, across one, two and three panels.
    #[test]
    fn panels_give_the_unblocked_elimination() {
        let shapes = [
            (1, 1, 1),
            (5, 9, 5),
            (LEAF + 1, LEAF + 1, LEAF + 1),
            (PANEL - 1, PANEL - 1, PANEL - 1),
            (PANEL, PANEL, PANEL),
            (PANEL + 1, PANEL + 1, PANEL + 1),
            (300, 300, 300),
            (290, 600, 290),
            (300, 310, 300),
            (600, 200, 200),
            (2 * PANEL + 7, 2 * PANEL + 7, 2 * PANEL + 7),
        ];
        for (k, &(rows, cols, pivot_cols)) in shapes.iter().enumerate() {
            for (range, dup) in [(P, 0), (P, 5), (2, 0), (2, 3)] {
                let m = Modulus::new(P).expect("prime");
                let a = matrix(rows, cols, range, k as u64 * 31 + range as u64, dup);
                for jordan in [false, true] {
                    let mut want = a.clone();
                    let e = linalg::eliminate(&mut want, rows, cols, pivot_cols, jordan, m);
                    for parallel in [false, true] {
                        let mut got = a.clone();
                        let f = eliminate(&mut got, (rows, cols, pivot_cols), jordan, m, parallel);
                        let what = format!(
                            "{rows}×{cols} ({pivot_cols}), entries below {range}, dup {dup}, jordan {jordan}"
                        );
                        assert_eq!(f, e, "{what}");
                        assert!(got == want, "{what}: matrices differ");
                    }
                }
            }
        }
    }

    /// A matrix with a known determinant (upper triangular with a chosen diagonal, rows
    /// mixed by a unit lower factor, and swapped) over three panels: `det` and full rank.
    #[test]
    fn panels_give_a_known_determinant() {
        let n = 2 * PANEL + 40;
        let m = Modulus::new(P).expect("prime");
        let mut u = matrix(n, n, P, 9, 0);
        let mut want = 1u32;
        for i in 0..n {
            for j in 0..i {
                u[i * n + j] = 0;
            }
            u[i * n + i] = 1 + (i as u32 % 5);
            want = m.mul(want, u[i * n + i]);
        }
        // Row i += 3·row (i − 1), from the bottom, then rows 0 and n − 1 swapped.
        for i in (1..n).rev() {
            for j in 0..n {
                let add = m.mul(3, u[(i - 1) * n + j]);
                u[i * n + j] = m.add(u[i * n + j], add);
            }
        }
        for j in 0..n {
            u.swap(j, (n - 1) * n + j);
        }
        let e = eliminate(&mut u, (n, n, n), false, m, true);
        assert_eq!(e.rank as usize, n);
        assert_eq!(e.det, m.neg(want));
    }

    /// The CPU backend's elimination on both sides of [`BLOCKED_FROM`] (one prime: the
    /// panels in parallel; three: one thread each) gives the unblocked result.
    #[test]
    fn both_sides_of_the_threshold_agree() {
        let primes = [P, 2_147_483_587, 2_147_483_579];
        for n in [BLOCKED_FROM - 1, BLOCKED_FROM] {
            for channels in [1, 3] {
                let moduli: Vec<Modulus> = primes[..channels]
                    .iter()
                    .map(|&p| Modulus::new(p).expect("prime"))
                    .collect();
                let a: Vec<u32> = (0..channels)
                    .flat_map(|c| matrix(n, n + 1, 2, c as u64, 2))
                    .collect();
                for jordan in [false, true] {
                    let mut got = a.clone();
                    let e =
                        super::super::eliminate_per_channel(&moduli, n, n + 1, n, jordan, &mut got);
                    for (c, &m) in moduli.iter().enumerate() {
                        let size = n * (n + 1);
                        let mut want = a[c * size..(c + 1) * size].to_vec();
                        let f = linalg::eliminate(&mut want, n, n + 1, n, jordan, m);
                        assert_eq!(e[c], f, "n {n}, channel {c}, jordan {jordan}");
                        assert!(
                            got[c * size..(c + 1) * size] == want[..],
                            "n {n}, channel {c}"
                        );
                    }
                }
            }
        }
    }
}
