//! Hopper's warpgroup matrix products (`wgmma`, PTX ISA 8.0, `sm_90a` only) on signed
//! bytes, by inline assembly: the shared-memory matrix descriptors, the ordering
//! fences and groups, and `m64n128k32`. Kernels that use them are moved by
//! `host/build.rs` into a module of their own for `sm_90a`, loaded on 9.0 devices.

use core::arch::asm;

/// `asm!` with the 64 accumulators `$c` as in-out operands `{0}`–`{63}`, then the
/// `$extra` operands (`{64}` on).
macro_rules! asm_with_accumulators {
    ($c:ident, [$($template:expr),*], $($extra:tt)*) => {
        asm!(
            $($template,)*
            inout(reg32) $c[0],
            inout(reg32) $c[1],
            inout(reg32) $c[2],
            inout(reg32) $c[3],
            inout(reg32) $c[4],
            inout(reg32) $c[5],
            inout(reg32) $c[6],
            inout(reg32) $c[7],
            inout(reg32) $c[8],
            inout(reg32) $c[9],
            inout(reg32) $c[10],
            inout(reg32) $c[11],
            inout(reg32) $c[12],
            inout(reg32) $c[13],
            inout(reg32) $c[14],
            inout(reg32) $c[15],
            inout(reg32) $c[16],
            inout(reg32) $c[17],
            inout(reg32) $c[18],
            inout(reg32) $c[19],
            inout(reg32) $c[20],
            inout(reg32) $c[21],
            inout(reg32) $c[22],
            inout(reg32) $c[23],
            inout(reg32) $c[24],
            inout(reg32) $c[25],
            inout(reg32) $c[26],
            inout(reg32) $c[27],
            inout(reg32) $c[28],
            inout(reg32) $c[29],
            inout(reg32) $c[30],
            inout(reg32) $c[31],
            inout(reg32) $c[32],
            inout(reg32) $c[33],
            inout(reg32) $c[34],
            inout(reg32) $c[35],
            inout(reg32) $c[36],
            inout(reg32) $c[37],
            inout(reg32) $c[38],
            inout(reg32) $c[39],
            inout(reg32) $c[40],
            inout(reg32) $c[41],
            inout(reg32) $c[42],
            inout(reg32) $c[43],
            inout(reg32) $c[44],
            inout(reg32) $c[45],
            inout(reg32) $c[46],
            inout(reg32) $c[47],
            inout(reg32) $c[48],
            inout(reg32) $c[49],
            inout(reg32) $c[50],
            inout(reg32) $c[51],
            inout(reg32) $c[52],
            inout(reg32) $c[53],
            inout(reg32) $c[54],
            inout(reg32) $c[55],
            inout(reg32) $c[56],
            inout(reg32) $c[57],
            inout(reg32) $c[58],
            inout(reg32) $c[59],
            inout(reg32) $c[60],
            inout(reg32) $c[61],
            inout(reg32) $c[62],
            inout(reg32) $c[63],
            $($extra)*
        )
    };
}

/// The descriptor of a K-major operand tile in shared memory without swizzling: core
/// matrices of 8 rows × 16 bytes stored whole (128 bytes each) from shared address
/// `start`, `lead` bytes apart along K and `stride` bytes apart along the rows (PTX ISA,
/// "Matrix Descriptor Format": each field in 16-byte units).
#[inline(always)]
pub fn descriptor(start: u32, lead: u32, stride: u32) -> u64 {
    (((start & 0x3FFFF) >> 4) as u64)
        | ((((lead >> 4) & 0x3FFF) as u64) << 16)
        | ((((stride >> 4) & 0x3FFF) as u64) << 32)
}

/// `wgmma.fence`: orders this warpgroup's accesses to the accumulators (and the shared
/// memory it wrote) before the products issued after it.
#[inline(always)]
pub unsafe fn fence() {
    asm!("wgmma.fence.sync.aligned;");
}

/// `fence.proxy.async.shared::cta`: makes this thread's generic-proxy writes to shared
/// memory (`cp.async` included) visible to the tensor cores' reads (the async proxy).
#[inline(always)]
pub unsafe fn fence_proxy_shared() {
    asm!("fence.proxy.async.shared::cta;");
}

/// `wgmma.commit_group`: closes the group of products issued since the last commit.
#[inline(always)]
pub unsafe fn commit() {
    asm!("wgmma.commit_group.sync.aligned;");
}

/// `wgmma.wait_group N`: waits until at most `N` of this warpgroup's groups are pending.
#[inline(always)]
pub unsafe fn wait<const N: u32>() {
    asm!("wgmma.wait_group.sync.aligned {n};", n = const N);
}

/// `c += a · b` over a warpgroup: `a` a 64 × 32 byte tile and `b` a 32 × 128 byte tile,
/// both K-major in shared memory (descriptors [`descriptor`]), into the 64 × 128 `s32`
/// tile `c`, of which lane `4g + t` of warp `w` (of the warpgroup) holds rows `16w + g`
/// and `16w + g + 8` at columns `8i + 2t` and `8i + 2t + 1` in `c[4i…4i+3]` (row
/// `16w + g` first). Asynchronous: complete only after [`commit`] and [`wait`].
#[inline(always)]
pub unsafe fn mma_m64n128k32_s8(c: &mut [u32; 64], a: u64, b: u64) {
    asm_with_accumulators!(
        c,
        [
            "{{ .reg .pred p; setp.ne.u32 p, {66}, 0;",
            "wgmma.mma_async.sync.aligned.m64n128k32.s32.s8.s8 {{{0}, {1}, {2}, {3}, {4}, {5}, {6}, {7}, {8}, {9}, {10}, {11}, {12}, {13}, {14}, {15}, {16}, {17}, {18}, {19}, {20}, {21}, {22}, {23}, {24}, {25}, {26}, {27}, {28}, {29}, {30}, {31}, {32}, {33}, {34}, {35}, {36}, {37}, {38}, {39}, {40}, {41}, {42}, {43}, {44}, {45}, {46}, {47}, {48}, {49}, {50}, {51}, {52}, {53}, {54}, {55}, {56}, {57}, {58}, {59}, {60}, {61}, {62}, {63}}}, {64}, {65}, p; }}"
        ],
        in(reg64) a,
        in(reg64) b,
        in(reg32) 1u32,
    );
}

/// Ties the accumulators to this point, after [`wait`]: the compiler cannot move their
/// reads above it, while the tensor cores may still be writing them.
#[inline(always)]
pub unsafe fn fence_operands(c: &mut [u32; 64]) {
    asm_with_accumulators!(c, ["// {0} {1} {2} {3} {4} {5} {6} {7} {8} {9} {10} {11} {12} {13} {14} {15} {16} {17} {18} {19} {20} {21} {22} {23} {24} {25} {26} {27} {28} {29} {30} {31} {32} {33} {34} {35} {36} {37} {38} {39} {40} {41} {42} {43} {44} {45} {46} {47} {48} {49} {50} {51} {52} {53} {54} {55} {56} {57} {58} {59} {60} {61} {62} {63}"],);
}
