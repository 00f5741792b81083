//! One command's run: CUDA starting on a thread while the input is read, the backend
//! chosen by the cost model, the stage times of `--stats`, a spinner for long work.

use crate::{BackendArg, RunOpts};
use indicatif::{ProgressBar, ProgressStyle};
use rns::backend::cost::{self, Estimate};
use rns::backend::gpu::Gpu;
use rns::timing::Laps;
use rns::{cluster, Backend, BackendChoice, Devices, Result};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Stage names and times of a computation.
pub(crate) type Stages = Vec<(&'static str, Duration)>;

/// How long CUDA took to start on its thread (set when it is done).
pub(crate) static CUDA_START: OnceLock<Duration> = OnceLock::new();
/// Whether CUDA was started on a thread.
pub(crate) static CUDA_STARTING: AtomicBool = AtomicBool::new(false);

/// One command's run: CUDA starting on a thread while the input is read, the backend
/// chosen by the cost model, the stage times for `--stats`, a progress indicator for
/// long work on a terminal.
pub(crate) struct Session {
    /// When CUDA began starting on its thread (none for `--backend cpu`).
    gpu_start: Option<Instant>,
    laps: Laps,
    pub(crate) notes: Vec<String>,
    stats: bool,
    backend: BackendArg,
    devices: Devices,
}

impl Session {
    /// Starts CUDA on a thread unless the CPU backend was asked for: by the time the
    /// input is parsed it is often ready.
    /// `guess`, an estimate from the files' headers and sizes before they are parsed,
    /// keeps `auto` from starting CUDA for work the CPU will surely take: the driver's
    /// start-up slows the CPU backend's threads down while it runs.
    pub(crate) fn start(opts: &RunOpts, guess: Option<Estimate>) -> Session {
        let (backend, devices) = (opts.backend, opts.devices.clone());
        let wanted = match backend {
            BackendArg::Cpu => false,
            BackendArg::Gpu => true,
            BackendArg::Auto => guess.is_none_or(|g| g.gpu_wins(cost::GPU_START_MS)),
        };
        let gpu_start = wanted.then(|| {
            CUDA_STARTING.store(true, Ordering::Relaxed);
            let devices = devices.clone();
            std::thread::spawn(move || {
                // Lower this thread's priority, so that it does not hold back the CPU
                // backend's threads should the CPU take the work.
                #[cfg(target_os = "linux")]
                // SAFETY: changes the niceness of the calling thread only.
                unsafe {
                    libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
                }
                let t = Instant::now();
                let _ = devices.open();
                let _ = CUDA_START.set(t.elapsed());
            });
            Instant::now()
        });
        Session {
            gpu_start,
            laps: Laps::start(),
            notes: Vec::new(),
            stats: opts.stats,
            backend,
            devices,
        }
    }

    /// The backend for work of estimate `est`: as asked, or for `auto` the one the cost
    /// model expects to finish first, counting what is left of CUDA's start-up (the CPU
    /// when no GPU is usable).
    pub(crate) fn backend(&mut self, est: Estimate) -> Result<Backend> {
        if self.laps.is_empty() {
            self.laps.lap("read, parse");
        }
        let gpus = || Backend::select_devices(BackendChoice::Gpu, &self.devices);
        let backend = match self.backend {
            BackendArg::Cpu => Backend::Cpu,
            BackendArg::Gpu => gpus()?,
            BackendArg::Auto => {
                let left = match Gpu::opened(self.devices.first()) {
                    Some(ok) => {
                        if ok {
                            0.0
                        } else {
                            f64::INFINITY
                        }
                    }
                    None => {
                        let since = self
                            .gpu_start
                            .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
                        (cost::GPU_START_MS - since).max(0.0)
                    }
                };
                if est.gpu_wins(left) {
                    gpus().unwrap_or(Backend::Cpu)
                } else {
                    Backend::Cpu
                }
            }
        };
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
            let start = CUDA_START.get().copied().unwrap_or(waited);
            self.notes.push(format!(
                "CUDA start {:.1} ms on its own thread beside reading the input; {:.1} ms of it waited for",
                start.as_secs_f64() * 1e3,
                waited.as_secs_f64() * 1e3
            ));
        }
        Ok(backend)
    }

    /// Ends the stage `name` of `--stats` now.
    pub(crate) fn lap(&mut self, name: &'static str) {
        self.laps.lap(name);
    }

    /// Runs `f`, with a spinner on standard error when it is a terminal and the work is
    /// expected to take over 2 s.
    pub(crate) fn compute<T>(
        &mut self,
        what: &str,
        expected_ms: f64,
        f: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
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
        let out = f();
        if let Some(b) = bar {
            b.finish_and_clear();
        }
        self.laps.lap("compute");
        out
    }

    /// Prints `text` to standard output, then the statistics when asked for: the stages
    /// of the command, then those of the computation (`inner`).
    pub(crate) fn print(mut self, text: &str, inner: &[(&'static str, Duration)]) {
        if !cluster::is_root() {
            return;
        }
        if cluster::size() > 1 {
            let (b, g) = cluster::traffic();
            self.notes.push(format!(
                "MPI: {} ranks; this rank received {b} bytes of input by broadcast and {g} bytes of shares by gathers",
                cluster::size()
            ));
        }
        print!("{text}");
        self.laps.lap("print");
        if self.stats {
            for n in &self.notes {
                eprintln!("{n}");
            }
            for (name, t) in self.laps.into_stages() {
                eprintln!("{name:>32}: {:10.3} ms", t.as_secs_f64() * 1e3);
            }
            for (name, t) in inner {
                eprintln!(
                    "{:>32}: {:10.3} ms",
                    format!("compute: {name}"),
                    t.as_secs_f64() * 1e3
                );
            }
        }
    }
}
