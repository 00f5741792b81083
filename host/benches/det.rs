//! Exact determinant of a 200×200 matrix with 100-bit entries on the CPU backend
//! (compare with FLINT: `cargo run --release --example determinant -- 200 100 m.txt`
//! then `scripts/flint_det.py m.txt`).

use criterion::{criterion_group, criterion_main, Criterion};
use rns::{det, Backend, IntMatrix};
use rug::rand::RandState;
use rug::Integer;

fn bench(c: &mut Criterion) {
    let n = 200;
    let mut rng = RandState::new();
    let data = (0..n * n)
        .map(|_| Integer::from(Integer::random_bits(100, &mut rng)) - (Integer::from(1) << 99u32))
        .collect();
    let a = IntMatrix::new(n, n, data).unwrap();
    let mut g = c.benchmark_group("det");
    g.sample_size(10);
    g.bench_function("200x200_100bit_cpu", |b| {
        b.iter(|| det(&a, &Backend::Cpu).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
