//! `rns batch JOBS`: many commands in one process, so that CUDA starts once (the
//! driver, its context and module are kept by the library between commands). Each line
//! of JOBS is a command line as given to `rns`, without the program name (a leading
//! `rns` is allowed); words are separated by whitespace (no quoting), blank lines and
//! `#` comments are skipped. The standard output is the concatenation of what each
//! command prints, in order. A failing line writes `rns: JOBS:LINE: message` on
//! standard error and the others still run; the batch then ends with status 2. The
//! options given to `rns batch` apply to every computing line that does not give them.
//! Unless the batch asks for the CPU, CUDA starts at once on a thread of its own: early
//! lines that `auto` sends to the CPU run meanwhile, later ones find it started.
//! Two lines are in flight at a time, each on its own thread with its output held: the
//! next line reads and parses its input while this one computes, and each line's output
//! and notes are written, in order, once the lines before it are done (under MPI, one
//! line at a time on the calling thread).

use crate::command::run_args;
use crate::output::{Failure, Output};
use rns::backend::auto::Chooser;
use rns::input::{read_source, source_name, Expect};
use rns::BackendChoice;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ffi::OsString;
use std::io::Write;
use std::rc::Rc;

/// Lines run at once: one computing while the next reads its input.
const IN_FLIGHT: usize = 2;
/// The stack of a line's thread: a process's main thread's.
const STACK: usize = 8 << 20;

/// Options of `rns batch`.
#[derive(clap::Args)]
pub(crate) struct BatchArgs {
    /// File of commands, one per line (`-` reads standard input), such as
    /// `det a.txt --mod 2147483629`.
    jobs: String,
    /// Where every line's computations run, unless the line says.
    #[arg(long, value_parser = ["cpu", "gpu", "auto"])]
    backend: Option<String>,
    /// The GPUs of every line, unless the line says (`all`, or ordinals such as `0,1`).
    #[arg(long, value_parser = check_devices)]
    devices: Option<String>,
    /// Statistics of every line on standard error.
    #[arg(long)]
    stats: bool,
}

fn check_devices(s: &str) -> Result<String, String> {
    s.parse::<rns::Devices>()
        .map(|_| s.to_string())
        .map_err(|e| e.to_string())
}

/// What a JOBS file may hold: a million short lines.
const JOBS: Expect = Expect::Text {
    max_bytes: 256 << 20,
};

/// Runs every line of the JOBS file.
pub(crate) fn run(a: BatchArgs, out: &mut Output) -> Result<(), Failure> {
    let text = read_source(&a.jobs, JOBS)?;
    if a.backend.as_deref() != Some("cpu") {
        let devices = a.devices.as_deref().unwrap_or("all").parse()?;
        Chooser::new(BackendChoice::Auto, devices).start_early(None);
    }
    let name = source_name(&a.jobs);
    // Memory is freed after each line: the process goes on.
    let ends_process = std::mem::replace(&mut out.ends_process, false);
    let result = run_lines(&text, name, &a, out);
    out.ends_process = ends_process;
    result
}

/// Runs each line of `text`, the JOBS file `name`, [`IN_FLIGHT`] at a time; writes each
/// line's output and notes in the order of the lines.
fn run_lines(text: &str, name: &str, a: &BatchArgs, out: &mut Output) -> Result<(), Failure> {
    let jobs: Vec<_> = text
        .lines()
        .enumerate()
        .filter_map(|(i, line)| line_args(line, a).map(|args| (i + 1, args)))
        .collect();
    let (mut failed, total) = (0, jobs.len());
    let alone = rns::cluster::size() == 1;
    std::thread::scope(|scope| {
        let mut jobs = jobs.into_iter();
        let mut running = VecDeque::new();
        loop {
            while running.len() < IN_FLIGHT {
                let Some((line, args)) = jobs.next() else {
                    break;
                };
                // Under MPI every line runs here, one at a time: the ranks' collectives
                // must come in the same order, from the thread that started MPI.
                if alone {
                    // The main thread's stack size; a line runs here when no thread starts.
                    let thread = std::thread::Builder::new().stack_size(STACK);
                    let spare = args.clone();
                    let job = thread
                        .spawn_scoped(scope, move || run_held(args))
                        .map_err(|_| spare);
                    running.push_back((line, job));
                } else {
                    running.push_back((line, Err(args)));
                    break;
                }
            }
            let Some((line, job)) = running.pop_front() else {
                return Ok(());
            };
            let held = match job {
                Ok(job) => job.join().unwrap_or_else(|_| Held::panicked()),
                Err(args) => run_held(args),
            };
            out.write_held(&held.out, &held.err)?;
            match held.result {
                Ok(()) => {}
                // Standard output is gone or full: no later line could print either.
                Err(f @ Failure::Output(_)) => return Err(f),
                Err(f) => {
                    failed += 1;
                    if let Some(detail) = f.detail() {
                        out.note(&format!("rns: {name}:{line}: {detail}"))?;
                    }
                }
            }
        }
    })?;
    match failed {
        0 => Ok(()),
        _ => Err(Failure::Jobs { failed, total }),
    }
}

/// A line's run: what it wrote to standard output and standard error, and how it ended.
struct Held {
    out: Vec<u8>,
    err: Vec<u8>,
    result: Result<(), Failure>,
}

impl Held {
    /// A line whose thread panicked (a bug: the line failed, the batch goes on).
    fn panicked() -> Held {
        Held {
            out: Vec::new(),
            err: Vec::new(),
            result: Err(Failure::Command(rns::Error::Internal(
                "the line's thread panicked".into(),
            ))),
        }
    }
}

/// A writer into a buffer that is read back after the line.
#[derive(Clone, Default)]
struct Buffer(Rc<RefCell<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Runs one line (or reports why its arguments cannot run) with its output held.
fn run_held(args: Result<Vec<OsString>, String>) -> Held {
    let (o, e) = (Buffer::default(), Buffer::default());
    let mut held = Output::new(Box::new(o.clone()), Box::new(e.clone()));
    let result = match args {
        Ok(args) => run_args(args, &mut held),
        Err(message) => Err(Failure::Usage(message)),
    };
    drop(held);
    Held {
        out: o.0.take(),
        err: e.0.take(),
        result,
    }
}

/// The arguments of one line (`None` for a blank or comment line), with the batch's
/// options added where the line does not give them; the reason a line cannot run.
fn line_args(line: &str, a: &BatchArgs) -> Option<Result<Vec<OsString>, String>> {
    let mut words: Vec<&str> = line.split_whitespace().collect();
    if words.first() == Some(&"rns") {
        words.remove(0);
    }
    match words.first() {
        None => return None,
        Some(w) if w.starts_with('#') => return None,
        Some(&"batch") => return Some(Err("a batch line cannot run `batch`".into())),
        _ => {}
    }
    let mut args: Vec<OsString> = std::iter::once("rns")
        .chain(words.iter().copied())
        .map(OsString::from)
        .collect();
    // `compare` takes none of these options.
    if words[0] != "compare" {
        let gives = |opt: &str| {
            words
                .iter()
                .any(|w| *w == opt || w.starts_with(&format!("{opt}=")))
        };
        for (opt, value) in [("--backend", &a.backend), ("--devices", &a.devices)] {
            if let (Some(v), false) = (value, gives(opt)) {
                args.extend([opt.into(), v.into()]);
            }
        }
        if a.stats && !gives("--stats") {
            args.push("--stats".into());
        }
    }
    Some(Ok(args))
}
