//! Dixon's lifting on the GPU (`crate::backend::gpu::ops::dixon`) for the divisor trick and
//! for solves with up to 32 right-hand sides: the same reconstruction as
//! [`super::cpu::divisor`] and [`super::cpu::solve`], so the same divisor and solution,
//! with the inverses and the lifting steps on the device. Where the rows are read from
//! global memory a step lifts by the product of up to four primes (one pass over `A`
//! for up to 124 bits); with one prime, the CPU's primes and step counts too. It
//! applies when the residuals fit in 128 bits (`rns_core::padic::residual_fits`: entries
//! up to about `124 − log2 n` bits, at most 116: four limbs) and the buffers in device
//! memory; for a determinant the matrix stays on the device for the primes that follow.
//! On several devices with peer access, a lifting whose rows are read from global memory
//! is split by rows across them (`ops::dixon_devices`): the same digits, each device
//! holding the matrix.

use super::numerators::numerators_on_device;
use super::{
    base_of, divisor_of, entry_values, finish_with, limb_of, limb_of_word, numerator_steps,
    row0_denominator, steps_for, DixonSolution, Expansion, Values, PRIMES_TRIED,
};
use crate::backend::gpu::launch;
use crate::backend::gpu::ops;
use crate::backend::gpu::ops::{DeviceLimbs, Lifting, LimbsOn};
use crate::backend::gpu::Gpu;
use crate::backend::split::each_on_thread;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::bounds::solve_bits;
use crate::mat::matrix::{require_rhs, require_square, IntMatrix};
use crate::timing::Laps;
use rayon::prelude::*;
use rns_core::launch::LIFT_GLOBAL_MAX_PRIMES;
use rns_core::padic::{limbs_for_bits, residual_fits};
use rns_core::{prime, Modulus};
use rug::Integer;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the lifting on the device found.
pub struct GpuDivisor<T> {
    /// `d`, a divisor of `det A` (positive).
    pub divisor: Integer,
    /// Lifting steps taken.
    pub steps: usize,
    /// Primes a step lifted by.
    pub primes: usize,
    /// `A` on each device of the lifting, as signed 29-bit limbs.
    pub limbs: Vec<(Arc<Gpu>, DeviceLimbs)>,
    /// Devices the lifting was split across (1: not split).
    pub devices: usize,
    /// What the device did while the host reconstructed `d` (`det_divisor_gpu`'s
    /// `meanwhile`).
    pub meanwhile: T,
    /// The stages: bounds and limbs, upload, inverse, steps, reconstruction.
    pub laps: Laps,
}

/// Whether the lifting for `A X = B` runs on `gpu`: the residuals fit in 128 bits, the
/// launch has a layout (`lift_layout`: rows in shared memory up to about 1300 × 1300
/// for 64-bit entries and one right-hand side on an H200, 1 to 32 right-hand sides;
/// beyond, read from global memory, 1 to 4 right-hand sides) and its buffers fit the
/// device's memory budget.
pub fn fits(gpu: &Gpu, a: &IntMatrix, b: &IntMatrix) -> bool {
    device_limbs(gpu, a, b).is_some()
}

/// The right-hand sides lifted together (all `l`, or groups of as many as the launch
/// takes: 1 to 32 in shared memory, 1 to 4 from global memory), if any.
fn group_size(gpu: &Gpu, n: usize, limbs: usize, l: usize) -> Option<usize> {
    let fits = |g: usize| launch::lift_layout(gpu, n, limbs, g, 1).is_some();
    match fits(l) {
        true => Some(l),
        false => (1..l.min(33)).rev().find(|&g| fits(g)),
    }
}

/// How the lifting for `A x = b` runs on `gpu` ([`fits`]): the limbs per entry of `A`,
/// the most primes a step may lift by (as many as the layout allows whose buffers fit
/// the memory budget) and the right-hand sides lifted together.
fn device_limbs(gpu: &Gpu, a: &IntMatrix, b: &IntMatrix) -> Option<(usize, usize, usize)> {
    let (n, l) = (a.rows(), b.cols());
    // The cheap tests first: the sizes of the entries take a pass over them.
    if n == 0 || l == 0 || group_size(gpu, n, 1, l).is_none() {
        return None;
    }
    launch_on(gpu, (n, l), entry_bits(a, b))
}

/// Bits of the largest entry of `A` and of `B` (a pass over each).
fn entry_bits(a: &IntMatrix, b: &IntMatrix) -> (u32, u32) {
    let bits = |m: &IntMatrix| m.max_bits().min(u32::MAX as u64) as u32;
    (bits(a), bits(b))
}

/// [`device_limbs`] for an `n × n` system with `l` right-hand sides whose entries have
/// the bits [`entry_bits`] gave.
fn launch_on(
    gpu: &Gpu,
    (n, l): (usize, usize),
    (a_bits, b_bits): (u32, u32),
) -> Option<(usize, usize, usize)> {
    let limbs = limbs_for_bits(a_bits);
    if !residual_fits(n, a_bits, b_bits) {
        return None;
    }
    let group = group_size(gpu, n, limbs, l)?;
    let layout = launch::lift_layout(gpu, n, limbs, group, LIFT_GLOBAL_MAX_PRIMES)?;
    let budget = gpu.budget().unwrap_or(0) as u128;
    (1..=layout.primes())
        .rev()
        .find(|&k| device_bytes(n, (limbs, a_bits), (group, b_bits), k) <= budget)
        .map(|k| (limbs, k, group))
}

/// Device bytes of a lifting of `A X = B`, `A` `n × n` with entries of `a_bits` bits
/// (`limbs` limbs), `l` right-hand sides of `b_bits` bits, by `k` primes a step: `A`'s
/// limbs, the `k` inverses, `[A | I]` and a gathered inverse while they are formed, the
/// residuals and tagged words, and the digits of every step up to Cramer's bound
/// (bounded here from the entries' sizes).
fn device_bytes(
    n: usize,
    (limbs, a_bits): (usize, u32),
    (l, b_bits): (usize, u32),
    k: usize,
) -> u128 {
    let (n, l, k) = (n as u128, l as u128, k as u128);
    let log_n = (n.max(2) as f64).log2() / 2.0;
    let cramer = n as f64 * (a_bits.max(b_bits) as f64 + log_n) + 1.0;
    let levels = ((2.0 * cramer + 2.0) / 30.9).ceil() as u128 + k;
    4 * ((limbs as u128 + k + 3) * n * n + 8 * k * n * l + levels * (n * l + l))
}

/// `A` on the devices and what the lifting starts from.
struct Prepared {
    limbs: Vec<(Arc<Gpu>, DeviceLimbs)>,
    rhs: Vec<i128>,
    /// Cramer's bounds (bits of the determinant, of the numerators).
    bits: (u64, u64),
    /// The most primes a step may lift by.
    primes: usize,
    /// Right-hand sides lifted together.
    group: usize,
    /// Whether the lifting splits by rows across the MPI ranks (one device each).
    ranks: bool,
}

/// Checks that `A X = B` lifts on the backend's first GPU ([`fits`]), bounds it and
/// uploads `A` as limbs to the devices the lifting runs on ([`Backend::lift_devices`]:
/// those whose lifting would take the same launch), stages on `laps`.
fn prepare(
    backend: &Backend,
    (a, b): (&IntMatrix, &IntMatrix),
    bits: (u64, u64),
    laps: &mut Laps,
) -> Result<Prepared> {
    let n = require_square(a.rows(), a.cols(), "solving A X = B")?;
    require_rhs(n, b.rows())?;
    let gpu = backend
        .lifting_gpu(n, b.cols())
        .ok_or_else(|| Error::no_gpu("the lifting on the GPU"))?;
    // The entries' bits once; each device's launch from them.
    let (shape, entries) = ((n, b.cols()), entry_bits(a, b));
    let found = launch_on(gpu, shape, entries);
    let Some((l, primes, group)) = found else {
        return Err(Error::Internal(
            "the GPU lifting takes a non-empty matrix, residuals of 128 bits, a launch layout \
             (right-hand sides and limbs within the kernels' limits) and buffers within the \
             device's memory budget (lift::gpu::fits)"
                .into(),
        ));
    };
    // The limbs as device words, limb-major: each entry read once, its limbs written
    // to every limb's plane (a task takes the same piece of each plane).
    const PIECE: usize = 4096;
    let mut words = vec![0u32; l * n * n];
    let mut planes: Vec<_> = words
        .chunks_mut(n * n)
        .map(|p| p.chunks_mut(PIECE))
        .collect();
    let pieces: Vec<Vec<&mut [u32]>> = (0..(n * n).div_ceil(PIECE))
        .map(|_| planes.iter_mut().filter_map(|p| p.next()).collect())
        .collect();
    fn split<T: Sync>(
        pieces: Vec<Vec<&mut [u32]>>,
        xs: &[T],
        limb: impl Fn(&T, usize) -> i32 + Sync,
    ) {
        pieces
            .into_par_iter()
            .zip(xs.par_chunks(PIECE))
            .for_each(|(mut outs, xs)| {
                for (e, x) in xs.iter().enumerate() {
                    for (t, out) in outs.iter_mut().enumerate() {
                        out[e] = limb(x, t) as u32;
                    }
                }
            });
    }
    match a.words() {
        Some(w) => split(pieces, w, |&x, t| limb_of_word(x, t)),
        None => split(pieces, a.entries(), limb_of),
    }
    let rhs: Vec<i128> = b
        .entries()
        .iter()
        .map(|v| v.to_i128().expect("a right-hand side within 128 bits"))
        .collect();
    laps.lap("lift: bounds, limbs");
    let layout = launch::lift_layout(gpu, n, l, group, primes);
    let same = |g: &Arc<Gpu>| launch_on(g, shape, entries) == found;
    // Across MPI ranks on one host: one device a rank, whatever each rank holds, so that
    // every rank meets the others at the handshake.
    let ranks = backend.lift_ranks(n);
    let gpus: Vec<Arc<Gpu>> = match ranks {
        true => vec![gpu.clone()],
        false => match backend.lift_devices((n, group), layout)? {
            several if several.len() > 1 && several.iter().all(same) => several.to_vec(),
            _ => vec![gpu.clone()],
        },
    };
    let limbs = each_on_thread(&gpus, &|_, g| {
        let limbs = ops::upload_limbs(g, &words, n, l)?;
        g.sync_stream(g.stream())?;
        Ok((g.clone(), limbs))
    });
    let limbs = limbs.into_iter().collect::<Result<Vec<_>>>()?;
    laps.lap(match limbs.len() {
        1 => "lift: upload",
        _ => "lift: upload (to each device: split by rows)",
    });
    Ok(Prepared {
        limbs,
        rhs,
        bits,
        primes,
        group,
        ranks,
    })
}

/// The primes the lifting tries, as the CPU's, and more for the further primes of a
/// step.
fn primes() -> Vec<Modulus> {
    prime::moduli_descending(|_| false)
        .take(PRIMES_TRIED + LIFT_GLOBAL_MAX_PRIMES - 1)
        .map(|p| Modulus::new(p).expect("a generated prime"))
        .collect()
}

/// Steps to Cramer's bound `bits` by the product of `moduli`.
fn steps_by(bits: (u64, u64), moduli: &[Modulus]) -> usize {
    steps_for(bits, &moduli.iter().map(|m| m.m).collect::<Vec<_>>())
}

/// [`super::cpu::divisor`] on the backend's GPUs (split across them where
/// `Backend::lift_devices` says), for `A` and one right-hand side `b` that [`fits`];
/// while the host reconstructs `d` from the digits, the devices run `meanwhile` on
/// `A`'s limbs (the determinant modulo the primes it will likely need). `None` when `A`
/// is singular modulo every prime tried; `Error::Singular` when it has a zero column.
pub fn divisor<T: Send>(
    backend: &Backend,
    a: &IntMatrix,
    b: &IntMatrix,
    meanwhile: impl FnOnce(&LimbsOn) -> Result<T>,
) -> Result<Option<GpuDivisor<T>>> {
    let mut laps = Laps::start();
    let bits = solve_bits(a, b)?;
    let prep = prepare(backend, (a, b), bits, &mut laps)?;
    let rhs = (&prep.rhs[..], b.cols());
    let (moduli, steps) = (primes(), |m: &[Modulus]| steps_by(bits, m));
    let Some(mut lift) =
        ops::start_lift_on(&prep.limbs, rhs, (&moduli, prep.primes), &steps, prep.ranks)?
    else {
        return Ok(None);
    };
    let devices = lift.devices();
    lift.run(usize::MAX)?;
    let digits = lift.first()?;
    let lifting = laps.restart();
    laps.add("lift: inverse mod p", lift.inverse_time());
    laps.add("lift: steps", lifting.saturating_sub(lift.inverse_time()));
    let radices = lift.primes();
    let x = Expansion::of_row(&digits, &radices);
    drop(lift);
    // The device's work on this thread (its context is current here), the
    // reconstruction on another.
    let ((found, host_time), (meanwhile, device_time)) = std::thread::scope(|s| {
        let host = s.spawn(|| {
            let t = Instant::now();
            (divisor_of(&x), t.elapsed())
        });
        let t = Instant::now();
        let device = meanwhile(&prep.limbs);
        let device_time = t.elapsed();
        let found = host.join().unwrap_or_else(|_| {
            let e = Error::Internal("the reconstruction panicked".into());
            (Err(e), Duration::ZERO)
        });
        (found, (device, device_time))
    });
    let (divisor, steps) = found?;
    let meanwhile = meanwhile?;
    laps.restart();
    // Side by side: the host's reconstruction and the device's determinants.
    laps.add("lift: reconstruct (host)", host_time);
    laps.add(
        "float bound, det mod p (first primes, device, meanwhile)",
        device_time,
    );
    Ok(Some(GpuDivisor {
        divisor,
        steps,
        primes: radices.len(),
        limbs: prep.limbs,
        devices,
        meanwhile,
        laps,
    }))
}

/// [`super::cpu::solve`] on `gpu`, when [`fits`]: the right-hand sides together where
/// a launch takes them all, else in groups (each lifted on its own, the fractions put
/// over their least common denominator). More right-hand sides than the row-per-warp
/// launch takes lift as a block (as many as fit the memory budget: every step two
/// tiled products, one read of `A⁻¹ mod p` and of the limbs for all the columns).
/// `None` when `A` is singular modulo every prime tried; `Error::Singular` when it has a
/// zero column. With the stages.
pub fn solve(
    backend: &Backend,
    a: &IntMatrix,
    b: &IntMatrix,
) -> Result<Option<(DixonSolution, Laps)>> {
    let bits = solve_bits(a, b)?;
    solve_within(backend, (a, b), bits)
}

/// [`solve`] to Cramer's bounds `bits` for `A X = B`, already taken
/// (`crate::mat::bounds::cramer_bits`: the dispatcher's, which its other paths share).
pub(crate) fn solve_within(
    backend: &Backend,
    (a, b): (&IntMatrix, &IntMatrix),
    bits: (u64, u64),
) -> Result<Option<(DixonSolution, Laps)>> {
    let mut laps = Laps::start();
    let prep = prepare(backend, (a, b), bits, &mut laps)?;
    let (n, l) = (a.rows(), b.cols());
    let (group, how) = choose(&prep, l);
    if group >= l {
        return Ok(solve_columns(a, (b, &prep.rhs), &prep, how, &mut laps)?.map(|s| (s, laps)));
    }
    let mut parts = Vec::new();
    for c0 in (0..l).step_by(group) {
        let g = group.min(l - c0);
        let cols = |r: usize| c0 + r % g + (r / g) * l;
        let bg = IntMatrix::new(
            n,
            g,
            (0..n * g).map(|r| b.entries()[cols(r)].clone()).collect(),
        )?;
        let rhs: Vec<i128> = (0..n * g).map(|r| prep.rhs[cols(r)]).collect();
        match solve_columns(a, (&bg, &rhs), &prep, how, &mut laps)? {
            Some(s) => parts.push((c0, g, s)),
            None => return Ok(None),
        }
    }
    // Over the least common denominator of all the groups'.
    let den = parts
        .iter()
        .fold(Integer::from(1), |d, (_, _, s)| d.lcm(&s.denominator));
    let mut numerators = vec![Integer::new(); n * l];
    for (c0, g, s) in &parts {
        let f = Integer::from(den.div_exact_ref(&s.denominator));
        for (r, v) in s.numerators.iter().enumerate() {
            numerators[(r / g) * l + c0 + r % g] = Integer::from(v * &f);
        }
    }
    let first = &parts[0].2;
    let solution = DixonSolution {
        numerators,
        denominator: den,
        prime: first.prime,
        steps: parts.iter().map(|(_, _, s)| s.steps).max().unwrap_or(0),
        primes: first.primes,
        devices: first.devices,
    };
    laps.lap("lift: fractions over one denominator");
    Ok(Some((solution, laps)))
}

/// Which lifting a group of right-hand sides takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum How {
    /// `ops::start_lift_on`: a warp a row, the blocks exchanging tagged words.
    Rows,
    /// `ops::start_block_lift`: each step two tiled products on the first device.
    Block,
}

/// The right-hand sides a lifting takes at once, and which: all or groups of them by
/// rows where the row-per-warp launch takes them all (or the lifting is split across
/// MPI ranks), else as blocks of as many as [`block_columns`] gives, when that is more.
fn choose(prep: &Prepared, l: usize) -> (usize, How) {
    let block = match prep.ranks || l <= prep.group {
        true => 0,
        false => block_columns(&prep.limbs[0], l, prep.bits),
    };
    match block > prep.group {
        true => (block, How::Block),
        false => (prep.group, How::Rows),
    }
}

/// The right-hand sides that [`solve`] lifts together as a block for `A X = B` on the
/// backend's GPU, or `None` where it lifts by rows (uploads `A`: for tests and tools).
pub fn block_group(backend: &Backend, a: &IntMatrix, b: &IntMatrix) -> Result<Option<usize>> {
    let bits = solve_bits(a, b)?;
    let prep = prepare(backend, (a, b), bits, &mut Laps::start())?;
    Ok(match choose(&prep, b.cols()) {
        (g, How::Block) => Some(g),
        (_, How::Rows) => None,
    })
}

/// The most of `l` right-hand sides whose block lifting (`ops::block_lift_words`, with
/// room for the steps to Cramer's bound `bits` by one prime, `A`'s limbs counted) fits
/// `gpu`'s memory budget; 0 when not one does.
fn block_columns((gpu, limbs): &(Arc<Gpu>, DeviceLimbs), l: usize, bits: (u64, u64)) -> usize {
    let budget = gpu.budget().unwrap_or(0) as u128 / 4;
    let steps = steps_by(bits, &primes()[..1]);
    let words = |g: usize| ops::block_lift_words(limbs.n, limbs.limbs, g, steps);
    if words(1) > budget {
        return 0;
    }
    let per_column = words(2) - words(1);
    (((budget - words(1)) / per_column.max(1)) as usize + 1).min(l)
}

/// The lifting of `A X = B` for right-hand sides that one lifting takes (`B` and its
/// entries as `i128`), as `how` says, then [`reconstruct`]. `None` when `A` is singular
/// modulo every prime tried.
fn solve_columns(
    a: &IntMatrix,
    (b, rhs): (&IntMatrix, &[i128]),
    prep: &Prepared,
    how: How,
    laps: &mut Laps,
) -> Result<Option<DixonSolution>> {
    let (bits, l) = (prep.bits, b.cols());
    let (moduli, steps) = (primes(), |m: &[Modulus]| steps_by(bits, m));
    let gpu = &prep.limbs[0].0;
    match how {
        How::Rows => {
            let started = ops::start_lift_on(
                &prep.limbs,
                (rhs, l),
                (&moduli, prep.primes),
                &steps,
                prep.ranks,
            )?;
            match started {
                Some(mut lift) => reconstruct(gpu, (a, b), bits, &mut lift, laps),
                None => Ok(None),
            }
        }
        How::Block => {
            let (gpu, limbs) = &prep.limbs[0];
            match ops::start_block_lift(gpu, limbs, (rhs, l), moduli, steps)? {
                Some(mut lift) => reconstruct(gpu, (a, b), bits, &mut lift, laps),
                None => Ok(None),
            }
        }
    }
}

/// The reconstruction of a lifting under way: tried after 16, 32, 64, … steps (row 0
/// first, from its digits alone, with a margin before the bound, while the device runs
/// as many steps again; then every entry, certain by the bound or checked exactly:
/// [`finish_with`]), and at the bound, where it cannot fail. Each entry's numerator
/// `den·x mod P^s` comes from one product on `gpu` where
/// `GpuConfig::numerators_on_device_for` says ([`numerators_on_device`]); else on the
/// host, the lifting stopping once at the numerators' steps of the bound
/// ([`numerator_steps`]) so that every entry's value is formed on the host while the
/// device lifts the steps beyond. At the bound, the numerators' digits come down while
/// the host reconstructs row 0.
fn reconstruct(
    gpu: &Arc<Gpu>,
    (a, b): (&IntMatrix, &IntMatrix),
    bits: (u64, u64),
    lift: &mut impl Lifting,
    laps: &mut Laps,
) -> Result<Option<DixonSolution>> {
    let (n, l) = (a.rows(), b.cols());
    laps.lap("lift: inverse mod p");
    let radices = lift.primes();
    let k_max = steps_for(bits, &radices);
    let base = base_of(&radices);
    let short_max = numerator_steps(a, b, &base, k_max);
    let modulus_bits = short_max as u64 * base.significant_bits() as u64;
    let on_device = gpu.config().numerators_on_device_for(n * l, modulus_bits);
    // The numerators' stages on the device, apart from the rest of the reconstruction.
    let device_laps = std::cell::RefCell::new(Laps::start());
    let products = |x: &Expansion, shape, den: &Integer, m: &Integer| {
        let mut stages = device_laps.borrow_mut();
        stages.restart();
        numerators_on_device(gpu, x, shape, den, m, &mut stages)
    };
    // The numerators' digits and values, formed while the last steps run.
    let mut ahead: Option<(Expansion, Vec<Integer>)> = None;
    lift.run(16.min(k_max))?;
    loop {
        // Entry (0, 0)'s digits (waiting for the steps under way).
        let first: Vec<u32> = lift.first()?.into_iter().step_by(l).collect();
        let k = lift.steps();
        laps.lap("lift: steps");
        // As many steps again run on the device while the host tries these, stopping
        // at the numerators' steps on the way.
        if k < k_max {
            let mut next = (2 * k).min(k_max);
            if k < short_max && short_max < next {
                next = short_max;
            }
            // Their digits before the next steps are queued (the copy would wait for them).
            let digits = match !on_device && ahead.is_none() && k >= short_max {
                true => Some(expansion(lift, &radices, n * l, short_max)?),
                false => None,
            };
            lift.run(next - k)?;
            if let Some(x) = digits {
                let values = entry_values(&x, n * l, short_max);
                laps.lap("lift: numerators' values (while the device lifts)");
                ahead = Some((x, values));
            }
        }
        let early = k < k_max;
        if early && 2 * k >= k_max {
            // The steps queued reach the bound and every row comes back only after
            // them: a try now would save none of them.
            continue;
        }
        let x0 = Expansion::of_row(&first, &radices);
        // Row 0 from its own digits; only when it reconstructs do all rows come back
        // (with the steps run meanwhile). At the bound it reconstructs for certain: the
        // numerators' digits come down while the host reconstructs it.
        let try_row0 = || row0_denominator(&x0.value(0, &x0.powers()), &base, k, early);
        let (den, fetched) = match !early && ahead.is_none() {
            true => std::thread::scope(|s| {
                let host = s.spawn(try_row0);
                let fetched = expansion(lift, &radices, n * l, short_max);
                let den = host
                    .join()
                    .map_err(|_| Error::Internal("the reconstruction of row 0 panicked".into()));
                (den, Some(fetched))
            }),
            false => (Ok(try_row0()), None),
        };
        let (den, fetched) = (den?, fetched.transpose()?);
        laps.lap("lift: row 0 tries");
        if let Some(den) = den {
            // The numerators' steps only, the rest should an entry need them.
            let k = lift.steps();
            let short = match k == k_max {
                true => short_max,
                false => numerator_steps(a, b, &base, k),
            };
            let (x, values) = match (ahead.take(), fetched) {
                (Some((x, values)), _) if x.steps() == short => (x, Values::Formed(values)),
                (_, Some(x)) if x.steps() == short => (x, Values::Host),
                _ => (expansion(lift, &radices, n * l, short)?, Values::Host),
            };
            let values = match on_device {
                true => Values::Products(&products),
                false => values,
            };
            laps.lap("lift: digits down");
            let whole = || expansion(lift, &radices, n * l, k);
            let found = finish_with(a, b, (&x, k, Some(&whole)), den, values)?;
            let total = laps.restart();
            let device = device_laps.replace(Laps::start()).into_stages();
            let spent: Duration = device.iter().map(|(_, d)| *d).sum();
            for (name, d) in device {
                laps.add(name, d);
            }
            laps.add("lift: reconstruct, check", total.saturating_sub(spent));
            if let Some(s) = found {
                let devices = lift.devices();
                return Ok(Some(DixonSolution { devices, ..s }));
            }
        }
        if k >= k_max {
            return Err(Error::Internal(
                "Dixon lifting reached its bound without a solution".into(),
            ));
        }
    }
}

/// The first `steps` steps of every entry's digits (`entries` a level) as an expansion.
fn expansion(
    lift: &impl Lifting,
    radices: &[u32],
    entries: usize,
    steps: usize,
) -> Result<Expansion> {
    let all = lift.digits(steps)?;
    Ok(Expansion {
        digits: all.par_chunks(entries).map(<[u32]>::to_vec).collect(),
        radices: radices.to_vec(),
    })
}
