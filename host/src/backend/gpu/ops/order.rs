//! Sign and comparison on the device: the interval pass of `rns_core::interval` for
//! every number, then the exact mixed-radix path for the numbers it left undecided,
//! all on one stream (no wait on the host in between).

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch;
use crate::backend::gpu::Gpu;
use crate::error::Result;
use rns_core::Modulus;

/// `inv(M/m_i) mod m_i` for the moduli `range` (`M` their product), computed on the
/// device by the interval table kernel (`O(K)` per modulus, one thread each).
pub fn cofactor_inverses(gpu: &Gpu, range: &[Modulus]) -> Result<Vec<u32>> {
    let k = range.len();
    let s = gpu.stream();
    let moduli = gpu.upload(&moduli_words(range))?;
    let mut coef = gpu.alloc(k)?;
    // The kernel writes the interval pass's weights and terms of 0 too (O(K), unused
    // here; the mixed-radix tables of `mrc_tables` would take K² words).
    let (mut weights, mut zero_terms) = (gpu.alloc(2 * k)?, gpu.alloc(2 * k)?);
    launch::launch_interval_table(gpu, s, k, &mut coef, &mut weights, &mut zero_terms, &moduli)?;
    gpu.download(&coef, k)
}
