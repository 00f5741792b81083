//! Launches of the elementwise kernels, the `mul_m` probe, equality and the reduction
//! of multi-word integers into residues.

use super::shapes::{Elementwise, Equal, EqualKernel, MulChain, Reduce};
use super::{channel_grid, channel_ranges, launch, need};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;

/// `out = op(inputs…)` per channel; `inputs.len() == op.arity()`, `scalar` holds one
/// residue per channel for the scalar operations (any buffer otherwise).
pub fn launch_elementwise(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Elementwise,
    out: &mut CudaSlice<u32>,
    inputs: &[&CudaSlice<u32>],
    scalar: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let words = s.len * s.channels;
    if inputs.len() != s.op.arity() {
        return Err(Error::Internal(format!(
            "{:?} launched with {} operands",
            s.op,
            inputs.len()
        )));
    }
    need("elementwise output", out, words)?;
    for x in inputs {
        need("elementwise operand", x, words)?;
    }
    if s.op.has_scalar() {
        need("elementwise scalar", scalar, s.channels)?;
    }
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let f = &gpu.kernels().elementwise[s.op.index()];
    let (n, len) = (s.len, s.len as u32);
    for r in channel_ranges(s.channels) {
        let words = r.start * n..r.end * n;
        // Operand slots a, b, c, d: unused ones repeat the last given (never read).
        let x = |k: usize| inputs[k.min(inputs.len() - 1)].slice(words.clone());
        let (a, b, c, d) = (x(0), x(1), x(2), x(3));
        let sc = match s.op.has_scalar() {
            true => scalar.slice(r.clone()),
            false => scalar.slice(..),
        };
        let m = moduli.slice(r.start * MODULUS_WORDS..r.end * MODULUS_WORDS);
        let mut o = out.slice_mut(words.clone());
        let cfg = channel_grid(n, r.len())?;
        launch!(gpu, stream, f, cfg, &mut o, &a, &b, &c, &d, &sc, &m, &len)?;
    }
    Ok(())
}

/// The `mul_m` throughput probe (`out`, `a`: `len × channels` words).
pub fn launch_mul_chain(
    gpu: &Gpu,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    s: MulChain,
) -> Result<()> {
    let f = &gpu.kernels().mul_chain;
    launch_chain_per_modulus(gpu, ("mul_chain", f), out, a, moduli, s)
}

/// The wide mul-add probe (`rns_mad_chain`; `out`, `a`: `len × channels` words, eight
/// chains of `iters` mul-adds a number).
pub fn launch_mad_chain(
    gpu: &Gpu,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    s: MulChain,
) -> Result<()> {
    let words = s.len * s.channels;
    need("mad_chain output", out, words)?;
    need("mad_chain input", a, words)?;
    let (n, len) = (s.len, s.len as u32);
    for r in channel_ranges(s.channels) {
        let words = r.start * n..r.end * n;
        let (mut o, x) = (out.slice_mut(words.clone()), a.slice(words));
        let cfg = channel_grid(n, r.len())?;
        let f = &gpu.kernels().mad_chain;
        launch!(gpu, gpu.stream(), f, cfg, &mut o, &x, &len, &s.iters)?;
    }
    Ok(())
}

/// The resultant rounds' coefficient-step probe (`rns_redc_chain`; `out`, `a`: `len ×
/// channels` words below each channel's modulus, eight chains of `iters` steps a number).
pub fn launch_redc_chain(
    gpu: &Gpu,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    s: MulChain,
) -> Result<()> {
    let f = &gpu.kernels().redc_chain;
    launch_chain_per_modulus(gpu, ("redc_chain", f), out, a, moduli, s)
}

/// A probe `f` (named `what`) over `len × channels` words with each channel's modulus.
fn launch_chain_per_modulus(
    gpu: &Gpu,
    (what, f): (&str, &CudaFunction),
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    s: MulChain,
) -> Result<()> {
    let words = s.len * s.channels;
    need(&format!("{what} output"), out, words)?;
    need(&format!("{what} input"), a, words)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let (n, len) = (s.len, s.len as u32);
    for r in channel_ranges(s.channels) {
        let words = r.start * n..r.end * n;
        let (mut o, x) = (out.slice_mut(words.clone()), a.slice(words));
        let m = moduli.slice(r.start * MODULUS_WORDS..r.end * MODULUS_WORDS);
        let cfg = channel_grid(n, r.len())?;
        launch!(gpu, gpu.stream(), f, cfg, &mut o, &x, &m, &len, &s.iters)?;
    }
    Ok(())
}

/// Whether numbers `a[i]`, `b[i]` agree in every channel: one word per number.
pub fn launch_equal(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Equal,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
) -> Result<()> {
    need("equality output", out, s.len)?;
    need("equality operand", a, s.len * s.channels)?;
    need("equality operand", b, s.len * s.channels)?;
    let k = gpu.kernels();
    let (f, smem) = match s.kernel {
        EqualKernel::SharedTree => (&k.equal_shared, NUMBERS_PER_BLOCK * CHANNEL_LANES * 4),
        EqualKernel::WarpVote => (&k.equal_vote, CHANNEL_LANES * 4),
    };
    let cfg = LaunchConfig {
        grid_dim: (
            s.len.div_ceil(NUMBERS_PER_BLOCK as usize).max(1) as u32,
            1,
            1,
        ),
        block_dim: (NUMBERS_PER_BLOCK, CHANNEL_LANES, 1),
        shared_mem_bytes: smem,
    };
    let (len, ch) = (s.len as u32, s.channels as u32);
    launch!(gpu, stream, f, cfg, out, a, b, &len, &ch)
}

/// Residues (`channels × len`) of word-major integers (`words[w·len + i]`, `nwords`
/// per number) with sign flags `neg`.
pub fn launch_reduce(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Reduce,
    out: &mut CudaSlice<u32>,
    words: &CudaSlice<u32>,
    neg: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("reduction output", out, s.channels * s.len)?;
    need("reduction words", words, s.nwords * s.len)?;
    need("reduction signs", neg, s.len)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let (n, len, nw) = (s.len, s.len as u32, s.nwords as u32);
    let f = &gpu.kernels().reduce_words;
    for r in channel_ranges(s.channels) {
        let mut o = out.slice_mut(r.start * n..r.end * n);
        let m = moduli.slice(r.start * MODULUS_WORDS..r.end * MODULUS_WORDS);
        let cfg = channel_grid(n, r.len())?;
        launch!(gpu, stream, f, cfg, &mut o, words, neg, &m, &len, &nw)?;
    }
    Ok(())
}
