//! The matrix commands' common steps: the files peeked (the device started beside the
//! reading when they promise it work), read and parsed (at once where that is safe),
//! the computation over Z/Q or modulo a prime, and the result printed on the first rank.

use crate::command::{ModOpts, RunOpts};
use crate::output::{Failure, Output};
use crate::session::{Session, Stages};
use rns::algo::estimate::{self, Dims, MatrixKind};
use rns::input::{read_source, source_name};
use rns::{Backend, IntMatrix, Method, ModMatrices, Result, TextMatrix};

/// The shape of a matrix file from its first line, and a guess at its entries' size from
/// the file's length, without parsing it (`None` for standard input or an unreadable
/// header: the parse reports those).
pub(crate) fn peek(path: &str) -> Option<Dims> {
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
    // In f64: a header of two huge counts must not overflow the product.
    let digits = bytes / (rows.max(1) as f64 * cols.max(1) as f64) - 1.0;
    Some(Dims {
        rows,
        cols,
        bits: (digits.max(1.0) * std::f64::consts::LOG2_10) as u64,
    })
}

/// `f` of each of `items` (one per file), all at once when `at_once` (by all cores: one
/// file's serial scan beside the other's); the first failure in the order of the files.
pub(crate) fn each_file<F: Sync, T: Send>(
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
pub(crate) fn files_at_once(files: &[&str]) -> bool {
    files.iter().filter(|f| **f == "-").count() < 2 && rns::cluster::size() == 1
}

/// The session of a matrix command, the device started beside the reading when the
/// files' first lines promise it work.
pub(crate) fn matrix_session(
    run: &RunOpts,
    files: &[&str],
    kind: MatrixKind,
    modular: bool,
) -> Session {
    let peeked: Option<Vec<Dims>> = files.iter().map(|f| peek(f)).collect();
    let guess = peeked.map(|d| estimate::matrix(kind, &d, modular));
    Session::start(run, guess)
}

/// Prints a matrix command's result, its `text` made on the first rank only (the
/// others print nothing), with the computation's `stages` for `--stats`.
pub(crate) fn print_matrix(
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
pub(crate) fn matrix_command(
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
pub(crate) fn q_command(
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
pub(crate) fn mod_command(
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
pub(crate) fn matmul_command(
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
pub(crate) type Text = Box<dyn Fn() -> String>;

/// The solution over Q of `A X = B` (the inverse with `B = I`) by `method`: in lowest
/// terms, or with `denominator` the least common denominator on a line and then the
/// numerators as a matrix file.
pub(crate) fn rationals(
    a: &IntMatrix,
    b: &IntMatrix,
    be: &Backend,
    (method, denominator): (Method, bool),
) -> Result<(Text, Stages)> {
    let opts = rns::SolveOptions { method };
    if denominator {
        let ((d, n), st) = rns::solve_over_denominator_with(a, b, be, &opts)?;
        return Ok((Box::new(move || format!("{d}\n{}", n.to_text())), st));
    }
    let (x, st) = rns::solve_with(a, b, be, &opts)?;
    Ok((Box::new(move || x.to_text()), st))
}
