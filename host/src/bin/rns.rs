//! The `rns` command line: exact results through residues, on the CPU or the GPU.

use clap::{Parser, Subcommand, ValueEnum};
use rns::{det_with_stats, Backend, BackendChoice, IntMatrix, Result};
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
