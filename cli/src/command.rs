//! The `rns` command line's arguments and commands: [`main`] parses a list of arguments
//! and runs the command, writing through an [`Output`], so that the binary, the tests
//! and the fuzz target run the same code.

use crate::compare::{self, Preset};
use crate::output::{Failure, Output};
use crate::session::{Session, Stages};
use clap::{Parser, Subcommand, ValueEnum};
use rns::algo::estimate::{self, Dims, MatrixKind};
use rns::input::{read_source, source_name};
use rns::{Backend, BackendChoice, Devices, IntMatrix, Method, ModMatrices, Result, TextMatrix};
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
struct ModOpts {
    /// Work modulo this prime (2^30 < P < 2^31) instead of over Z or Q.
    #[arg(long = "mod", value_name = "P")]
    modulus: Option<u32>,
    /// The algorithm of det, solve and inverse over Z or Q.
    #[arg(long, default_value = "auto", value_parser = parse_method, long_help = method_help())]
    method: Method,
    #[command(flatten)]
    run: RunOpts,
}

/// The shape of a matrix file from its first line, and a guess at its entries' size from
/// the file's length, without parsing it (`None` for standard input or an unreadable
/// header: the parse reports those).
fn peek(path: &str) -> Option<Dims> {
    use std::io::BufRead;
    if path == "-" {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let bytes = file.metadata().ok()?.len() as f64;
    let mut header = String::new();
    std::io::BufReader::new(file).read_line(&mut header).ok()?;
    let mut dims = header.split_whitespace().map(|t| t.parse::<usize>().ok());
    let (rows, cols) = (dims.next()??, dims.next()??);
    let digits = bytes / (rows.max(1) * cols.max(1)) as f64 - 1.0;
    Some(Dims {
        rows,
        cols,
        bits: (digits.max(1.0) * std::f64::consts::LOG2_10) as u64,
    })
}

/// `f` of each of `items` (one per file), all at once when `at_once` (by all cores: one
/// file's serial scan beside the other's); the first failure in the order of the files.
fn each_file<F: Sync, T: Send>(
    at_once: bool,
    items: &[F],
    f: impl Fn(&F) -> Result<T> + Sync,
) -> Result<Vec<T>> {
    use rayon::prelude::*;
    let all: Vec<Result<T>> = if at_once {
        items.par_iter().map(&f).collect()
    } else {
        items.iter().map(&f).collect()
    };
    all.into_iter().collect()
}

/// Whether a command's files are read and parsed at once: not when standard input is
/// named twice (it goes to the first), nor under MPI (the input's broadcasts must come
/// in the same order on every rank).
fn files_at_once(files: &[&str]) -> bool {
    files.iter().filter(|f| **f == "-").count() < 2 && rns::cluster::size() == 1
}

/// The session of a matrix command, the device started beside the reading when the
/// files' first lines promise it work.
fn matrix_session(run: &RunOpts, files: &[&str], kind: MatrixKind, modular: bool) -> Session {
    let peeked: Option<Vec<Dims>> = files.iter().map(|f| peek(f)).collect();
    let guess = peeked.map(|d| estimate::matrix(kind, &d, modular));
    Session::start(run, guess)
}

/// Prints a matrix command's result, its `text` made on the first rank only (the
/// others print nothing), with the computation's `stages` for `--stats`.
fn print_matrix(
    mut session: Session,
    out: &mut Output,
    text: impl FnOnce() -> String,
    stages: &Stages,
) -> std::result::Result<(), Failure> {
    let text = if rns::cluster::is_root() {
        text()
    } else {
        String::new()
    };
    session.lap("format");
    let printed = session.print(out, &text, stages);
    out.release(text);
    printed
}

/// Runs a matrix command: `over_q` without a modulus, `mod_p` with one.
fn matrix_command(
    out: &mut Output,
    files: &[&str],
    opts: ModOpts,
    kind: MatrixKind,
    over_q: impl FnOnce(&[IntMatrix], &Backend, Method) -> Result<(Text, Stages)>,
    mod_p: impl FnOnce(&[ModMatrices], &Backend) -> Result<Text>,
) -> std::result::Result<(), Failure> {
    let Some(p) = opts.modulus else {
        return q_command(out, files, opts, kind, over_q);
    };
    mod_command(out, files, (p, &opts.run), kind, mod_p)
}

/// A matrix command over Z or Q: the files parsed into integers, then `over_q`.
fn q_command(
    out: &mut Output,
    files: &[&str],
    opts: ModOpts,
    kind: MatrixKind,
    over_q: impl FnOnce(&[IntMatrix], &Backend, Method) -> Result<(Text, Stages)>,
) -> std::result::Result<(), Failure> {
    let mut session = matrix_session(&opts.run, files, kind, false);
    let at_once = files_at_once(files);
    let texts = each_file(at_once, files, |f| read_source(f, IntMatrix::FORMAT))?;
    session.lap("read");
    let named: Vec<_> = files.iter().zip(&texts).collect();
    let ints = each_file(at_once, &named, |(f, text)| {
        IntMatrix::parse(text, source_name(f))
    })?;
    drop(texts);
    session.lap("parse");
    let dims: Vec<Dims> = ints.iter().map(Dims::of).collect();
    let est = estimate::matrix(kind, &dims, false);
    let method = opts.method;
    let (result, stages) = session.compute("computing", est, |be| over_q(&ints, be, method))?;
    let printed = print_matrix(session, out, &result, &stages);
    out.release((ints, result));
    printed
}

/// A matrix command modulo the prime `p`: the files read straight into residues, then
/// `mod_p`.
fn mod_command(
    out: &mut Output,
    files: &[&str],
    (p, run): (u32, &RunOpts),
    kind: MatrixKind,
    mod_p: impl FnOnce(&[ModMatrices], &Backend) -> Result<Text>,
) -> std::result::Result<(), Failure> {
    let mut session = matrix_session(run, files, kind, true);
    let mods = each_file(files_at_once(files), files, |f| ModMatrices::read_mod(f, p))?;
    let dims: Vec<Dims> = mods
        .iter()
        .map(|m| Dims {
            rows: m.rows(),
            cols: m.cols(),
            bits: 31,
        })
        .collect();
    let est = estimate::matrix(kind, &dims, true);
    let result = session.compute("computing", est, |be| mod_p(&mods, be))?;
    let printed = print_matrix(session, out, &result, &Vec::new());
    out.release((mods, result));
    printed
}

/// The exact product: both files split into their entries' places (all cores), then on
/// one GPU read, multiplied and written as text there; elsewhere converted here and
/// formatted ([`rns::matmul_text_of`]).
fn matmul_command(
    out: &mut Output,
    files: [&str; 2],
    run: &RunOpts,
) -> std::result::Result<(), Failure> {
    let mut session = matrix_session(run, &files, MatrixKind::Matmul, false);
    let at_once = files_at_once(&files);
    let texts = each_file(at_once, &files, |f| read_source(f, TextMatrix::FORMAT))?;
    session.lap("read");
    let named: Vec<_> = files.iter().zip(&texts).collect();
    let m = each_file(at_once, &named, |(f, text)| {
        TextMatrix::parse(text, source_name(f))
    })?;
    session.lap("parse");
    let digits = |t: &TextMatrix| (t.max_digits() as f64 * std::f64::consts::LOG2_10) as u64;
    let dims: Vec<Dims> = m
        .iter()
        .map(|t| Dims {
            rows: t.rows(),
            cols: t.cols(),
            bits: digits(t),
        })
        .collect();
    let est = estimate::matrix(MatrixKind::Matmul, &dims, false);
    let (text, laps) = session.compute("computing", est, |be| {
        rns::matmul_text_of_with(&m[0], &m[1], be)
    })?;
    let text = if rns::cluster::is_root() {
        text
    } else {
        String::new()
    };
    let printed = session.print(out, &text, &laps.into_stages());
    out.release(m);
    out.release((texts, text));
    printed
}

/// A result's text, made after the computation so that `--stats` times it apart (and
/// the result outlives it: see `matrix_command`).
type Text = Box<dyn Fn() -> String>;

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
        Command::Inverse { a, opts } => matrix_command(
            out,
            &[&a],
            opts,
            MatrixKind::Inverse,
            |m, be, method| {
                let id = IntMatrix::identity(m[0].rows());
                let (x, st) = rns::solve_with(&m[0], &id, be, &rns::SolveOptions { method })?;
                Ok((Box::new(move || x.to_text()) as Text, st))
            },
            |m, be| {
                let x = be.inverse_mod(&m[0])?;
                Ok(Box::new(move || x.to_text(0)))
            },
        ),
        Command::Solve { a, b, opts } => matrix_command(
            out,
            &[&a, &b],
            opts,
            MatrixKind::Solve,
            |m, be, method| {
                let (x, st) = rns::solve_with(&m[0], &m[1], be, &rns::SolveOptions { method })?;
                Ok((Box::new(move || x.to_text()) as Text, st))
            },
            |m, be| {
                let x = be.solve_mod(&m[0], &m[1])?;
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
            let line: Vec<String> = r.iter().map(|c| c.to_string()).collect();
            session.notes.push(format!(
                "degree bound {}, {} bits, {} primes, {} candidate points",
                st.degree_bound,
                st.bound_bits,
                st.primes(),
                st.candidates
            ));
            session.print(out, &format!("{}\n", line.join(" ")), &st.stages)?;
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
