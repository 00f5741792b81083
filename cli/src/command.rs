//! The `rns` command line's arguments and commands: [`main`] parses a list of arguments
//! and runs the command, writing through an [`Output`], so that the binary, the tests
//! and the fuzz target run the same code.

use crate::compare::{self, Preset};
use crate::matrix_run::{matmul_command, matrix_command, mod_command, peek, rationals, Text};
use crate::output::{Failure, Output};
use crate::session::Session;
use clap::{Parser, Subcommand, ValueEnum};
use rns::algo::estimate::{self, Dims, MatrixKind};
use rns::input::read_source;
use rns::mat::matrix::require_square;
use rns::mat::modmat::MatrixPolynomial;
use rns::{BackendChoice, Devices, IntMatrix, Method, ModMatrices};
use std::ffi::OsString;
use std::path::PathBuf;

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
pub(crate) enum BackendArg {
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
        #[command(flatten)]
        opts: ModOpts,
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
        /// Over Q: the least common denominator d on a line, then N = d·A⁻¹ as a matrix
        /// file (no entry reduced on its own).
        #[arg(long, conflicts_with = "modulus")]
        denominator: bool,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Solution X of A X = B for square non-singular A, over Q (`p/q` entries) or modulo P.
    Solve {
        /// Matrix file of A; `-` reads standard input.
        a: String,
        /// Matrix file of B (as many rows as A).
        b: String,
        /// Over Q: the least common denominator d on a line, then N = d·X as a matrix file
        /// (no entry reduced on its own: FLINT's fmpz_mat_solve form, faster for large systems).
        #[arg(long, conflicts_with = "modulus")]
        denominator: bool,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Reduced row echelon form of a matrix of any shape and rank, over Q (`p/q` entries,
    /// certified exact) or modulo P, printed as a matrix file.
    Rref {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Characteristic polynomial det(x·I − A) of a square matrix, over Z (exact: primes to
    /// the full coefficient bound) or modulo P: its coefficients on one line, constant first.
    Charpoly {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Minimal polynomial of a square matrix (the monic polynomial of least degree with
    /// p(A) = 0), over Z (exact: certified from the primes) or modulo P: its
    /// coefficients on one line, constant first.
    Minpoly {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Nullspace basis of a matrix, as the columns of an n × (n − rank) matrix file: over
    /// Z, one primitive integer vector per non-pivot column (positive there); modulo P,
    /// the vector with 1 there.
    Nullspace {
        /// Matrix file; `-` reads standard input.
        a: String,
        #[command(flatten)]
        opts: ModOpts,
    },
    /// Resultant res(f, g) of two integer polynomials (files: coefficients, constant term first).
    Resultant {
        /// First polynomial file; `-` reads standard input.
        f: String,
        /// Second polynomial file.
        g: String,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Resultant res_y(f, g) of two polynomials in Z[x, y]: eliminates y and prints the
    /// coefficients in x, constant term first (files: one `coefficient x_exp y_exp` per line).
    ResultantXy {
        /// First polynomial file; `-` reads standard input.
        f: String,
        /// Second polynomial file.
        g: String,
        #[command(flatten)]
        opts: RunOpts,
    },
    /// Measure every operation on the CPU (one core, all cores) and the GPU; print tables.
    Compare(CompareArgs),
    /// Run many commands in one process (CUDA starts once): one per line of JOBS, such
    /// as `det a.txt --mod 2147483629`; the output is what each would print, in order.
    Batch(crate::batch::BatchArgs),
}

/// The backend and statistics options of every computing command.
#[derive(clap::Args)]
pub(crate) struct RunOpts {
    /// Where the modular computations run.
    #[arg(long, value_enum, default_value = "auto")]
    pub(crate) backend: BackendArg,
    /// The GPUs that share the work: `all` usable ones, or ordinals such as `0,1`.
    #[arg(long, default_value = "all", value_parser = parse_devices)]
    pub(crate) devices: Devices,
    /// Write the backend chosen and the time of each stage to standard error.
    #[arg(long)]
    pub(crate) stats: bool,
}

fn parse_devices(s: &str) -> std::result::Result<Devices, String> {
    s.parse().map_err(|e: rns::Error| e.to_string())
}

/// The long help of `--method`, from the library's own rule.
fn method_help() -> String {
    format!(
        "The algorithm of det, solve and inverse over Z or Q: p-adic (`dixon`: Dixon's \
         lifting; for det, FLINT's divisor trick), `multimodular`, or `auto`: {}.",
        Method::auto_rule()
    )
}

/// The long help of `compare --only`, from the runner's list of operations.
fn only_help() -> String {
    let ops: Vec<&str> = compare::OPERATIONS.iter().map(|(op, _)| *op).collect();
    format!(
        "Only these operations (comma-separated: {}).",
        ops.join(", ")
    )
}

fn parse_method(s: &str) -> std::result::Result<Method, String> {
    Method::from_name(s).ok_or_else(|| "expected auto, dixon or multimodular".into())
}

/// The options of the matrix commands: a modulus, a method, and [`RunOpts`].
#[derive(clap::Args)]
pub(crate) struct ModOpts {
    /// Work modulo this prime (2^30 < P < 2^31) instead of over Z or Q.
    #[arg(long = "mod", value_name = "P")]
    pub(crate) modulus: Option<u32>,
    /// The algorithm of det, solve and inverse over Z or Q.
    #[arg(long, default_value = "auto", value_parser = parse_method, long_help = method_help())]
    pub(crate) method: Method,
    #[command(flatten)]
    pub(crate) run: RunOpts,
}

/// Options of `rns compare` (also used by `examples/compare.rs`).
#[derive(clap::Args)]
struct CompareArgs {
    /// Small sizes: finishes in under 30 s on a 2-core machine.
    #[arg(long)]
    quick: bool,
    /// Only these operations (comma-separated).
    #[arg(long, value_delimiter = ',', long_help = only_help())]
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

fn run_compare(a: CompareArgs, out: &mut Output) -> std::result::Result<(), Failure> {
    let preset = if a.quick { Preset::Quick } else { Preset::Full };
    // Bad output paths fail now, not after minutes of measuring.
    for p in a.csv.iter().chain(&a.json) {
        compare::check_writable(p)?;
    }
    if let Some(dir) = &a.plots {
        std::fs::create_dir_all(dir).map_err(|e| rns::Error::io(dir.display(), e))?;
    }
    let report = match &a.from_csv {
        Some(path) => {
            let text = read_source(&path.display().to_string(), compare::CSV)?;
            compare::Report::from_csv(&text, &a.device, a.threads)?
        }
        None => compare::run(preset, a.only.as_deref(), true, &mut |w| {
            // A warning that cannot be written is no reason to stop measuring.
            let _ = out.note(&format!("rns compare: {w}"));
        })?,
    };
    out.print(&report.tables())?;
    if let Some(p) = a.csv {
        out.file(&p, &report.csv())?;
    }
    if let Some(p) = a.json {
        out.file(&p, &report.json())?;
    }
    if let Some(dir) = a.plots {
        for f in report.plot(&dir).map_err(Failure::Output)? {
            out.note(&format!("wrote {f}"))?;
        }
    }
    Ok(())
}

/// Coefficients on one line, separated by spaces.
fn coefficients_line<T: std::fmt::Display>(c: &[T]) -> String {
    let words: Vec<String> = c.iter().map(|x| x.to_string()).collect();
    format!("{}\n", words.join(" "))
}

fn run(cli: Cli, out: &mut Output) -> std::result::Result<(), Failure> {
    match cli.command {
        Command::Det { file, opts } => {
            let modulus = opts.modulus;
            let guess =
                peek(&file).map(|d| estimate::matrix(MatrixKind::Det, &[d], modulus.is_some()));
            let mut session = Session::start(&opts.run, guess);
            match modulus {
                Some(p) => {
                    let m = ModMatrices::read_mod(&file, p)?;
                    let est = rns::backend::cost::det(m.rows().max(m.cols()), 1.0);
                    let d = session.compute("det mod p", est, |be| be.det_mod(&m))?;
                    session.print(out, &format!("{}\n", d[0]), &[])?;
                }
                None => {
                    let a = IntMatrix::read(&file)?;
                    let est = estimate::matrix(MatrixKind::Det, &[Dims::of(&a)], false);
                    let what = format!("det of a {}×{} matrix", a.rows(), a.cols());
                    let method = opts.method;
                    let (d, st) = session.compute(&what, est, |be| {
                        rns::det_with(&a, be, &rns::DetOptions { method })
                    })?;
                    let divisor = match st.method {
                        "dixon" => format!(
                            "; method dixon: divisor of {} bits after {} lifting steps",
                            st.divisor_bits, st.lifting_steps
                        ),
                        m => format!("; method {m}"),
                    };
                    session.notes.push(format!(
                        "{}×{} matrix; Hadamard bound 2^{}; {} primes + 1 redundant{divisor}",
                        a.rows(),
                        a.cols(),
                        st.bound_bits,
                        st.primes
                    ));
                    session.print(out, &format!("{d}\n"), &st.stages)?;
                }
            }
            Ok(())
        }
        Command::Matmul { a, b, opts } => match opts.modulus {
            None => matmul_command(out, [&a, &b], &opts.run),
            Some(p) => mod_command(
                out,
                &[&a, &b],
                (p, &opts.run),
                MatrixKind::Matmul,
                |m, be| {
                    let c = be.matmul_mod(&m[0], &m[1])?;
                    Ok(Box::new(move || c.to_text(0)))
                },
            ),
        },
        Command::Rank { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Rank,
            |m, be, _| {
                let r = rns::rank(&m[0], be)?;
                Ok((Box::new(move || format!("{r}\n")), Vec::new()))
            },
            |m, be| {
                let r = be.rank_mod(&m[0])?[0];
                Ok(Box::new(move || format!("{r}\n")))
            },
        ),
        Command::Inverse {
            a,
            denominator,
            opts,
        } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Inverse,
            |m, be, method| {
                let n = require_square(m[0].rows(), m[0].cols(), "the inverse")?;
                rationals(&m[0], &IntMatrix::identity(n), be, (method, denominator))
            },
            |m, be| {
                let x = be.inverse_mod(&m[0])?;
                Ok(Box::new(move || x.to_text(0)))
            },
        ),
        Command::Solve {
            a,
            b,
            denominator,
            opts,
        } => matrix_command(
            out,
            &[&a, &b],
            opts,
            MatrixKind::Solve,
            |m, be, method| rationals(&m[0], &m[1], be, (method, denominator)),
            |m, be| {
                let x = be.solve_mod(&m[0], &m[1])?;
                Ok(Box::new(move || x.to_text(0)))
            },
        ),
        Command::Rref { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Rref,
            |m, be, _| {
                let r = rns::rref(&m[0], be)?;
                Ok((Box::new(move || r.matrix.to_text()) as Text, Vec::new()))
            },
            |m, be| {
                let e = be.rref_mod(&m[0])?;
                Ok(Box::new(move || e.rref.to_text(0)))
            },
        ),
        Command::Charpoly { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Charpoly,
            |m, be, _| {
                let c = rns::charpoly(&m[0], be)?;
                Ok((Box::new(move || coefficients_line(&c)) as Text, Vec::new()))
            },
            |m, be| {
                let c = be.charpoly_mod(&m[0])?;
                Ok(Box::new(move || coefficients_line(&c)))
            },
        ),
        Command::Minpoly { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Minpoly,
            |m, be, _| {
                let c = rns::minpoly(&m[0], be)?;
                Ok((Box::new(move || coefficients_line(&c)) as Text, Vec::new()))
            },
            |m, be| {
                let mut c = be.minpoly_mod(&m[0])?;
                c.truncate(MatrixPolynomial::degree(&c) + 1);
                Ok(Box::new(move || coefficients_line(&c)))
            },
        ),
        Command::Nullspace { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Nullspace,
            |m, be, _| {
                let x = rns::nullspace(&m[0], be)?;
                Ok((Box::new(move || x.to_text()) as Text, Vec::new()))
            },
            |m, be| {
                let x = be.rref_mod(&m[0])?.nullspace(0);
                Ok(Box::new(move || x.to_text(0)))
            },
        ),
        Command::Resultant { f, g, opts } => {
            let mut session = Session::start(&opts, None);
            let (f, g) = (rns::IntPoly::read(&f)?, rns::IntPoly::read(&g)?);
            let est = estimate::resultant(&f, &g);
            // The primes while CUDA starts on its thread.
            let t = std::time::Instant::now();
            let basis = rns::algo::resultant::basis_for(&f, &g);
            let primes_ms = t.elapsed().as_secs_f64() * 1e3;
            let (r, st) = session.compute("resultant", est, |be| {
                rns::resultant_with(&f, &g, be, &rns::ResultantOptions { basis: Some(basis) })
            })?;
            session.notes.push(format!(
                "{} bits, {} primes (found in {primes_ms:.1} ms, before the backend choice)",
                st.bound_bits,
                st.primes()
            ));
            session.print(out, &format!("{r}\n"), &st.stages)?;
            Ok(())
        }
        Command::ResultantXy { f, g, opts } => {
            let mut session = Session::start(&opts, None);
            let (f, g) = (rns::BiPoly::read(&f)?, rns::BiPoly::read(&g)?);
            let est = estimate::resultant_xy(&f, &g);
            let (r, st) = session.compute("resultant in y", est, |be| {
                rns::resultant_xy_with(&f, &g, be, &rns::ResultantOptions::default())
            })?;
            session.notes.push(format!(
                "degree bound {}, {} bits, {} primes, {} candidate points",
                st.degree_bound,
                st.bound_bits,
                st.primes(),
                st.candidates
            ));
            session.print(out, &coefficients_line(&r), &st.stages)?;
            Ok(())
        }
        Command::Compare(args) => run_compare(args, out),
        Command::Batch(args) => crate::batch::run(args, out),
    }
}

/// Runs the command line `args` (the program's name first), writing through `out`, and
/// returns the process's exit code: 0, or that of the failure (the README's table).
pub fn main(args: impl IntoIterator<Item = OsString>, out: &mut Output) -> i32 {
    // Under `mpirun` (with the `mpi` feature) every rank computes its share; rank 0 prints.
    let result = rns::cluster::init()
        .map_err(Failure::Command)
        .and_then(|_| run_args(args, out));
    out.finish(result, rns::cluster::is_root())
}

/// Parses `args` (the program's name first) and runs the command. Help and the version
/// go to standard output; a usage error is a [`Failure::Usage`] (in colour on a
/// terminal).
pub(crate) fn run_args(
    args: impl IntoIterator<Item = OsString>,
    out: &mut Output,
) -> std::result::Result<(), Failure> {
    use std::io::IsTerminal;
    match Cli::try_parse_from(args) {
        Ok(cli) => run(cli, out),
        Err(e) => {
            let tty = if e.use_stderr() {
                std::io::stderr().is_terminal()
            } else {
                std::io::stdout().is_terminal()
            };
            let styled = e.render();
            let text = if tty {
                styled.ansi().to_string()
            } else {
                styled.to_string()
            };
            if e.use_stderr() {
                Err(Failure::Usage(text))
            } else {
                out.print(&text)
            }
        }
    }
}
