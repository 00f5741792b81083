//! Polynomials over Z: univariate ([`intpoly`]) and bivariate ([`bipoly`]), with their
//! file formats; their Sylvester matrix ([`sylvester`]) and the bounds on their
//! resultants ([`bounds`]).

pub mod bipoly;
pub mod bounds;
pub mod intpoly;
pub mod sylvester;
