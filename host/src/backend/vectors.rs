//! Operations on residue vectors: elementwise arithmetic, equality, mixed-radix digits,
//! sign and comparison, on the host's cores or streamed through one GPU.

use super::gpu::launch::EqualKernel;
use super::{check_arity, check_pair, cpu, scalar_residues, Backend, Op};
use crate::backend::gpu::ops;
use crate::error::Result;
use crate::num::basis::RnsBasis;
use crate::num::layout;
use crate::num::vector::RnsVec;
use crate::num::words::WordsRef;
use rug::Integer;
use std::cmp::Ordering;
use std::sync::Arc;

/// Orderings from the device's −1, 0, 1.
fn signs(r: Vec<i32>) -> Vec<Ordering> {
    r.into_iter().map(|x| x.cmp(&0)).collect()
}

impl Backend {
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
        let moduli = basis.moduli();
        let out = self.whole(
            len * basis.channels(),
            || {
                let data: Vec<&[u32]> = inputs.iter().map(|x| x.residues()).collect();
                Ok(cpu::elementwise(op, moduli, len, &data, &scalar_residues).into())
            },
            |g| {
                let data: Vec<WordsRef> = inputs.iter().map(|x| x.words()).collect();
                ops::elementwise(g, op, moduli, len, &data, &scalar_residues)
            },
        )?;
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
        let (c, x, y) = (basis.channels(), a.residues(), b.residues());
        self.whole(
            len * c,
            || Ok(cpu::equal(c, len, x, y)),
            |g| ops::equal(g, EqualKernel::WarpVote, c, len, x, y),
        )
    }

    /// Mixed-radix digits of every number over the range channels, number-major
    /// (`K` digits per number, least significant first); on several GPUs, the first
    /// computes them (split by numbers across devices they took 2.6× longer for 2^18
    /// numbers: docs/performance.md).
    pub fn mixed_radix_digits(&self, a: &RnsVec) -> Result<Vec<u32>> {
        let (b, k, len) = (a.basis(), a.basis().range_len(), a.len());
        let (range, x) = (b.range_moduli(), a.residues());
        self.whole(
            len * k * k,
            || Ok(cpu::mixed_radix_digits(range, b.mr_table(), len, x, None)),
            |g| {
                Ok(layout::to_number_major(
                    &ops::digits(g, range, len, x)?,
                    len,
                    k,
                ))
            },
        )
    }

    /// The sign of every number, as its ordering with respect to 0.
    pub fn sign(&self, a: &RnsVec) -> Result<Vec<Ordering>> {
        let (b, k) = (a.basis(), a.basis().range_len());
        let (len, x) = (a.len(), a.residues());
        self.whole(
            len * k * k,
            || Ok(cpu::ordering::compare(b, len, x, None)),
            |g| Ok(signs(ops::compare(g, b.range_moduli(), len, x, None)?)),
        )
    }

    /// `a[i]` compared with `b[i]`, for every `i`. Exact over the whole signed range
    /// (no overflow): both sides are shifted by `(M − 1)/2` onto `[0, M)` first.
    pub fn compare(&self, a: &RnsVec, b: &RnsVec) -> Result<Vec<Ordering>> {
        let (basis, len) = Self::check(&[a, b])?;
        let (range, k) = (basis.range_moduli(), basis.range_len());
        let (x, y) = (a.residues(), b.residues());
        self.whole(
            len * k * k,
            || Ok(cpu::ordering::compare(&basis, len, x, Some(y))),
            |g| Ok(signs(ops::compare(g, range, len, x, Some(y))?)),
        )
    }
}
