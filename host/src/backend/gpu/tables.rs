//! The device tables of mixed-radix conversion for a set of range moduli: the moduli,
//! the `K × K` table (built on the device, one thread per entry: for thousands of
//! moduli that is milliseconds, against a tenth of a second on the host plus the copy),
//! the residues of `H = (M − 1)/2` and its digits. Cached per device for the last few
//! bases, so that repeated conversions over one basis pay once.

use super::launch::{Cmp, Digits};
use super::memory::moduli_words;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream};
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
        let t = Arc::new(MrcTables {
            moduli,
            table,
            half,
            half_digits,
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

impl Gpu {
    /// Launches on `s` the comparison of `len` numbers over the tables `t`: the offset
    /// mixed-radix digits of `a` (and of `b`) into `scratch`, one `K × len` buffer per
    /// side, then −1, 0 or 1 per number into `out`: `a` against `b`, or the sign of `a`
    /// when `b` is `None`.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_compare(
        &self,
        s: &CudaStream,
        t: &MrcTables,
        len: usize,
        a: &CudaSlice<u32>,
        b: Option<&CudaSlice<u32>>,
        scratch: &mut [CudaSlice<u32>],
        out: &mut CudaSlice<u32>,
    ) -> Result<()> {
        let sides = 1 + b.is_some() as usize;
        let [da, rest @ ..] = scratch else {
            return Err(Error::Internal("comparison without digit scratch".into()));
        };
        if rest.len() + 1 < sides {
            return Err(Error::Internal(
                "comparison of two sides with one scratch".into(),
            ));
        }
        let shape = Digits { len, k: t.k };
        self.launch_digits(s, shape, da, a, Some(&t.half), &t.moduli, &t.table)?;
        let db = match b {
            Some(b) => {
                let db = &mut rest[0];
                self.launch_digits(s, shape, db, b, Some(&t.half), &t.moduli, &t.table)?;
                &*db
            }
            None => &t.half_digits,
        };
        let cmp = Cmp {
            len,
            k: t.k,
            broadcast: b.is_none(),
        };
        self.launch_cmp(s, cmp, out, da, db)
    }
}

impl TableCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Vec<u32>, Arc<MrcTables>)>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }
}
