//! CRT reconstruction of 10^5 numbers over 64 and 330 primes: mixed radix (Garner)
//! vs precomputed weights; and the conversion into residues.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rns::{CrtMethod, RnsBasis, RnsVec};
use rug::rand::RandState;
use rug::Integer;
use std::sync::Arc;

fn bench(c: &mut Criterion) {
    let n = 100_000;
    let mut g = c.benchmark_group("crt_1e5");
    g.sample_size(10);
    g.throughput(Throughput::Elements(n as u64));
    for primes in [64usize, 330] {
        let list: Vec<u32> = rns_core::prime::moduli_descending(|_| false)
            .take(primes)
            .collect();
        let basis = Arc::new(RnsBasis::from_primes(&list).unwrap());
        let mut rng = RandState::new();
        let bits = basis.range_bits() as u32;
        let values: Vec<Integer> = (0..n)
            .map(|_| {
                Integer::from(Integer::random_bits(bits, &mut rng))
                    - (Integer::from(1) << (bits - 1))
            })
            .collect();
        let x = RnsVec::from_integers(&basis, &values).unwrap();
        g.bench_function(format!("to_rns/{primes}"), |b| {
            b.iter(|| RnsVec::from_integers(&basis, &values).unwrap())
        });
        g.bench_function(format!("weights/{primes}"), |b| {
            b.iter(|| x.to_integers_with(CrtMethod::Weights))
        });
        g.bench_function(format!("mixed_radix/{primes}"), |b| {
            b.iter(|| x.to_integers_with(CrtMethod::MixedRadix))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
