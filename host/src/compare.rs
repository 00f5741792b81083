//! The CPU-vs-GPU comparison runner behind `rns compare` and `examples/compare.rs`:
//! every operation at several sizes on the CPU backend (one core and all cores) and on
//! the GPU (kernels only, timed with device events, and end to end with transfers).
//!
//! Each GPU figure is the median of repeated runs after a warm-up; inputs are random
//! residues (never zeros); every measured GPU result is checked against the CPU's and a
//! mismatch stops the run with an error.

use crate::backend::gpu::{moduli_words, EqualKernel, Gpu};
use crate::backend::{half_residues, pack_words, Backend, Op};
use crate::basis::RnsBasis;
use crate::bipoly::BiPoly;
use crate::det::{det, hadamard_bits};
use crate::error::{Error, Result};
use crate::matrix::IntMatrix;
use crate::modmat::ModMatrices;
use crate::poly::IntPoly;
use crate::resultant::{bound_bits, resultant, resultant_xy, resultant_xy_with_stats};
use crate::vector::RnsVec;
use indicatif::{ProgressBar, ProgressStyle};
use rug::Integer;
use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

/// How large the measured cases are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Preset {
    /// A few elements: for tests of the runner itself.
    Tiny,
    /// Finishes in well under 30 s on a 2-core machine.
    Quick,
    /// Sizes that fill a large GPU.
    Full,
}

/// One measurement: an operation at one size on one backend.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// `add`, `mul`, `mul_naive`, `abcd`, `equal`, `sign`, `to_rns`, `crt`, `matmul`, `det`,
    /// `resultant` or `resultant_xy`.
    pub operation: &'static str,
    /// `cpu1` (one core), `cpu` (all cores), `gpu_kernel` (kernels only) or `gpu` (with transfers).
    pub backend: &'static str,
    /// Numbers processed (for `det` and `matmul`: the matrix dimension; for `resultant`: the
    /// degree of both polynomials; for `resultant_xy`: their degree in x and in y).
    pub size: usize,
    /// Residue channels per number (for `det`: the primes used).
    pub channels: usize,
    /// Median time in milliseconds.
    pub ms: f64,
}

impl Row {
    /// Operations per millisecond (numbers, or determinants for `det`).
    pub fn ops_per_ms(&self) -> f64 {
        let ops = match self.operation {
            "det" | "resultant" | "resultant_xy" => 1.0,
            "matmul" => self.channels as f64 * (self.size as f64).powi(3),
            _ => self.size as f64,
        };
        ops / self.ms
    }
}

/// Everything one run measured.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// The measurements, in the order taken.
    pub rows: Vec<Row>,
    /// The GPU's name, or why there was none.
    pub device: String,
    /// The number of CPU threads of the `cpu` backend.
    pub threads: usize,
}

/// The operations, in the order they are measured, with their family (one chart each).
pub const OPERATIONS: [(&str, &str); 12] = [
    ("add", "elementwise"),
    ("mul", "elementwise"),
    ("mul_naive", "elementwise"),
    ("abcd", "elementwise"),
    ("equal", "comparison"),
    ("sign", "comparison"),
    ("to_rns", "conversion"),
    ("crt", "conversion"),
    ("matmul", "linear_algebra"),
    ("det", "linear_algebra"),
    ("resultant", "linear_algebra"),
    ("resultant_xy", "linear_algebra"),
];

/// Primes of the `matmul` benchmark.
const MATMUL_PRIMES: usize = 32;

/// Sizes (numbers, or matrix dimension for `det`) and channels of an operation.
fn cases(op: &str, preset: Preset) -> (Vec<usize>, usize) {
    let elementwise = match preset {
        Preset::Tiny => vec![5, 40],
        Preset::Quick => vec![1 << 10, 1 << 14, 1 << 17],
        Preset::Full => vec![1 << 10, 1 << 14, 1 << 18, 1 << 21],
    };
    let heavy = match preset {
        Preset::Tiny => vec![5, 40],
        Preset::Quick => vec![1 << 8, 1 << 11],
        Preset::Full => vec![1 << 10, 1 << 13, 1 << 16],
    };
    let dets = match preset {
        Preset::Tiny => vec![3, 6],
        Preset::Quick => vec![16, 48],
        Preset::Full => vec![32, 96, 192],
    };
    match op {
        "add" | "mul" | "mul_naive" | "abcd" => (elementwise, 32),
        "equal" => (elementwise, 64),
        "sign" | "to_rns" | "crt" => (heavy, 64),
        "det" => (dets, 0),
        "matmul" => (
            match preset {
                Preset::Tiny => vec![8, 24],
                Preset::Quick => vec![64, 192],
                Preset::Full => vec![128, 256, 512],
            },
            MATMUL_PRIMES,
        ),
        "resultant_xy" => (
            match preset {
                Preset::Tiny => vec![1, 2],
                Preset::Quick => vec![3, 6],
                Preset::Full => vec![4, 8, 16],
            },
            0,
        ),
        _ => (dets.iter().map(|n| n * 2).collect(), 0),
    }
}

/// Median wall time of `f` in ms over `reps` runs after one warm-up.
fn wall_ms(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(t))
}

/// Median device time of `f` in ms over `reps` runs after one warm-up.
fn event_ms(g: &Gpu, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    g.sync()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(g.time_ms(&mut f)?);
    }
    Ok(median(t))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn basis(k: usize) -> Arc<RnsBasis> {
    Arc::new(RnsBasis::largest_primes(k).expect("generated primes are valid"))
}

fn mismatch(op: &str, size: usize, what: &str) -> Error {
    Error::Internal(format!(
        "GPU and CPU results differ: {op} at size {size} ({what})"
    ))
}

/// The measurement of one (operation, size) on every backend.
struct Case<'a> {
    op: &'static str,
    size: usize,
    channels: usize,
    reps: usize,
    gpu: Option<&'a (Arc<Gpu>, Backend)>,
    one_core: &'a rayon::ThreadPool,
    rows: &'a mut Vec<Row>,
}

impl Case<'_> {
    fn push(&mut self, backend: &'static str, ms: f64) {
        self.rows.push(Row {
            operation: self.op,
            backend,
            size: self.size,
            channels: self.channels,
            ms,
        });
    }

    /// Times `cpu` on one core and on all cores.
    fn cpu(&mut self, cpu: impl Fn() -> Result<()> + Sync) -> Result<()> {
        let one = self.one_core.install(|| wall_ms(self.reps, &cpu))?;
        self.push("cpu1", one);
        let all = wall_ms(self.reps, &cpu)?;
        self.push("cpu", all);
        Ok(())
    }
}

/// Runs every operation (or those in `only`) at the preset's sizes. Without a GPU
/// only the CPU side runs, and the report's `device` says why.
pub fn run(preset: Preset, only: Option<&[String]>, progress: bool) -> Result<Report> {
    let gpu = match Gpu::get() {
        Ok(g) => Some((
            g.clone(),
            Backend::Gpu {
                gpu: g,
                min_work: 0,
            },
        )),
        Err(e) => {
            eprintln!("rns compare: {e}; measuring the CPU side only");
            None
        }
    };
    let device = match &gpu {
        Some((g, _)) => g.name().to_string(),
        None => "none".to_string(),
    };
    let one_core = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .map_err(|e| Error::Internal(format!("thread pool: {e}")))?;
    let reps = if preset == Preset::Full { 5 } else { 3 };
    let selected: Vec<&'static str> = OPERATIONS
        .iter()
        .map(|(op, _)| *op)
        .filter(|op| only.is_none_or(|o| o.iter().any(|x| x == op)))
        .collect();
    if let Some(o) = only {
        if let Some(bad) = o.iter().find(|x| !OPERATIONS.iter().any(|(op, _)| op == x)) {
            return Err(Error::Shape(format!(
                "unknown operation `{bad}` (known: {})",
                names()
            )));
        }
    }
    let total: usize = selected.iter().map(|op| cases(op, preset).0.len()).sum();
    let bar = if progress {
        let b = ProgressBar::new(total as u64);
        b.set_style(
            ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let mut rows = Vec::new();
    for op in selected {
        let (sizes, channels) = cases(op, preset);
        for size in sizes {
            bar.set_message(format!("{op} {size}"));
            let mut case = Case {
                op,
                size,
                channels,
                reps,
                gpu: gpu.as_ref(),
                one_core: &one_core,
                rows: &mut rows,
            };
            measure(&mut case)?;
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    Ok(Report {
        rows,
        device,
        threads: rayon::current_num_threads(),
    })
}

fn names() -> String {
    OPERATIONS
        .iter()
        .map(|(op, _)| *op)
        .collect::<Vec<_>>()
        .join(", ")
}

fn measure(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    match op {
        "add" | "mul" | "mul_naive" | "abcd" => {
            let kind = match op {
                "add" => Op::Add,
                "mul" => Op::Mul,
                "mul_naive" => Op::MulNaive,
                _ => Op::MulSubMul,
            };
            let b = basis(channels - 1);
            let xs: Vec<RnsVec> = (0..kind.arity())
                .map(|s| RnsVec::random(&b, size, s as u64 + 1))
                .collect();
            let args: Vec<&RnsVec> = xs.iter().collect();
            let want = Backend::Cpu.elementwise(kind, &args, None)?;
            case.cpu(|| Backend::Cpu.elementwise(kind, &args, None).map(drop))?;
            if let Some((g, gb)) = case.gpu {
                let dev: Vec<_> = xs
                    .iter()
                    .map(|x| g.upload(x.residues()))
                    .collect::<Result<_>>()?;
                let refs: Vec<_> = dev.iter().collect();
                let (dm, ds) = (g.upload(&moduli_words(b.moduli()))?, g.upload(&[0])?);
                let mut out = g.alloc(size * b.channels())?;
                let ms = event_ms(g, case.reps, || {
                    g.launch_elementwise(kind, &mut out, &refs, &ds, &dm, size, b.channels())
                })?;
                if g.download(&out, size * b.channels())? != want.residues() {
                    return Err(mismatch(op, size, "kernel"));
                }
                case.push("gpu_kernel", ms);
                let ms = wall_ms(case.reps, || gb.elementwise(kind, &args, None).map(drop))?;
                if gb.elementwise(kind, &args, None)?.residues() != want.residues() {
                    return Err(mismatch(op, size, "with transfers"));
                }
                case.push("gpu", ms);
            }
        }
        "equal" => {
            let b = basis(channels - 1);
            let x = RnsVec::random(&b, size, 7);
            let mut data = x.residues().to_vec();
            for i in (0..size).step_by(2) {
                data[(i % b.channels()) * size + i] ^= 1; // every other number differs in one channel
            }
            let y = RnsVec::from_residues(&b, size, data)?;
            let want = Backend::Cpu.equal(&x, &y)?;
            case.cpu(|| Backend::Cpu.equal(&x, &y).map(drop))?;
            if let Some((g, gb)) = case.gpu {
                let (dx, dy) = (g.upload(x.residues())?, g.upload(y.residues())?);
                let mut out = g.alloc(size)?;
                let ms = event_ms(g, case.reps, || {
                    g.launch_equal(
                        EqualKernel::WarpVote,
                        &mut out,
                        &dx,
                        &dy,
                        size,
                        b.channels(),
                    )
                })?;
                let got: Vec<bool> = g
                    .download(&out, size)?
                    .into_iter()
                    .map(|v| v != 0)
                    .collect();
                if got != want {
                    return Err(mismatch(op, size, "kernel"));
                }
                case.push("gpu_kernel", ms);
                let ms = wall_ms(case.reps, || gb.equal(&x, &y).map(drop))?;
                if gb.equal(&x, &y)? != want {
                    return Err(mismatch(op, size, "with transfers"));
                }
                case.push("gpu", ms);
            }
        }
        "sign" | "crt" => {
            let b = basis(channels - 1);
            let x = RnsVec::random(&b, size, 11);
            let k = b.range_len();
            if op == "sign" {
                let want = Backend::Cpu.sign(&x)?;
                case.cpu(|| Backend::Cpu.sign(&x).map(drop))?;
                if let Some((g, gb)) = case.gpu {
                    let (dx, dm, dt) = (
                        g.upload(x.residues())?,
                        g.upload(&moduli_words(b.range_moduli()))?,
                        g.upload(b.mr_table())?,
                    );
                    let (dh, dhd) = (g.upload(&half_residues(&b))?, g.upload(b.half_digits())?);
                    let (mut dd, mut out) = (g.alloc(k * size)?, g.alloc(size)?);
                    let ms = event_ms(g, case.reps, || {
                        g.launch_digits(&mut dd, &dx, Some(&dh), &dm, &dt, size, k)?;
                        g.launch_cmp(&mut out, &dd, &dhd, true, size, k)
                    })?;
                    let got: Vec<_> = g
                        .download(&out, size)?
                        .into_iter()
                        .map(|v| (v as i32).cmp(&0))
                        .collect();
                    if got != want {
                        return Err(mismatch(op, size, "kernel"));
                    }
                    case.push("gpu_kernel", ms);
                    let ms = wall_ms(case.reps, || gb.sign(&x).map(drop))?;
                    if gb.sign(&x)? != want {
                        return Err(mismatch(op, size, "with transfers"));
                    }
                    case.push("gpu", ms);
                }
            } else {
                let want = x.to_integers();
                case.cpu(|| {
                    x.to_integers();
                    Ok(())
                })?;
                if let Some((g, gb)) = case.gpu {
                    let (dx, dm, dt) = (
                        g.upload(x.residues())?,
                        g.upload(&moduli_words(b.range_moduli()))?,
                        g.upload(b.mr_table())?,
                    );
                    let mut dd = g.alloc(k * size)?;
                    let ms = event_ms(g, case.reps, || {
                        g.launch_digits(&mut dd, &dx, None, &dm, &dt, size, k)
                    })?;
                    case.push("gpu_kernel", ms);
                    let ms = wall_ms(case.reps, || gb.to_integers(&x).map(drop))?;
                    if gb.to_integers(&x)? != want {
                        return Err(mismatch(op, size, "with transfers"));
                    }
                    case.push("gpu", ms);
                }
            }
        }
        "to_rns" => {
            let b = basis(channels - 1);
            let values = RnsVec::random(&b, size, 13).to_integers();
            let want = RnsVec::from_integers(&b, &values)?;
            case.cpu(|| RnsVec::from_integers(&b, &values).map(drop))?;
            if let Some((g, gb)) = case.gpu {
                let (words, neg, nwords) = pack_words(&values);
                let (dw, dn, dm) = (
                    g.upload(&words)?,
                    g.upload(&neg)?,
                    g.upload(&moduli_words(b.moduli()))?,
                );
                let mut out = g.alloc(size * b.channels())?;
                let ms = event_ms(g, case.reps, || {
                    g.launch_reduce(&mut out, &dw, &dn, &dm, size, b.channels(), nwords)
                })?;
                if g.download(&out, size * b.channels())? != want.residues() {
                    return Err(mismatch(op, size, "kernel"));
                }
                case.push("gpu_kernel", ms);
                let ms = wall_ms(case.reps, || gb.to_rns(&b, &values).map(drop))?;
                if gb.to_rns(&b, &values)?.residues() != want.residues() {
                    return Err(mismatch(op, size, "with transfers"));
                }
                case.push("gpu", ms);
            }
        }
        "matmul" => {
            // the product of two n×n matrices of random residues modulo 32 primes
            let b = basis(channels - 1);
            let mat = |seed| {
                let r = RnsVec::random(&b, size * size, seed);
                ModMatrices::new(&b.primes(), size, size, r.residues().to_vec())
            };
            let (x, y) = (mat(23)?, mat(29)?);
            let want = Backend::Cpu.matmul_mod(&x, &y)?;
            case.cpu(|| Backend::Cpu.matmul_mod(&x, &y).map(drop))?;
            if let Some((g, gb)) = case.gpu {
                let (dx, dy, dm) = (
                    g.upload(x.data())?,
                    g.upload(y.data())?,
                    g.upload(&moduli_words(x.moduli()))?,
                );
                let mut out = g.alloc(want.data().len())?;
                let shape = (size, size, size);
                let ms = event_ms(g, case.reps, || {
                    g.launch_matmul(&mut out, &dx, &dy, &dm, shape, channels)
                })?;
                if g.download(&out, want.data().len())? != want.data() {
                    return Err(mismatch(op, size, "kernel"));
                }
                case.push("gpu_kernel", ms);
                let ms = wall_ms(case.reps, || gb.matmul_mod(&x, &y).map(drop))?;
                if gb.matmul_mod(&x, &y)? != want {
                    return Err(mismatch(op, size, "with transfers"));
                }
                case.push("gpu", ms);
            }
        }
        "det" => {
            // an n×n matrix of random 64-bit entries, exact over Z
            let r = RnsVec::random(&basis(2), size * size, 17);
            let a = IntMatrix::new(size, size, signed_64(r.channel(0), r.channel(1)))?;
            measure_det(case, &a)?;
        }
        "resultant_xy" => {
            // res_y(f, g) for dense f, g of degree `size` in x and in y, 64-bit coefficients
            let r = RnsVec::random(&basis(2), 2 * (size + 1) * (size + 1), 31);
            let c = signed_64(r.channel(0), r.channel(1));
            let rows = |c: &[Integer]| c.chunks(size + 1).map(<[Integer]>::to_vec).collect();
            let (cf, cg) = c.split_at(c.len() / 2);
            let f = BiPoly::from_rows(rows(cf))?;
            let g = BiPoly::from_rows(rows(cg))?;
            measure_resultant_xy(case, &f, &g)?;
        }
        _ => {
            // res(f, g) for f, g of degree `size` with 64-bit coefficients, by Euclid modulo each prime
            let r = RnsVec::random(&basis(2), 2 * (size + 1), 19);
            let c = signed_64(r.channel(0), r.channel(1));
            let f = IntPoly::new(c[..size + 1].to_vec())?;
            let g = IntPoly::new(c[size + 1..].to_vec())?;
            measure_resultant(case, &f, &g)?;
        }
    }
    Ok(())
}

/// 64-bit integers from two 32-bit halves, every third one negated.
fn signed_64(hi: &[u32], lo: &[u32]) -> Vec<Integer> {
    hi.iter()
        .zip(lo)
        .enumerate()
        .map(|(i, (&h, &l))| {
            let x = Integer::from(((h as u64) << 32) | l as u64);
            if i % 3 == 0 {
                -x
            } else {
                x
            }
        })
        .collect()
}

/// Times the exact determinant of `a` on every backend; the kernel-only figure is the
/// blocked modular LU over all primes on the device.
fn measure_det(case: &mut Case, a: &IntMatrix) -> Result<()> {
    let (op, size, n) = (case.op, case.size, a.rows());
    let b = Arc::new(RnsBasis::for_bits(hadamard_bits(a).unwrap_or(1)));
    case.channels = b.range_len();
    let want = det(a, &Backend::Cpu)?;
    case.cpu(|| det(a, &Backend::Cpu).map(drop))?;
    if let Some((g, gb)) = case.gpu {
        let residues = RnsVec::from_integers(&b, a.entries())?;
        let dm = g.upload(&moduli_words(b.moduli()))?;
        let src = g.upload(residues.residues())?;
        let mut work = g.upload(residues.residues())?;
        let mut out = g.alloc(b.channels())?;
        let mut t = Vec::new();
        for _ in 0..case.reps {
            g.copy(&mut work, &src)?;
            t.push(g.time_ms(|| g.launch_det(&mut out, &mut work, &dm, n, b.channels()))?);
        }
        if g.download(&out, b.channels())? != Backend::Cpu.det_per_channel(&residues, n)? {
            return Err(mismatch(op, size, "kernel"));
        }
        case.push("gpu_kernel", median(t));
        let ms = wall_ms(case.reps, || det(a, gb).map(drop))?;
        if det(a, gb)? != want {
            return Err(mismatch(op, size, "with transfers"));
        }
        case.push("gpu", ms);
    }
    Ok(())
}

/// Times `res(f, g)` on every backend; the kernel-only figure is Euclid's algorithm
/// modulo all primes on the device (one thread per prime).
fn measure_resultant(case: &mut Case, f: &IntPoly, g: &IntPoly) -> Result<()> {
    let (op, size) = (case.op, case.size);
    let (lf, lg) = (f.leading().clone(), g.leading().clone());
    let b = Arc::new(RnsBasis::for_bits_excluding(bound_bits(f, g), |p| {
        lf.is_divisible_u(p) || lg.is_divisible_u(p)
    }));
    case.channels = b.range_len();
    let want = resultant(f, g, &Backend::Cpu)?;
    case.cpu(|| resultant(f, g, &Backend::Cpu).map(drop))?;
    if let Some((gpu, gb)) = case.gpu {
        let (df, dg) = (f.degree(), g.degree());
        let coeffs: Vec<Integer> = f.coeffs().iter().chain(g.coeffs()).cloned().collect();
        let residues = RnsVec::from_integers(&b, &coeffs)?;
        let interleaved =
            crate::layout::to_number_major(residues.residues(), df + dg + 2, b.channels());
        let dm = gpu.upload(&moduli_words(b.moduli()))?;
        let src = gpu.upload(&interleaved)?;
        let mut work = gpu.upload(&interleaved)?;
        let mut out = gpu.alloc(b.channels())?;
        let mut t = Vec::new();
        for _ in 0..case.reps {
            gpu.copy(&mut work, &src)?;
            t.push(gpu.time_ms(|| {
                gpu.launch_resultant(&mut out, &mut work, &dm, b.channels(), df, dg)
            })?);
        }
        if gpu.download(&out, b.channels())?
            != Backend::Cpu.resultant_per_channel(&residues, df, dg)?
        {
            return Err(mismatch(op, size, "kernel"));
        }
        case.push("gpu_kernel", median(t));
        let ms = wall_ms(case.reps, || resultant(f, g, gb).map(drop))?;
        if resultant(f, g, gb)? != want {
            return Err(mismatch(op, size, "with transfers"));
        }
        case.push("gpu", ms);
    }
    Ok(())
}

/// Times `res_y(f, g)` on every backend; the kernel-only figure is the sum of the
/// device stages of its stage breakdown (reduce, resultants, interpolation: wall time
/// with a synchronisation after each).
fn measure_resultant_xy(case: &mut Case, f: &BiPoly, g: &BiPoly) -> Result<()> {
    let (op, size) = (case.op, case.size);
    let (want, st) = resultant_xy_with_stats(f, g, &Backend::Cpu)?;
    case.channels = st.primes();
    case.cpu(|| resultant_xy(f, g, &Backend::Cpu).map(drop))?;
    if let Some((_, gb)) = case.gpu {
        let mut kernels = Vec::new();
        let ms = wall_ms(case.reps, || {
            let (r, st) = resultant_xy_with_stats(f, g, gb)?;
            if r != want {
                return Err(mismatch(op, size, "with transfers"));
            }
            kernels.push(st.device_time().as_secs_f64() * 1e3);
            Ok(())
        })?;
        case.push("gpu_kernel", median(kernels));
        case.push("gpu", ms);
    }
    Ok(())
}

impl Report {
    /// One table per operation: size, the time on each backend, operations per ms on
    /// each, and the GPU's speedup over all CPU cores (end to end, and kernels only).
    pub fn tables(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "GPU: {}; CPU backend: {} threads",
            self.device, self.threads
        );
        for (op, _) in OPERATIONS {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.operation == op).collect();
            if rows.is_empty() {
                continue;
            }
            let unit = if matches!(op, "det" | "resultant" | "resultant_xy" | "matmul") {
                "n"
            } else {
                "numbers"
            };
            let title = match op {
                "det" => "exact over Z, 64-bit entries; primes from the Hadamard bound".to_string(),
                "matmul" => format!(
                    "n×n by n×n modulo {} primes; ops are mul-adds",
                    rows[0].channels
                ),
                "resultant" => {
                    "two polynomials of degree n, 64-bit coefficients; Euclid modulo each prime"
                        .to_string()
                }
                "resultant_xy" => "res_y of two dense polynomials of degree n in x and y, \
                    64-bit coefficients; Collins: a resultant per (prime, point), interpolation"
                    .to_string(),
                _ => format!("{} channels", rows[0].channels),
            };
            let _ = writeln!(s, "\n{op} ({title})");
            let _ = writeln!(
                s,
                "{unit:>9} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>11} {:>8} {:>8}",
                "cpu1 ms",
                "cpu ms",
                "gpu ms",
                "kernel ms",
                "cpu ops/ms",
                "gpu ops/ms",
                "kern ops/ms",
                "speedup",
                "kernel×"
            );
            let mut sizes: Vec<usize> = rows.iter().map(|r| r.size).collect();
            sizes.dedup();
            for size in sizes {
                let get = |b: &str| rows.iter().find(|r| r.size == size && r.backend == b);
                let ms = |b: &str| get(b).map_or("-".into(), |r| format!("{:.3}", r.ms));
                let ops = |b: &str| get(b).map_or("-".into(), |r| format!("{:.1}", r.ops_per_ms()));
                let ratio = |b: &str| match (get("cpu"), get(b)) {
                    (Some(c), Some(g)) => format!("{:.1}", c.ms / g.ms),
                    _ => "-".into(),
                };
                let _ = writeln!(
                    s,
                    "{size:>9} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>11} {:>8} {:>8}",
                    ms("cpu1"),
                    ms("cpu"),
                    ms("gpu"),
                    ms("gpu_kernel"),
                    ops("cpu"),
                    ops("gpu"),
                    ops("gpu_kernel"),
                    ratio("gpu"),
                    ratio("gpu_kernel")
                );
            }
        }
        s
    }

    /// The raw rows as CSV: `operation,backend,size,channels,ms,ops_per_ms`.
    pub fn csv(&self) -> String {
        let mut s = String::from("operation,backend,size,channels,ms,ops_per_ms\n");
        for r in &self.rows {
            let _ = writeln!(
                s,
                "{},{},{},{},{},{}",
                r.operation,
                r.backend,
                r.size,
                r.channels,
                r.ms,
                r.ops_per_ms()
            );
        }
        s
    }

    /// Reads back the rows of [`Report::csv`] (to redraw tables and charts elsewhere);
    /// `device` and `threads` label them.
    pub fn from_csv(text: &str, device: &str, threads: usize) -> Result<Report> {
        let bad = |line: usize, message: String| Error::Parse {
            source: "csv".into(),
            line,
            message,
        };
        let mut rows = Vec::new();
        for (i, line) in text
            .lines()
            .enumerate()
            .skip(1)
            .filter(|(_, l)| !l.trim().is_empty())
        {
            let f: Vec<&str> = line.split(',').collect();
            if f.len() != 6 {
                return Err(bad(i + 1, format!("expected 6 fields, found {}", f.len())));
            }
            let operation = OPERATIONS
                .iter()
                .map(|(o, _)| *o)
                .find(|o| *o == f[0])
                .ok_or_else(|| bad(i + 1, format!("unknown operation `{}`", f[0])))?;
            let backend = ["cpu1", "cpu", "gpu_kernel", "gpu"]
                .into_iter()
                .find(|b| *b == f[1])
                .ok_or_else(|| bad(i + 1, format!("unknown backend `{}`", f[1])))?;
            let num = |k: usize| {
                f[k].parse::<f64>()
                    .map_err(|_| bad(i + 1, format!("`{}` is not a number", f[k])))
            };
            rows.push(Row {
                operation,
                backend,
                size: num(2)? as usize,
                channels: num(3)? as usize,
                ms: num(4)?,
            });
        }
        Ok(Report {
            rows,
            device: device.to_string(),
            threads,
        })
    }

    /// The raw rows as JSON: `{"device": …, "threads": …, "rows": [{…}, …]}`.
    pub fn json(&self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| {
                format!(
                    "{{\"operation\":\"{}\",\"backend\":\"{}\",\"size\":{},\"channels\":{},\"ms\":{},\"ops_per_ms\":{}}}",
                    r.operation,
                    r.backend,
                    r.size,
                    r.channels,
                    r.ms,
                    r.ops_per_ms()
                )
            })
            .collect();
        format!(
            "{{\"device\":\"{}\",\"threads\":{},\"rows\":[{}]}}\n",
            self.device.replace('"', "'"),
            self.threads,
            rows.join(",")
        )
    }

    /// One chart per operation family, time against size on log scales, each
    /// (operation, backend) a line: `DIR/<family>.svg` and `DIR/<family>.png`.
    pub fn plot(&self, dir: &Path) -> Result<Vec<String>> {
        crate::plot::families(self, dir)
    }
}

/// Writes `text` to `path`, mapping failures to [`Error::Io`].
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    })
}
