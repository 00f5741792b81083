//! The determinant modulo many primes on the GPU, kernels only (residues already on the
//! device): the fused integer-unit kernel `rns_det_blocked` against the trailing updates
//! on the tensor cores by panels of several widths. Device events, median of 5 after a
//! warm-up; every variant's determinants equal the fused kernel's.
//!
//! Then the few-prime determinants of Dixon's `det A / d` (`Gpu::det_mod_limbs`, the
//! matrix's limbs already on the device, wall clock, median of 5): by Schur complements
//! (the default where the matrices do not fit in shared memory whole), by panels, one
//! pivot per launch.
//!
//! `cargo run --release --example det_bench -- [N [PRIMES [PANELS [FEW]]]]`: `N × N`
//! matrices (1000), one per prime (2169: an exact det 1000² with 64-bit entries), panels
//! a comma-separated list (`64,128,256`), FEW primes for `det A / d` (25).

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::Det;
use rns::backend::gpu::ops;
use rns::backend::gpu::Gpu;
use rns::{RnsBasis, RnsVec};
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(1000), |s| s.parse())?;
    let primes: usize = args.get(1).map_or(Ok(2169), |s| s.parse())?;
    let panels: Vec<usize> = match args.get(2) {
        Some(s) => s.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![64, 128, 256],
    };
    let few: usize = args.get(3).map_or(Ok(25), |s| s.parse())?;
    let g = Gpu::get()?;
    let basis = std::sync::Arc::new(RnsBasis::largest_primes(primes)?);
    let mats = RnsVec::random(&basis, n * n, 11);
    let moduli = raw::upload(&g, &moduli_words(basis.moduli()))?;
    let src = raw::upload(&g, mats.residues())?;
    let mut work = raw::alloc(&g, src.len())?;
    let mut dets = raw::alloc(&g, primes)?;
    let shape = Det {
        n,
        channels: primes,
    };
    let mut time = |what: &str| -> R<(f64, Vec<u32>)> {
        let mut ts = Vec::new();
        for _ in 0..6 {
            raw::copy(&g, &mut work, &src)?;
            ts.push(g.time_ms(|| {
                launch::launch_det(&g, raw::stream(&g), shape, &mut dets, &mut work, &moduli)
            })?);
        }
        ts.remove(0);
        let ms = median(ts);
        println!("det mod p {n}² × {primes}: {what} {ms:.2} ms");
        Ok((ms, raw::download(&g, &dets, primes)?))
    };
    g.config().set_tensor_cores(Some(false));
    let (fused, want) = time("fused integer units")?;
    g.config().set_tensor_cores(Some(true));
    for p in panels {
        g.config().set_det_panel(Some(p));
        let (ms, got) = time(&format!("tensor cores, panels of {p}"))?;
        if got != want {
            return Err(format!("panels of {p}: the determinants differ").into());
        }
        println!("  {:.2}x the fused kernel", fused / ms);
    }
    g.config().set_det_panel(None);
    few_primes(&g, n, few)
}

/// `det A mod p` for `few` primes of an `n × n` matrix with 28-bit entries whose limbs
/// are on the device, each way, the answers compared.
fn few_primes(g: &Gpu, n: usize, few: usize) -> R<()> {
    let moduli = RnsBasis::largest_primes(few)?.moduli().to_vec();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let words: Vec<u32> = (0..n * n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 36) as i32 - (1 << 27)) as u32
        })
        .collect();
    let limbs = ops::upload_limbs(g, &words, n, 1)?;
    let mut want = None;
    // (tensor cores, shared-memory cap): a cap too small for the strips leaves panels.
    for (what, tensor, cap) in [
        ("Schur complements", None, None),
        ("panels", Some(true), Some(8192)),
        ("one pivot per launch", Some(false), None),
    ] {
        g.config().set_tensor_cores(tensor);
        g.config().set_shared_memory_limit(cap);
        let mut ts = Vec::new();
        let mut got = Vec::new();
        for _ in 0..6 {
            let t = Instant::now();
            got = ops::det_mod_limbs(g, &limbs, &moduli)?;
            ts.push(t.elapsed().as_secs_f64() * 1e3);
        }
        ts.remove(0);
        println!(
            "det mod p {n}² × {few} (det A / d): {what} {:.2} ms",
            median(ts)
        );
        if want.get_or_insert_with(|| got.clone()) != &got {
            return Err(format!("{what}: the determinants differ").into());
        }
    }
    g.config().set_tensor_cores(None);
    g.config().set_shared_memory_limit(None);
    Ok(())
}
