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

use crate::command::run_args;
use crate::output::{Failure, Output};
use rns::backend::auto::Chooser;
use rns::input::{read_source, source_name, Expect};
use rns::BackendChoice;
use std::ffi::OsString;

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

/// Runs each line of `text`, the JOBS file `name`.
fn run_lines(text: &str, name: &str, a: &BatchArgs, out: &mut Output) -> Result<(), Failure> {
    let (mut failed, mut total) = (0, 0);
    for (i, line) in text.lines().enumerate() {
        let Some(args) = line_args(line, a) else {
            continue;
        };
        total += 1;
        let result = match args {
            Ok(args) => run_args(args, out),
            Err(message) => Err(Failure::Usage(message)),
        };
        match result {
            Ok(()) => {}
            // Standard output is gone or full: no later line could print either.
            Err(f @ Failure::Output(_)) => return Err(f),
            Err(f) => {
                failed += 1;
                if let Some(detail) = f.detail() {
                    out.note(&format!("rns: {name}:{}: {detail}", i + 1))?;
                }
            }
        }
    }
    match failed {
        0 => Ok(()),
        _ => Err(Failure::Jobs { failed, total }),
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
