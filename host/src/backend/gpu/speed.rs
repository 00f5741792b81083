//! A device's measured speed, by which a computation's channels are shared among
//! several GPUs ([`crate::backend::split`]).

use super::launch::Matmul;
use super::memory::moduli_words;
use super::Gpu;
use crate::error::Result;
use crate::num::basis::RnsBasis;

/// The calibration product: `CHANNELS` products of `N × N` matrices.
const N: usize = 96;
const CHANNELS: usize = 256;

impl Gpu {
    /// Modular multiply-adds per nanosecond of the batched product kernel on this
    /// device, measured once (a few milliseconds, on first use) and remembered.
    pub fn speed(&self) -> Result<f64> {
        if let Some(&s) = self.speed.get() {
            return Ok(s);
        }
        let s = self.measure_speed()?;
        Ok(*self.speed.get_or_init(|| s))
    }

    fn measure_speed(&self) -> Result<f64> {
        let basis = RnsBasis::largest_primes(CHANNELS)?;
        let dm = self.upload(&moduli_words(basis.moduli()))?;
        let x: Vec<u32> = (0..CHANNELS * N * N)
            .map(|i| (i as u32).wrapping_mul(2_654_435_761) >> 2)
            .collect();
        let (da, db) = (self.upload(&x)?, self.upload(&x)?);
        let mut out = self.alloc(CHANNELS * N * N)?;
        let shape = Matmul {
            n: N,
            k: N,
            p: N,
            channels: CHANNELS,
        };
        let s = self.stream();
        self.launch_matmul(s, shape, &mut out, &da, &db, &dm)?;
        let mut best = f64::INFINITY;
        for _ in 0..3 {
            let ms = self.time_ms(|| self.launch_matmul(s, shape, &mut out, &da, &db, &dm))?;
            best = best.min(ms);
        }
        Ok((N * N * N * CHANNELS) as f64 / (best.max(1e-6) * 1e6))
    }
}
