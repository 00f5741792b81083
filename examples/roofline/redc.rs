//! The solve's coprimality proof (`ops::redc`): the integer units' extension product and
//! the elementwise kernels around the extensions, at the 4000² solve's bases, each answer
//! checked against `rns_core::redc` on the host.

use super::{gpu_ms, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch::redc::{self as lr, Redc};
use rns::backend::gpu::Gpu;
use rns::num::redc::RedcBases;
use rns_core::redc::{end_step, gamma, mid_step, pair_step};
use rns_core::Modulus;
use rns_suite::bench::xorshift_below;
use rug::Integer;

/// Entries checked a kernel: every `len / CHECKS`-th.
const CHECKS: usize = 4096;

/// `rows` rows of random residues, channel `c` below `moduli[c]`.
fn residues(moduli: &[Modulus], rows: usize, seed: u64) -> Vec<u32> {
    let raw = xorshift_below(rows * moduli.len(), u32::MAX, seed);
    raw.iter()
        .enumerate()
        .map(|(e, &x)| x % moduli[e % moduli.len()].m)
        .collect()
}

/// Indices of the entries checked among `len`.
fn sample(len: usize) -> impl Iterator<Item = usize> {
    (0..len).step_by((len / CHECKS).max(1))
}

/// The integer-unit extension (against the mul-add limit) and the three steps and the
/// columns' reduction (against the copy).
pub fn rows(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let (bits, pairs) = if quick { (3000, 64) } else { (274_000, 2048) };
    let r = (Integer::from(1) << (bits - 1)) + 12_345u32;
    let b = RedcBases::new(&(r | 1u32)).ok_or("no bases")?;
    let s = Redc {
        k: b.k(),
        k2: b.k2(),
    };
    let (k, k2, n) = (s.k, s.k2, s.n());
    let st = raw::stream(g);
    let dm = raw::upload(g, &moduli_words(&b.moduli))?;
    let dc = raw::upload(g, &b.consts)?;
    let size = format!("{pairs} pairs, |B| = {k}, |B'| = {k2}");
    let mut out = Vec::new();

    // Step 1: pairs of rows into products and σ three times over.
    let x = residues(&b.moduli, 2 * pairs, 11);
    let dx = raw::upload(g, &x)?;
    let (mut prod, mut sigma) = (raw::alloc(g, pairs * n)?, raw::alloc(g, 3 * pairs * k)?);
    let ms = gpu_ms(g, || {
        lr::launch_redc_pairs(g, st, (&mut prod, &mut sigma), &dx, (&dm, &dc), s, pairs)
    })?;
    let (hp, hs) = (
        raw::download(g, &prod, pairs * n)?,
        raw::download(g, &sigma, 3 * pairs * k)?,
    );
    for e in sample(pairs * n) {
        let (i, ch) = (e / n, e % n);
        let (p, sg) = pair_step(
            b.moduli[ch],
            x[2 * i * n + ch],
            x[(2 * i + 1) * n + ch],
            b.consts[3 * ch],
        );
        let third = ch >= k || (0..3).all(|c| hs[c * pairs * k + i * k + ch] == sg);
        if hp[e] != p || !third {
            return Err(format!("rns_redc_pairs wrong at {e}").into());
        }
    }
    let bytes = 4.0 * pairs as f64 * (3 * n + 3 * k) as f64;
    out.push(Row::new(
        "`rns_redc_pairs` (step 1)",
        &size,
        bytes / (ms * 1e-3) / 1e9,
        roofs.copy,
        "two rows in, a product and σ three times out",
    ));

    // Step 3, from the products and random first-extension sums.
    let cols = k2 + 1;
    let ext = residues(&b.moduli[k..], pairs, 12);
    let dext = raw::upload(g, &ext)?;
    let (mut xn, mut sigma2) = (raw::alloc(g, pairs * n)?, raw::alloc(g, 3 * pairs * k2)?);
    let ms = gpu_ms(g, || {
        lr::launch_redc_mid(
            g,
            st,
            (&mut xn, &mut sigma2),
            (&prod, &dext),
            (&dm, &dc),
            s,
            pairs,
        )
    })?;
    let (hx, hs) = (
        raw::download(g, &xn, pairs * n)?,
        raw::download(g, &sigma2, 3 * pairs * k2)?,
    );
    for e in sample(pairs * cols) {
        let (i, c) = (e / cols, e % cols);
        let ch = k + c;
        let q = (b.consts[3 * ch], b.consts[3 * ch + 1], b.consts[3 * ch + 2]);
        let (t, sg) = mid_step(b.moduli[ch], hp[i * n + ch], ext[e], q);
        let third = c >= k2 || (0..3).all(|p| hs[p * pairs * k2 + i * k2 + c] == sg);
        if hx[i * n + ch] != t || !third {
            return Err(format!("rns_redc_mid wrong at {e}").into());
        }
    }
    let bytes = 4.0 * pairs as f64 * (3 * cols + 3 * k2) as f64;
    out.push(Row::new(
        "`rns_redc_mid` (step 3)",
        &size,
        bytes / (ms * 1e-3) / 1e9,
        roofs.copy,
        "a product and a sum in, t and σ' three times out",
    ));

    // Step 5, from random second-extension sums into B's channels of the same rows.
    let mut b_red: Vec<Modulus> = b.moduli[..k].to_vec();
    b_red.push(b.moduli[n - 1]);
    let ext2 = residues(&b_red, pairs, 13);
    let dext2 = raw::upload(g, &ext2)?;
    let ms = gpu_ms(g, || {
        lr::launch_redc_end(g, st, &mut xn, &dext2, (&dm, &dc), s, pairs)
    })?;
    let he = raw::download(g, &xn, pairs * n)?;
    let red = b.moduli[n - 1];
    for e in sample(pairs * k) {
        let (i, j) = (e / k, e % k);
        let gm = gamma(
            red,
            ext2[i * (k + 1) + k],
            hx[i * n + n - 1],
            b.consts[3 * (n - 1) + 2],
        );
        let t = end_step(b.moduli[j], ext2[i * (k + 1) + j], gm, b.consts[3 * j + 1]);
        if he[i * n + j] != t {
            return Err(format!("rns_redc_end wrong at {e}").into());
        }
    }
    let bytes = 4.0 * pairs as f64 * (2 * k) as f64;
    out.push(Row::new(
        "`rns_redc_end` (step 5)",
        &size,
        bytes / (ms * 1e-3) / 1e9,
        roofs.copy,
        "a sum in, t out",
    ));
    drop((prod, sigma, sigma2, xn, dx, dext, dext2));

    // The columns' reduction of three channel primes' sums (the tensor cores' output).
    let primes = b.crt.p;
    let sums: Vec<u32> = (0..3)
        .flat_map(|c| residues(&[primes[c]], pairs * cols, 20 + c as u64))
        .collect();
    let (dsums, dp) = (
        raw::upload(g, &sums)?,
        raw::upload(g, &moduli_words(&primes))?,
    );
    let dto = raw::upload(g, &moduli_words(&b.moduli[k..]))?;
    let mut red_out = raw::alloc(g, pairs * cols)?;
    let ms = gpu_ms(g, || {
        let shape = (pairs, cols, cols);
        lr::launch_redc_columns(g, st, &mut red_out, &dsums, (&b.crt, &dp), &dto, shape)
    })?;
    let got = raw::download(g, &red_out, pairs * cols)?;
    let plane = pairs * cols;
    for e in sample(plane) {
        let want = b.crt.reduce(
            [sums[e], sums[plane + e], sums[2 * plane + e]],
            b.moduli[k + e % cols],
        );
        if got[e] != want {
            return Err(format!("rns_redc_columns wrong at {e}").into());
        }
    }
    out.push(Row::new(
        "`rns_redc_columns` (sums modulo three primes to a column's)",
        &size,
        16.0 * plane as f64 / (ms * 1e-3) / 1e9,
        roofs.copy,
        "three sums in, a residue out",
    ));
    drop((dsums, red_out));

    // The integer units' extension at a level of 64 pairs (below the tensor cores' rule).
    let rows = 64;
    let a: Vec<u32> = xorshift_below(rows * k, 1 << 31, 31);
    let w: Vec<u32> = xorshift_below(k * cols, 1 << 31, 32);
    let (da, dw) = (raw::upload(g, &a)?, raw::upload(g, &w)?);
    let mut sums = raw::alloc(g, rows * cols)?;
    let ms = gpu_ms(g, || {
        lr::launch_redc_extend(g, st, &mut sums, (&da, &dw), &dto, (rows, k, cols))
    })?;
    let got = raw::download(g, &sums, rows * cols)?;
    for e in (0..rows * cols).step_by((rows * cols / 64).max(1)) {
        let (i, c) = (e / cols, e % cols);
        let m = b.moduli[k + c].m as u128;
        let s = (0..k).fold(0u128, |s, j| {
            s + a[i * k + j] as u128 * w[j * cols + c] as u128
        });
        if got[e] as u128 != s % m {
            return Err(format!("rns_redc_extend wrong at {e}").into());
        }
    }
    let madds = (rows * k * cols) as f64;
    out.push(Row::new(
        "`rns_redc_extend` (integer units, 128-bit sums)",
        &format!("{rows} × {k} × {cols}"),
        madds / (ms * 1e-3) / 1e9,
        roofs.madd,
        "four products a 64-bit sum, then 128 bits",
    ));
    Ok(out)
}
