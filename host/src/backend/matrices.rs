//! The batched computations modulo every channel behind the matrix library:
//! determinants, eliminations and products, on either backend, from residues or
//! straight from integers, split by channels across MPI ranks and GPUs.

use super::exact_product::{matmul_integers_rows, product_on_gpu};
use super::gpu::ops::Operand;
use super::gpu::{ops, Packed};
use super::input::check_range;
use super::plan::{Channels, Plan};
use super::{cpu, Backend};
use crate::error::{Error, Result};
use crate::mat::matrix::{require_square, IntMatrix};
use crate::mat::modmat::ModMatrices;
use crate::num::basis::RnsBasis;
use crate::num::decimal::Located;
use crate::num::layout::columns_from;
use crate::num::pack::pack_words;
use crate::num::vector::{self, RnsVec};
use crate::num::words::{Words, WordsRef};
use crate::num::{crt, crt_decimal};
use crate::timing::Laps;
use rns_core::linalg::Elimination;
use rns_core::Modulus;
use rug::Integer;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// Residue words of an integer matrix's images held on the host at once: the primes of
/// [`Backend::charpoly_integers`] go to the backend in groups of about this many words.
const HOST_GROUP_WORDS: usize = 1 << 26;

impl Backend {
    /// The determinant of the `n × n` matrix held in each channel: `matrices` holds
    /// `n²` numbers (a row-major matrix), and the result has one residue per channel.
    /// On the GPU, blocked LU (`launch_det`: the fused `rns_det_blocked`, or
    /// the trailing updates on the tensor cores); on the CPU, [`rns_core::linalg::eliminate`].
    pub fn det_per_channel(&self, matrices: &RnsVec, n: usize) -> Result<Vec<u32>> {
        if matrices.len() != n * n {
            return Err(Error::Shape(format!(
                "{} numbers do not form a {n}×{n} matrix",
                matrices.len()
            )));
        }
        let (moduli, data, nn) = (matrices.basis().moduli(), matrices.residues(), n * n);
        let job = Channels::new(moduli.len(), 1, data.len());
        let part = |r: &Range<usize>| (&moduli[r.clone()], &data[r.start * nn..r.end * nn]);
        let dets = self.per_channel(
            job,
            &|r| {
                let (mods, part) = part(&r);
                Ok(cpu_dets(mods, n, part.to_vec()))
            },
            &|g, r| {
                let (mods, part) = part(&r);
                Ok(ops::det_per_channel(g, mods, n, part)?.into())
            },
        )?;
        Ok(dets.into_vec())
    }

    /// The determinant modulo every channel of `basis` of the `n × n` integer matrix
    /// `entries` (row-major). On the GPU the entries are reduced on the device and the
    /// residues never cross PCIe (in chunks when they do not fit).
    pub fn det_integers(
        &self,
        basis: &Arc<RnsBasis>,
        entries: &[Integer],
        n: usize,
    ) -> Result<Vec<u32>> {
        if entries.len() != n * n {
            return Err(Error::Shape(format!(
                "{} entries do not form a {n}×{n} matrix",
                entries.len()
            )));
        }
        check_range(basis, entries)?;
        let job = Channels::new(basis.channels(), 1, entries.len() * basis.channels());
        let packed = Packing::new(entries);
        let dets = self.per_channel(
            job,
            &|r| {
                let mods = &basis.moduli()[r];
                Ok(cpu_dets(mods, n, vector::residues_of(entries, mods)?))
            },
            &|g, r| ops::det_packed(g, &basis.moduli()[r], packed.get(), n),
        )?;
        Ok(dets.into_vec())
    }

    /// Gaussian elimination ([`rns_core::linalg::eliminate`]) of one `rows × cols`
    /// row-major matrix per modulus, pivoting on the first `pivot_cols` columns
    /// (`shape = (rows, cols, pivot_cols)`): forward, or to the reduced echelon form when
    /// `jordan`. `data` holds the matrices one after another; it is overwritten with the
    /// result when `keep` is set (and left unspecified otherwise). Returns the rank and
    /// the determinant of the pivot columns per modulus.
    pub fn eliminate_per_channel(
        &self,
        moduli: &[Modulus],
        shape: (usize, usize, usize),
        jordan: bool,
        data: &mut [u32],
        keep: bool,
    ) -> Result<Vec<Elimination>> {
        let (rows, cols, pivot_cols) = shape;
        if data.len() != moduli.len() * rows * cols || pivot_cols > cols {
            return Err(Error::Shape(format!(
                "{} residues do not form {} matrices of {rows}×{cols} (pivoting on {pivot_cols} columns)",
                data.len(),
                moduli.len()
            )));
        }
        let job = Channels::new(moduli.len(), 2, data.len());
        let out = self.per_channel_mut(
            job,
            (data, rows * cols, keep),
            &|r, part| {
                let mods = &moduli[r];
                let e = cpu::eliminate_per_channel(mods, rows, cols, pivot_cols, jordan, part);
                Ok(pack_eliminations(&e))
            },
            &|g, r, part| {
                let mods = &moduli[r];
                let e = ops::eliminate_per_channel(
                    g, mods, rows, cols, pivot_cols, jordan, part, keep,
                )?;
                Ok(pack_eliminations(&e))
            },
        )?;
        Ok(unpack_eliminations(&out))
    }

    /// Reduces the entries of an integer matrix modulo every channel of `basis` and runs
    /// [`Backend::eliminate_per_channel`] on the images (`shape = (rows, cols,
    /// pivot_cols)`, `entries` row-major). On the GPU both happen on the device and the
    /// residues never cross PCIe. Returns the rank and determinant per channel and, with
    /// `keep = Some(from)`, the columns `from..cols` of the eliminated matrices (one
    /// `rows × (cols − from)` block per channel, one after another; else empty): a solve
    /// needs only its right-hand sides, and on the GPU only those cross PCIe back.
    pub fn eliminate_integers(
        &self,
        basis: &Arc<RnsBasis>,
        entries: &[Integer],
        shape: (usize, usize, usize),
        jordan: bool,
        keep: Option<usize>,
    ) -> Result<(Vec<Elimination>, Vec<u32>)> {
        let (rows, cols, pivot_cols) = shape;
        if entries.len() != rows * cols {
            return Err(Error::Shape(format!(
                "{} entries do not form a {rows}×{cols} matrix",
                entries.len()
            )));
        }
        if keep.is_some_and(|from| from > cols) {
            return Err(Error::Shape(format!(
                "columns from {keep:?} of a {rows}×{cols} matrix"
            )));
        }
        check_range(basis, entries)?;
        // Words kept per channel.
        let kept = keep.map_or(0, |from| rows * (cols - from));
        let mut data = vec![0u32; basis.channels() * kept];
        let job = Channels::new(basis.channels(), 2, entries.len() * basis.channels());
        let packed = Packing::new(entries);
        let out = self.per_channel_mut(
            job,
            (&mut data, kept, true),
            &|r, out| {
                let mods = &basis.moduli()[r];
                let mut d = vector::residues_of(entries, mods)?;
                let e = cpu::eliminate_per_channel(mods, rows, cols, pivot_cols, jordan, &mut d);
                if let Some(from) = keep {
                    out.copy_from_slice(&columns_from(d, cols, from));
                }
                Ok(pack_eliminations(&e))
            },
            &|g, r, out| {
                let (mods, into) = (&basis.moduli()[r], keep.is_some().then_some(out));
                let (e, _) =
                    ops::eliminate_packed(g, mods, packed.get(), shape, jordan, keep, into)?;
                Ok(pack_eliminations(&e))
            },
        )?;
        Ok((unpack_eliminations(&out), data))
    }

    /// The characteristic polynomial of the square integer matrix `a` modulo each of
    /// `primes`: `n + 1` coefficients a prime, constant first, prime after prime. On a
    /// GPU from order `ops::CHARPOLY_GRID_FROM` the entries are reduced on the device and
    /// every prime's Hessenberg form and recurrence run by whole-grid launches
    /// (`ops::charpoly_packed`): the residues never cross PCIe. Else the images, in
    /// groups of about `HOST_GROUP_WORDS` words, go to [`Backend::charpoly_mod`].
    pub fn charpoly_integers(&self, a: &IntMatrix, primes: &[u32]) -> Result<Vec<u32>> {
        let n = require_square(a.rows(), a.cols(), "the characteristic polynomial")?;
        if n >= ops::CHARPOLY_GRID_FROM {
            if let Some(g) = self.device_for(primes.len().saturating_mul(n * n)) {
                let moduli = primes
                    .iter()
                    .map(|&p| Modulus::new(p).map_err(Error::from))
                    .collect::<Result<Vec<_>>>()?;
                let packing = Packing::new(a.entries());
                if let Some(out) = ops::charpoly_packed(g, &moduli, packing.get(), n)? {
                    return Ok(out);
                }
            }
        }
        let group = (HOST_GROUP_WORDS / (n * n).max(1)).max(1);
        let mut out = Vec::with_capacity(primes.len() * (n + 1));
        for chunk in primes.chunks(group) {
            out.extend(self.charpoly_mod(&ModMatrices::from_int_matrix(a, chunk)?)?);
        }
        Ok(out)
    }

    /// The exact product of two integer matrices (`a` `n × k`, `b` `k × p`, row-major),
    /// every entry of which must lie in the signed range of `basis`, as must every entry
    /// of the product: reduced, multiplied modulo every channel and reconstructed,
    /// checked against the redundant channel ([`Error::OutOfRange`] when an entry left
    /// the range). On the GPU all of it but the final assembly of the integers runs on
    /// the device, and only the mixed-radix digits come back.
    pub fn matmul_integers(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        (n, k, p): (usize, usize, usize),
    ) -> Result<Vec<Integer>> {
        if a.len() != n * k || b.len() != k * p {
            return Err(Error::Shape(format!(
                "{} and {} entries do not form {n}×{k} and {k}×{p} matrices",
                a.len(),
                b.len()
            )));
        }
        match self.plan(basis.channels() * n * p) {
            Plan::Devices(gpus) => return matmul_integers_rows(gpus, basis, a, b, (n, k, p)),
            Plan::Ranks => return self.matmul_integers_ranks(basis, a, b, (n, k, p)),
            Plan::Gpu(g) => {
                check_range(basis, a)?;
                check_range(basis, b)?;
                let pb = ops::pack_number_major(g, b);
                if let Some(values) = product_on_gpu(g, basis, a, &pb, (n, k, p))? {
                    return Ok(values);
                }
            }
            Plan::Cpu => {}
        }
        let prod = self.product_residues(basis, a, b, (n, k, p))?;
        self.to_integers_checked(&RnsVec::from_residues_unchecked(basis, n * p, prod))
    }

    /// [`Backend::matmul_integers`] given out as text: `prefix`, then the `n × p`
    /// entries in decimal, a row a line (the text format of [`crate::IntMatrix`]), no
    /// integer of the product built: made on the device when one GPU computes the
    /// product and it fits there, or on the CPU from the residues ([`crt_decimal`]) when
    /// the CRT's weights serve; `None` otherwise (the caller formats
    /// [`Backend::matmul_integers`]' integers). Its stages are timed in `laps`.
    pub fn matmul_integers_text(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        (n, k, p): (usize, usize, usize),
        prefix: &str,
        laps: &mut Laps,
    ) -> Result<Option<String>> {
        if a.len() != n * k || b.len() != k * p || n * p == 0 {
            return Ok(None);
        }
        let weights = crt::default_method(basis.range_len(), n * p) == crt::CrtMethod::Weights;
        match self.plan(basis.channels() * n * p) {
            Plan::Gpu(g) => {
                check_range(basis, a)?;
                check_range(basis, b)?;
                let (pa, pb) = (ops::pack_number_major(g, a), ops::pack_number_major(g, b));
                let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
                let text = (prefix, basis.range_bits());
                ops::matmul_text(g, basis.moduli(), packed, (n, k, p), text, laps)
            }
            Plan::Cpu if weights => {
                let prod = self.product_residues(basis, a, b, (n, k, p))?;
                laps.lap("product modulo the primes");
                let text = crt_decimal::matrix_text(basis, &prod, (n * p, p), prefix)?;
                laps.lap("decimal text from the residues");
                Ok(Some(text))
            }
            _ => Ok(None),
        }
    }

    /// The residues of the exact product modulo every channel of `basis` (channel-major),
    /// from the entries reduced by this backend; the entries are checked against the
    /// range first.
    fn product_residues(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        shape: (usize, usize, usize),
    ) -> Result<Words> {
        let (ra, rb) = (self.to_rns(basis, a)?, self.to_rns(basis, b)?);
        self.matmul_per_channel(basis.moduli(), shape, ra.residues(), rb.residues())
    }

    /// [`Backend::matmul_integers_text`] of two matrices still in their text (`a`
    /// `n × k`, `b` `k × p`, each entry at its [`Span`](crate::num::decimal::Span), of
    /// at most `digits.0` and `digits.1` digits), over the basis
    /// `basis_for(bits of A, bits of B)` (the most bits of an entry of each): on one GPU
    /// the digits become words there, and no integer is built on the host. `None` where
    /// that does not run (not one GPU, entries too long for the device's reader, or not
    /// fitting it): the caller converts the entries. The device's stages are timed in
    /// `laps`.
    pub fn matmul_text_of_spans(
        &self,
        (a, b): (Located, Located),
        (n, k, p): (usize, usize, usize),
        digits: (u64, u64),
        basis_for: impl FnOnce(u64, u64) -> Arc<RnsBasis>,
        prefix: &str,
        laps: &mut Laps,
    ) -> Result<Option<String>> {
        use crate::backend::gpu::ops::decimal::{text_in_words, words_for_digits, words_of_text};
        if a.1.len() != n * k || b.1.len() != k * p || n * p == 0 {
            return Ok(None);
        }
        let (Some(wa), Some(wb)) = (words_for_digits(digits.0), words_for_digits(digits.1)) else {
            return Ok(None);
        };
        // The channels' count from the words: the plan needs only its size.
        let channels = 32 * (wa + wb) / 31 + 2;
        let Plan::Gpu(g) = self.plan(channels * n * p) else {
            return Ok(None);
        };
        let held = text_in_words(a.0.len(), n * k, wa) + text_in_words(b.0.len(), k * p, wb);
        if 4 * held > g.budget()? {
            return Ok(None);
        }
        let streams = g.lease_streams(1)?;
        let s = &streams[0];
        let (da, bits_a) = words_of_text(g, s, a, wa, laps)?;
        let (db, bits_b) = words_of_text(g, s, b, wb, laps)?;
        let basis = basis_for(bits_a, bits_b);
        let extra = (da.nwords + 1) * da.len + (db.nwords + 1) * db.len;
        let operands = (Operand::Device(&da), Operand::Device(&db));
        let text = (extra, (prefix, basis.range_bits()));
        ops::matmul_text_on(g, s, basis.moduli(), operands, (n, k, p), text, laps)
    }

    /// [`Backend::matmul_integers`] with its channels split across MPI ranks (and each
    /// rank's devices):
    /// each share reduced and multiplied where it runs, the product's residues gathered
    /// and reconstructed (the digits on the first GPU, when there is one).
    pub(super) fn matmul_integers_split(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        (n, k, p): (usize, usize, usize),
    ) -> Result<Vec<Integer>> {
        check_range(basis, a)?;
        check_range(basis, b)?;
        let job = Channels::new(basis.channels(), n * p, basis.channels() * n * p);
        let (pa, pb) = (Packing::new(a), Packing::new(b));
        let prod = self.per_channel(
            job,
            &|r| {
                let mods = &basis.moduli()[r];
                let (ra, rb) = (vector::residues_of(a, mods)?, vector::residues_of(b, mods)?);
                Ok(cpu::matmul_per_channel(mods, n, k, p, &ra, &rb).into())
            },
            &|g, r| ops::matmul_packed(g, &basis.moduli()[r], (pa.get(), pb.get()), (n, k, p)),
        )?;
        let prod = RnsVec::from_residues_unchecked(basis, n * p, prod);
        self.to_integers_checked(&prod)
    }

    /// `a · b` modulo each modulus for one `n × k` matrix `a` and one `k × p` matrix `b`
    /// per modulus (`shape = (n, k, p)`, row-major, one matrix after another): the
    /// `n × p` products, one after another. Delayed reduction on both backends.
    /// The result is page-locked memory from the GPU's pool when the GPU computed a
    /// large one (it reads as a `[u32]` either way).
    pub fn matmul_per_channel<'a>(
        &self,
        moduli: &[Modulus],
        shape: (usize, usize, usize),
        a: impl Into<WordsRef<'a>>,
        b: impl Into<WordsRef<'a>>,
    ) -> Result<Words> {
        let (n, k, p) = shape;
        let c = moduli.len();
        let (a, b) = (a.into(), b.into());
        if a.data.len() != c * n * k || b.data.len() != c * k * p {
            return Err(Error::Shape(format!(
                "{} and {} residues do not form {c} products of {n}×{k} by {k}×{p}",
                a.data.len(),
                b.data.len()
            )));
        }
        let (nk, kp) = (n * k, k * p);
        let part = |w: WordsRef<'a>, per: usize, r: &Range<usize>| WordsRef {
            data: &w.data[r.start * per..r.end * per],
            locked: w.locked,
        };
        let job = Channels::new(c, n * p, c * n * p);
        self.per_channel(
            job,
            &|r| {
                let (a, b) = (part(a, nk, &r), part(b, kp, &r));
                Ok(cpu::matmul_per_channel(&moduli[r], n, k, p, a.data, b.data).into())
            },
            &|g, r| {
                let (a, b) = (part(a, nk, &r), part(b, kp, &r));
                ops::matmul_per_channel(g, &moduli[r], shape, a, b)
            },
        )
    }
}

/// The determinant modulo each of `moduli` of the `n × n` matrices in `data` (one per
/// channel), by elimination on the CPU.
fn cpu_dets(moduli: &[Modulus], n: usize, mut data: Vec<u32>) -> Words {
    let e = cpu::eliminate_per_channel(moduli, n, n, n, false, &mut data);
    e.into_iter().map(|e| e.det).collect()
}

/// Eliminations packed per channel as `[rank, det]`, so that shares of channels
/// concatenate.
fn pack_eliminations(e: &[Elimination]) -> Words {
    e.iter()
        .flat_map(|x| [x.rank, x.det])
        .collect::<Vec<u32>>()
        .into()
}

/// The eliminations of [`pack_eliminations`]' words.
fn unpack_eliminations(words: &[u32]) -> Vec<Elimination> {
    words
        .chunks_exact(2)
        .map(|w| Elimination {
            rank: w[0],
            det: w[1],
        })
        .collect()
}

/// Integers packed for the device ([`pack_words`]) once, by the first device share that
/// needs them (never when no share runs on a GPU).
pub(crate) struct Packing<'a> {
    values: &'a [Integer],
    packed: OnceLock<(Vec<u32>, Vec<u32>, usize)>,
}

impl<'a> Packing<'a> {
    /// `values`, to be packed on first use.
    pub(crate) fn new(values: &'a [Integer]) -> Packing<'a> {
        Packing {
            values,
            packed: OnceLock::new(),
        }
    }

    /// The packed words, sign flags and words per integer.
    pub(crate) fn get(&self) -> Packed<'_> {
        let (w, neg, nw) = crate::lazy::get_or_build(&self.packed, || pack_words(self.values));
        (w, neg, *nw)
    }
}
