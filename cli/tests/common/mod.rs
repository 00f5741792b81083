//! What the CLI's test files share: the binary, running it, its text.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
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

/// A directory of inputs for this test binary.
pub fn dir() -> PathBuf {
    let d = std::env::temp_dir().join(format!("rns-cli-tests-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Writes `dir()/name` and returns its path, replacing the file whole (tests running at
/// once rewrite the same inputs while commands of other tests read them).
pub fn write(name: &str, text: &str) -> String {
    let p = dir().join(name);
    let tmp = dir().join(format!("{name}.{:?}", std::thread::current().id()));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, &p).unwrap();
    p.display().to_string()
}

/// Bytes of output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Whether a GPU is usable; without one the test should return (it prints that it
/// skips), unless `RNS_REQUIRE_GPU=1`, when it fails here.
pub fn gpu_usable() -> bool {
    if rns::Backend::select(rns::BackendChoice::Gpu).is_ok() {
        return true;
    }
    assert_ne!(
        std::env::var("RNS_REQUIRE_GPU").as_deref(),
        Ok("1"),
        "RNS_REQUIRE_GPU=1 but no GPU is usable"
    );
    let _ = writeln!(std::io::stderr(), "SKIPPED: no usable GPU");
    false
}
