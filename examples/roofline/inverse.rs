//! The inverse of one large matrix modulo a prime: by recursive Schur complements
//! (`ops::inverse::invert`, the library's path for the lifting's inverses) beside
//! Gauss–Jordan by panels on `[A | I]` (the path before it), both counted as `n³`
//! multiply-adds (the recursion's count; Gauss–Jordan on `[A | I]` does `1.5·n³`),
//! against the `mul_m` rate. Each inverse is checked: `A·(X·v) = v` on the host.

use super::{gpu_ms, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::{launch, ops, Gpu};
use rns_core::Modulus;
use rns_suite::bench::xorshift_below;
use rns_suite::{matmul_mod_ref, LARGEST_PRIMES};

/// The rows of the `inverse` family.
pub fn rows(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let sizes: &[usize] = if quick {
        &[600]
    } else {
        &[1000, 2000, 4000, 8000]
    };
    let m = Modulus::new(LARGEST_PRIMES[0]).map_err(rns::Error::from)?;
    let mut rows = Vec::new();
    for &n in sizes {
        let a = xorshift_below(n * n, m.m, 0x9e37_79b9 + n as u64);
        // One prime, and three at once as the lifting takes them (the same matrix).
        for channels in [1, 3] {
            let dm = raw::upload(g, &moduli_words(&vec![m; channels]))?;
            let src = raw::upload(g, &a.repeat(channels))?;
            let words = channels * n * n;
            let (mut work, mut x) = (raw::alloc(g, words)?, raw::alloc(g, words)?);
            let ms = gpu_ms(g, || {
                raw::copy(g, &mut work, &src)?;
                let s = raw::stream(g);
                let shape = (n, channels);
                match ops::inverse::invert(g, s, &mut work, (&mut x, 0), &dm, shape)? {
                    ok if ok.iter().all(|&k| k) => Ok(()),
                    _ => Err(rns::Error::Internal("a singular leaf".into())),
                }
            })?;
            let got = raw::download(g, &x, words)?;
            for c in 0..channels {
                check(&a, &got[c * n * n..(c + 1) * n * n], n, m)?;
            }
            rows.push(Row::new(
                "inverse mod p, recursive Schur complements (`ops::inverse::invert`)",
                &format!("{n}², {channels} prime(s) at once"),
                channels as f64 * (n as f64).powi(3) / (ms * 1e-3) / 1e9,
                roofs.modmul,
                &format!(
                    "n³ multiply-adds a prime, six products of half the order a level on the \
                     tensor cores; {ms:.1} ms with a copy of the matrices"
                ),
            ));
        }
        let cube = (n as f64).powi(3);
        let dm = raw::upload(g, &moduli_words(&[m]))?;
        // Gauss–Jordan by panels on [A | I].
        let Some(b) = launch::inverse_panel(g, (n, 2 * n), 1, true) else {
            println!("Gauss–Jordan by panels: not the library's path at {n}²");
            continue;
        };
        let mut aug = vec![0u32; 2 * n * n];
        for i in 0..n {
            aug[i * 2 * n..i * 2 * n + n].copy_from_slice(&a[i * n..(i + 1) * n]);
            aug[i * 2 * n + n + i] = 1;
        }
        let src = raw::upload(g, &aug)?;
        let mut work = raw::alloc(g, 2 * n * n)?;
        let mut dets = raw::alloc(g, 1)?;
        let ms = gpu_ms(g, || {
            raw::copy(g, &mut work, &src)?;
            let s = raw::stream(g);
            launch::launch_inverse_panels(g, s, (n, 2 * n, 1), b, true, &mut dets, &mut work, &dm)
        })?;
        let got = raw::download(g, &work, 2 * n * n)?;
        let inv: Vec<u32> = (0..n)
            .flat_map(|i| got[i * 2 * n + n..(i + 1) * 2 * n].to_vec())
            .collect();
        check(&a, &inv, n, m)?;
        rows.push(Row::new(
            "inverse mod p, Gauss–Jordan by panels on [A | I]",
            &format!("{n}², 1 prime, panels of {b}"),
            cube / (ms * 1e-3) / 1e9,
            roofs.modmul,
            &format!("counted as n³ (it does 1.5·n³); the path before the recursion; {ms:.1} ms"),
        ));
    }
    Ok(rows)
}

/// `A·(X·v) = v` modulo `m` for a pseudo-random `v`, else an error.
fn check(a: &[u32], x: &[u32], n: usize, m: Modulus) -> R<()> {
    let v = xorshift_below(n, m.m, 77);
    let mul = |mat: &[u32], v: &[u32]| matmul_mod_ref(mat, v, n, n, 1, m.m);
    if mul(a, &mul(x, &v)) != v {
        return Err(format!("the inverse of order {n} fails A·(X·v) = v").into());
    }
    Ok(())
}
