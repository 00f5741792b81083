//! Where work runs: the one place that chooses, for the library, the CLI and Python.
//!
//! - **Which backend** a computation gets: [`Backend::choose`]. `cpu` and `gpu` as
//!   asked; `auto` with an estimate (the CLI's and Python's [`Chooser`], one
//!   computation at a time) takes the GPUs when the cost model ([`super::cost`]) expects
//!   them to finish first, counting what is left of CUDA's start-up; `auto` without one
//!   (a backend made once for many computations: [`Backend::select`]) takes the GPUs and
//!   leaves each operation below [`AUTO_MIN_WORK`] residues to the CPU.
//! - **How many devices** a piece of work gets ([`Backend::plan`], and for a Dixon lifting
//!   `Backend::lift_devices`): none below the backend's `min_work` (the CPU runs it);
//!   every GPU of the process from its `min_split` ([`SPLIT_MIN_WORK`]) when the work can
//!   be split (channels; a lifting's rows, when every pair of devices has peer access and
//!   the rows are read from global memory; a few large matrices' rows in panels); else
//!   the first. Across MPI ranks, each rank's
//!   share is planned again by the same rule.
//!
//! Every operation asks here and runs through one of the runners below, giving only its
//! CPU and GPU bodies: `whole` for work that is never split (vectors, conversions),
//! `per_channel` and `per_channel_mut` for channel-parallel work.
//!
//! [`Chooser`]: super::auto::Chooser

use super::cost::Estimate;
use super::devices::Devices;
use super::gpu::launch::LiftLayout;
use super::gpu::{ops, Gpu};
use super::{split, Backend};
use crate::cluster;
use crate::error::{Error, Result};
use crate::num::words::Words;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A Dixon lifting's work in the planner's measure: `n²·l` entries a step, about `n`
/// steps. (Likewise the factorization of `l` matrices `n × n`: `n³` each.)
fn lifting_work(n: usize, l: usize) -> usize {
    n.saturating_mul(n)
        .saturating_mul(l.max(1))
        .saturating_mul(n)
}

/// Residues (numbers × channels) of one operation below which [`BackendChoice::Auto`]
/// keeps it on the CPU.
pub const AUTO_MIN_WORK: usize = 1 << 16;

/// Work (in the operations' own measure: residues in, or residue-steps) below which
/// several GPUs leave a computation to the first: the threads, the extra launches and
/// the joins cost more than the device time they save (two H200s: a 120² det took
/// 3.1 ms on one and on two, a 48² 1000-bit product 2.8 and 3.4 ms).
pub const SPLIT_MIN_WORK: usize = 1 << 22;

/// Which backend the caller asks for.
///
/// ```
/// use rns::{Backend, BackendChoice};
///
/// assert_eq!(BackendChoice::from_name("gpu"), Some(BackendChoice::Gpu));
/// assert_eq!(BackendChoice::from_name("tpu"), None);
/// let cpu = Backend::select(BackendChoice::from_name("cpu").unwrap_or_default())?;
/// assert_eq!(cpu.name(), "cpu");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum BackendChoice {
    /// The CPU backend.
    Cpu,
    /// The GPU backend; an error if no CUDA device is usable.
    Gpu,
    /// The GPU when one is usable, else the CPU.
    #[default]
    Auto,
}

impl BackendChoice {
    /// The choice called `name`: `cpu`, `gpu` or `auto`.
    pub fn from_name(name: &str) -> Option<BackendChoice> {
        match name {
            "cpu" => Some(BackendChoice::Cpu),
            "gpu" => Some(BackendChoice::Gpu),
            "auto" => Some(BackendChoice::Auto),
            _ => None,
        }
    }

    /// The choice's name.
    pub fn name(self) -> &'static str {
        match self {
            BackendChoice::Cpu => "cpu",
            BackendChoice::Gpu => "gpu",
            BackendChoice::Auto => "auto",
        }
    }
}

/// Where an amount of work runs.
#[derive(Clone, Copy, Debug)]
pub enum Plan<'a> {
    /// On this host's cores.
    Cpu,
    /// Whole on one GPU.
    Gpu(&'a Arc<Gpu>),
    /// Its channels shared among the GPUs of this process, in proportion to their
    /// speed, one host thread each.
    Devices(&'a [Arc<Gpu>]),
    /// Its channels shared among the MPI ranks, each rank's share planned again on its
    /// own backend ([`Backend::local_plan`]) and gathered to every rank.
    Ranks,
}

/// A channel-parallel computation: `channels` channels of `per` result words each, and
/// its work (residues, or residue-steps) for the plan.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Channels {
    /// Channels.
    pub count: usize,
    /// Result words per channel.
    pub per: usize,
    /// The work of all channels.
    pub work: usize,
}

impl Channels {
    /// `count` channels of `per` result words each, `work` in all.
    pub(crate) fn new(count: usize, per: usize, work: usize) -> Channels {
        Channels { count, per, work }
    }
}

/// A share of channels on the host's cores: the result words of the channels `range`.
pub(crate) type CpuShare<'a> = dyn Fn(Range<usize>) -> Result<Words> + Sync + 'a;
/// A share of channels on one GPU.
pub(crate) type GpuShare<'a> = dyn Fn(&Arc<Gpu>, Range<usize>) -> Result<Words> + Sync + 'a;
/// A share of channels that also rewrites its channels' words of a buffer in place.
pub(crate) type CpuShareMut<'a> = dyn Fn(Range<usize>, &mut [u32]) -> Result<Words> + Sync + 'a;
/// [`CpuShareMut`] on one GPU.
pub(crate) type GpuShareMut<'a> =
    dyn Fn(&Arc<Gpu>, Range<usize>, &mut [u32]) -> Result<Words> + Sync + 'a;

impl Backend {
    /// The backend for a choice: `Gpu` fails with [`Error::NoGpu`] when no device is
    /// usable; `Auto` takes the GPU when one is usable (for work of at least
    /// [`AUTO_MIN_WORK`] residues), else the CPU.
    pub fn select(choice: BackendChoice) -> Result<Backend> {
        Backend::select_devices(choice, &Devices::List(vec![0]))
    }

    /// [`Backend::select`] over the GPUs `devices` (all usable ones with
    /// [`Devices::All`]): `Gpu` fails when they do not open; `Auto` falls back to the CPU.
    pub fn select_devices(choice: BackendChoice, devices: &Devices) -> Result<Backend> {
        Backend::choose(choice, devices, None)
    }

    /// The rule: the backend for `choice` over `devices`, for one computation when
    /// `estimate` gives its cost on each backend and the milliseconds of CUDA's start-up
    /// still to come (then a GPU chosen runs every part of it), else for any number of
    /// computations (then `Auto` leaves work below [`AUTO_MIN_WORK`] residues to the
    /// CPU, operation by operation).
    pub fn choose(
        choice: BackendChoice,
        devices: &Devices,
        estimate: Option<(Estimate, f64)>,
    ) -> Result<Backend> {
        match (choice, estimate) {
            (BackendChoice::Cpu, _) => Ok(Backend::Cpu),
            (BackendChoice::Gpu, _) => Backend::on_gpus(devices.open()?, 0),
            (BackendChoice::Auto, Some((est, start_left_ms))) => {
                Ok(match est.gpu_wins(start_left_ms) {
                    true => devices
                        .open()
                        .and_then(|g| Backend::on_gpus(g, 0))
                        .unwrap_or(Backend::Cpu),
                    false => Backend::Cpu,
                })
            }
            (BackendChoice::Auto, None) => Ok(devices
                .open()
                .and_then(|g| Backend::on_gpus(g, AUTO_MIN_WORK))
                .unwrap_or(Backend::Cpu)),
        }
    }

    /// The backend over `gpus` (at least one): [`Backend::Gpu`] for one device,
    /// [`Backend::Gpus`] for several (work below [`SPLIT_MIN_WORK`] stays on the first).
    /// Work below `min_work` residues runs on the CPU.
    pub fn on_gpus(mut gpus: Vec<Arc<Gpu>>, min_work: usize) -> Result<Backend> {
        match gpus.len() {
            0 => Err(Error::no_gpu("no device was given")),
            1 => Ok(Backend::Gpu {
                gpu: gpus.remove(0),
                min_work,
            }),
            _ => Ok(Backend::Gpus {
                gpus: gpus.into(),
                min_work,
                min_split: SPLIT_MIN_WORK,
            }),
        }
    }

    /// Where `work` of a channel-parallel computation runs: across the MPI ranks when
    /// there are several, else [`Backend::local_plan`].
    pub fn plan(&self, work: usize) -> Plan<'_> {
        match cluster::size() {
            1 => self.local_plan(work),
            _ if RANK_LOCAL.load(Ordering::Acquire) > 0 => self.local_plan(work),
            _ => Plan::Ranks,
        }
    }

    /// Where `work` runs in this process: on the CPU below the backend's `min_work`; on
    /// several GPUs from their `min_split`; else on the (first) GPU.
    pub fn local_plan(&self, work: usize) -> Plan<'_> {
        match self.devices_by_size(work, true) {
            [] => Plan::Cpu,
            [g] => Plan::Gpu(g),
            gpus => Plan::Devices(gpus),
        }
    }

    /// The devices `work` gets by its size (the module's rule): none below `min_work`,
    /// all from `min_split` when it `spreads`, else the first.
    fn devices_by_size(&self, work: usize, spreads: bool) -> &[Arc<Gpu>] {
        let (gpus, min_work, min_split) = match self {
            Backend::Cpu => return &[],
            Backend::Gpu { gpu, min_work } => (std::slice::from_ref(gpu), *min_work, 0),
            Backend::Gpus {
                gpus,
                min_work,
                min_split,
            } => (&gpus[..], *min_work, *min_split),
        };
        match work {
            w if w < min_work => &[],
            w if spreads && w >= min_split => gpus,
            _ => &gpus[..1],
        }
    }

    /// The GPU a Dixon lifting of an `n × n` system with `l` right-hand sides runs on
    /// first (by its size, as every computation: its work taken as `n²·l` entries times
    /// `n` steps), or `None` for the CPU.
    pub(crate) fn lifting_gpu(&self, n: usize, l: usize) -> Option<&Arc<Gpu>> {
        self.devices_by_size(lifting_work(n, l), false).first()
    }

    /// The GPU that proves `entries` numerators coprime to a denominator's rough part of
    /// `bits` bits by one product (`ops::redc`; its work taken as `entries` times the
    /// channels' square), where its config takes that size; `None` for the host.
    pub(crate) fn coprime_gpu(&self, entries: usize, bits: u64) -> Option<&Arc<Gpu>> {
        let channels = (bits / 30) as usize + 1;
        let work = entries.saturating_mul(channels.saturating_mul(channels));
        let gpu = self.devices_by_size(work, false).first()?;
        gpu.config()
            .coprime_on_device_for(entries, bits)
            .then_some(gpu)
    }

    /// The GPUs a Dixon lifting of an `n × n` system with `l` right-hand sides runs on,
    /// its launch on one device being `layout`: all of [`Backend::lifting_gpu`]'s where
    /// the lifting splits by rows (several devices, peer access between every pair,
    /// enabled here, and the rows read from global memory:
    /// `ops::dixon_devices::splits`), else the first (none for the CPU).
    pub(crate) fn lift_devices(
        &self,
        (n, l): (usize, usize),
        layout: Option<LiftLayout>,
    ) -> Result<&[Arc<Gpu>]> {
        let gpus = self.devices_by_size(lifting_work(n, l), true);
        match ops::dixon_devices::splits(gpus, n, layout)? {
            true => Ok(gpus),
            false => Ok(&gpus[..gpus.len().min(1)]),
        }
    }

    /// The GPUs that factor `channels` large `n × n` matrices together, their rows in
    /// panels split across them (`ops::few_devices`, where the panels apply): all from
    /// `min_split` (the work taken as `n³` a matrix), else the first (none for the CPU).
    pub fn factor_devices(&self, n: usize, channels: usize) -> &[Arc<Gpu>] {
        self.devices_by_size(lifting_work(n, channels), true)
    }

    /// Whether a Dixon lifting of `n` rows on the GPU meets the other MPI ranks of this
    /// host to split its rows across them, one device a rank (`ops::dixon_ranks`: the
    /// handshake decides, alike on every rank, whether they split or each lifts alone).
    pub(crate) fn lift_ranks(&self, n: usize) -> bool {
        self.gpu().is_some() && ops::dixon_ranks::splits(n)
    }

    /// The GPU that runs `work` when it is not split (on several GPUs, the first), or
    /// `None` for the CPU.
    pub(crate) fn device_for(&self, work: usize) -> Option<&Arc<Gpu>> {
        self.devices_by_size(work, false).first()
    }

    /// Runs work that is never split by `gpu` on the device [`Backend::device_for`]
    /// gives, else by `cpu`.
    pub(crate) fn whole<T>(
        &self,
        work: usize,
        cpu: impl FnOnce() -> Result<T>,
        gpu: impl FnOnce(&Arc<Gpu>) -> Result<T>,
    ) -> Result<T> {
        match self.device_for(work) {
            Some(g) => gpu(g),
            None => cpu(),
        }
    }

    /// Runs a channel-parallel computation as [`Backend::plan`] says: whole on the CPU
    /// or one GPU, or as shares of the channels (each share by `cpu` or `gpu`, its
    /// words concatenated in channel order). A failure on any device or rank is an
    /// error, never a partial result.
    pub(crate) fn per_channel(
        &self,
        job: Channels,
        cpu: &CpuShare<'_>,
        gpu: &GpuShare<'_>,
    ) -> Result<Words> {
        let run = |plan: Plan<'_>, range: Range<usize>| -> Result<Words> {
            let out = match plan {
                Plan::Cpu | Plan::Ranks => cpu(range.clone())?,
                Plan::Gpu(g) => gpu(g, range.clone())?,
                Plan::Devices(gpus) => {
                    let at = range.start;
                    let parts = split::per_device(gpus, range.len(), &|g, r| {
                        let r = at + r.start..at + r.end;
                        split::check_len(gpu(g, r.clone())?, r.len() * job.per)
                    })?;
                    Words::Heap(parts.into_iter().flat_map(Words::into_vec).collect())
                }
            };
            split::check_len(out, range.len() * job.per)
        };
        match self.plan(job.work) {
            Plan::Ranks => across_ranks(job.count, job.per, |mine| {
                run(self.local_plan(job.work / cluster::size()), mine)
            })
            .map(Words::Heap),
            plan => run(plan, 0..job.count),
        }
    }

    /// [`Backend::per_channel`] for computations that also rewrite their channels' part
    /// of `data` (`words` words per channel) in place: on several GPUs each device gets
    /// its part to overwrite; across MPI ranks each rank's part is computed on a copy
    /// and, when `gather`, gathered back into `data` (else `data` is left unspecified
    /// there).
    pub(crate) fn per_channel_mut(
        &self,
        job: Channels,
        (data, words, gather): (&mut [u32], usize, bool),
        cpu: &CpuShareMut<'_>,
        gpu: &GpuShareMut<'_>,
    ) -> Result<Words> {
        if data.len() != job.count * words {
            return Err(Error::Internal(format!(
                "{} words for {} channels of {words}",
                data.len(),
                job.count
            )));
        }
        let run = |plan: Plan<'_>, range: Range<usize>, part: &mut [u32]| -> Result<Words> {
            let out = match plan {
                Plan::Cpu | Plan::Ranks => cpu(range.clone(), part)?,
                Plan::Gpu(g) => gpu(g, range.clone(), part)?,
                Plan::Devices(gpus) => {
                    let at = range.start;
                    let parts =
                        split::per_device_mut(gpus, range.len(), words, part, &|g, r, p| {
                            let r = at + r.start..at + r.end;
                            split::check_len(gpu(g, r.clone(), p)?, r.len() * job.per)
                        })?;
                    Words::Heap(parts.into_iter().flat_map(Words::into_vec).collect())
                }
            };
            split::check_len(out, range.len() * job.per)
        };
        let Plan::Ranks = self.plan(job.work) else {
            return run(self.plan(job.work), 0..job.count, data);
        };
        // Each rank's results, then its part of the data, gathered to every rank.
        let (ranges, mine) = split::rank_shares(job.count);
        let words_back = if gather { words } else { 0 };
        let mut part = data[mine.start * words..mine.end * words].to_vec();
        let each = job.per + words_back;
        let counts: Vec<usize> = ranges.iter().map(|r| r.len() * each).collect();
        let plan = self.local_plan(job.work / ranges.len());
        let all = cluster::all_gather_with(&counts, |out| {
            let w = run(plan, mine.clone(), &mut part)?;
            let (res, back) = out.split_at_mut(w.len());
            res.copy_from_slice(&w);
            if gather {
                back.copy_from_slice(&part);
            }
            Ok(())
        })?;
        let mut out = Vec::with_capacity(job.count * job.per);
        for (i, r) in ranges.iter().enumerate() {
            let (res, part) = all.part(i).split_at(r.len() * job.per);
            out.extend_from_slice(res);
            if gather {
                data[r.start * words..r.end * words].copy_from_slice(part);
            }
        }
        Ok(Words::Heap(out))
    }
}

/// The least of every MPI rank's `value` (its own without MPI): a choice each rank made
/// alone, made alike on every rank (the most cautious wins), so that all take one path
/// to their collectives.
pub(crate) fn least_across_ranks(value: u32) -> Result<u32> {
    if cluster::size() == 1 {
        return Ok(value);
    }
    let all = cluster::all_gather(Ok([value]), &vec![1; cluster::size()])?;
    Ok(all.into_iter().min().unwrap_or(value))
}

/// Open [`rank_local`] sections: while there is one, [`Backend::plan`] keeps work in
/// this process.
static RANK_LOCAL: AtomicUsize = AtomicUsize::new(0);

/// Runs `f` with every plan kept in this process: this rank's share of a computation
/// that splits across the MPI ranks by its own rule (the exact product's rows), whose
/// parts must not split again. Under MPI a process runs one computation at a time (its
/// collectives are serialized), so no other computation is planned meanwhile.
pub(crate) fn rank_local<T>(f: impl FnOnce() -> T) -> T {
    struct Section;
    impl Drop for Section {
        fn drop(&mut self) {
            RANK_LOCAL.fetch_sub(1, Ordering::AcqRel);
        }
    }
    RANK_LOCAL.fetch_add(1, Ordering::AcqRel);
    let _open = Section;
    f()
}

/// Runs `share` on this rank's part of `count` channels (all of them with one rank)
/// and gives every rank's `per` words a channel to every rank, in channel order: for
/// work already placed on this rank's devices (a lifting's limbs) that splits only
/// across ranks. A failure on any rank is an error on every rank.
pub(crate) fn across_ranks<W: AsRef<[u32]>>(
    count: usize,
    per: usize,
    share: impl FnOnce(Range<usize>) -> Result<W>,
) -> Result<Vec<u32>> {
    if cluster::size() == 1 {
        return share(0..count).map(|w| w.as_ref().to_vec());
    }
    let (ranges, mine) = split::rank_shares(count);
    let counts: Vec<usize> = ranges.iter().map(|r| r.len() * per).collect();
    cluster::all_gather(share(mine), &counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_keeps_what_was_asked_and_auto_falls_back_to_the_cpu() {
        // No such device: the GPU asked for is an error, auto takes the CPU.
        let none = Devices::List(vec![4096]);
        let gpu_first = Estimate {
            cpu_ms: 1e9,
            gpu_ms: 1.0,
        };
        assert_eq!(
            Backend::choose(BackendChoice::Cpu, &none, Some((gpu_first, 0.0)))
                .unwrap()
                .name(),
            "cpu"
        );
        assert!(Backend::choose(BackendChoice::Gpu, &none, None).is_err());
        for est in [None, Some((gpu_first, 0.0))] {
            let auto = Backend::choose(BackendChoice::Auto, &none, est).unwrap();
            assert_eq!(auto.name(), "cpu");
            assert!(
                auto.device_for(usize::MAX).is_none() && auto.lifting_gpu(1 << 20, 1).is_none()
            );
        }
        assert_eq!(lifting_work(41, 0), 41 * 41 * 41);
        assert_eq!(lifting_work(usize::MAX, 2), usize::MAX);
    }
}
