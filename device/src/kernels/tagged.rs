//! Tagged words for blocks of a cooperative launch that hand values to each other
//! without grid barriers: a 32-bit value and a 32-bit tag (the step it belongs to) in
//! one 64-bit word, which a reader takes only once it carries the tag it waits for.
//! The value and its flag arrive together (an aligned 64-bit access is single-copy
//! atomic), so no fence orders them; the loads and stores are device-scope (never a
//! stale cached copy), or system-scope where the words come from other devices through
//! peer access ([`Watch::across_devices`], [`sys_store_u64`]).
//!
//! Every wait is bounded ([`Watch`]): a wait that sees no word arrive for the launch's
//! stall limit marks the launch's word, every other wait of the launch then gives up at
//! once, and the launch runs to its end (with values the host discards: it reads the
//! word after the launch and reports the stall).

use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
use rns_core::Modulus;

/// Tagged words a thread polls at once in [`stage_tagged`], their loads in flight together.
const POLLED: usize = 4;

/// Polls of a wait between two looks at the clock and at the launch's word.
const CHECK_EVERY: u32 = 64;

/// A launch's bound on its waits: the device word the host gave it (bit 0 set by the
/// first wait that gave up; bit 1 set by the host to make every wait blind to what
/// arrives, the test of a stall) and the stall limit in nanoseconds.
#[derive(Clone, Copy)]
pub(super) struct Watch {
    word: *mut u32,
    limit_ns: u64,
    blind: bool,
    /// Whether the words waited for may come from other devices (system-scope loads).
    system: bool,
}

impl Watch {
    /// The watch of the launch's `word` and limit.
    #[inline(always)]
    pub(super) unsafe fn new(word: *mut u32, limit_ns: u64) -> Watch {
        Watch {
            word,
            limit_ns,
            blind: load_u32(word) & 2 != 0,
            system: false,
        }
    }

    /// This watch, its waits' loads system-scope when `system` (words stored by other
    /// devices through peer access), else device-scope.
    #[inline(always)]
    pub(super) fn across_devices(self, system: bool) -> Watch {
        Watch { system, ..self }
    }

    /// The word at `p`, in the scope of the launch's waits.
    #[inline(always)]
    unsafe fn load(self, p: *const u64) -> u64 {
        match self.system {
            true => sys_load_u64(p),
            false => gpu_load_u64(p),
        }
    }

    /// Whether a wait of the launch gave up.
    #[inline(always)]
    unsafe fn gave_up(self) -> bool {
        load_u32(self.word) & 1 != 0
    }

    /// Marks the launch: a wait gave up.
    #[inline(always)]
    unsafe fn give_up(self) {
        core::arch::asm!("red.relaxed.gpu.global.or.b32 [{p}], 1;", p = in(reg64) self.word);
    }
}

/// The word at `p`, a relaxed device-scope load.
#[inline(always)]
unsafe fn load_u32(p: *const u32) -> u32 {
    let r: u32;
    core::arch::asm!("ld.relaxed.gpu.global.u32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p);
    r
}

/// The device's clock in nanoseconds.
#[inline(always)]
fn global_timer() -> u64 {
    let t: u64;
    // SAFETY: reads a special register.
    unsafe { core::arch::asm!("mov.u64 {t}, %globaltimer;", t = out(reg64) t) };
    t
}

/// One wait's count of polls and its start (taken at its first look at the clock).
struct Clock {
    polls: u32,
    start: u64,
}

impl Clock {
    fn new() -> Clock {
        Clock { polls: 0, start: 0 }
    }

    /// Counts a poll; whether the wait must end: every [`CHECK_EVERY`] polls, the launch
    /// gave up, or this wait has gone on for the limit (then it marks the launch).
    #[inline(always)]
    unsafe fn expired(&mut self, w: Watch) -> bool {
        self.polls = self.polls.wrapping_add(1);
        if self.polls % CHECK_EVERY != 0 {
            return false;
        }
        if w.gave_up() {
            return true;
        }
        let now = global_timer();
        if self.start == 0 {
            self.start = now;
        } else if now.wrapping_sub(self.start) > w.limit_ns {
            w.give_up();
            return true;
        }
        false
    }
}

/// `value` tagged `tag`.
#[inline(always)]
pub(super) fn tagged(value: u32, tag: u32) -> u64 {
    value as u64 | ((tag as u64) << 32)
}

/// The word at `p`, a relaxed device-scope load.
#[inline(always)]
pub(super) unsafe fn gpu_load_u64(p: *const u64) -> u64 {
    let r: u64;
    core::arch::asm!("ld.relaxed.gpu.global.u64 {r}, [{p}];", r = out(reg64) r, p = in(reg64) p);
    r
}

/// Stores `v` at `p`, a relaxed device-scope store.
#[inline(always)]
pub(super) unsafe fn gpu_store_u64(p: *mut u64, v: u64) {
    core::arch::asm!("st.relaxed.gpu.global.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v);
}

/// The word at `p`, a relaxed system-scope load (stores of other devices included).
#[inline(always)]
unsafe fn sys_load_u64(p: *const u64) -> u64 {
    let r: u64;
    core::arch::asm!("ld.relaxed.sys.global.u64 {r}, [{p}];", r = out(reg64) r, p = in(reg64) p);
    r
}

/// Stores `v` at `p`, a relaxed system-scope store (another device's memory, through
/// peer access).
#[inline(always)]
pub(super) unsafe fn sys_store_u64(p: *mut u64, v: u64) {
    core::arch::asm!("st.relaxed.sys.global.u64 [{p}], {v};", p = in(reg64) p, v = in(reg64) v);
}

/// Waits for the word at `p` to carry tag `tag` or `other`; returns its value and
/// whether the tag was `tag` (`(0, false)` when the wait gave up: [`Watch`]).
#[inline(always)]
pub(super) unsafe fn wait_for(p: *const u64, tag: u32, other: u32, watch: Watch) -> (u32, bool) {
    let mut clock = Clock::new();
    loop {
        let w = watch.load(p);
        let t = (w >> 32) as u32;
        if !watch.blind && (t == tag || t == other) {
            return (w as u32, t == tag);
        }
        if clock.expired(watch) {
            return (0, false);
        }
    }
}

/// Copies the values of the `n × l` tagged words at `v` (row-major) into the block's
/// shared memory `stage` column by column (residues centered modulo `m` when it is given,
/// as `i32` bits), waiting for each to carry `tag`; then a block barrier. A thread polls
/// its words [`POLLED`] at a time; a wait that gives up ([`Watch`]) takes what it read.
#[inline(always)]
pub(super) unsafe fn stage_tagged(
    v: *const u64,
    stage: *mut u32,
    (n, l): (u32, u32),
    tag: u32,
    m: Option<Modulus>,
    watch: Watch,
) {
    let (nt, len) = (_block_dim_x(), n * l);
    let at = |e: u32| {
        let (c, j) = (e.checked_div(n).unwrap_or(0), e.checked_rem(n).unwrap_or(0));
        v.add((j * l + c) as usize)
    };
    let mut j0 = _thread_idx_x();
    while j0 < len {
        let mut w = [0u64; POLLED];
        let mut clock = Clock::new();
        loop {
            for (i, w) in w.iter_mut().enumerate() {
                let j = j0 + i as u32 * nt;
                if j < len {
                    *w = watch.load(at(j));
                }
            }
            let mut ready = !watch.blind;
            for (i, w) in w.iter().enumerate() {
                ready &= j0 + i as u32 * nt >= len || (*w >> 32) as u32 == tag;
            }
            if ready || clock.expired(watch) {
                break;
            }
        }
        for (i, w) in w.iter().enumerate() {
            let j = j0 + i as u32 * nt;
            if j < len {
                let v = *w as u32;
                *stage.add(j as usize) = match m {
                    Some(m) => m.center(v) as u32,
                    None => v,
                };
            }
        }
        j0 += POLLED as u32 * nt;
    }
    _syncthreads();
}
