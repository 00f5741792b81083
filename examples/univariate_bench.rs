//! Univariate resultants modulo many primes on the GPU (issue 17): the block-per-prime
//! kernel at several block sizes against the thread-per-prime kernel, kernel times by
//! device events on the same inputs, answers compared with the CPU backend; then the
//! library call `resultant_with_stats` host in, host out on the GPU and the CPU backend,
//! with its stages. With `--dump DIR` each instance's moduli and residues are written to
//! `DIR/<deg>_<bits>.bin` for `device/reference/resultant.cu` (the same algorithm in CUDA C).
//!
//! `cargo run --release --example univariate_bench [-- --dump DIR] [--quick]
//! [--shapes DEG:BITS,…] [--threads T,…] [--wide DEG,…] [--sample CHANNELS]
//! [--kernels-only]` (`--wide`: the degrees from which the block kernel's rounds take 16
//! steps, each timed; 0 from the least, `max` never).

use rns::backend::cpu;
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::{Resultant, ResultantBlock};
use rns::backend::gpu::Gpu;
use rns::num::layout;
use rns::{resultant, Backend, BackendChoice};
use rns_core::launch::{resultant_block_scratch, resultant_block_words, RESULTANT_WIDE_FROM};
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

/// Median of 5 timed runs of `run(true)` after one warm-up (one timed run from degree
/// 4000); `run(false)` before each, untimed, prepares its input.
fn timed(g: &Gpu, deg: usize, mut run: impl FnMut(bool) -> rns::Result<()>) -> R<f64> {
    let mut t = Vec::new();
    for i in 0..if deg >= 4000 { 2 } else { 6 } {
        run(false)?;
        g.sync()?;
        let ms = g.time_ms(|| run(true))?;
        if i > 0 {
            t.push(ms);
        }
    }
    Ok(median(t))
}

/// The value after `--name` parsed as a comma-separated list, or `default`.
fn list<T: std::str::FromStr + Clone>(args: &[String], name: &str, default: &[T]) -> Vec<T> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().collect();
    let dump = args
        .iter()
        .position(|a| a == "--dump")
        .and_then(|i| args.get(i + 1));
    // --shapes 8000:64,16000:64 --threads 256,512 --sample 4096 (channels timed).
    let default: Vec<String> = if args.iter().any(|a| a == "--quick") {
        QUICK.iter().map(|(d, b)| format!("{d}:{b}")).collect()
    } else {
        SHAPES.iter().map(|(d, b)| format!("{d}:{b}")).collect()
    };
    let shapes: Vec<(usize, u32)> = list(&args, "--shapes", &default)
        .iter()
        .filter_map(|s: &String| {
            let (d, b) = s.split_once(':')?;
            Some((d.parse().ok()?, b.parse().ok()?))
        })
        .collect();
    let thread_counts: Vec<u32> = list(&args, "--threads", &[32, 64, 128, 256, 512]);
    let sample = list(&args, "--sample", &[usize::MAX])[0];
    let wides: Vec<usize> = list(&args, "--wide", &["default".to_string()])
        .iter()
        .map(|w: &String| match w.as_str() {
            "max" => usize::MAX,
            "default" => RESULTANT_WIDE_FROM,
            w => w.parse().expect("--wide takes degrees, or max"),
        })
        .collect();
    let gb = Backend::select(BackendChoice::Gpu)?;
    let g: Arc<Gpu> = gb.gpu().expect("a GPU backend").clone();
    let mut gen = Gen::new(2026);
    for &(deg, bits) in &shapes {
        let (f, h) = (gen.poly(deg, bits), gen.poly(deg, bits));
        let basis = rns::algo::resultant::basis_for(&f, &h);
        let coeffs: Vec<Integer> = f.coeffs().iter().chain(h.coeffs()).cloned().collect();
        let all = basis.channels();
        // Large degrees: the kernels are timed (and checked) on the first `sample`
        // channels, and the per-channel figures scaled to all of them.
        let k = all.min(sample);
        let per = 2 * deg + 2;
        let sub = if k < all {
            Arc::new(rns::RnsBasis::from_primes(&basis.primes()[..k])?)
        } else {
            basis.clone()
        };
        // A basis of the first primes may carry one more (its redundant prime).
        let k = sub.channels();
        let data = Backend::Cpu.to_rns(&sub, &coeffs)?.residues().to_vec();
        let moduli = sub.moduli();
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
        // The CPU's answers for the first channels (all of them up to degree 2000).
        let checked = if deg <= 2000 {
            k
        } else if deg <= 8000 {
            k.min(64)
        } else {
            k.min(16)
        };
        let t0 = Instant::now();
        let want = cpu::resultant_per_channel(&moduli[..checked], deg, deg, &data[..checked * per]);
        let cpu_modular = t0.elapsed().as_secs_f64() * 1e3 * k as f64 / checked as f64;
        let (dm, dd) = (
            raw::upload(&g, &moduli_words(moduli))?,
            raw::upload(&g, &data)?,
        );
        let mut dout = raw::alloc(&g, k)?;
        let mut blocks = Vec::new();
        let fits = resultant_block_words(deg, deg) * 4 <= g.shared_memory();
        for shared in [true, false].into_iter().filter(|&s| fits || !s) {
            let scratch = resultant_block_scratch(deg, deg, shared);
            let mut work = raw::alloc(&g, k * scratch)?;
            for (&threads, &wide_from) in thread_counts
                .iter()
                .flat_map(|t| wides.iter().map(move |w| (t, w)))
            {
                let shape = ResultantBlock {
                    channels: k,
                    df: deg,
                    dg: deg,
                    threads,
                    shared,
                    wide: launch::resultant_block_wide(shared, deg, deg, wide_from),
                };
                let ms = timed(&g, deg, |go| {
                    if !go {
                        return Ok(());
                    }
                    let s = raw::stream(&g);
                    launch::launch_resultant_block(&g, s, shape, &mut dout, &dd, &mut work, &dm)
                })?;
                assert_eq!(
                    raw::download(&g, &dout, k)?[..checked],
                    want[..],
                    "block kernel ({threads} threads, shared {shared}, wide from {wide_from}) differs from CPU"
                );
                blocks.push((threads, shared, wide_from, ms));
            }
        }
        let (best_t, best_s, _, best) = blocks
            .iter()
            .copied()
            .min_by(|a, b| a.3.total_cmp(&b.3))
            .expect("block sizes");
        // deg²/2 coefficient-steps a prime (the remainders from degree deg down), two
        // wide products each.
        let products = k as f64 * (deg as f64).powi(2);
        let scale = all as f64 / k as f64;
        println!(
            "resultant deg {deg}, {bits}-bit, {all} primes ({k} timed): block kernel {}; best {best:.3} ms at {best_t} threads{} ({:.0} G wide products/s, {:.1} ms for all primes); CPU backend per-prime resultants {:.1} ms for all",
            blocks
                .iter()
                .map(|&(t, s, w, ms)| {
                    let w = if wides.len() > 1 { format!(" w{w}") } else { String::new() };
                    format!("{t}{}{w}: {ms:.3} ms", if s { "s" } else { "g" })
                })
                .collect::<Vec<_>>()
                .join(", "),
            if best_s { " in shared memory" } else { " in global memory" },
            products / (best * 1e-3) / 1e9,
            best * scale,
            cpu_modular * scale,
        );
        if deg <= 2000 {
            let src = raw::upload(&g, &layout::to_channel_major(&data, k, per))?;
            let mut work = raw::alloc(&g, k * per)?;
            let shape = Resultant {
                channels: k,
                df: deg,
                dg: deg,
            };
            // The thread kernel overwrites its input: a fresh copy before each run.
            let thread = timed(&g, deg, |go| {
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
            println!(
                "  thread kernel {thread:.3} ms: block {:.1}x thread",
                thread / best
            );
        }
        if args.iter().any(|a| a == "--kernels-only") {
            continue;
        }
        // The library call, host in and host out (after a warm-up), and the CPU backend's
        // up to degree 2000.
        resultant(&f, &h, &gb)?;
        let t0 = Instant::now();
        let (r, st) = rns::resultant_with(&f, &h, &gb, &rns::ResultantOptions::default())?;
        let gpu_total = t0.elapsed().as_secs_f64() * 1e3;
        let stages: Vec<String> = st
            .stages
            .iter()
            .map(|(n, d)| format!("{n} {:.1}", d.as_secs_f64() * 1e3))
            .collect();
        let cpu = if deg <= 2000 {
            let t0 = Instant::now();
            let rc = resultant(&f, &h, &Backend::Cpu)?;
            let cpu_total = t0.elapsed().as_secs_f64() * 1e3;
            assert_eq!(r, rc, "GPU and CPU resultants differ");
            format!(
                ", cpu backend {cpu_total:.1} ms: {:.1}x",
                cpu_total / gpu_total
            )
        } else {
            String::new()
        };
        println!(
            "  library end to end: gpu {gpu_total:.1} ms ({}){cpu}",
            stages.join(", "),
        );
    }
    Ok(())
}
