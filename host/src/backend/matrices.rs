//! The batched computations modulo every channel behind the matrix library:
//! determinants, eliminations and products, on either backend, from residues or
//! straight from integers, split by channels across MPI ranks and GPUs.

use super::gpu::Gpu;
use super::input::{check_range, pack_words};
use super::{cpu, split, Backend};
use crate::backend::gpu::ops;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::vector::{self, RnsVec};
use crate::num::words::{Words, WordsRef};
use rns_core::linalg::Elimination;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

impl Backend {
    /// The determinant of the `n × n` matrix held in each channel: `matrices` holds
    /// `n²` numbers (a row-major matrix), and the result has one residue per channel.
    /// On the GPU, blocked LU ([`super::Gpu::launch_det`]: the fused `rns_det_blocked`, or
    /// the trailing updates on the tensor cores); on the CPU, [`rns_core::linalg::eliminate`].
    pub fn det_per_channel(&self, matrices: &RnsVec, n: usize) -> Result<Vec<u32>> {
        if matrices.len() != n * n {
            return Err(Error::Shape(format!(
                "{} numbers do not form a {n}×{n} matrix",
                matrices.len()
            )));
        }
        let (moduli, data, nn) = (matrices.basis().moduli(), matrices.residues(), n * n);
        let dets = self.by_channels(moduli.len(), 1, data.len(), &|be, r| {
            let (mods, part) = (&moduli[r.clone()], &data[r.start * nn..r.end * nn]);
            match be.gpu_for(part.len()) {
                Some(g) => Ok(ops::det_per_channel(g, mods, n, part)?.into()),
                None => Ok(cpu_dets(mods, n, part.to_vec())),
            }
        })?;
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
        let work = entries.len() * basis.channels();
        let packed = self.gpu_for(work).map(|_| pack_words(entries));
        let dets = self.by_channels(basis.channels(), 1, work, &|be, r| {
            let mods = &basis.moduli()[r];
            match (be.gpu_for(entries.len() * mods.len()), &packed) {
                (Some(g), Some((w, neg, nw))) => ops::det_packed(g, mods, (w, neg, *nw), n),
                _ => Ok(cpu_dets(mods, n, vector::residues_of(entries, mods))),
            }
        })?;
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
        let run = |be: &Backend, mods: &[Modulus], part: &mut [u32]| match be.gpu_for(part.len()) {
            Some(g) => {
                ops::eliminate_per_channel(g, mods, rows, cols, pivot_cols, jordan, part, keep)
            }
            None => Ok(cpu::eliminate_per_channel(
                mods, rows, cols, pivot_cols, jordan, part,
            )),
        };
        if self.split_count(data.len()) == 1 {
            return run(self, moduli, data);
        }
        let size = rows * cols;
        if let Some(gpus) = self.several_gpus(data.len()) {
            // In place: each device eliminates its channels' matrices.
            let parts = split::per_device_mut(gpus, moduli.len(), size, data, &|one, r, part| {
                run(one, &moduli[r], part)
            })?;
            return Ok(parts.concat());
        }
        let src = &*data;
        let out = self.by_channels(
            moduli.len(),
            per_elimination(size, keep),
            src.len(),
            &|be, r| {
                let mut part = src[r.start * size..r.end * size].to_vec();
                let e = run(be, &moduli[r], &mut part)?;
                Ok(pack_eliminations(&e, keep.then_some(&part[..]), size))
            },
        )?;
        Ok(unpack_eliminations(&out, size, keep.then_some(data)))
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
        let (work, size) = (entries.len() * basis.channels(), rows * cols);
        // Words kept per channel.
        let kept = keep.map_or(0, |from| rows * (cols - from));
        let packed = self.gpu_for(work).map(|_| pack_words(entries));
        let run = |be: &Backend, mods: &[Modulus]| match (be.gpu_for(size * mods.len()), &packed) {
            (Some(g), Some((w, neg, nw))) => {
                ops::eliminate_packed(g, mods, (w, neg, *nw), shape, jordan, keep, None)
            }
            _ => {
                let mut data = vector::residues_of(entries, mods);
                let e = cpu::eliminate_per_channel(mods, rows, cols, pivot_cols, jordan, &mut data);
                let data = keep.map_or_else(Vec::new, |from| columns_from(data, cols, from));
                Ok((e, data))
            }
        };
        if self.split_count(work) == 1 {
            return run(self, basis.moduli());
        }
        if let Some(gpus) = self.several_gpus(work) {
            let mut data = vec![0u32; basis.channels() * kept];
            let parts =
                split::per_device_mut(gpus, basis.channels(), kept, &mut data, &|one, r, out| {
                    // Each device's matrices come straight into their place.
                    let mods = &basis.moduli()[r];
                    match (one.gpu(), &packed) {
                        (Some(g), Some((w, neg, nw))) => {
                            let packed = (&w[..], &neg[..], *nw);
                            let into = keep.is_some().then_some(out);
                            Ok(
                                ops::eliminate_packed(g, mods, packed, shape, jordan, keep, into)?
                                    .0,
                            )
                        }
                        _ => Err(Error::Internal("a device's share without its GPU".into())),
                    }
                })?;
            return Ok((parts.concat(), data));
        }
        let out = self.by_channels(
            basis.channels(),
            per_elimination(kept, keep.is_some()),
            work,
            &|be, r| {
                let (e, data) = run(be, &basis.moduli()[r])?;
                Ok(pack_eliminations(&e, keep.map(|_| &data[..]), kept))
            },
        )?;
        let mut data = vec![0u32; basis.channels() * kept];
        let e = unpack_eliminations(&out, kept, keep.map(|_| &mut data[..]));
        Ok((e, data))
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
        let work = basis.channels() * n * p;
        if let Some(gpus) = self.several_gpus(work) {
            return matmul_integers_rows(gpus, basis, a, b, (n, k, p));
        }
        if self.split_count(work) > 1 {
            return self.matmul_integers_split(basis, a, b, (n, k, p));
        }
        if let Some(g) = self.gpu_for(work) {
            check_range(basis, a)?;
            check_range(basis, b)?;
            let (pa, pb) = (ops::pack_number_major(g, a), ops::pack_number_major(g, b));
            let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
            if let Some((limbs, flags, nl)) =
                ops::matmul_limbs(g, basis.moduli(), packed, (n, k, p))?
            {
                return crt::from_signed_limbs(&limbs, &flags, nl, basis.range_bits());
            }
        }
        let (ra, rb) = (self.to_rns(basis, a)?, self.to_rns(basis, b)?);
        let prod =
            self.matmul_per_channel(basis.moduli(), (n, k, p), ra.residues(), rb.residues())?;
        self.to_integers_checked(&RnsVec::from_residues_unchecked(basis, n * p, prod))
    }

    /// [`Backend::matmul_integers`] with its channels split across MPI ranks (and each
    /// rank's devices):
    /// each share reduced and multiplied where it runs, the product's residues gathered
    /// and reconstructed (the digits on the first GPU, when there is one).
    fn matmul_integers_split(
        &self,
        basis: &Arc<RnsBasis>,
        a: &[Integer],
        b: &[Integer],
        (n, k, p): (usize, usize, usize),
    ) -> Result<Vec<Integer>> {
        check_range(basis, a)?;
        check_range(basis, b)?;
        let work = basis.channels() * n * p;
        let packed = self.gpu_for(work).map(|_| (pack_words(a), pack_words(b)));
        let prod = self.by_channels(basis.channels(), n * p, work, &|be, r| {
            let mods = &basis.moduli()[r];
            match (be.gpu_for(mods.len() * n * p), &packed) {
                (Some(g), Some((pa, pb))) => {
                    let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
                    ops::matmul_packed(g, mods, packed, (n, k, p))
                }
                _ => {
                    let (ra, rb) = (vector::residues_of(a, mods), vector::residues_of(b, mods));
                    Ok(cpu::matmul_per_channel(mods, n, k, p, &ra, &rb).into())
                }
            }
        })?;
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
        self.by_channels(c, n * p, c * n * p, &|be, r| {
            let mods = &moduli[r.clone()];
            let part = |w: WordsRef<'a>, per: usize| WordsRef {
                data: &w.data[r.start * per..r.end * per],
                locked: w.locked,
            };
            let (a, b) = (part(a, nk), part(b, kp));
            match be.gpu_for(mods.len() * n * p) {
                Some(g) => ops::matmul_per_channel(g, mods, shape, a, b),
                None => Ok(cpu::matmul_per_channel(mods, n, k, p, a.data, b.data).into()),
            }
        })
    }
}

/// The determinant modulo each of `moduli` of the `n × n` matrices in `data` (one per
/// channel), by elimination on the CPU.
fn cpu_dets(moduli: &[Modulus], n: usize, mut data: Vec<u32>) -> Words {
    let e = cpu::eliminate_per_channel(moduli, n, n, n, false, &mut data);
    e.into_iter().map(|e| e.det).collect()
}

/// The columns `from..cols` of every row of the row-major `data` (`cols` words per row).
pub(crate) fn columns_from(data: Vec<u32>, cols: usize, from: usize) -> Vec<u32> {
    if from == 0 {
        return data;
    }
    data.chunks_exact(cols.max(1))
        .flat_map(|row| &row[from..])
        .copied()
        .collect()
}

/// Words per channel of a packed elimination: rank, determinant and, with `keep`, the
/// eliminated matrix of `size` words.
fn per_elimination(size: usize, keep: bool) -> usize {
    2 + if keep { size } else { 0 }
}

/// Eliminations (and, when given, their matrices of `size` words each) packed per channel
/// as `[rank, det, matrix…]`, so that shares of channels concatenate.
fn pack_eliminations(e: &[Elimination], mats: Option<&[u32]>, size: usize) -> Words {
    let per = per_elimination(size, mats.is_some());
    let mut out = Vec::with_capacity(e.len() * per);
    for (c, x) in e.iter().enumerate() {
        out.extend([x.rank, x.det]);
        if let Some(m) = mats {
            out.extend_from_slice(&m[c * size..(c + 1) * size]);
        }
    }
    out.into()
}

/// The eliminations of [`pack_eliminations`]' words, their matrices written to `mats`.
fn unpack_eliminations(
    words: &[u32],
    size: usize,
    mut mats: Option<&mut [u32]>,
) -> Vec<Elimination> {
    let per = per_elimination(size, mats.is_some());
    words
        .chunks_exact(per)
        .enumerate()
        .map(|(c, w)| {
            if let Some(m) = mats.as_deref_mut() {
                m[c * size..(c + 1) * size].copy_from_slice(&w[2..]);
            }
            Elimination {
                rank: w[0],
                det: w[1],
            }
        })
        .collect()
}

/// [`Backend::matmul_integers`] on several GPUs of this process, split by rows of `a`:
/// each device reduces, multiplies and computes the digits of its rows' entries, so that
/// no residues cross between devices, and the host assembles each part as it comes.
fn matmul_integers_rows(
    gpus: &[Arc<Gpu>],
    basis: &Arc<RnsBasis>,
    a: &[Integer],
    b: &[Integer],
    (n, k, p): (usize, usize, usize),
) -> Result<Vec<Integer>> {
    check_range(basis, a)?;
    check_range(basis, b)?;
    let parts = split::per_device(gpus, n, &|one, r| {
        let rows = &a[r.start * k..r.end * k];
        one.matmul_integers(basis, rows, b, (r.len(), k, p))
            .map_err(|e| match e {
                Error::OutOfRange { index, range_bits } => Error::OutOfRange {
                    index: index + r.start * p,
                    range_bits,
                },
                e => e,
            })
    })?;
    Ok(parts.into_iter().flatten().collect())
}
