//! Polynomials over Z: univariate ([`intpoly`]) and bivariate ([`bipoly`]), with their
//! file formats; their Sylvester matrix ([`sylvester`]) and the bounds on their
//! resultants ([`bounds`]); the pseudo-remainder by halves ([`prem`]).

pub mod bipoly;
pub mod bounds;
pub mod intpoly;
pub mod prem;
pub mod sylvester;
