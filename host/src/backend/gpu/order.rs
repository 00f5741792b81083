//! Sign and comparison on the device: the interval pass of `rns_core::interval` for
//! every number, then the exact mixed-radix path for the numbers it left undecided,
//! all on one stream (no wait on the host in between).

use super::launch::{launch, need, Cmp, Digits, Interval};
use super::memory::{moduli_words, MODULUS_WORDS};
use super::tables::MrcTables;
use super::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use rns_core::launch::ELEMENT_THREADS;
use rns_core::Modulus;

impl Gpu {
    /// Sign (`b` = `None`) or comparison by interval evaluation: `out[i]` is
    /// `interval::{LESS, EQUAL, GREATER, AMBIGUOUS}` for `a[i]` against `b[i]` or 0.
    #[allow(clippy::too_many_arguments)]
    pub fn launch_interval(
        &self,
        stream: &CudaStream,
        s: Interval,
        out: &mut CudaSlice<u32>,
        a: &CudaSlice<u32>,
        b: Option<&CudaSlice<u32>>,
        t: &MrcTables,
    ) -> Result<()> {
        need("interval output", out, s.len)?;
        need("interval input", a, s.k * s.len)?;
        if let Some(b) = b {
            need("interval input", b, s.k * s.len)?;
        }
        need("moduli", &t.moduli, s.k * MODULUS_WORDS)?;
        need("cofactor inverses", &t.coef, s.k)?;
        need("half residues", &t.half, s.k)?;
        need("interval weights", &t.weights, 2 * s.k)?;
        need("terms of 0", &t.zero_terms, 2 * s.k)?;
        let cfg = LaunchConfig {
            grid_dim: (
                s.len.div_ceil(ELEMENT_THREADS as usize).clamp(1, 1 << 20) as u32,
                1,
                1,
            ),
            block_dim: (ELEMENT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let (len, k, null) = (s.len as u32, s.k as u32, 0u64);
        let f = &self.kernels().interval_cmp;
        let (m, c, h, w) = (&t.moduli, &t.coef, &t.half, &t.weights);
        let (z, sl) = (&t.zero_terms, &t.slack);
        match b {
            Some(b) => launch!(self, stream, f, cfg, out, a, b, m, c, h, w, z, sl, &len, &k),
            None => launch!(self, stream, f, cfg, out, a, &null, m, c, h, w, z, sl, &len, &k),
        }
    }

    /// The interval tables of `k` moduli: cofactor inverses into `coef`, fixed-point
    /// weights into `weights` and the terms of 0 into `zero_terms` (`u64`s, two words
    /// each).
    pub fn launch_interval_table(
        &self,
        stream: &CudaStream,
        k: usize,
        coef: &mut CudaSlice<u32>,
        weights: &mut CudaSlice<u32>,
        zero_terms: &mut CudaSlice<u32>,
        moduli: &CudaSlice<u32>,
    ) -> Result<()> {
        need("cofactor inverses", coef, k)?;
        need("moduli", moduli, k * MODULUS_WORDS)?;
        need("interval weights", weights, 2 * k)?;
        need("terms of 0", zero_terms, 2 * k)?;
        let cfg = LaunchConfig {
            grid_dim: (k.div_ceil(ELEMENT_THREADS as usize).max(1) as u32, 1, 1),
            block_dim: (ELEMENT_THREADS, 1, 1),
            shared_mem_bytes: 0,
        };
        let k32 = k as u32;
        let f = &self.kernels().interval_table;
        launch!(self, stream, f, cfg, coef, weights, zero_terms, moduli, &k32)
    }
}

impl Gpu {
    /// `inv(M/m_i) mod m_i` for the moduli `range` (`M` their product), computed on the
    /// device by the interval table kernel (`O(K)` per modulus, one thread each).
    pub fn cofactor_inverses(&self, range: &[Modulus]) -> Result<Vec<u32>> {
        let k = range.len();
        let s = self.stream();
        let moduli = self.upload(&moduli_words(range))?;
        let mut coef = self.alloc(k)?;
        // The kernel writes the interval pass's weights and terms of 0 too (O(K), unused
        // here; the mixed-radix tables of `mrc_tables` would take K² words).
        let (mut weights, mut zero_terms) = (self.alloc(2 * k)?, self.alloc(2 * k)?);
        self.launch_interval_table(s, k, &mut coef, &mut weights, &mut zero_terms, &moduli)?;
        self.download(&coef, k)
    }

    /// Launches on `s` the comparison of `len` numbers over the tables `t`, into `out`
    /// (−1, 0 or 1 per number as `u32`): `a` against `b`, or the sign of `a` when `b` is
    /// `None`. First the interval pass decides almost every number; then the offset
    /// mixed-radix digits of the undecided ones go into `scratch` (one `K × len` buffer
    /// per side) and their digits are compared. Every block of the exact path with no
    /// undecided number returns at once.
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
        self.launch_interval(s, Interval { len, k: t.k }, out, a, b, t)?;
        let shape = Digits { len, k: t.k };
        let tabs = |x| (x, Some(&t.half), &t.moduli, &t.table);
        self.launch_digits_of(s, shape, da, tabs(a), Some(out))?;
        let db = match b {
            Some(b) => {
                let db = &mut rest[0];
                self.launch_digits_of(s, shape, db, tabs(b), Some(out))?;
                &*db
            }
            None => &t.half_digits,
        };
        let cmp = Cmp {
            len,
            k: t.k,
            broadcast: b.is_none(),
            pending_only: true,
        };
        self.launch_cmp(s, cmp, out, da, db)
    }
}
