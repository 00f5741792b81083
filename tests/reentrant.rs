//! A basis's tables are built on first use, and the first use is often inside a parallel
//! loop whose body builds them with all cores. Built inside a `OnceLock`, a rayon worker
//! that steals a second iteration of the same loop while it waits for the build's own
//! parallel pieces enters the same cell again and blocks on itself for ever (issue 50:
//! `resultant_xy` hung on its first or second call, all of a 32-core host's workers
//! parked in `RnsBasis::digit_tree`). These tests build every lazy table of fresh bases
//! from inside parallel loops on an oversubscribed pool, under a watchdog, so that a
//! deadlock fails the test instead of hanging it. (The interleaving that hangs is made
//! deterministic, with sleeps, in `rns::lazy`'s own test, which fails with a plain
//! `OnceLock::get_or_init`; these exercise the real tables.)

use rns::num::crt::CrtMethod;
use rns::num::crt_decimal::matrix_text;
use rns::{RnsBasis, RnsVec};
use rns_suite::Gen;
use rug::Integer;
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// How long a round may take before the test calls it a deadlock (a round takes well
/// under a second on the 2-core machine).
const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `rounds` rounds of `work` (given the round's number) on a pool of 16 threads
/// (far more than this machine's cores, so that workers steal from each other), each
/// under the watchdog.
fn under_watchdog(what: &'static str, rounds: usize, work: fn(usize)) {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(16)
            .build()
            .expect("a thread pool");
        for round in 0..rounds {
            pool.install(|| work(round));
            if tx.send(round).is_err() {
                return;
            }
        }
    });
    for round in 0..rounds {
        match rx.recv_timeout(WATCHDOG) {
            Ok(r) => assert_eq!(r, round),
            Err(e) => {
                panic!("{what}: round {round} did not finish in {WATCHDOG:?} ({e}): a deadlock")
            }
        }
    }
}

/// A fresh basis of about `bits` bits (its tables not built yet) and `n` random values
/// of its range.
fn fresh(bits: u64, n: usize, seed: u64) -> (Arc<RnsBasis>, Vec<Integer>) {
    let basis = Arc::new(RnsBasis::for_bits(bits));
    let mut g = Gen::new(seed);
    let values = (0..n).map(|_| g.in_range(basis.half())).collect();
    (basis, values)
}

/// Mixed-radix digits assembled by the digit tree (built on first use, with all cores)
/// from inside `from_digits_many`'s parallel loop.
#[test]
fn digit_tree_built_inside_a_parallel_loop() {
    under_watchdog("from_digits_many", 12, |round| {
        let (basis, values) = fresh(60_000 + 977 * round as u64, 96, round as u64);
        let v = RnsVec::from_integers(&basis, &values).expect("in range");
        let got = v.to_integers_with(CrtMethod::MixedRadix);
        assert_eq!(got, values, "round {round}");
    });
}

/// Every CRT method's tables (mixed-radix, weights, cofactor inverses) built from
/// inside the reconstruction's parallel loop.
#[test]
fn crt_tables_built_inside_a_parallel_loop() {
    under_watchdog("to_integers_with", 6, |round| {
        for method in [CrtMethod::MixedRadix, CrtMethod::Weights, CrtMethod::Tree] {
            let (basis, values) = fresh(30_000 + 1013 * round as u64, 64, 7 + round as u64);
            let v = RnsVec::from_integers(&basis, &values).expect("in range");
            assert_eq!(
                v.to_integers_with(method),
                values,
                "{method:?}, round {round}"
            );
        }
    });
}

/// Decimal text straight from residues: its weights built from inside the rows'
/// parallel loop.
#[test]
fn decimal_weights_built_inside_a_parallel_loop() {
    under_watchdog("decimal text", 6, |round| {
        let (basis, values) = fresh(20_000 + 331 * round as u64, 64, 11 + round as u64);
        let v = RnsVec::from_integers(&basis, &values).expect("in range");
        let text = matrix_text(&basis, v.residues(), (values.len(), 1), "").expect("in range");
        let want: String = values.iter().map(|x| format!("{x}\n")).collect();
        assert_eq!(text, want, "round {round}");
    });
}
