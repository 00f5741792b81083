//! Every byte the command line writes goes through [`Output`]: results to standard
//! output, notes and errors to standard error, files through [`Output::file`]. A write
//! that fails is a [`Failure::Output`]: a closed pipe ends the process quietly with
//! status 141 (as `head`-friendly tools do), any other write error with one line and
//! status 1. Nothing is printed with `print!` (the crate denies it).

use rns::Error;
use std::io::{self, Write};
use std::path::Path;

/// Why a command failed: its work ([`rns::Error`]'s own exit code), or writing its output.
#[derive(Debug)]
pub enum Failure {
    /// The command's input or computation.
    Command(Error),
    /// Writing a result, a note or a file ([`Error::Io`] naming the stream or path).
    Output(Error),
    /// The arguments: the parser's message (which starts with `error:`).
    Usage(String),
    /// Lines of `rns batch` that failed (each has said why).
    Jobs {
        /// Lines that failed.
        failed: usize,
        /// Lines run.
        total: usize,
    },
}

impl From<Error> for Failure {
    fn from(e: Error) -> Failure {
        Failure::Command(e)
    }
}

/// Status of a process whose standard output was closed early (128 + SIGPIPE).
pub const CLOSED_PIPE: i32 = 141;

impl Failure {
    /// The process exit code: the error's own for a command, 141 for a closed pipe,
    /// 1 for any other output error, 2 for usage and failed batch lines.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Command(e) => e.exit_code(),
            Failure::Output(_) if self.closed_pipe() => CLOSED_PIPE,
            Failure::Output(_) => 1,
            Failure::Usage(_) | Failure::Jobs { .. } => 2,
        }
    }

    /// What to print on standard error (none for a closed pipe): `rns: ` and the
    /// [`detail`](Self::detail), or the parser's whole message.
    pub fn message(&self) -> Option<String> {
        match self {
            Failure::Usage(text) => Some(text.trim_end().to_string()),
            _ => self.detail().map(|d| format!("rns: {d}")),
        }
    }

    /// What went wrong, in one line (none for a closed pipe).
    pub fn detail(&self) -> Option<String> {
        match self {
            Failure::Command(e) => Some(e.to_string()),
            Failure::Output(_) if self.closed_pipe() => None,
            Failure::Output(e) => Some(format!("cannot write {e}")),
            Failure::Usage(text) => {
                let first = text.lines().next().unwrap_or_default();
                Some(first.strip_prefix("error: ").unwrap_or(first).to_string())
            }
            Failure::Jobs { failed, total } => Some(format!("{failed} of {total} lines failed")),
        }
    }

    fn closed_pipe(&self) -> bool {
        matches!(self, Failure::Output(Error::Io { source, .. })
            if source.0.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// Where a command's text goes: the process's standard streams, or any writers (tests
/// and the fuzz target run the command line in-process).
pub struct Output {
    out: Box<dyn Write>,
    err: Box<dyn Write>,
    /// Whether the process ends after the command (its memory need not be freed).
    pub(crate) ends_process: bool,
}

impl Output {
    /// Standard output and standard error of a process that ends after the command.
    pub fn std() -> Output {
        Output {
            ends_process: true,
            ..Output::new(Box::new(io::stdout()), Box::new(io::stderr()))
        }
    }

    /// Output into `out` and notes into `err`.
    pub fn new(out: Box<dyn Write>, err: Box<dyn Write>) -> Output {
        Output {
            out,
            err,
            ends_process: false,
        }
    }

    /// Lets go of `data` when the command is done: left to the system when the process
    /// ends next (large inputs and results are not freed one integer at a time, about
    /// 45 ms a million), dropped otherwise.
    pub fn release<T>(&self, data: T) {
        if self.ends_process {
            std::mem::forget(data);
        }
    }

    /// Writes `text` to standard output, whole, and flushes it.
    pub fn print(&mut self, text: &str) -> Result<(), Failure> {
        put(&mut self.out, &[text.as_bytes()], "<stdout>")
    }

    /// Writes `line` and a newline to standard error.
    pub fn note(&mut self, line: &str) -> Result<(), Failure> {
        put(&mut self.err, &[line.as_bytes(), b"\n"], "<stderr>")
    }

    /// Writes what a command wrote into buffers (`rns batch`): `out` to standard output,
    /// then `err` to standard error.
    pub(crate) fn write_held(&mut self, out: &[u8], err: &[u8]) -> Result<(), Failure> {
        put(&mut self.out, &[out], "<stdout>")?;
        put(&mut self.err, &[err], "<stderr>")
    }

    /// Writes `text` to the file at `path`.
    pub fn file(&mut self, path: &Path, text: &str) -> Result<(), Failure> {
        crate::compare::write_file(path, text).map_err(Failure::Output)
    }

    /// Reports how a command ended and returns its exit code: the failure's line on
    /// standard error (when `speak`: under MPI only the first rank speaks), if it can
    /// still be written.
    pub fn finish(&mut self, result: Result<(), Failure>, speak: bool) -> i32 {
        match result {
            Ok(()) => 0,
            Err(f) => {
                if let Some(line) = f.message().filter(|_| speak) {
                    // Nowhere is left to report a failure to write this.
                    let _ = self.note(&line);
                }
                f.exit_code()
            }
        }
    }
}

/// Writes `parts` to `w`, whole, then flushes it; a failure names the stream `name`.
fn put(w: &mut dyn Write, parts: &[&[u8]], name: &str) -> Result<(), Failure> {
    parts
        .iter()
        .try_for_each(|p| w.write_all(p))
        .and_then(|_| w.flush())
        .map_err(|e| Failure::Output(Error::io(name, e)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with `kind`.
    struct Broken(io::ErrorKind);

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn write_errors_become_exit_codes_and_one_line() {
        let mut out = Output::new(
            Box::new(Broken(io::ErrorKind::BrokenPipe)),
            Box::new(io::sink()),
        );
        let f = out.print("1\n").unwrap_err();
        assert_eq!((f.exit_code(), f.message()), (CLOSED_PIPE, None));
        let mut out = Output::new(
            Box::new(Broken(io::ErrorKind::StorageFull)),
            Box::new(io::sink()),
        );
        let f = out.print("1\n").unwrap_err();
        assert_eq!(f.exit_code(), 1);
        let m = f.message().unwrap();
        assert!(m.starts_with("rns: cannot write <stdout>: "), "{m}");
        let f = Failure::from(Error::Shape("bad".into()));
        assert_eq!(
            (f.exit_code(), f.message().unwrap()),
            (2, "rns: bad".into())
        );
        // A failure is reported even when standard error itself is broken.
        let mut out = Output::new(Box::new(io::sink()), Box::new(Broken(io::ErrorKind::Other)));
        assert_eq!(out.finish(Err(f), true), 2);
        assert_eq!(out.finish(Ok(()), true), 0);
    }
}
