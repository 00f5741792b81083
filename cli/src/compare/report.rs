//! The report of a comparison run: tables, CSV (and back), JSON and charts.

use super::{Report, Row, BACKENDS, BANDWIDTH, OPERATIONS};
use rns::error::{Error, Result};
use rns::input::Expect;
use std::fmt::Write as _;
use std::path::Path;

impl Report {
    /// The reference bandwidths (GB/s), then one table per operation: size, the time on
    /// each backend, operations per ms, and the GPU's speedup over all CPU cores end to
    /// end, resident and kernels only.
    pub fn tables(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "GPU: {}; CPU backend: {} threads",
            self.device, self.threads
        );
        let bw: Vec<&Row> = self
            .rows
            .iter()
            .filter(|r| r.operation == BANDWIDTH)
            .collect();
        if !bw.is_empty() {
            let _ = writeln!(
                s,
                "\nbandwidth (reference copies of this run; GB/s of bytes moved)"
            );
            for r in bw {
                let _ = writeln!(
                    s,
                    "{:>14} {:>12} bytes {:>9.3} ms {:>9.1} GB/s",
                    r.backend,
                    r.size,
                    r.ms,
                    r.ops_per_ms() / 1e6
                );
            }
        }
        for (op, _) in OPERATIONS {
            let rows: Vec<&Row> = self.rows.iter().filter(|r| r.operation == op).collect();
            if rows.is_empty() {
                continue;
            }
            let unit = if matches!(
                op,
                "det" | "resultant" | "resultant_xy" | "matmul" | "charpoly_mod" | "rref_mod"
            ) {
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
                "charpoly_mod" => "n×n random residues modulo one prime, the whole GPU: \
                    Hessenberg form, then the recurrence"
                    .to_string(),
                "rref_mod" => {
                    "n×(n + n/40) random residues modulo one prime, the whole GPU".to_string()
                }
                _ => format!("{} channels", rows[0].channels),
            };
            let _ = writeln!(s, "\n{op} ({title})");
            let _ = writeln!(
                s,
                "{unit:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>8}",
                "cpu1 ms",
                "cpu ms",
                "gpu ms",
                "resid. ms",
                "kernel ms",
                "cpu ops/ms",
                "gpu ops/ms",
                "speedup",
                "resid.×",
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
                    "{size:>9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>11} {:>11} {:>8} {:>8} {:>8}",
                    ms("cpu1"),
                    ms("cpu"),
                    ms("gpu"),
                    ms("gpu_resident"),
                    ms("gpu_kernel"),
                    ops("cpu"),
                    ops("gpu"),
                    ratio("gpu"),
                    ratio("gpu_resident"),
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
                .chain([BANDWIDTH])
                .find(|o| *o == f[0])
                .ok_or_else(|| bad(i + 1, format!("unknown operation `{}`", f[0])))?;
            let backend = BACKENDS
                .into_iter()
                .find(|b| *b == f[1])
                .ok_or_else(|| bad(i + 1, format!("unknown backend `{}`", f[1])))?;
            rows.push(Row {
                operation,
                backend,
                size: count(f[2], "size", 1, MAX_SIZE).map_err(|m| bad(i + 1, m))?,
                channels: count(f[3], "channels", 0, MAX_CHANNELS).map_err(|m| bad(i + 1, m))?,
                ms: time(f[4]).map_err(|m| bad(i + 1, m))?,
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

/// What a CSV of [`Report::csv`] may hold: far more rows than any run writes.
pub const CSV: Expect = Expect::Text {
    max_bytes: 64 << 20,
};

/// The largest size a CSV row may give (2^53: exact in the charts' `f64`).
const MAX_SIZE: usize = 1 << 53;
/// The most channels a CSV row may give.
const MAX_CHANNELS: usize = 1 << 32;
/// The longest time a CSV row may give, in ms (about 11.6 days).
const MAX_MS: f64 = 1e9;

/// A CSV field that must be a whole number in `lo..=hi`, or what is wrong with it.
fn count(field: &str, name: &str, lo: usize, hi: usize) -> std::result::Result<usize, String> {
    match field.trim().parse::<usize>() {
        Ok(v) if (lo..=hi).contains(&v) => Ok(v),
        _ => Err(format!(
            "{name} `{field}` is not a whole number from {lo} to {hi}"
        )),
    }
}

/// A CSV time in ms: finite, above 0 and at most [`MAX_MS`], or what is wrong with it.
fn time(field: &str) -> std::result::Result<f64, String> {
    match field.trim().parse::<f64>() {
        Ok(ms) if ms > 0.0 && ms <= MAX_MS => Ok(ms),
        _ => Err(format!(
            "time `{field}` is not a number of ms above 0 and at most {MAX_MS}"
        )),
    }
}

/// Checks, before any measuring, that `path` can be written: opens it for appending
/// (creating it, and removing what it created) so that a bad path fails at once.
pub fn check_writable(path: &Path) -> Result<()> {
    let existed = path.exists();
    let io = |e| Error::io(path.display(), e);
    std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .map_err(io)?;
    if !existed {
        std::fs::remove_file(path).map_err(io)?;
    }
    Ok(())
}

/// Writes `text` to `path`, mapping failures to [`Error::Io`].
pub fn write_file(path: &Path, text: &str) -> Result<()> {
    std::fs::write(path, text).map_err(|e| Error::io(path.display(), e))
}
