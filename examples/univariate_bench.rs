//! Univariate resultants modulo many primes on the GPU (issue 17): the block-per-prime
//! kernel at several block sizes against the thread-per-prime kernel, kernel times by
//! device events on the same inputs, answers compared with the CPU backend; then the
//! library call `resultant_with_stats` host in, host out on the GPU and the CPU backend,
//! with its stages. With `--dump DIR` each instance's moduli and residues are written to
//! `DIR/<deg>_<bits>.bin` for `device/reference/resultant.cu` (the same algorithm in CUDA C).
//!
//! `cargo run --release --example univariate_bench [-- --dump DIR] [--quick]`

use rns::backend::cpu;
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::{Resultant, ResultantBlock};
use rns::backend::gpu::Gpu;
use rns::num::layout;
use rns::{resultant, Backend, BackendChoice};
use rns_suite::Gen;
use rug::Integer;
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// Degree and coefficient bits of the instances (issue 17's three, and the degree at
/// which the thread kernel was 1.2× the 16-core CPU).
const SHAPES: [(usize, u32); 4] = [(100, 100), (384, 100), (500, 1000), (2000, 64)];
const QUICK: [(usize, u32); 2] = [(40, 100), (100, 100)];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median of 5 timed runs of `run(true)` after one warm-up; `run(false)` before each,
/// untimed, prepares its input.
fn timed(g: &Gpu, mut run: impl FnMut(bool) -> rns::Result<()>) -> R<f64> {
    let mut t = Vec::new();
    for i in 0..6 {
        run(false)?;
        g.sync()?;
        let ms = g.time_ms(|| run(true))?;
        if i > 0 {
            t.push(ms);
        }
    }
    Ok(median(t))
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().collect();
    let dump = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1));
    let shapes: &[(usize, u32)] = if args.iter().any(|a| a == "--quick") {
        &QUICK
    } else {
        &SHAPES
    };
    let gb = Backend::select(BackendChoice::Gpu)?;
    let g: Arc<Gpu> = gb.gpu().expect("a GPU backend").clone();
    let mut gen = Gen::new(2026);
    for &(deg, bits) in shapes {
        let (f, h) = (gen.poly(deg, bits), gen.poly(deg, bits));
        let basis = rns::algo::resultant::basis_for(&f, &h);
        let coeffs: Vec<Integer> = f.coeffs().iter().chain(h.coeffs()).cloned().collect();
        let data = Backend::Cpu.to_rns(&basis, &coeffs)?.residues().to_vec();
        let (moduli, k, per) = (basis.moduli(), basis.channels(), 2 * deg + 2);
        if let Some(dir) = dump {
            let mut bytes = Vec::new();
            for w in [k as u32, deg as u32, deg as u32]
                .iter()
                .chain(moduli.iter().map(|m| &m.m))
                .chain(&data)
            {
                bytes.extend_from_slice(&w.to_le_bytes());
            }
            std::fs::write(format!("{dir}/{deg}_{bits}.bin"), bytes)?;
        }
        let t0 = Instant::now();
        let want = cpu::resultant_per_channel(moduli, deg, deg, &data);
        let cpu_modular = t0.elapsed().as_secs_f64() * 1e3;
        let checksum: u64 = want.iter().map(|&v| v as u64).sum();
        let (dm, dd) = (
            raw::upload(&g, &moduli_words(moduli))?,
            raw::upload(&g, &data)?,
        );
        let mut dout = raw::alloc(&g, k)?;
        let mut blocks = Vec::new();
        for threads in [32u32, 64, 128, 256, 512] {
            let shape = ResultantBlock {
                channels: k,
                df: deg,
                dg: deg,
                threads,
            };
            let ms = timed(&g, |go| {
                if !go {
                    return Ok(());
                }
                launch::launch_resultant_block(&g, raw::stream(&g), shape, &mut dout, &dd, &dm)
            })?;
            assert_eq!(
                raw::download(&g, &dout, k)?,
                want,
                "block kernel ({threads} threads) differs from CPU"
            );
            blocks.push((threads, ms));
        }
        let src = raw::upload(&g, &layout::to_channel_major(&data, k, per))?;
        let mut work = raw::alloc(&g, k * per)?;
        let shape = Resultant {
            channels: k,
            df: deg,
            dg: deg,
        };
        // The thread kernel overwrites its input: a fresh copy before each run.
        let thread = timed(&g, |go| {
            if !go {
                return raw::copy(&g, &mut work, &src);
            }
            launch::launch_resultant(&g, raw::stream(&g), shape, &mut dout, &mut work, &dm)
        })?;
        assert_eq!(
            raw::download(&g, &dout, k)?,
            want,
            "thread kernel differs from CPU"
        );
        let (best_t, best) = blocks
            .iter()
            .copied()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("block sizes");
        let products = k as f64 * 2.0 * (deg as f64).powi(2);
        println!(
            "resultant deg {deg}, {bits}-bit, {k} primes (checksum {checksum}): block kernel {}; best {best:.3} ms at {best_t} threads ({:.0} G mulmod/s); thread kernel {thread:.3} ms: block {:.1}x thread; CPU backend per-prime resultants {cpu_modular:.1} ms",
            blocks
                .iter()
                .map(|(t, ms)| format!("{t}: {ms:.3} ms"))
                .collect::<Vec<_>>()
                .join(", "),
            products / (best * 1e-3) / 1e9,
            thread / best,
        );
        // The library call, host in and host out, on both backends (after a warm-up).
        resultant(&f, &h, &gb)?;
        let t0 = Instant::now();
        let (r, st) = rns::resultant_with(&f, &h, &gb, &rns::ResultantOptions::default())?;
        let gpu_total = t0.elapsed().as_secs_f64() * 1e3;
        let t0 = Instant::now();
        let rc = resultant(&f, &h, &Backend::Cpu)?;
        let cpu_total = t0.elapsed().as_secs_f64() * 1e3;
        assert_eq!(r, rc, "GPU and CPU resultants differ");
        let stages: Vec<String> = st
            .stages
            .iter()
            .map(|(n, d)| format!("{n} {:.1}", d.as_secs_f64() * 1e3))
            .collect();
        println!(
            "  library end to end: gpu {gpu_total:.1} ms ({}), cpu backend {cpu_total:.1} ms: {:.1}x",
            stages.join(", "),
            cpu_total / gpu_total
        );
    }
    Ok(())
}
