//! One command's run: CUDA starting on a thread while the input is read, the backend
//! chosen per computation by the library's [`Chooser`], the stage times of `--stats`, a
//! spinner for long work.

use crate::command::RunOpts;
use crate::output::{Failure, Output};
use indicatif::{ProgressBar, ProgressStyle};
use rns::backend::auto::Chooser;
use rns::backend::cost::Estimate;
use rns::backend::gpu::Expecting;
use rns::timing::Laps;
use rns::{cluster, Backend};
use std::io::IsTerminal;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

/// Stage names and times of a computation.
pub(crate) type Stages = Vec<(&'static str, Duration)>;

/// One command computes at a time in this process: `rns batch` reads and parses the next
/// line's input beside this line's computation, never two computations at once (their
/// threads would contend for the cores and the device).
static COMPUTING: Mutex<()> = Mutex::new(());

/// One command's run: CUDA starting on a thread while the input is read, the backend
/// chosen by the cost model, the stage times for `--stats`, a progress indicator for
/// long work on a terminal.
pub(crate) struct Session {
    chooser: Chooser,
    laps: Laps,
    pub(crate) notes: Vec<String>,
    stats: bool,
    /// The right to compute, from the first choice of a backend to the command's end.
    computing: Option<MutexGuard<'static, ()>>,
}

impl Session {
    /// Starts CUDA on a thread unless the CPU backend was asked for, or `guess` (an
    /// estimate from the files' headers and sizes before they are parsed) says the CPU
    /// will surely take the work: by the time the input is parsed it is often ready.
    pub(crate) fn start(opts: &RunOpts, guess: Option<Estimate>) -> Session {
        let mut chooser = Chooser::new(opts.backend.into(), opts.devices.clone());
        chooser.start_early(guess);
        Session {
            chooser,
            laps: Laps::start(),
            notes: Vec::new(),
            stats: opts.stats,
            computing: None,
        }
    }

    /// The backend for work of estimate `est` ([`Chooser::backend`]), with the choice and
    /// the CUDA start it waited for in the notes of `--stats`.
    fn backend(&mut self, est: Estimate) -> rns::Result<Backend> {
        if self.laps.is_empty() {
            self.laps.lap("read, parse");
        }
        if self.computing.is_none() {
            self.computing = Some(match COMPUTING.try_lock() {
                Ok(guard) => guard,
                Err(_) => {
                    let guard = COMPUTING.lock().unwrap_or_else(|e| e.into_inner());
                    self.laps.lap("waiting for the line before");
                    guard
                }
            });
        }
        let backend = self.chooser.backend(est)?;
        let waited = self.laps.lap("backend choice");
        self.notes.push(format!(
            "backend {} ({} devices, {} MPI ranks); estimated cpu {:.3} ms, gpu {:.3} ms + start",
            backend.name(),
            backend.gpus().len(),
            cluster::size(),
            est.cpu_ms,
            est.gpu_ms
        ));
        if backend.gpu().is_some() {
            let start = Chooser::start_time().unwrap_or(waited);
            self.notes.push(format!(
                "CUDA start {:.1} ms on its own thread beside reading the input; {:.1} ms of it waited for",
                start.as_secs_f64() * 1e3,
                waited.as_secs_f64() * 1e3
            ));
            for g in backend.gpus() {
                self.notes
                    .push(format!("device {} start: {}", g.ordinal(), g.start_times()));
            }
        }
        Ok(backend)
    }

    /// Ends the stage `name` of `--stats` now.
    pub(crate) fn lap(&mut self, name: &'static str) {
        self.laps.lap(name);
    }

    /// Runs `f` on the backend for work of estimate `est` ([`Session::backend`]), with a
    /// spinner on standard error when it is a terminal and the work is expected to take
    /// over 2 s there.
    pub(crate) fn compute<T>(
        &mut self,
        what: &str,
        est: Estimate,
        f: impl FnOnce(&Backend) -> rns::Result<T>,
    ) -> rns::Result<T> {
        let backend = self.backend(est)?;
        let expected_ms = est.on(backend.gpu().is_some());
        let bar = (expected_ms > 2000.0 && std::io::stderr().is_terminal()).then(|| {
            let b = ProgressBar::new_spinner();
            b.set_style(
                ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                    .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            b.set_message(format!("{what} (about {:.0} s)", expected_ms / 1e3));
            b.enable_steady_tick(Duration::from_millis(120));
            b
        });
        // Host waits on the device allow 20 times this (rns::backend::gpu::Expecting).
        let _expecting = Expecting::new(expected_ms / 1e3);
        let out = f(&backend);
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        self.laps.lap("compute");
        out
    }

    /// Prints `text` to standard output, then the statistics when asked for: the stages
    /// of the command, then those of the computation (`inner`).
    pub(crate) fn print(
        mut self,
        out: &mut Output,
        text: &str,
        inner: &[(&'static str, Duration)],
    ) -> Result<(), Failure> {
        if !cluster::is_root() {
            return Ok(());
        }
        if cluster::size() > 1 {
            let (b, g) = cluster::traffic();
            self.notes.push(format!(
                "MPI: {} ranks; this rank received {b} bytes of input by broadcast and {g} bytes of shares by gathers",
                cluster::size()
            ));
        }
        out.print(text)?;
        self.laps.lap("print");
        if self.stats {
            for n in &self.notes {
                out.note(n)?;
            }
            for (name, t) in self.laps.into_stages() {
                out.note(&format!("{name:>32}: {:10.3} ms", t.as_secs_f64() * 1e3))?;
            }
            for (name, t) in inner {
                let name = format!("compute: {name}");
                out.note(&format!("{name:>32}: {:10.3} ms", t.as_secs_f64() * 1e3))?;
            }
        }
        Ok(())
    }
}
