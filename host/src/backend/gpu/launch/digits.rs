//! Launches of the mixed-radix family: the conversion's table and digits, the digit
//! comparison, the interval pass and its tables, the whole comparison (interval pass,
//! then digits of the undecided numbers only), and the signed binary limbs of numbers
//! from their digits (`rns_digits_limbs`).

use super::shapes::{Cmp, Digits, Interval};
use super::DigitsInputs;
use super::{grid_limit, launch, need};
use crate::backend::gpu::driver::memory::{moduli_words, MODULUS_WORDS};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::*;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

/// Mixed-radix tables of one set of range moduli on one device.
#[derive(Debug)]
pub struct MrcTables {
    /// The `K` range moduli.
    pub moduli: CudaSlice<u32>,
    /// `table[i·K + j] = inv(m_i) mod m_j` for `i < j`.
    pub table: CudaSlice<u32>,
    /// `(m_c − 1)/2` per channel: the residues of `H`, the offset that maps the signed
    /// range onto `[0, M)`.
    pub half: CudaSlice<u32>,
    /// The mixed-radix digits of `H`.
    pub half_digits: CudaSlice<u32>,
    /// `inv(M/m_i) mod m_i` per channel, for the interval pass.
    pub coef: CudaSlice<u32>,
    /// `⌊2^64/m_i⌋` per channel, for the interval pass: `u64`s, two words each.
    pub weights: CudaSlice<u32>,
    /// The interval term of the residue 0 per channel (`u64`s, two words each): the
    /// constant side of a sign.
    pub zero_terms: CudaSlice<u32>,
    /// `Σ (m_i − 1)`, the interval pass's error bound.
    pub slack: u64,
    /// 32-bit limbs that hold `M − 1` (`rns_digits_limbs`).
    pub limbs: usize,
    /// `K`.
    pub k: usize,
}

/// 32-bit limbs that hold `M − 1` for the product `M` of `range` (once per basis:
/// `MrcTables::limbs`).
pub fn limbs_for(range: &[Modulus]) -> usize {
    let mut m = Integer::from(1);
    for r in range {
        m *= r.m;
    }
    (m.significant_bits() as usize).div_ceil(32)
}

/// `M mod q` for the product `M` of `range`.
pub fn product_mod(range: &[Modulus], q: Modulus) -> u32 {
    range
        .iter()
        .fold(q.reduce_u32(1), |r, m| q.mul(r, q.reduce_u32(m.m)))
}

/// Threads per block of `rns_digits_limbs`.
const LIMBS_THREADS: u32 = 128;

/// Numbers per block of the mixed-radix kernel for `len` numbers over `k` channels: up
/// to 32, as many as the shared-memory tile allows, and fewer when that leaves SMs
/// idle; `None` when not even one number's tile fits (the kernel then converts in
/// place in global memory).
pub fn digits_per_block(gpu: &Gpu, len: usize, k: usize) -> Option<u32> {
    // One word stays free for the block's vote when only pending numbers convert.
    let fit = gpu.shared_memory().saturating_sub(4) / (4 * k.max(1));
    if fit == 0 {
        return None;
    }
    let mut nb = NUMBERS_PER_BLOCK.min(fit.min(32) as u32).max(1);
    nb = 1 << (31 - nb.leading_zeros()); // a power of two, dividing the 256 threads
    while nb > 1 && len.div_ceil(nb as usize) < gpu.multiprocessors() {
        nb /= 2;
    }
    Some(nb)
}

/// Mixed-radix digits (`k × len`, channel-major) of the first `k` channels of `x`;
/// `offset` is one residue per channel or `None`; `table` the `k × k` table.
#[allow(clippy::too_many_arguments)]
pub fn launch_digits(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Digits,
    digits: &mut CudaSlice<u32>,
    x: &CudaSlice<u32>,
    offset: Option<&CudaSlice<u32>>,
    moduli: &CudaSlice<u32>,
    table: &CudaSlice<u32>,
) -> Result<()> {
    let ins = (x, offset, moduli, table);
    launch_digits_of(gpu, stream, s, digits, ins, None)
}

/// As [`launch_digits`] (`ins` = `x`, `offset`, `moduli`, `table`), converting
/// only the numbers whose entry of `pending` (one per number, when given) is
/// `interval::AMBIGUOUS`; blocks without such numbers return at once.
pub fn launch_digits_of(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Digits,
    digits: &mut CudaSlice<u32>,
    ins: DigitsInputs,
    pending: Option<&CudaSlice<u32>>,
) -> Result<()> {
    let (x, offset, moduli, table) = ins;
    need("digits output", digits, s.k * s.len)?;
    need("digits input", x, s.k * s.len)?;
    need("moduli", moduli, s.k * MODULUS_WORDS)?;
    need("mixed-radix table", table, s.k * s.k)?;
    if let Some(o) = offset {
        need("offset", o, s.k)?;
    }
    if let Some(p) = pending {
        need("pending flags", p, s.len)?;
    }
    let per_block = digits_per_block(gpu, s.len, s.k);
    let shared = per_block.is_some();
    let nb = per_block.unwrap_or(NUMBERS_PER_BLOCK);
    let tile = per_block.map_or(0, |nb| s.k * nb as usize * 4);
    let cfg = LaunchConfig {
        grid_dim: (s.len.div_ceil(nb as usize).max(1) as u32, 1, 1),
        block_dim: (nb, NUMBERS_PER_BLOCK * CHANNEL_LANES / nb, 1),
        shared_mem_bytes: (tile + if pending.is_some() { 4 } else { 0 }) as u32,
    };
    let (len, k, sh) = (s.len as u32, s.k as u32, shared as u32);
    let f = &gpu.kernels().mrc_digits;
    let null = 0u64;
    let mut b = stream.launch_builder(f);
    b.arg(digits).arg(x);
    match offset {
        Some(o) => b.arg(o),
        None => b.arg(&null),
    };
    b.arg(moduli).arg(table);
    match pending {
        Some(p) => b.arg(p),
        None => b.arg(&null),
    };
    b.arg(&len).arg(&k).arg(&sh);
    super::launch_built(gpu, b, cfg)
}

/// The `k × k` mixed-radix table of `moduli` (`k` moduli) into `table`.
pub fn launch_mr_table(
    gpu: &Gpu,
    stream: &CudaStream,
    k: usize,
    table: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("mixed-radix table", table, k * k)?;
    need("moduli", moduli, k * MODULUS_WORDS)?;
    let cfg = LaunchConfig {
        grid_dim: (
            (k * k).div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 16) as u32,
            1,
            1,
        ),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let k32 = k as u32;
    launch!(
        gpu,
        stream,
        &gpu.kernels().mr_table,
        cfg,
        table,
        moduli,
        &k32
    )
}

/// `out[i]` = −1, 0, 1 for `a[i]` <, =, > `b[i]` by their digits (or `b` itself, `k`
/// digits, when `broadcast`).
pub fn launch_cmp(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Cmp,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: &CudaSlice<u32>,
) -> Result<()> {
    need("comparison output", out, s.len)?;
    need("comparison digits", a, s.k * s.len)?;
    need(
        "comparison digits",
        b,
        if s.broadcast { s.k } else { s.k * s.len },
    )?;
    let cfg = LaunchConfig {
        grid_dim: (s.len.div_ceil(ELEMENT_THREADS as usize).max(1) as u32, 1, 1),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (bc, po) = (s.broadcast as u32, s.pending_only as u32);
    let (len, k) = (s.len as u32, s.k as u32);
    let f = &gpu.kernels().cmp_digits;
    launch!(gpu, stream, f, cfg, out, a, b, &bc, &po, &len, &k)
}

/// Sign (`b` = `None`) or comparison by interval evaluation: `out[i]` is
/// `interval::{LESS, EQUAL, GREATER, AMBIGUOUS}` for `a[i]` against `b[i]` or 0.
#[allow(clippy::too_many_arguments)]
pub fn launch_interval(
    gpu: &Gpu,
    stream: &CudaStream,
    s: Interval,
    out: &mut CudaSlice<u32>,
    a: &CudaSlice<u32>,
    b: Option<&CudaSlice<u32>>,
    t: &MrcTables,
) -> Result<()> {
    need("interval output", out, s.len)?;
    need("interval input", a, s.k * s.len)?;
    if let Some(b) = b {
        need("interval input", b, s.k * s.len)?;
    }
    need("moduli", &t.moduli, s.k * MODULUS_WORDS)?;
    need("cofactor inverses", &t.coef, s.k)?;
    need("half residues", &t.half, s.k)?;
    need("interval weights", &t.weights, 2 * s.k)?;
    need("terms of 0", &t.zero_terms, 2 * s.k)?;
    let cfg = LaunchConfig {
        grid_dim: (
            s.len.div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 20) as u32,
            1,
            1,
        ),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (len, k, null) = (s.len as u32, s.k as u32, 0u64);
    let f = &gpu.kernels().interval_cmp;
    let (m, c, h, w) = (&t.moduli, &t.coef, &t.half, &t.weights);
    let (z, sl) = (&t.zero_terms, &t.slack);
    match b {
        Some(b) => launch!(gpu, stream, f, cfg, out, a, b, m, c, h, w, z, sl, &len, &k),
        None => launch!(gpu, stream, f, cfg, out, a, &null, m, c, h, w, z, sl, &len, &k),
    }
}

/// The interval tables of `k` moduli: cofactor inverses into `coef`, fixed-point
/// weights into `weights` and the terms of 0 into `zero_terms` (`u64`s, two words
/// each).
pub fn launch_interval_table(
    gpu: &Gpu,
    stream: &CudaStream,
    k: usize,
    coef: &mut CudaSlice<u32>,
    weights: &mut CudaSlice<u32>,
    zero_terms: &mut CudaSlice<u32>,
    moduli: &CudaSlice<u32>,
) -> Result<()> {
    need("cofactor inverses", coef, k)?;
    need("moduli", moduli, k * MODULUS_WORDS)?;
    need("interval weights", weights, 2 * k)?;
    need("terms of 0", zero_terms, 2 * k)?;
    let cfg = LaunchConfig {
        grid_dim: (k.div_ceil(ELEMENT_THREADS as usize).max(1) as u32, 1, 1),
        block_dim: (ELEMENT_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let k32 = k as u32;
    let f = &gpu.kernels().interval_table;
    launch!(gpu, stream, f, cfg, coef, weights, zero_terms, moduli, &k32)
}

/// Launches on `s` the comparison of `len` numbers over the tables `t`, into `out`
/// (−1, 0 or 1 per number as `u32`): `a` against `b`, or the sign of `a` when `b` is
/// `None`. First the interval pass decides almost every number; then the offset
/// mixed-radix digits of the undecided ones go into `scratch` (one `K × len` buffer
/// per side) and their digits are compared. Every block of the exact path with no
/// undecided number returns at once.
#[allow(clippy::too_many_arguments)]
pub fn launch_compare(
    gpu: &Gpu,
    s: &CudaStream,
    t: &MrcTables,
    len: usize,
    a: &CudaSlice<u32>,
    b: Option<&CudaSlice<u32>>,
    scratch: &mut [CudaSlice<u32>],
    out: &mut CudaSlice<u32>,
) -> Result<()> {
    let sides = 1 + b.is_some() as usize;
    let [da, rest @ ..] = scratch else {
        return Err(Error::Internal("comparison without digit scratch".into()));
    };
    if rest.len() + 1 < sides {
        return Err(Error::Internal(
            "comparison of two sides with one scratch".into(),
        ));
    }
    launch_interval(gpu, s, Interval { len, k: t.k }, out, a, b, t)?;
    let shape = Digits { len, k: t.k };
    let tabs = |x| (x, Some(&t.half), &t.moduli, &t.table);
    launch_digits_of(gpu, s, shape, da, tabs(a), Some(out))?;
    let db = match b {
        Some(b) => {
            let db = &mut rest[0];
            launch_digits_of(gpu, s, shape, db, tabs(b), Some(out))?;
            &*db
        }
        None => &t.half_digits,
    };
    let cmp = Cmp {
        len,
        k: t.k,
        broadcast: b.is_none(),
        pending_only: true,
    };
    launch_cmp(gpu, s, cmp, out, da, db)
}

/// `rns_digits_limbs` on `len` numbers given by their digits over `range`
/// (channel-major, `tables` those of `range`): `|v|` into `out` (`tables.limbs × len`,
/// limb-major), and each number's flag into `flags`, which holds its residue modulo
/// `q` (the redundant channel) on entry.
#[allow(clippy::too_many_arguments)]
pub fn launch_digits_limbs(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    flags: &mut CudaSlice<u32>,
    digits: &CudaSlice<u32>,
    (tables, range): (&MrcTables, &[Modulus]),
    q: Modulus,
    len: usize,
) -> Result<()> {
    let (k, nlimbs) = (tables.k, tables.limbs);
    if range.len() != k {
        return Err(Error::Internal("limbs: tables and moduli disagree".into()));
    }
    need("limbs output", out, nlimbs * len)?;
    need("limb flags", flags, len)?;
    need("digits", digits, k * len)?;
    if len == 0 {
        return Ok(());
    }
    let dq = gpu.upload_on(stream, &moduli_words(&[q]))?;
    let m_mod_q = product_mod(range, q);
    let blocks = len.div_ceil(LIMBS_THREADS as usize);
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("limb blocks", blocks, i32::MAX as usize)?, 1, 1),
        block_dim: (LIMBS_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (l, kk, nl) = (len as u32, k as u32, nlimbs as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().digits_limbs,
        cfg,
        out,
        flags,
        digits,
        &tables.moduli,
        &tables.half_digits,
        &dq,
        &m_mod_q,
        &l,
        &kk,
        &nl
    )
}

/// `rns_carry_terms`: `len` numbers, each the sum `Σ_w c_w·2^(32w)` of `words` terms of
/// `nlimbs ≤ 4` limbs (`terms`, limb-major over the `words × len` terms, as
/// [`launch_digits_limbs`] writes them for a product of `words` rows and `len` columns),
/// as `words + tail` binary words each, word-major, into `out`.
pub fn launch_carry_terms(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    out: &mut CudaSlice<u32>,
    terms: &CudaSlice<u32>,
    (len, words, nlimbs, tail): (usize, usize, usize, usize),
) -> Result<()> {
    need("carried words", out, (words + tail) * len)?;
    need("terms' limbs", terms, nlimbs * words * len)?;
    if nlimbs > 4 || (words + tail) * len > u32::MAX as usize {
        return Err(Error::Internal(format!(
            "carries of {len} sums of {words} terms of {nlimbs} limbs"
        )));
    }
    if len == 0 {
        return Ok(());
    }
    let blocks = len.div_ceil(LIMBS_THREADS as usize);
    let cfg = LaunchConfig {
        grid_dim: (grid_limit("carry blocks", blocks, i32::MAX as usize)?, 1, 1),
        block_dim: (LIMBS_THREADS, 1, 1),
        shared_mem_bytes: 0,
    };
    let (l, w, nl, t) = (len as u32, words as u32, nlimbs as u32, tail as u32);
    launch!(
        gpu,
        stream,
        &gpu.kernels().carry_terms,
        cfg,
        out,
        terms,
        &l,
        &w,
        &nl,
        &t
    )
}
