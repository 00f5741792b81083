//! The `rns` command line: exact results through residues, on the CPU or the GPU.

use clap::{Parser, Subcommand, ValueEnum};
use rns::compare::{self, Preset};
use rns::{det_with_stats, linalg, Backend, BackendChoice, IntMatrix, ModMatrices, Result};
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
    /// Exact determinant of a square integer matrix (or modulo P), printed as a decimal integer.
    Det {
        /// Matrix file (`rows cols`, then the rows); `-` reads standard input.
        file: String,
        /// Work modulo this prime (2^30 < P < 2^31) instead of over Z.
        #[arg(long = "mod", value_name = "P")]
        modulus: Option<u32>,
        /// Where the modular determinants run.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// Write the primes used and per-stage times to standard error.
        #[arg(long)]
        stats: bool,
    },
    /// Product A·B of two integer matrices (or modulo P), printed as a matrix file.
    Matmul {
        /// Matrix file of A; `-` reads standard input.
        a: String,
        /// Matrix file of B.
        b: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Rank of an integer matrix over Q (or modulo P).
    Rank {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Inverse of a square matrix modulo P (or over Q without --mod), printed as a matrix file.
    Inverse {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Solution X of A X = B for square non-singular A, over Q (`p/q` entries) or modulo P.
    Solve {
        /// Matrix file of A; `-` reads standard input.
        a: String,
        /// Matrix file of B (as many rows as A).
        b: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Resultant res(f, g) of two integer polynomials (files: coefficients, constant term first).
    Resultant {
        /// First polynomial file; `-` reads standard input.
        f: String,
        /// Second polynomial file.
        g: String,
        /// Where the modular resultants run.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
    },
    /// Resultant res_y(f, g) of two polynomials in Z[x, y]: eliminates y and prints the
    /// coefficients in x, constant term first (files: one `coefficient x_exp y_exp` per line).
    ResultantXy {
        /// First polynomial file; `-` reads standard input.
        f: String,
        /// Second polynomial file.
        g: String,
        /// Where the modular resultants and interpolations run.
        #[arg(long, value_enum, default_value = "auto")]
        backend: BackendArg,
        /// Print the bounds, primes and stage times on standard error.
        #[arg(long)]
        stats: bool,
    },
    /// Measure every operation on the CPU (one core, all cores) and the GPU; print tables.
    Compare(CompareArgs),
}

/// The modulus and backend options of the matrix commands.
#[derive(clap::Args)]
struct ModOpts {
    /// Work modulo this prime (2^30 < P < 2^31) instead of over Z or Q.
    #[arg(long = "mod", value_name = "P")]
    modulus: Option<u32>,
    /// Where the modular computations run.
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendArg,
}

/// The images of `a` modulo `p` (validated: a prime in range).
fn modular(a: &IntMatrix, p: u32) -> Result<ModMatrices> {
    ModMatrices::from_int_matrix(a, &[p])
}

/// Runs a matrix command: `over_q` without a modulus, `mod_p` with one.
fn matrix_command(
    files: &[&str],
    opts: ModOpts,
    over_q: impl FnOnce(&[IntMatrix], &Backend) -> Result<String>,
    mod_p: impl FnOnce(&[ModMatrices], &Backend) -> Result<String>,
) -> Result<()> {
    let mats = files
        .iter()
        .map(|f| IntMatrix::read(f))
        .collect::<Result<Vec<_>>>()?;
    let backend = Backend::select(opts.backend.into())?;
    let out = match opts.modulus {
        None => over_q(&mats, &backend)?,
        Some(p) => {
            let mods = mats
                .iter()
                .map(|a| modular(a, p))
                .collect::<Result<Vec<_>>>()?;
            mod_p(&mods, &backend)?
        }
    };
    print!("{out}");
    Ok(())
}

/// Options of `rns compare` (also used by `examples/compare.rs`).
#[derive(clap::Args)]
struct CompareArgs {
    /// Small sizes: finishes in under 30 s on a 2-core machine.
    #[arg(long)]
    quick: bool,
    /// Only these operations (comma-separated: add, mul, mul_naive, abcd, equal, sign, to_rns, crt, matmul, det, resultant, resultant_xy).
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
            modulus: Some(p),
            backend,
            ..
        } => {
            let a = modular(&IntMatrix::read(&file)?, p)?;
            let backend = Backend::select(backend.into())?;
            println!("{}", backend.det_mod(&a)?[0]);
            Ok(())
        }
        Command::Matmul { a, b, opts } => matrix_command(
            &[&a, &b],
            opts,
            |m, be| Ok(linalg::matmul(&m[0], &m[1], be)?.to_string()),
            |m, be| Ok(be.matmul_mod(&m[0], &m[1])?.to_text(0)),
        ),
        Command::Rank { a, opts } => matrix_command(
            &[&a],
            opts,
            |m, be| Ok(format!("{}\n", linalg::rank(&m[0], be)?)),
            |m, be| Ok(format!("{}\n", be.rank_mod(&m[0])?[0])),
        ),
        Command::Inverse { a, opts } => matrix_command(
            &[&a],
            opts,
            |m, be| Ok(linalg::inverse(&m[0], be)?.to_string()),
            |m, be| Ok(be.inverse_mod(&m[0])?.to_text(0)),
        ),
        Command::Solve { a, b, opts } => matrix_command(
            &[&a, &b],
            opts,
            |m, be| Ok(linalg::solve(&m[0], &m[1], be)?.to_string()),
            |m, be| Ok(be.solve_mod(&m[0], &m[1])?.to_text(0)),
        ),
        Command::Det {
            file,
            modulus: None,
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
        Command::ResultantXy {
            f,
            g,
            backend,
            stats,
        } => {
            let (f, g) = (rns::BiPoly::read(&f)?, rns::BiPoly::read(&g)?);
            let backend = Backend::select(backend.into())?;
            let (r, st) = rns::resultant_xy_with_stats(&f, &g, &backend)?;
            let line: Vec<String> = r.iter().map(|c| c.to_string()).collect();
            println!("{}", line.join(" "));
            if stats {
                eprintln!(
                    "degree bound {}, {} bits, {} primes, {} candidate points, backend {}",
                    st.degree_bound,
                    st.bound_bits,
                    st.primes(),
                    st.candidates,
                    st.backend
                );
                for (name, t) in &st.stages {
                    eprintln!("{name:>32}: {:10.3} ms", t.as_secs_f64() * 1e3);
                }
            }
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
