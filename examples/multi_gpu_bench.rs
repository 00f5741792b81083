//! Several GPUs against one, whole library calls with host input and host output: the
//! exact determinant of a 1000² (`--big`: 2000²) 64-bit matrix, the exact product of
//! two 512² (`--big`: 1024²) 1000-bit matrices, and the seed paper's 900-bit bivariate
//! resultant, on the first 1, 2, … devices (every device count up to all of them), in
//! one run. Each time is the median of 3 runs after a warm-up; every answer is checked
//! against the one-device answer. Prints a table and, with `--csv FILE`, writes it.
//!
//! Also a solve over Q of a 300² (`--big`: 500²) 64-bit system with 4 right-hand sides,
//! and the 900-bit instance with twice its degrees in x (twice the primes and points).
//!
//! The reconstruction's share is the `crt` stage of the determinant and the resultant
//! (on several GPUs the resultant's shares are assembled inside the modular stage and only
//! combined in `crt`), and for the product the time of reconstructing a same-size
//! product's residues on the same backend, measured apart.
//!
//! With `--table`, instead, the two-device table of `docs/scaling.md`: det 4000² and 8000²
//! and solve 4000² (one column) with 64-bit entries, the exact product 4096² with
//! 1000-bit entries, the dense bivariate resultant of degree 160 and the univariate
//! resultant of degree 16 000 with 64-bit coefficients, each on the first device and
//! on all devices (one run each after a small warm-up, the answers compared), with the
//! peer-to-peer and device copy bandwidths measured in the same run; and modulo one
//! 31-bit prime the determinant of a random 8000² matrix, its solve with one column and
//! the inverse of a 4000² one, factored with the rows split across the devices (`--ops`
//! picks some: det4000, det8000, solve4000, product4096, xy160, res16000, detmod8000,
//! solvemod8000, inversemod4000).
//!
//! With `--ranks [--ops LIST]`, under `mpirun -np R` (built with `--features rns/mpi`),
//! the same operations as one job of `R` processes, each on its own devices (rank `r` of
//! a host's `R` takes devices `r, r + R, …`), their channels shared among the ranks;
//! rank 0 prints each time, to set beside a `--table` run on the same host.
//!
//! `cargo run --release --example multi_gpu_bench [-- --big] [--quick] [--csv FILE]
//! [--table [--ops LIST] [--reps R]] [--ranks [--ops LIST] [--reps R]]`

use rns::backend::gpu::ops;
use rns::{Backend, Devices, RnsBasis, RnsVec};
use rns_suite::Gen;
use std::sync::Arc;
use std::time::{Duration, Instant};

const REPS: usize = 3;

/// The median of `REPS` runs of `f` after one warm-up, with the last run's
/// reconstruction time and answer.
fn median<T>(mut f: impl FnMut() -> (Duration, T)) -> (Duration, Duration, T) {
    f();
    let mut runs: Vec<(Duration, Duration, T)> = (0..REPS)
        .map(|_| {
            let t = Instant::now();
            let (crt, out) = f();
            (t.elapsed(), crt, out)
        })
        .collect();
    runs.sort_by_key(|r| r.0);
    runs.swap_remove(REPS / 2)
}

fn stage(stages: &[(&'static str, Duration)], name: &str) -> Duration {
    stages
        .iter()
        .filter(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .sum()
}

/// The one-device time and answer, kept in `slot` on the first call; later answers
/// must equal it.
fn agree<T: PartialEq>(
    slot: &mut Option<(Duration, T)>,
    k: usize,
    t: Duration,
    got: T,
    what: &str,
) -> Result<Duration, String> {
    match slot {
        None => {
            *slot = Some((t, got));
            Ok(t)
        }
        Some((base, want)) if *want == got => Ok(*base),
        Some(_) => Err(format!("{what} on {k} devices differs from one device")),
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // As the CLI and the Python module do (a first large product otherwise pays for the
    // allocator's growth of its heaps a few pages at a time).
    rns::limits::fit_allocator();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |f: &str| args.iter().any(|a| a == f);
    let csv = args
        .iter()
        .position(|a| a == "--csv")
        .and_then(|i| args.get(i + 1));
    let (n_det, n_mul, n_sol, xy) = match (has("--big"), has("--quick")) {
        (_, true) => (120, 48, 30, [8, 4, 6, 3]),
        (true, _) => (2000, 1024, 500, [41, 20, 29, 11]),
        _ => (1000, 512, 300, [41, 20, 29, 11]),
    };
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let ops: Vec<&str> = args
        .iter()
        .position(|a| a == "--ops")
        .and_then(|i| args.get(i + 1))
        .map_or(TABLE.to_vec(), |l| l.split(',').collect());
    if has("--ranks") {
        rns::cluster::init()?;
        let done = table_ranks(&ops, reps);
        rns::cluster::finish();
        return done;
    }
    let gpus = Devices::All.open()?;
    if has("--table") {
        return table(&gpus, &ops, reps, csv);
    }
    println!(
        "{} devices: {}",
        gpus.len(),
        gpus.iter().map(|g| g.name()).collect::<Vec<_>>().join(", ")
    );
    for g in &gpus {
        println!(
            "  device {}: {:.1} modular multiply-adds/ns",
            g.ordinal(),
            ops::speed(g)?
        );
    }
    let mut gen = Gen::new(16);
    let a = gen.matrix(n_det, n_det, 64);
    let (x, y) = (
        gen.matrix(n_mul, n_mul, 1000),
        gen.matrix(n_mul, n_mul, 1000),
    );
    let (sa, sb) = (gen.matrix(n_sol, n_sol, 64), gen.matrix(n_sol, 4, 64));
    let mut gen = Gen::new(2013);
    let (f, g) = (gen.bipoly(xy[0], xy[1], 900), gen.bipoly(xy[2], xy[3], 900));
    // The same kind with twice the degrees in x: twice the primes and the points.
    let (f2, g2) = (
        gen.bipoly(xy[0], 2 * xy[1], 900),
        gen.bipoly(xy[2], 2 * xy[3], 900),
    );
    // The product's basis and a same-size product's residues, for its reconstruction.
    let bits = 2 * 1000 + (n_mul as f64).log2().ceil() as u64 + 2;
    let basis = Arc::new(RnsBasis::for_bits(bits));
    let residues = RnsVec::random(&basis, n_mul * n_mul, 5);

    let mut rows =
        vec!["what,devices,ms,speedup,reconstruction_ms,reconstruction_share".to_string()];
    let mut report = |what: &str, k: usize, t: Duration, base: Duration, crt: Duration| {
        let line = format!(
            "{what},{k},{:.1},{:.2},{:.1},{:.3}",
            ms(t),
            base.as_secs_f64() / t.as_secs_f64(),
            ms(crt),
            crt.as_secs_f64() / t.as_secs_f64()
        );
        println!(
            "{what:>28} on {k} GPU(s): {:9.1} ms, {:5.2}× one GPU, reconstruction {:7.1} ms ({:4.1}%)",
            ms(t),
            base.as_secs_f64() / t.as_secs_f64(),
            ms(crt),
            100.0 * crt.as_secs_f64() / t.as_secs_f64()
        );
        rows.push(line);
    };
    let (mut det_1, mut mul_1, mut sol_1, mut res_1, mut res2_1) = (None, None, None, None, None);
    for k in 1..=gpus.len() {
        let be = Backend::on_gpus(gpus[..k].to_vec(), 0)?;
        let (t, crt, d) = median(|| {
            let (d, st) = rns::det_with(&a, &be, &rns::DetOptions::default()).expect("det");
            (stage(&st.stages, "crt"), d)
        });
        let base = agree(&mut det_1, k, t, d, "det")?;
        report(&format!("det {n_det}² 64-bit"), k, t, base, crt);

        let (t, _, p) = median(|| (Duration::ZERO, rns::matmul(&x, &y, &be).expect("matmul")));
        let crt = median(|| {
            let t = Instant::now();
            be.to_integers(&residues).expect("reconstruct");
            (t.elapsed(), ())
        })
        .0;
        let base = agree(&mut mul_1, k, t, p, "product")?;
        report(&format!("product {n_mul}² 1000-bit"), k, t, base, crt);

        let (t, _, x) = median(|| (Duration::ZERO, rns::solve(&sa, &sb, &be).expect("solve")));
        let base = agree(&mut sol_1, k, t, x, "solve")?;
        report(
            &format!("solve {n_sol}² 64-bit, 4 columns"),
            k,
            t,
            base,
            Duration::ZERO,
        );

        for (f, g, name, slot) in [
            (&f, &g, "resultant_xy 900-bit", &mut res_1),
            (&f2, &g2, "resultant_xy 900-bit, 2×deg_x", &mut res2_1),
        ] {
            let (t, crt, r) = median(|| {
                let (r, st) = rns::resultant_xy_with(f, g, &be, &rns::ResultantOptions::default())
                    .expect("resultant");
                (stage(&st.stages, "crt"), r)
            });
            let base = agree(slot, k, t, r, name)?;
            report(name, k, t, base, crt);
        }
        let (_, st) = rns::resultant_xy_with(&f, &g, &be, &rns::ResultantOptions::default())?;
        for (name, t) in &st.stages {
            println!("{:>40}: {:8.2} ms", name, ms(*t));
        }
    }
    println!("every answer on several devices equals the one-device answer");
    if let Some(path) = csv {
        std::fs::write(path, rows.join("\n") + "\n")?;
    }
    Ok(())
}

/// The operations of `--table`.
const TABLE: [&str; 9] = [
    "det4000",
    "det8000",
    "solve4000",
    "product4096",
    "xy160",
    "res16000",
    "detmod8000",
    "solvemod8000",
    "inversemod4000",
];

/// A digest of `values` (each hashed on its own, by all cores), to compare answers.
fn digest<T: std::hash::Hash + Sync>(values: &[T]) -> u64 {
    use rayon::prelude::*;
    use std::hash::{DefaultHasher, Hasher};
    let each: Vec<u64> = values
        .par_iter()
        .map(|v| {
            let mut h = DefaultHasher::new();
            v.hash(&mut h);
            h.finish()
        })
        .collect();
    let mut h = DefaultHasher::new();
    each.iter().for_each(|&x| h.write_u64(x));
    h.finish()
}

/// The inputs of a table operation, made before the clock starts.
enum Inputs {
    /// A matrix and, for a solve or a product, a second one.
    Matrices(rns::IntMatrix, Option<rns::IntMatrix>),
    /// Two bivariate polynomials.
    Bivariate(rns::BiPoly, rns::BiPoly),
    /// Two univariate polynomials.
    Univariate(rns::IntPoly, rns::IntPoly),
    /// A matrix modulo a prime and, for a solve, a second one.
    Modular(rns::ModMatrices, Option<rns::ModMatrices>),
}

/// A random `rows × cols` matrix modulo the largest prime of the tests (`seed` apart).
fn mod_random(rows: usize, cols: usize, seed: u64) -> rns::ModMatrices {
    let p = rns_suite::LARGEST_PRIMES[0];
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let data = (0..rows * cols)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % p as u64) as u32
        })
        .collect();
    rns::ModMatrices::new(&[p], rows, cols, data).expect("a matrix modulo a prime")
}

/// The inputs of table operation `op` (by all cores where they are large).
fn table_inputs(op: &str) -> Result<Inputs, Box<dyn std::error::Error>> {
    use rns_suite::inputs::random;
    Ok(match op {
        "det4000" => Inputs::Matrices(random(4000, 4000, 64, 1), None),
        "det8000" => Inputs::Matrices(random(8000, 8000, 64, 1), None),
        "solve4000" => Inputs::Matrices(random(4000, 4000, 64, 1), Some(random(4000, 1, 64, 3))),
        "product4096" => Inputs::Matrices(
            random(4096, 4096, 1000, 1),
            Some(random(4096, 4096, 1000, 4)),
        ),
        "xy160" => {
            let mut gen = Gen::new(160);
            Inputs::Bivariate(gen.bipoly(160, 160, 64), gen.bipoly(160, 160, 64))
        }
        "res16000" => {
            let mut gen = Gen::new(16000);
            Inputs::Univariate(gen.poly(16000, 64), gen.poly(16000, 64))
        }
        "detmod8000" => Inputs::Modular(mod_random(8000, 8000, 1), None),
        "detmod16000" => Inputs::Modular(mod_random(16000, 16000, 1), None),
        "detmod32000" => Inputs::Modular(mod_random(32000, 32000, 1), None),
        "solvemod8000" => Inputs::Modular(mod_random(8000, 8000, 1), Some(mod_random(8000, 1, 2))),
        "inversemod4000" => Inputs::Modular(mod_random(4000, 4000, 3), None),
        other => return Err(format!("unknown operation {other}").into()),
    })
}

/// Table operation `op` on `inputs` on a backend: the library call's time (the answer's
/// digest and its drop come after the clock), the digest, and notes (stages).
fn table_op(
    op: &str,
    inputs: &Inputs,
    be: &Backend,
) -> Result<(f64, u64, String), Box<dyn std::error::Error>> {
    let stages = |st: &[(&'static str, Duration)]| {
        st.iter()
            .map(|(n, t)| format!("{n} {:.0}", ms(*t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let t = Instant::now();
    let secs = || t.elapsed().as_secs_f64();
    Ok(match (op, inputs) {
        ("det4000" | "det8000", Inputs::Matrices(a, None)) => {
            let (d, st) = rns::det_with(a, be, &Default::default())?;
            let secs = secs();
            let note = format!(
                "lifting on {} device(s); {}",
                st.lifting_devices,
                stages(&st.stages)
            );
            (secs, digest(&[d]), note)
        }
        ("solve4000", Inputs::Matrices(a, Some(b))) => {
            let (x, st) = rns::solve_with(a, b, be, &Default::default())?;
            let secs = secs();
            let parts: Vec<(rug::Integer, rug::Integer)> = x
                .entries()
                .iter()
                .map(|q| (q.numer().clone(), q.denom().clone()))
                .collect();
            (secs, digest(&parts), stages(&st))
        }
        ("product4096", Inputs::Matrices(a, Some(b))) => {
            let c = rns::matmul(a, b, be)?;
            (secs(), digest(c.entries()), String::new())
        }
        ("xy160", Inputs::Bivariate(f, g)) => {
            let (r, st) = rns::resultant_xy_with(f, g, be, &rns::ResultantOptions::default())?;
            (secs(), digest(&r), stages(&st.stages))
        }
        ("res16000", Inputs::Univariate(f, g)) => {
            let (r, st) = rns::resultant_with(f, g, be, &rns::ResultantOptions::default())?;
            (secs(), digest(&[r]), stages(&st.stages))
        }
        ("detmod8000" | "detmod16000" | "detmod32000", Inputs::Modular(a, None)) => {
            let d = be.det_mod(a)?;
            (
                secs(),
                digest(&d),
                format!("{} device(s)", be.factor_devices(a.rows(), 1).len()),
            )
        }
        ("solvemod8000", Inputs::Modular(a, Some(b))) => {
            let x = be.solve_mod(a, b)?;
            (secs(), digest(x.data()), String::new())
        }
        ("inversemod4000", Inputs::Modular(a, None)) => {
            let x = be.inverse_mod(a)?;
            (secs(), digest(x.data()), String::new())
        }
        _ => return Err(format!("{op}: not its inputs").into()),
    })
}

/// `--ranks`: every operation of `ops` (`reps` runs each) under this MPI job, each rank
/// on its devices.
fn table_ranks(ops: &[&str], reps: usize) -> Result<(), Box<dyn std::error::Error>> {
    let be = Backend::select_devices(rns::BackendChoice::Gpu, &Devices::All)?;
    let place = rns::cluster::place();
    let root = rns::cluster::is_root();
    let mine: Vec<usize> = be.gpus().iter().map(|g| g.ordinal()).collect();
    println!(
        "rank {} of {} (host rank {} of {}) on devices {mine:?}",
        place.rank, place.size, place.local_rank, place.local_size
    );
    // Contexts, kernels and a collective before the clock (a det's gather waits for
    // every rank, so that all start each operation together).
    let sync = || rns::det(&rns_suite::inputs::random(60, 60, 64, 9), &be);
    sync()?;
    for op in ops {
        let inputs = table_inputs(op)?;
        for rep in 0..reps {
            sync()?;
            let (t, got, note) = table_op(op, &inputs, &be)?;
            if root {
                println!(
                    "{op:>12} under {} ranks, run {}: {t:8.3} s  digest {got:016x}  {note}",
                    place.size,
                    rep + 1
                );
            }
        }
    }
    Ok(())
}

/// `--table`: every operation of `ops` on the first device and on all of `gpus`
/// (`reps` runs of each, alternating, the fastest kept), the copy bandwidths first.
fn table(
    gpus: &[Arc<rns::backend::gpu::Gpu>],
    ops: &[&str],
    reps: usize,
    csv: Option<&String>,
) -> Result<(), Box<dyn std::error::Error>> {
    let names: Vec<&str> = gpus.iter().map(|g| g.name()).collect();
    println!("{} devices: {}", gpus.len(), names.join(", "));
    const BYTES: usize = 256 << 20;
    let d2d = gpus[0]
        .reference_bandwidth(BYTES, 3)?
        .into_iter()
        .find(|r| r.0 == "d2d")
        .map_or(0.0, |(_, b, ms)| b as f64 / ms / 1e6);
    println!("device copy (device 0, read + written): {d2d:.0} GB/s");
    let mut rows = vec![format!("what,devices,seconds,ratio,note")];
    for (i, a) in gpus.iter().enumerate() {
        for b in gpus.iter().skip(i + 1) {
            let there = a.peer_bandwidth(b, BYTES, 5)?;
            let back = b.peer_bandwidth(a, BYTES, 5)?;
            println!(
                "peer copy {} → {}: {there:.0} GB/s, back {back:.0} GB/s (peer access: {})",
                a.ordinal(),
                b.ordinal(),
                a.peer_access(b)?
            );
            rows.push(format!(
                "peer copy {}-{},2,,{there:.1},GB/s",
                a.ordinal(),
                b.ordinal()
            ));
        }
    }
    let one = Backend::on_gpus(gpus[..1].to_vec(), 0)?;
    let all = Backend::on_gpus(gpus.to_vec(), 0)?;
    // Contexts, kernels and the devices' speeds before the clock.
    for be in [&one, &all] {
        rns::det(&rns_suite::inputs::random(300, 300, 64, 9), be)?;
    }
    let k = gpus.len();
    for op in ops {
        let inputs = table_inputs(op)?;
        // Runs alternate (one device, then all), the fastest of each kept: the host's
        // first touch of large buffers varies from run to run.
        let mut best = [
            (f64::INFINITY, String::new()),
            (f64::INFINITY, String::new()),
        ];
        let mut want = None;
        for rep in 0..reps {
            for (i, (be, devices)) in [(&one, 1), (&all, k)].into_iter().enumerate() {
                let (secs, got, note) = table_op(op, &inputs, be)?;
                println!(
                    "{op:>12} on {devices} GPU(s), run {}: {secs:8.3} s  digest {got:016x}  {note}",
                    rep + 1
                );
                if *want.get_or_insert(got) != got {
                    return Err(format!("{op}: the answers on 1 and {k} devices differ").into());
                }
                if secs < best[i].0 {
                    best[i] = (secs, note);
                }
            }
        }
        let [(t1, note1), (tk, note)] = best;
        println!(
            "{op:>12}: 1 GPU {t1:.3} s, {k} GPUs {tk:.3} s = {:.3}× (fastest of {reps} each)",
            tk / t1
        );
        rows.push(format!("{op},1,{t1:.3},1,\"{note1}\""));
        rows.push(format!("{op},{k},{tk:.3},{:.3},\"{note}\"", tk / t1));
    }
    if let Some(path) = csv {
        std::fs::write(path, rows.join("\n") + "\n")?;
    }
    Ok(())
}
