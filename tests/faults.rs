//! Fault injection on the GPU path (issue 15, item 4): for every operation below and
//! every kind of device operation ([`FaultSite`]: allocation, page-locked buffer, copy,
//! launch, synchronisation), the 1st, 2nd, 3rd… occurrence is made to fail in turn,
//! until the operation runs through without reaching it. Each failure must come back as
//! a clean GPU error (no panic, no hang, no answer), and the device must give the right
//! answer on the next call. One device and, listed twice, the split across devices.
//!
//! A test binary of its own: the fault is armed per device, and every test in a process
//! shares the device. Without a usable GPU it prints that it skips (fails with
//! `RNS_REQUIRE_GPU=1`).

use rns::backend::gpu::{Fault, FaultSite, Gpu};
use rns::{det, resultant, resultant_xy, Backend, Error, ModMatrices, Result};
use rns_suite::{basis, dev, gpu_backend, random_with_edges as random, Gen};
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

/// One operation: a name and a closure giving its answer as text.
type Case = (
    &'static str,
    Arc<dyn Fn(&Backend) -> Result<String> + Send + Sync>,
);

/// Seconds an operation may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(120);

/// More occurrences of one site than any operation here reaches.
const MAX_OCCURRENCES: usize = 5000;

fn cases() -> Vec<Case> {
    let mut gen = Gen::new(15);
    let a = gen.matrix(40, 40, 64);
    let big = gen.matrix(12, 12, 2000);
    let (x, y) = (gen.matrix(20, 30, 300), gen.matrix(30, 10, 300));
    let low = gen.low_rank(24, 24, 17, 40);
    let rhs = gen.matrix(40, 2, 64);
    let (f, g) = (gen.poly(30, 200), gen.poly(20, 200));
    let (bf, bg) = (gen.bipoly(3, 4, 50), gen.bipoly(4, 3, 50));
    let b = basis(40);
    let (u, v) = (random(&b, 300_000, 1), random(&b, 300_000, 2));
    let mods = |s| {
        let r = random(&b, 30 * 30, s);
        ModMatrices::new(&b.primes(), 30, 30, r.residues().to_vec()).unwrap()
    };
    let (m1, m2) = (mods(3), mods(4));
    vec![
        ("det", Arc::new(move |be| Ok(det(&a, be)?.to_string()))),
        (
            "det 2000-bit",
            Arc::new(move |be| Ok(det(&big, be)?.to_string())),
        ),
        (
            "matmul",
            Arc::new(move |be| Ok(format!("{:?}", rns::matmul(&x, &y, be)?))),
        ),
        (
            "rank",
            Arc::new(move |be| Ok(rns::rank(&low, be)?.to_string())),
        ),
        ("solve", {
            let a = gen.matrix(40, 40, 64);
            Arc::new(move |be| Ok(format!("{:?}", rns::solve(&a, &rhs, be)?)))
        }),
        (
            "resultant",
            Arc::new(move |be| Ok(resultant(&f, &g, be)?.to_string())),
        ),
        (
            "resultant_xy",
            Arc::new(move |be| Ok(format!("{:?}", resultant_xy(&bf, &bg, be)?))),
        ),
        (
            "streamed mul, compare, to integers",
            Arc::new(move |be| {
                let w = be.mul(&u, &v)?;
                let c = be.compare(&w, &u)?;
                let n = be.to_integers(&be.add(&u, &v)?)?;
                Ok(format!(
                    "{:?} {:?} {:?}",
                    w.residues()[..9].to_vec(),
                    &c[..9],
                    &n[..3]
                ))
            }),
        ),
        (
            "matrices mod p",
            Arc::new(move |be| {
                let p = be.matmul_mod(&m1, &m2)?;
                let e = be.rref_mod(&m1)?;
                Ok(format!("{:?} {:?}", p.data(), e.rref.data()))
            }),
        ),
    ]
}

/// Runs `case` on `be` on a thread, failing the test if it takes longer than [`HANG`]
/// or panics.
fn run(case: &Case, be: &Backend) -> Result<String> {
    let (tx, rx) = mpsc::channel();
    let (f, be, name) = (case.1.clone(), be.clone(), case.0);
    std::thread::spawn(move || {
        let _ = tx.send(f(&be));
    });
    match rx.recv_timeout(HANG) {
        Ok(r) => r,
        Err(mpsc::RecvTimeoutError::Timeout) => panic!("{name} hung"),
        Err(mpsc::RecvTimeoutError::Disconnected) => panic!("{name} panicked"),
    }
}

/// Fails every occurrence of every site in turn for every case on `be` (whose devices
/// all are `gpu`); returns the number of injected failures.
fn inject_everywhere(gpu: &Gpu, be: &Backend, what: &str) -> usize {
    let config = gpu.config();
    let mut failures = 0;
    for case in cases() {
        config.set_fault(None);
        let want = run(&case, &Backend::Cpu).expect("the CPU answer");
        assert_eq!(
            run(&case, be).as_ref(),
            Ok(&want),
            "{what} {}: no fault",
            case.0
        );
        for site in FaultSite::ALL {
            for nth in 1..=MAX_OCCURRENCES {
                config.set_fault(Some(Fault { site, nth }));
                let got = run(&case, be);
                let fired = config.fault_fired();
                config.set_fault(None);
                let at = format!("{what} {}: {site} #{nth}", case.0);
                if !fired {
                    assert_eq!(got.as_ref(), Ok(&want), "{at}: not reached");
                    break;
                }
                assert!(nth < MAX_OCCURRENCES, "{at}: still reached");
                failures += 1;
                match got {
                    Err(e @ (Error::Gpu { .. } | Error::GpuOutOfMemory { .. })) => {
                        let m = e.gpu_what();
                        assert!(m.contains(&format!("injected {site}")), "{at}: {m}")
                    }
                    // A failure the library recovered from must still give the answer.
                    Ok(got) => assert_eq!(got, want, "{at}: a wrong answer"),
                    Err(e) => panic!("{at}: not a GPU error: {e:?}"),
                }
                // The device still works.
                assert_eq!(run(&case, be).as_ref(), Ok(&want), "{at}: the next call");
            }
        }
    }
    failures
}

#[test]
fn every_failing_device_operation_gives_a_clean_error() {
    let Some(be) = gpu_backend() else { return };
    let gpu = dev(&be).clone();
    let one = inject_everywhere(&gpu, &be, "one device");
    let split = Backend::on_gpus(vec![gpu.clone(), gpu.clone()], 0).unwrap();
    let two = inject_everywhere(&gpu, &split, "split");
    // Written to the stderr handle, not eprintln!, so the test harness shows it.
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "faults: {one} injected failures on one device, {two} split across two, all clean"
    );
    assert!(
        one > 100 && two > 100,
        "too few sites reached: {one}, {two}"
    );
}
