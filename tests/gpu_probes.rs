//! The throughput probes that the roofline's limits come from (`rns_mul_chain`,
//! `rns_mad_chain`), against the host's recomputation of every output word, over one
//! and several channels and a length that leaves a partial block.

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::driver::raw::moduli_words;
use rns::backend::gpu::launch::{self, MulChain};
use rns_suite::{dev, gpu_backend as gpu};

#[test]
fn probes_match_the_host() {
    let Some(b) = gpu() else { return };
    let g = dev(&b);
    let moduli = rns::RnsBasis::largest_primes(3).unwrap().moduli().to_vec();
    for (channels, len, iters) in [(1, 1000, 8), (3, 333, 12)] {
        let m = &moduli[..channels];
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let a: Vec<u32> = (0..channels * len)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Edge values first: 0, 1, m − 1.
                let mc = m[i / len].m;
                match i % len {
                    0 => 0,
                    1 => 1,
                    2 => mc - 1,
                    _ => (x % mc as u64) as u32,
                }
            })
            .collect();
        let (da, dm) = (
            raw::upload(g, &a).unwrap(),
            raw::upload(g, &moduli_words(m)).unwrap(),
        );
        let mut out = raw::alloc(g, a.len()).unwrap();
        let shape = MulChain {
            len,
            channels,
            iters,
        };
        launch::launch_mul_chain(g, &mut out, &da, &dm, shape).unwrap();
        let got = raw::download(g, &out, a.len()).unwrap();
        for (i, (&y, &w)) in a.iter().zip(&got).enumerate() {
            let mc = m[i / len];
            let mut v = [y, mc.add(y, 1), mc.add(y, 2), mc.add(y, 3)];
            for _ in 0..iters {
                v = v.map(|t| mc.mul(t, y));
            }
            assert_eq!(
                w,
                v[0] ^ v[1] ^ v[2] ^ v[3],
                "mul_chain at {i}, {channels} channels"
            );
        }
        launch::launch_mad_chain(g, &mut out, &da, shape).unwrap();
        let got = raw::download(g, &out, a.len()).unwrap();
        for (i, (&y, &w)) in a.iter().zip(&got).enumerate() {
            let mut acc: [u64; 8] = std::array::from_fn(|j| y as u64 + j as u64);
            for _ in 0..iters {
                acc = acc.map(|c| c.wrapping_add((c as u32 as u64) * y as u64));
            }
            let v = acc.iter().fold(0, |v, c| v ^ c);
            assert_eq!(
                w,
                (v ^ (v >> 32)) as u32,
                "mad_chain at {i}, {channels} channels"
            );
        }
    }
}
