//! The exact product of integer matrices on the device: operands packed on the host or
//! already words on the device ([`Operand`]) are reduced modulo every channel and
//! multiplied (`matmul_on_device`); the product's residues leave as they are
//! ([`matmul_packed`]), or the entries leave as signed binary limbs
//! ([`matmul_limbs`]) or as their decimal text ([`matmul_text`], [`matmul_text_on`]),
//! checked against the redundant channel. Only those cross PCIe back.

use super::matrices::{matmul_per_channel, reduce_packed, DeviceWords, MAX_PRODUCT_CHANNELS};
use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{Digits, Matmul, MrcTables};
use crate::backend::gpu::{Gpu, Packed};
use crate::error::Result;
use crate::num::words::Words;
use crate::timing::Laps;
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::Modulus;
use std::sync::Arc;

/// An operand of the exact product.
#[derive(Clone, Copy)]
pub enum Operand<'a> {
    /// Packed on the host: word-major, or number-major (as by
    /// [`pack_number_major`](super::limbs::pack_number_major)) when the flag is set.
    Host(Packed<'a>, bool),
    /// Already on the device (its words counted by the caller).
    Device(&'a DeviceWords),
}

impl Operand<'_> {
    /// Device words its upload takes.
    fn upload_words(&self) -> usize {
        match self {
            Operand::Host((words, neg, _), number_major) => {
                (1 + *number_major as usize) * words.len() + neg.len()
            }
            Operand::Device(_) => 0,
        }
    }

    /// Its residues modulo the `channels` device moduli `dm`, on `s`.
    fn reduce(
        &self,
        gpu: &Gpu,
        s: &Arc<CudaStream>,
        dm: &CudaSlice<u32>,
        channels: usize,
    ) -> Result<CudaSlice<u32>> {
        match *self {
            Operand::Host(packed, number_major) => {
                reduce_packed(gpu, s, dm, packed, (channels, number_major))
            }
            Operand::Device(w) => w.reduce(gpu, s, dm, channels),
        }
    }
}

/// Reduces `a` and `b` modulo every channel and multiplies them on stream `s`,
/// leaving the product there; `None` when that and `extra` more words do not fit the
/// memory budget or the grid.
pub(super) fn matmul_on_device(
    gpu: &Gpu,
    s: &Arc<CudaStream>,
    moduli: &[Modulus],
    (a, b): (Operand, Operand),
    (n, k, p): (usize, usize, usize),
    extra: usize,
) -> Result<Option<CudaSlice<u32>>> {
    let (channels, np) = (moduli.len(), n * p);
    let words = a.upload_words() + b.upload_words();
    let scratch = launch::matmul_scratch_words(gpu, n, k, p);
    let bytes = 4 * (channels * (n * k + k * p + np + scratch) + words + extra);
    if np == 0 || n * k == 0 || channels > MAX_PRODUCT_CHANNELS || bytes > gpu.budget()? {
        return Ok(None);
    }
    let dm = gpu.upload_on(s, &moduli_words(moduli))?;
    let da = a.reduce(gpu, s, &dm, channels)?;
    let db = b.reduce(gpu, s, &dm, channels)?;
    let mut dprod = gpu.alloc_on(s, channels * np)?;
    launch::launch_matmul(
        gpu,
        s,
        Matmul { n, k, p, channels },
        &mut dprod,
        &da,
        &db,
        &dm,
    )?;
    Ok(Some(dprod))
}

/// The product's residues modulo every one of `moduli` (channel-major, `n·p` per
/// channel) of two integer matrices packed as for [`reduce_words`](super::vectors::reduce_words): reduced and
/// multiplied on the device when they fit, else reduced and multiplied in chunks.
pub fn matmul_packed(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (a, b): (Packed, Packed),
    (n, k, p): (usize, usize, usize),
) -> Result<Words> {
    let streams = gpu.lease_streams(1)?;
    let s = &streams[0];
    let operands = (Operand::Host(a, false), Operand::Host(b, false));
    if let Some(d) = matmul_on_device(gpu, s, moduli, operands, (n, k, p), 0)? {
        return Ok(gpu.download_on(s, &d, moduli.len() * n * p)?.into());
    }
    let ra = super::vectors::reduce_words(gpu, moduli, a.0, a.1, a.1.len(), a.2)?;
    let rb = super::vectors::reduce_words(gpu, moduli, b.0, b.1, b.1.len(), b.2)?;
    matmul_per_channel(gpu, moduli, (n, k, p), &ra, &rb)
}

/// The exact product of two integer matrices on the device: `a` (`n × k`) and `b`
/// (`k × p`), packed as by [`pack_number_major`](super::limbs::pack_number_major), are
/// reduced modulo every channel, multiplied by the batched product kernel, and every
/// entry is converted there to its sign and binary magnitude over the first
/// `K = moduli.len() − 1` (range) channels, checked against the last (redundant) one.
/// Returns the magnitudes (`n·p × nlimbs` 32-bit limbs, number-major, least significant
/// first), the flags (`rns_core::limbs::NEGATIVE`, or `OUT_OF_RANGE` where the check
/// failed) and `nlimbs`. `None` when it does not fit the memory budget or the grid.
pub fn matmul_limbs(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (a, b): (Packed, Packed),
    shape: (usize, usize, usize),
) -> Result<Option<(Words, Vec<u32>, usize)>> {
    let streams = gpu.lease_streams(1)?;
    let operands = (Operand::Host(a, true), Operand::Host(b, true));
    matmul_limbs_on(gpu, &streams[0], moduli, operands, (shape, 0))
}

/// [`matmul_limbs`] on stream `s` of any operands, with `extra` more device words held
/// meanwhile (operands already on the device, say).
pub fn matmul_limbs_on(
    gpu: &Arc<Gpu>,
    s: &Arc<CudaStream>,
    moduli: &[Modulus],
    operands: (Operand, Operand),
    (shape, extra): ((usize, usize, usize), usize),
) -> Result<Option<(Words, Vec<u32>, usize)>> {
    let np = shape.0 * shape.2;
    let Some((limbs, mut scratch, flags, nlimbs)) =
        matmul_limbs_device(gpu, s, moduli, operands, (shape, extra))?
    else {
        return Ok(None);
    };
    // Number-major over the digits' buffer, then straight into page-locked memory when
    // the pool lends it.
    launch::launch_transpose(gpu, s, &mut scratch, &limbs, (nlimbs, np))?;
    let mut out = gpu.result_words(nlimbs * np);
    if out.is_locked() {
        gpu.dtoh(s, &scratch.slice(0..nlimbs * np), &mut out[..])?;
        gpu.sync_stream(s)?;
    } else {
        out = gpu.download_on(s, &scratch, nlimbs * np)?.into();
    }
    Ok(Some((out, flags, nlimbs)))
}

/// The exact product's limbs on the device: the magnitudes' limbs limb-major
/// (`nlimbs × n·p`), a scratch buffer of at least as many words, the flags (on the
/// host) and `nlimbs`.
pub(crate) type ProductLimbs = (CudaSlice<u32>, CudaSlice<u32>, Vec<u32>, usize);

/// The exact product as [`matmul_limbs_on`] makes it, left on the device
/// ([`ProductLimbs`]).
pub(crate) fn matmul_limbs_device(
    gpu: &Arc<Gpu>,
    s: &Arc<CudaStream>,
    moduli: &[Modulus],
    operands: (Operand, Operand),
    (shape, extra): ((usize, usize, usize), usize),
) -> Result<Option<ProductLimbs>> {
    let (channels, np) = (moduli.len(), shape.0 * shape.2);
    let range = channels - 1;
    let extra = extra + range * range + np;
    let Some((mut dprod, digits, t)) = matmul_digits(gpu, s, moduli, operands, shape, extra)?
    else {
        return Ok(None);
    };
    let mut flags = gpu.alloc_on(s, np)?;
    gpu.dtod(s, &dprod.slice(range * np..channels * np), &mut flags)?;
    // The limbs limb-major over the product's range channels (nlimbs ≤ K).
    let nlimbs = t.limbs;
    let tables = (&*t, &moduli[..range]);
    let q = moduli[range];
    launch::launch_digits_limbs(gpu, s, &mut dprod, &mut flags, &digits, tables, q, np)?;
    // A word a number: through page-locked buffers when large.
    let mut host_flags = vec![0u32; np];
    gpu.dtoh_staged(s, (&flags, 0..np), &mut host_flags)?;
    Ok(Some((dprod, digits, host_flags, nlimbs)))
}

/// The exact product as [`matmul_limbs`] computes it, given out as its decimal text
/// made on the device ([`super::decimal`]): `prefix`, then the `n × p` entries, a row a
/// line. `None` when the entries are too long for the device's text
/// ([`super::decimal::TEXT_MAX_CHUNKS`]) or it does not fit the memory budget or the
/// grid; [`crate::Error::OutOfRange`] (with `range_bits`) for an entry that failed the
/// check.
pub fn matmul_text(
    gpu: &Arc<Gpu>,
    moduli: &[Modulus],
    (a, b): (Packed, Packed),
    shape: (usize, usize, usize),
    text: (&str, u64),
    laps: &mut Laps,
) -> Result<Option<String>> {
    let streams = gpu.lease_streams(1)?;
    let operands = (Operand::Host(a, true), Operand::Host(b, true));
    matmul_text_on(gpu, &streams[0], moduli, operands, shape, (0, text), laps)
}

/// [`matmul_text`] on stream `s` of any operands, with `extra` more device words held
/// meanwhile (operands already on the device, say); its stages timed in `laps`.
pub fn matmul_text_on(
    gpu: &Arc<Gpu>,
    s: &Arc<CudaStream>,
    moduli: &[Modulus],
    operands: (Operand, Operand),
    shape: (usize, usize, usize),
    (extra, (prefix, range_bits)): (usize, (&str, u64)),
    laps: &mut Laps,
) -> Result<Option<String>> {
    let (channels, np) = (moduli.len(), shape.0 * shape.2);
    let range = channels - 1;
    let t = super::tables::mrc_tables(gpu, &moduli[..range])?;
    let Some(nchunks) = super::decimal::text_chunks(&t) else {
        return Ok(None);
    };
    if np > u32::MAX as usize {
        return Ok(None);
    }
    let extra = extra + range * range + np + super::decimal::text_words(np, nchunks);
    let Some((dprod, digits, t)) = matmul_digits(gpu, s, moduli, operands, shape, extra)? else {
        return Ok(None);
    };
    let mut flags = gpu.alloc_on(s, np)?;
    gpu.dtod(s, &dprod.slice(range * np..channels * np), &mut flags)?;
    drop(dprod);
    gpu.sync_stream(s)?;
    laps.lap("product and mixed-radix digits on the device");
    let tables = (&*t, &moduli[..range], moduli[range]);
    let text = super::decimal::text_of_digits(
        gpu,
        s,
        &digits,
        &mut flags,
        tables,
        (np, shape.2),
        (prefix, range_bits),
        laps,
    )?;
    Ok(Some(text))
}

/// The product of [`matmul_on_device`] and its mixed-radix digits over the range
/// channels (all but the last of `moduli`) on stream `s`, with the tables; `None` when
/// they and `extra` more words do not fit.
#[allow(clippy::type_complexity)]
fn matmul_digits(
    gpu: &Arc<Gpu>,
    s: &Arc<CudaStream>,
    moduli: &[Modulus],
    operands: (Operand, Operand),
    shape: (usize, usize, usize),
    extra: usize,
) -> Result<Option<(CudaSlice<u32>, CudaSlice<u32>, Arc<MrcTables>)>> {
    let (channels, np) = (moduli.len(), shape.0 * shape.2);
    let range = channels - 1;
    let extra = extra + range * np;
    let Some(dprod) = matmul_on_device(gpu, s, moduli, operands, shape, extra)? else {
        return Ok(None);
    };
    let t = super::tables::mrc_tables(gpu, &moduli[..range])?;
    let mut digits = gpu.alloc_on(s, range * np)?;
    let shape = Digits { len: np, k: range };
    launch::launch_digits(
        gpu,
        s,
        shape,
        &mut digits,
        &dprod,
        None,
        &t.moduli,
        &t.table,
    )?;
    Ok(Some((dprod, digits, t)))
}
