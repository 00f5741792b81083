//! GPU benchmarks of issue "GPU backend", printed as one table: `mul_m` throughput
//! (compare with `device/reference/mul_chain.cu`, same inputs, same checksum), elementwise
//! mul against the device-to-device copy bandwidth, equality and sign of 10^6 numbers
//! over 330 moduli, det mod p of 512×512 for 128 primes, the product of 1024×1024
//! matrices modulo 32 primes (compare with `device/reference/matmul.cu`) and of other
//! sizes on the integer units and on the INT8 tensor cores; GPU against the CPU backend.
//! Every GPU figure is the median of 7 runs after a warm-up, timed with device events.
//!
//! `cargo run --release --example gpu_bench` (needs a GPU; `scripts/gpu-check.sh` runs it on one).

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::driver::raw::CudaSlice;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::{
    Cmp, Det, Digits, Elementwise, Eliminate, Equal, Matmul, MulChain,
};
use rns::backend::gpu::ops;
use rns::backend::gpu::{launch::EqualKernel, Gpu, TensorSplit};
use rns::{Backend, Op, RnsBasis, RnsVec};
use rns_suite::bench::{gpu_ms, median, product_inputs, xorshift_below};
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn cpu_ms(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    let mut t = Vec::new();
    for _ in 0..reps {
        let s = Instant::now();
        f();
        t.push(s.elapsed().as_secs_f64() * 1e3);
    }
    median(t)
}

fn basis(k: usize) -> Arc<RnsBasis> {
    Arc::new(RnsBasis::largest_primes(k).unwrap())
}

fn main() -> R<()> {
    let g = Gpu::get()?;
    let gb = Backend::select(rns::BackendChoice::Gpu)?;
    println!(
        "device: {}; CPU threads: {}",
        g.name(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );

    // 1. mul_m throughput, same inputs and launch as the CUDA C reference.
    let (len, iters) = (1usize << 22, 256u32);
    let m = rns_core::Modulus::new(2_147_483_629).map_err(rns::Error::from)?;
    let a = xorshift_below(len, m.m, 0x9E37_79B9_7F4A_7C15);
    let (da, dm) = (raw::upload(&g, &a)?, raw::upload(&g, &moduli_words(&[m]))?);
    let mut dout = raw::alloc(&g, len)?;
    let ms = gpu_ms(&g, || {
        let shape = MulChain {
            len,
            channels: 1,
            iters,
        };
        launch::launch_mul_chain(&g, &mut dout, &da, &dm, shape)
    })?;
    let out = raw::download(&g, &dout, len)?;
    for i in (0..len).step_by(len / 16) {
        let y = a[i];
        let mut x = [y, m.add(y, 1), m.add(y, 2), m.add(y, 3)];
        for _ in 0..iters {
            x = x.map(|v| m.mul(v, y));
        }
        assert_eq!(out[i], x[0] ^ x[1] ^ x[2] ^ x[3], "mul_chain wrong at {i}");
    }
    let sum: u64 = out.iter().map(|&v| v as u64).sum();
    println!(
        "rust   mul_chain: len {len} iters {iters} median {ms:.3} ms  {:.3} T modmul/s  checksum {sum}",
        4.0 * len as f64 * iters as f64 / (ms * 1e-3) / 1e12
    );

    // 2. elementwise mul of 2^26 residues vs the device-to-device copy.
    let b64 = basis(63); // 64 channels
    let per = 1usize << 20;
    let (x, y) = (RnsVec::random(&b64, per, 1), RnsVec::random(&b64, per, 2));
    let n = per * b64.channels();
    let (dx, dy, dmod) = (
        raw::upload(&g, x.residues())?,
        raw::upload(&g, y.residues())?,
        raw::upload(&g, &moduli_words(b64.moduli()))?,
    );
    let mut dz = raw::alloc(&g, n)?;
    let dummy = raw::upload(&g, &[0])?;
    let copy_ms = gpu_ms(&g, || raw::copy(&g, &mut dz, &dx))?;
    let copy_gbs = 8.0 * n as f64 / (copy_ms * 1e-3) / 1e9;
    println!("copy   d2d: {n} words median {copy_ms:.3} ms  {copy_gbs:.0} GB/s (read+write)");
    for op in [Op::Mul, Op::MulNaive, Op::Add] {
        let ms = gpu_ms(&g, || {
            let shape = Elementwise {
                op,
                len: per,
                channels: b64.channels(),
            };
            launch::launch_elementwise(
                &g,
                raw::stream(&g),
                shape,
                &mut dz,
                &[&dx, &dy],
                &dummy,
                &dmod,
            )
        })?;
        let gbs = 12.0 * n as f64 / (ms * 1e-3) / 1e9;
        println!(
            "{op:?} elementwise: {n} residues median {ms:.3} ms  {gbs:.0} GB/s = {:.0}% of copy; {:.1} G residues/s",
            100.0 * gbs / copy_gbs,
            n as f64 / (ms * 1e-3) / 1e9
        );
    }
    let want = Backend::Cpu.mul(&x, &y)?;
    assert_eq!(gb.mul(&x, &y)?.residues(), want.residues());
    let cpu = cpu_ms(3, || drop(Backend::Cpu.mul(&x, &y).unwrap()));
    let e2e = cpu_ms(3, || drop(gb.mul(&x, &y).unwrap()));
    println!("Mul 2^26 end to end: gpu with transfers {e2e:.1} ms, cpu backend {cpu:.1} ms");
    drop((dx, dy, dz));

    // 3. equality and sign of 10^6 numbers over 330 moduli.
    let b330 = basis(330);
    let nn = 1_000_000;
    let p = RnsVec::random(&b330, nn, 3);
    let q = RnsVec::from_residues(&b330, nn, p.residues().to_vec())?;
    let (dp, dq) = (
        raw::upload(&g, p.residues())?,
        raw::upload(&g, q.residues())?,
    );
    let mut deq = raw::alloc(&g, nn)?;
    for kernel in [EqualKernel::SharedTree, EqualKernel::WarpVote] {
        let ms = gpu_ms(&g, || {
            let shape = Equal {
                kernel,
                len: nn,
                channels: b330.channels(),
            };
            launch::launch_equal(&g, raw::stream(&g), shape, &mut deq, &dp, &dq)
        })?;
        let gbs = 8.0 * (nn * b330.channels()) as f64 / (ms * 1e-3) / 1e9;
        println!("equal {kernel:?} 1e6×330: kernel median {ms:.3} ms ({gbs:.0} GB/s read)");
    }
    let e2e = cpu_ms(3, || drop(gb.equal(&p, &q).unwrap()));
    let cpu = cpu_ms(3, || drop(Backend::Cpu.equal(&p, &q).unwrap()));
    println!("equal 1e6×330 end to end: gpu with transfers {e2e:.1} ms, cpu backend {cpu:.1} ms");

    // Sign and comparison: the interval pass (then the exact path for the undecided
    // numbers, whose blocks return at once when there are none) against the exact path
    // for every number, the kernel before the interval pass, in the same run.
    let k = b330.range_len();
    let t = ops::mrc_tables(&g, b330.range_moduli())?;
    let r = RnsVec::random(&b330, nn, 5);
    let dr = raw::upload(&g, r.residues())?;
    let (mut da, mut db) = (raw::alloc(&g, k * nn)?, raw::alloc(&g, k * nn)?);
    let (mut dout, mut dold) = (raw::alloc(&g, nn)?, raw::alloc(&g, nn)?);
    let shape = Digits { len: nn, k };
    let mut exact_all = |g: &Gpu, x: &CudaSlice<u32>, y: Option<&CudaSlice<u32>>| {
        let s = raw::stream(g);
        launch::launch_digits(g, s, shape, &mut da, x, Some(&t.half), &t.moduli, &t.table)?;
        if let Some(y) = y {
            launch::launch_digits(g, s, shape, &mut db, y, Some(&t.half), &t.moduli, &t.table)?;
        }
        let other = if y.is_some() { &db } else { &t.half_digits };
        let cmp = Cmp {
            len: nn,
            k,
            broadcast: y.is_none(),
            pending_only: false,
        };
        launch::launch_cmp(g, s, cmp, &mut dold, &da, other)
    };
    let old_sign = gpu_ms(&g, || exact_all(&g, &dp, None))?;
    let old_cmp = gpu_ms(&g, || exact_all(&g, &dp, Some(&dr)))?;
    let mut scratch = vec![raw::alloc(&g, k * nn)?, raw::alloc(&g, k * nn)?];
    let mut new_ms = |x: &CudaSlice<u32>, y: Option<&CudaSlice<u32>>| {
        gpu_ms(&g, || {
            launch::launch_compare(&g, raw::stream(&g), &t, nn, x, y, &mut scratch, &mut dout)
        })
    };
    let sign = new_ms(&dp, None)?;
    let cmp = new_ms(&dp, Some(&dr))?;
    let bytes = 4.0 * (nn * k) as f64;
    for (what, new, old, sides) in [
        ("sign", sign, old_sign, 1.0),
        ("compare", cmp, old_cmp, 2.0),
    ] {
        println!(
            "{what} 1e6×330, full-range values: kernels median {new:.3} ms ({:.0} GB/s read = {:.0}% of copy), exact path for every number {old:.3} ms: {:.1}x",
            sides * bytes / (new * 1e-3) / 1e9,
            100.0 * sides * bytes / (new * 1e-3) / 1e9 / copy_gbs,
            old / new
        );
    }
    // Values far below M (64-bit values in a 10 000-bit basis): none decided by the pass.
    let mut gen = 0x9E37_79B9_7F4A_7C15u64;
    let small_vals: Vec<rug::Integer> = (0..nn)
        .map(|_| {
            gen ^= gen << 13;
            gen ^= gen >> 7;
            gen ^= gen << 17;
            rug::Integer::from(gen as i64)
        })
        .collect();
    let sv = gb.to_rns(&b330, &small_vals)?;
    let dsv = raw::upload(&g, sv.residues())?;
    let small = new_ms(&dsv, None)?;
    let small_old = gpu_ms(&g, || exact_all(&g, &dsv, None))?;
    println!("sign 1e6×330, 64-bit values (all undecided by the pass): kernels median {small:.3} ms, exact path alone {small_old:.3} ms");
    let signs = gb.sign(&sv)?;
    assert!(
        signs.iter().zip(&small_vals).all(|(s, v)| *s == v.cmp0()),
        "GPU sign of small values is wrong"
    );
    drop((da, db, scratch, dsv));
    let gsign = gb.sign(&p)?;
    assert_eq!(gsign, Backend::Cpu.sign(&p)?, "GPU sign differs from CPU");
    assert_eq!(
        gb.compare(&p, &r)?,
        Backend::Cpu.compare(&p, &r)?,
        "GPU compare differs from CPU"
    );
    let e2e = cpu_ms(3, || drop(gb.sign(&p).unwrap()));
    let cpu = cpu_ms(3, || drop(Backend::Cpu.sign(&p).unwrap()));
    let e2e_cmp = cpu_ms(3, || drop(gb.compare(&p, &r).unwrap()));
    let cpu_cmp = cpu_ms(3, || drop(Backend::Cpu.compare(&p, &r).unwrap()));
    println!("sign 1e6×330 end to end: gpu with transfers {e2e:.1} ms, cpu backend {cpu:.1} ms; compare: gpu {e2e_cmp:.1} ms, cpu {cpu_cmp:.1} ms");
    let cpu_small = cpu_ms(1, || drop(Backend::Cpu.sign(&sv).unwrap()));
    println!("sign 1e6×330 of 64-bit values, cpu backend: {cpu_small:.1} ms");
    drop((dp, dq, dr));

    // 4. det mod p of 512×512 for 128 primes.
    let b128 = basis(127);
    let dn = 512;
    let mats = RnsVec::random(&b128, dn * dn, 4);
    let dmm = raw::upload(&g, &moduli_words(b128.moduli()))?;
    let mut work = raw::upload(&g, mats.residues())?;
    let (mut ddet, mut drank) = (
        raw::alloc(&g, b128.channels())?,
        raw::alloc(&g, b128.channels())?,
    );
    let src = raw::upload(&g, mats.residues())?;
    let mut ts = Vec::new();
    for _ in 0..5 {
        raw::copy(&g, &mut work, &src)?;
        ts.push(g.time_ms(|| {
            let shape = Eliminate {
                rows: dn,
                cols: dn,
                pivot_cols: dn,
                jordan: false,
                channels: b128.channels(),
            };
            launch::launch_eliminate(
                &g,
                raw::stream(&g),
                shape,
                &mut drank,
                &mut ddet,
                &mut work,
                &dmm,
            )
        })?);
    }
    let ms = median(ts);
    let gd = raw::download(&g, &ddet, b128.channels())?;
    // The blocked determinant (median of 5 from the same matrices), checked against the
    // unblocked elimination.
    let shape = Det {
        n: dn,
        channels: b128.channels(),
    };
    let mut det_ms = |what: &str| -> R<f64> {
        let mut ts = Vec::new();
        for _ in 0..5 {
            raw::copy(&g, &mut work, &src)?;
            ts.push(g.time_ms(|| {
                launch::launch_det(&g, raw::stream(&g), shape, &mut ddet, &mut work, &dmm)
            })?);
        }
        let got = raw::download(&g, &ddet, b128.channels())?;
        assert_eq!(got, gd, "{what} and unblocked det differ");
        Ok(median(ts))
    };
    g.config().set_tensor_cores(Some(false));
    let blocked = det_ms("blocked")?;
    // The trailing updates on the tensor cores, by panels of 64 and 128 columns.
    g.config().set_tensor_cores(Some(true));
    g.config().set_det_panel(Some(64));
    let tensor = [det_ms("tensor-core (64)")?, {
        g.config().set_det_panel(Some(128));
        det_ms("tensor-core (128)")?
    }];
    g.config().set_det_panel(None);
    g.config().set_tensor_cores(None);
    let cpu_dets = Backend::Cpu.det_per_channel(&mats, dn)?;
    assert_eq!(gd, cpu_dets, "GPU det differs from CPU");
    let cpu = cpu_ms(1, || drop(Backend::Cpu.det_per_channel(&mats, dn).unwrap()));
    let updates = b128.channels() as f64 * (dn as f64).powi(3) / 3.0;
    println!(
        "det mod p 512×512 ×128: gpu blocked LU median {blocked:.1} ms ({:.1} G updates/s), trailing updates on tensor cores: panels of 64 {:.1} ms ({:.2}x blocked), of 128 {:.1} ms ({:.2}x), unblocked elimination {ms:.1} ms ({:.1} G/s), cpu backend {cpu:.1} ms, blocked vs cpu {:.1}x",
        updates / (blocked * 1e-3) / 1e9,
        tensor[0],
        blocked / tensor[0],
        tensor[1],
        blocked / tensor[1],
        updates / (ms * 1e-3) / 1e9,
        cpu / blocked
    );

    // 5. The product n³ modulo mc primes on the integer units (`rns_matmul`) and on the
    // INT8 tensor cores (byte planes `rns_matmul_imma`, small moduli `rns_matmul_ozaki`),
    // same inputs, bit for bit; at 1024³ × 32 the inputs of device/reference/matmul.cu
    // (same checksum) and the CPU backend beside them.
    for (mn, mc) in [
        (128usize, 256usize),
        (256, 64),
        (1024, 32),
        (2048, 16),
        (4096, 16),
    ] {
        let bt = basis(mc - 1);
        let moduli = bt.moduli();
        let (ha, hb) = product_inputs(moduli, mn);
        let (da, db, dmm) = (
            raw::upload(&g, &ha)?,
            raw::upload(&g, &hb)?,
            raw::upload(&g, &moduli_words(moduli))?,
        );
        let mut dc = raw::alloc(&g, mc * mn * mn)?;
        let shape = Matmul {
            n: mn,
            k: mn,
            p: mn,
            channels: mc,
        };
        let mut run = |tensor: bool, split: TensorSplit| -> R<(f64, Vec<u32>)> {
            g.config().set_tensor_cores(Some(tensor));
            g.config().set_tensor_split(Some(split));
            let ms = gpu_ms(&g, || {
                launch::launch_matmul(&g, raw::stream(&g), shape, &mut dc, &da, &db, &dmm)
            })?;
            Ok((ms, raw::download(&g, &dc, mc * mn * mn)?))
        };
        let (simt, c1) = run(false, TensorSplit::BytePlanes)?;
        let (imma, c2) = run(true, TensorSplit::BytePlanes)?;
        let (ozaki, c3) = run(true, TensorSplit::SmallModuli)?;
        g.config().set_tensor_cores(None);
        g.config().set_tensor_split(None);
        assert_eq!(
            c1, c2,
            "tensor-core product (byte planes) differs from the integer kernel"
        );
        assert_eq!(
            c1, c3,
            "tensor-core product (small moduli) differs from the integer kernel"
        );
        let madds = (mc * mn * mn * mn) as f64;
        if (mn, mc) == (1024, 32) {
            let t0 = Instant::now();
            let cc = Backend::Cpu.matmul_per_channel(moduli, (mn, mn, mn), &ha, &hb)?;
            let cpu = t0.elapsed().as_secs_f64() * 1e3;
            assert_eq!(c1[..], cc[..], "GPU product differs from CPU");
            let sum: u64 = c1.iter().map(|&v| v as u64).sum();
            println!(
                "rust   matmul {mn}^3 x{mc}: median {simt:.3} ms  {:.3} T mul-add/s  checksum {sum}; cpu backend {cpu:.0} ms ({:.2} G/s), ratio {:.0}x",
                madds / (simt * 1e-3) / 1e12,
                madds / (cpu * 1e-3) / 1e9,
                cpu / simt
            );
        }
        let small = rns_core::ozaki::moduli_for(mn).unwrap_or(0) as f64;
        println!(
            "tensor cores matmul {mn}^3 x{mc}: byte planes median {imma:.3} ms {:.3} T mul-add/s ({:.0} TOPS int8), small moduli ({small} products) {ozaki:.3} ms {:.3} T/s ({:.0} TOPS int8), integer units {simt:.3} ms {:.3} T/s: planes {:.2}x, small moduli {:.2}x",
            madds / (imma * 1e-3) / 1e12,
            madds * 16.0 * 2.0 / (imma * 1e-3) / 1e12,
            madds / (ozaki * 1e-3) / 1e12,
            madds * small * 2.0 / (ozaki * 1e-3) / 1e12,
            madds / (simt * 1e-3) / 1e12,
            simt / imma,
            simt / ozaki
        );
    }
    Ok(())
}
