//! One API over two backends: the CPU (rayon) and the GPU (CUDA, Rust kernels).
//!
//! Every method validates its operands (same basis, same length) and returns the
//! same residues, bit for bit, whichever backend runs it.

pub mod cpu;
pub mod gpu;
pub mod op;

pub use gpu::{EqualKernel, Gpu};
pub use op::Op;

use crate::basis::RnsBasis;
use crate::error::{Error, Result};
use crate::layout;
use crate::resident::assemble;
use crate::timing::Laps;
use crate::vector::{self, residue, RnsVec};
use crate::words::{Words, WordsRef};
use rayon::prelude::*;
use rns_core::launch::NUMBERS_PER_BLOCK;
use rns_core::linalg::Elimination;
use rns_core::poly::BiShape;
use rns_core::Modulus;
use rug::Integer;
use std::cmp::Ordering;
use std::sync::Arc;

/// Residues a backend computed (channel-major) and, when the GPU had them on the
/// device, their mixed-radix digits over the range channels (number-major), for
/// [`Backend::reconstruct_computed`].
#[derive(Debug)]
pub struct Computed {
    /// The residues.
    pub residues: Words,
    /// The digits, when computed.
    pub digits: Option<Vec<u32>>,
}

/// Which backend the caller asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The CPU backend.
    Cpu,
    /// The GPU backend; an error if no CUDA device is usable.
    Gpu,
    /// The GPU when one is usable, else the CPU.
    #[default]
    Auto,
}

/// Residues (numbers × channels) below which the automatic choice stays on the CPU.
pub const AUTO_MIN_WORK: usize = 1 << 16;

/// An execution backend.
#[derive(Clone, Debug)]
pub enum Backend {
    /// All cores of this machine through rayon.
    Cpu,
    /// A CUDA GPU. Operations with fewer than `min_work` residues run on the CPU
    /// instead (0 for an explicit GPU choice, [`AUTO_MIN_WORK`] for the automatic one).
    Gpu {
        /// The device.
        gpu: Arc<Gpu>,
        /// Smallest amount of work sent to the GPU.
        min_work: usize,
    },
}

impl Backend {
    /// The backend for a choice: `Gpu` fails with [`Error::NoGpu`] when no device is
    /// usable; `Auto` takes the GPU when one is usable (for work of at least
    /// [`AUTO_MIN_WORK`] residues), else the CPU.
    pub fn select(choice: BackendChoice) -> Result<Backend> {
        match choice {
            BackendChoice::Cpu => Ok(Backend::Cpu),
            BackendChoice::Gpu => Ok(Backend::Gpu {
                gpu: Gpu::get()?,
                min_work: 0,
            }),
            BackendChoice::Auto => Ok(match Gpu::get() {
                Ok(gpu) => Backend::Gpu {
                    gpu,
                    min_work: AUTO_MIN_WORK,
                },
                Err(_) => Backend::Cpu,
            }),
        }
    }

    /// A short name: `cpu` or `gpu`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu { .. } => "gpu",
        }
    }

    /// The GPU, when this backend sends `work` residues of work to one.
    fn gpu_for(&self, work: usize) -> Option<&Arc<Gpu>> {
        match self {
            Backend::Gpu { gpu, min_work } if work >= *min_work => Some(gpu),
            _ => None,
        }
    }

    /// The GPU of this backend, if it has one.
    pub fn gpu(&self) -> Option<&Arc<Gpu>> {
        match self {
            Backend::Gpu { gpu, .. } => Some(gpu),
            Backend::Cpu => None,
        }
    }

    fn check(inputs: &[&RnsVec]) -> Result<(Arc<RnsBasis>, usize)> {
        let first = inputs[0];
        for x in &inputs[1..] {
            check_pair(first.basis(), first.len(), x.basis(), x.len())?;
        }
        Ok((first.basis().clone(), first.len()))
    }

    /// Applies an elementwise operation; `inputs.len()` must be `op.arity()` and
    /// `scalar` is required exactly for the scalar operations.
    pub fn elementwise(
        &self,
        op: Op,
        inputs: &[&RnsVec],
        scalar: Option<&Integer>,
    ) -> Result<RnsVec> {
        check_arity(op, inputs.len())?;
        let (basis, len) = Self::check(inputs)?;
        let scalar_residues = scalar_residues(op, &basis, scalar)?;
        let out = match self.gpu_for(len * basis.channels()) {
            Some(g) => {
                let data: Vec<WordsRef> = inputs.iter().map(|x| x.words()).collect();
                g.elementwise(op, basis.moduli(), len, &data, &scalar_residues)?
            }
            None => {
                let data: Vec<&[u32]> = inputs.iter().map(|x| x.residues()).collect();
                cpu::elementwise(op, basis.moduli(), len, &data, &scalar_residues).into()
            }
        };
        Ok(RnsVec::from_residues_unchecked(&basis, len, out))
    }

    /// `a + b`, elementwise.
    pub fn add(&self, a: &RnsVec, b: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::Add, &[a, b], None)
    }

    /// `a − b`, elementwise.
    pub fn sub(&self, a: &RnsVec, b: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::Sub, &[a, b], None)
    }

    /// `−a`, elementwise.
    pub fn neg(&self, a: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::Neg, &[a], None)
    }

    /// `a · b`, elementwise (canonical `mul_m`).
    pub fn mul(&self, a: &RnsVec, b: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::Mul, &[a, b], None)
    }

    /// `a · b + c`, elementwise.
    pub fn mul_add(&self, a: &RnsVec, b: &RnsVec, c: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::MulAdd, &[a, b, c], None)
    }

    /// `a · b − c · d`, elementwise.
    pub fn mul_sub_mul(&self, a: &RnsVec, b: &RnsVec, c: &RnsVec, d: &RnsVec) -> Result<RnsVec> {
        self.elementwise(Op::MulSubMul, &[a, b, c, d], None)
    }

    /// `a + s` for every element.
    pub fn add_scalar(&self, a: &RnsVec, s: &Integer) -> Result<RnsVec> {
        self.elementwise(Op::AddScalar, &[a], Some(s))
    }

    /// `a − s` for every element.
    pub fn sub_scalar(&self, a: &RnsVec, s: &Integer) -> Result<RnsVec> {
        self.elementwise(Op::SubScalar, &[a], Some(s))
    }

    /// `a · s` for every element.
    pub fn mul_scalar(&self, a: &RnsVec, s: &Integer) -> Result<RnsVec> {
        self.elementwise(Op::MulScalar, &[a], Some(s))
    }

    /// Whether `a[i] == b[i]`, for every `i`.
    pub fn equal(&self, a: &RnsVec, b: &RnsVec) -> Result<Vec<bool>> {
        let (basis, len) = Self::check(&[a, b])?;
        match self.gpu_for(len * basis.channels()) {
            Some(g) => g.equal(
                EqualKernel::WarpVote,
                basis.channels(),
                len,
                a.residues(),
                b.residues(),
            ),
            None => Ok(cpu::equal(
                basis.channels(),
                len,
                a.residues(),
                b.residues(),
            )),
        }
    }

    /// Mixed-radix digits of every number over the range channels, number-major
    /// (`K` digits per number, least significant first).
    pub fn mixed_radix_digits(&self, a: &RnsVec) -> Result<Vec<u32>> {
        let (b, k) = (a.basis(), a.basis().range_len());
        match self.gpu_for(a.len() * k * k) {
            Some(g) => {
                let digits = g.digits(b.range_moduli(), a.len(), a.residues())?;
                Ok(layout::to_number_major(&digits, a.len(), k))
            }
            None => Ok(cpu::mixed_radix_digits(
                b.range_moduli(),
                b.mr_table(),
                a.len(),
                a.residues(),
                None,
            )),
        }
    }

    /// The sign of every number, as its ordering with respect to 0.
    pub fn sign(&self, a: &RnsVec) -> Result<Vec<Ordering>> {
        let (b, k) = (a.basis(), a.basis().range_len());
        match self.gpu_for(a.len() * k * k) {
            Some(g) => {
                let r = g.compare(b.range_moduli(), a.len(), a.residues(), None)?;
                Ok(r.into_iter().map(|x| x.cmp(&0)).collect())
            }
            None => {
                let digits = self.mixed_radix_digits(a)?;
                Ok(cpu::signs(&digits, b.half_digits()))
            }
        }
    }

    /// `a[i]` compared with `b[i]`, for every `i`. Exact over the whole signed range
    /// (no overflow): both sides are shifted by `(M − 1)/2` onto `[0, M)` first.
    pub fn compare(&self, a: &RnsVec, b: &RnsVec) -> Result<Vec<Ordering>> {
        let (basis, len) = Self::check(&[a, b])?;
        let (range, k) = (basis.range_moduli(), basis.range_len());
        match self.gpu_for(len * k * k) {
            Some(g) => {
                let r = g.compare(range, len, a.residues(), Some(b.residues()))?;
                Ok(r.into_iter().map(|x| x.cmp(&0)).collect())
            }
            None => {
                let (table, half) = (basis.mr_table(), half_residues(&basis));
                let da = cpu::mixed_radix_digits(range, table, len, a.residues(), Some(&half));
                let db = cpu::mixed_radix_digits(range, table, len, b.residues(), Some(&half));
                Ok(cpu::compare(&da, &db, k))
            }
        }
    }

    /// Converts signed integers into residues (each must lie in the signed range);
    /// on the GPU the limbs are copied over and reduced there.
    pub fn to_rns(&self, basis: &Arc<RnsBasis>, values: &[Integer]) -> Result<RnsVec> {
        let Some(g) = self.gpu_for(values.len() * basis.channels()) else {
            return RnsVec::from_integers(basis, values);
        };
        check_range(basis, values)?;
        let len = values.len();
        let (words, neg, nwords) = pack_words(values);
        let data = g.reduce_words(basis.moduli(), &words, &neg, len, nwords)?;
        Ok(RnsVec::from_residues_unchecked(basis, len, data))
    }

    /// Reconstructs every integer (exact in the signed range). On the GPU, for a block of
    /// numbers or more, the mixed-radix digits come from the device (its tables built
    /// there) and all cores assemble the integers by the digit tree; otherwise the host's
    /// CRT ([`RnsVec::to_integers`]).
    pub fn to_integers(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        let k = a.basis().range_len();
        let on_gpu = a.len() >= NUMBERS_PER_BLOCK as usize;
        if !on_gpu || self.gpu_for(a.len() * k * k).is_none() {
            return Ok(a.to_integers());
        }
        Ok(assemble(a.basis(), &self.mixed_radix_digits(a)?))
    }

    /// [`Backend::to_integers`], checked against the redundant channel
    /// ([`RnsVec::check_redundant`]): an error, never a wrong number, for a value that
    /// left the range.
    pub fn to_integers_checked(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        a.check_redundant(self.to_integers(a)?)
    }

    /// [`Backend::reconstruct`] of `len` numbers a backend computed, from the digits when
    /// they came with them (then only the assembly and the check run on the host).
    pub fn reconstruct_computed(
        &self,
        basis: &Arc<RnsBasis>,
        len: usize,
        c: Computed,
        what: &str,
    ) -> Result<Vec<Integer>> {
        let Some(digits) = c.digits else {
            return self.reconstruct(basis, len, c.residues.into_vec(), what);
        };
        let k = basis.range_len();
        let red = c.residues.get(k * len..(k + 1) * len).ok_or_else(|| {
            Error::Internal(format!(
                "{what}: {} residues for {len} numbers",
                c.residues.len()
            ))
        })?;
        vector::check_redundant(basis, red, assemble(basis, &digits))
            .map_err(|_| Error::Internal(format!("{what} disagrees with the redundant prime")))
    }

    /// The one checked reconstruction of computed results: `len` numbers from their
    /// channel-major residues over `basis` ([`Backend::to_integers_checked`]). The caller's
    /// bound promised that they fit the range, so a disagreement with the redundant prime
    /// is a bug, reported as [`Error::Internal`] naming `what`.
    pub fn reconstruct(
        &self,
        basis: &Arc<RnsBasis>,
        len: usize,
        residues: Vec<u32>,
        what: &str,
    ) -> Result<Vec<Integer>> {
        let v = RnsVec::from_residues(basis, len, residues)?;
        self.to_integers_checked(&v).map_err(|e| match e {
            Error::OutOfRange { .. } => {
                Error::Internal(format!("{what} disagrees with the redundant prime"))
            }
            e => e,
        })
    }

    /// The determinant of the `n × n` matrix held in each channel: `matrices` holds
    /// `n²` numbers (a row-major matrix), and the result has one residue per channel.
    /// On the GPU, blocked LU (`rns_det_blocked`); on the CPU, [`rns_core::linalg::eliminate`].
    pub fn det_per_channel(&self, matrices: &RnsVec, n: usize) -> Result<Vec<u32>> {
        if matrices.len() != n * n {
            return Err(Error::Shape(format!(
                "{} numbers do not form a {n}×{n} matrix",
                matrices.len()
            )));
        }
        let moduli = matrices.basis().moduli();
        match self.gpu_for(matrices.residues().len()) {
            Some(g) => g.det_per_channel(moduli, n, matrices.residues()),
            None => {
                let mut data = matrices.residues().to_vec();
                let e = cpu::eliminate_per_channel(moduli, n, n, n, false, &mut data);
                Ok(e.into_iter().map(|e| e.det).collect())
            }
        }
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
        if let Some(g) = self.gpu_for(entries.len() * basis.channels()) {
            check_range(basis, entries)?;
            let (words, neg, nwords) = pack_words(entries);
            if let Some(d) = g.det_words(basis.moduli(), (&words, &neg, nwords), n)? {
                return Ok(d);
            }
        }
        self.det_per_channel(&self.to_rns(basis, entries)?, n)
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
        match self.gpu_for(data.len()) {
            Some(g) => g.eliminate_per_channel(moduli, rows, cols, pivot_cols, jordan, data, keep),
            None => Ok(cpu::eliminate_per_channel(
                moduli, rows, cols, pivot_cols, jordan, data,
            )),
        }
    }

    /// Reduces the entries of an integer matrix modulo every channel of `basis` and runs
    /// [`Backend::eliminate_per_channel`] on the images (`shape = (rows, cols,
    /// pivot_cols)`, `entries` row-major). On the GPU both happen on the device and the
    /// residues never cross PCIe. Returns the rank and determinant per channel and, with
    /// `keep`, the eliminated matrices (one per channel, one after another; else empty).
    pub fn eliminate_integers(
        &self,
        basis: &Arc<RnsBasis>,
        entries: &[Integer],
        shape: (usize, usize, usize),
        jordan: bool,
        keep: bool,
    ) -> Result<(Vec<Elimination>, Vec<u32>)> {
        let (rows, cols, pivot_cols) = shape;
        if entries.len() != rows * cols {
            return Err(Error::Shape(format!(
                "{} entries do not form a {rows}×{cols} matrix",
                entries.len()
            )));
        }
        if let Some(g) = self.gpu_for(entries.len() * basis.channels()) {
            check_range(basis, entries)?;
            let (words, neg, nwords) = pack_words(entries);
            let packed = (&words[..], &neg[..], nwords);
            let moduli = basis.moduli();
            if let Some(r) =
                g.eliminate_words(moduli, packed, rows, cols, pivot_cols, jordan, keep)?
            {
                return Ok(r);
            }
        }
        let mut data = self.to_rns(basis, entries)?.residues().to_vec();
        let e = self.eliminate_per_channel(basis.moduli(), shape, jordan, &mut data, keep)?;
        Ok((e, if keep { data } else { Vec::new() }))
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
        if let Some(g) = self.gpu_for(basis.channels() * n * p) {
            check_range(basis, a)?;
            check_range(basis, b)?;
            let (pa, pb) = (pack_words(a), pack_words(b));
            let packed = ((&pa.0[..], &pa.1[..], pa.2), (&pb.0[..], &pb.1[..], pb.2));
            if let Some((digits, red)) = g.matmul_words(basis.moduli(), packed, (n, k, p))? {
                let digits = layout::to_number_major(&digits, n * p, basis.range_len());
                return vector::check_redundant(basis, &red, assemble(basis, &digits));
            }
        }
        let (ra, rb) = (self.to_rns(basis, a)?, self.to_rns(basis, b)?);
        let prod =
            self.matmul_per_channel(basis.moduli(), (n, k, p), ra.residues(), rb.residues())?;
        self.to_integers_checked(&RnsVec::from_residues_unchecked(basis, n * p, prod))
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
        match self.gpu_for(c * n * p) {
            Some(g) => g.matmul_per_channel(moduli, shape, a, b),
            None => Ok(cpu::matmul_per_channel(moduli, n, k, p, a.data, b.data).into()),
        }
    }
}

impl Backend {
    /// Collins' modular steps of a bivariate resultant `res_y(f, g)` for every channel of
    /// `basis`: `coeffs` holds the dense pair of `shape` (`f`'s rows, then `g`'s; each
    /// must lie in the basis's signed range, and neither leading coefficient in `y` may
    /// vanish modulo a channel). Per channel, the first `degree_bound + 1` of the points
    /// `x = 0 … candidates − 1` where neither leading coefficient vanishes, one resultant
    /// in `y` per point, and the interpolated coefficients: channel-major,
    /// `degree_bound + 1` per channel (`NO_POINT` first when a channel ran out of points).
    /// On the GPU also their mixed-radix digits, number-major, computed there for the
    /// reconstruction. And the time of each stage.
    pub fn resultant_xy_per_channel(
        &self,
        basis: &Arc<RnsBasis>,
        coeffs: &[Integer],
        shape: BiShape,
        candidates: usize,
    ) -> Result<(Computed, Laps)> {
        let n = shape.degree_bound() + 1;
        if coeffs.len() != shape.len() || candidates < n {
            return Err(Error::Shape(format!(
                "{} coefficients and {candidates} points do not fit the shape {shape:?}",
                coeffs.len()
            )));
        }
        let work = basis.channels() * candidates * shape.work_len();
        match self.gpu_for(work) {
            Some(g) => {
                check_range(basis, coeffs)?;
                let (words, neg, nwords) = pack_words(coeffs);
                let packed = (&words[..], &neg[..], nwords);
                let (residues, digits, laps) =
                    g.resultant_xy_words(basis.moduli(), packed, shape, candidates)?;
                let digits = digits.map(|d| layout::to_number_major(&d, n, basis.range_len()));
                Ok((Computed { residues, digits }, laps))
            }
            None => {
                let mut laps = Laps::start();
                let residues = RnsVec::from_integers(basis, coeffs)?;
                laps.lap("reduce");
                let out = cpu::resultant_xy_per_channel(
                    basis.moduli(),
                    shape,
                    candidates,
                    residues.residues(),
                );
                laps.lap("resultants mod p, interpolation");
                let residues = out.into();
                Ok((
                    Computed {
                        residues,
                        digits: None,
                    },
                    laps,
                ))
            }
        }
    }

    /// The resultant modulo each channel of two polynomials: `coeffs` holds the `df + 1`
    /// coefficients of `f` then the `dg + 1` of `g` (constant terms first), and both
    /// leading coefficients must be non-zero modulo every channel.
    pub fn resultant_per_channel(&self, coeffs: &RnsVec, df: usize, dg: usize) -> Result<Vec<u32>> {
        if coeffs.len() != df + dg + 2 {
            return Err(Error::Shape(format!(
                "{} coefficients do not form polynomials of degrees {df} and {dg}",
                coeffs.len()
            )));
        }
        let moduli = coeffs.basis().moduli();
        match self.gpu_for(df * dg.max(1) * moduli.len()) {
            Some(g) => g.resultant_per_channel(moduli, df, dg, coeffs.residues()),
            None => Ok(cpu::resultant_per_channel(
                moduli,
                df,
                dg,
                coeffs.residues(),
            )),
        }
    }
}

/// [`Error::BasisMismatch`] or [`Error::LengthMismatch`] unless two operands agree.
pub(crate) fn check_pair(a: &RnsBasis, alen: usize, b: &RnsBasis, blen: usize) -> Result<()> {
    if !a.same_as(b) {
        return Err(Error::BasisMismatch);
    }
    if alen != blen {
        return Err(Error::LengthMismatch {
            left: alen,
            right: blen,
        });
    }
    Ok(())
}

/// [`Error::Shape`] unless `op` takes `given` vector operands.
pub(crate) fn check_arity(op: Op, given: usize) -> Result<()> {
    if given != op.arity() {
        return Err(Error::Shape(format!(
            "{op:?} takes {} operands, got {given}",
            op.arity()
        )));
    }
    Ok(())
}

/// The residues of `scalar` in every channel (empty for the operations without one):
/// [`Error::Shape`] when a scalar is given to an operation without one or missing, and
/// [`Error::OutOfRange`] outside the signed range.
pub(crate) fn scalar_residues(
    op: Op,
    basis: &RnsBasis,
    scalar: Option<&Integer>,
) -> Result<Vec<u32>> {
    match (op.has_scalar(), scalar) {
        (true, Some(s)) => {
            check_range(basis, std::slice::from_ref(s))?;
            Ok(basis.moduli().iter().map(|&m| residue(s, m)).collect())
        }
        (false, None) => Ok(Vec::new()),
        _ => Err(Error::Shape(format!(
            "{op:?}: scalar operand given or missing"
        ))),
    }
}

/// [`Error::OutOfRange`] for the first value outside the basis's signed range.
fn check_range(basis: &RnsBasis, values: &[Integer]) -> Result<()> {
    match values.par_iter().position_first(|x| !basis.contains(x)) {
        Some(index) => Err(Error::OutOfRange {
            index,
            range_bits: basis.range_bits(),
        }),
        None => Ok(()),
    }
}

/// Integers as the GPU reads them: 32-bit words, word-major (`words[w·len + i]`, least
/// significant first, padded to the longest), sign flags, and the words per number.
/// By all cores: each number's words side by side, then transposed.
pub fn pack_words(values: &[Integer]) -> (Vec<u32>, Vec<u32>, usize) {
    let len = values.len();
    let nwords = values
        .par_iter()
        .map(|x| x.as_limbs().len() * 2)
        .max()
        .unwrap_or(0)
        .max(1);
    let mut number_major = vec![0u32; nwords * len];
    number_major
        .par_chunks_mut(nwords)
        .zip(values.par_iter())
        .for_each(|(w, x)| {
            for (pair, &limb) in w.chunks_exact_mut(2).zip(x.as_limbs()) {
                pair[0] = limb as u32;
                pair[1] = (limb >> 32) as u32;
            }
        });
    let words = layout::to_channel_major(&number_major, len, nwords);
    let neg = values.par_iter().map(|x| x.is_negative() as u32).collect();
    (words, neg, nwords)
}

/// `(m_c − 1)/2` for every range channel: the residues of `H = (M − 1)/2`.
pub fn half_residues(basis: &RnsBasis) -> Vec<u32> {
    basis.range_moduli().iter().map(|m| (m.m - 1) / 2).collect()
}
