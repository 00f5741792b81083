//! One API over two backends: the CPU (rayon) and the GPU (CUDA, Rust kernels).
//!
//! Every method validates its operands (same basis, same length) and returns the
//! same residues, bit for bit, whichever backend runs it.

pub mod cost;
pub mod cpu;
mod devices;
pub mod gpu;
mod input;
mod matrices;
pub mod op;
pub mod resident;
mod resultants;
pub mod split;

pub use crate::num::basis::half_residues;
pub use devices::Devices;
pub use gpu::{EqualKernel, Gpu};
pub use input::pack_words;
pub use op::Op;

pub(crate) use input::{check_arity, check_pair, check_range, scalar_residues};

use crate::backend::gpu::ops;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::layout;
use crate::num::vector::{self, RnsVec};
use crate::num::words::{Words, WordsRef};
use rns_core::launch::NUMBERS_PER_BLOCK;
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
    /// The integers, when shares of the primes reconstructed them where they were
    /// computed (checked against the redundant channel).
    pub integers: Option<Vec<Integer>>,
}

impl Computed {
    /// Residues, with their digits when the device computed them.
    pub fn of(residues: Words, digits: Option<Vec<u32>>) -> Computed {
        Computed {
            residues,
            digits,
            integers: None,
        }
    }
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
    /// Several CUDA GPUs of this process: the channel-parallel computations (matrices,
    /// resultants) split their channels across all of them ([`split`]); the rest run on
    /// the first, as [`Backend::Gpu`] would.
    Gpus {
        /// The devices, the first one leading.
        gpus: Arc<[Arc<Gpu>]>,
        /// Smallest amount of work sent to the GPUs.
        min_work: usize,
        /// Smallest amount of work split across them (less runs on the first):
        /// [`split::SPLIT_MIN_WORK`] from [`Backend::on_gpus`].
        min_split: usize,
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

    /// A short name: `cpu` or `gpu` (one or several devices).
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu { .. } | Backend::Gpus { .. } => "gpu",
        }
    }

    /// The (first) GPU, when this backend sends `work` residues of work to one.
    pub(crate) fn gpu_for(&self, work: usize) -> Option<&Arc<Gpu>> {
        match self {
            Backend::Gpu { gpu, min_work } if work >= *min_work => Some(gpu),
            Backend::Gpus { gpus, min_work, .. } if work >= *min_work => gpus.first(),
            _ => None,
        }
    }

    /// The GPU of this backend (the first of several), if it has one.
    pub fn gpu(&self) -> Option<&Arc<Gpu>> {
        match self {
            Backend::Gpu { gpu, .. } => Some(gpu),
            Backend::Gpus { gpus, .. } => gpus.first(),
            Backend::Cpu => None,
        }
    }

    /// The GPUs of this backend (none for the CPU).
    pub fn gpus(&self) -> &[Arc<Gpu>] {
        match self {
            Backend::Gpu { gpu, .. } => std::slice::from_ref(gpu),
            Backend::Gpus { gpus, .. } => gpus,
            Backend::Cpu => &[],
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
                ops::elementwise(g, op, basis.moduli(), len, &data, &scalar_residues)?
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
            Some(g) => ops::equal(
                g,
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
    /// (`K` digits per number, least significant first); on several GPUs, the first
    /// computes them (split by numbers across devices they took 2.6× longer for 2^18
    /// numbers: docs/performance.md).
    pub fn mixed_radix_digits(&self, a: &RnsVec) -> Result<Vec<u32>> {
        let (b, k, len) = (a.basis(), a.basis().range_len(), a.len());
        match self.gpu_for(len * k * k) {
            Some(g) => {
                let digits = ops::digits(g, b.range_moduli(), a.len(), a.residues())?;
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
                let r = ops::compare(g, b.range_moduli(), a.len(), a.residues(), None)?;
                Ok(r.into_iter().map(|x| x.cmp(&0)).collect())
            }
            None => Ok(cpu::ordering::compare(b, a.len(), a.residues(), None)),
        }
    }

    /// `a[i]` compared with `b[i]`, for every `i`. Exact over the whole signed range
    /// (no overflow): both sides are shifted by `(M − 1)/2` onto `[0, M)` first.
    pub fn compare(&self, a: &RnsVec, b: &RnsVec) -> Result<Vec<Ordering>> {
        let (basis, len) = Self::check(&[a, b])?;
        let (range, k) = (basis.range_moduli(), basis.range_len());
        match self.gpu_for(len * k * k) {
            Some(g) => {
                let r = ops::compare(g, range, len, a.residues(), Some(b.residues()))?;
                Ok(r.into_iter().map(|x| x.cmp(&0)).collect())
            }
            None => Ok(cpu::ordering::compare(
                &basis,
                len,
                a.residues(),
                Some(b.residues()),
            )),
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
        let data = ops::reduce_words(g, basis.moduli(), &words, &neg, len, nwords)?;
        Ok(RnsVec::from_residues_unchecked(basis, len, data))
    }

    /// Reconstructs every integer (exact in the signed range). On the GPU, over more than
    /// [`crt::TREE_ABOVE`] range moduli, from the cofactor inverses computed there
    /// ([`RnsVec::to_integers_from_cofactors`]); for a block of numbers or more over
    /// smaller bases, the mixed-radix digits come from the device (its tables built
    /// there) and all cores assemble the integers by the digit tree; otherwise the host's
    /// CRT ([`RnsVec::to_integers`]).
    pub fn to_integers(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        let k = a.basis().range_len();
        // Beyond the weights' and the mixed-radix kernel's sizes: the cofactor inverses
        // from the device (O(K²), milliseconds there), then sums of products on the host.
        if k > crt::TREE_ABOVE {
            if let Some(g) = self.gpu_for(k * k) {
                let b = a.basis();
                let t = b.interval_tables_from(|| ops::cofactor_inverses(g, b.range_moduli()))?;
                return Ok(a.to_integers_from_cofactors(&t.coef));
            }
        }
        let on_gpu = a.len() >= NUMBERS_PER_BLOCK as usize;
        if !on_gpu || self.gpu_for(a.len() * k * k).is_none() {
            return Ok(a.to_integers());
        }
        Ok(crt::from_digits_many(
            a.basis(),
            &self.mixed_radix_digits(a)?,
        ))
    }

    /// [`Backend::to_integers`], checked against the redundant channel
    /// ([`RnsVec::check_redundant`]): an error, never a wrong number, for a value that
    /// left the range. On the GPU, for a block of numbers or more, the device converts
    /// the residues to signed binary limbs and checks them ([`signed_limbs`](crate::backend::gpu::ops::limbs::signed_limbs)): the
    /// host only copies each integer's limbs.
    pub fn to_integers_checked(&self, a: &RnsVec) -> Result<Vec<Integer>> {
        let (b, k) = (a.basis(), a.basis().range_len());
        if a.len() >= NUMBERS_PER_BLOCK as usize {
            if let Some(g) = self.gpu_for(a.len() * k * k) {
                let (limbs, flags, nlimbs) =
                    ops::signed_limbs(g, b.moduli(), a.residues(), a.len())?;
                return crt::from_signed_limbs(&limbs, &flags, nlimbs, b.range_bits());
            }
        }
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
        if let Some(values) = c.integers {
            return Ok(values);
        }
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
        vector::check_redundant(basis, red, crt::from_digits_many(basis, &digits))
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
}
