//! The comparison runner behind `rns compare` (and `cli/examples/compare.rs`): every
//! operation of the `rns` library measured on the CPU and the GPU, written as tables,
//! CSV, JSON and charts. It lives beside the command line, so that the library carries
//! neither `clap` nor `plotters` and its font.

pub mod compare;
mod plot;
