//! PTX instructions of the tensor-core kernels that have no intrinsic, by inline
//! assembly: `mma.sync` on bytes, `ldmatrix`, `cp.async` and shared-memory addresses.

use core::arch::asm;

macro_rules! mma_m16n8k32 {
    ($name:ident, $ty:literal) => {
        /// `c += a · b` for a 16 × 32 byte tile `a` (row-major fragment) and a 32 × 8
        /// byte tile `b` (column-major fragment) into the 16 × 8 `s32` tile `c` (PTX ISA,
        /// "Matrix Fragments for mma.m16n8k32": lane `4g + t` holds `a` rows `g`, `g + 8`
        /// at inner entries `4t…4t+3` and `16+4t…`, `b` column `g` at the same inner
        /// entries, `c` rows `g`, `g + 8` at columns `2t`, `2t + 1`).
        #[inline(always)]
        pub unsafe fn $name(c: &mut [u32; 4], a: &[u32; 4], b: &[u32; 2]) {
            asm!(
                concat!(
                    "mma.sync.aligned.m16n8k32.row.col.s32.", $ty, ".", $ty,
                    ".s32 {{{0}, {1}, {2}, {3}}}, {{{4}, {5}, {6}, {7}}}, {{{8}, {9}}}, {{{0}, {1}, {2}, {3}}};"
                ),
                inout(reg32) c[0],
                inout(reg32) c[1],
                inout(reg32) c[2],
                inout(reg32) c[3],
                in(reg32) a[0],
                in(reg32) a[1],
                in(reg32) a[2],
                in(reg32) a[3],
                in(reg32) b[0],
                in(reg32) b[1],
            );
        }
    };
}

mma_m16n8k32!(mma_u8, "u8");
mma_m16n8k32!(mma_s8, "s8");

/// The shared-memory address (`.shared` state space, 32 bits) of a generic pointer
/// into shared memory.
#[inline(always)]
pub unsafe fn shared_address<T>(p: *const T) -> u32 {
    let s: u64;
    asm!("cvta.to.shared.u64 {0}, {1};", out(reg64) s, in(reg64) p as u64);
    s as u32
}

/// `cp.async.cg`: copies 16 bytes from global `src` to shared address `dst` without
/// passing through registers (both 16-byte aligned); completes by [`async_wait`].
#[inline(always)]
pub unsafe fn async_copy16(dst: u32, src: *const u8) {
    asm!("cp.async.cg.shared.global [{0}], [{1}], 16;", in(reg32) dst, in(reg64) src as u64);
}

/// `cp.async.ca`: copies the 4-byte word at global `src` to shared address `dst`
/// without passing through registers; completes by [`async_wait`].
#[inline(always)]
pub unsafe fn async_copy4(dst: u32, src: *const u32) {
    asm!("cp.async.ca.shared.global [{0}], [{1}], 4;", in(reg32) dst, in(reg64) src as u64);
}

/// `st.global.v4.u32`: stores `v` at global `dst` (16-byte aligned) in one access.
#[inline(always)]
pub unsafe fn store16(dst: *mut u8, v: [u32; 4]) {
    asm!(
        "st.global.v4.u32 [{0}], {{{1}, {2}, {3}, {4}}};",
        in(reg64) dst as u64,
        in(reg32) v[0],
        in(reg32) v[1],
        in(reg32) v[2],
        in(reg32) v[3],
    );
}

/// Closes the group of this thread's [`async_copy16`]s and [`async_copy4`]s issued
/// since the last commit.
#[inline(always)]
pub unsafe fn async_commit() {
    asm!("cp.async.commit_group;");
}

/// Waits until at most `N` of this thread's committed copy groups are still in flight.
#[inline(always)]
pub unsafe fn async_wait<const N: u32>() {
    asm!("cp.async.wait_group {n};", n = const N);
}

/// `ldmatrix.x4`: four 8 × 16-byte matrices from shared memory, rows addressed by lanes
/// `8i…8i+7` for matrix `i`; lane `4g + t` receives bytes `4t…4t+3` of row `g` of each.
#[inline(always)]
pub unsafe fn ldmatrix_x4(addr: u32) -> [u32; 4] {
    let r: [u32; 4];
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    asm!(
        "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{0}, {1}, {2}, {3}}}, [{4}];",
        out(reg32) r0,
        out(reg32) r1,
        out(reg32) r2,
        out(reg32) r3,
        in(reg32) addr,
    );
    r = [r0, r1, r2, r3];
    r
}
