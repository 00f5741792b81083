//! The exact product of two `n × n` integer matrices with `bits`-bit entries (issue 18:
//! 1024², 1000 bits) in one process: on the GPU with the modular products on the
//! integer units, on the tensor cores by byte planes and by small moduli, and on the CPU
//! backend. For each GPU variant two figures: resident (the batched modular product over
//! every prime of the product's basis, residues already on the device, device events,
//! median of 5) and end to end (the library call `rns::matmul`, integers in and out,
//! median of 3). Every result is compared with the first.
//!
//! Then the exact determinant of a 1000 × 1000 matrix with 64-bit entries on the GPU
//! (library call, integers in and out): multimodular, with the trailing updates of the
//! blocked LU on the tensor cores and in the fused integer-unit kernel; and by the
//! default divisor trick, its few determinants mod p with and without the tensor cores.
//!
//! Then the product as text (issue 37): from the inputs' text, read, multiplied and
//! written on the device, and from integers, written there; each stage's time with its
//! integers/s and bytes/s against the bandwidths measured in the same run.
//!
//! `cargo run --release --example product_bench -- [DIR [N [BITS [DET_N]]]]`: with DIR, the inputs,
//! the times (`rns_times.txt`) and the product's fingerprint are written there for
//! `scripts/flint_product.py DIR`, which times FLINT (1 and all threads) and the whole
//! `rns matmul` process on the same inputs.

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::Matmul;
use rns::backend::gpu::ops;
use rns::backend::gpu::TensorSplit;
use rns::num::crt;
use rns::{Backend, BackendChoice, IntMatrix, Method, RnsBasis, TextMatrix};
use rns_suite::{fingerprint, random_with_edges, Gen};
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

/// Median wall time of `reps` runs after a warm-up, in ms, and the last result.
fn time<T>(reps: usize, mut f: impl FnMut() -> rns::Result<T>) -> R<(f64, T)> {
    let mut last = f()?;
    let mut ts = Vec::new();
    for _ in 0..reps {
        let t = Instant::now();
        let next = f()?;
        ts.push(t.elapsed().as_secs_f64() * 1e3);
        // The previous answer is freed outside the timed call.
        last = next;
    }
    Ok((median(ts), last))
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().cloned();
    let n: usize = args.get(1).map_or(Ok(1024), |s| s.parse())?;
    let bits: u32 = args.get(2).map_or(Ok(1000), |s| s.parse())?;
    let mut gen = Gen::new(2026);
    let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, n, bits));
    // The basis rns::matmul takes for these inputs.
    let need = a.max_bits() + b.max_bits() + (n as u64).ilog2() as u64 + 1;
    let basis = Arc::new(RnsBasis::for_bits(need));
    let primes = basis.channels();
    println!(
        "exact product {n}² with {bits}-bit entries: {primes} primes (with the redundant one)"
    );
    let mut want: Option<IntMatrix> = None;
    let (mut resident_default, mut e2e_default) = (-1.0, -1.0);
    match Backend::select(BackendChoice::Gpu) {
        Ok(gpu) => {
            breakdown(&gpu, &basis, (&a, &b), "cold, the process's first")?;
            (resident_default, e2e_default) = on_gpu(&gpu, &basis, (&a, &b), &mut want)?;
            breakdown(&gpu, &basis, (&a, &b), "warm")?;
            text_on_gpu(&gpu, (&a, &b), want.as_ref().ok_or("no product")?)?;
            let det_n: usize = args.get(3).map_or(Ok(1000), |s| s.parse())?;
            det_on_gpu(&gpu, det_n)?;
        }
        Err(e) => println!("no GPU ({e}): the CPU backend only"),
    }
    let t = Instant::now();
    let cpu = rns::matmul(&a, &b, &Backend::Cpu)?;
    let cpu_ms = t.elapsed().as_secs_f64() * 1e3;
    if want.as_ref().is_some_and(|w| *w != cpu) {
        return Err("the CPU backend's product differs".into());
    }
    let want = want.unwrap_or(cpu);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    print!("cpu backend ({threads} threads) end to end {cpu_ms:.1} ms");
    if e2e_default > 0.0 {
        print!(": gpu (small moduli) {:.1}x", cpu_ms / e2e_default);
    }
    println!();
    if let Some(d) = dir {
        std::fs::create_dir_all(&d)?;
        std::fs::write(format!("{d}/a.txt"), a.to_string())?;
        std::fs::write(format!("{d}/b.txt"), b.to_string())?;
        let fp = fingerprint(want.entries().iter().cloned());
        std::fs::write(format!("{d}/product_fp.txt"), fp.to_string())?;
        std::fs::write(
            format!("{d}/rns_times.txt"),
            format!("resident {resident_default:.3}\ne2e {e2e_default:.3}\ncpu {cpu_ms:.3}\n"),
        )?;
    }
    Ok(())
}

/// The GPU's figures for each variant, checked against each other (residues) and
/// against `want` (the product, set by the first): resident and end-to-end times of
/// the last variant (the small moduli), in ms.
fn on_gpu(
    gpu: &Backend,
    basis: &Arc<RnsBasis>,
    (a, b): (&IntMatrix, &IntMatrix),
    want: &mut Option<IntMatrix>,
) -> R<(f64, f64)> {
    let g = gpu.gpu().ok_or("no GPU backend")?.clone();
    let (n, primes) = (a.rows(), basis.channels());
    let len = n * n;
    let ra = random_with_edges(basis, len, 1);
    let rb = random_with_edges(basis, len, 2);
    let (da, db) = (
        raw::upload(&g, &ra.residues()[..primes * len])?,
        raw::upload(&g, &rb.residues()[..primes * len])?,
    );
    let dmm = raw::upload(&g, &moduli_words(basis.moduli()))?;
    let mut dc = raw::alloc(&g, primes * len)?;
    let shape = Matmul {
        n,
        k: n,
        p: n,
        channels: primes,
    };
    let mut resident_c: Option<Vec<u32>> = None;
    let (mut e2e_default, mut resident_default) = (0.0, 0.0);
    let variants = [
        ("integer units", false, TensorSplit::BytePlanes),
        ("tensor cores, byte planes", true, TensorSplit::BytePlanes),
        ("tensor cores, small moduli", true, TensorSplit::SmallModuli),
    ];
    for (name, tensor, split) in variants {
        g.config().set_tensor_cores(Some(tensor));
        g.config().set_tensor_split(Some(split));
        launch::launch_matmul(&g, raw::stream(&g), shape, &mut dc, &da, &db, &dmm)?;
        let mut ts = Vec::new();
        for _ in 0..5 {
            ts.push(g.time_ms(|| {
                launch::launch_matmul(&g, raw::stream(&g), shape, &mut dc, &da, &db, &dmm)
            })?);
        }
        let resident = median(ts);
        let c = raw::download(&g, &dc, primes * len)?;
        match &resident_c {
            Some(w) if *w != c => return Err(format!("{name}: residues differ").into()),
            Some(_) => {}
            None => resident_c = Some(c),
        }
        let (e2e, got) = time(3, || rns::matmul(a, b, gpu))?;
        match want {
            Some(w) if *w != got => return Err(format!("{name}: product differs").into()),
            Some(_) => {}
            None => *want = Some(got),
        }
        let madds = (primes * n * n * n) as f64;
        println!(
            "gpu {name:<27} resident {resident:9.3} ms ({:.2} T mul-add/s)  end to end {e2e:9.1} ms",
            madds / (resident * 1e-3) / 1e12
        );
        (resident_default, e2e_default) = (resident, e2e);
    }
    g.config().set_tensor_cores(None);
    g.config().set_tensor_split(None);
    Ok((resident_default, e2e_default))
}

/// The exact determinant of an `n × n` matrix with 64-bit entries on the GPU
/// (multimodular), its trailing updates in the fused integer-unit kernel and on the
/// tensor cores: one warm-up and the median of 3 each, the answers compared.
fn det_on_gpu(gpu: &Backend, n: usize) -> R<()> {
    let a = Gen::new(7).matrix(n, n, 64);
    let g = gpu.gpu().ok_or("no GPU backend")?;
    g.config().set_tensor_cores(Some(false));
    let (simt, (want, _)) = time(3, || rns::det_with(&a, gpu, &Method::Multimodular.into()))?;
    println!("exact det {n}² 64-bit, gpu multimodular: integer units {simt:.1} ms");
    g.config().set_tensor_cores(Some(true));
    for panel in [32, 64, 128, 256] {
        g.config().set_det_panel(Some(panel));
        let (ms, (d, _)) = time(3, || rns::det_with(&a, gpu, &Method::Multimodular.into()))?;
        if d != want {
            return Err(format!("the determinants differ (panels of {panel})").into());
        }
        println!(
            "  tensor cores, panels of {panel}: {ms:.1} ms: {:.2}x",
            simt / ms
        );
    }
    g.config().set_det_panel(None);
    // The default method (the divisor trick, lifted on the device): `det A / d` modulo
    // its few primes by panels on the tensor cores, or one pivot per launch.
    g.config().set_tensor_cores(Some(false));
    let (dixon_simt, (d, _)) = time(3, || rns::det_with(&a, gpu, &Method::Auto.into()))?;
    g.config().set_tensor_cores(None);
    let (dixon, (e, st)) = time(3, || rns::det_with(&a, gpu, &Method::Auto.into()))?;
    if d != want || e != want {
        return Err("the divisor trick's determinant differs".into());
    }
    println!(
        "exact det {n}² 64-bit, gpu {} (default): integer units only {dixon_simt:.1} ms, \
         tensor cores for det/d {dixon:.1} ms: {:.2}x; against the multimodular integer \
         units {:.2}x",
        st.method,
        dixon_simt / dixon,
        simt / dixon
    );
    Ok(())
}

/// The stages of the library's exact product on the GPU, each timed on its own (wall
/// clock, one run: `when` says whether the process had multiplied before): packing the integers, the device's part
/// (upload, reduction, products, mixed-radix digits, signed limbs with the redundant
/// channel's check, their transpose to number-major order, download), the integers from
/// their limbs, freeing them.
fn breakdown(
    gpu: &Backend,
    basis: &Arc<RnsBasis>,
    (a, b): (&IntMatrix, &IntMatrix),
    when: &str,
) -> R<()> {
    let g = gpu.gpu().ok_or("no GPU backend")?;
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    let mut lap = Instant::now();
    let mut laps = Vec::new();
    let mut mark = |what: &'static str| {
        laps.push((what, lap.elapsed().as_secs_f64() * 1e3));
        lap = Instant::now();
    };
    let (pa, pb) = (
        ops::pack_number_major(g, a.entries()),
        ops::pack_number_major(g, b.entries()),
    );
    mark("pack");
    let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
    let (limbs, flags, nlimbs) = ops::matmul_limbs(g, basis.moduli(), packed, (n, k, p))?
        .ok_or("does not fit the device")?;
    mark("device: upload, reduce, products, digits, limbs, transpose, download");
    let values = crt::from_signed_limbs(&limbs, &flags, nlimbs, basis.range_bits())?;
    mark("integers from limbs");
    drop(values);
    mark("free");
    let total: f64 = laps.iter().map(|l| l.1).sum();
    let parts: Vec<String> = laps.iter().map(|(w, t)| format!("{w} {t:.1}")).collect();
    println!(
        "library product stages, {when} (ms): {} = {total:.1}",
        parts.join(", ")
    );
    Ok(())
}

/// The product as text on the GPU, both ways in, against the CPU's text of `want`: the
/// stages of the last of three runs (the median's time) with their rates, and the
/// bandwidths of this run for reference.
fn text_on_gpu(gpu: &Backend, (a, b): (&IntMatrix, &IntMatrix), want: &IntMatrix) -> R<()> {
    let g = gpu.gpu().ok_or("no GPU backend")?.clone();
    let bw = g.reference_bandwidth(256 << 20, 3)?;
    let rate = |kind: &str| {
        bw.iter()
            .find(|r| r.0 == kind)
            .map_or(f64::NAN, |r| r.1 as f64 / r.2 / 1e6)
    };
    println!(
        "bandwidths (GB/s): host to device {:.1}, device to host {:.1} (page-locked), device copy {:.0}",
        rate("h2d_pinned"),
        rate("d2h_pinned"),
        rate("d2d")
    );
    let (ta, tb) = (a.to_text(), b.to_text());
    let outs = want.entries().len() as f64;
    let want = want.to_text();
    let bytes_in = (ta.len() + tb.len()) as f64;
    let t = Instant::now();
    let (xa, xb) = rayon::join(
        || TextMatrix::parse(&ta, "a"),
        || TextMatrix::parse(&tb, "b"),
    );
    let (xa, xb) = (xa?, xb?);
    let split_ms = t.elapsed().as_secs_f64() * 1e3;
    println!(
        "text in: {:.0} MB split into {} entries on the host (all cores) in {split_ms:.1} ms: {:.1} GB/s",
        bytes_in / 1e6,
        a.entries().len() + b.entries().len(),
        bytes_in / split_ms / 1e6
    );
    let ints = (a.entries().len() + b.entries().len()) as f64;
    let bytes_out = want.len() as f64;
    for (name, from_text) in [
        ("text in, text out", true),
        ("integers in, text out", false),
    ] {
        let mut runs = Vec::new();
        for _ in 0..3 {
            let t = Instant::now();
            let (text, laps) = match from_text {
                true => rns::matmul_text_of_with(&xa, &xb, gpu)?,
                false => rns::matmul_text_with(a, b, gpu)?,
            };
            runs.push((t.elapsed().as_secs_f64() * 1e3, laps));
            if text != want {
                return Err(format!("{name}: the text differs from the CPU's").into());
            }
        }
        runs.sort_by(|x, y| x.0.partial_cmp(&y.0).unwrap());
        let (ms, laps) = &runs[1];
        println!("{name} (library call, median of 3): {ms:.1} ms; the same text as the CPU's");
        for (stage, d) in laps.clone().into_stages() {
            let ms = d.as_secs_f64() * 1e3;
            let per = match stage {
                "text to the device" => format!("{:.1} GB/s", bytes_in / ms / 1e6),
                "digits to words on the device" => {
                    format!(
                        "{:.0} M integers/s, {:.1} GB/s of text",
                        ints / ms / 1e3,
                        bytes_in / ms / 1e6
                    )
                }
                "decimal chunks on the device" => format!("{:.0} M integers/s", outs / ms / 1e3),
                "text on the device" => format!("{:.1} GB/s of text", bytes_out / ms / 1e6),
                "text back" => format!("{:.1} GB/s", bytes_out / ms / 1e6),
                _ => String::new(),
            };
            println!("    {stage:>46}: {ms:8.2} ms  {per}");
        }
    }
    Ok(())
}
