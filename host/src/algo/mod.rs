//! The exact algorithms over Z and Q: each bounds its answer, picks its primes and runs
//! its modular work through a [`crate::Backend`].

pub mod det;
pub mod dixon;
pub mod dixon_gpu;
pub mod linalg;
pub mod method;
pub mod resultant;
