//! One API over two backends: the CPU (rayon) and the GPU (CUDA, Rust kernels).
//!
//! Every method validates its operands (same basis, same length) and returns the
//! same residues, bit for bit, whichever backend runs it.

pub mod cpu;

pub use cpu::Op;

use crate::basis::RnsBasis;
use crate::error::{Error, Result};
use crate::vector::{residue, RnsVec};
use rug::Integer;
use std::cmp::Ordering;
use std::sync::Arc;

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

/// An execution backend.
#[derive(Clone, Debug)]
pub enum Backend {
    /// All cores of this machine through rayon.
    Cpu,
}

impl Backend {
    /// The backend for a choice: `Gpu` fails with [`Error::NoGpu`] when no device is usable.
    pub fn select(choice: BackendChoice) -> Result<Backend> {
        match choice {
            BackendChoice::Cpu | BackendChoice::Auto => Ok(Backend::Cpu),
            BackendChoice::Gpu => Err(Error::NoGpu("this build of rns has no GPU backend".into())),
        }
    }

    /// A short name: `cpu` or `gpu`.
    pub fn name(&self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
        }
    }

    fn check(inputs: &[&RnsVec]) -> Result<(Arc<RnsBasis>, usize)> {
        let first = inputs[0];
        for x in &inputs[1..] {
            if !first.basis().same_as(x.basis()) {
                return Err(Error::BasisMismatch);
            }
            if x.len() != first.len() {
                return Err(Error::LengthMismatch {
                    left: first.len(),
                    right: x.len(),
                });
            }
        }
        Ok((first.basis().clone(), first.len()))
    }

    /// Applies an elementwise operation; `inputs.len()` must be `op.arity()` and
    /// `scalar` is required exactly for the scalar operations.
    pub fn elementwise(&self, op: Op, inputs: &[&RnsVec], scalar: Option<&Integer>) -> Result<RnsVec> {
        if inputs.len() != op.arity() {
            return Err(Error::Shape(format!(
                "{op:?} takes {} operands, got {}",
                op.arity(),
                inputs.len()
            )));
        }
        let (basis, len) = Self::check(inputs)?;
        let scalar_residues = match (op.has_scalar(), scalar) {
            (true, Some(s)) => {
                if !basis.contains(s) {
                    return Err(Error::OutOfRange {
                        index: 0,
                        range_bits: basis.range_bits(),
                    });
                }
                basis.moduli().iter().map(|&m| residue(s, m)).collect()
            }
            (false, None) => Vec::new(),
            _ => return Err(Error::Shape(format!("{op:?}: scalar operand given or missing"))),
        };
        let data: Vec<&[u32]> = inputs.iter().map(|x| x.residues()).collect();
        let out = match self {
            Backend::Cpu => cpu::elementwise(op, basis.moduli(), len, &data, &scalar_residues),
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
        Ok(match self {
            Backend::Cpu => cpu::equal(basis.channels(), len, a.residues(), b.residues()),
        })
    }

    /// Mixed-radix digits of every number over the range channels, number-major
    /// (`K` digits per number, least significant first).
    pub fn mixed_radix_digits(&self, a: &RnsVec) -> Vec<u32> {
        self.digits(a, None)
    }

    fn digits(&self, a: &RnsVec, offset: Option<&[u32]>) -> Vec<u32> {
        let b = a.basis();
        match self {
            Backend::Cpu => cpu::mixed_radix_digits(b.range_moduli(), b.mr_table(), a.len(), a.residues(), offset),
        }
    }

    /// The sign of every number, as its ordering with respect to 0.
    pub fn sign(&self, a: &RnsVec) -> Vec<Ordering> {
        let digits = self.mixed_radix_digits(a);
        cpu::signs(&digits, a.basis().half_digits())
    }

    /// `a[i]` compared with `b[i]`, for every `i`. Exact over the whole signed range
    /// (no overflow): both sides are shifted by `(M − 1)/2` onto `[0, M)` first.
    pub fn compare(&self, a: &RnsVec, b: &RnsVec) -> Result<Vec<Ordering>> {
        let (basis, _) = Self::check(&[a, b])?;
        let half: Vec<u32> = basis.range_moduli().iter().map(|m| (m.m - 1) / 2).collect();
        let da = self.digits(a, Some(&half));
        let db = self.digits(b, Some(&half));
        Ok(cpu::compare(&da, &db, basis.range_len()))
    }

    /// Reconstructs every integer (exact in the signed range) with the backend's
    /// fastest path.
    pub fn to_integers(&self, a: &RnsVec) -> Vec<Integer> {
        match self {
            Backend::Cpu => a.to_integers(),
        }
    }

    /// The determinant of the `n × n` matrix held in each channel: `matrices` holds
    /// `n²` numbers (a row-major matrix), and the result has one residue per channel.
    pub fn det_per_channel(&self, matrices: &RnsVec, n: usize) -> Result<Vec<u32>> {
        if matrices.len() != n * n {
            return Err(Error::Shape(format!(
                "{} numbers do not form a {n}×{n} matrix",
                matrices.len()
            )));
        }
        let moduli = matrices.basis().moduli();
        Ok(match self {
            Backend::Cpu => cpu::det_per_channel(moduli, n, matrices.residues()),
        })
    }
}
