//! Launches of the elementwise kernels, the `mul_m` probe, equality and the reduction
//! of multi-word integers into residues.

use super::shapes::{Elementwise, Equal, EqualKernel, MulChain, Reduce};
use super::{channel_grid, launch, need};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
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
    let len = s.len as u32;
    // Operand slots a, b, c, d: unused ones repeat the last given (never read).
    let x = |k: usize| inputs[k.min(inputs.len() - 1)];
    let cfg = channel_grid(s.len, s.channels)?;
    launch!(
        gpu,
        stream,
        f,
        cfg,
        out,
        x(0),
        x(1),
        x(2),
        x(3),
        scalar,
        moduli,
        &len
    )
}

/// The `mul_m` throughput probe (`out`, `a`: `len × channels` words).
pub fn launch_mul_chain(
    gpu: &Gpu,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    s: MulChain,
) -> Result<()> {
    let words = s.len * s.channels;
    need("mul_chain output", out, words)?;
    need("mul_chain input", a, words)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    let len = s.len as u32;
    let cfg = channel_grid(s.len, s.channels)?;
    launch!(
        gpu,
        gpu.stream(),
        &gpu.kernels().mul_chain,
        cfg,
        out,
        a,
        moduli,
        &len,
        &s.iters
    )
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
    let (len, nw) = (s.len as u32, s.nwords as u32);
    let cfg = channel_grid(s.len, s.channels)?;
    let f = &gpu.kernels().reduce_words;
    launch!(gpu, stream, f, cfg, out, words, neg, moduli, &len, &nw)
}
