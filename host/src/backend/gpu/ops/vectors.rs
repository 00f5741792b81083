//! Operations on residue vectors held on the host, streamed through the device
//! (`stream_chunks`): elementwise arithmetic, equality, mixed-radix digits,
//! sign and comparison, and the reduction of integers into residues.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::driver::pipeline::{HostIn, HostOut};
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{Digits, Elementwise, Equal, EqualKernel, Reduce};
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::num::op::Op;
use crate::num::words::{Words, WordsRef};
use cudarc::driver::CudaSlice;
use rns_core::Modulus;
use std::sync::Arc;

/// Elementwise operation on host data (channel-major, `moduli.len()` channels);
/// `scalar` holds one residue per channel for the scalar operations. The result is
/// page-locked when large (`Gpu::result_words`).
pub fn elementwise(
    gpu: &Arc<Gpu>,
    op: Op,
    moduli: &[Modulus],
    len: usize,
    inputs: &[WordsRef],
    scalar: &[u32],
) -> Result<Words> {
    let channels = moduli.len();
    let mut out = gpu.result_words(channels * len);
    let (dm, ds) = (gpu.upload(&moduli_words(moduli))?, gpu.upload(scalar)?);
    let ins: Vec<HostIn> = inputs
        .iter()
        .map(|&x| HostIn::new(x, channels, 1))
        .collect();
    let mut outs = [HostOut::of(&mut out, channels, 1)];
    gpu.stream_chunks(
        len,
        &ins,
        &mut outs,
        0,
        usize::MAX,
        &mut |s, di, dout, r| {
            let refs: Vec<&CudaSlice<u32>> = di.iter().collect();
            let shape = Elementwise {
                op,
                len: r.len(),
                channels,
            };
            launch::launch_elementwise(gpu, s, shape, &mut dout[0], &refs, &ds, &dm)
        },
    )?;
    Ok(out)
}

/// Whether numbers agree in every channel.
pub fn equal(
    gpu: &Gpu,
    kernel: EqualKernel,
    channels: usize,
    len: usize,
    a: &[u32],
    b: &[u32],
) -> Result<Vec<bool>> {
    let mut out = vec![0u32; len];
    let ins = [HostIn::new(a, channels, 1), HostIn::new(b, channels, 1)];
    let mut outs = [HostOut::new(&mut out, 1, 1)];
    gpu.stream_chunks(
        len,
        &ins,
        &mut outs,
        0,
        usize::MAX,
        &mut |s, di, dout, r| {
            let shape = Equal {
                kernel,
                len: r.len(),
                channels,
            };
            launch::launch_equal(gpu, s, shape, &mut dout[0], &di[0], &di[1])
        },
    )?;
    Ok(out.into_iter().map(|x| x != 0).collect())
}

/// Mixed-radix digits (channel-major, `k × len`) over the `k` moduli of `range` of
/// the first `k` channels of `x`.
pub fn digits(gpu: &Gpu, range: &[Modulus], len: usize, x: &[u32]) -> Result<Vec<u32>> {
    let k = range.len();
    let mut out = vec![0u32; k * len];
    let t = super::tables::mrc_tables(gpu, range)?;
    let ins = [HostIn::new(&x[..k * len], k, 1)];
    let mut outs = [HostOut::new(&mut out, k, 1)];
    gpu.stream_chunks(
        len,
        &ins,
        &mut outs,
        0,
        usize::MAX,
        &mut |s, di, dout, r| {
            let shape = Digits { len: r.len(), k };
            launch::launch_digits(
                gpu,
                s,
                shape,
                &mut dout[0],
                &di[0],
                None,
                &t.moduli,
                &t.table,
            )
        },
    )?;
    Ok(out)
}

/// Compares every `a[i]` with `b[i]` (or with 0 when `b` is `None`) on the device
/// over the `k` moduli of `range` (the first `k` channels of each): both sides are
/// shifted by `H = (M−1)/2`, which maps the signed range monotonically onto `[0, M)`;
/// then their mixed-radix digits are compared. −1, 0 or 1 per number.
pub fn compare(
    gpu: &Gpu,
    range: &[Modulus],
    len: usize,
    a: &[u32],
    b: Option<&[u32]>,
) -> Result<Vec<i32>> {
    let k = range.len();
    let mut out = vec![0u32; len];
    let t = super::tables::mrc_tables(gpu, range)?;
    let mut ins = vec![HostIn::new(&a[..k * len], k, 1)];
    ins.extend(b.map(|b| HostIn::new(&b[..k * len], k, 1)));
    let sides = ins.len();
    let mut outs = [HostOut::new(&mut out, 1, 1)];
    gpu.stream_chunks(
        len,
        &ins,
        &mut outs,
        sides * k,
        usize::MAX,
        &mut |s, di, dout, r| {
            let n = r.len();
            let mut scratch = (0..sides)
                .map(|_| gpu.alloc_on(s, k * n))
                .collect::<Result<Vec<_>>>()?;
            launch::launch_compare(gpu, s, &t, n, &di[0], di.get(1), &mut scratch, &mut dout[0])
        },
    )?;
    Ok(out.into_iter().map(|x| x as i32).collect())
}

/// Residues of many integers given as word-major 32-bit words (`words[w·len + i]`,
/// `nwords` per number) and sign flags: `moduli.len() × len`, channel-major
/// (page-locked when large).
pub fn reduce_words(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    words: &[u32],
    neg: &[u32],
    len: usize,
    nwords: usize,
) -> Result<Words> {
    let channels = moduli.len();
    let mut out = gpu.result_words(channels * len);
    let dm = gpu.upload(&moduli_words(moduli))?;
    let ins = [HostIn::new(words, nwords, 1), HostIn::new(neg, 1, 1)];
    let mut outs = [HostOut::of(&mut out, channels, 1)];
    gpu.stream_chunks(
        len,
        &ins,
        &mut outs,
        0,
        usize::MAX,
        &mut |s, di, dout, r| {
            let shape = Reduce {
                len: r.len(),
                channels,
                nwords,
            };
            launch::launch_reduce(gpu, s, shape, &mut dout[0], &di[0], &di[1], &dm)
        },
    )?;
    Ok(out)
}
