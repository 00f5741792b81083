//! The measurements of `rns compare`: for each operation the CPU backend (one core, all
//! cores) and, with a GPU, the kernels alone (device events), the resident operation
//! (inputs already on the device, the result left there: allocation and launch
//! overheads included) and the end-to-end operation (host in, host out); plus the
//! reference bandwidths of the same device.

use super::{event_ms, median, mismatch, wall_ms, Case};
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::driver::raw::CudaSlice;
use rns::backend::gpu::launch;
use rns::backend::gpu::launch::EqualKernel;
use rns::backend::gpu::launch::{Det, Digits, Elementwise, Equal, Matmul, Reduce, Resultant};
use rns::backend::gpu::ops;
use rns::backend::{pack_words, Backend, Op};
use rns::det;
use rns::error::Result;
use rns::mat::bounds::hadamard_bits;
use rns::mat::matrix::IntMatrix;
use rns::mat::modmat::ModMatrices;
use rns::num::basis::RnsBasis;
use rns::num::vector::RnsVec;
use rns::poly::bipoly::BiPoly;
use rns::poly::bounds::resultant_bits as bound_bits;
use rns::poly::intpoly::IntPoly;
use rns::{resultant, resultant_xy};
use rug::Integer;
use std::sync::Arc;

fn basis(k: usize) -> Arc<RnsBasis> {
    Arc::new(RnsBasis::largest_primes(k).expect("generated primes are valid"))
}

pub(super) fn measure(case: &mut Case) -> Result<()> {
    match case.op {
        "add" | "mul" | "mul_naive" | "abcd" => measure_elementwise(case),
        "equal" => measure_equal(case),
        "sign" => measure_sign(case),
        "crt" => measure_crt(case),
        "to_rns" => measure_to_rns(case),
        "matmul" => measure_matmul(case),
        "charpoly_mod" | "rref_mod" => super::one_prime::measure_one_prime(case),
        "det" => {
            // an n×n matrix of random 64-bit entries, exact over Z
            let r = RnsVec::random(&basis(2), case.size * case.size, 17);
            let a = IntMatrix::new(case.size, case.size, signed_64(r.channel(0), r.channel(1)))?;
            measure_det(case, &a)
        }
        "resultant_xy" => {
            // res_y(f, g) for dense f, g of degree `size` in x and in y, 64-bit coefficients
            let size = case.size;
            let r = RnsVec::random(&basis(2), 2 * (size + 1) * (size + 1), 31);
            let c = signed_64(r.channel(0), r.channel(1));
            let rows = |c: &[Integer]| c.chunks(size + 1).map(<[Integer]>::to_vec).collect();
            let (cf, cg) = c.split_at(c.len() / 2);
            let f = BiPoly::from_rows(rows(cf))?;
            let g = BiPoly::from_rows(rows(cg))?;
            measure_resultant_xy(case, &f, &g)
        }
        _ => {
            // res(f, g) for f, g of degree `size` with 64-bit coefficients
            let size = case.size;
            let r = RnsVec::random(&basis(2), 2 * (size + 1), 19);
            let c = signed_64(r.channel(0), r.channel(1));
            let f = IntPoly::new(c[..size + 1].to_vec())?;
            let g = IntPoly::new(c[size + 1..].to_vec())?;
            measure_resultant(case, &f, &g)
        }
    }
}

fn measure_elementwise(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    let kind = match op {
        "add" => Op::Add,
        "mul" => Op::Mul,
        "mul_naive" => Op::MulNaive,
        _ => Op::MulSubMul,
    };
    let b = basis(channels - 1);
    let xs: Vec<RnsVec> = (0..kind.arity())
        .map(|s| RnsVec::random(&b, size, s as u64 + 1))
        .collect();
    let args: Vec<&RnsVec> = xs.iter().collect();
    let want = Backend::Cpu.elementwise(kind, &args, None)?;
    case.cpu(|| Backend::Cpu.elementwise(kind, &args, None).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let dev: Vec<_> = xs
        .iter()
        .map(|x| raw::upload_words(g, x.residues()))
        .collect::<Result<_>>()?;
    let refs: Vec<&CudaSlice<u32>> = dev.iter().collect();
    let (dm, ds) = (
        raw::upload(g, &moduli_words(b.moduli()))?,
        raw::upload(g, &[0])?,
    );
    let mut out = raw::alloc(g, size * b.channels())?;
    let shape = Elementwise {
        op: kind,
        len: size,
        channels: b.channels(),
    };
    let ms = event_ms(g, case.reps, || {
        launch::launch_elementwise(g, raw::stream(g), shape, &mut out, &refs, &ds, &dm)
    })?;
    if raw::download_words(g, &out, size * b.channels())? != want.residues() {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", ms);
    let res: Vec<_> = xs.iter().map(|x| gb.upload(x)).collect::<Result<_>>()?;
    let others: Vec<_> = res[1..].iter().collect();
    let ms = wall_ms(case.reps, || {
        res[0].elementwise(kind, &others, None)?.wait()
    })?;
    if res[0]
        .elementwise(kind, &others, None)?
        .download()?
        .residues()
        != want.residues()
    {
        return Err(mismatch(op, size, "resident"));
    }
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.elementwise(kind, &args, None).map(drop))?;
    if gb.elementwise(kind, &args, None)?.residues() != want.residues() {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

fn measure_equal(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    let b = basis(channels - 1);
    let x = RnsVec::random(&b, size, 7);
    let mut data = x.residues().to_vec();
    for i in (0..size).step_by(2) {
        data[(i % b.channels()) * size + i] ^= 1; // every other number differs in one channel
    }
    let y = RnsVec::from_residues(&b, size, data)?;
    let want = Backend::Cpu.equal(&x, &y)?;
    case.cpu(|| Backend::Cpu.equal(&x, &y).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let (dx, dy) = (
        raw::upload_words(g, x.residues())?,
        raw::upload_words(g, y.residues())?,
    );
    let mut out = raw::alloc(g, size)?;
    let shape = Equal {
        kernel: EqualKernel::WarpVote,
        len: size,
        channels: b.channels(),
    };
    let ms = event_ms(g, case.reps, || {
        launch::launch_equal(g, raw::stream(g), shape, &mut out, &dx, &dy)
    })?;
    let got: Vec<bool> = raw::download(g, &out, size)?
        .into_iter()
        .map(|v| v != 0)
        .collect();
    if got != want {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", ms);
    let (rx, ry) = (gb.upload(&x)?, gb.upload(&y)?);
    let ms = wall_ms(case.reps, || rx.equal(&ry).map(drop))?;
    if rx.equal(&ry)? != want {
        return Err(mismatch(op, size, "resident"));
    }
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.equal(&x, &y).map(drop))?;
    if gb.equal(&x, &y)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

fn measure_sign(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    let b = basis(channels - 1);
    let x = RnsVec::random(&b, size, 11);
    let k = b.range_len();
    let want = Backend::Cpu.sign(&x)?;
    case.cpu(|| Backend::Cpu.sign(&x).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let (dx, t) = (
        raw::upload_words(g, x.residues())?,
        ops::mrc_tables(g, b.range_moduli())?,
    );
    let (mut dd, mut out) = (raw::alloc(g, k * size)?, raw::alloc(g, size)?);
    let s = raw::stream(g);
    let ms = event_ms(g, case.reps, || {
        let scratch = std::slice::from_mut(&mut dd);
        launch::launch_compare(g, s, &t, size, &dx, None, scratch, &mut out)
    })?;
    let got: Vec<_> = raw::download(g, &out, size)?
        .into_iter()
        .map(|v| (v as i32).cmp(&0))
        .collect();
    if got != want {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", ms);
    let rx = gb.upload(&x)?;
    let ms = wall_ms(case.reps, || rx.sign().map(drop))?;
    if rx.sign()? != want {
        return Err(mismatch(op, size, "resident"));
    }
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.sign(&x).map(drop))?;
    if gb.sign(&x)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

fn measure_crt(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    let b = basis(channels - 1);
    let x = RnsVec::random(&b, size, 11);
    let k = b.range_len();
    let want = x.to_integers();
    case.cpu(|| {
        x.to_integers();
        Ok(())
    })?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let (dx, t) = (
        raw::upload_words(g, x.residues())?,
        ops::mrc_tables(g, b.range_moduli())?,
    );
    let mut dd = raw::alloc(g, k * size)?;
    let ms = event_ms(g, case.reps, || {
        let digits = Digits { len: size, k };
        launch::launch_digits(
            g,
            raw::stream(g),
            digits,
            &mut dd,
            &dx,
            None,
            &t.moduli,
            &t.table,
        )
    })?;
    case.push("gpu_kernel", ms);
    let rx = gb.upload(&x)?;
    let ms = wall_ms(case.reps, || rx.to_integers().map(drop))?;
    if rx.to_integers()? != want {
        return Err(mismatch(op, size, "resident"));
    }
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.to_integers(&x).map(drop))?;
    if gb.to_integers(&x)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

fn measure_to_rns(case: &mut Case) -> Result<()> {
    let (op, size, channels) = (case.op, case.size, case.channels);
    let b = basis(channels - 1);
    let values = RnsVec::random(&b, size, 13).to_integers();
    let want = RnsVec::from_integers(&b, &values)?;
    case.cpu(|| RnsVec::from_integers(&b, &values).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let (words, neg, nwords) = pack_words(&values);
    let (dw, dn, dm) = (
        raw::upload_words(g, &words)?,
        raw::upload(g, &neg)?,
        raw::upload(g, &moduli_words(b.moduli()))?,
    );
    let mut out = raw::alloc(g, size * b.channels())?;
    let shape = Reduce {
        len: size,
        channels: b.channels(),
        nwords,
    };
    let run = |out: &mut CudaSlice<u32>| {
        launch::launch_reduce(g, raw::stream(g), shape, out, &dw, &dn, &dm)
    };
    let ms = event_ms(g, case.reps, || run(&mut out))?;
    if raw::download_words(g, &out, size * b.channels())? != want.residues() {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", ms);
    // Resident: the packed words already on the device, the residues left there.
    let ms = wall_ms(case.reps, || {
        let mut o = raw::alloc(g, size * b.channels())?;
        run(&mut o)?;
        g.sync()
    })?;
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.to_rns(&b, &values).map(drop))?;
    if gb.to_rns(&b, &values)?.residues() != want.residues() {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

fn measure_matmul(case: &mut Case) -> Result<()> {
    // the product of two n×n matrices of random residues modulo 32 primes
    let (op, size, channels) = (case.op, case.size, case.channels);
    let b = basis(channels - 1);
    let mat = |seed| {
        let r = RnsVec::random(&b, size * size, seed);
        ModMatrices::new(&b.primes(), size, size, r.residues().to_vec())
    };
    let (x, y) = (mat(23)?, mat(29)?);
    let want = Backend::Cpu.matmul_mod(&x, &y)?;
    case.cpu(|| Backend::Cpu.matmul_mod(&x, &y).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let (dx, dy, dm) = (
        raw::upload_words(g, x.data())?,
        raw::upload_words(g, y.data())?,
        raw::upload(g, &moduli_words(x.moduli()))?,
    );
    let words = want.data().len();
    let mut out = raw::alloc(g, words)?;
    let shape = Matmul {
        n: size,
        k: size,
        p: size,
        channels,
    };
    let run = |out: &mut CudaSlice<u32>| {
        launch::launch_matmul(g, raw::stream(g), shape, out, &dx, &dy, &dm)
    };
    let ms = event_ms(g, case.reps, || run(&mut out))?;
    if raw::download_words(g, &out, words)? != want.data() {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", ms);
    let ms = wall_ms(case.reps, || {
        let mut o = raw::alloc(g, words)?;
        run(&mut o)?;
        g.sync()
    })?;
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || gb.matmul_mod(&x, &y).map(drop))?;
    if gb.matmul_mod(&x, &y)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

/// 64-bit integers from two 32-bit halves, every third one negated.
fn signed_64(hi: &[u32], lo: &[u32]) -> Vec<Integer> {
    hi.iter()
        .zip(lo)
        .enumerate()
        .map(|(i, (&h, &l))| {
            let v = Integer::from((h as u64) << 32 | l as u64);
            if i % 3 == 0 {
                -v
            } else {
                v
            }
        })
        .collect()
}

/// Times the exact determinant of `a` on every backend; the kernel-only figure is the
/// blocked modular LU over all primes on the device, the resident one adds the copy of
/// the residues it overwrites and the download of the determinants.
fn measure_det(case: &mut Case, a: &IntMatrix) -> Result<()> {
    let (op, size, n) = (case.op, case.size, a.rows());
    let b = Arc::new(RnsBasis::for_bits(hadamard_bits(a).unwrap_or(1)));
    case.channels = b.range_len();
    let want = det(a, &Backend::Cpu)?;
    case.cpu(|| det(a, &Backend::Cpu).map(drop))?;
    let Some((g, gb)) = case.gpu else {
        return Ok(());
    };
    let residues = RnsVec::from_integers(&b, a.entries())?;
    let dm = raw::upload(g, &moduli_words(b.moduli()))?;
    let src = raw::upload_words(g, residues.residues())?;
    let mut work = raw::upload_words(g, residues.residues())?;
    let mut out = raw::alloc(g, b.channels())?;
    let shape = Det {
        n,
        channels: b.channels(),
    };
    let mut t = Vec::new();
    for _ in 0..case.reps {
        raw::copy(g, &mut work, &src)?;
        t.push(
            g.time_ms(|| launch::launch_det(g, raw::stream(g), shape, &mut out, &mut work, &dm))?,
        );
    }
    if raw::download(g, &out, b.channels())? != Backend::Cpu.det_per_channel(&residues, n)? {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", median(t));
    let ms = wall_ms(case.reps, || {
        raw::copy(g, &mut work, &src)?;
        launch::launch_det(g, raw::stream(g), shape, &mut out, &mut work, &dm)?;
        raw::download(g, &out, b.channels()).map(drop)
    })?;
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || det(a, gb).map(drop))?;
    if det(a, gb)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

/// Times `res(f, g)` on every backend; the kernel-only figure is Euclid's algorithm
/// modulo all primes on the device (one thread per prime).
fn measure_resultant(case: &mut Case, f: &IntPoly, g: &IntPoly) -> Result<()> {
    let (op, size) = (case.op, case.size);
    let (lf, lg) = (f.leading().clone(), g.leading().clone());
    let b = Arc::new(RnsBasis::for_bits_excluding(bound_bits(f, g), |p| {
        lf.is_divisible_u(p) || lg.is_divisible_u(p)
    }));
    case.channels = b.range_len();
    let want = resultant(f, g, &Backend::Cpu)?;
    case.cpu(|| resultant(f, g, &Backend::Cpu).map(drop))?;
    let Some((gpu, gb)) = case.gpu else {
        return Ok(());
    };
    let (df, dg) = (f.degree(), g.degree());
    let coeffs: Vec<Integer> = f.coeffs().iter().chain(g.coeffs()).cloned().collect();
    let residues = RnsVec::from_integers(&b, &coeffs)?;
    let interleaved =
        rns::num::layout::to_number_major(residues.residues(), df + dg + 2, b.channels());
    let dm = raw::upload(gpu, &moduli_words(b.moduli()))?;
    let src = raw::upload(gpu, &interleaved)?;
    let mut work = raw::upload(gpu, &interleaved)?;
    let mut out = raw::alloc(gpu, b.channels())?;
    let shape = Resultant {
        channels: b.channels(),
        df,
        dg,
    };
    let mut t = Vec::new();
    for _ in 0..case.reps {
        raw::copy(gpu, &mut work, &src)?;
        t.push(gpu.time_ms(|| {
            launch::launch_resultant(gpu, raw::stream(gpu), shape, &mut out, &mut work, &dm)
        })?);
    }
    if raw::download(gpu, &out, b.channels())?
        != Backend::Cpu.resultant_per_channel(&residues, df, dg)?
    {
        return Err(mismatch(op, size, "kernel"));
    }
    case.push("gpu_kernel", median(t));
    let ms = wall_ms(case.reps, || {
        raw::copy(gpu, &mut work, &src)?;
        launch::launch_resultant(gpu, raw::stream(gpu), shape, &mut out, &mut work, &dm)?;
        raw::download(gpu, &out, b.channels()).map(drop)
    })?;
    case.push("gpu_resident", ms);
    let ms = wall_ms(case.reps, || resultant(f, g, gb).map(drop))?;
    if resultant(f, g, gb)? != want {
        return Err(mismatch(op, size, "with transfers"));
    }
    case.push("gpu", ms);
    Ok(())
}

/// Times `res_y(f, g)` on every backend; the kernel-only figure is the sum of the
/// device stages of its stage breakdown (reduce, resultants, interpolation: wall time
/// with a synchronisation after each), the resident one adds the transfers.
fn measure_resultant_xy(case: &mut Case, f: &BiPoly, g: &BiPoly) -> Result<()> {
    let (op, size) = (case.op, case.size);
    let (want, st) =
        rns::resultant_xy_with(f, g, &Backend::Cpu, &rns::ResultantOptions::default())?;
    case.channels = st.primes();
    case.cpu(|| resultant_xy(f, g, &Backend::Cpu).map(drop))?;
    let Some((_, gb)) = case.gpu else {
        return Ok(());
    };
    let (mut kernels, mut resident) = (Vec::new(), Vec::new());
    let ms = wall_ms(case.reps, || {
        let (r, st) = rns::resultant_xy_with(f, g, gb, &rns::ResultantOptions::default())?;
        if r != want {
            return Err(mismatch(op, size, "with transfers"));
        }
        let device = st.device_time().as_secs_f64() * 1e3;
        kernels.push(device);
        resident.push(device + st.transfer_time().as_secs_f64() * 1e3);
        Ok(())
    })?;
    case.push("gpu_kernel", median(kernels));
    case.push("gpu_resident", median(resident));
    case.push("gpu", ms);
    Ok(())
}
