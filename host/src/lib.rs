//! **rns**: exact big-integer arithmetic and linear algebra through a residue number system.
//!
//! A big integer is held as its residues modulo many 31-bit primes ([`RnsBasis`]); every
//! residue channel is independent, so add, sub and mul run channel by channel with no
//! carries. Equality, sign and comparison combine channels (mixed-radix conversion), and
//! the Chinese remainder theorem brings the integers back ([`RnsVec::to_integers`]).
//!
//! ```
//! use rns::{Backend, RnsBasis, RnsVec};
//! use rug::Integer;
//! use std::sync::Arc;
//!
//! let basis = Arc::new(RnsBasis::for_bits(200));
//! let a = RnsVec::from_integers(&basis, &[Integer::from(-12), Integer::from(1) << 150u32])?;
//! let b = RnsVec::from_i64(&basis, &[5, -3])?;
//! let cpu = Backend::Cpu;
//! let c = cpu.mul(&a, &b)?;
//! assert_eq!(c.to_integers_checked()?, [Integer::from(-60), Integer::from(-3) << 150u32]);
//! # Ok::<(), rns::Error>(())
//! ```

pub mod backend;
pub mod basis;
pub mod bipoly;
pub mod bounds;
pub mod cluster;
pub mod cost;
pub mod crt;
pub mod decimal;
pub mod det;
pub mod dixon;
pub mod dixon_gpu;
pub mod error;
pub mod fractions;
pub mod interrupt;
pub mod layout;
pub mod limits;
pub mod linalg;
pub mod matrix;
pub mod method;
pub mod modmat;
pub mod poly;
pub mod ratrecon;
pub mod resident;
pub mod resultant;
pub mod sieve;
pub mod timing;
pub mod vector;
pub mod words;

pub use backend::{Backend, BackendChoice, Devices, Op};
pub use basis::RnsBasis;
pub use bipoly::BiPoly;
pub use crt::CrtMethod;
pub use det::{det, det_with_method, det_with_stats, DetStats};
pub use error::{Error, Result};
pub use matrix::{IntMatrix, RatMatrix};
pub use method::Method;
pub use modmat::{Echelon, ModMatrices};
pub use poly::IntPoly;
pub use resident::{Location, ResidentVec};
pub use resultant::{
    resultant, resultant_with_stats, resultant_xy, resultant_xy_with_stats, ResultantStats,
};
pub use vector::RnsVec;
