//! The end-to-end figures of issue "End-to-end speed", in one run: the reference
//! bandwidths of this host (page-locked host↔device, device copy), then each case four
//! ways where it applies — kernel (device events), resident (data on the device, result
//! left there), end to end (host in, host out) — beside the CPU backend on all cores.
//! Every GPU result is checked against the CPU's.
//!
//! `cargo run --release --example e2e_bench` (needs a GPU; `scripts/gpu-check.sh --run
//! --e2e` runs it there).

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::{Elementwise, Equal, Matmul};
use rns::backend::gpu::ops;
use rns::backend::gpu::{launch::EqualKernel, Gpu};
use rns::{Backend, BackendChoice, ModMatrices, Op, RnsBasis, RnsVec};
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median wall time in ms of `f` over `reps` runs after one warm-up.
fn wall(reps: usize, mut f: impl FnMut() -> rns::Result<()>) -> R<f64> {
    f()?;
    let mut t = Vec::new();
    for _ in 0..reps {
        let s = Instant::now();
        f()?;
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(t))
}

/// Median device time in ms of `f` over `reps` runs after one warm-up.
fn events(g: &Gpu, reps: usize, mut f: impl FnMut() -> rns::Result<()>) -> R<f64> {
    f()?;
    g.sync()?;
    let mut t = Vec::new();
    for _ in 0..reps {
        t.push(g.time_ms(&mut f)?);
    }
    Ok(median(t))
}

fn basis(k: usize) -> Arc<RnsBasis> {
    Arc::new(RnsBasis::largest_primes(k).expect("valid primes"))
}

fn gbs(bytes: f64, ms: f64) -> f64 {
    bytes / ms / 1e6
}

fn main() -> R<()> {
    let gb = Backend::select(BackendChoice::Gpu)?;
    let g = gb.gpu().expect("a GPU backend").clone();
    let cpu = Backend::Cpu;
    println!(
        "device: {}; CPU backend threads: {}",
        g.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // Reference bandwidths of this run.
    let bw = g.reference_bandwidth(256 << 20, 5)?;
    for (kind, bytes, ms) in &bw {
        println!(
            "bandwidth {kind:>13}: {bytes} bytes {ms:.3} ms {:.1} GB/s",
            gbs(*bytes as f64, *ms)
        );
    }
    let rate = |kind: &str| {
        bw.iter()
            .find(|r| r.0 == kind)
            .map(|r| gbs(r.1 as f64, r.2))
            .unwrap_or(f64::NAN)
    };
    let (h2d, d2h, d2d) = (rate("h2d_pinned"), rate("d2h_pinned"), rate("d2d"));

    // 1. Elementwise mul, 2^21 numbers × 32 primes.
    let b = basis(31);
    let (len, ch) = (1usize << 21, b.channels());
    let (x, y) = (RnsVec::random(&b, len, 1), RnsVec::random(&b, len, 2));
    let want = cpu.mul(&x, &y)?;
    let words = len * ch;
    let (dx, dy) = (
        raw::upload_words(&g, x.residues())?,
        raw::upload_words(&g, y.residues())?,
    );
    let (dm, ds) = (
        raw::upload(&g, &moduli_words(b.moduli()))?,
        raw::upload(&g, &[0])?,
    );
    let mut dz = raw::alloc(&g, words)?;
    let shape = Elementwise {
        op: Op::Mul,
        len,
        channels: ch,
    };
    let kernel = events(&g, 7, || {
        launch::launch_elementwise(&g, raw::stream(&g), shape, &mut dz, &[&dx, &dy], &ds, &dm)
    })?;
    let (rx, ry) = (gb.upload(&x)?, gb.upload(&y)?);
    let resident = wall(7, || rx.mul(&ry)?.wait())?;
    assert_eq!(rx.mul(&ry)?.download()?.residues(), want.residues());
    let e2e = wall(7, || gb.mul(&x, &y).map(drop))?;
    assert_eq!(gb.mul(&x, &y)?.residues(), want.residues());
    let cpu_ms = wall(5, || cpu.mul(&x, &y).map(drop))?;
    // The same with inputs that are themselves GPU results (page-locked host memory).
    let zero = rug::Integer::new();
    let (lx, ly) = (gb.add_scalar(&x, &zero)?, gb.add_scalar(&y, &zero)?);
    let locked = wall(7, || gb.mul(&lx, &ly).map(drop))?;
    assert_eq!(gb.mul(&lx, &ly)?.residues(), want.residues());
    let (up, down) = (8.0 * words as f64, 4.0 * words as f64);
    let pcie_ms = up / h2d / 1e6 + down / d2h / 1e6;
    println!(
        "mul 2^21 x 32: kernel {kernel:.3} ms, resident {resident:.3} ms, end to end {e2e:.2} ms \
         (page-locked inputs {locked:.2} ms), cpu backend {cpu_ms:.2} ms; end to end = {:.0}% \
         ({:.0}% with page-locked inputs) of the pinned PCIe time for its bytes ({pcie_ms:.2} ms), \
         {:.2}x ({:.2}x) the CPU backend; page-locked results: {}",
        100.0 * pcie_ms / e2e,
        100.0 * pcie_ms / locked,
        cpu_ms / e2e,
        cpu_ms / locked,
        lx.is_page_locked()
    );

    // 2. Ten chained resident operations on the same data.
    let chain = wall(5, || {
        let mut z = rx.mul(&ry)?;
        for i in 0..9 {
            z = if i % 2 == 0 { z.add(&rx)? } else { z.mul(&ry)? };
        }
        z.wait()
    })?;
    let moved = 10.0 * 12.0 * words as f64; // each op reads two operands and writes one
    println!(
        "ten chained resident ops (mul, add, …) on 2^21 x 32: {chain:.3} ms, {:.0} GB/s = {:.0}% of the device copy bandwidth ({d2d:.0} GB/s)",
        gbs(moved, chain),
        100.0 * gbs(moved, chain) / d2d
    );
    drop((dx, dy, dz, rx, ry));

    // 3. Matmul 1024² × 32 primes, host in / host out.
    let bm = basis(31);
    let n = 1024;
    let mat = |seed| {
        ModMatrices::new(
            &bm.primes(),
            n,
            n,
            RnsVec::random(&bm, n * n, seed).residues().to_vec(),
        )
    };
    let (ma, mb) = (mat(3)?, mat(4)?);
    let (da, db, dmm) = (
        raw::upload_words(&g, ma.data())?,
        raw::upload_words(&g, mb.data())?,
        raw::upload(&g, &moduli_words(ma.moduli()))?,
    );
    let mut dc = raw::alloc(&g, 32 * n * n)?;
    let shape = Matmul {
        n,
        k: n,
        p: n,
        channels: 32,
    };
    let kernel = events(&g, 5, || {
        launch::launch_matmul(&g, raw::stream(&g), shape, &mut dc, &da, &db, &dmm)
    })?;
    let check = raw::download_words(&g, &dc, 32 * n * n)?;
    drop((da, db, dc));
    let e2e = wall(5, || gb.matmul_mod(&ma, &mb).map(drop))?;
    assert_eq!(gb.matmul_mod(&ma, &mb)?.data(), &check[..]);
    println!("matmul 1024^2 x 32 primes: kernel {kernel:.2} ms, end to end {e2e:.2} ms = {:.2}x the kernel", e2e / kernel);

    // 4. Equality and sign of 10^6 numbers × 330 primes.
    let b330 = basis(330);
    let nn = 1_000_000;
    let p = RnsVec::random(&b330, nn, 5);
    let mut qd = p.residues().to_vec();
    for i in (0..nn).step_by(3) {
        qd[(i % 331) * nn + i] ^= 1;
    }
    let q = RnsVec::from_residues(&b330, nn, qd)?;
    let (dp, dq) = (
        raw::upload_words(&g, p.residues())?,
        raw::upload_words(&g, q.residues())?,
    );
    let mut out = raw::alloc(&g, nn)?;
    let eq = Equal {
        kernel: EqualKernel::WarpVote,
        len: nn,
        channels: 331,
    };
    let kernel = events(&g, 5, || {
        launch::launch_equal(&g, raw::stream(&g), eq, &mut out, &dp, &dq)
    })?;
    let (rp, rq) = (gb.upload(&p)?, gb.upload(&q)?);
    let resident = wall(5, || rp.equal(&rq).map(drop))?;
    let e2e = wall(5, || gb.equal(&p, &q).map(drop))?;
    let want_eq = cpu.equal(&p, &q)?;
    assert_eq!(gb.equal(&p, &q)?, want_eq);
    assert_eq!(rp.equal(&rq)?, want_eq);
    println!("equal 10^6 x 330: kernel {kernel:.3} ms, resident {resident:.2} ms, end to end {e2e:.2} ms = {:.1}x the kernel", e2e / kernel);
    let t = ops::mrc_tables(&g, b330.range_moduli())?;
    let k = 330;
    let mut dd = raw::alloc(&g, k * nn)?;
    let kernel = events(&g, 3, || {
        let scratch = std::slice::from_mut(&mut dd);
        launch::launch_compare(&g, raw::stream(&g), &t, nn, &dp, None, scratch, &mut out)
    })?;
    drop((dd, dp, dq));
    let resident = wall(3, || rp.sign().map(drop))?;
    let e2e = wall(3, || gb.sign(&p).map(drop))?;
    let gs = gb.sign(&p)?;
    let head = RnsVec::from_residues(
        &b330,
        1000,
        (0..331)
            .flat_map(|c| p.channel(c)[..1000].to_vec())
            .collect(),
    )?;
    assert_eq!(&gs[..1000], &cpu.sign(&head)?[..]);
    assert_eq!(rp.sign()?, gs);
    println!("sign 10^6 x 330: kernel {kernel:.2} ms, resident {resident:.2} ms, end to end {e2e:.2} ms = {:.2}x the kernel", e2e / kernel);
    Ok(())
}
