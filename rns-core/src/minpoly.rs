//! The minimal polynomial modulo one prime: the least common multiple of the minimal
//! polynomials of generating vectors (the unit vector of the first column outside the
//! span found so far), each from its Krylov sequence `v, Av, A²v, …` reduced against the
//! earlier terms (echelon rows, each with its combination of the terms) until a term
//! depends on them. A second echelon basis holds the span of every term, so the next
//! generator lies outside it; the first generator's rows are that basis as they stand.
//! `O(n³)` for a generator of full degree. The GPU kernel `rns_minpoly` runs the same
//! steps with a block of threads per prime, sharing [`lcm_in_place`]; it keeps its rows
//! in reduced echelon form (every multiplier known at once, a thread a column), which
//! leaves the same residuals, so the same pivots, generators and polynomial.

use crate::linalg::sub_mul_row;
use crate::modulus::Modulus;

/// Where each part of [`minpoly`]'s scratch starts (in words), for an `n × n` matrix.
#[derive(Clone, Copy, Debug)]
pub struct Layout {
    /// Words of a Krylov row: the vector (`n`), then its combination of the terms
    /// (`n + 1`, constant first).
    pub width: usize,
    /// `n` Krylov rows of `width` words.
    pub krylov: usize,
    /// `n` rows of `n` words: the span of every term so far, in echelon form.
    pub basis: usize,
    /// The pivot column of each Krylov row (`n` words).
    pub kpiv: usize,
    /// The pivot column of each basis row (`n` words).
    pub bpiv: usize,
    /// 1 where a column is a pivot of the basis (`n` words).
    pub flags: usize,
    /// The current Krylov term (`n` words).
    pub raw: usize,
    /// The next term, or a term reduced against the basis (`n` words).
    pub next: usize,
    /// The working row (`width` words).
    pub x: usize,
    /// The multipliers of a reduction (`n` words).
    pub mult: usize,
    /// The least common multiple so far (`n + 1` words, constant first).
    pub mu: usize,
    /// Scratch of [`lcm_in_place`] (`n + 1` words).
    pub g: usize,
    /// Scratch of [`lcm_in_place`] (`n + 1` words).
    pub h: usize,
    /// Words in all.
    pub total: usize,
}

impl Layout {
    /// The layout for an `n × n` matrix.
    pub const fn new(n: usize) -> Layout {
        let width = 2 * n + 1;
        let krylov = 0;
        let basis = krylov + n * width;
        let kpiv = basis + n * n;
        let bpiv = kpiv + n;
        let flags = bpiv + n;
        let raw = flags + n;
        let next = raw + n;
        let x = next + n;
        let mult = x + width;
        let mu = mult + n;
        let g = mu + n + 1;
        let h = g + n + 1;
        Layout {
            width,
            krylov,
            basis,
            kpiv,
            bpiv,
            flags,
            raw,
            next,
            x,
            mult,
            mu,
            g,
            h,
            total: h + n + 1,
        }
    }
}

/// Words of scratch [`minpoly`] needs for an `n × n` matrix (about `3n²`).
pub const fn minpoly_scratch_words(n: usize) -> usize {
    Layout::new(n).total
}

/// The degree of the non-zero polynomial `u` below `below`, or `None` when its
/// coefficients `0..below` are all zero.
///
/// # Safety
/// `u` points to at least `below` words.
#[inline]
unsafe fn top(u: *const u32, below: usize) -> Option<usize> {
    let mut i = below;
    while i > 0 {
        i -= 1;
        if *u.add(i) != 0 {
            return Some(i);
        }
    }
    None
}

/// `u ← u mod v` for monic `v` of degree `dv` (`u` of degree `du`), the remainder's
/// degree returned (`None` for zero). With `keep`, the quotient's coefficient of `x^k`
/// is left in `u[dv + k]` (exact division: the remainder is then ignored).
///
/// # Safety
/// `u` holds `du + 1` words, `v` holds `dv + 1`, and they do not overlap.
#[inline]
unsafe fn divide(
    u: *mut u32,
    du: usize,
    v: *const u32,
    dv: usize,
    keep: bool,
    m: Modulus,
) -> Option<usize> {
    let mut i = du + 1;
    while i > dv {
        i -= 1;
        let c = *u.add(i);
        if c != 0 {
            let s = m.shoup(c);
            for j in 0..dv {
                let at = u.add(i - dv + j);
                *at = m.sub(*at, m.mul_shoup(*v.add(j), c, s));
            }
        }
        if !keep {
            *u.add(i) = 0;
        }
    }
    top(u, dv.min(du + 1))
}

/// Makes `v` (degree `dv`, leading coefficient non-zero) monic.
///
/// # Safety
/// `v` holds `dv + 1` words.
#[inline]
unsafe fn make_monic(v: *mut u32, dv: usize, m: Modulus) {
    let inv = m.inv(*v.add(dv)).unwrap_or(0);
    for j in 0..=dv {
        *v.add(j) = m.mul(*v.add(j), inv);
    }
}

/// `mu ← lcm(mu, b)` for monic `mu` of degree `dmu` and monic `b` of degree `db`
/// (`mu · b / gcd(mu, b)`, Euclid's gcd); returns the new degree. `g` and `h` are scratch
/// of `max(dmu, db) + 1` words each; `mu` has room for the result's coefficients.
///
/// # Safety
/// The pointers hold the words above, `b` outside `mu`, `g` and `h`, and no other thread
/// touches them meanwhile. Raw pointers: the kernel shares this code and may not hold a
/// bounds check.
#[inline]
pub unsafe fn lcm_in_place(
    mu: *mut u32,
    dmu: usize,
    b: *const u32,
    db: usize,
    (g, h): (*mut u32, *mut u32),
    m: Modulus,
) -> usize {
    if dmu == 0 {
        for j in 0..=db {
            *mu.add(j) = *b.add(j);
        }
        return db;
    }
    for j in 0..=dmu {
        *g.add(j) = *mu.add(j);
    }
    for j in 0..=db {
        *h.add(j) = *b.add(j);
    }
    // Euclid: (u, v) ← (v, u mod v) until the remainder is zero; v is then the gcd.
    let (mut u, mut du, mut v, mut dv) = (g, dmu, h, db);
    loop {
        make_monic(v, dv, m);
        match divide(u, du, v, dv, false, m) {
            None => break,
            Some(dr) => {
                core::mem::swap(&mut u, &mut v);
                du = dv;
                dv = dr;
            }
        }
    }
    if dv == db {
        return dmu; // b divides mu
    }
    // q = b / gcd in u (coefficient k at u[dv + k]), then mu ← mu · q from the top down.
    for j in 0..=db {
        *u.add(j) = *b.add(j);
    }
    divide(u, db, v, dv, true, m);
    let dq = db - dv;
    let q = u.add(dv);
    let mut i = dmu + dq + 1;
    while i > 0 {
        i -= 1;
        let mut s = 0;
        let lo = i.saturating_sub(dq);
        let mut j = lo;
        while j <= i && j <= dmu {
            s = m.add(s, m.mul(*mu.add(j), *q.add(i - j)));
            j += 1;
        }
        *mu.add(i) = s;
    }
    dmu + dq
}

/// `dst ← A · src` for the row-major `n × n` matrix `a`, each row's sum exact
/// ([`dot_wide`](crate::charpoly::dot_wide)) and reduced once.
fn mat_vec(a: &[u32], n: usize, src: &[u32], dst: &mut [u32], m: Modulus) {
    for (row, d) in a.chunks_exact(n).zip(dst.iter_mut()) {
        let acc = crate::charpoly::dot_wide(row, &src[..n]);
        *d = m.reduce_limbs(&[acc as u64, (acc >> 64) as u64]);
    }
}

/// Reduces `x` against the echelon rows `rows` (each `stride` words apart, its pivot in
/// `piv`), over the first `x.len()` columns, in the rows' order: each row is zero at
/// the earlier rows' pivots, so `x`'s entry at a row's pivot, read when its turn comes,
/// is the multiplier. Returns the first non-zero column below `n`, or `None`. The
/// residual is the one vector of `x + span` that is zero at every pivot, whatever the
/// echelon form: the kernel's reduced form gives the same.
fn reduce(
    x: &mut [u32],
    rows: &[u32],
    stride: usize,
    piv: &[u32],
    n: usize,
    m: Modulus,
) -> Option<usize> {
    let w = x.len();
    for (i, &p) in piv.iter().enumerate() {
        let f = x[p as usize];
        if f != 0 {
            sub_mul_row(x, &rows[i * stride..i * stride + w], f, m);
        }
    }
    x[..n].iter().position(|&v| v != 0)
}

/// Scales `x` so that `x[p] = 1` and appends it as row `count` (`stride` words apart;
/// zero beyond `x.len()`).
fn append(x: &mut [u32], p: usize, rows: &mut [u32], stride: usize, count: usize, m: Modulus) {
    let inv = m.inv(x[p]).unwrap_or(0);
    let s = m.shoup(inv);
    for v in x.iter_mut() {
        *v = m.mul_shoup(*v, inv, s);
    }
    let row = &mut rows[count * stride..(count + 1) * stride];
    row[..x.len()].copy_from_slice(x);
    row[x.len()..].fill(0);
}

/// The minimal polynomial of the row-major `n × n` matrix `a` modulo `m`: its
/// coefficients, constant first, written to `out` (`n + 1` words, zero above the degree,
/// which is returned). `scratch` holds [`minpoly_scratch_words`]`(n)` words.
pub fn minpoly(a: &[u32], n: usize, m: Modulus, scratch: &mut [u32], out: &mut [u32]) -> usize {
    assert!(a.len() >= n * n && scratch.len() >= minpoly_scratch_words(n) && out.len() > n);
    let l = Layout::new(n);
    let w = l.width;
    let (krylov, rest) = scratch.split_at_mut(l.basis);
    let (basis, rest) = rest.split_at_mut(n * n);
    let (kpiv, rest) = rest.split_at_mut(n);
    let (bpiv, rest) = rest.split_at_mut(n);
    let (flags, rest) = rest.split_at_mut(n);
    let (mut raw, rest) = rest.split_at_mut(n);
    let (mut next, rest) = rest.split_at_mut(n);
    let (xbuf, rest) = rest.split_at_mut(w);
    let (mu, rest) = rest[n..].split_at_mut(n + 1);
    let (g, h) = rest.split_at_mut(n + 1);
    flags.fill(0);
    mu[0] = 1;
    let (mut dmu, mut brows) = (0, 0);
    while brows < n {
        let c = flags.iter().position(|&f| f == 0).unwrap_or(0);
        raw.fill(0);
        raw[c] = 1;
        let first = brows == 0;
        let mut indep = !first;
        let mut krows = 0;
        loop {
            // Term k = krows: its vector, its combination e_k, reduced.
            let x = &mut xbuf[..n + krows + 1];
            x[..n].copy_from_slice(raw);
            x[n..].fill(0);
            x[n + krows] = 1;
            let Some(p) = reduce(x, krylov, w, &kpiv[..krows], n, m) else {
                // SAFETY: b = x[n..] (degree krows) lies outside mu, g and h, each n + 1 words.
                dmu = unsafe {
                    let b = x[n..].as_ptr();
                    lcm_in_place(
                        mu.as_mut_ptr(),
                        dmu,
                        b,
                        krows,
                        (g.as_mut_ptr(), h.as_mut_ptr()),
                        m,
                    )
                };
                break;
            };
            append(x, p, krylov, w, krows, m);
            kpiv[krows] = p as u32;
            krows += 1;
            if indep {
                next.copy_from_slice(&x[..n]);
                match reduce(next, basis, n, &bpiv[..brows], n, m) {
                    None => indep = false,
                    Some(q) => {
                        append(next, q, basis, n, brows, m);
                        bpiv[brows] = q as u32;
                        flags[q] = 1;
                        brows += 1;
                    }
                }
            }
            mat_vec(a, n, raw, next, m);
            core::mem::swap(&mut raw, &mut next);
        }
        if first {
            for (i, &p) in kpiv[..krows].iter().enumerate() {
                basis[i * n..(i + 1) * n].copy_from_slice(&krylov[i * w..i * w + n]);
                bpiv[i] = p;
                flags[p as usize] = 1;
            }
            brows = krows;
        }
    }
    out[..=n].fill(0);
    out[..=dmu].copy_from_slice(&mu[..=dmu]);
    dmu
}

#[cfg(test)]
mod tests;
