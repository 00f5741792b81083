//! Numbers in residues and back: bases of primes, residue vectors and their storage,
//! the elementwise operations on them, the Chinese remainder theorem, integers packed
//! for the device, decimal text, rational reconstruction and fractions.

pub mod barrett;
pub mod basis;
pub mod crt;
pub mod crt_decimal;
pub mod crt_weights;
pub mod decimal;
pub mod fractions;
pub mod layout;
pub mod multimod;
pub mod multimod_table;
pub mod op;
pub mod pack;
pub mod products;
pub mod ratrecon;
pub mod redc;
pub mod sieve;
pub mod vector;
pub mod words;
