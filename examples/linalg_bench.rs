//! The matrix benchmarks of the linear-algebra issue, on the GPU (when usable) and the
//! CPU backend, in one process: product of 1024×1024 matrices modulo 32 primes, exact
//! determinant of 500×500 with 64-bit entries, exact product of 256×256 with 1000-bit
//! entries, exact solve of 200×200 with 64-bit entries. Inputs come from a fixed seed.
//! Each figure is the median of 3 runs after a warm-up, end to end (integers in,
//! integers out). GPU and CPU results are compared; a mismatch stops the run.
//!
//! `cargo run --release --example linalg_bench [-- DIR [--quick]]`: with DIR, the inputs,
//! the times (`rns_times.txt`) and the results' fingerprints are written there for
//! `scripts/flint_linalg.py DIR`, which times FLINT on the same inputs.

use rns::{det, Backend, BackendChoice, ModMatrices};
use rns_suite::{fingerprint, Gen};
use std::fmt::Write as _;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// Median of 3 timed runs after one warm-up, in ms, and the last result.
fn time<T>(mut f: impl FnMut() -> rns::Result<T>) -> R<(f64, T)> {
    f()?;
    let mut ts = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        last = Some(f()?);
        ts.push(t.elapsed().as_secs_f64() * 1e3);
    }
    ts.sort_by(|a, b| a.partial_cmp(b).unwrap());
    Ok((ts[1], last.unwrap()))
}

/// The GPU's time for `f` when a GPU is usable, after checking its result against `want`.
fn on_gpu<T: PartialEq>(
    gpu: &Option<Backend>,
    want: &T,
    what: &str,
    f: impl Fn(&Backend) -> rns::Result<T>,
) -> R<Option<f64>> {
    let Some(g) = gpu else { return Ok(None) };
    let (t, got) = time(|| f(g))?;
    if got != *want {
        return Err(format!("{what}: GPU and CPU differ").into());
    }
    Ok(Some(t))
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let dir = args.iter().find(|a| !a.starts_with("--")).cloned();
    let cpu = Backend::Cpu;
    let gpu = Backend::select(BackendChoice::Gpu).ok();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "backends: cpu ({threads} threads){}",
        if gpu.is_some() {
            ", gpu"
        } else {
            "; no usable GPU"
        }
    );
    let (mm_n, det_n, prod_n, solve_n) = if quick {
        (128, 60, 32, 30)
    } else {
        (1024, 500, 256, 200)
    };
    let mut gen = Gen::new(2026);
    let mut times = String::new();
    let mut record = |name: &str, what: String, cpu_ms: f64, gpu_ms: Option<f64>| {
        let g = gpu_ms.map_or("-".into(), |g| format!("{g:.1}"));
        let ratio = gpu_ms.map_or("-".into(), |g| format!("{:.1}x", cpu_ms / g));
        println!("{name:<8} {what:<44} cpu {cpu_ms:>10.1} ms  gpu {g:>8} ms  gpu/cpu {ratio}");
        let _ = writeln!(times, "{name} {cpu_ms:.3} {}", gpu_ms.map_or(-1.0, |g| g));
    };
    let save = |name: &str, text: String| -> R<()> {
        if let Some(d) = &dir {
            std::fs::create_dir_all(d)?;
            std::fs::write(format!("{d}/{name}"), text)?;
        }
        Ok(())
    };

    // 1. Product modulo 32 primes (the residue images of two matrices).
    let primes: Vec<u32> = rns::RnsBasis::largest_primes(32)?.primes()[..32].to_vec();
    let (a, b) = (gen.matrix(mm_n, mm_n, 31), gen.matrix(mm_n, mm_n, 31));
    let (am, bm) = (
        ModMatrices::from_int_matrix(&a, &primes)?,
        ModMatrices::from_int_matrix(&b, &primes)?,
    );
    let (tc, want) = time(|| cpu.matmul_mod(&am, &bm))?;
    let tg = on_gpu(&gpu, &want, "matmul mod p", |g| g.matmul_mod(&am, &bm))?;
    let madds = 32.0 * (mm_n as f64).powi(3);
    record(
        "matmul",
        format!("{mm_n}² mod 32 primes ({:.2e} mul-adds)", madds),
        tc,
        tg,
    );
    if let Some(t) = tg {
        println!(
            "         end to end {:.3} T mul-add/s on the GPU",
            madds / (t * 1e-3) / 1e12
        );
    }
    save("matmul_a.txt", a.to_string())?;
    save("matmul_b.txt", b.to_string())?;
    save("matmul_primes.txt", format!("{primes:?}"))?;
    // The first prime's product (all 32 would take FLINT's Python wrapper minutes to list).
    let first = want.matrix(0).iter().map(|&x| rug::Integer::from(x));
    save("matmul_fp.txt", fingerprint(first).to_string())?;

    // 2. Exact determinant, 64-bit entries.
    let a = gen.matrix(det_n, det_n, 64);
    let (tc, want) = time(|| det(&a, &cpu))?;
    let tg = on_gpu(&gpu, &want, "det", |g| det(&a, g))?;
    record("det", format!("exact {det_n}² with 64-bit entries"), tc, tg);
    save("det_a.txt", a.to_string())?;
    save("det_fp.txt", want.to_string())?;

    // 3. Exact product, 1000-bit entries.
    let (a, b) = (
        gen.matrix(prod_n, prod_n, 1000),
        gen.matrix(prod_n, prod_n, 1000),
    );
    let (tc, want) = time(|| rns::matmul(&a, &b, &cpu))?;
    let tg = on_gpu(&gpu, &want, "exact product", |g| rns::matmul(&a, &b, g))?;
    record(
        "product",
        format!("exact {prod_n}² with 1000-bit entries"),
        tc,
        tg,
    );
    save("product_a.txt", a.to_string())?;
    save("product_b.txt", b.to_string())?;
    save(
        "product_fp.txt",
        fingerprint(want.entries().iter().cloned()).to_string(),
    )?;

    // 4. Exact solve over Q, 64-bit entries, one right-hand side.
    let (a, b) = (gen.matrix(solve_n, solve_n, 64), gen.matrix(solve_n, 1, 64));
    let (tc, want) = time(|| rns::solve(&a, &b, &cpu))?;
    let tg = on_gpu(&gpu, &want, "solve", |g| rns::solve(&a, &b, g))?;
    record(
        "solve",
        format!("exact {solve_n}² over Q with 64-bit entries"),
        tc,
        tg,
    );
    save("solve_a.txt", a.to_string())?;
    save("solve_b.txt", b.to_string())?;
    let parts = want
        .entries()
        .iter()
        .flat_map(|q| [q.numer().clone(), q.denom().clone()]);
    save("solve_fp.txt", fingerprint(parts).to_string())?;
    save("rns_times.txt", times)?;
    Ok(())
}
