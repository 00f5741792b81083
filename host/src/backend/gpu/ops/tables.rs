//! The device tables of mixed-radix conversion for a set of range moduli
//! ([`MrcTables`]): the moduli, the `K × K` table (built on the device, one thread per
//! entry: for thousands of moduli that is milliseconds, against a tenth of a second on
//! the host plus the copy), the residues of `H = (M − 1)/2` and its digits, and the
//! tables of the interval pass. Kept in the device's cache for the last few bases, so
//! that repeated conversions over one basis pay once.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::{limbs_for, Digits, MrcTables};
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::num::basis::half_residues;
use rns_core::Modulus;
use std::sync::Arc;

/// The mixed-radix tables of `range` on `gpu` (built there on first use).
pub fn mrc_tables(gpu: &Gpu, range: &[Modulus]) -> Result<Arc<MrcTables>> {
    let primes: Vec<u32> = range.iter().map(|m| m.m).collect();
    gpu.cached(&primes, || {
        let k = range.len();
        let s = gpu.stream();
        let moduli = gpu.upload(&moduli_words(range))?;
        let mut table = gpu.alloc(k * k)?;
        launch::launch_mr_table(gpu, s, k, &mut table, &moduli)?;
        let half = gpu.upload(&half_residues(range))?;
        let mut half_digits = gpu.alloc(k)?;
        let shape = Digits { len: 1, k };
        launch::launch_digits(
            gpu,
            s,
            shape,
            &mut half_digits,
            &half,
            None,
            &moduli,
            &table,
        )?;
        let mut coef = gpu.alloc(k)?;
        let (mut weights, mut zero_terms) = (gpu.alloc(2 * k)?, gpu.alloc(2 * k)?);
        launch::launch_interval_table(
            gpu,
            s,
            k,
            &mut coef,
            &mut weights,
            &mut zero_terms,
            &moduli,
        )?;
        Ok(MrcTables {
            moduli,
            table,
            half,
            half_digits,
            coef,
            weights,
            zero_terms,
            slack: rns_core::interval::slack(range),
            limbs: limbs_for(range),
            k,
        })
    })
}
