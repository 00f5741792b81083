//! Residue arithmetic for a residue number system (RNS) over 31-bit primes.
//!
//! This crate is the single source of truth for the arithmetic: the GPU kernels
//! (`device`, compiled to PTX) and the CPU backend (`host`) both call it. It is
//! `no_std` and allocates nothing; tables are written into caller-provided slices.
//!
//! * [`prime`]: deterministic primality for `u32` and generation of 31-bit primes.
//! * [`modulus`]: [`Modulus`], the per-prime constants and the residue operations
//!   (`add`, `sub`, `neg`, the canonical `mul_m`, `mul_add`, `ab − cd`, `pow`, `inv`).
//! * [`mixed_radix`]: the mixed-radix table `inv(m_i) mod m_j`, mixed-radix
//!   conversion, the digits of `(M−1)/2` and the sign test.
//! * [`limbs`]: signed binary limbs and residues of numbers given by mixed-radix digits.
//! * [`decimal`]: decimal text in chunks of `10^9` from mixed-radix digits.
//! * [`charpoly`]: the characteristic polynomial modulo a prime (Hessenberg form and
//!   the recurrence of its leading blocks' polynomials).
//! * [`minpoly`]: the minimal polynomial modulo a prime (Krylov sequences of generating
//!   vectors in reduced echelon form, the least common multiple of their polynomials).
//! * [`crt`]: the CRT constants `inv(M/m_i) mod m_i`.
//! * [`euclid`]: Euclid's resultant modulo a prime in passes of two quotient
//!   coefficients, the steps of the block-per-prime GPU kernel.
//! * [`euclid_levels`]: the same resultant by levels of normal steps: quadratic work on
//!   the remainders' tops only, the rest one product of polynomials a level.
//! * [`euclid_redc`]: the same kernel's rounds of normal steps in Montgomery form, on
//!   signed residues (integer only).
//! * [`imma`]: modular matrix products on INT8 tensor cores (byte planes, group sums).
//! * [`ozaki`]: the same products by small moduli, one INT8 product each (Ozaki II).
//! * [`padic`]: one row's step of Dixon's p-adic lifting on 128-bit residuals.
//! * [`interval`]: sign and comparison by interval evaluation of the CRT fraction.
//! * [`redc`]: Montgomery products modulo a large odd number in two bases (the steps of
//!   the device's proof that a solve's numerators are coprime to its denominator).
//! * [`launch`]: the kernels' launch geometry, shared by the device and the host.
//! * [`linalg`]: elimination modulo a prime (determinant, rank, reduced echelon form,
//!   inverse, solve), the delayed-reduction steps of matrix products, resultants.
//! * [`poly`]: evaluation, bivariate resultants at a point and interpolation (the steps
//!   of Collins' modular resultant).
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(core_intrinsics, asm_experimental_arch)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]

pub mod charpoly;
pub mod crt;
pub mod decimal;
pub mod euclid;
pub mod euclid_levels;
pub mod euclid_redc;
pub mod imma;
pub mod interval;
pub mod launch;
pub mod limbs;
pub mod linalg;
pub mod minpoly;
pub mod mixed_radix;
pub mod modulus;
pub mod ozaki;
pub mod padic;
pub mod poly;
pub mod prime;
pub mod redc;
#[cfg(test)]
mod testing;

pub use modulus::{Modulus, ModulusError};
