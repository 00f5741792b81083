//! Dixon's lifting on one device or split by rows across several ([`start_lift_on`]):
//! each device holds `A`'s limbs, forms the inverses modulo a share of the step's primes
//! and copies them to the others (peer to peer), then lifts its share of the rows, its
//! blocks handing their digits `x` and residues `y` to the other devices' blocks as
//! tagged words through peer access (`device/src/kernels/lift.rs`). One lifting, each
//! step reading `A⁻¹ mod P` and the limbs at the devices' summed memory bandwidth; the
//! digits are the same as on one device. A split lifting has the devices' liftings to
//! itself (`LIFTINGS`).

use super::dixon::{det_mod_limbs, inverses, lift_from, start_lift, DeviceLimbs, Lift};
use super::dixon_ranks::{self, start_lift_ranks, Started};
use crate::backend::gpu::driver::peer;
use crate::backend::gpu::launch::{self, LiftLayout};
use crate::backend::gpu::Gpu;
use crate::backend::split::{each_on_thread, shares};
use crate::error::{Error, Result};
use cudarc::driver::CudaSlice;
use rayon::prelude::*;
use rns_core::Modulus;
use std::ops::Range;
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

/// The liftings in flight. A lifting split across devices holds it alone for its whole
/// life; liftings on one device share it. Two split liftings at once could interleave
/// their work on the devices' streams in different orders, or one's last stores into a
/// peer could land in memory the other was given: each would wait for a part that
/// waits behind the other (until the stall limit) or read a word of the other's.
static LIFTINGS: RwLock<()> = RwLock::new(());

/// A lifting's hold on [`LIFTINGS`].
enum Turn {
    /// On one device.
    One(#[allow(dead_code)] RwLockReadGuard<'static, ()>),
    /// Split across devices.
    Split(#[allow(dead_code)] RwLockWriteGuard<'static, ()>),
}

/// `A` as limbs on each device of a lifting, the first device first.
pub type LimbsOn = [(Arc<Gpu>, DeviceLimbs)];

/// Whether a lifting of `n` rows in `layout` (on one device) is split across `gpus`:
/// at least two devices, every pair with peer access, and the rows read from global
/// memory (the kernel that keeps them in shared memory runs on one device).
pub fn splits(gpus: &[Arc<Gpu>], n: usize, layout: Option<LiftLayout>) -> Result<bool> {
    if gpus.len() < 2 || n < gpus.len() || !matches!(layout, Some(LiftLayout::Global { .. })) {
        return Ok(false);
    }
    let refs: Vec<&Gpu> = gpus.iter().map(|g| &**g).collect();
    peer::all_pairs(&refs)
}

/// A lifting under way on one device or several ([`start_lift_on`]).
pub struct LiftOn<'a> {
    /// One lifting a device, the first holding row 0.
    parts: Vec<Lift<'a>>,
    n: usize,
    l: usize,
    /// Every MPI rank's rows where the lifting is split across the ranks (`parts` is
    /// then this rank's one part).
    ranks: Option<Vec<Range<usize>>>,
    /// Held until the lifting ends (after `parts`, which [`Drop`] waits for).
    _turn: Turn,
}

impl Drop for LiftOn<'_> {
    /// A split lifting waits for every device's runs to end before its buffers go back
    /// to the devices' pools (a device may still be storing into a peer's buffer when
    /// an error ends the lifting early); the wait is bounded as every host wait is.
    fn drop(&mut self) {
        if self.parts.len() > 1 {
            self.parts.iter().for_each(|p| drop(p.check()));
        }
    }
}

/// [`start_lift`] on every device of `on` (the limbs of `A` on each): on one device
/// that lifting; on several, each device's over its share of the rows (equal shares,
/// in device order), the inverses formed a share of the primes a device and copied to
/// the others (`shared_inverses`). The caller checks [`splits`] for several devices.
pub fn start_lift_on<'a>(
    on: &'a LimbsOn,
    (rhs, l): (&[i128], usize),
    (primes, max_primes): (&[Modulus], usize),
    capacity: &(dyn Fn(&[Modulus]) -> usize + Sync),
    across_ranks: bool,
) -> Result<Option<LiftOn<'a>>> {
    let Some((gpu, first)) = on.first() else {
        return Err(Error::Internal("a lifting on no device".into()));
    };
    let n = first.n;
    let turn = match (on.len(), across_ranks) {
        (1, false) => Turn::One(LIFTINGS.read().unwrap_or_else(|e| e.into_inner())),
        _ => Turn::Split(LIFTINGS.write().unwrap_or_else(|e| e.into_inner())),
    };
    if across_ranks && on.len() == 1 {
        let (parts, ranks) =
            match start_lift_ranks(gpu, first, (rhs, l), (primes, max_primes), capacity)? {
                Started::Split(part, rows) => (vec![part], Some(rows)),
                Started::Alone(part) => (vec![part], None),
                Started::Singular => return Ok(None),
            };
        return Ok(Some(LiftOn {
            parts,
            n,
            l,
            ranks,
            _turn: turn,
        }));
    }
    let layouts: Vec<Option<LiftLayout>> = on
        .iter()
        .map(|(g, a)| launch::lift_layout(g, n, a.limbs, l, max_primes))
        .collect();
    let start = Instant::now();
    let started = match (on.len(), layouts[0]) {
        (2.., Some(layout)) if layouts.iter().all(|&t| t == Some(layout)) => {
            shared_inverses(on, primes, layout.primes())?.map(|(moduli, inverses)| {
                on.iter()
                    .zip(inverses)
                    .map(|((gpu, limbs), inv)| {
                        let lift = (moduli.clone(), inv);
                        lift_from(gpu, limbs, (rhs, l), layout, lift, capacity, start).map(Some)
                    })
                    .collect::<Vec<_>>()
            })
        }
        _ => None,
    };
    // Else (one device, a singular prime among the first, different layouts) every
    // device looks for its primes itself.
    let started: Vec<Result<Option<Lift<'a>>>> = match started {
        Some(s) => s,
        None => each_on_thread(on, &|_, (gpu, limbs)| {
            let candidates = (primes.iter().copied(), max_primes);
            start_lift(gpu, limbs, (rhs, l), candidates, capacity)
        }),
    };
    let mut parts = Vec::with_capacity(on.len());
    for s in started {
        match s? {
            Some(lift) => parts.push(lift),
            None => return Ok(None),
        }
    }
    if parts.len() > 1 {
        let chosen = parts[0].primes();
        if parts
            .iter()
            .any(|p| p.primes() != chosen || p.layout() != parts[0].layout())
        {
            return Err(Error::Internal(
                "the devices of a split lifting chose different primes or layouts".into(),
            ));
        }
        let rows = shares(n, &vec![1.0; parts.len()]);
        let addresses: Vec<[u64; 2]> = parts.iter().map(Lift::exchange_addresses).collect();
        for (i, part) in parts.iter_mut().enumerate() {
            let peers: Vec<[u64; 2]> = (0..addresses.len())
                .filter(|&j| j != i)
                .map(|j| addresses[j])
                .collect();
            part.share((rows[i].start, rows[i].len()), &peers)?;
        }
    }
    Ok(Some(LiftOn {
        parts,
        n,
        l,
        ranks: None,
        _turn: turn,
    }))
}

/// The primes of a lifting and, on each device, the buffer of their inverses.
type Shared = (Vec<Modulus>, Vec<CudaSlice<u32>>);

/// `A⁻¹ mod p` for the first `want` (at least two) of `primes` on every device of `on`,
/// each device forming every `D`-th of them (device `d` primes `d`, `d + D`, …) and
/// copying them to the others through peer access: the primes and each device's
/// buffer of all `want` inverses. `None` when `A` is singular modulo one of them (then
/// each device looks for its primes itself, as on one device).
fn shared_inverses(on: &LimbsOn, primes: &[Modulus], want: usize) -> Result<Option<Shared>> {
    let (devices, n) = (on.len(), on[0].1.n);
    if want < 2 || primes.len() < want {
        return Ok(None);
    }
    let formed = each_on_thread(on, &|d, (gpu, limbs)| {
        let mine: Vec<Modulus> = (d..want).step_by(devices).map(|q| primes[q]).collect();
        let (moduli, inv) = inverses(gpu, limbs, mine.iter().copied(), mine.len())?;
        gpu.sync_stream(gpu.stream())?;
        Ok((moduli.len() == mine.len()).then_some(inv))
    });
    let Some(formed) = formed.into_iter().collect::<Result<Option<Vec<_>>>>()? else {
        return Ok(None);
    };
    let formed = &formed;
    let all = each_on_thread(on, &|t, (gpu, _)| {
        let mut inv = gpu.alloc_on(gpu.stream(), want * n * n)?;
        for (d, (from, _)) in on.iter().enumerate() {
            for (j, q) in (d..want).step_by(devices).enumerate() {
                let part = (from.as_ref(), &formed[d], j * n * n..(j + 1) * n * n);
                match d == t {
                    true => gpu.dtod(
                        gpu.stream(),
                        &formed[d].slice(part.2),
                        &mut inv.slice_mut(q * n * n..(q + 1) * n * n),
                    )?,
                    false => peer::copy_from((gpu, &mut inv, q * n * n), part)?,
                }
            }
        }
        gpu.sync_stream(gpu.stream())?;
        Ok(inv)
    });
    let all = all.into_iter().collect::<Result<Vec<_>>>()?;
    Ok(Some((primes[..want].to_vec(), all)))
}

impl LiftOn<'_> {
    /// The devices lifting (of every rank, where it is split across ranks).
    pub fn devices(&self) -> usize {
        self.ranks.as_ref().map_or(self.parts.len(), Vec::len)
    }

    /// The primes a step lifts by, in the order of each step's digits.
    pub fn primes(&self) -> Vec<u32> {
        self.parts[0].primes()
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.parts[0].steps()
    }

    /// Wall-clock time of the inverses (the slowest device's).
    pub fn inverse_time(&self) -> Duration {
        self.parts
            .iter()
            .map(|p| p.inverse_time)
            .max()
            .unwrap_or_default()
    }

    /// Runs `steps` more steps on every device (their launches queued together: the
    /// devices' blocks wait for each other's words).
    pub fn run(&mut self, steps: usize) -> Result<()> {
        self.parts.iter_mut().try_for_each(|p| p.run(steps))
    }

    /// Row 0's digits so far ([`Lift::first`]), once every device's runs have ended
    /// without a stalled wait (a device whose wait gave up would have handed on
    /// values the others took).
    pub fn first(&self) -> Result<Vec<u32>> {
        if let Some(rows) = &self.ranks {
            let len = self.steps() * self.parts[0].primes().len() * self.l;
            return dixon_ranks::first(&self.parts[0], rows, len);
        }
        let digits = self.parts[0].first()?;
        self.parts[1..].iter().try_for_each(Lift::check)?;
        Ok(digits)
    }

    /// Every row's digits of the first `steps` steps ([`Lift::digits`]), each device's
    /// rows from it.
    pub fn digits(&self, steps: usize) -> Result<Vec<u32>> {
        if let Some(rows) = &self.ranks {
            return dixon_ranks::digits(&self.parts[0], rows, (self.n, self.l), steps);
        }
        if self.parts.len() == 1 {
            return self.parts[0].digits(steps);
        }
        let got = each_on_thread(&self.parts, &|_, p| p.digits(steps));
        let mut got = got.into_iter().collect::<Result<Vec<Vec<u32>>>>()?;
        let level = self.n * self.l;
        let mut all = std::mem::take(&mut got[0]);
        for (part, theirs) in self.parts.iter().zip(&got).skip(1) {
            let (r0, rows) = part.rows();
            let span = r0 * self.l..(r0 + rows) * self.l;
            all.par_chunks_mut(level)
                .zip(theirs.par_chunks(level))
                .for_each(|(mine, theirs)| {
                    mine[span.clone()].copy_from_slice(&theirs[span.clone()])
                });
        }
        Ok(all)
    }
}

/// `det A mod m` for each of `moduli` ([`det_mod_limbs`]) from the limbs on every device
/// of `on`, the primes shared out equally, a host thread a device.
pub fn det_mod_limbs_on(on: &LimbsOn, moduli: &[Modulus]) -> Result<Vec<u32>> {
    if let [(gpu, limbs)] = on {
        return det_mod_limbs(gpu, limbs, moduli);
    }
    let parts = shares(moduli.len(), &vec![1.0; on.len()]);
    let got = each_on_thread(on, &|d, (gpu, limbs)| {
        det_mod_limbs(gpu, limbs, &moduli[parts[d].clone()])
    });
    Ok(got.into_iter().collect::<Result<Vec<_>>>()?.concat())
}
