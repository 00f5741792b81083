//! Gauss–Jordan elimination of `[A | B]` modulo every prime of an exact solve's basis on
//! the GPU (integers in, the kept columns `A⁻¹·B mod p` out: `Backend::eliminate_integers`,
//! wall clock, median of 3 after a warm-up): `rns_eliminate` (one block per prime, one
//! pivot at a time) against the blocked path with the updates on the tensor cores, by
//! panels of several widths. Every variant's results equal `rns_eliminate`'s. Then the
//! whole multimodular solve (`linalg::solve_with_method`) with its stages.
//!
//! `cargo run --release --example gj_bench -- [N [L [PANELS [RUNS]]]]`: `A` `N × N` (500)
//! with 64-bit entries, `B` `N × L` 64-bit (`L = N`, the default: `B = I`, the inverse),
//! panels a comma-separated list (`128,256`), RUNS timed runs of each (3; 1 skips the
//! warm-up). With a fifth argument `convert`: only the checked conversion of `N·L`
//! random numbers of about `69·N` bits (a solve's `det A · X`), stage by stage.

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::Eliminate;
use rns::backend::gpu::ops;
use rns::backend::gpu::Gpu;
use rns::mat::bounds::cramer_bits;
use rns::num::crt;
use rns::{Backend, BackendChoice, IntMatrix, Method, RnsBasis, RnsVec};
use rns_suite::Gen;
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(500), |s| s.parse())?;
    let l: usize = args.get(1).map_or(Ok(n), |s| s.parse())?;
    let panels: Vec<usize> = match args.get(2) {
        Some(s) => s.split(',').map(str::parse).collect::<Result<_, _>>()?,
        None => vec![128, 256],
    };
    let runs: usize = args.get(3).map_or(Ok(3), |s| s.parse())?;
    let g = Backend::select(BackendChoice::Gpu)?;
    let gpu = g.gpu().ok_or("no GPU")?.clone();
    if args.get(4).map(String::as_str) == Some("convert") {
        return convert(&g, n * l, (n * 69) as u64);
    }
    let mut gen = Gen::new(7);
    let a = gen.matrix(n, n, 64);
    let b = if l == n {
        IntMatrix::identity(n)
    } else {
        gen.matrix(n, l, 64)
    };
    let (_, bits) = cramer_bits(&a, &b).ok_or("singular")?;
    let basis = Arc::new(RnsBasis::for_bits(bits));
    let ab = a.augment(&b)?;
    let shape = (n, n + l, n);
    println!(
        "[A | B] {n}×{n} | {l}, 64-bit, {} primes ({bits} bits)",
        basis.channels()
    );
    let time = |what: &str| -> R<(f64, Vec<u32>, Vec<u32>)> {
        let mut ts = Vec::new();
        let mut last = None;
        for i in 0..runs + usize::from(runs > 1) {
            let t = Instant::now();
            let (e, data) = g.eliminate_integers(&basis, ab.entries(), shape, true, Some(n))?;
            if runs == 1 || i > 0 {
                ts.push(t.elapsed().as_secs_f64() * 1e3);
            }
            last = Some((e.iter().map(|e| e.det).collect(), data));
        }
        ts.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let ms = ts[ts.len() / 2];
        println!("  {what}: {ms:.1} ms");
        let (d, x) = last.unwrap();
        Ok((ms, d, x))
    };
    gpu.config().set_tensor_cores(Some(false));
    let (base, want_d, want_x) = time("rns_eliminate")?;
    gpu.config().set_tensor_cores(Some(true));
    for &p in &panels {
        gpu.config().set_det_panel(Some(p));
        let (ms, d, x) = time(&format!("tensor cores, panels of {p}"))?;
        if d != want_d || x != want_x {
            return Err(format!("panels of {p}: results differ from rns_eliminate").into());
        }
        println!("    {:.2}× rns_eliminate", base / ms);
    }
    gpu.config().set_det_panel(None);
    resident(&gpu, &basis, (n, n + l), runs)?;
    gpu.config().set_tensor_cores(None);
    for _ in 0..runs.min(2) {
        let t = Instant::now();
        let (_, stages) = rns::solve_with(&a, &b, &g, &Method::Multimodular.into())?;
        let s: Vec<String> = stages
            .iter()
            .map(|(w, d)| format!("{w} {:.1}", d.as_secs_f64() * 1e3))
            .collect();
        println!(
            "  multimodular solve (default config): {:.1} ms [{}]",
            t.elapsed().as_secs_f64() * 1e3,
            s.join(", ")
        );
    }
    Ok(())
}

/// The kernels alone on residues already on the device (random `[A | B]` per prime,
/// device events, median of `runs`): `rns_eliminate` against the blocked path with the
/// default panels; the determinants and kept columns must agree.
fn resident(g: &Arc<Gpu>, basis: &Arc<RnsBasis>, (n, cols): (usize, usize), runs: usize) -> R<()> {
    let channels = basis.channels();
    let mats = RnsVec::random(basis, n * cols, 11);
    let moduli = raw::upload(g, &moduli_words(basis.moduli()))?;
    let src = raw::upload(g, mats.residues())?;
    drop(mats);
    let mut work = raw::alloc(g, src.len())?;
    let (mut ranks, mut dets) = (raw::alloc(g, channels)?, raw::alloc(g, channels)?);
    let s = Eliminate {
        rows: n,
        cols,
        pivot_cols: n,
        jordan: true,
        channels,
    };
    let mut out = Vec::new();
    for blocked in [false, true] {
        let mut ts = Vec::new();
        for _ in 0..runs {
            raw::copy(g, &mut work, &src)?;
            ts.push(g.time_ms(|| match blocked {
                true => launch::launch_gauss_jordan_tensor(
                    g,
                    raw::stream(g),
                    s,
                    &mut dets,
                    &mut work,
                    &moduli,
                ),
                false => launch::launch_eliminate(
                    g,
                    raw::stream(g),
                    s,
                    &mut ranks,
                    &mut dets,
                    &mut work,
                    &moduli,
                ),
            })?);
        }
        ts.sort_by(|x, y| x.partial_cmp(y).unwrap());
        let what = if blocked {
            "blocked, tensor cores"
        } else {
            "rns_eliminate"
        };
        println!("  resident kernels, {what}: {:.1} ms", ts[ts.len() / 2]);
        // The kept columns of a few channels, and every determinant.
        let few = channels.min(4) * n * cols;
        out.push((
            raw::download(g, &dets, channels)?,
            raw::download_range(g, raw::stream(g), &work, 0..few)?,
        ));
    }
    let keep = |w: &[u32]| -> Vec<u32> { w.chunks(cols).flat_map(|r| r[n..].to_vec()).collect() };
    if out[0].0 != out[1].0 || keep(&out[0].1) != keep(&out[1].1) {
        return Err("resident: the blocked path disagrees with rns_eliminate".into());
    }
    Ok(())
}

/// The checked conversion of `len` random numbers below `2^bits` from their residues,
/// stage by stage (wall clock, one run after a warm-up): the residues' check
/// (`RnsVec::from_residues`), the device's signed limbs, the host's integers; then the
/// library call that does all three. The integers must equal the library's.
fn convert(g: &Backend, len: usize, bits: u64) -> R<()> {
    let basis = Arc::new(RnsBasis::for_bits(bits));
    let gpu = g.gpu().ok_or("no GPU")?;
    let residues = {
        let mut gen = Gen::new(3);
        let values: Vec<_> = (0..len).map(|_| gen.signed(bits as u32 - 2)).collect();
        g.to_rns(&basis, &values)?.residues().to_vec()
    };
    println!(
        "conversion of {len} numbers over {} primes",
        basis.channels()
    );
    let mut last = None;
    for run in 0..2 {
        let t = Instant::now();
        let v = RnsVec::from_residues(&basis, len, residues.clone())?;
        let t_check = t.elapsed();
        let t = Instant::now();
        let (limbs, flags, nlimbs) = ops::signed_limbs(gpu, basis.moduli(), v.residues(), len)?;
        let t_limbs = t.elapsed();
        let t = Instant::now();
        let ints = crt::from_signed_limbs(&limbs, &flags, nlimbs, basis.range_bits())?;
        let t_ints = t.elapsed();
        let t = Instant::now();
        let lib = g.to_integers_checked(&v)?;
        let t_lib = t.elapsed();
        if ints != lib {
            return Err("the stages and the library call disagree".into());
        }
        if run == 1 {
            println!(
                "  check {:.1} ms, device limbs {:.1} ms, integers {:.1} ms; library call {:.1} ms",
                t_check.as_secs_f64() * 1e3,
                t_limbs.as_secs_f64() * 1e3,
                t_ints.as_secs_f64() * 1e3,
                t_lib.as_secs_f64() * 1e3
            );
        }
        last = Some(lib.len());
    }
    println!("  {} integers", last.unwrap_or(0));
    Ok(())
}
