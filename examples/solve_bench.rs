//! Exact solves over Q with many right-hand sides, stage by stage, on the GPU backend
//! (the CPU's when no GPU is usable): `A` of `n × n` and `B` of `n × l` with `bits`-bit
//! entries from a fixed seed (`B = I` for `l = inverse`), by `method` (`auto`, `dixon`,
//! `multimodular`). One run after a warm-up on a small system; the stages as
//! `solve_with` reports them, and the total.
//!
//! `cargo run --release --example solve_bench -- [--host-numerators] [--host-coprime]
//! [--small-moduli] N L BITS METHOD [...]`: `--host-numerators`, the lifting's numerators
//! by the host's GMP, not on the device; `--host-coprime`, the fractions' numerators
//! proved coprime to the denominator by the host's products, not on the device;
//! `--small-moduli`, every product on the tensor cores by small moduli, whatever its
//! shape.

use rns::backend::gpu::TensorSplit::SmallModuli;
use rns::{solve_with, Backend, BackendChoice, IntMatrix, Method};
use rns_suite::Gen;
use std::time::Instant;

type R<T> = Result<T, Box<dyn std::error::Error>>;

fn main() -> R<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let backend = Backend::select(BackendChoice::Gpu).unwrap_or(Backend::Cpu);
    println!("backend: {}", backend.name());
    while args.first().is_some_and(|a| a.starts_with("--")) {
        let flag = args.remove(0);
        if let Some(g) = backend.gpu() {
            match flag.as_str() {
                "--host-numerators" => g.config().set_numerators_on_device(Some(usize::MAX)),
                "--host-coprime" => g.config().set_coprime_on_device(Some(usize::MAX)),
                "--small-moduli" => g.config().set_tensor_split(Some(SmallModuli)),
                _ => return Err(format!("unknown flag {flag}").into()),
            }
        }
        println!("{}", &flag[2..]);
    }
    let mut gen = Gen::new(7);
    let (a, b) = (gen.matrix(50, 50, 64), gen.matrix(50, 40, 64));
    solve_with(&a, &b, &backend, &Method::Dixon.into())?;
    for case in args.chunks(4) {
        let [n, l, bits, method] = case else {
            return Err("arguments come in fours: N L BITS METHOD".into());
        };
        let (n, bits): (usize, u32) = (n.parse()?, bits.parse()?);
        let method = Method::from_name(method).ok_or("method: auto, dixon or multimodular")?;
        let a = gen.matrix(n, n, bits);
        let b = match l.as_str() {
            "inverse" => IntMatrix::identity(n),
            l => gen.matrix(n, l.parse()?, bits),
        };
        let t = Instant::now();
        let (x, stages) = solve_with(&a, &b, &backend, &method.into())?;
        let total = t.elapsed().as_secs_f64();
        let den_bits = x.get(0, 0).denom().significant_bits();
        println!(
            "solve {n}² {bits}-bit × {} ({method}): {total:.3} s, denominator {den_bits} bits",
            b.cols()
        );
        for (what, d) in stages {
            println!("    {what}: {:.1} ms", d.as_secs_f64() * 1e3);
        }
    }
    Ok(())
}
