//! The device tables of mixed-radix conversion for a set of range moduli: the moduli,
//! the `K × K` table (built on the device, one thread per entry: for thousands of
//! moduli that is milliseconds, against a tenth of a second on the host plus the copy),
//! the residues of `H = (M − 1)/2` and its digits, and the tables of the interval pass.
//! Cached per device for the last few bases, so that repeated conversions over one basis
//! pay once.

use super::launch::Digits;
use super::memory::moduli_words;
use super::Gpu;
use crate::error::Result;
use cudarc::driver::CudaSlice;
use rns_core::Modulus;
use std::sync::{Arc, Mutex};

/// Bases whose tables a device keeps.
const CACHED: usize = 4;

/// Mixed-radix tables of one set of range moduli on one device.
#[derive(Debug)]
pub struct MrcTables {
    /// The `K` range moduli.
    pub moduli: CudaSlice<u32>,
    /// `table[i·K + j] = inv(m_i) mod m_j` for `i < j`.
    pub table: CudaSlice<u32>,
    /// `(m_c − 1)/2` per channel: the residues of `H`, the offset that maps the signed
    /// range onto `[0, M)`.
    pub half: CudaSlice<u32>,
    /// The mixed-radix digits of `H`.
    pub half_digits: CudaSlice<u32>,
    /// `inv(M/m_i) mod m_i` per channel, for the interval pass.
    pub coef: CudaSlice<u32>,
    /// `⌊2^64/m_i⌋` per channel, for the interval pass: `u64`s, two words each.
    pub weights: CudaSlice<u32>,
    /// The interval term of the residue 0 per channel (`u64`s, two words each): the
    /// constant side of a sign.
    pub zero_terms: CudaSlice<u32>,
    /// `Σ (m_i − 1)`, the interval pass's error bound.
    pub slack: u64,
    /// 32-bit limbs that hold `M − 1` (`rns_digits_limbs`).
    pub limbs: usize,
    /// `K`.
    pub k: usize,
}

/// The cache: the primes of each basis with its tables, most recent last.
#[derive(Debug, Default)]
pub(crate) struct TableCache {
    entries: Mutex<Vec<(Vec<u32>, Arc<MrcTables>)>>,
}

impl Gpu {
    /// The mixed-radix tables of `range` on this device (built there on first use).
    pub fn mrc_tables(&self, range: &[Modulus]) -> Result<Arc<MrcTables>> {
        let primes: Vec<u32> = range.iter().map(|m| m.m).collect();
        let cache = &self.tables;
        if let Some((_, t)) = cache.lock().iter().find(|(p, _)| *p == primes) {
            return Ok(t.clone());
        }
        let k = range.len();
        let s = self.stream();
        let moduli = self.upload(&moduli_words(range))?;
        let mut table = self.alloc(k * k)?;
        self.launch_mr_table(s, k, &mut table, &moduli)?;
        let half = self.upload(&crate::backend::half_residues(range))?;
        let mut half_digits = self.alloc(k)?;
        self.launch_digits(
            s,
            Digits { len: 1, k },
            &mut half_digits,
            &half,
            None,
            &moduli,
            &table,
        )?;
        let mut coef = self.alloc(k)?;
        let (mut weights, mut zero_terms) = (self.alloc(2 * k)?, self.alloc(2 * k)?);
        self.launch_interval_table(s, k, &mut coef, &mut weights, &mut zero_terms, &moduli)?;
        let t = Arc::new(MrcTables {
            moduli,
            table,
            half,
            half_digits,
            coef,
            weights,
            zero_terms,
            slack: rns_core::interval::slack(range),
            limbs: super::limbs::limbs_for(range),
            k,
        });
        let mut entries = cache.lock();
        entries.push((primes, t.clone()));
        if entries.len() > CACHED {
            entries.remove(0);
        }
        Ok(t)
    }
}

impl TableCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Vec<u32>, Arc<MrcTables>)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}
