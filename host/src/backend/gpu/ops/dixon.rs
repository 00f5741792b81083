//! Dixon's lifting and few-prime eliminations on the device (`device/src/kernels/dixon.rs`,
//! `gauss_jordan.rs`): a square matrix uploaded once as signed 29-bit limbs, reduced
//! there modulo each prime; eliminations with each prime's rows in shared memory
//! (`super::rows`), by Schur complements (`super::schur`) or one pivot per launch, so
//! that few primes have the whole GPU; the lifting steps in cooperative launches (digits by
//! `A⁻¹ mod p` for each of the step's primes, then the exact update of the 128-bit
//! residuals, the blocks exchanging tagged words between them), resumable, every row's
//! digits kept on the device and row 0's also apart (what a determinant and a solve's
//! early tries download).

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::driver::watch::LaunchWatch;
use crate::backend::gpu::driver::{ipc, peer};
use crate::backend::gpu::launch;
use crate::backend::gpu::launch::rows::STATE_WORDS;
use crate::backend::gpu::launch::{LiftArgs, LiftLayout, LiftMatrices};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::launch::LIFT_GLOBAL_MAX_PRIMES;
use rns_core::{padic, Modulus};
use std::mem::ManuallyDrop;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A square `n × n` integer matrix on the device, as `limbs` matrices of signed 29-bit
/// limbs (`rns_core::padic`).
pub struct DeviceLimbs {
    words: CudaSlice<u32>,
    /// The dimension.
    pub n: usize,
    /// Limbs per entry.
    pub limbs: usize,
}

impl DeviceLimbs {
    /// The limb matrices' words, limb-major.
    pub(crate) fn words(&self) -> &CudaSlice<u32> {
        &self.words
    }
}

/// Uploads `a` (`limbs` limb matrices of `n × n`, limb-major, the signed limbs'
/// bits as words), through page-locked buffers when large (`Gpu::upload_words`).
pub fn upload_limbs(gpu: &Gpu, a: &[u32], n: usize, limbs: usize) -> Result<DeviceLimbs> {
    if a.len() != limbs * n * n {
        return Err(Error::Internal(format!(
            "{} limb words for {limbs} limbs of a {n} × {n} matrix",
            a.len()
        )));
    }
    Ok(DeviceLimbs {
        words: gpu.upload_words(a)?,
        n,
        limbs,
    })
}

/// `det a mod m` for each of `moduli` (few primes, large matrices), as
/// `few_dets_on_device`; a prime that needs a row swap again from the limbs, one pivot
/// per launch. In groups of primes whose matrices (and the trailing updates' scratch)
/// fit the memory budget; an error naming the bytes when not even one does.
pub fn det_mod_limbs(gpu: &Gpu, a: &DeviceLimbs, moduli: &[Modulus]) -> Result<Vec<u32>> {
    let n = a.n;
    let panels = launch::inverse_panel(gpu, (n, n), moduli.len(), false)
        .map_or(0, |b| launch::inverse_panels_scratch_words(b, (n, n)));
    let per_prime = 4 * (2 * n * n + launch::lu_scratch_words(gpu, n, n).max(panels));
    let budget = gpu.budget()?;
    if per_prime > budget && !moduli.is_empty() {
        return Err(Error::GpuOutOfMemory {
            what: format!(
                "the determinant of a {n} × {n} matrix modulo a prime needs {per_prime} bytes \
                 of device memory; {budget} are available"
            ),
            source: None,
        });
    }
    let group = (budget / per_prime.max(1)).max(1);
    let mut dets = Vec::with_capacity(moduli.len());
    for primes in moduli.chunks(group) {
        dets.extend(det_mod_limbs_group(gpu, a, primes)?);
    }
    Ok(dets)
}

/// [`det_mod_limbs`] for primes whose matrices fit the device at once.
fn det_mod_limbs_group(gpu: &Gpu, a: &DeviceLimbs, moduli: &[Modulus]) -> Result<Vec<u32>> {
    if moduli.is_empty() {
        return Ok(Vec::new());
    }
    let (stream, n, channels) = (gpu.stream(), a.n, moduli.len());
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats =
        launch::launch_limbs_mod(gpu, stream, (&a.words, a.n, a.limbs), &dm, channels, n)?;
    super::few::few_dets_on_device(gpu, stream, (&mut mats, &dm), moduli, n, |again| {
        let primes: Vec<Modulus> = again.iter().map(|&c| moduli[c]).collect();
        det_mod_steps(gpu, stream, a, &primes)
    })
}

/// [`det_mod_limbs`] one pivot per launch.
fn det_mod_steps(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    a: &DeviceLimbs,
    moduli: &[Modulus],
) -> Result<Vec<u32>> {
    if moduli.is_empty() {
        return Ok(Vec::new());
    }
    let dm = gpu.upload_on(stream, &moduli_words(moduli))?;
    let mut mats = launch::launch_limbs_mod(
        gpu,
        stream,
        (&a.words, a.n, a.limbs),
        &dm,
        moduli.len(),
        a.n,
    )?;
    let state = launch::eliminate_steps(
        gpu,
        stream,
        &mut mats,
        &dm,
        moduli.len(),
        (a.n, a.n),
        false,
        (0, 1),
    )?;
    Ok(state.chunks(STATE_WORDS).map(|s| s[1]).collect())
}

/// Starts Dixon's lifting of `A X = B` for `l` right-hand sides `B` (`rhs`, `n × l`
/// row-major, 128-bit) modulo the product `P` of the first `k` of `primes` modulo which
/// `a` is invertible (`k` at most `max_primes` and what the launch's layout allows;
/// fewer when fewer are invertible; `None` when none is): the inverses by Gauss–Jordan
/// on the device, room for `capacity(P)` steps. The caller checks that the residuals fit
/// in 128 bits (`rns_core::padic::residual_fits`) and that the lifting has a launch
/// ([`lift_layout`](crate::backend::gpu::launch::lift_layout)).
pub fn start_lift<'a>(
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    (rhs, l): (&[i128], usize),
    (primes, max_primes): (impl IntoIterator<Item = Modulus>, usize),
    capacity: impl Fn(&[Modulus]) -> usize,
) -> Result<Option<Lift<'a>>> {
    let n = a.n;
    if rhs.len() != n * l || n == 0 {
        return Err(Error::Internal(format!(
            "lifting: {} right-hand side entries for {n} rows and {l} columns",
            rhs.len()
        )));
    }
    let layout = launch::lift_layout(gpu, n, a.limbs, l, max_primes).ok_or_else(|| {
        Error::Shape(format!(
            "lifting a {n} × {n} system with {} limbs and {l} right-hand sides on the device",
            a.limbs
        ))
    })?;
    let start = Instant::now();
    let (moduli, inverses) = inverses(gpu, a, primes, layout.primes())?;
    if moduli.is_empty() {
        return Ok(None);
    }
    lift_from(
        gpu,
        a,
        (rhs, l),
        layout,
        (moduli, inverses),
        capacity,
        start,
    )
    .map(Some)
}

/// `A⁻¹ mod p` for the first `want` of `primes` modulo which `a` is invertible (fewer
/// when fewer are): the primes, and their inverses one after the other in a buffer of
/// `want` of them. The first `want` primes together by recursive Schur complements
/// ([`invert`](super::inverse::invert)) where they apply; a prime whose leaf was singular,
/// and every prime where they do not apply, by Gauss–Jordan with row swaps; a prime
/// modulo which `A` is singular gives its place to the next. (Should the primes run
/// out first, the inverses found after that place are dropped.)
pub(crate) fn inverses(
    gpu: &Gpu,
    a: &DeviceLimbs,
    primes: impl IntoIterator<Item = Modulus>,
    want: usize,
) -> Result<(Vec<Modulus>, CudaSlice<u32>)> {
    let (n, stream) = (a.n, gpu.stream());
    let mut inverses = gpu.alloc_on(stream, want * n * n)?;
    let mut primes = primes.into_iter();
    let recursive = want > 0 && super::inverse::invert_applies(gpu, (n, want), 2 * want * n * n)?;
    let batch: Vec<Modulus> = match recursive {
        true => primes.by_ref().take(want).collect(),
        false => Vec::new(),
    };
    let mut ok = vec![false; batch.len()];
    if !batch.is_empty() {
        let dm = gpu.upload_on(stream, &moduli_words(&batch))?;
        let limbs = (&a.words, n, a.limbs);
        let mut am = launch::launch_limbs_mod(gpu, stream, limbs, &dm, batch.len(), n)?;
        let shape = (n, batch.len());
        ok = super::inverse::invert(gpu, stream, &mut am, (&mut inverses, 0), &dm, shape)?;
    }
    let mut moduli = Vec::with_capacity(want);
    for q in 0..want {
        if ok.get(q) == Some(&true) {
            moduli.push(batch[q]);
            continue;
        }
        let mut first = batch.get(q).copied();
        let found = loop {
            let Some(m) = first.take().or_else(|| primes.next()) else {
                break None;
            };
            if gauss_jordan_inverse(gpu, a, m, (&mut inverses, q))? {
                break Some(m);
            }
        };
        match found {
            Some(m) => moduli.push(m),
            None => break,
        }
    }
    Ok((moduli, inverses))
}

/// `A⁻¹ mod m` by Gauss–Jordan on `[A | I]` with row swaps into place `q` of
/// `inverses` (`n²` words a place); `false` when `A` is singular modulo `m`.
fn gauss_jordan_inverse(
    gpu: &Gpu,
    a: &DeviceLimbs,
    m: Modulus,
    (inverses, q): (&mut CudaSlice<u32>, usize),
) -> Result<bool> {
    let (n, stream) = (a.n, gpu.stream());
    let dm = gpu.upload_on(stream, &moduli_words(&[m]))?;
    let fill = || launch::launch_limbs_mod(gpu, stream, (&a.words, n, a.limbs), &dm, 1, 2 * n);
    let mut aug = fill()?;
    let refill = |aug: &mut CudaSlice<u32>| {
        *aug = fill()?;
        Ok(())
    };
    let state = super::few::gauss_jordan(gpu, stream, &mut aug, &dm, m, (n, 2 * n), refill)?;
    if state[3] != 0 {
        return Ok(false);
    }
    let mut inv = gpu.alloc_on(stream, n * n)?;
    launch::launch_gather_columns(gpu, stream, &mut inv, &aug, (n, 2 * n), n)?;
    let place = q * n * n..(q + 1) * n * n;
    gpu.dtod(stream, &inv, &mut inverses.slice_mut(place))?;
    Ok(true)
}

/// The lifting of `A X = B` (`rhs`, `l` columns) in `layout` from the primes `moduli`
/// (at least one) and their inverses ([`inverses`]), with room for `capacity(moduli)`
/// steps; `start` is when the inverses began.
pub(crate) fn lift_from<'a>(
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    (rhs, l): (&[i128], usize),
    layout: LiftLayout,
    (moduli, inverses): (Vec<Modulus>, CudaSlice<u32>),
    capacity: impl Fn(&[Modulus]) -> usize,
    start: Instant,
) -> Result<Lift<'a>> {
    let (n, stream) = (a.n, gpu.stream());
    let k = moduli.len();
    if k == 0 || k > layout.primes() || rhs.len() != n * l {
        return Err(Error::Internal(format!(
            "a lifting by {k} primes in {layout:?}, {} right-hand side entries",
            rhs.len()
        )));
    }
    let r_words = residual_words(rhs);
    // y tagged for step 0 (value, then tag: a little-endian 64-bit word), a matrix per
    // prime; x untagged.
    let y_words: Vec<u32> = moduli
        .iter()
        .flat_map(|&m| rhs.iter().flat_map(move |&v| [padic::reduce_i128(v, m), 1]))
        .collect();
    let cap = capacity(&moduli);
    let product = moduli.iter().fold(1u128, |p, m| p * m.m as u128);
    Ok(Lift {
        gpu,
        a,
        r: gpu.upload_on(stream, &r_words)?,
        y: ManuallyDrop::new(gpu.upload_on(stream, &y_words)?),
        x: ManuallyDrop::new(gpu.upload_on(stream, &vec![0; 2 * k * n * l])?),
        shared: None,
        digits: gpu.alloc_on(stream, cap * k * n * l)?,
        first: gpu.alloc_on(stream, cap * k * l)?,
        l,
        garner: gpu.upload_on(stream, &garner_words(&moduli))?,
        dm: gpu.upload_on(stream, &moduli_words(&moduli))?,
        inverses,
        p_inv: padic::inverse_u128_mod_2_128(product),
        moduli,
        watch: gpu.launch_watch(stream, lift_kernel(layout))?,
        layout,
        rows: (0, n),
        peers: None,
        done: 0,
        capacity: cap,
        inverse_time: start.elapsed(),
    })
}

impl Drop for Lift<'_> {
    /// Buffers shared with other processes: this device's work ends before the others'
    /// buffers close here, and its own wait in `ipc::retire` for the others' work.
    fn drop(&mut self) {
        match self.shared.take() {
            None => {
                // SAFETY: dropped once, here; the fields are not used after.
                unsafe {
                    ManuallyDrop::drop(&mut self.y);
                    ManuallyDrop::drop(&mut self.x);
                }
            }
            Some(opened) => {
                let _ = self.check();
                for a in opened {
                    let _ = ipc::close(self.gpu, a);
                }
                // SAFETY: taken once, here; the fields are not used after.
                let (y, x) = unsafe {
                    (
                        ManuallyDrop::take(&mut self.y),
                        ManuallyDrop::take(&mut self.x),
                    )
                };
                ipc::retire(self.gpu, y);
                ipc::retire(self.gpu, x);
            }
        }
    }
}

/// The 128-bit residuals `rhs` as device words, four an entry, least significant first.
pub(crate) fn residual_words(rhs: &[i128]) -> Vec<u32> {
    rhs.iter()
        .flat_map(|&v| [0, 32, 64, 96].map(|s| ((v as u128) >> s) as u32))
        .collect()
}

/// The kernel name of a lifting in `layout`, for a stall's error.
fn lift_kernel(layout: LiftLayout) -> &'static str {
    match layout {
        LiftLayout::Shared { .. } => "the lifting (rns_dixon_lift)",
        LiftLayout::Global { .. } => "the lifting (rns_dixon_lift_global)",
    }
}

/// `p_u⁻¹ mod p_q` at `u·LIFT_GLOBAL_MAX_PRIMES + q` for `u < q` (0 elsewhere): the
/// kernel's table for `rns_core::padic::mixed_radix`.
fn garner_words(moduli: &[Modulus]) -> Vec<u32> {
    let w = LIFT_GLOBAL_MAX_PRIMES;
    let mut t = vec![0u32; w * w];
    for (u, pu) in moduli.iter().enumerate() {
        for (q, pq) in moduli.iter().enumerate().skip(u + 1) {
            t[u * w + q] = pq.inv(pq.reduce_u64(pu.m as u64)).unwrap_or(0);
        }
    }
    t
}

/// A lifting under way on the device ([`start_lift`]): the inverses, the residuals
/// and the digits so far stay there between runs.
pub struct Lift<'a> {
    gpu: &'a Gpu,
    a: &'a DeviceLimbs,
    r: CudaSlice<u32>,
    /// `y` and `x`, tagged words (`rns_dixon_lift`), a matrix per prime: from the
    /// device's pool, or shared with other processes ([`Lift::export`]; then given back
    /// through `ipc::retire` when the lifting ends).
    y: ManuallyDrop<CudaSlice<u32>>,
    x: ManuallyDrop<CudaSlice<u32>>,
    /// Where `y` and `x` are shared with other processes: the other processes' buffers
    /// opened here ([`Lift::open_peer`]), closed when the lifting ends.
    shared: Option<Vec<u64>>,
    digits: CudaSlice<u32>,
    first: CudaSlice<u32>,
    inverses: CudaSlice<u32>,
    dm: CudaSlice<u32>,
    garner: CudaSlice<u32>,
    moduli: Vec<Modulus>,
    p_inv: u128,
    /// Right-hand sides.
    l: usize,
    layout: LiftLayout,
    /// The rows this device lifts (first, count): all but where the lifting is split
    /// across devices ([`Lift::share`]).
    rows: (usize, usize),
    /// The other devices' `y` and `x` addresses where it is.
    peers: Option<CudaSlice<u32>>,
    /// The bound on the launches' waits, read back with the digits.
    watch: LaunchWatch,
    done: usize,
    capacity: usize,
    /// Wall-clock time of the inverses (every prime tried).
    pub inverse_time: Duration,
}

impl Lift<'_> {
    /// The primes a step lifts by, in the order of each step's digits.
    pub fn primes(&self) -> Vec<u32> {
        self.moduli.iter().map(|m| m.m).collect()
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.done
    }

    /// Runs `steps` more steps (up to the capacity) in one cooperative launch.
    pub fn run(&mut self, steps: usize) -> Result<()> {
        let steps = steps.min(self.capacity - self.done);
        if steps == 0 {
            return Ok(());
        }
        let (gpu, n, stream) = (self.gpu, self.a.n, self.gpu.stream());
        let args = LiftArgs {
            n,
            l: self.l,
            limbs: self.a.limbs,
            primes: self.moduli.len(),
            p_inv: self.p_inv,
            from: self.done,
            steps,
            layout: self.layout,
            rows: self.rows,
        };
        let mats = LiftMatrices {
            inverses: &self.inverses,
            limbs: &self.a.words,
            moduli: &self.dm,
            garner: &self.garner,
            peers: self.peers.as_ref(),
        };
        launch::launch_dixon_lift(
            gpu,
            stream,
            args,
            [
                &mut self.r,
                &mut *self.y,
                &mut *self.x,
                &mut self.digits,
                &mut self.first,
            ],
            mats,
            &self.watch,
        )?;
        self.done += steps;
        Ok(())
    }

    /// The launch's layout.
    pub fn layout(&self) -> LiftLayout {
        self.layout
    }

    /// The device addresses of this lifting's tagged `y` and `x`, for its peers.
    pub(crate) fn exchange_addresses(&self) -> [u64; 2] {
        [
            peer::address(self.gpu, &*self.y),
            peer::address(self.gpu, &*self.x),
        ]
    }

    /// Moves `y` and `x` into memory that the other processes of the host can open and
    /// gives their handles (`y`'s, then `x`'s: `2·ipc::HANDLE_WORDS` words), for a
    /// lifting split across MPI ranks; this device's work on them has ended on return.
    pub(crate) fn export(&mut self) -> Result<Vec<u32>> {
        let (y, hy) = ipc::share(self.gpu, &self.y)?;
        let (x, hx) = match ipc::share(self.gpu, &self.x) {
            Ok(shared) => shared,
            Err(e) => {
                ipc::retire(self.gpu, y);
                return Err(e);
            }
        };
        drop(std::mem::replace(&mut *self.y, y));
        drop(std::mem::replace(&mut *self.x, x));
        self.shared = Some(Vec::new());
        Ok(hy.into_iter().chain(hx).collect())
    }

    /// Opens another process's `y` and `x` from their handles ([`Lift::export`]'s): their
    /// addresses here, for [`Lift::share`].
    pub(crate) fn open_peer(&mut self, handles: &[u32]) -> Result<[u64; 2]> {
        let opened = self
            .shared
            .as_mut()
            .ok_or_else(|| Error::Internal("a peer opened by a lifting not exported".into()))?;
        let mut at = [0; 2];
        for (i, h) in handles.chunks(ipc::HANDLE_WORDS).take(2).enumerate() {
            at[i] = ipc::open(self.gpu, h)?;
            opened.push(at[i]);
        }
        Ok(at)
    }

    /// Makes this device lift only `rows` (first, count) and publish them into the
    /// peers' `y` and `x` too (`peers`: their [`Lift::exchange_addresses`], which peer
    /// access lets this device's kernels write), then waits for its set-up to finish:
    /// no peer may write here before its own words are in place. From global memory
    /// only (the launch refuses a share of the rows in shared memory).
    pub(crate) fn share(&mut self, rows: (usize, usize), peers: &[[u64; 2]]) -> Result<()> {
        let words: Vec<u32> = peers
            .iter()
            .flatten()
            .flat_map(|&a| [a as u32, (a >> 32) as u32])
            .collect();
        let stream = self.gpu.stream();
        self.peers = Some(self.gpu.upload_on(stream, &words)?);
        self.rows = rows;
        self.gpu.sync_stream(stream)
    }

    /// The rows this device lifts (first, count).
    pub(crate) fn rows(&self) -> (usize, usize) {
        self.rows
    }

    /// Waits for the runs so far; [`crate::Error::GpuStalled`] when a wait of theirs
    /// gave up.
    pub(crate) fn check(&self) -> Result<()> {
        self.watch.check(self.gpu, self.gpu.stream())
    }

    /// Row 0's digits so far, level-major (`l` per level, a level per prime a step);
    /// [`crate::Error::GpuStalled`] when a launch's wait gave up.
    pub fn first(&self) -> Result<Vec<u32>> {
        let words = self.done * self.moduli.len() * self.l;
        self.download_checked(&self.first, words)
    }

    /// Every row's digits of the first `steps` steps (at most those so far), level-major
    /// (`n × l` per level, row-major), as [`Lift::first`] (where the lifting is split,
    /// only this device's rows are filled).
    pub fn digits(&self, steps: usize) -> Result<Vec<u32>> {
        let words = steps.min(self.done) * self.moduli.len() * self.a.n * self.l;
        self.download_checked(&self.digits, words)
    }

    /// The first `words` words of `buf` (through page-locked buffers when large:
    /// `Gpu::dtoh_staged`), once the launches' watch says none stalled.
    fn download_checked(&self, buf: &CudaSlice<u32>, words: usize) -> Result<Vec<u32>> {
        let mut v = vec![0u32; words];
        self.gpu
            .dtoh_staged(self.gpu.stream(), (buf, 0..words), &mut v)?;
        self.check()?;
        Ok(v)
    }
}
