//! The CPU product's block with AVX-512: tiles of 4 rows × 16 columns of 64-bit sums kept
//! in eight registers while the inner dimension goes by (each step two loads of `b`,
//! four broadcasts of `a`, eight signed 32×32→64 products), folded every
//! [`LAZY_PRODUCTS`] steps ([`Modulus::fold`]). The rank-one updates of
//! [`super::matmul_block`]'s portable body load and store every sum at every step; here
//! they stay in registers. Rows and columns past the last whole tile go the portable way.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use rns_core::modulus::LAZY_PRODUCTS;
use rns_core::Modulus;

/// Rows and columns of a tile.
const TR: usize = 4;
const TC: usize = 16;

/// `acc[r][j] = Σ_t a[r][t]·b[t][j0 + j]` (folded sums, as [`super::matmul_block`]) for
/// the whole tiles of `acc` (`rows × w`, `w = acc.len() / rows`); returns the rows and
/// columns done (multiples of 4 and 16), the rest left to the caller.
///
/// # Safety
/// The CPU must have AVX-512F; `a` holds `rows × k` and `b` `k × p` centered residues
/// with `j0 + w ≤ p`; `packed`, when given, is [`pack`]`(b, k, p)` and `j0` a multiple
/// of 16.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn tiles(
    m: Modulus,
    a: &[i32],
    rows: usize,
    (b, packed): (&[i32], Option<&[i32]>),
    (k, p, j0): (usize, usize, usize),
    acc: &mut [i64],
) -> (usize, usize) {
    let w = acc.len() / rows;
    let (rows_done, cols_done) = (rows / TR * TR, w / TC * TC);
    let t = _mm512_set1_epi64(m.fold_factor() as i64);
    let fold = |x: __m512i| fold512(x, t);
    // Column strips outside, so that a strip of `b` (k × 16), copied together (its rows
    // are `p` words apart: a page each when `p` is large), serves every row tile; copied
    // here unless the caller packed them once ([`pack`]).
    STRIP.with_borrow_mut(|own| {
        for c0 in (0..cols_done).step_by(TC) {
            let strip: &[i32] = match packed {
                Some(all) => {
                    let s = (j0 + c0) / TC;
                    &all[s * k * TC..(s + 1) * k * TC]
                }
                None => {
                    own.resize(k * TC, 0);
                    copy_strip(b, p, j0 + c0, own);
                    own
                }
            };
            for r0 in (0..rows_done).step_by(TR) {
                let z = _mm512_setzero_si512();
                // Eight sums, named so that they stay in registers.
                let (mut s00, mut s01, mut s10, mut s11) = (z, z, z, z);
                let (mut s20, mut s21, mut s30, mut s31) = (z, z, z, z);
                let ar = a.as_ptr().add(r0 * k);
                let mut kk = 0;
                while kk < k {
                    let steps = LAZY_PRODUCTS.min(k - kk);
                    for u in kk..kk + steps {
                        let at = strip.as_ptr().add(u * TC);
                        let b0 = _mm512_cvtepi32_epi64(_mm256_loadu_si256(at as *const __m256i));
                        let b1 =
                            _mm512_cvtepi32_epi64(_mm256_loadu_si256(at.add(8) as *const __m256i));
                        let x0 = _mm512_set1_epi64(*ar.add(u) as i64);
                        let x1 = _mm512_set1_epi64(*ar.add(k + u) as i64);
                        let x2 = _mm512_set1_epi64(*ar.add(2 * k + u) as i64);
                        let x3 = _mm512_set1_epi64(*ar.add(3 * k + u) as i64);
                        s00 = _mm512_add_epi64(s00, _mm512_mul_epi32(x0, b0));
                        s01 = _mm512_add_epi64(s01, _mm512_mul_epi32(x0, b1));
                        s10 = _mm512_add_epi64(s10, _mm512_mul_epi32(x1, b0));
                        s11 = _mm512_add_epi64(s11, _mm512_mul_epi32(x1, b1));
                        s20 = _mm512_add_epi64(s20, _mm512_mul_epi32(x2, b0));
                        s21 = _mm512_add_epi64(s21, _mm512_mul_epi32(x2, b1));
                        s30 = _mm512_add_epi64(s30, _mm512_mul_epi32(x3, b0));
                        s31 = _mm512_add_epi64(s31, _mm512_mul_epi32(x3, b1));
                    }
                    kk += steps;
                    (s00, s01, s10, s11) = (fold(s00), fold(s01), fold(s10), fold(s11));
                    (s20, s21, s30, s31) = (fold(s20), fold(s21), fold(s30), fold(s31));
                }
                for (r, (v0, v1)) in [(s00, s01), (s10, s11), (s20, s21), (s30, s31)]
                    .into_iter()
                    .enumerate()
                {
                    let out = acc.as_mut_ptr().add((r0 + r) * w + c0);
                    _mm512_storeu_si512(out as *mut __m512i, v0);
                    _mm512_storeu_si512(out.add(8) as *mut __m512i, v1);
                }
            }
        }
    });
    (rows_done, cols_done)
}

/// The whole 16-column strips of `b` (`k × p`, row-major), each `k × 16` contiguous
/// (strip `s` at `s·k·16`): packed once for products that read `b` from many tasks.
pub(crate) fn pack(b: &[i32], k: usize, p: usize) -> Vec<i32> {
    let strips = p / TC;
    let mut out = vec![0i32; strips * k * TC];
    for (s, strip) in out.chunks_exact_mut(k * TC).enumerate() {
        copy_strip(b, p, s * TC, strip);
    }
    out
}

/// The 16 columns of `b` (rows `p` apart) from column `col`, row after row, into `strip`
/// (`k × 16`).
fn copy_strip(b: &[i32], p: usize, col: usize, strip: &mut [i32]) {
    for (u, dst) in strip.chunks_exact_mut(TC).enumerate() {
        dst.copy_from_slice(&b[u * p + col..u * p + col + TC]);
    }
}

/// [`pack`] where the AVX-512 tiles will read `b` from more than one task (`rows` of `a`
/// past one block of [`super::MM_ROWS`]); else `None` (each call copies its strips).
pub(crate) fn pack_if_tiled(b: &[i32], k: usize, p: usize, rows: usize) -> Option<Vec<i32>> {
    #[cfg(target_arch = "x86_64")]
    if rows > super::MM_ROWS && p >= TC && std::arch::is_x86_feature_detected!("avx512f") {
        return Some(pack(b, k, p));
    }
    let _ = (b, k, p, rows);
    None
}

std::thread_local! {
    /// A strip of `b` copied together, per thread.
    static STRIP: std::cell::RefCell<Vec<i32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// [`Modulus::fold`] on eight sums: `(x >> 32)·t + (x mod 2^32)`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn fold512(x: __m512i, t: __m512i) -> __m512i {
    let low = _mm512_set1_epi64(0xFFFF_FFFF);
    _mm512_add_epi64(
        _mm512_mul_epi32(_mm512_srai_epi64::<32>(x), t),
        _mm512_and_si512(x, low),
    )
}

/// `row[j] ← row[j] − (sums[j] mod m)` for residues `row` and folded sums `sums`
/// (`|sums[j]| < 2^63`), eight at a time: the quotient `sums[j]/m` estimated in double
/// precision and rounded (off by at most one), the remainder formed exactly in 64 bits,
/// the difference brought into `[0, m)` by one addition or subtraction of `m`.
///
/// # Safety
/// The CPU must have AVX-512F and AVX-512DQ; `sums.len() ≥ row.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
pub(crate) unsafe fn sub_reduced(m: Modulus, row: &mut [u32], sums: &[i64]) {
    let len = row.len();
    let mv = _mm512_set1_epi64(m.m as i64);
    let inv = _mm512_set1_pd(1.0 / m.m as f64);
    let zero = _mm512_setzero_si512();
    let mut j = 0;
    while j + 8 <= len {
        let p = _mm512_loadu_si512(sums.as_ptr().add(j) as *const __m512i);
        let q = _mm512_roundscale_pd::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(
            _mm512_mul_pd(_mm512_cvtepi64_pd(p), inv),
        );
        let r = _mm512_sub_epi64(p, _mm512_mullo_epi64(_mm512_cvtpd_epi64(q), mv));
        let x = _mm512_cvtepu32_epi64(_mm256_loadu_si256(row.as_ptr().add(j) as *const __m256i));
        let v = _mm512_sub_epi64(x, r);
        let v = _mm512_mask_add_epi64(v, _mm512_cmplt_epi64_mask(v, zero), v, mv);
        let v = _mm512_mask_sub_epi64(v, _mm512_cmpge_epi64_mask(v, mv), v, mv);
        _mm256_storeu_si256(
            row.as_mut_ptr().add(j) as *mut __m256i,
            _mm512_cvtepi64_epi32(v),
        );
        j += 8;
    }
    for (x, &p) in row[j..].iter_mut().zip(&sums[j..]) {
        *x = m.sub(*x, m.reduce_i64(p));
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;
    use rns_core::linalg;

    const P: u32 = 2_147_483_629;

    /// `(rows × k)·(k × w)` from the `j0`-th column of `b` (`k × p`), the portable way:
    /// products added one by one, folded every `LAZY_PRODUCTS`.
    fn reference(
        m: Modulus,
        a: &[i32],
        rows: usize,
        b: &[i32],
        (k, p, j0): (usize, usize, usize),
        w: usize,
    ) -> Vec<i64> {
        let mut acc = vec![0i64; rows * w];
        for (r, row) in acc.chunks_exact_mut(w).enumerate() {
            for kk in 0..k {
                linalg::add_products(row, a[r * k + kk], &b[kk * p + j0..kk * p + j0 + w]);
                if kk % LAZY_PRODUCTS == LAZY_PRODUCTS - 1 {
                    linalg::fold_all(row, m.fold_factor());
                }
            }
        }
        acc
    }

    /// The tiles give the portable sums modulo `m` on every shape around a tile's edges,
    /// with the extreme centered residues (±(m − 1)/2) that make the sums largest.
    #[test]
    fn tiles_match_the_portable_sums_at_every_edge() {
        if !std::arch::is_x86_feature_detected!("avx512f") {
            eprintln!("SKIPPED: no AVX-512F on this CPU");
            return;
        }
        let m = Modulus::new(P).expect("prime");
        let half = (P / 2) as i32;
        let mut z = 5u64;
        let mut next = move || {
            z = z
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            match (z >> 60) % 4 {
                0 => half,
                1 => -half,
                _ => m.center(((z >> 20) % P as u64) as u32),
            }
        };
        for rows in [4, 5, 8, 9] {
            for w in [16, 17, 31, 32, 40] {
                for (k, j0) in [1, 3, 4, 5, 9, 64]
                    .into_iter()
                    .flat_map(|k| [(k, 3), (k, 16)])
                {
                    let p = w + j0 + 7;
                    let a: Vec<i32> = (0..rows * k).map(|_| next()).collect();
                    let b: Vec<i32> = (0..k * p).map(|_| next()).collect();
                    let want = reference(m, &a, rows, &b, (k, p, j0), w);
                    let packed = pack(&b, k, p);
                    // Strips packed once serve a `j0` on a strip's edge.
                    let ways = match j0 % 16 {
                        0 => vec![None, Some(&packed[..])],
                        _ => vec![None],
                    };
                    for way in ways {
                        let mut acc = vec![0i64; rows * w];
                        // SAFETY: AVX-512F checked above; the shapes fit.
                        let (r, c) = unsafe { tiles(m, &a, rows, (&b, way), (k, p, j0), &mut acc) };
                        assert_eq!((r, c), (rows / 4 * 4, w / 16 * 16));
                        let what = format!("{rows}×{k}×{w} from {j0}, packed {}", way.is_some());
                        for i in 0..r {
                            for j in 0..c {
                                let (g, e) = (acc[i * w + j], want[i * w + j]);
                                assert_eq!(
                                    m.reduce_i64(g),
                                    m.reduce_i64(e),
                                    "{what} at ({i}, {j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// The vector reduction gives the scalar one on the sums' extremes, multiples of `m`
    /// and their neighbours, and every tail length.
    #[test]
    fn vector_reduction_matches_the_scalar_one() {
        if !(std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq"))
        {
            eprintln!("SKIPPED: no AVX-512F/DQ on this CPU");
            return;
        }
        let m = Modulus::new(P).expect("prime");
        let mut sums = vec![
            i64::MAX,
            i64::MIN + 1,
            0,
            1,
            -1,
            P as i64,
            -(P as i64),
            1 << 62,
            -(1 << 62),
        ];
        for q in [1i64, 2, 1 << 20, (1 << 32) - 1, 1 << 31] {
            for d in -1..=1 {
                sums.push(q * P as i64 + d);
                sums.push(-q * P as i64 + d);
            }
        }
        let xs: Vec<u32> = (0..sums.len())
            .map(|i| [0, 1, P - 1, P / 2][i % 4])
            .collect();
        for len in 0..=sums.len() {
            let mut got = xs[..len].to_vec();
            // SAFETY: AVX-512F and DQ checked above; `sums` is long enough.
            unsafe { sub_reduced(m, &mut got, &sums) };
            let want: Vec<u32> = xs[..len]
                .iter()
                .zip(&sums)
                .map(|(&x, &p)| m.sub(x, m.reduce_i64(p)))
                .collect();
            assert_eq!(got, want, "length {len}");
        }
    }
}
