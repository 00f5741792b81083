//! The lifting steps on the CPU: `X_i = A⁻¹·(R mod p) mod p`, then `R ← (R − A·X_i)/p`
//! exactly, by persistent threads that each own a block of rows (as the device's blocks
//! do) and meet at a spinning barrier twice a step: a step is a few microseconds of
//! dot products per thread, far less than handing work to a thread pool and waking it.
//! Residuals in 128 bits when they fit (updated by `rns_core::padic`, the device's
//! arithmetic), big integers otherwise.

use super::Expansion;
use crate::error::{Error, Result};
use crate::interrupt;
use rns_core::padic::{self, LIMB_BITS};
use rns_core::Modulus;
use rug::Integer;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

/// Products per lifting step from which the rows are split among threads.
const PARALLEL_MIN: usize = 1 << 14;

/// What every lifting step reads.
pub(super) struct Lifting {
    /// `A⁻¹ mod p`, centered, row-major.
    pub inv_c: Vec<i32>,
    /// `A`'s limb matrices (`rns_core::padic::LIMB_BITS` each), row-major.
    pub a_limbs: Vec<Vec<i32>>,
    /// `p⁻¹ mod 2^128`.
    pub p_inv: u128,
    /// The prime.
    pub m: Modulus,
    /// `A` is `n × n`, `R` is `n × l`.
    pub n: usize,
    pub l: usize,
}

/// A residual of the lifting.
pub(super) trait Residual: Send {
    /// `r mod p`.
    fn residue(&self, m: Modulus) -> u32;
    /// `r ← (r − Σ_t dot(t)·2^(29t)) / p` (exact) over `limbs` limb sums.
    fn update(&mut self, limbs: usize, dot: impl Fn(usize) -> i128, lifting: &Lifting);
}

impl Residual for i128 {
    fn residue(&self, m: Modulus) -> u32 {
        padic::reduce_i128(*self, m)
    }

    fn update(&mut self, limbs: usize, dot: impl Fn(usize) -> i128, lifting: &Lifting) {
        *self = padic::update(*self, padic::join(limbs, dot), lifting.p_inv);
    }
}

impl Residual for Integer {
    fn residue(&self, m: Modulus) -> u32 {
        self.mod_u(m.m)
    }

    fn update(&mut self, limbs: usize, dot: impl Fn(usize) -> i128, lifting: &Lifting) {
        let mut sum = Integer::new();
        for t in (0..limbs).rev() {
            sum <<= LIMB_BITS;
            sum += dot(t);
        }
        *self -= sum;
        self.div_exact_u_mut(lifting.m.m);
    }
}

/// Runs lifting steps from the residuals `r` (`n × l`, row-major; `B` at the start),
/// pushing each step's digits, until `done(expansion, last)` gives a value (`last` at
/// step `k_max`, after which it must).
pub(super) fn run<R: Residual, T>(
    lifting: &Lifting,
    mut r: Vec<R>,
    k_max: usize,
    mut done: impl FnMut(&Expansion, bool) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let (n, l, m) = (lifting.n, lifting.l, lifting.m);
    if n * l == 0 || k_max == 0 {
        return Err(Error::Internal(format!(
            "lifting {k_max} steps of a {n} × {l} residual"
        )));
    }
    let work = n * n * l * lifting.a_limbs.len();
    let threads = match work >= PARALLEL_MIN {
        true => rayon::current_num_threads().clamp(1, n),
        false => 1,
    };
    let per = n.div_ceil(threads);
    let shared = Shared {
        y: r.iter()
            .map(|v| AtomicU32::new(m.center(v.residue(m)) as u32))
            .collect(),
        x: (0..n * l).map(|_| AtomicU32::new(0)).collect(),
        barrier: Barrier::new(n.div_ceil(per)),
        stop: AtomicBool::new(false),
    };
    let mut x = Expansion {
        digits: Vec::with_capacity(k_max),
        radices: vec![m.m],
    };
    let mut answer = Ok(None);
    std::thread::scope(|s| {
        let mut blocks = r.chunks_mut(per * l).enumerate();
        let (_, own) = blocks.next().expect("a row at least");
        for (b, rows) in blocks {
            let shared = &shared;
            s.spawn(move || {
                let _poison = PoisonOnPanic(&shared.barrier);
                let mut worker = Worker::new(lifting, shared, b * per, rows);
                while worker.digits() && worker.update() {}
            });
        }
        // Should this thread unwind, the others must not wait for it.
        let _poison = PoisonOnPanic(&shared.barrier);
        let mut worker = Worker::new(lifting, &shared, 0, own);
        for step in 1..=k_max {
            if !worker.digits() {
                answer = Err(Error::Internal("a lifting thread failed".into()));
                break;
            }
            // The others update their rows meanwhile.
            x.digits
                .push(shared.x.iter().map(|v| v.load(Ordering::Relaxed)).collect());
            let next = match step % 64 {
                0 => interrupt::check().and_then(|_| done(&x, step == k_max)),
                _ => done(&x, step == k_max),
            };
            match next {
                Ok(None) if step < k_max => {}
                Ok(None) => {
                    answer = Err(Error::Internal(
                        "Dixon lifting stopped without an answer".into(),
                    ));
                    shared.stop.store(true, Ordering::Relaxed);
                }
                other => {
                    answer = other;
                    shared.stop.store(true, Ordering::Relaxed);
                }
            }
            if !worker.update() {
                break;
            }
        }
    });
    answer
}

/// What the threads share: `y = R mod p` centered and the digits `x` (`n × l` each),
/// the barrier, and the coordinator's word to stop.
struct Shared {
    y: Vec<AtomicU32>,
    x: Vec<AtomicU32>,
    barrier: Barrier,
    stop: AtomicBool,
}

/// A thread's rows `first ..` of `R` and its copies of `y` or `x`, column by column.
struct Worker<'a, R> {
    lifting: &'a Lifting,
    shared: &'a Shared,
    first: usize,
    rows: &'a mut [R],
    columns: Vec<i32>,
}

impl<'a, R: Residual> Worker<'a, R> {
    fn new(lifting: &'a Lifting, shared: &'a Shared, first: usize, rows: &'a mut [R]) -> Self {
        let columns = vec![0; lifting.n * lifting.l];
        Worker {
            lifting,
            shared,
            first,
            rows,
            columns,
        }
    }

    /// `v` (`n × l` row-major) into the thread's columns, each contiguous.
    fn copy_columns(&mut self, v: &[AtomicU32]) {
        let (n, l) = (self.lifting.n, self.lifting.l);
        for (j, row) in v.chunks(l).enumerate() {
            for (c, w) in row.iter().enumerate() {
                self.columns[c * n + j] = w.load(Ordering::Relaxed) as i32;
            }
        }
    }

    /// The digits of the thread's rows, `x = A⁻¹·y mod p`; then the barrier. `false`
    /// when another thread failed.
    fn digits(&mut self) -> bool {
        let (n, l, p) = (self.lifting.n, self.lifting.l, self.lifting.m.m);
        self.copy_columns(&self.shared.y);
        for i in self.first..self.first + self.rows.len() / l {
            let row = &self.lifting.inv_c[i * n..(i + 1) * n];
            for c in 0..l {
                let d = dot_i32(row, &self.columns[c * n..(c + 1) * n]);
                let d = d.rem_euclid(p as i128) as u32;
                self.shared.x[i * l + c].store(d, Ordering::Relaxed);
            }
        }
        self.shared.barrier.wait()
    }

    /// The thread's rows of `R ← (R − A·x)/p` and of `y`; then the barrier. `false`
    /// when the lifting stops (asked to, or another thread failed).
    fn update(&mut self) -> bool {
        let (n, l, m) = (self.lifting.n, self.lifting.l, self.lifting.m);
        self.copy_columns(&self.shared.x);
        let limbs = &self.lifting.a_limbs;
        for (k, v) in self.rows.iter_mut().enumerate() {
            let (i, c) = (self.first + k / l, k % l);
            let col = &self.columns[c * n..(c + 1) * n];
            v.update(
                limbs.len(),
                |t| dot_i32(&limbs[t][i * n..(i + 1) * n], col),
                self.lifting,
            );
            let y = m.center(v.residue(m)) as u32;
            self.shared.y[i * l + c].store(y, Ordering::Relaxed);
        }
        self.shared.barrier.wait() && !self.shared.stop.load(Ordering::Relaxed)
    }
}

/// A barrier for a fixed number of threads that spins (then yields: the machine may
/// run more threads than cores); what each thread wrote before it is seen by all
/// after it. Poisoned when a thread panics, so that the others do not wait forever.
struct Barrier {
    threads: usize,
    arrived: AtomicUsize,
    generation: AtomicUsize,
    poisoned: AtomicBool,
}

impl Barrier {
    fn new(threads: usize) -> Barrier {
        Barrier {
            threads,
            arrived: AtomicUsize::new(0),
            generation: AtomicUsize::new(0),
            poisoned: AtomicBool::new(false),
        }
    }

    /// Waits for every thread; `false` when the barrier is poisoned.
    fn wait(&self) -> bool {
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::AcqRel);
        } else {
            let mut spins = 0u32;
            while self.generation.load(Ordering::Acquire) == generation {
                if self.poisoned.load(Ordering::Relaxed) {
                    return false;
                }
                if spins < 1 << 12 {
                    std::hint::spin_loop();
                    spins += 1;
                } else {
                    std::thread::yield_now();
                }
            }
        }
        !self.poisoned.load(Ordering::Relaxed)
    }
}

/// Poisons the barrier when its thread unwinds.
struct PoisonOnPanic<'a>(&'a Barrier);

impl Drop for PoisonOnPanic<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.0.poisoned.store(true, Ordering::Relaxed);
        }
    }
}

/// `Σ a_j·b_j` for terms `|a_j·b_j| < 2^60` (centered residues, or a 29-bit limb times a
/// digit): [`dot_i32_lanes`] with the vector instructions of the machine it runs on.
pub(super) fn dot_i32(a: &[i32], b: &[i32]) -> i128 {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { dot_i32_avx2(a, b) };
        }
    }
    dot_i32_lanes(a, b)
}

/// [`dot_i32_lanes`] compiled for AVX2 (`vpmuldq`: four 32 × 32 → 64-bit products at once).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn dot_i32_avx2(a: &[i32], b: &[i32]) -> i128 {
    dot_i32_lanes(a, b)
}

/// `Σ a_j·b_j` for `|a_j·b_j| < 2^60`: eight 64-bit lanes each take four products
/// (below `2^62` together), then the lanes are added in `i128`; the tail four at a time.
#[inline(always)]
fn dot_i32_lanes(a: &[i32], b: &[i32]) -> i128 {
    const LANES: usize = 8;
    let (mut ca, mut cb) = (a.chunks_exact(4 * LANES), b.chunks_exact(4 * LANES));
    let mut total = 0i128;
    for (x, y) in (&mut ca).zip(&mut cb) {
        let mut s = [0i64; LANES];
        for k in 0..4 {
            for (l, sl) in s.iter_mut().enumerate() {
                *sl += x[k * LANES + l] as i64 * y[k * LANES + l] as i64;
            }
        }
        total += s.iter().map(|&v| v as i128).sum::<i128>();
    }
    for (x, y) in ca.remainder().chunks(4).zip(cb.remainder().chunks(4)) {
        total += x
            .iter()
            .zip(y)
            .map(|(&u, &v)| u as i64 * v as i64)
            .sum::<i64>() as i128;
    }
    total
}
