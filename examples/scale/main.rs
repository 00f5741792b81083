//! The scaling table: each dense operation timed at growing orders on one backend, until
//! a run takes more than the time limit (or the next order would), with the answers of
//! known-determinant matrices checked at every order.
//!
//! `cargo run --release --example scale -- [--backend gpu|cpu|auto] [--devices 0|0,1|all]
//! [--ops det,...]
//! [--sizes 250,500,1000,...] [--bits 64] [--limit 120] [--repeat 1] [--panels-from N]
//! [--panel B] [--lift-primes K] [--lift-ring on|off] [--wgmma on|off] [--rhs L]
//! [--solve-method auto|dixon|multimodular]
//! [--flint FLINT_BENCH] [--flint-cap 120] [--csv FILE]`
//!
//! Operations: `det` (over Z, a random matrix), `det_known` (over Z, a matrix whose
//! determinant is known: an upper triangular matrix with a chosen diagonal, its rows
//! mixed by row operations and permuted), `solve` (over Q, one right-hand side),
//! `rank` (over Q), `matmul` (exact), and modulo one prime `det_mod`, `rank_mod`,
//! `inverse_mod`, `solve_mod`, `matmul_mod`; and ([`new_ops`]) `inverse` (over Q),
//! `charpoly`, `minpoly`, `rref`, `nullspace` (over Z or Q) and `charpoly_mod`,
//! `minpoly_mod`, `rref_mod`, `nullspace_mod`, each answer checked modulo a prime.
//! Inputs are made by all cores from a fixed
//! seed. Each row: operation, order, entry bits, backend, seconds (the library call,
//! inputs already built; with `--repeat R`, the median of `R` runs), and the check.
//! `--panels-from N` sets the order from which few-prime factorizations go by panel
//! inverses on the GPU (`GpuConfig::set_inverse_panels`; a huge `N` turns them off),
//! `--panel B` their width, `--lift-primes K` the primes a lifting step from global
//! memory lifts by (`GpuConfig::set_lift_primes`), `--lift-ring off` loads its rows
//! into registers instead of the warps' rings (`GpuConfig::set_lift_ring`), `--wgmma
//! off` takes the warp-level products by small moduli instead of Hopper's warpgroup
//! ones (`GpuConfig::set_wgmma`), `--rhs L`
//! the right-hand sides of `solve` (1), `--solve-method` its method (`auto`),
//! `--devices` the GPUs (`0`; the backend column then reads `gpu×N` on N devices).
//!
//! With `--flint`, the same inputs go to `flint_bench` (the newest FLINT) on 1 and on all
//! threads, its own compute time in the table and its printed answer compared with ours
//! (`flint_same`). FLINT runs where its previous order's time predicts at most
//! `--flint-cap` seconds (growing as `n⁴` over Z and `n³` for products and modulo one
//! prime) and is stopped past the cap. `rank_mod`, `solve_mod` and the polynomial and
//! echelon operations have no FLINT counterpart in `flint_bench`. The CSV feeds `scripts/scaling_svg.py`.

mod new_ops;

use rayon::prelude::*;
use rns::{Backend, BackendChoice, IntMatrix, ModMatrices};
use rns_suite::inputs::{mix, random, value};
use rug::Integer;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// The prime of the modular operations.
const P: u32 = 2_147_483_629;

/// An `n × n` matrix with a known determinant and entries below `2^bits`: `U` upper
/// triangular (entries of `bits − 3` bits, a diagonal of ±1, ±2, ±3), then each row `i ≥ 1`
/// plus row `i − 1` of `U` (a unit lower bidiagonal factor), then rows `i` and `n − 1 − i`
/// swapped for even `i` below `n/2` (each swap negates the determinant).
fn known_det(n: usize, bits: u32, seed: u64) -> (IntMatrix, Integer) {
    let u = |i: usize, j: usize| -> i128 {
        match j.cmp(&i) {
            std::cmp::Ordering::Less => 0,
            std::cmp::Ordering::Equal => {
                let d = 1 + (mix(seed, (i * n + j) as u64) % 3) as i128;
                if mix(seed ^ 1, i as u64) & 1 == 1 {
                    -d
                } else {
                    d
                }
            }
            std::cmp::Ordering::Greater => value(seed, (i * n + j) as u64, bits - 3),
        }
    };
    let rows: Vec<Vec<Integer>> = (0..n)
        .into_par_iter()
        .map(|i| {
            (0..n)
                .map(|j| Integer::from(u(i, j) + if i > 0 { u(i - 1, j) } else { 0 }))
                .collect()
        })
        .collect();
    let mut order: Vec<usize> = (0..n).collect();
    let mut swaps = 0;
    for i in (0..n / 2).step_by(2) {
        order.swap(i, n - 1 - i);
        swaps += 1;
    }
    let data = order.iter().flat_map(|&i| rows[i].clone()).collect();
    let mut det = (0..n).fold(Integer::from(1), |d, i| d * u(i, i));
    if swaps % 2 == 1 {
        det = -det;
    }
    (IntMatrix::new(n, n, data).expect("square"), det)
}

fn arg(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

/// What FLINT is given for a case (`flint_bench OP THREADS [P] FILES`) and the answer it
/// must print.
struct Flint {
    op: &'static str,
    modular: bool,
    inputs: Vec<IntMatrix>,
    answer: Answer,
    /// The answer's text, written once for every thread count FLINT runs on.
    text: std::cell::OnceCell<String>,
}

impl Flint {
    /// What FLINT must print.
    fn expected(&self) -> &str {
        self.text.get_or_init(|| self.answer.text())
    }
}

/// A result, written out in FLINT's text only when FLINT runs.
enum Answer {
    Text(String),
    Int(IntMatrix),
    Rat(rns::RatMatrix),
    Mod(ModMatrices),
}

impl Answer {
    fn text(&self) -> String {
        match self {
            Answer::Text(s) => s.clone(),
            Answer::Int(m) => m.to_text(),
            Answer::Rat(m) => m.to_text(),
            Answer::Mod(m) => m.to_text(0),
        }
    }
}

/// One timed case: the seconds, a note, and what FLINT would be given.
struct Case {
    secs: f64,
    note: String,
    flint: Option<Flint>,
}

impl Case {
    fn new(secs: f64, note: String, flint: Option<Flint>) -> R<Case> {
        Ok(Case { secs, note, flint })
    }
}

/// The case for FLINT's operation `op` on `inputs`, expecting `answer`.
fn flint(op: &'static str, modular: bool, inputs: Vec<IntMatrix>, answer: Answer) -> Option<Flint> {
    Some(Flint {
        op,
        modular,
        inputs,
        answer,
        text: std::cell::OnceCell::new(),
    })
}

/// Runs operation `op` at order `n` with `bits`-bit entries.
fn run(op: &str, (n, l, method): (usize, usize, rns::Method), bits: u32, be: &Backend) -> R<Case> {
    let a = random(n, n, bits, 1);
    let modp = |m: &IntMatrix| ModMatrices::from_int_matrix(m, &[P]);
    let t = Instant::now();
    match op {
        "det" => {
            let (d, st) = rns::det_with(&a, be, &rns::DetOptions::default())?;
            let s = t.elapsed().as_secs_f64();
            let stages: Vec<String> = st
                .stages
                .iter()
                .map(|(name, t)| format!("{name} {:.0}", t.as_secs_f64() * 1e3))
                .collect();
            let note = format!(
                "{} bits, {} steps by {} primes on {} device(s), {} primes; ms: {}",
                d.significant_bits(),
                st.lifting_steps,
                st.lifting_primes,
                st.lifting_devices,
                st.primes,
                stages.join(", ")
            );
            Case::new(
                s,
                note,
                flint("det", false, vec![a], Answer::Text(d.to_string())),
            )
        }
        "det_known" => {
            let (k, want) = known_det(n, bits, 2);
            let t = Instant::now();
            let got = rns::det(&k, be)?;
            let s = t.elapsed().as_secs_f64();
            if got != want {
                return Err(format!("det_known {n}: wrong determinant").into());
            }
            let note = "known determinant: ok".into();
            Case::new(
                s,
                note,
                flint("det", false, vec![k], Answer::Text(got.to_string())),
            )
        }
        "solve" => {
            let b = random(n, l, bits, 3);
            let t = Instant::now();
            let (x, stages) = rns::solve_with(&a, &b, be, &rns::SolveOptions { method })?;
            let s = t.elapsed().as_secs_f64();
            let stages: Vec<String> = stages
                .iter()
                .map(|(name, t)| format!("{name} {:.0}", t.as_secs_f64() * 1e3))
                .collect();
            let note = format!("{} entries; ms: {}", x.entries().len(), stages.join(", "));
            Case::new(s, note, flint("solve", false, vec![a, b], Answer::Rat(x)))
        }
        "rank" => {
            let r = rns::rank(&a, be)?;
            let s = t.elapsed().as_secs_f64();
            let answer = Answer::Text(r.to_string());
            Case::new(
                s,
                format!("rank {r}"),
                flint("rank", false, vec![a], answer),
            )
        }
        "matmul" => {
            let b = random(n, n, bits, 4);
            let t = Instant::now();
            let c = rns::matmul(&a, &b, be)?;
            let s = t.elapsed().as_secs_f64();
            let note = format!("{} entries", c.entries().len());
            Case::new(s, note, flint("matmul", false, vec![a, b], Answer::Int(c)))
        }
        "det_mod" | "rank_mod" | "inverse_mod" | "solve_mod" | "matmul_mod" => {
            let m = modp(&a)?;
            let bi = random(n, 1, bits, 5);
            let b = modp(&bi)?;
            let sqi = random(n, n, bits, 6);
            let sq = modp(&sqi)?;
            let t = Instant::now();
            let (note, f) = match op {
                "det_mod" => {
                    let d = be.det_mod(&m)?[0];
                    (
                        format!("det {d}"),
                        flint("moddet", true, vec![a], Answer::Text(d.to_string())),
                    )
                }
                "rank_mod" => (format!("rank {}", be.rank_mod(&m)?[0]), None),
                "inverse_mod" => {
                    let x = be.inverse_mod(&m)?;
                    let note = format!("{} words", x.data().len());
                    (note, flint("modinv", true, vec![a], Answer::Mod(x)))
                }
                "solve_mod" => (
                    format!("{} words", be.solve_mod(&m, &b)?.data().len()),
                    None,
                ),
                _ => {
                    let c = be.matmul_mod(&m, &sq)?;
                    let note = format!("{} words", c.data().len());
                    (note, flint("modmul", true, vec![a, sqi], Answer::Mod(c)))
                }
            };
            Case::new(t.elapsed().as_secs_f64(), note, f)
        }
        _ if new_ops::OPS.contains(&op) => new_ops::run(op, n, bits, be),
        _ => Err(format!("unknown operation {op}").into()),
    }
}

/// FLINT's seconds for `case` on `threads` threads (`flint_bench`'s own compute time) and
/// whether it printed the same answer; `None` when it ran past `cap` seconds.
fn run_flint(bench: &str, case: &Flint, threads: usize, cap: f64) -> R<Option<(f64, bool)>> {
    let dir = flint_dir();
    std::fs::create_dir_all(&dir)?;
    let mut cmd = std::process::Command::new(bench);
    cmd.arg(case.op).arg(threads.to_string());
    if case.modular {
        cmd.arg(P.to_string());
    }
    for (i, m) in case.inputs.iter().enumerate() {
        let path = dir.join(format!("in{i}"));
        if !path.exists() {
            std::fs::write(&path, m.to_text())?;
        }
        cmd.arg(path);
    }
    let (out, err) = (dir.join("out"), dir.join("err"));
    let mut child = cmd
        .stdout(std::fs::File::create(&out)?)
        .stderr(std::fs::File::create(&err)?)
        .spawn()?;
    let start = Instant::now();
    while child.try_wait()?.is_none() {
        if start.elapsed().as_secs_f64() > cap {
            child.kill()?;
            child.wait()?;
            return Ok(None);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let err = std::fs::read_to_string(err)?;
    let secs = err
        .split_whitespace()
        .find_map(|w| w.strip_prefix("compute_s="))
        .ok_or_else(|| format!("flint_bench {}: {err}", case.op))?
        .parse()?;
    let same = std::fs::read_to_string(out)?.trim() == case.expected().trim();
    Ok(Some((secs, same)))
}

/// Where this process writes FLINT's inputs and outputs.
fn flint_dir() -> std::path::PathBuf {
    std::env::temp_dir().join(format!("rns-scale-{}", std::process::id()))
}

/// Removes the input files written for FLINT.
fn clear_flint_inputs() {
    let _ = std::fs::remove_dir_all(flint_dir());
}

/// How FLINT's time grows with the order: `n⁴` over Z (primes grow with `n`), `n³` for
/// products and modulo one prime.
fn flint_growth(op: &str) -> i32 {
    match op {
        "det" | "det_known" | "solve" | "rank" | "inverse" => 4,
        _ => 3,
    }
}

fn main() -> R<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let choice = match arg(&args, "--backend").as_deref() {
        Some("cpu") => BackendChoice::Cpu,
        Some("auto") => BackendChoice::Auto,
        _ => BackendChoice::Gpu,
    };
    let devices: rns::Devices = arg(&args, "--devices")
        .unwrap_or_else(|| "0".into())
        .parse()?;
    let be = Backend::select_devices(choice, &devices)?;
    // The backend's column: `gpu`, or `gpu×N` on N devices.
    let label = match be.gpus().len() {
        0 | 1 => be.name().to_string(),
        k => format!("{}×{k}", be.name()),
    };
    let ops = arg(&args, "--ops").unwrap_or_else(|| {
        "det_known,det,solve,rank,matmul,det_mod,rank_mod,inverse_mod,solve_mod,matmul_mod".into()
    });
    let sizes: Vec<usize> = arg(&args, "--sizes")
        .unwrap_or_else(|| "250,500,1000,2000,4000,8000".into())
        .split(',')
        .map(|s| s.parse())
        .collect::<Result<_, _>>()?;
    let bits: u32 = arg(&args, "--bits").map_or(Ok(64), |s| s.parse())?;
    let limit: f64 = arg(&args, "--limit").map_or(Ok(120.0), |s| s.parse())?;
    let repeat: usize = arg(&args, "--repeat").map_or(Ok(1), |s| s.parse())?;
    let rhs: usize = arg(&args, "--rhs").map_or(Ok(1), |s| s.parse())?;
    let method = match arg(&args, "--solve-method").as_deref() {
        Some("dixon") => rns::Method::Dixon,
        Some("multimodular") => rns::Method::Multimodular,
        _ => rns::Method::Auto,
    };
    let from = arg(&args, "--panels-from").map(|s| s.parse()).transpose()?;
    let panel = arg(&args, "--panel").map(|s| s.parse()).transpose()?;
    let lift_primes = arg(&args, "--lift-primes").map(|s| s.parse()).transpose()?;
    let lift_ring = arg(&args, "--lift-ring").as_deref() != Some("off");
    let wgmma = arg(&args, "--wgmma").as_deref() != Some("off");
    for gpu in be.gpus() {
        if from.is_some() || panel.is_some() {
            gpu.config().set_inverse_panels(from, panel);
        }
        gpu.config().set_lift_primes(lift_primes);
        gpu.config().set_lift_ring(lift_ring);
        gpu.config().set_wgmma(wgmma);
    }
    let bench = arg(&args, "--flint");
    let cap: f64 = arg(&args, "--flint-cap").map_or(Ok(120.0), |s| s.parse())?;
    let all = std::thread::available_parallelism().map_or(1, |t| t.get());
    let mut csv = format!("operation,n,bits,backend,rns_s,flint1_s,flint{all}_s,flint_same,note\n");
    println!(
        "{:<12} {:>6} {:>5} {:>8} {:>10} {:>10} {:>10}  note",
        "operation",
        "n",
        "bits",
        "backend",
        "seconds",
        "flint-1",
        format!("flint-{all}")
    );
    for op in ops.split(',') {
        let mut last: Option<(usize, f64)> = None;
        // Per thread count, FLINT's last order and seconds.
        let mut flint_last: [Option<(usize, f64)>; 2] = [None, None];
        for &n in &sizes {
            // The next order would take about (n / last)³ times as long.
            if let Some((m, s)) = last {
                if s * (n as f64 / m as f64).powi(3) > limit {
                    println!(
                        "{op:<12} {n:>6} {bits:>5} {:>8} {:>10}  skipped: over {limit} s",
                        label, "-"
                    );
                    continue;
                }
            }
            let mut runs: Vec<Case> = Vec::new();
            let result = (0..repeat.max(1)).try_for_each(|_| {
                runs.push(run(op, (n, rhs, method), bits, &be)?);
                R::Ok(())
            });
            runs.sort_by(|a, b| a.secs.total_cmp(&b.secs));
            match result.map(|_| runs.swap_remove(runs.len() / 2)) {
                Ok(case) => {
                    let s = case.secs;
                    let mut cols = [String::from("-"), String::from("-")];
                    let mut same = String::from("-");
                    if let (Some(bench), Some(f)) = (&bench, &case.flint) {
                        for (k, threads) in [1, all].into_iter().enumerate() {
                            let e = flint_growth(op);
                            if let Some((m, t)) = flint_last[k] {
                                if t * (n as f64 / m as f64).powi(e) > cap {
                                    cols[k] = "skipped".into();
                                    continue;
                                }
                            }
                            match run_flint(bench, f, threads, cap)? {
                                Some((t, ok)) => {
                                    cols[k] = format!("{t:.6}");
                                    flint_last[k] = Some((n, t));
                                    same = match (same.as_str(), ok) {
                                        ("NO", _) | (_, false) => "NO".into(),
                                        _ => "yes".into(),
                                    };
                                }
                                None => {
                                    cols[k] = format!(">{cap}");
                                    flint_last[k] = Some((n, f64::INFINITY));
                                }
                            }
                        }
                        clear_flint_inputs();
                    }
                    let note = case.note;
                    println!(
                        "{op:<12} {n:>6} {bits:>5} {:>8} {s:>10.3} {:>10} {:>10}  {note}{}",
                        label,
                        cols[0],
                        cols[1],
                        if same == "NO" { "  FLINT DIFFERS" } else { "" }
                    );
                    csv.push_str(&format!(
                        "{op},{n},{bits},{},{s:.6},{},{},{same},\"{}\"\n",
                        label,
                        cols[0],
                        cols[1],
                        note.replace('"', "'")
                    ));
                    last = Some((n, s));
                }
                Err(e) => {
                    println!(
                        "{op:<12} {n:>6} {bits:>5} {:>8} {:>10}  error: {e}",
                        label, "-"
                    );
                    let e = e.to_string().replace('"', "'");
                    csv.push_str(&format!(
                        "{op},{n},{bits},{},,-,-,-,\"error: {e}\"\n",
                        label
                    ));
                    break;
                }
            }
        }
    }
    if let Some(path) = arg(&args, "--csv") {
        std::fs::write(path, csv)?;
    }
    Ok(())
}
