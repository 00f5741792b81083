//! Values built on first use that parallel loops ask for.
//!
//! A `OnceLock` built by `get_or_init` blocks every other caller until the build ends.
//! When the build itself uses rayon and the caller is a rayon worker inside a parallel
//! loop, the worker waits for the build's pieces by running other jobs, and may take a
//! second iteration of the same loop, which asks for the same cell: the worker then
//! blocks on a build that only it can finish (issue 50: every worker of a 32-core host
//! parked in `RnsBasis::digit_tree`, and `resultant_xy` never returned). The same holds
//! across workers: one blocked on the cell may hold a stolen piece of the build.
//!
//! [`get_or_build`] never blocks a rayon worker: a worker builds the value outside the
//! cell (two workers that miss at once both build, and the first to finish is kept; the
//! values are equal), while any other thread builds inside it as usual. Its builds run
//! on the workers, which never wait for the cell, so no thread waits on itself. Callers
//! that are about to start a parallel loop build the value first (one build, no race).

use std::sync::OnceLock;

/// The value of `cell`, built by `build` when it is empty: under the cell's lock on
/// threads outside rayon's pools, outside it on rayon workers (see the module
/// documentation), so that `build` may use rayon and be asked for from inside a parallel
/// loop. `build` must give equal values on every call.
pub fn get_or_build<T>(cell: &OnceLock<T>, build: impl FnOnce() -> T) -> &T {
    if let Some(v) = cell.get() {
        return v;
    }
    if rayon::current_thread_index().is_none() {
        return cell.get_or_init(build);
    }
    let v = build();
    // Another worker may have set it meanwhile: its value is kept, ours dropped.
    cell.get_or_init(move || v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Duration;

    /// One round of the pattern that hung: on a pool of three workers, worker A asks for
    /// the cell and builds it with a join whose second half the idle worker C steals;
    /// worker B meanwhile pushes a job that asks for the cell too. A, waiting for C's
    /// half, takes B's job and asks for the cell it is building. Returns the values the
    /// two askers saw.
    fn round_of_the_hang(pool: &rayon::ThreadPool, round: u64) -> (u64, u64) {
        let ms = |t| std::thread::sleep(Duration::from_millis(t));
        let cell = OnceLock::new();
        let ask = || {
            *get_or_build(&cell, || {
                let (x, y) = rayon::join(|| (ms(40), 1).1, || (ms(80), 2).1);
                x + y + round
            })
        };
        pool.install(|| {
            let (a, (_, b)) = rayon::join(
                || (ms(10), ask()).1,
                || (ms(20), rayon::join(|| ms(100), ask)).1,
            );
            (a, b)
        })
    }

    /// [`round_of_the_hang`] under a watchdog: with `get_or_init` the first round
    /// never ends; here every round ends with the right value.
    #[test]
    fn a_parallel_build_asked_for_inside_a_parallel_loop_ends() {
        const ROUNDS: u64 = 6;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(3)
                .build()
                .expect("a pool");
            for round in 0..ROUNDS {
                let seen = round_of_the_hang(&pool, round);
                if tx.send(seen).is_err() {
                    return;
                }
            }
        });
        for round in 0..ROUNDS {
            let seen = rx.recv_timeout(Duration::from_secs(30));
            assert_eq!(
                seen,
                Ok((3 + round, 3 + round)),
                "round {round}: a deadlock"
            );
        }
    }

    /// Outside rayon the value is built once, under the cell's lock.
    #[test]
    fn outside_rayon_the_value_is_built_once() {
        let cell = OnceLock::new();
        let builds = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    let v = get_or_build(&cell, || {
                        builds.fetch_add(1, Ordering::Relaxed);
                        std::thread::sleep(Duration::from_millis(20));
                        7u32
                    });
                    assert_eq!(*v, 7);
                });
            }
        });
        assert_eq!(builds.load(Ordering::Relaxed), 1);
    }
}
