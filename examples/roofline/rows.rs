//! The roofline's rows, one function a kernel family: each measures its kernels, checks
//! their answers, and gives each rate in the unit of the limit that binds it.

use super::{gpu_ms, Roofs, Row, R};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::{
    Chunks, Det, Digits, Elementwise, Eliminate, Equal, EqualKernel, Matmul,
};
use rns::backend::gpu::{ops, Gpu, TensorSplit};
use rns::timing::Laps;
use rns::{Backend, Op, RnsBasis, RnsVec};
use rns_suite::bench::{median, product_inputs};
use rug::Integer;
use std::sync::Arc;

fn basis(k: usize) -> R<Arc<RnsBasis>> {
    Ok(Arc::new(RnsBasis::largest_primes(k)?))
}

/// Elementwise mul, equality: bound by the copy.
pub fn vectors(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let b = basis(63)?;
    let per = if quick { 1 << 16 } else { 1 << 20 };
    let (x, y) = (RnsVec::random(&b, per, 1), RnsVec::random(&b, per, 2));
    let n = per * b.channels();
    let (dx, dy, dm) = (
        raw::upload(g, x.residues())?,
        raw::upload(g, y.residues())?,
        raw::upload(g, &moduli_words(b.moduli()))?,
    );
    let (mut dz, dummy) = (raw::alloc(g, n)?, raw::upload(g, &[0])?);
    let shape = Elementwise {
        op: Op::Mul,
        len: per,
        channels: b.channels(),
    };
    let ms = gpu_ms(g, || {
        let ins = [&dx, &dy];
        launch::launch_elementwise(g, raw::stream(g), shape, &mut dz, &ins, &dummy, &dm)
    })?;
    if raw::download(g, &dz, n)? != Backend::Cpu.mul(&x, &y)?.residues() {
        return Err("elementwise mul differs from the CPU backend".into());
    }
    let size = format!("{per} × {} channels", b.channels());
    let mut rows = vec![Row::new(
        "`rns_mul` (elementwise)",
        &size,
        12.0 * n as f64 / (ms * 1e-3) / 1e9,
        roofs.copy,
        "12 bytes a residue",
    )];
    drop((dz, dy));
    let b = basis(330)?;
    let len = if quick { 1 << 14 } else { 1_000_000 };
    let p = RnsVec::random(&b, len, 3);
    let (dp, dq) = (raw::upload(g, p.residues())?, raw::upload(g, p.residues())?);
    let mut out = raw::alloc(g, len)?;
    let shape = Equal {
        kernel: EqualKernel::WarpVote,
        len,
        channels: b.channels(),
    };
    let ms = gpu_ms(g, || {
        launch::launch_equal(g, raw::stream(g), shape, &mut out, &dp, &dq)
    })?;
    if raw::download(g, &out, len)?.contains(&0) {
        return Err("equality of equal numbers said no".into());
    }
    rows.push(Row::new(
        "`rns_equal_vote`",
        &format!("{len} × {}", b.channels()),
        8.0 * (len * b.channels()) as f64 / (ms * 1e-3) / 1e9,
        roofs.copy,
        "reads only: a copy's half",
    ));
    Ok(rows)
}

/// Sign (interval pass), mixed-radix digits (the CRT) and decimal chunks (the text) of
/// numbers over 330 moduli, checked against the integers they came from.
pub fn conversion(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let b = basis(330)?;
    let k = b.range_len();
    let len = if quick { 1 << 12 } else { 1 << 18 };
    let bits = 31 * k as u32 - 40;
    let mut state = rug::rand::RandState::new();
    let ints: Vec<Integer> = (0..len)
        .map(|i| {
            let v = Integer::from(Integer::random_bits(bits, &mut state));
            if i % 2 == 1 {
                -v
            } else {
                v
            }
        })
        .collect();
    let x = Backend::Cpu.to_rns(&b, &ints)?;
    let dx = raw::upload(g, x.residues())?;
    let tables = ops::mrc_tables(g, b.range_moduli())?;
    let t = &*tables;
    let mut rows = Vec::new();

    // Sign of full-range numbers (random residues): the interval pass decides them.
    let r = RnsVec::random(&b, len, 6);
    let dr = raw::upload(g, r.residues())?;
    let mut scratch = vec![raw::alloc(g, k * len)?, raw::alloc(g, k * len)?];
    let mut signs = raw::alloc(g, len)?;
    let ms = gpu_ms(g, || {
        let s = raw::stream(g);
        launch::launch_compare(g, s, t, len, &dr, None, &mut scratch, &mut signs)
    })?;
    let got = raw::download(g, &signs, len)?;
    let want = Backend::Cpu.sign(&r)?;
    if got
        .iter()
        .zip(&want)
        .any(|(&s, w)| (s as i32).cmp(&0) != *w)
    {
        return Err("the GPU's signs differ from the CPU's".into());
    }
    rows.push(Row::new(
        "sign, full-range numbers (`rns_interval_cmp` pass)",
        &format!("{len} × {}", b.channels()),
        4.0 * (len * k) as f64 / (ms * 1e-3) / 1e9,
        roofs.copy,
        "reads the range channels once",
    ));
    drop((scratch, dr));

    // The CRT: mixed-radix digits, k(k − 1)/2 products a number.
    let mut digits = raw::alloc(g, k * len)?;
    let shape = Digits { len, k };
    let ms = gpu_ms(g, || {
        let s = raw::stream(g);
        launch::launch_digits(g, s, shape, &mut digits, &dx, None, &t.moduli, &t.table)
    })?;
    rows.push(Row::new(
        "mixed-radix digits (`rns_mrc_digits`, the CRT)",
        &format!("{len} × {k}"),
        (len * k * (k - 1) / 2) as f64 / (ms * 1e-3) / 1e9,
        roofs.modmul,
        "k(k−1)/2 products a number",
    ));

    // The text: chunks of nine digits by Horner over the digits, a number's chunks a
    // column of global memory read and written once a digit (k·chunks/2 updates).
    let range = &b.moduli()[..k];
    let q = b.moduli()[k];
    let nchunks = ops::decimal::text_chunks(t).ok_or("too many chunks")?;
    // The kernel turns the redundant residues in `flags` into flags: refilled each run.
    let redundant = raw::upload(g, &x.residues()[k * len..(k + 1) * len])?;
    let mut flags = raw::alloc(g, len)?;
    let (mut chunks, mut lens) = (raw::alloc(g, nchunks * len)?, raw::alloc(g, len)?);
    let ms = gpu_ms(g, || {
        raw::copy(g, &mut flags, &redundant)?;
        let out = Chunks {
            chunks: &mut chunks,
            lens: &mut lens,
            flags: &mut flags,
            nchunks,
        };
        launch::launch_digits_decimal(g, raw::stream(g), out, &digits, (t, range), q, len)
    })?;
    rows.push(Row::new(
        "decimal chunks (`rns_digits_decimal`, the text)",
        &format!("{len} × {k}, {nchunks} chunks"),
        8.0 * (len * k * nchunks / 2) as f64 / (ms * 1e-3) / 1e9,
        roofs.copy,
        "k·chunks/2 chunk updates a number, each a 4-byte load and store",
    ));
    raw::copy(g, &mut flags, &redundant)?;
    let mut laps = Laps::start();
    let s = raw::stream(g);
    let text = ops::decimal::text_of_digits(
        g,
        s,
        &digits,
        &mut flags,
        (t, range, q),
        (len, 1),
        ("", bits as u64),
        &mut laps,
    )?;
    let check = len.min(4096);
    if text
        .split_whitespace()
        .take(check)
        .zip(&ints)
        .any(|(a, b)| a != b.to_string())
    {
        return Err("the device's text differs from the integers".into());
    }
    Ok(rows)
}

/// The product of `n × n` matrices modulo `mc` primes: integer units against the
/// wide mul-add, the tensor cores against cuBLAS INT8.
pub fn products(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let shapes: &[(usize, usize, bool)] = if quick {
        &[(512, 16, true)]
    } else {
        &[(4096, 16, true), (8192, 16, false)]
    };
    let mut rows = Vec::new();
    for &(n, mc, simt) in shapes {
        let b = basis(mc - 1)?;
        let (ha, hb) = product_inputs(b.moduli(), n);
        let (da, db, dm) = (
            raw::upload(g, &ha)?,
            raw::upload(g, &hb)?,
            raw::upload(g, &moduli_words(b.moduli()))?,
        );
        let mut dc = raw::alloc(g, mc * n * n)?;
        let shape = Matmul {
            n,
            k: n,
            p: n,
            channels: mc,
        };
        let mut run = |tensor: bool, split: TensorSplit| -> R<(f64, Vec<u32>)> {
            g.config().set_tensor_cores(Some(tensor));
            g.config().set_tensor_split(Some(split));
            let ms = gpu_ms(g, || {
                launch::launch_matmul(g, raw::stream(g), shape, &mut dc, &da, &db, &dm)
            })?;
            g.config().set_tensor_cores(None);
            g.config().set_tensor_split(None);
            Ok((ms, raw::download(g, &dc, mc * n * n)?))
        };
        let madds = (mc * n * n * n) as f64;
        let size = format!("{n}³ × {mc} primes");
        let (planes, want) = run(true, TensorSplit::BytePlanes)?;
        g.config().set_wgmma(false);
        let warp = run(true, TensorSplit::SmallModuli);
        g.config().set_wgmma(true);
        let (small, got) = warp?;
        if got != want {
            return Err(format!("{size}: the two tensor-core products differ").into());
        }
        let (group, got) = run(true, TensorSplit::SmallModuli)?;
        if got != want {
            return Err(format!("{size}: the warpgroup product differs").into());
        }
        if simt {
            let (ms, got) = run(false, TensorSplit::BytePlanes)?;
            if got != want {
                return Err(format!("{size}: integer units and tensor cores differ").into());
            }
            rows.push(Row::new(
                "`rns_matmul` (integer units)",
                &size,
                madds / (ms * 1e-3) / 1e9,
                roofs.madd,
                "a mul-add a `mad.wide`",
            ));
        }
        let products = rns_core::ozaki::moduli_for(n).unwrap_or(0) as f64;
        rows.push(Row::new(
            "`rns_matmul_imma` (byte planes)",
            &size,
            madds * 16.0 * 2.0 / (planes * 1e-3) / 1e12,
            roofs.int8,
            &format!(
                "16 byte products a mul-add: {:.1} T mul-add/s",
                madds / (planes * 1e-3) / 1e12
            ),
        ));
        // The same figures for both kernels of the small moduli.
        let small_row = |name: &str, ms: f64, tail: &str| {
            Row::new(
                name,
                &size,
                madds * products * 2.0 / (ms * 1e-3) / 1e12,
                roofs.int8,
                &format!(
                    "{products} INT8 products a mul-add: {:.1} T mul-add/s{tail}",
                    madds / (ms * 1e-3) / 1e12
                ),
            )
        };
        rows.push(small_row("`rns_matmul_ozaki` (small moduli)", small, ""));
        rows.push(small_row(
            "`rns_matmul_wgmma` (small moduli, warpgroups)",
            group,
            match g.has_wgmma() {
                true => "",
                false => " (no `sm_90a`: the warp kernel)",
            },
        ));
    }
    Ok(rows)
}

/// The determinant (LU) of one matrix per prime, against `mul_m`: as many primes as
/// multiprocessors (a block each) and eight times more. The CPU checks the first 16
/// primes' determinants.
pub fn lu(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let mut rows = Vec::new();
    let shapes: &[(usize, usize)] = if quick {
        &[(128, 16)]
    } else {
        &[(512, 128), (1000, 1024)]
    };
    for &(n, mc) in shapes {
        let b = basis(mc - 1)?;
        let mats = RnsVec::random(&b, n * n, 4);
        let dm = raw::upload(g, &moduli_words(b.moduli()))?;
        let src = raw::upload(g, mats.residues())?;
        let mut work = raw::alloc(g, src.len())?;
        let mut dets = raw::alloc(g, mc)?;
        let checked = mc.min(16);
        let mut first = mats.residues()[..checked * n * n].to_vec();
        let want: Vec<u32> = rns::backend::cpu::eliminate_per_channel(
            &b.moduli()[..checked],
            n,
            n,
            n,
            false,
            &mut first,
        )
        .iter()
        .map(|e| e.det)
        .collect();
        let size = format!("{n}² × {mc} primes");
        for (tensor, name) in [
            (false, "`rns_det_blocked` (LU, integer units)"),
            (
                true,
                "LU, trailing updates on the tensor cores (panels of 128)",
            ),
        ] {
            g.config().set_tensor_cores(Some(tensor));
            g.config().set_det_panel(tensor.then_some(128));
            let shape = Det { n, channels: mc };
            let ms = gpu_ms(g, || {
                raw::copy(g, &mut work, &src)?;
                launch::launch_det(g, raw::stream(g), shape, &mut dets, &mut work, &dm)
            })?;
            g.config().set_tensor_cores(None);
            g.config().set_det_panel(None);
            if raw::download(g, &dets, mc)?[..checked] != want[..] {
                return Err(format!("{name}: the determinants differ from the CPU's").into());
            }
            rows.push(Row::new(
                name,
                &size,
                mc as f64 * (n as f64).powi(3) / 3.0 / (ms * 1e-3) / 1e9,
                roofs.modmul,
                "n³/3 updates a prime, each counted as a `mul_m`; the time includes a copy of the matrices",
            ));
        }
    }
    Ok(rows)
}

/// Elimination of one `n × 2n` matrix (an inverse's shape) per prime, against `mul_m`:
/// `rns_eliminate` forward and Gauss–Jordan (the same determinants and ranks), and the
/// library's Gauss–Jordan by panels (the same determinants where they are not 0).
pub fn gauss_jordan(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let mut rows = Vec::new();
    let shapes: &[(usize, usize)] = if quick {
        &[(64, 16)]
    } else {
        &[(512, 128), (512, 1024)]
    };
    for &(n, mc) in shapes {
        let b = basis(mc - 1)?;
        let dm = raw::upload(g, &moduli_words(b.moduli()))?;
        let wide = RnsVec::random(&b, 2 * n * n, 5);
        let src = raw::upload(g, wide.residues())?;
        let mut work = raw::alloc(g, src.len())?;
        let (mut ranks, mut dets) = (raw::alloc(g, mc)?, raw::alloc(g, mc)?);
        let forward = Eliminate {
            rows: n,
            cols: 2 * n,
            pivot_cols: n,
            jordan: false,
            channels: mc,
        };
        let mut result = Vec::new();
        for jordan in [false, true] {
            let shape = Eliminate { jordan, ..forward };
            let ms = gpu_ms(g, || {
                raw::copy(g, &mut work, &src)?;
                let s = raw::stream(g);
                launch::launch_eliminate(g, s, shape, &mut ranks, &mut dets, &mut work, &dm)
            })?;
            result.push((raw::download(g, &dets, mc)?, raw::download(g, &ranks, mc)?));
            let (name, updates) = if jordan {
                ("`rns_eliminate` (Gauss–Jordan, a block a prime)", 1.5)
            } else {
                ("`rns_eliminate` (forward, a block a prime)", 5.0 / 6.0)
            };
            rows.push(Row::new(
                name,
                &format!("{n} × {} × {mc} primes", 2 * n),
                mc as f64 * updates * (n as f64).powi(3) / (ms * 1e-3) / 1e9,
                roofs.modmul,
                &format!(
                    "{updates:.2}·n³ updates a prime; the time includes a copy of the matrices"
                ),
            ));
        }
        if result[0] != result[1] {
            return Err("Gauss–Jordan and forward elimination disagree".into());
        }
        // The library's Gauss–Jordan for many primes where it fits: by panels, the
        // trailing updates on the tensor cores (its determinants those of rns_eliminate).
        let shape = Eliminate {
            jordan: true,
            ..forward
        };
        if launch::gauss_jordan_on_tensor_cores(g, n, 2 * n, mc) {
            let ms = gpu_ms(g, || {
                raw::copy(g, &mut work, &src)?;
                let s = raw::stream(g);
                launch::launch_gauss_jordan_tensor(g, s, shape, &mut dets, &mut work, &dm)
            })?;
            let got = raw::download(g, &dets, mc)?;
            if result[0]
                .0
                .iter()
                .zip(&got)
                .any(|(&w, &d)| w != 0 && w != d)
            {
                return Err("the blocked Gauss–Jordan's determinants differ".into());
            }
            rows.push(Row::new(
                "Gauss–Jordan by panels, updates on the tensor cores",
                &format!("{n} × {} × {mc} primes", 2 * n),
                mc as f64 * 1.5 * (n as f64).powi(3) / (ms * 1e-3) / 1e9,
                roofs.modmul,
                "1.50·n³ updates a prime; the library's path for solve and inverse mod p",
            ));
        } else {
            println!("Gauss–Jordan by panels: not the library's path at {n} × {mc}");
        }
    }
    Ok(rows)
}

/// Dixon's lifting step of an `n × n` matrix of 64-bit entries (three 29-bit limbs):
/// the reads of `A⁻¹ mod p` for each prime of the step and of `A`'s limbs, against
/// the copy, by 2, 3 and 4 primes a step, the rows streamed through the warps' rings
/// and loaded into registers. Each lifting's first digits are checked: `A·x ≡ b`
/// modulo the first prime.
pub fn lifting(g: &Gpu, roofs: &Roofs, quick: bool) -> R<Vec<Row>> {
    let (n, limbs) = (if quick { 512 } else { 4000 }, 3);
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    // Limb-major: two full signed 29-bit limbs, a top limb in [−32, 32).
    let words: Vec<u32> = (0..limbs * n * n)
        .map(|i| {
            let top = i >= (limbs - 1) * n * n;
            let v = if top {
                (next() % 64) as i32 - 32
            } else {
                (next() >> 35) as i32 - (1 << 28)
            };
            v as u32
        })
        .collect();
    let a = ops::upload_limbs(g, &words, n, limbs)?;
    let mut rows = Vec::new();
    for (k, ring) in [
        (2, true),
        (2, false),
        (3, true),
        (3, false),
        (4, true),
        (4, false),
    ] {
        g.config().set_lift_primes(Some(k));
        g.config().set_lift_ring(ring);
        let row = lifting_row(g, roofs, (&a, &words), ring);
        g.config().set_lift_primes(None);
        g.config().set_lift_ring(true);
        rows.push(row?);
    }
    Ok(rows)
}

/// One row of [`lifting`]: steps of the lifting of `a` (`words` its limbs) as the
/// device's settings ask.
fn lifting_row(
    g: &Gpu,
    roofs: &Roofs,
    (a, words): (&ops::DeviceLimbs, &[u32]),
    ring: bool,
) -> R<Row> {
    let (n, limbs) = (a.n, a.limbs);
    let rhs = vec![1i128; n];
    let primes = RnsBasis::largest_primes(8)?.moduli().to_vec();
    let (warm, timed) = (2, 20);
    let cap = warm + 8 * timed;
    let mut lift = ops::start_lift(g, a, (&rhs, 1), (primes, 4), |_| cap)?
        .ok_or("A is singular modulo every prime")?;
    lift.run(warm)?;
    g.sync()?;
    let mut ts = Vec::new();
    for _ in 0..7 {
        ts.push(g.time_ms(|| lift.run(timed))?);
    }
    let ms = median(ts) / timed as f64;
    let p = rns_core::Modulus::new(lift.primes()[0]).map_err(rns::Error::from)?;
    let x = lift.digits(1)?;
    let at = |r: usize, c: usize| -> u32 {
        let mut e = 0u32;
        for j in (0..limbs).rev() {
            let limb = words[j * n * n + r * n + c] as i32 as i64;
            let shifted = p.mul(e, p.reduce_u64(1 << 29));
            e = p.add(shifted, p.reduce_u64(limb.rem_euclid(p.m as i64) as u64));
        }
        e
    };
    for r in (0..n).step_by((n / 16).max(1)) {
        let sum = (0..n).fold(0, |acc, c| p.add(acc, p.mul(at(r, c), x[c])));
        if sum != 1 {
            return Err(format!("lifting: row {r} of A·x is {sum}, not 1 modulo {}", p.m).into());
        }
    }
    let k = lift.primes().len();
    let bytes = ((k + limbs) * n * n * 4) as f64;
    let kernel = if ring {
        "Dixon lifting step, rings (`rns_dixon_lift_ring`)"
    } else {
        "Dixon lifting step, registers (`rns_dixon_lift_global`)"
    };
    Ok(Row::new(
        kernel,
        &format!("{n}², {limbs} limbs, {k} primes a step"),
        bytes / (ms * 1e-3) / 1e9,
        roofs.copy,
        &format!(
            "{:.0} µs a step, {:.2} ns a bit; reads A⁻¹ mod p a prime and A's limbs once a step",
            ms * 1e3,
            ms * 1e6 / (31 * k * n) as f64
        ),
    ))
}
