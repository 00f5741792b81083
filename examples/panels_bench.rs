//! Factorizations by panel inverses on the GPU modulo one prime, the matrix already on
//! the device (`launch::launch_inverse_panels`; wall clock to the determinant's
//! download, median of 5 after a warm-up): LU of `A` (a determinant), Gauss–Jordan of
//! `[A | b]` (a solve) and of `[A | I]` (an inverse), by panels of several widths; and
//! the panels' block inverses alone (`rns_block_inverse`), to show what the products
//! leave. Each run starts from a device copy of the same matrix, and every width's
//! determinant must equal the first's.
//!
//! `cargo run --release --example panels_bench -- [SIZES [PANELS]]`: orders (`1000,2000,4000`)
//! and panel widths (`64,128`).

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::launch;
use rns::{Backend, BackendChoice, ModMatrices};
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// The prime.
const P: u32 = 2_147_483_629;

/// A pseudo-random residue modulo [`P`] (splitmix64 of `i`).
fn residue(i: u64) -> u32 {
    let mut z = i
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(0x1234_5678);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % P as u64) as u32
}

fn list(arg: Option<&String>, default: &str) -> R<Vec<usize>> {
    Ok(arg
        .map_or(default, String::as_str)
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?)
}

/// The median of 5 timed runs of `f` after one untimed, in ms, and its last value.
fn median(mut f: impl FnMut() -> R<u32>) -> R<(f64, u32)> {
    let mut last = f()?;
    let mut ms = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        last = f()?;
        ms.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ms.sort_by(f64::total_cmp);
    Ok((ms[2], last))
}

/// A one-word device buffer, to wait for the stream by downloading it.
fn dets_of(gpu: &rns::backend::gpu::Gpu) -> R<raw::CudaSlice<u32>> {
    Ok(raw::alloc(gpu, 1)?)
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let sizes = list(args.first(), "1000,2000,4000")?;
    let panels = list(args.get(1), "64,128")?;
    let be = Backend::select(BackendChoice::Gpu)?;
    let gpu = be.gpu().ok_or("no GPU")?.clone();
    let m = rns_core::Modulus::new(P)?;
    let dm = raw::upload(&gpu, &raw::moduli_words(&[m]))?;
    let stream = raw::stream(&gpu).clone();
    println!("order  columns  panel  factor ms  block inverses ms  det");
    for &n in &sizes {
        for (cols, what) in [(n, "LU"), (n + 1, "solve"), (2 * n, "inverse")] {
            let data: Vec<u32> = (0..(n * cols) as u64).map(residue).collect();
            let src = raw::upload_words(&gpu, &data)?;
            let mut mat = raw::alloc(&gpu, n * cols)?;
            let mut dets = raw::alloc(&gpu, 1)?;
            let mut want = None;
            for &b in &panels {
                gpu.config().set_inverse_panels(Some(1), Some(b));
                let jordan = cols > n;
                let Some(b) = launch::inverse_panel(&gpu, (n, cols), 1, jordan) else {
                    println!("{n:>5}  {cols:>7}  {b:>5}  does not apply");
                    continue;
                };
                let (ms, det) = median(|| {
                    raw::copy(&gpu, &mut mat, &src)?;
                    let shape = (n, cols, 1);
                    launch::launch_inverse_panels(
                        &gpu, &stream, shape, b, jordan, &mut dets, &mut mat, &dm,
                    )?;
                    Ok(raw::download(&gpu, &dets, 1)?[0])
                })?;
                let mut inverse = raw::alloc(&gpu, b * b)?;
                let (blocks, _) = median(|| {
                    raw::copy(&gpu, &mut mat, &src)?;
                    for k0 in (0..n).step_by(b) {
                        let w = b.min(n - k0);
                        let out = launch::BlockOut::packed(w, b * b);
                        launch::launch_block_inverse(
                            &gpu,
                            &stream,
                            (n, cols, 1),
                            (k0, k0, w),
                            (&mut dets, &mut inverse, out),
                            &mat,
                            &dm,
                        )?;
                    }
                    Ok(raw::download(&gpu, &dets, 1)?[0])
                })?;
                if let Some(w) = want {
                    if w != det {
                        return Err(format!("{n}, panels of {b}: det {det}, not {w}").into());
                    }
                }
                want = Some(det);
                println!("{n:>5}  {cols:>7}  {b:>5}  {ms:>9.2}  {blocks:>17.2}  {det} ({what})");
            }
        }
    }
    gpu.config().set_inverse_panels(None, None);
    println!("order  inverse by stages, ms: upload A, place [A | I], factor, gather, download (fresh vector), download again");
    for &n in &sizes {
        let a: Vec<u32> = (0..(n * n) as u64).map(residue).collect();
        let mut ms = Vec::new();
        let mut lap = {
            let mut t = Instant::now();
            move |gpu: &rns::backend::gpu::Gpu| -> R<f64> {
                raw::download(gpu, &dets_of(gpu)?, 1)?;
                let e = t.elapsed().as_secs_f64() * 1e3;
                t = Instant::now();
                Ok(e)
            }
        };
        lap(&gpu)?;
        let da = raw::upload_words(&gpu, &a)?;
        ms.push(lap(&gpu)?);
        let cols = 2 * n;
        let mut mat = raw::alloc(&gpu, n * cols)?;
        launch::launch_place_columns(&gpu, &stream, &mut mat, Some(&da), (n, cols), (0, n))?;
        launch::launch_place_columns(&gpu, &stream, &mut mat, None, (n, cols), (n, n))?;
        ms.push(lap(&gpu)?);
        let b = launch::inverse_panel(&gpu, (n, cols), 1, true).ok_or("no panels")?;
        let mut dets = raw::alloc(&gpu, 1)?;
        launch::launch_inverse_panels(
            &gpu,
            &stream,
            (n, cols, 1),
            b,
            true,
            &mut dets,
            &mut mat,
            &dm,
        )?;
        ms.push(lap(&gpu)?);
        let mut x = raw::alloc(&gpu, n * n)?;
        launch::launch_gather_columns(&gpu, &stream, &mut x, &mat, (n, cols), n)?;
        ms.push(lap(&gpu)?);
        let mut out = vec![0u32; n * n];
        raw::dtoh_staged(&gpu, &stream, (&x, 0..n * n), &mut out)?;
        ms.push(lap(&gpu)?);
        raw::dtoh_staged(&gpu, &stream, (&x, 0..n * n), &mut out)?;
        ms.push(lap(&gpu)?);
        let ms: Vec<String> = ms.iter().map(|m| format!("{m:.2}")).collect();
        println!("{n:>5}  {}  (panels of {b})", ms.join("  "));
    }
    // The library calls, host in and host out, by the default choice of path.
    println!("order  library call (ModMatrices in and out), ms");
    for &n in &sizes {
        let data: Vec<u32> = (0..(n * n) as u64).map(residue).collect();
        let a = ModMatrices::new(&[P], n, n, data)?;
        let b = ModMatrices::new(&[P], n, 1, (0..n as u64).map(residue).collect())?;
        let (det, _) = median(|| Ok(be.det_mod(&a)?[0]))?;
        let (rank, _) = median(|| Ok(be.rank_mod(&a)?[0] as u32))?;
        let (solve, _) = median(|| Ok(be.solve_mod(&a, &b)?.data()[0]))?;
        let (inverse, _) = median(|| Ok(be.inverse_mod(&a)?.data()[0]))?;
        println!("{n:>5}  det {det:.2}  rank {rank:.2}  solve {solve:.2}  inverse {inverse:.2}");
    }
    Ok(())
}
