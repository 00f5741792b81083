//! The whole command line, in-process: argument lists drawn from the commands' own words
//! (and odd values), with input files from the fuzzer's bytes, run through the same
//! dispatcher as the binary. Never a panic; the exit code is 0 (done or help), 2 (bad
//! input or usage) or 3 (no GPU). Excluded: measuring runs of `compare` (minutes),
//! standard input, and paths outside a scratch directory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rns_cli::output::Output;
use std::ffi::OsString;

/// The words an argument list is drawn from; `F0`, `F1` stand for the two input files.
const WORDS: &[&str] = &[
    "det", "matmul", "rank", "inverse", "solve", "resultant", "resultant-xy", "compare",
    "F0", "F1", "F0", "F1", "--mod", "2147483647", "2147483629", "1073741827", "4", "0",
    "--method", "dixon", "multimodular", "auto", "x", "--backend", "cpu", "auto", "gpu",
    "--devices", "all", "0", "0,0", "--stats", "--from-csv", "--only", "mul,det", "--help",
    "--version", "--device", "--threads", "-1", "99999999999999999999", "",
];

/// Inputs whose work could take long are skipped: over 400 numbers (a resultant of
/// high degree), bivariate polynomials of high degree.
fn too_long(text: &str) -> bool {
    text.split_whitespace().count() > 400
        || rns::BiPoly::parse(text, "f").is_ok_and(|f| f.deg_x() > 24 || f.deg_y() > 24)
}

fuzz_target!(|data: &[u8]| {
    // Up to 8 words (a byte each), then the two files split at the first 0xff.
    let n = (data.first().copied().unwrap_or(0) % 9) as usize;
    let Some(picks) = data.get(1..1 + n) else {
        return;
    };
    let rest = &data[1 + n..];
    let (f0, f1) = match rest.iter().position(|&b| b == 0xff) {
        Some(i) => (&rest[..i], &rest[i + 1..]),
        None => (rest, &rest[..0]),
    };
    let dir = std::env::temp_dir().join(format!("rns-fuzz-cli-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let files = [dir.join("f0"), dir.join("f1")];
    for (path, bytes) in files.iter().zip([f0, f1]) {
        if std::fs::write(path, bytes).is_err() {
            return;
        }
        if too_long(&String::from_utf8_lossy(bytes)) {
            return;
        }
    }
    let words: Vec<&str> = picks.iter().map(|&b| WORDS[b as usize % WORDS.len()]).collect();
    if words.contains(&"compare") && !words.contains(&"--from-csv") {
        return;
    }
    let mut args: Vec<OsString> = vec!["rns".into()];
    for w in words {
        args.push(match w {
            "F0" => files[0].clone().into_os_string(),
            "F1" => files[1].clone().into_os_string(),
            w => w.into(),
        });
    }
    let mut out = Output::new(Box::new(std::io::sink()), Box::new(std::io::sink()));
    let code = rns_cli::command::main(args.clone(), &mut out);
    assert!(matches!(code, 0 | 2 | 3), "{args:?} exited {code}");
});
