//! The `rns` command line: exact results through residues, on the CPU or the GPU.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use rns_cli::output::Output;
use std::process::ExitCode;

fn main() -> ExitCode {
    rns::limits::fit_allocator();
    let mut out = Output::std();
    let code = rns_cli::command::main(std::env::args_os(), &mut out);
    drop(out);
    rns::cluster::finish();
    // When the CPU did the work while CUDA was still starting on its thread, the normal
    // exit would wait for the driver's start-up to finish (its exit handlers take the
    // same lock): leave at once instead, the output already flushed (every write of
    // `Output` flushes).
    if rns::backend::auto::Chooser::still_starting() {
        // SAFETY: ends the process; nothing of ours is left to run or to flush.
        unsafe { libc::_exit(code) };
    }
    ExitCode::from(code as u8)
}
