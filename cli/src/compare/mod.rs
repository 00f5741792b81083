//! The CPU-vs-GPU comparison runner behind `rns compare` and `examples/compare.rs`:
//! every operation at several sizes on the CPU backend (one core and all cores) and on
//! the GPU three ways: the kernels only (device events), resident (inputs already on the
//! device, the result left there) and end to end (host in, host out); and, with a GPU,
//! the reference bandwidths of the same run (page-locked and pageable host↔device copies,
//! a device-to-device copy), so that each figure can be read against what the hardware
//! moves.
//!
//! Each GPU figure is the median of repeated runs after a warm-up; inputs are random
//! residues (never zeros); every measured GPU result is checked against the CPU's and a
//! mismatch stops the run with an error.

mod measure;
mod one_prime;
mod report;

pub use report::{check_writable, write_file, CSV};

/// The reference bandwidths of `g` for `bytes` bytes, medians of `reps` runs: `(kind,
/// bytes moved, ms)` for page-locked and pageable host→device and device→host copies,
/// both directions at once, and a device-to-device copy (bytes read plus written).
pub fn reference_bandwidth(
    g: &Gpu,
    bytes: usize,
    reps: usize,
) -> Result<Vec<(&'static str, usize, f64)>> {
    g.reference_bandwidth(bytes, reps)
}

use indicatif::{ProgressBar, ProgressStyle};
use rns::backend::gpu::Gpu;
use rns::backend::{Backend, BackendChoice};
use rns::error::{Error, Result};
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
    /// `resultant`, `resultant_xy`, `charpoly_mod` or `rref_mod`.
    pub operation: &'static str,
    /// One of [`BACKENDS`]: `cpu1` (one core), `cpu` (all cores), `gpu_kernel` (kernels
    /// only), `gpu_resident` (data on the device), `gpu` (host in, host out); for the
    /// `bandwidth` rows the kind of copy.
    pub backend: &'static str,
    /// Numbers processed (for `det`, `matmul`, `charpoly_mod` and `rref_mod`: the matrix
    /// dimension (rows); for `resultant`: the
    /// degree of both polynomials; for `resultant_xy`: their degree in x and in y; for
    /// `bandwidth`: the bytes moved).
    pub size: usize,
    /// Residue channels per number (for `det`: the primes used).
    pub channels: usize,
    /// Median time in milliseconds.
    pub ms: f64,
}

impl Row {
    /// Operations per millisecond (numbers, or determinants for `det`; bytes for
    /// `bandwidth`).
    pub fn ops_per_ms(&self) -> f64 {
        let ops = match self.operation {
            "det" | "resultant" | "resultant_xy" | "charpoly_mod" | "rref_mod" => 1.0,
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
pub const OPERATIONS: [(&str, &str); 14] = [
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
    ("charpoly_mod", "linear_algebra"),
    ("rref_mod", "linear_algebra"),
];

/// The backends of a row, in table order, then the copies of the `bandwidth` rows.
pub const BACKENDS: [&str; 11] = [
    "cpu1",
    "cpu",
    "gpu_kernel",
    "gpu_resident",
    "gpu",
    "h2d_pinned",
    "d2h_pinned",
    "h2d_pageable",
    "d2h_pageable",
    "duplex_pinned",
    "d2d",
];

/// The reference rows' operation.
pub const BANDWIDTH: &str = "bandwidth";

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
        "charpoly_mod" | "rref_mod" => (
            match preset {
                Preset::Tiny => vec![5, 40],
                Preset::Quick => vec![128, 384],
                Preset::Full => vec![1000, 2000, 4000],
            },
            1,
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
pub(crate) fn wall_ms(reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
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
pub(crate) fn event_ms(g: &Gpu, reps: usize, mut f: impl FnMut() -> Result<()>) -> Result<f64> {
    f()?;
    g.sync()?;
    let mut t = Vec::with_capacity(reps);
    for _ in 0..reps {
        t.push(g.time_ms(&mut f)?);
    }
    Ok(median(t))
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
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
/// only the CPU side runs, the report's `device` is `none`, and `warn` is told why.
pub fn run(
    preset: Preset,
    only: Option<&[String]>,
    progress: bool,
    warn: &mut dyn FnMut(&str),
) -> Result<Report> {
    // One device, chosen by the library's rule for an explicit GPU choice: every
    // figure of the report is that device's.
    let gpu = match Backend::select(BackendChoice::Gpu) {
        Ok(be) => be.gpu().cloned().map(|g| (g, be)),
        Err(e) => {
            warn(&format!("{e}; measuring the CPU side only"));
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
    if let Some((g, _)) = &gpu {
        let bytes = match preset {
            Preset::Tiny => 1 << 20,
            Preset::Quick => 16 << 20,
            Preset::Full => 256 << 20,
        };
        for (backend, size, ms) in reference_bandwidth(g, bytes, reps)? {
            rows.push(Row {
                operation: BANDWIDTH,
                backend,
                size,
                channels: 0,
                ms,
            });
        }
    }
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
            measure::measure(&mut case)?;
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
