//! Characteristic polynomials modulo many primes on the GPU, two ways on the same
//! residues: a block per prime (`ops::matrix_polynomial_per_channel`, the kernel of
//! `charpoly` over Z) and every prime's Hessenberg form and recurrence by whole-grid
//! launches (`ops::charpoly_mod_grid`, the library's path from order 400), answers
//! compared. Each `N:K` case is `K` primes of an `N × N` matrix (random residues); one
//! warm-up, then the median of three runs each.
//!
//! `cargo run --release --example charpoly_bench -- 250:600 500:1150 1000:2250`

use rns::backend::gpu::ops;
use rns::mat::modmat::MatrixPolynomial;
use rns::num::basis::RnsBasis;
use rns::num::vector::RnsVec;
use rns::{Backend, BackendChoice};
use std::sync::Arc;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

/// The median seconds of three runs of `f` after a warm-up, and its last answer.
fn time(mut f: impl FnMut() -> R<Vec<u32>>) -> R<(f64, Vec<u32>)> {
    f()?;
    let mut t = Vec::new();
    let mut out = Vec::new();
    for _ in 0..3 {
        let s = Instant::now();
        out = f()?;
        t.push(s.elapsed().as_secs_f64());
    }
    t.sort_by(f64::total_cmp);
    Ok((t[1], out))
}

fn main() -> R<()> {
    let be = Backend::select(BackendChoice::Gpu)?;
    let g = be.gpu().ok_or("a GPU backend")?;
    println!("device: {}", g.name());
    for case in std::env::args().skip(1) {
        let (n, k) = case.split_once(':').ok_or("cases are N:K")?;
        let (n, k): (usize, usize) = (n.parse()?, k.parse()?);
        let basis = Arc::new(RnsBasis::largest_primes(k)?);
        let moduli = &basis.moduli()[..k];
        let data = RnsVec::random(&basis, n * n, 41).residues()[..k * n * n].to_vec();
        let kind = MatrixPolynomial::Characteristic;
        let (block, want) = time(|| {
            Ok(ops::matrix_polynomial_per_channel(
                g, kind, moduli, n, &data,
            )?)
        })?;
        let (grid, got) = time(|| {
            Ok(ops::charpoly_mod_grid(g, moduli, n, &data)?.ok_or("over the memory budget")?)
        })?;
        let same = if got == want { "same" } else { "DIFFERENT" };
        println!(
            "{n}² × {k} primes: a block per prime {block:.3} s, whole-grid launches {grid:.3} s \
             ({:.2}×), {same}",
            block / grid
        );
    }
    Ok(())
}
