//! The univariate resultant's block kernel against its coefficient-step's chain.

use super::{gpu_ms, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::ResultantBlock;
use rns::backend::gpu::Gpu;
use rns::{Backend, RnsBasis};
use rug::Integer;
use std::sync::Arc;

/// The univariate resultant, a block per prime, against the coefficient-step chain.
pub fn rows(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let sizes: &[(usize, usize)] = if quick {
        &[(200, 64)]
    } else {
        &[(4000, 1056), (16_000, 1056)]
    };
    let mut rows = Vec::new();
    for &(deg, k) in sizes {
        rows.push(resultant_at(g, roofs, deg, k)?);
    }
    Ok(rows)
}

/// The block kernel at degree `deg` (64-bit coefficients) on `k` of its primes, in the
/// library's placement (`launch::resultant_block_shape`), the best of four block sizes.
fn resultant_at(g: &Gpu, roofs: &Roofs, deg: usize, k: usize) -> R<Row> {
    let bits = 64;
    let mut gen = rns_suite::Gen::new(2026);
    let (f, h) = (gen.poly(deg, bits), gen.poly(deg, bits));
    let all = rns::algo::resultant::basis_for(&f, &h);
    let b = Arc::new(RnsBasis::from_primes(
        &all.primes()[..k.min(all.channels())],
    )?);
    let k = b.channels();
    let coeffs: Vec<Integer> = f.coeffs().iter().chain(h.coeffs()).cloned().collect();
    let data = Backend::Cpu.to_rns(&b, &coeffs)?.residues().to_vec();
    let checked = k.min(8);
    let want = rns::backend::cpu::resultant_per_channel(
        &b.moduli()[..checked],
        deg,
        deg,
        &data[..checked * (2 * deg + 2)],
    );
    let (dm, dd) = (
        raw::upload(g, &moduli_words(b.moduli()))?,
        raw::upload(g, &data)?,
    );
    let mut out = raw::alloc(g, k)?;
    let chosen = launch::resultant_block_shape(g, k, deg, deg);
    let mut work = raw::alloc(
        g,
        k * rns_core::launch::resultant_block_scratch(deg, deg, chosen.shared),
    )?;
    let mut best = (f64::INFINITY, 0);
    let base = chosen.threads;
    for threads in [base / 2, base, 2 * base, 4 * base] {
        if !(32..=1024).contains(&threads) {
            continue;
        }
        let shape = ResultantBlock { threads, ..chosen };
        let ms = gpu_ms(g, || {
            let s = raw::stream(g);
            launch::launch_resultant_block(g, s, shape, &mut out, &dd, &mut work, &dm)
        })?;
        if raw::download(g, &out, k)?[..checked] != want[..] {
            return Err(format!("resultant ({threads} threads) differs from the CPU's").into());
        }
        if ms < best.0 {
            best = (ms, threads);
        }
    }
    let place = if chosen.shared { "shared" } else { "global" };
    let kernel = if chosen.wide {
        "`rns_resultant_block_global_wide` (a block a prime, rounds of 16 steps)"
    } else {
        "`rns_resultant_block` (a block a prime, rounds of 8 steps)"
    };
    // A prime's Euclid steps its remainders from degree deg down, each step one pass
    // over the coefficients: deg²/2 coefficient-steps, each two wide signed products and
    // a Montgomery reduction (`redc_coefficient`): against that step's chain.
    let steps = k as f64 * (deg as f64).powi(2) / 2.0;
    Ok(Row::new(
        kernel,
        &format!("deg {deg}, {bits}-bit, {k} primes, {place} memory"),
        steps / (best.0 * 1e-3) / 1e9,
        roofs.redc,
        &format!(
            "deg²/2 coefficient-steps a prime; {:.0} G wide products/s ({:.0} % of the \
             mad.wide chain); best {} threads (the library's {base})",
            2.0 * steps / (best.0 * 1e-3) / 1e9,
            roofs.madd.value.map_or(0.0, |v| 2e-4 * steps / best.0 / v),
            best.1
        ),
    ))
}
