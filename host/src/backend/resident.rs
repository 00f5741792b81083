//! [`ResidentVec`]: residue vectors kept where a backend computes — in GPU memory for the
//! GPU backend, in host memory for the CPU backend — with the vocabulary of
//! [`RnsVec`] and [`Backend`]: the same operations and the same errors. Chained
//! operations on a GPU never leave it: they are queued back to back on the device's
//! stream, and only what the host asks for (flags, signs, integers, a download) crosses
//! PCIe.
//!
//! ```
//! use rns::{Backend, BackendChoice, RnsBasis, RnsVec};
//! use rug::Integer;
//! use std::cmp::Ordering;
//! use std::sync::Arc;
//!
//! let backend = Backend::select(BackendChoice::Auto)?; // the GPU when one is usable
//! let basis = Arc::new(RnsBasis::for_bits(128));
//! let host = RnsVec::from_i64(&basis, &[3, -4, 5, 6, -7, 8])?;
//! let x = backend.upload(&host)?; // one upload
//! let (a, b, c) = (x.clone(), x.mul_scalar(&Integer::from(2))?, x.neg()?);
//! let y = a.mul_add(&b, &c)?; // a·b + c = 2x² − x, on the device
//! assert_eq!(y.equal(&y.add(&x)?.sub(&x)?)?, [true; 6]);
//! assert_eq!(y.sign()?, [Ordering::Greater; 6]);
//! assert_eq!(y.download()?.to_integers_checked()?, [15, 36, 45, 66, 105, 120]); // one download
//! # Ok::<(), rns::Error>(())
//! ```

use crate::backend::gpu::ops;
use crate::backend::gpu::DeviceWords;
use crate::backend::{self, Backend, Op};
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt;
use crate::num::layout;
use crate::num::vector::{self, RnsVec};
use rug::Integer;
use std::cmp::Ordering;
use std::fmt;
use std::sync::Arc;

/// Where a value lives.
///
/// ```
/// use rns::{Backend, Location, RnsBasis, RnsVec};
/// use std::sync::Arc;
///
/// let basis = Arc::new(RnsBasis::for_bits(64));
/// let x = Backend::Cpu.upload(&RnsVec::from_i64(&basis, &[1, 2, 3])?)?;
/// assert_eq!(x.location(), Location::Host); // on a GPU backend: Location::Gpu(ordinal)
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// Host memory (the CPU backend).
    Host,
    /// The memory of the GPU with this ordinal.
    Gpu(usize),
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Host => write!(f, "host memory"),
            Location::Gpu(i) => write!(f, "GPU {i}"),
        }
    }
}

#[derive(Debug)]
enum Store {
    Host(RnsVec),
    Device(Arc<DeviceWords>),
}

/// `len` integers of one basis as residues, resident where a backend computes. Cloning
/// shares the storage (values are never changed in place).
#[derive(Clone, Debug)]
pub struct ResidentVec {
    basis: Arc<RnsBasis>,
    len: usize,
    store: Arc<Store>,
}

impl Backend {
    /// Places `x` where this backend computes on it: in the memory of the GPU that
    /// [`Backend::plan`]'s rule gives its residues (an explicit GPU backend: whatever
    /// the size), or in host memory (the CPU backend, and `auto` below
    /// [`AUTO_MIN_WORK`](crate::backend::AUTO_MIN_WORK)).
    pub fn upload(&self, x: &RnsVec) -> Result<ResidentVec> {
        let store = match self.device_for(x.residues().len()) {
            Some(g) => Store::Device(Arc::new(DeviceWords::upload(
                g,
                x.basis().moduli(),
                x.residues(),
            )?)),
            None => Store::Host(x.clone()),
        };
        Ok(ResidentVec {
            basis: x.basis().clone(),
            len: x.len(),
            store: Arc::new(store),
        })
    }
}

impl ResidentVec {
    /// The number of integers held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector holds no integer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The basis.
    pub fn basis(&self) -> &Arc<RnsBasis> {
        &self.basis
    }

    /// Where the residues live.
    pub fn location(&self) -> Location {
        match &*self.store {
            Store::Host(_) => Location::Host,
            Store::Device(d) => Location::Gpu(d.gpu().ordinal()),
        }
    }

    /// The residues, brought to the host.
    pub fn download(&self) -> Result<RnsVec> {
        match &*self.store {
            Store::Host(v) => Ok(v.clone()),
            Store::Device(d) => RnsVec::from_residues(&self.basis, self.len, d.download()?),
        }
    }

    /// Waits until every operation queued for this value has finished (for timing).
    pub fn wait(&self) -> Result<()> {
        match &*self.store {
            Store::Host(_) => Ok(()),
            Store::Device(d) => d.gpu().sync(),
        }
    }

    fn with_store(&self, store: Store) -> ResidentVec {
        ResidentVec {
            basis: self.basis.clone(),
            len: self.len,
            store: Arc::new(store),
        }
    }

    /// [`Error::BasisMismatch`], [`Error::LengthMismatch`] or [`Error::DeviceMismatch`]
    /// unless every operand matches `self`.
    fn check(&self, others: &[&ResidentVec]) -> Result<()> {
        for x in others {
            backend::check_pair(&self.basis, self.len, &x.basis, x.len)?;
            // One `Gpu` per ordinal (`Gpu::device`), so the location names the device.
            if x.location() != self.location() {
                return Err(Error::DeviceMismatch {
                    left: self.location().to_string(),
                    right: x.location().to_string(),
                });
            }
        }
        Ok(())
    }

    /// Applies an elementwise operation to `self` and `others` (`1 + others.len()` must be
    /// `op.arity()`); `scalar` is required exactly for the scalar operations.
    pub fn elementwise(
        &self,
        op: Op,
        others: &[&ResidentVec],
        scalar: Option<&Integer>,
    ) -> Result<ResidentVec> {
        backend::check_arity(op, 1 + others.len())?;
        self.check(others)?;
        let scalar = backend::scalar_residues(op, &self.basis, scalar)?;
        let store = match &*self.store {
            Store::Host(a) => {
                let mut args = vec![a];
                for x in others {
                    if let Store::Host(v) = &*x.store {
                        args.push(v);
                    }
                }
                let data: Vec<&[u32]> = args.iter().map(|v| v.residues()).collect();
                let out =
                    backend::cpu::elementwise(op, self.basis.moduli(), self.len, &data, &scalar);
                Store::Host(RnsVec::from_residues(&self.basis, self.len, out)?)
            }
            Store::Device(a) => {
                let mut args = vec![&**a];
                for x in others {
                    if let Store::Device(d) = &*x.store {
                        args.push(d);
                    }
                }
                let ch = self.basis.channels();
                Store::Device(Arc::new(DeviceWords::elementwise(
                    op, &args, &scalar, self.len, ch,
                )?))
            }
        };
        Ok(self.with_store(store))
    }

    /// `self + b`, elementwise.
    pub fn add(&self, b: &ResidentVec) -> Result<ResidentVec> {
        self.elementwise(Op::Add, &[b], None)
    }

    /// `self − b`, elementwise.
    pub fn sub(&self, b: &ResidentVec) -> Result<ResidentVec> {
        self.elementwise(Op::Sub, &[b], None)
    }

    /// `−self`, elementwise.
    pub fn neg(&self) -> Result<ResidentVec> {
        self.elementwise(Op::Neg, &[], None)
    }

    /// `self · b`, elementwise (canonical `mul_m`).
    pub fn mul(&self, b: &ResidentVec) -> Result<ResidentVec> {
        self.elementwise(Op::Mul, &[b], None)
    }

    /// `self · b + c`, elementwise.
    pub fn mul_add(&self, b: &ResidentVec, c: &ResidentVec) -> Result<ResidentVec> {
        self.elementwise(Op::MulAdd, &[b, c], None)
    }

    /// `self · b − c · d`, elementwise.
    pub fn mul_sub_mul(
        &self,
        b: &ResidentVec,
        c: &ResidentVec,
        d: &ResidentVec,
    ) -> Result<ResidentVec> {
        self.elementwise(Op::MulSubMul, &[b, c, d], None)
    }

    /// `self + s` for every element.
    pub fn add_scalar(&self, s: &Integer) -> Result<ResidentVec> {
        self.elementwise(Op::AddScalar, &[], Some(s))
    }

    /// `self − s` for every element.
    pub fn sub_scalar(&self, s: &Integer) -> Result<ResidentVec> {
        self.elementwise(Op::SubScalar, &[], Some(s))
    }

    /// `self · s` for every element.
    pub fn mul_scalar(&self, s: &Integer) -> Result<ResidentVec> {
        self.elementwise(Op::MulScalar, &[], Some(s))
    }

    /// Whether `self[i] == b[i]`, for every `i` (only the flags cross PCIe).
    pub fn equal(&self, b: &ResidentVec) -> Result<Vec<bool>> {
        self.check(&[b])?;
        match (&*self.store, &*b.store) {
            (Store::Device(x), Store::Device(y)) => x.equal(y, self.len, self.basis.channels()),
            (Store::Host(x), Store::Host(y)) => Backend::Cpu.equal(x, y),
            _ => unreachable!("checked: same location"),
        }
    }

    /// The sign of every number (only the signs cross PCIe).
    pub fn sign(&self) -> Result<Vec<Ordering>> {
        self.compare_with(None)
    }

    /// `self[i]` compared with `b[i]`, for every `i`; exact over the whole signed range.
    pub fn compare(&self, b: &ResidentVec) -> Result<Vec<Ordering>> {
        self.check(&[b])?;
        self.compare_with(Some(b))
    }

    fn compare_with(&self, b: Option<&ResidentVec>) -> Result<Vec<Ordering>> {
        let basis = &self.basis;
        match &*self.store {
            Store::Host(x) => match b.map(|b| &*b.store) {
                Some(Store::Host(y)) => Backend::Cpu.compare(x, y),
                _ => Backend::Cpu.sign(x),
            },
            Store::Device(x) => {
                let other = match b.map(|b| &*b.store) {
                    Some(Store::Device(y)) => Some(&**y),
                    _ => None,
                };
                let r = x.compare(other, basis.range_moduli(), self.len)?;
                Ok(r.into_iter().map(|v| v.cmp(&0)).collect())
            }
        }
    }

    /// Reconstructs every integer (exact in the signed range): on a GPU the mixed-radix
    /// digits are computed there and only they cross PCIe.
    pub fn to_integers(&self) -> Result<Vec<Integer>> {
        match &*self.store {
            Store::Host(v) => Ok(v.to_integers()),
            Store::Device(d) => Ok(crt::from_digits_many(&self.basis, &self.device_digits(d)?)),
        }
    }

    /// [`ResidentVec::to_integers`], checked against the redundant channel: an error,
    /// never a wrong number, for a value that left the range.
    pub fn to_integers_checked(&self) -> Result<Vec<Integer>> {
        match &*self.store {
            Store::Host(v) => v.to_integers_checked(),
            Store::Device(d) => {
                let values = crt::from_digits_many(&self.basis, &self.device_digits(d)?);
                let k = self.basis.range_len();
                let red = d.download_range(k * self.len..(k + 1) * self.len)?;
                vector::check_redundant(&self.basis, &red, values)
            }
        }
    }

    /// The mixed-radix digits over the range channels, number-major.
    fn device_digits(&self, d: &DeviceWords) -> Result<Vec<u32>> {
        let (b, k) = (&self.basis, self.basis.range_len());
        let tables = ops::mrc_tables(d.gpu(), b.range_moduli())?;
        let digits = d.digits(&tables, self.len)?;
        let host = d.gpu().download_words(&digits, k * self.len)?;
        Ok(layout::to_number_major(&host, self.len, k))
    }
}
