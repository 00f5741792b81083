//! Polynomials over Z: univariate ([`intpoly`]) and bivariate ([`bipoly`]), with their
//! file formats.

pub mod bipoly;
pub mod intpoly;
