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

#![deny(missing_docs, unreachable_pub)]

pub mod algo;
pub mod backend;
pub mod cluster;
pub mod error;
pub mod input;
pub mod interrupt;
pub mod lazy;
pub mod limits;
pub mod mat;
pub mod num;
pub mod poly;
pub mod timing;

pub use algo::charpoly::charpoly;
pub use algo::det::{det, det_with, DetOptions, DetStats};
pub use algo::matmul::{
    matmul, matmul_text, matmul_text_of, matmul_text_of_with, matmul_text_with,
};
pub use algo::method::Method;
pub use algo::minpoly::minpoly;
pub use algo::nullspace::nullspace;
pub use algo::rank::rank;
pub use algo::resultant::{resultant, resultant_with, ResultantOptions, ResultantStats};
pub use algo::resultant_xy::{resultant_xy, resultant_xy_with};
pub use algo::rref::{rref, Rref};
pub use algo::solve::{
    inverse, inverse_with, solve, solve_over_denominator, solve_over_denominator_with, solve_with,
    OverDenominator, SolveOptions,
};
pub use backend::resident::{Location, ResidentVec};
pub use backend::{Backend, BackendChoice, Devices, Op};
pub use error::{Error, Result};
pub use mat::matrix::{IntMatrix, RatMatrix};
pub use mat::modmat::{Echelon, ModMatrices};
pub use mat::text::TextMatrix;
pub use num::basis::RnsBasis;
pub use num::crt::CrtMethod;
pub use num::vector::RnsVec;
pub use poly::bipoly::BiPoly;
pub use poly::intpoly::IntPoly;

/// The README's Rust example, run by `cargo test --doc`.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
