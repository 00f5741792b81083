//! Tagged words for blocks of a cooperative launch that hand values to each other
//! without grid barriers: a 32-bit value and a 32-bit tag (the step it belongs to) in
//! one 64-bit word, which a reader takes only once it carries the tag it waits for.
//! The value and its flag arrive together (an aligned 64-bit access is single-copy
//! atomic), so no fence orders them; the loads and stores are device-scope (never a
//! stale cached copy).

use core::arch::nvptx::{_block_dim_x, _syncthreads, _thread_idx_x};
use rns_core::Modulus;

/// Tagged words a thread polls at once in [`stage_tagged`], their loads in flight together.
const POLLED: usize = 4;

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

/// Waits for the word at `p` to carry tag `tag` or `other`; returns its value and
/// whether the tag was `tag`.
#[inline(always)]
pub(super) unsafe fn wait_for(p: *const u64, tag: u32, other: u32) -> (u32, bool) {
    loop {
        let w = gpu_load_u64(p);
        let t = (w >> 32) as u32;
        if t == tag || t == other {
            return (w as u32, t == tag);
        }
    }
}

/// Copies the values of the `n × l` tagged words at `v` (row-major) into the block's
/// shared memory `stage` column by column (residues centered modulo `m` when it is given,
/// as `i32` bits), waiting for each to carry `tag`; then a block barrier. A thread polls
/// its words [`POLLED`] at a time.
#[inline(always)]
pub(super) unsafe fn stage_tagged(
    v: *const u64,
    stage: *mut u32,
    (n, l): (u32, u32),
    tag: u32,
    m: Option<Modulus>,
) {
    let (nt, len) = (_block_dim_x(), n * l);
    let at = |e: u32| {
        let (c, j) = (e.checked_div(n).unwrap_or(0), e.checked_rem(n).unwrap_or(0));
        v.add((j * l + c) as usize)
    };
    let mut j0 = _thread_idx_x();
    while j0 < len {
        let mut w = [0u64; POLLED];
        loop {
            for (i, w) in w.iter_mut().enumerate() {
                let j = j0 + i as u32 * nt;
                if j < len {
                    *w = gpu_load_u64(at(j));
                }
            }
            let mut ready = true;
            for (i, w) in w.iter().enumerate() {
                ready &= j0 + i as u32 * nt >= len || (*w >> 32) as u32 == tag;
            }
            if ready {
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
