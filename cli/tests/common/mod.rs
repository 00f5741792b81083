//! What the CLI's test files share: the binary, running it, its text.
#![allow(dead_code)]

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// The `rns` binary: `RNS_BIN` where the tests run away from the build tree.
pub fn bin() -> String {
    std::env::var("RNS_BIN").unwrap_or_else(|_| env!("CARGO_BIN_EXE_rns").to_string())
}

/// Runs `rns args` with `stdin` as its standard input.
pub fn rns(args: &[&str], stdin: &str) -> Output {
    rns_env(args, stdin, &[])
}

/// [`rns`] with extra environment variables.
pub fn rns_env(args: &[&str], stdin: &str, env: &[(&str, &str)]) -> Output {
    let mut child = Command::new(bin())
        .args(args)
        .envs(env.iter().copied())
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rns");
    // A process that fails before reading its input closes the pipe: not our error.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

/// Bytes of output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}
