//! Dixon's lifting of a block of right-hand sides on one device
//! ([`start_block_lift`]): `A⁻¹ mod p` by Gauss–Jordan on the device
//! (`dixon::inverses`), then each step as two tiled matrix products over the
//! whole grid (`launch::launch_block_step`), so that a step's reads of the inverse and
//! of `A`'s limbs serve every column. One prime a step, the CPU's primes and step
//! counts, so the digits are those of the one-column lifting. [`Lifting`] is what a
//! solve reads of this lifting and of [`LiftOn`]'s.

use super::dixon::{inverses, residual_words, DeviceLimbs};
use super::dixon_devices::LiftOn;
use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch::{self, BlockState, BlockStep};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::CudaSlice;
use rns_core::{padic, Modulus};
use std::time::{Duration, Instant};

/// A lifting under way on the device, as a solve's reconstruction reads it.
pub trait Lifting {
    /// The primes a step lifts by, in the order of each step's digit levels.
    fn primes(&self) -> Vec<u32>;
    /// Steps taken so far.
    fn steps(&self) -> usize;
    /// Queues `steps` more steps (up to the capacity).
    fn run(&mut self, steps: usize) -> Result<()>;
    /// Row 0's digits so far, level-major (`l` per level).
    fn first(&self) -> Result<Vec<u32>>;
    /// Every row's digits of the first `steps` steps, level-major (`n × l` a level).
    fn digits(&self, steps: usize) -> Result<Vec<u32>>;
    /// Devices the lifting runs on.
    fn devices(&self) -> usize;
}

impl Lifting for LiftOn<'_> {
    fn primes(&self) -> Vec<u32> {
        LiftOn::primes(self)
    }
    fn steps(&self) -> usize {
        LiftOn::steps(self)
    }
    fn run(&mut self, steps: usize) -> Result<()> {
        LiftOn::run(self, steps)
    }
    fn first(&self) -> Result<Vec<u32>> {
        LiftOn::first(self)
    }
    fn digits(&self, steps: usize) -> Result<Vec<u32>> {
        LiftOn::digits(self, steps)
    }
    fn devices(&self) -> usize {
        LiftOn::devices(self)
    }
}

/// Device words of a block lifting of an `n × n` system whose entries have `limbs`
/// limbs, with `l` right-hand sides and room for `steps` steps: `A`'s limbs, the
/// inverse and `[A | I]` while it is formed, the residuals, `Y`, the partial sums of
/// the largest split (`launch::block_split_words`) and the digits.
pub fn block_lift_words(n: usize, limbs: usize, l: usize, steps: usize) -> u128 {
    let split = launch::block_split_words(n, l, launch::MAX_SPLIT) as u128;
    let (n, limbs, l, steps) = (n as u128, limbs as u128, l as u128, steps as u128);
    (limbs + 4) * n * n + 5 * n * l + split + steps * (n * l + l)
}

/// A block lifting under way ([`start_block_lift`]).
pub struct BlockLift<'a> {
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    inverse: CudaSlice<u32>,
    modulus: CudaSlice<u32>,
    r: CudaSlice<u32>,
    y: CudaSlice<u32>,
    digits: CudaSlice<u32>,
    first: CudaSlice<u32>,
    /// The partial sums of a split step (`launch::block_split`).
    partial: CudaSlice<u32>,
    split: usize,
    prime: u32,
    p_inv: u128,
    l: usize,
    done: usize,
    capacity: usize,
    /// Wall-clock time of the inverse (every prime tried).
    pub inverse_time: Duration,
}

/// Starts the lifting of `A X = B` (`rhs`: `n × l` row-major, 128-bit residuals as the
/// caller checked with `rns_core::padic::residual_fits`) by the first of `primes` modulo
/// which `A` is invertible (`None` when none is), with room for `capacity(p)` steps.
pub fn start_block_lift<'a>(
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    (rhs, l): (&[i128], usize),
    primes: impl IntoIterator<Item = Modulus>,
    capacity: impl Fn(&[Modulus]) -> usize,
) -> Result<Option<BlockLift<'a>>> {
    let (n, stream) = (a.n, gpu.stream());
    if rhs.len() != n * l || n == 0 || l == 0 {
        return Err(Error::Internal(format!(
            "block lifting: {} right-hand side entries for {n} rows and {l} columns",
            rhs.len()
        )));
    }
    let start = Instant::now();
    let (moduli, inverse) = inverses(gpu, a, primes, 1)?;
    let Some(&m) = moduli.first() else {
        return Ok(None);
    };
    let cap = capacity(&moduli);
    let split = launch::block_split(gpu, n, l);
    let y_words: Vec<u32> = rhs
        .iter()
        .map(|&v| m.center(padic::reduce_i128(v, m)) as u32)
        .collect();
    Ok(Some(BlockLift {
        gpu,
        a,
        inverse,
        modulus: gpu.upload_on(stream, &moduli_words(&[m]))?,
        r: gpu.upload_on(stream, &residual_words(rhs))?,
        y: gpu.upload_on(stream, &y_words)?,
        digits: gpu.alloc_on(stream, cap * n * l)?,
        first: gpu.alloc_on(stream, cap * l)?,
        partial: gpu.alloc_on(stream, launch::block_split_words(n, l, split).max(1))?,
        split,
        prime: m.m,
        p_inv: padic::inverse_mod_2_128(m.m),
        l,
        done: 0,
        capacity: cap,
        inverse_time: start.elapsed(),
    }))
}

impl Lifting for BlockLift<'_> {
    fn primes(&self) -> Vec<u32> {
        vec![self.prime]
    }

    fn steps(&self) -> usize {
        self.done
    }

    fn run(&mut self, steps: usize) -> Result<()> {
        let (n, l, stream) = (self.a.n, self.l, self.gpu.stream());
        let step = BlockStep {
            n,
            l,
            limbs: self.a.limbs,
            p_inv: self.p_inv,
            split: self.split,
        };
        let end = (self.done + steps).min(self.capacity);
        for s in self.done..end {
            let state = BlockState {
                r: &mut self.r,
                y: &mut self.y,
                x: self.digits.slice_mut(s * n * l..(s + 1) * n * l),
                first: self.first.slice_mut(s * l..(s + 1) * l),
                partial: &mut self.partial,
            };
            let mats = (&self.inverse, self.a.words(), &self.modulus);
            launch::launch_block_step(self.gpu, stream, step, state, mats)?;
            self.done = s + 1;
        }
        Ok(())
    }

    fn first(&self) -> Result<Vec<u32>> {
        let stream = self.gpu.stream();
        self.gpu
            .download_on(stream, &self.first, self.done * self.l)
    }

    fn digits(&self, steps: usize) -> Result<Vec<u32>> {
        let words = steps.min(self.done) * self.a.n * self.l;
        let mut out = vec![0u32; words];
        let stream = self.gpu.stream();
        self.gpu
            .dtoh_staged(stream, (&self.digits, 0..words), &mut out)?;
        Ok(out)
    }

    fn devices(&self) -> usize {
        1
    }
}
