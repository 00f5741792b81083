//! The `rns` command line: exact results through residues, on the CPU or the GPU.

use clap::{Parser, Subcommand, ValueEnum};
use rns::compare::{self, Preset};
use rns::{det_with_stats, Backend, BackendChoice, IntMatrix, Result};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "rns",
    version,
    about = "Residue number system engine: exact big-integer results on CPU and GPU"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum)]
enum BackendArg {
    Cpu,
    Gpu,
    Auto,
}

impl From<BackendArg> for BackendChoice {
    fn from(b: BackendArg) -> Self {
        match b {
            BackendArg::Cpu => BackendChoice::Cpu,
            BackendArg::Gpu => BackendChoice::Gpu,
            BackendArg::Auto => BackendChoice::Auto,
        }
    }
}

#[derive(Subcommand)]
enum Command {
    /// Exact determinant of a square integer matrix, printed as a decimal integer.
    Det {
        /// Matrix file (`rows cols`, then the rows); `-` reads standard input.
        file: String,
        /// Where the modular determinants run.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// Write the primes used and per-stage times to standard error.
        #[arg(long)]
        stats: bool,
    },
    /// Resultant res(f, g) of two integer polynomials (files: coefficients, constant term first).
    Resultant {
        /// First polynomial file; `-` reads standard input.
        f: String,
        /// Second polynomial file.
        g: String,
        /// Where the modular determinants run.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
    },
    /// Measure every operation on the CPU (one core, all cores) and the GPU; print tables.
    Compare(CompareArgs),
}

/// Options of `rns compare` (also used by `examples/compare.rs`).
#[derive(clap::Args)]
struct CompareArgs {
    /// Small sizes: finishes in under 30 s on a 2-core machine.
    #[arg(long)]
    quick: bool,
    /// Only these operations (comma-separated: add, mul, mul_naive, abcd, equal, sign, to_rns, crt, det).
    #[arg(long, value_delimiter = ',')]
    only: Option<Vec<String>>,
    /// Write the raw rows as CSV.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write the raw rows as JSON.
    #[arg(long)]
    json: Option<PathBuf>,
    /// Write one chart per operation family (SVG and PNG) into this directory.
    #[arg(long)]
    plots: Option<PathBuf>,
    /// Measure nothing: redraw the tables (and charts) from a CSV an earlier run wrote.
    #[arg(long)]
    from_csv: Option<PathBuf>,
    /// With --from-csv: the device name to label the charts with.
    #[arg(long, default_value = "GPU")]
    device: String,
    /// With --from-csv: the CPU threads of the run, for the labels.
    #[arg(long, default_value_t = 0)]
    threads: usize,
}

fn run_compare(a: CompareArgs) -> Result<()> {
    let preset = if a.quick { Preset::Quick } else { Preset::Full };
    let report = match &a.from_csv {
        Some(path) => {
            let text = rns::matrix::read_source(&path.display().to_string())?;
            compare::Report::from_csv(&text, &a.device, a.threads)?
        }
        None => compare::run(preset, a.only.as_deref(), true)?,
    };
    print!("{}", report.tables());
    if let Some(p) = a.csv {
        compare::write_file(&p, &report.csv())?;
    }
    if let Some(p) = a.json {
        compare::write_file(&p, &report.json())?;
    }
    if let Some(dir) = a.plots {
        for f in report.plot(&dir)? {
            eprintln!("wrote {f}");
        }
    }
    Ok(())
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Det {
            file,
            backend,
            stats,
        } => {
            let a = IntMatrix::read(&file)?;
            let backend = Backend::select(backend.into())?;
            let (d, st) = det_with_stats(&a, &backend)?;
            println!("{d}");
            if stats {
                eprintln!(
                    "backend {}; {}×{} matrix; Hadamard bound 2^{}; {} primes + 1 redundant",
                    st.backend,
                    a.rows(),
                    a.cols(),
                    st.bound_bits,
                    st.primes
                );
                for (name, t) in &st.stages {
                    eprintln!("{name:>10}: {:10.3} ms", t.as_secs_f64() * 1e3);
                }
            }
            Ok(())
        }
        Command::Resultant { f, g, backend } => {
            let (f, g) = (rns::IntPoly::read(&f)?, rns::IntPoly::read(&g)?);
            let backend = Backend::select(backend.into())?;
            println!("{}", rns::resultant(&f, &g, &backend)?);
            Ok(())
        }
        Command::Compare(args) => run_compare(args),
    }
}

fn main() -> ExitCode {
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rns: {e}");
            ExitCode::from(e.exit_code() as u8)
        }
    }
}
