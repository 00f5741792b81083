//! Modular multiplication on the CPU: `mul_m` (FP64 quotient estimate) vs the `%`
//! reference vs Shoup's fixed-multiplier product, over 2^16 independent products.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rns_core::Modulus;
use std::hint::black_box;

fn inputs(n: usize, m: u32) -> (Vec<u32>, Vec<u32>) {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % m as u64) as u32
    };
    (
        (0..n).map(|_| next()).collect(),
        (0..n).map(|_| next()).collect(),
    )
}

fn bench(c: &mut Criterion) {
    let m = Modulus::new(2_147_483_629).unwrap();
    let n = 1 << 16;
    let (a, b) = inputs(n, m.m);
    let mut out = vec![0u32; n];
    let mut g = c.benchmark_group("modmul");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("mul_m", |bch| {
        bch.iter(|| {
            for ((o, &x), &y) in out.iter_mut().zip(&a).zip(&b) {
                *o = m.mul(x, y);
            }
            black_box(&out);
        })
    });
    g.bench_function("naive_u64_rem", |bch| {
        bch.iter(|| {
            for ((o, &x), &y) in out.iter_mut().zip(&a).zip(&b) {
                *o = m.mul_naive(x, y);
            }
            black_box(&out);
        })
    });
    let f = b[0];
    let fs = m.shoup(f);
    g.bench_function("shoup_fixed_multiplier", |bch| {
        bch.iter(|| {
            for (o, &x) in out.iter_mut().zip(&a) {
                *o = m.mul_shoup(x, f, fs);
            }
            black_box(&out);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
