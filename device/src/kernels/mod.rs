//! The kernels, by family. Raw pointers and no panicking paths: a panic would leave an
//! `.extern .func` in the PTX, which fails at load (CI checks for it).

use core::arch::asm;
use core::arch::nvptx::*;

mod block_inverse;
mod charpoly;
mod dixon;
mod dixon_block;
mod float;
mod gauss_jordan;
mod hessenberg;
mod imma;
mod lift;
mod lift_ring;
mod limbs;
mod linalg;
mod lu;
mod minpoly;
mod ozaki;
mod probes;
mod redc;
mod resultant;
mod resultant_rounds;
mod rref;
mod tagged;
mod tensor;
mod vectors;
mod wgmma;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { trap() }
}

/// Calls `f(k)` for every index `k = c·len + i` of the channel `c = blockIdx.y`,
/// the numbers spread over the x dimension of the grid with a grid-stride loop.
#[inline(always)]
unsafe fn channel_loop(len: u32, mut f: impl FnMut(usize, usize)) {
    let c = _block_idx_y() as usize;
    let mut i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    let stride = _grid_dim_x() * _block_dim_x();
    while i < len {
        f(c, c * len as usize + i as usize);
        i += stride;
    }
}

/// Calls `f(i)` for every `i < len`, spread over the x dimension of the grid with a
/// grid-stride loop.
#[inline(always)]
unsafe fn number_loop(len: usize, mut f: impl FnMut(usize)) {
    let mut i = (_block_idx_x() as usize) * (_block_dim_x() as usize) + _thread_idx_x() as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while i < len {
        f(i);
        i += stride;
    }
}

/// `vote.sync.ballot`: bit `l` set when lane `l` passes a non-zero value.
#[inline(always)]
unsafe fn ballot(x: u32) -> u32 {
    let r: u32;
    asm!(
        "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
        x = in(reg32) x,
        r = out(reg32) r,
    );
    r
}

/// `bar.warp.sync`: the whole warp meets, and its lanes' memory writes before are seen
/// by its lanes' reads after.
#[inline(always)]
unsafe fn sync_warp() {
    asm!("bar.warp.sync 0xffffffff;");
}

/// `x` of lane `lane + delta` (`shfl.sync.down`, the whole warp).
#[inline(always)]
unsafe fn shuffle_down(x: u32, delta: u32) -> u32 {
    let r: u32;
    asm!(
        "shfl.sync.down.b32 {r}, {x}, {d}, 0x1f, 0xffffffff;",
        r = out(reg32) r,
        x = in(reg32) x,
        d = in(reg32) delta,
    );
    r
}

/// `x` of lane `lane − 1` (`shfl.sync.up`; a lane's own in lane 0; the whole warp).
#[inline(always)]
unsafe fn from_below(x: u32) -> u32 {
    let r: u32;
    asm!(
        "shfl.sync.up.b32 {r}, {x}, 1, 0, 0xffffffff;",
        r = out(reg32) r,
        x = in(reg32) x,
    );
    r
}

/// `x` of lane `src` (`shfl.sync.idx`, the whole warp).
#[inline(always)]
unsafe fn from_lane(x: u32, src: u32) -> u32 {
    let r: u32;
    asm!(
        "shfl.sync.idx.b32 {r}, {x}, {src}, 0x1f, 0xffffffff;",
        r = out(reg32) r,
        x = in(reg32) x,
        src = in(reg32) src,
    );
    r
}
