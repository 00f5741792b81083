//! Numbers in residues and back: bases of primes, residue vectors and their storage,
//! the Chinese remainder theorem, decimal text, rational reconstruction and fractions.

pub mod basis;
pub mod crt;
pub mod decimal;
pub mod fractions;
pub mod layout;
pub mod ratrecon;
pub mod sieve;
pub mod vector;
pub mod words;
