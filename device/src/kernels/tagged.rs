//! Tagged words for blocks of a cooperative launch that hand values to each other
//! without grid barriers: a 32-bit value and a 32-bit tag (the step it belongs to) in
//! one 64-bit word, which a reader takes only once it carries the tag it waits for.
//! The value and its flag arrive together (an aligned 64-bit access is single-copy
//! atomic), so no fence orders them; the loads and stores are device-scope (never a
//! stale cached copy).

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
