//! The exact algorithms over Z and Q. Each bounds its answer, picks its primes and runs
//! its modular work through a [`crate::Backend`]; the choice of algorithm is a short
//! dispatcher per operation ([`det`], [`solve`]) over [`method::Method`].
//!
//! - determinants: [`det`] (the dispatcher), [`det_bound`] (the bound that sets the
//!   primes), [`det_divisor`] (the divisor trick),
//!   [`det_modular`] (modulo primes, given a divisor);
//! - systems: [`solve`] (the dispatcher, and the inverse), [`solve_dixon`],
//!   [`solve_modular`] (Cramer's rule modulo primes), with Dixon's lifting in [`lift`]
//!   and the fractions in lowest terms in [`fractions`];
//! - [`charpoly`] (the characteristic polynomial over Z, modulo primes to the full bound)
//!   and [`minpoly`] (the minimal polynomial over Z, certified);
//! - [`matmul`] (the exact product), [`rank`] (over Q), [`rref`] (the reduced echelon
//!   form over Q, certified) and [`nullspace`] (an integer basis from it);
//! - resultants: [`resultant`] (univariate), [`resultant_xy`] (bivariate, Collins);
//! - [`estimate`]: the cost model's price of each, as [`method::Method::Auto`] runs it.

pub mod charpoly;
pub mod det;
pub mod det_bound;
pub mod det_divisor;
pub mod det_modular;
pub mod estimate;
pub mod fractions;
pub mod lift;
pub mod matmul;
pub mod method;
pub mod minpoly;
pub mod nullspace;
pub mod rank;
pub mod resultant;
pub mod resultant_unbalanced;
pub mod resultant_xy;
pub mod rref;
pub mod solve;
pub mod solve_dixon;
pub mod solve_modular;
