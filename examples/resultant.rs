//! The seed paper's bivariate resultant benchmarks (Emeliyanenko's GPU resultants):
//! `res_y(f, g)` of dense `f, g ∈ Z[x, y]` generated reproducibly from a fixed seed, on
//! the GPU (when usable) and the CPU backend, with the stage breakdown of the seed's log
//! and the GPU answer checked against the CPU backend's.
//!
//! `cargo run --release --example resultant [-- DIR] [--quick] [--only 100|900]`
//!
//! * the 100-bit instance: deg_y 19/17, deg_x 40/39, 100-bit coefficients;
//! * the 900-bit instance: deg_y 41/29, deg_x 20/11, 900-bit coefficients.
//!
//! `--quick` runs small instances of the same kind (for a check, not a benchmark). With
//! DIR, each instance's inputs (`f`, `g` in the `rns resultant-xy` format), primes, degree
//! bound and answer are written to `DIR/<name>/` for `scripts/flint_resultant_xy.py`.

use rns::{Backend, BackendChoice, BiPoly, ResultantStats};
use rns_suite::Gen;
use rug::Integer;
use std::time::{Duration, Instant};

/// A benchmark shape: name, (deg_y f, deg_x f, deg_y g, deg_x g), coefficient bits.
type Shape = (&'static str, [usize; 4], u32);

const SEED_SHAPES: [Shape; 2] = [
    ("100-bit", [19, 40, 17, 39], 100),
    ("900-bit", [41, 20, 29, 11], 900),
];
const QUICK_SHAPES: [Shape; 2] = [
    ("100-bit-quick", [5, 8, 4, 7], 100),
    ("900-bit-quick", [8, 4, 6, 3], 900),
];
/// Timed GPU runs per instance (after one warm-up); the median is reported.
const REPS: usize = 7;

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// The term list of `p` in the file format of `rns resultant-xy`.
fn terms(p: &BiPoly) -> String {
    let mut s = String::new();
    for j in 0..=p.deg_y() {
        for (i, c) in p.row(j).iter().enumerate() {
            if *c != 0 {
                s += &format!("{c} {i} {j}\n");
            }
        }
    }
    s
}

fn report(st: &ResultantStats, total: Duration) {
    println!(
        "  backend {}: high_deg {}, bits {}, primes {} (+1 redundant), candidate points {}",
        st.backend,
        st.degree_bound,
        st.bound_bits,
        st.primes(),
        st.candidates
    );
    for (name, t) in &st.stages {
        println!("    {name:>32}: {:10.3} ms", ms(*t));
    }
    let (device, transfers) = (st.device_time(), st.transfer_time());
    println!("    {:>32}: {:10.3} ms", "total", ms(total));
    if st.backend == "gpu" {
        println!(
            "    {:>32}: {:10.3} ms ({:.3} ms with transfers)",
            "GPU stages without transfers",
            ms(device),
            ms(device + transfers)
        );
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1));
    let dir = args
        .iter()
        .enumerate()
        .find(|(i, a)| !a.starts_with("--") && (*i == 0 || args[i - 1] != "--only"))
        .map(|(_, a)| a.clone());
    let gpu = Backend::select(BackendChoice::Gpu);
    if let Err(e) = &gpu {
        println!("no GPU ({e}): CPU backend only");
    }
    let cpu = Backend::Cpu;
    for (k, (name, [fy, fx, gy, gx], bits)) in (if quick { QUICK_SHAPES } else { SEED_SHAPES })
        .into_iter()
        .enumerate()
    {
        if only.is_some_and(|o| !name.starts_with(o.as_str())) {
            continue;
        }
        let mut gen = Gen::new(2012 + k as u64);
        let (f, g) = (gen.bipoly(fy, fx, bits), gen.bipoly(gy, gx, bits));
        println!("== {name}: deg_y {fy}/{gy}, deg_x {fx}/{gx}, {bits}-bit coefficients, dense");
        let mut answer: Option<Vec<Integer>> = None;
        let mut timing = String::new();
        if let Ok(gpu) = &gpu {
            rns::resultant_xy_with(&f, &g, gpu, &rns::ResultantOptions::default())?; // warm-up: context, module, allocations
            let mut runs = Vec::new();
            for _ in 0..REPS {
                let t = Instant::now();
                let (r, st) =
                    rns::resultant_xy_with(&f, &g, gpu, &rns::ResultantOptions::default())?;
                runs.push((t.elapsed(), st, r));
            }
            runs.sort_by_key(|r| r.0);
            let (total, st, r) = runs.swap_remove(REPS / 2);
            println!("  GPU, median of {REPS} runs after a warm-up:");
            report(&st, total);
            timing += &format!("gpu_total_ms {:.3}\n", ms(total));
            answer = Some(r);
        }
        let t = Instant::now();
        let (r, st) = rns::resultant_xy_with(&f, &g, &cpu, &rns::ResultantOptions::default())?;
        let total = t.elapsed();
        println!("  CPU backend ({} threads), one run:", cpu_threads());
        report(&st, total);
        timing += &format!(
            "cpu_total_ms {:.3}\ncpu_threads {}\n",
            ms(total),
            cpu_threads()
        );
        match &answer {
            Some(a) if *a != r => return Err(format!("{name}: GPU and CPU answers DIFFER").into()),
            Some(_) => println!("  GPU answer = CPU answer"),
            None => {}
        }
        let top = r.last().expect("at least one coefficient");
        println!(
            "  res_y has degree {} in x; leading coefficient of {} bits",
            r.len() - 1,
            top.significant_bits()
        );
        if let Some(d) = &dir {
            let out = std::path::Path::new(d).join(name);
            std::fs::create_dir_all(&out)?;
            std::fs::write(out.join("f"), terms(&f))?;
            std::fs::write(out.join("g"), terms(&g))?;
            let primes: Vec<String> = st.range_primes.iter().map(u32::to_string).collect();
            std::fs::write(out.join("primes"), primes.join("\n") + "\n")?;
            std::fs::write(
                out.join("meta"),
                format!("{} {} {} {} {}\n", fy, fx, gy, gx, st.degree_bound),
            )?;
            let coeffs: Vec<String> = r.iter().map(Integer::to_string).collect();
            std::fs::write(out.join("result"), coeffs.join("\n") + "\n")?;
            std::fs::write(out.join("timing"), &timing)?;
        }
    }
    Ok(())
}

/// The threads of the CPU backend's pool (rayon's default: one per hardware thread).
fn cpu_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
