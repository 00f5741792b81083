//! Exact determinant of a random 200×200 matrix with 64-bit entries, through residues,
//! with the time of each stage, cross-checked against fraction-free elimination
//! (Bareiss, in rug) on a smaller matrix.
//!
//! `cargo run --release --example determinant [-- N BITS [MATRIX_OUT]]`: size and entry
//! bits (default 200 and 64); with MATRIX_OUT the matrix is also written in the `rns`
//! text format (for a comparison with FLINT: `scripts/flint_det.py MATRIX_OUT`).

use rns::{Backend, BackendChoice};
use rns_suite::{bareiss_det, Gen};
use std::time::Instant;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().map_or(Ok(200), |s| s.parse())?;
    let bits: u32 = args.get(1).map_or(Ok(64), |s| s.parse())?;
    let backend = Backend::select(BackendChoice::Auto)?;

    let mut gen = Gen::new(2026);
    let a = gen.matrix(n, n, bits);
    if let Some(path) = args.get(2) {
        std::fs::write(path, a.to_string())?;
    }
    let t = Instant::now();
    let (d, st) = rns::det_with(&a, &backend, &rns::DetOptions::default())?;
    let total = t.elapsed();
    println!(
        "{n}×{n} matrix, entries below 2^{bits}, backend {}",
        st.backend
    );
    println!(
        "Hadamard bound 2^{}: {} primes + 1 redundant",
        st.bound_bits, st.primes
    );
    for (name, t) in &st.stages {
        println!("  {name:>10}: {:9.3} ms", t.as_secs_f64() * 1e3);
    }
    println!("  {:>10}: {:9.3} ms", "total", total.as_secs_f64() * 1e3);
    let digits = d.to_string();
    println!(
        "det has {} decimal digits: {}…{}",
        digits.trim_start_matches('-').len(),
        &digits[..digits.len().min(20)],
        &digits[digits.len().saturating_sub(20)..]
    );

    let m = n.min(60);
    let small = gen.matrix(m, m, bits);
    let t = Instant::now();
    let want = bareiss_det(&small);
    let t_ref = t.elapsed();
    let t = Instant::now();
    let got = rns::det(&small, &backend)?;
    let t_rns = t.elapsed();
    if got != want {
        return Err(format!("{m}×{m} cross-check FAILED: rns {got} vs Bareiss {want}").into());
    }
    println!(
        "cross-check {m}×{m}: equal to Bareiss (rns {:.3} ms, Bareiss {:.3} ms)",
        t_rns.as_secs_f64() * 1e3,
        t_ref.as_secs_f64() * 1e3
    );
    Ok(())
}
