//! A device's measured speed, by which a computation's channels are shared among
//! several GPUs ([`crate::backend::split`]).

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::Matmul;
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::num::basis::RnsBasis;

/// The calibration product: `CHANNELS` products of `N × N` matrices.
const N: usize = 96;
const CHANNELS: usize = 256;

/// Modular multiply-adds per nanosecond of the batched product kernel on this
/// device, measured once (a few milliseconds, on first use) and remembered.
pub fn speed(gpu: &Gpu) -> Result<f64> {
    if let Some(&s) = gpu.speed.get() {
        return Ok(s);
    }
    let s = measure_speed(gpu)?;
    Ok(*gpu.speed.get_or_init(|| s))
}

fn measure_speed(gpu: &Gpu) -> Result<f64> {
    let basis = RnsBasis::largest_primes(CHANNELS)?;
    let dm = gpu.upload(&moduli_words(basis.moduli()))?;
    let x: Vec<u32> = (0..CHANNELS * N * N)
        .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 2)
        .collect();
    let (da, db) = (gpu.upload(&x)?, gpu.upload(&x)?);
    let mut out = gpu.alloc(CHANNELS * N * N)?;
    let shape = Matmul {
        n: N,
        k: N,
        p: N,
        channels: CHANNELS,
    };
    let s = gpu.stream();
    launch::launch_matmul(gpu, s, shape, &mut out, &da, &db, &dm)?;
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let ms = gpu.time_ms(|| launch::launch_matmul(gpu, s, shape, &mut out, &da, &db, &dm))?;
        best = best.min(ms);
    }
    Ok((N * N * N * CHANNELS) as f64 / (best.max(1e-6) * 1e6))
}
