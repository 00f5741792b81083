//! Launches of the Montgomery products modulo a large odd `r` (`rns_redc_*`): the
//! tables, the column reduction of the extensions' exact sums and the three steps.
//! Every kernel is a grid-stride loop over its entries (`flat_grid`), so sizes are
//! bounded by the buffers alone; each launch checks them against its [`Redc`] shape.

use super::{launch, need};
use crate::backend::gpu::driver::memory::MODULUS_WORDS;
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::{
    ELEMENT_THREADS, REDC_EXTEND_MIN_CHUNK, REDC_EXTEND_ROWS, REDC_EXTEND_THREADS,
};
use rns_core::redc::Crt3;
use std::sync::Arc;

/// The channels of the products: `k` in `B`, `k2` in `B'`, then `m_r`.
#[derive(Clone, Copy, Debug)]
pub struct Redc {
    /// Channels of `B`.
    pub k: usize,
    /// Channels of `B'`.
    pub k2: usize,
}

impl Redc {
    /// All channels (a number's row).
    pub fn n(self) -> usize {
        self.k + self.k2 + 1
    }
}

/// Blocks of a grid-stride loop over `len` entries (at most 2^20 blocks).
fn flat_grid(len: usize) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (
            len.div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 20) as u32,
            1,
            1,
        ),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The entries of a launch as the kernels' 32-bit sizes ([`Error::Shape`] past them).
fn sizes<const N: usize>(what: &str, v: [usize; N]) -> Result<[u32; N]> {
    let whole = v.iter().try_fold(1usize, |a, &x| a.checked_mul(x.max(1)));
    if whole.is_none() || v.iter().any(|&x| x > u32::MAX as usize) {
        return Err(Error::Shape(format!("{what} of {v:?} entries")));
    }
    Ok(v.map(|x| x as u32))
}

/// `rns_redc_powers`: `out[w·cols + c] = 2^(30w) mod m_c` for `w < rows`.
pub fn launch_redc_powers(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
    (rows, cols): (usize, usize),
) -> Result<()> {
    need("digit powers", out, rows * cols)?;
    need("moduli", moduli, cols * MODULUS_WORDS)?;
    let [r, c] = sizes("digit powers", [rows, cols])?;
    let f = &gpu.kernels().redc_powers;
    launch!(gpu, stream, f, flat_grid(rows * cols), out, moduli, &r, &c)
}

/// `rns_redc_weights`: `out[j·cols + c] = (F/f_j) mod m_c` for the `rows` moduli `from`
/// of product `F`, given `F mod m_c` for each of the `cols` moduli `to`.
pub fn launch_redc_weights(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    (from, to, to_prod): (&CudaSlice<u32>, &CudaSlice<u32>, &CudaSlice<u32>),
    (rows, cols): (usize, usize),
) -> Result<()> {
    need("extension weights", out, rows * cols)?;
    need("moduli", from, rows * MODULUS_WORDS)?;
    need("moduli", to, cols * MODULUS_WORDS)?;
    need("basis residues", to_prod, cols)?;
    let [r, c] = sizes("extension weights", [rows, cols])?;
    let f = &gpu.kernels().redc_weights;
    launch!(
        gpu,
        stream,
        f,
        flat_grid(rows * cols),
        out,
        from,
        to,
        to_prod,
        &r,
        &c
    )
}

/// `rns_redc_columns`: the `rows × cols` exact sums given modulo the three primes of
/// `crt` (`sums`, channel-major; `primes` their moduli) reduced modulo the `cols`
/// moduli, into rows `stride` words apart of `out`.
#[allow(clippy::too_many_arguments)]
pub fn launch_redc_columns(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    sums: &CudaSlice<u32>,
    (crt, primes): (&Crt3, &CudaSlice<u32>),
    moduli: &CudaSlice<u32>,
    (rows, cols, stride): (usize, usize, usize),
) -> Result<()> {
    if cols > stride {
        return Err(Error::Internal(format!(
            "{cols} columns in rows of {stride}"
        )));
    }
    need("reduced sums", out, rows.saturating_sub(1) * stride + cols)?;
    need("channel sums", sums, 3 * rows * cols)?;
    need("moduli", primes, 3 * MODULUS_WORDS)?;
    need("moduli", moduli, cols * MODULUS_WORDS)?;
    let [r, c, s] = sizes("reduced sums", [rows, cols, stride])?;
    let f = &gpu.kernels().redc_columns;
    let (i0, i01) = (crt.inv0, crt.inv01);
    launch!(
        gpu,
        stream,
        f,
        flat_grid(rows * cols),
        out,
        sums,
        primes,
        &i0,
        &i01,
        moduli,
        &r,
        &c,
        &s
    )
}

/// `rns_redc_extend`: `out = a·w` (`rows × inner` by `inner × cols`, entries below
/// `2^31`) with column `c` reduced modulo `m_c`, the sums exact in 128 bits, on the
/// integer units; the inner dimension in chunks (partial results summed by
/// `rns_redc_extend_sum`) when rows and columns alone give too few threads.
pub fn launch_redc_extend(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    (a, w): (&CudaSlice<u32>, &CudaSlice<u32>),
    moduli: &CudaSlice<u32>,
    (rows, inner, cols): (usize, usize, usize),
) -> Result<()> {
    need("extended sums", out, rows * cols)?;
    need("extension operand", a, rows * inner)?;
    need("extension weights", w, inner * cols)?;
    need("moduli", moduli, cols * MODULUS_WORDS)?;
    let [r, i, c] = sizes("extended sums", [rows, inner, cols])?;
    let (chunks, chunk) = extend_chunks(rows, inner, cols);
    let groups = rows.div_ceil(REDC_EXTEND_ROWS as usize);
    let cfg = LaunchConfig {
        grid_dim: (
            cols.div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 20) as u32,
            groups.clamp(1, super::GRID_YZ) as u32,
            chunks as u32,
        ),
        ..flat_grid(0)
    };
    let f = &gpu.kernels().redc_extend;
    let k = chunk as u32;
    if chunks == 1 {
        return launch!(gpu, stream, f, cfg, out, a, w, moduli, &r, &i, &c, &k);
    }
    let mut part = gpu.alloc_on(stream, chunks * rows * cols)?;
    launch!(gpu, stream, f, cfg, &mut part, a, w, moduli, &r, &i, &c, &k)?;
    let len = (rows * cols) as u32;
    let (f, z) = (&gpu.kernels().redc_extend_sum, chunks as u32);
    launch!(
        gpu,
        stream,
        f,
        flat_grid(rows * cols),
        out,
        &part,
        moduli,
        &len,
        &c,
        &z
    )
}

/// The chunks of the inner dimension of a `rns_redc_extend` launch and their length:
/// enough for [`REDC_EXTEND_THREADS`] threads where rows and columns give fewer.
pub fn extend_chunks(rows: usize, inner: usize, cols: usize) -> (usize, usize) {
    let threads = cols * rows.div_ceil(REDC_EXTEND_ROWS as usize);
    let most = inner
        .div_ceil(REDC_EXTEND_MIN_CHUNK)
        .clamp(1, super::GRID_YZ);
    let chunks = REDC_EXTEND_THREADS.div_ceil(threads.max(1)).clamp(1, most);
    let chunk = inner.div_ceil(chunks).max(1);
    (inner.div_ceil(chunk).max(1), chunk)
}

/// The moduli and per-channel constants of `n` channels, as the three steps read them.
fn need_tables(moduli: &CudaSlice<u32>, consts: &CudaSlice<u32>, n: usize) -> Result<()> {
    need("moduli", moduli, n * MODULUS_WORDS)?;
    need("constants", consts, 3 * n)
}

/// `rns_redc_pairs`: step 1 for `pairs` pairs of rows of `x`: their channels' products
/// into `prod` (`pairs × n`) and `σ` in `B` three times over into `sigma`.
#[allow(clippy::too_many_arguments)]
pub fn launch_redc_pairs(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (prod, sigma): (&mut CudaSlice<u32>, &mut CudaSlice<u32>),
    x: &CudaSlice<u32>,
    (moduli, consts): (&CudaSlice<u32>, &CudaSlice<u32>),
    s: Redc,
    pairs: usize,
) -> Result<()> {
    let n = s.n();
    need("pair products", prod, pairs * n)?;
    need("first extension operand", sigma, 3 * pairs * s.k)?;
    need("pairs", x, 2 * pairs * n)?;
    need_tables(moduli, consts, n)?;
    let [p, k, n32] = sizes("pair products", [pairs, s.k, n])?;
    let f = &gpu.kernels().redc_pairs;
    launch!(
        gpu,
        stream,
        f,
        flat_grid(pairs * n),
        prod,
        sigma,
        x,
        moduli,
        consts,
        &p,
        &k,
        &n32
    )
}

/// `rns_redc_mid`: step 3 into the `B' ∪ {m_r}` channels of `xn`'s rows and `σ'`
/// three times over, from `prod` and the first extension's reduced sums `ext`.
#[allow(clippy::too_many_arguments)]
pub fn launch_redc_mid(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    (xn, sigma): (&mut CudaSlice<u32>, &mut CudaSlice<u32>),
    (prod, ext): (&CudaSlice<u32>, &CudaSlice<u32>),
    (moduli, consts): (&CudaSlice<u32>, &CudaSlice<u32>),
    s: Redc,
    pairs: usize,
) -> Result<()> {
    let n = s.n();
    need("products", xn, pairs * n)?;
    need("second extension operand", sigma, 3 * pairs * s.k2)?;
    need("pair products", prod, pairs * n)?;
    need("first extension sums", ext, pairs * (s.k2 + 1))?;
    need_tables(moduli, consts, n)?;
    let [p, k, k2] = sizes("extension steps", [pairs, s.k, s.k2])?;
    let f = &gpu.kernels().redc_mid;
    let cfg = flat_grid(pairs * (s.k2 + 1));
    launch!(gpu, stream, f, cfg, xn, sigma, prod, ext, moduli, consts, &p, &k, &k2)
}

/// `rns_redc_end`: step 5 into the `B` channels of `xn`'s rows from the second
/// extension's reduced sums `ext` (`pairs × (k + 1)`).
pub fn launch_redc_end(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    xn: &mut CudaSlice<u32>,
    ext: &CudaSlice<u32>,
    (moduli, consts): (&CudaSlice<u32>, &CudaSlice<u32>),
    s: Redc,
    pairs: usize,
) -> Result<()> {
    let n = s.n();
    need("products", xn, pairs * n)?;
    need("second extension sums", ext, pairs * (s.k + 1))?;
    need_tables(moduli, consts, n)?;
    let [p, k, k2] = sizes("extension steps", [pairs, s.k, s.k2])?;
    let f = &gpu.kernels().redc_end;
    launch!(
        gpu,
        stream,
        f,
        flat_grid(pairs * s.k),
        xn,
        ext,
        moduli,
        consts,
        &p,
        &k,
        &k2
    )
}
