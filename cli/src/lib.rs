//! The `rns` command line ([`command`], writing through [`output`]) and the comparison
//! runner behind `rns compare` (and `cli/examples/compare.rs`): every operation of the
//! `rns` library measured on the CPU and the GPU, written as tables, CSV, JSON and
//! charts. It lives beside the library, so that the library carries neither `clap` nor
//! `plotters` and its font.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod batch;
pub mod command;
pub mod compare;
mod matrix_run;
pub mod output;
mod plot;
mod session;
