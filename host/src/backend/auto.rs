//! The per-computation choice of the CLI and the Python package: a [`Chooser`] holds
//! what the user asked for (`cpu`, `gpu` or `auto`, and which devices) and gives the
//! backend of each computation. For `auto` it takes the GPU when the cost model
//! ([`super::cost`]) expects it to finish first, counting what is left of CUDA's
//! start-up in this process; the computation then runs whole where it was sent.

use super::cost::{Estimate, GPU_START_MS};
use super::{Backend, BackendChoice, Devices, Gpu};
use crate::error::Result;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long the devices took to open on the background thread, once they have.
static STARTED_IN: OnceLock<Duration> = OnceLock::new();
/// Whether a background start was begun.
static STARTING: AtomicBool = AtomicBool::new(false);

/// A user's backend choice, applied computation by computation.
#[derive(Clone, Debug)]
pub struct Chooser {
    choice: BackendChoice,
    devices: Devices,
    /// When the devices began opening on a background thread.
    started: Option<Instant>,
}

impl Chooser {
    /// The choice `choice` over `devices`; nothing is opened yet.
    pub fn new(choice: BackendChoice, devices: Devices) -> Chooser {
        Chooser {
            choice,
            devices,
            started: None,
        }
    }

    /// What was asked for.
    pub fn choice(&self) -> BackendChoice {
        self.choice
    }

    /// The devices asked for.
    pub fn devices(&self) -> &Devices {
        &self.devices
    }

    /// Opens the devices on a background thread at a lower priority (so that it does not
    /// hold back the CPU backend's threads should the CPU take the work), unless the CPU
    /// was asked for or `guess`, an early estimate of the work, says the CPU will surely
    /// win: the caller reads its input meanwhile.
    pub fn start_early(&mut self, guess: Option<Estimate>) {
        let wanted = match self.choice {
            BackendChoice::Cpu => false,
            BackendChoice::Gpu => true,
            BackendChoice::Auto => guess.is_none_or(|g| g.gpu_wins(GPU_START_MS)),
        };
        if !wanted || self.started.is_some() {
            return;
        }
        STARTING.store(true, Ordering::Relaxed);
        let devices = self.devices.clone();
        std::thread::spawn(move || {
            #[cfg(target_os = "linux")]
            // SAFETY: changes the niceness of the calling thread only.
            unsafe {
                libc::setpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t, 10);
            }
            let t = Instant::now();
            let _ = devices.open();
            let _ = STARTED_IN.set(t.elapsed());
        });
        self.started = Some(Instant::now());
    }

    /// Milliseconds of CUDA's start-up still to come: 0 once the first device is open,
    /// infinite when it failed to open, else [`GPU_START_MS`] less the time since the
    /// background start began.
    pub fn start_left_ms(&self) -> f64 {
        match Gpu::opened(self.devices.first()) {
            Some(true) => 0.0,
            Some(false) => f64::INFINITY,
            None => {
                let since = self
                    .started
                    .map_or(0.0, |t| t.elapsed().as_secs_f64() * 1e3);
                (GPU_START_MS - since).max(0.0)
            }
        }
    }

    /// The backend of a computation estimated at `est`: the rule of [`Backend::choose`]
    /// with [`Chooser::start_left_ms`] of CUDA's start-up still to come.
    pub fn backend(&self, est: Estimate) -> Result<Backend> {
        Backend::choose(
            self.choice,
            &self.devices,
            Some((est, self.start_left_ms())),
        )
    }

    /// How long the background start took, once it is done.
    pub fn start_time() -> Option<Duration> {
        STARTED_IN.get().copied()
    }

    /// Whether a background start began and is still running (a process that took the
    /// CPU may then leave without waiting for the driver).
    pub fn still_starting() -> bool {
        STARTING.load(Ordering::Relaxed) && STARTED_IN.get().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_backends_are_kept_and_auto_weighs_the_start() {
        let cpu = Chooser::new(BackendChoice::Cpu, Devices::All);
        let est = Estimate {
            cpu_ms: 1e9,
            gpu_ms: 0.0,
        };
        assert_eq!(cpu.backend(est).unwrap().name(), "cpu");
        let auto = Chooser::new(BackendChoice::Auto, Devices::All);
        let cheap = Estimate {
            cpu_ms: 1.0,
            gpu_ms: 0.5,
        };
        // Under a millisecond of work never waits for CUDA's start.
        assert_eq!(auto.backend(cheap).unwrap().name(), "cpu");
        match Gpu::get() {
            Ok(_) => assert_eq!(auto.backend(est).unwrap().name(), "gpu"),
            Err(_) => assert_eq!(auto.backend(est).unwrap().name(), "cpu"),
        }
    }
}
