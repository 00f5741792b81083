//! Launches of the batched modular matrix product: on the integer units
//! (`rns_matmul`) or on the INT8 tensor cores, chosen by
//! [`crate::backend::gpu::GpuConfig::tensor_cores_for`]; there by small moduli (`rns_ozaki_planes`,
//! `rns_matmul_ozaki`, `rns_ozaki_combine`) or by byte planes (`rns_imma_planes`, then
//! `rns_matmul_imma`), chosen by [`crate::backend::gpu::GpuConfig::tensor_split_for`].

use super::{grid_limit, launch, need, Matmul, GRID_YZ};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::{Gpu, TensorSplit};
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;
use rns_core::ozaki::{moduli_for, MAX_SMALL};
use std::sync::Arc;

/// The batched product `out = a · b` per channel: on the integer units
/// (`rns_matmul`), or on the INT8 tensor cores when the config asks for them
/// (`launch_matmul_imma`).
pub fn launch_matmul(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Matmul,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("product output", out, s.channels * s.n * s.p)?;
    need("product operand", a, s.channels * s.n * s.k)?;
    need("product operand", b, s.channels * s.k * s.p)?;
    need("moduli", moduli, s.channels * MODULUS_WORDS)?;
    if gpu.config().tensor_cores_for(s.n, s.k, s.p) {
        if let Some(count) = small_moduli_for(gpu, s) {
            return launch_matmul_ozaki(gpu, stream, s, out, a, b, moduli, count);
        }
        return launch_matmul_imma(gpu, stream, s, out, a, b, moduli);
    }
    let tile = MM_TILE as usize;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("product tiles", s.p.div_ceil(tile), i32::MAX as usize)?,
            grid_limit("product tiles", s.n.div_ceil(tile), GRID_YZ)?,
            grid_limit("channels", s.channels, GRID_YZ)?,
        ),
        block_dim: (MM_THREADS_SIDE, MM_THREADS_SIDE, 1),
        shared_mem_bytes: MATMUL_SMEM_BYTES,
    };
    let (n, k, p) = (s.n as u32, s.k as u32, s.p as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().matmul,
        cfg,
        out,
        a,
        b,
        moduli,
        &n,
        &k,
        &p
    )
}

/// Device words of scratch per channel that [`launch_matmul`] allocates for an
/// `n × k` by `k × p` product: on the tensor cores the padded byte planes of both
/// operands (and the small residues of the product), none on the integer units.
pub fn matmul_scratch_words(gpu: &Gpu, n: usize, k: usize, p: usize) -> usize {
    if !gpu.config().tensor_cores_for(n, k, p) {
        return 0;
    }
    match (gpu.config().tensor_split_for(n, k, p), moduli_for(k)) {
        (TensorSplit::SmallModuli, Some(count)) => small_moduli_scratch_words((n, k, p), count),
        _ => {
            let k_pad = k.next_multiple_of(IMMA_BK);
            (n.next_multiple_of(IMMA_BM) + p.next_multiple_of(IMMA_BN)) * k_pad
        }
    }
}

/// Device words per channel of an `n × k` by `k × p` product by `count` small moduli
/// ([`small_moduli_planes`], then [`small_moduli_product`]): both operands' padded,
/// tiled planes and the product's small residues, for every small modulus.
pub fn small_moduli_scratch_words((n, k, p): (usize, usize, usize), count: usize) -> usize {
    let k_pad = k.next_multiple_of(OZ_BK);
    let planes = (n.next_multiple_of(OZ_BM) + p.next_multiple_of(OZ_BN)) * k_pad;
    (count * (planes + small_results_bytes(n, p))).div_ceil(4) + 1
}

/// How many small moduli a product on the tensor cores splits into, when it takes
/// them: as [`crate::backend::gpu::GpuConfig::tensor_split_for`] says, and when every product's
/// entries and every (channel, modulus) fit the kernels' indices and grid.
fn small_moduli_for(gpu: &Gpu, s: Matmul) -> Option<usize> {
    if gpu.config().tensor_split_for(s.n, s.k, s.p) != TensorSplit::SmallModuli {
        return None;
    }
    let count = moduli_for(s.k)?;
    let fits = s.channels * count <= GRID_YZ && small_results_fit(s.n, s.p);
    fits.then_some(count)
}

/// The batched product on the tensor cores by `count` small moduli, contiguous
/// operands and result ([`small_moduli_planes`](super::small_moduli_planes), [`small_moduli_product`](super::small_moduli_product)).
#[allow(clippy::too_many_arguments)]
fn launch_matmul_ozaki(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Matmul,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    count: usize,
) -> Result<()> {
    let (a_view, b_view) = (
        View::new(s.n * s.k, 0, s.k, 1),
        View::new(s.k * s.p, 0, 1, s.p),
    );
    let out_view = View::new(s.n * s.p, 0, s.p, 1);
    let planes = small_moduli_planes(gpu, stream, s, [(a, a_view), (b, b_view)], moduli, count)?;
    small_moduli_product(
        gpu,
        stream,
        s,
        planes,
        (out, out_view, false),
        moduli,
        count,
    )
}

/// The signed-byte planes of a product by small moduli ([`small_moduli_planes`]), and
/// whether they are tiled for the warpgroup kernel, which [`small_moduli_product`] then
/// takes.
pub struct SmallPlanes {
    a: CudaSlice<u32>,
    b: CudaSlice<u32>,
    tiled: bool,
}

/// The first step of a product on the tensor cores by `count` small moduli, on views
/// into larger buffers: `a`'s rows and `b`'s columns (each view's `x`) along the
/// inner dimension (its `k`) as signed bytes per small modulus (`rns_ozaki_planes`;
/// A's scaled by the CRT inverses), into new padded planes: tiled for
/// `rns_matmul_wgmma` where the device has it and `GpuConfig::wgmma` allows it.
pub fn small_moduli_planes(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Matmul,
    [(a, a_view), (b, b_view)]: [(&CudaSlice<u32>, View); 2],
    moduli: &CudaSlice<u32>,
    count: usize,
) -> Result<SmallPlanes> {
    let tiled = gpu.has_wgmma() && gpu.config().wgmma();
    let (n_pad, p_pad) = (s.n.next_multiple_of(OZ_BM), s.p.next_multiple_of(OZ_BN));
    let k_pad = s.k.next_multiple_of(OZ_BK);
    let (channels, planes) = (s.channels, s.channels * count);
    let mut ap = gpu.alloc_on(stream, planes * n_pad * k_pad / 4)?;
    let mut bp = gpu.alloc_on(stream, planes * p_pad * k_pad / 4)?;
    for (dst, src, v, xs, pad, scale) in [
        (&mut ap, a, a_view, s.n, n_pad, 1u32),
        (&mut bp, b, b_view, s.p, p_pad, 0),
    ] {
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit("split tiles", pad / OZ_SPLIT_X, i32::MAX as usize)?,
                grid_limit("split tiles", k_pad / OZ_SPLIT_K, GRID_YZ)?,
                grid_limit("channels", channels, GRID_YZ)?,
            ),
            block_dim: (OZ_THREADS, 1, 1),
            shared_mem_bytes: OZ_SPLIT_SMEM_BYTES,
        };
        let f = &gpu.kernels().ozaki_planes;
        let (ch, off) = (v.channel as u64, v.offset as u64);
        let [xs, ks, sx, sk, pad, kp, cnt, tiled] = [
            xs,
            s.k,
            v.stride_x,
            v.stride_k,
            pad,
            k_pad,
            count,
            tiled as usize,
        ]
        .map(|v| v as u32);
        launch!(
            gpu, stream, f, cfg, dst, src, &ch, &off, moduli, &xs, &ks, &sx, &sk, &pad, &kp, &cnt,
            &scale, &tiled
        )?;
    }
    Ok(SmallPlanes {
        a: ap,
        b: bp,
        tiled,
    })
}

/// The second step: one INT8 product per (channel, modulus) of the planes
/// (`rns_matmul_wgmma` on tiled planes, else `rns_matmul_ozaki`), then the CRT per
/// entry (`rns_ozaki_combine`), written to the result's view (rows along its columns)
/// or, with `subtract`, subtracted from it.
pub fn small_moduli_product(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Matmul,
    operands: SmallPlanes,
    (out, out_view, subtract): (&mut CudaSlice<u32>, View, bool),
    moduli: &CudaSlice<u32>,
    count: usize,
) -> Result<()> {
    let (n_pad, p_pad) = (s.n.next_multiple_of(OZ_BM), s.p.next_multiple_of(OZ_BN));
    let k_pad = s.k.next_multiple_of(OZ_BK);
    let (channels, planes) = (s.channels, s.channels * count);
    if !small_results_fit(s.n, s.p) {
        return Err(Error::Shape(format!(
            "the small residues of a {} × {} product exceed the kernels' 32-bit indices",
            s.n, s.p
        )));
    }
    let y_len = small_results_bytes(s.n, s.p);
    let mut y = gpu.alloc_on(stream, planes * y_len / 4)?;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("product tiles", p_pad / OZ_BN, i32::MAX as usize)?,
            grid_limit("product tiles", n_pad / OZ_BM, GRID_YZ)?,
            grid_limit("channels × small moduli", planes, GRID_YZ)?,
        ),
        block_dim: (OZ_THREADS, 1, 1),
        shared_mem_bytes: OZ_SMEM_BYTES,
    };
    let [n, p, kp, np, pp, yl, cnt] =
        [s.n, s.p, k_pad, n_pad, p_pad, y_len, count].map(|v| v as u32);
    let SmallPlanes {
        a: ap,
        b: bp,
        tiled,
    } = operands;
    let (f, cfg) = match (tiled, &gpu.kernels().matmul_wgmma) {
        (true, Some(f)) => (
            f,
            LaunchConfig {
                shared_mem_bytes: WG_SMEM_BYTES,
                ..cfg
            },
        ),
        (false, _) => (&gpu.kernels().matmul_ozaki, cfg),
        (true, None) => {
            return Err(Error::Internal(
                "planes tiled for a warpgroup kernel the device does not have".into(),
            ))
        }
    };
    launch!(gpu, stream, f, cfg, &mut y, &ap, &bp, &n, &p, &kp, &np, &pp, &yl, &cnt)?;
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit(
                "product entries",
                y_len.div_ceil(4 * 256),
                i32::MAX as usize,
            )?,
            1,
            grid_limit("channels", channels, GRID_YZ)?,
        ),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 4 * (MAX_SMALL as u32 + 1),
    };
    let (ch, off) = (out_view.channel as u64, out_view.offset as u64);
    let [ld, sub] = [out_view.stride_x, subtract as usize].map(|v| v as u32);
    let f = &gpu.kernels().ozaki_combine;
    launch!(gpu, stream, f, cfg, out, &ch, &off, &ld, &p, &sub, &y, moduli, &n, &yl, &pp, &cnt)
}

/// The batched product on the INT8 tensor cores: both operands split into padded
/// byte planes on `stream` (`rns_imma_planes`, scratch as large as the operands),
/// then `rns_matmul_imma`. Buffers as for [`launch_matmul`], checked by it.
fn launch_matmul_imma(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    s: Matmul,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    let (n_pad, p_pad) = (s.n.next_multiple_of(IMMA_BM), s.p.next_multiple_of(IMMA_BN));
    let k_pad = s.k.next_multiple_of(IMMA_BK);
    let channels = grid_limit("channels", s.channels, GRID_YZ)?;
    let mut ap = gpu.alloc_on(stream, s.channels * n_pad * k_pad)?;
    let mut bp = gpu.alloc_on(stream, s.channels * p_pad * k_pad)?;
    // A's rows (stride k) and B's columns (stride 1), each along k.
    for (dst, src, xs, pad, sx, sk) in [
        (&mut ap, a, s.n, n_pad, s.k, 1),
        (&mut bp, b, s.p, p_pad, 1, s.p),
    ] {
        let quads = pad * k_pad / 4;
        let cfg = LaunchConfig {
            grid_dim: (
                grid_limit("plane quads", quads.div_ceil(256), i32::MAX as usize)?,
                1,
                channels,
            ),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let f = &gpu.kernels().imma_planes;
        let args = [xs, s.k, sx, sk, pad, k_pad].map(|v| v as u32);
        let [xs, ks, sx, sk, pad, kp] = args;
        launch!(gpu, stream, f, cfg, dst, src, &xs, &ks, &sx, &sk, &pad, &kp)?;
    }
    let cfg = LaunchConfig {
        grid_dim: (
            grid_limit("product tiles", p_pad / IMMA_BN, i32::MAX as usize)?,
            grid_limit("product tiles", n_pad / IMMA_BM, GRID_YZ)?,
            channels,
        ),
        block_dim: (IMMA_THREADS, 1, 1),
        shared_mem_bytes: IMMA_SMEM_BYTES,
    };
    let args = [s.n, s.p, k_pad, n_pad, p_pad].map(|v| v as u32);
    let [n, p, kp, np, pp] = args;
    let f = &gpu.kernels().matmul_imma;
    launch!(gpu, stream, f, cfg, out, &ap, &bp, moduli, &n, &p, &kp, &np, &pp)
}

/// Where a matrix of a batched product lies in its buffer: channel `c`'s entry `(x, e)`
/// at `c·channel + offset + x·stride_x + e·stride_k` (for the result, `x` a row, `e` a
/// column, `stride_k = 1`).
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Words from one channel's matrix to the next.
    pub channel: usize,
    /// Words from a channel's first word to the matrix's first entry.
    pub offset: usize,
    /// Words between consecutive `x`.
    pub stride_x: usize,
    /// Words between consecutive `e`.
    pub stride_k: usize,
}

impl View {
    /// A view from its fields.
    pub fn new(channel: usize, offset: usize, stride_x: usize, stride_k: usize) -> View {
        View {
            channel,
            offset,
            stride_x,
            stride_k,
        }
    }
}
