//! Running a computation with the GIL released and Ctrl-C noticed.
//!
//! Short work (expected under [`WATCH_MS`]) runs on the calling thread with the GIL
//! released. Longer work runs on a scoped worker thread under an interrupt flag
//! ([`rns::interrupt`]) while the calling thread, the GIL released, waits for it and every
//! `POLL` takes the GIL back to check for signals: on Ctrl-C it sets the flag, the
//! worker stops at the end of its current stage, and the call raises `KeyboardInterrupt`.
//! A panic in the library becomes a `RuntimeError`, never a crash.

use crate::error::to_py;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

/// Expected milliseconds above which a call runs on a worker and watches for Ctrl-C.
pub const WATCH_MS: f64 = 20.0;

/// How often a waiting call checks for signals.
const POLL: Duration = Duration::from_millis(50);

fn guarded<T>(f: impl FnOnce() -> rns::Result<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py),
        Err(_) => Err(PyRuntimeError::new_err(
            "internal error (a bug in rns): the computation panicked",
        )),
    }
}

/// Runs `f`, expected to take `expected_ms`, without the GIL (see the module
/// documentation).
pub fn compute<T: Send>(
    py: Python<'_>,
    expected_ms: f64,
    f: impl FnOnce() -> rns::Result<T> + Send,
) -> PyResult<T> {
    if expected_ms < WATCH_MS {
        return py.detach(|| guarded(f));
    }
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        // A Mutex makes the receiver shareable with the GIL-free closures (one user).
        let rx = Mutex::new(rx);
        let wait = |timeout: Option<Duration>| {
            let rx = rx.lock().unwrap_or_else(|e| e.into_inner());
            match timeout {
                Some(t) => rx.recv_timeout(t),
                None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            }
        };
        let flag = stop.clone();
        s.spawn(move || {
            let _ = tx.send(guarded(|| rns::interrupt::with_flag(flag, f)));
        });
        loop {
            match py.detach(|| wait(Some(POLL))) {
                Ok(result) => return result,
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    if let Err(e) = py.check_signals() {
                        stop.store(true, Ordering::Relaxed);
                        // The worker ends at its next stage; the scope waits for it.
                        let _ = py.detach(|| wait(None));
                        return Err(e);
                    }
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return Err(PyRuntimeError::new_err(
                        "internal error (a bug in rns): the computation ended without a result",
                    ))
                }
            }
        }
    })
}
