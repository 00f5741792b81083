//! No wait without a bound (issue 50, item 3), on the GPU.
//!
//! - Launches whose blocks wait for each other (the lifting's and the few-prime
//!   elimination's) made to stall with the test fault [`FaultSite::Stall`] (their waits
//!   blind to what arrives): each must end by itself after the stall limit with
//!   [`Error::GpuStalled`] naming its kernel, and the next call must be right.
//! - A host wait past its limit (a kernel that runs longer than ten times the stall
//!   limit): [`Error::GpuStalled`] with the device busy, every call on it failing at once
//!   until the kernel has ended, then right answers again.
//!
//! A test binary of its own (the fault and the limit are the device's); the two tests
//! take turns. Without a usable GPU they print that they skip (fail with
//! `RNS_REQUIRE_GPU=1`).

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::launch::{self, MulChain};
use rns::backend::gpu::{Fault, FaultSite, Gpu};
use rns::{Backend, Error, IntMatrix, Method, ModMatrices, Result, SolveOptions};
use rns_suite::{dev, gpu_backend, Gen};
use std::collections::BTreeSet;
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

/// The stall limit of these tests.
const LIMIT: Duration = Duration::from_secs(2);

/// How long a call may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(120);

/// The tests' turns: both set the device's limit.
static TURN: Mutex<()> = Mutex::new(());

/// A call under test: its answer as text.
type Case = Arc<dyn Fn(&Backend) -> Result<String> + Send + Sync>;

/// Runs `case` on a thread; a call that takes longer than [`HANG`] fails the test.
fn run(case: &Case, be: &Backend) -> Result<String> {
    let (tx, rx) = mpsc::channel();
    let (case, be) = (case.clone(), be.clone());
    std::thread::spawn(move || {
        let _ = tx.send(case(&be));
    });
    rx.recv_timeout(HANG).expect("the call returned")
}

/// Calls that launch waiting kernels: a solve by Dixon's lifting (the inverse modulo
/// its primes by `rns_gauss_jordan`, then `rns_dixon_lift`), and the inverse modulo one
/// prime of a matrix that the few-prime elimination takes whole.
fn cases() -> Vec<(&'static str, Case)> {
    let mut gen = Gen::new(50);
    let (a, b) = (gen.matrix(120, 120, 64), gen.matrix(120, 1, 64));
    let p = 2_147_483_629u32;
    let m = gen.matrix(300, 300, 30);
    let residues = m.entries().iter().map(|x| x.mod_u(p)).collect::<Vec<u32>>();
    let one = ModMatrices::new(&[p], 300, 300, residues).expect("a matrix mod p");
    let dixon = SolveOptions::from(Method::Dixon);
    vec![
        (
            "solve by lifting",
            Arc::new(move |be: &Backend| {
                let (x, _) = rns::solve_with(&a, &b, be, &dixon)?;
                Ok(format!("{x:?}"))
            }),
        ),
        (
            "inverse mod p",
            Arc::new(move |be: &Backend| Ok(format!("{:?}", be.inverse_mod(&one)?.data()))),
        ),
    ]
}

#[test]
fn a_stalled_launch_ends_with_gpu_stalled_and_the_next_call_is_right() {
    let Some(be) = gpu_backend() else { return };
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let config = dev(&be).config();
    config.set_stall_limit(Some(LIMIT));
    let mut stalled = BTreeSet::new();
    for (name, case) in cases() {
        let want = run(&case, &Backend::Cpu).expect("the CPU's answer");
        assert_eq!(run(&case, &be).as_ref(), Ok(&want), "{name}: no fault");
        for nth in 1..=4 {
            config.set_fault(Some(Fault {
                site: FaultSite::Stall,
                nth,
            }));
            let start = Instant::now();
            let got = run(&case, &be);
            let (fired, took) = (config.fault_fired(), start.elapsed());
            config.set_fault(None);
            let at = format!("{name}, stall #{nth}");
            if !fired {
                assert_eq!(got.as_ref(), Ok(&want), "{at}: not reached");
                break;
            }
            match got {
                Err(Error::GpuStalled {
                    kernel,
                    busy: false,
                    seconds,
                    ..
                }) => {
                    assert_eq!(seconds, LIMIT.as_secs_f64(), "{at}");
                    assert!(took < 5 * LIMIT, "{at}: gave up after {took:?}");
                    stalled.insert(kernel);
                }
                other => panic!("{at}: not a stall: {other:?}"),
            }
            assert_eq!(run(&case, &be).as_ref(), Ok(&want), "{at}: the next call");
        }
    }
    config.set_stall_limit(None);
    let seen = |k: &str| stalled.iter().any(|s| s.contains(k));
    assert!(
        seen("rns_gauss_jordan") && seen("rns_dixon_lift"),
        "every waiting kernel made to stall: {stalled:?}"
    );
}

/// Launches `rns_mul_chain` for about `seconds` on `gpu`'s own stream (about 2·10^12
/// modular products a second on an H100) and returns without waiting.
fn launch_long_kernel(gpu: &Arc<Gpu>, seconds: f64) -> Result<()> {
    let len = 1usize << 22;
    let iters = (seconds * 2e12 / (4.0 * len as f64)) as u32;
    let m = rns_core::Modulus::new(2_147_483_629)?;
    let a: Vec<u32> = (0..len as u32).map(|i| i % m.m).collect();
    let (da, dm) = (
        raw::upload(gpu, &a)?,
        raw::upload(gpu, &raw::moduli_words(&[m]))?,
    );
    let mut out = raw::alloc(gpu, len)?;
    let shape = MulChain {
        len,
        channels: 1,
        iters,
    };
    launch::launch_mul_chain(gpu, &mut out, &da, &dm, shape)
}

#[test]
fn a_host_wait_past_its_limit_gives_gpu_stalled_until_the_work_ends() {
    let Some(be) = gpu_backend() else { return };
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let gpu = dev(&be).clone();
    // The host waits ten times the stall limit when no call declared an estimate.
    gpu.config()
        .set_stall_limit(Some(Duration::from_millis(100)));
    assert_eq!(gpu.host_wait_limit(), Duration::from_secs(1));
    let mut gen = Gen::new(51);
    let a: IntMatrix = gen.matrix(30, 30, 64);
    let want = rns::det(&a, &Backend::Cpu).expect("the CPU's det");
    launch_long_kernel(&gpu, 6.0).expect("a long launch");
    let start = Instant::now();
    match gpu.sync() {
        Err(Error::GpuStalled { busy: true, .. }) => {}
        other => panic!("the wait past its limit: {other:?}"),
    }
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(3), "gave up after {waited:?}");
    // Busy: calls fail at once, until the kernel has ended.
    let mut busy = 0;
    let answer = loop {
        assert!(start.elapsed() < HANG, "the device stayed busy");
        match rns::det(&a, &be) {
            Err(Error::GpuStalled { busy: true, .. }) => busy += 1,
            other => break other,
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    gpu.config().set_stall_limit(None);
    assert!(busy > 0, "no call found the device busy");
    assert_eq!(
        answer,
        Ok(want),
        "the first call after the stalled work ended"
    );
}
