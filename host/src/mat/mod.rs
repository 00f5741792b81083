//! Matrices: over Z and Q ([`matrix`]: the text format, parsing and printing), modulo
//! primes ([`modmat`]), as located text not yet converted ([`text`]), and the bounds on
//! their determinants and solutions ([`bounds`]).

pub mod bounds;
pub mod det_bound_float;
mod echelon;
pub mod matrix;
pub mod modmat;
pub mod text;
