//! The batched modular matrix product on INT8 tensor cores: `mma.sync` with `u8`
//! operands and `s32` accumulators, issued by inline PTX, over the byte planes of
//! [`rns_core::imma`].

use core::arch::nvptx::*;
use rns_core::imma::{byte_planes, combine_groups, GROUPS, PLANES, SEGMENT};

const _: () = assert!(GROUPS == 7 && PLANES == 4);
use super::tensor::mma_u8 as mma;
use rns_core::launch::{IMMA_BK, IMMA_BM, IMMA_BN, IMMA_ROW};
use rns_core::Modulus;

/// Four words, 16-byte aligned: one vector load or store.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Words4([u32; 4]);

/// The byte planes of one operand, padded, for `rns_matmul_imma`: for every `x < xs_pad`
/// (a row of A, or a column of B) and inner entry `j < ks_pad`, byte `j` of row `x` of
/// plane `i` is byte `i` of `src[x·stride_x + j·stride_k]` (0 beyond `xs × ks`), planes
/// one after another, `xs_pad · ks_pad` bytes each; channel `blockIdx.z` at `src +
/// z·xs·ks`, `dst + z·xs_pad·ks_pad` (words). A thread per (x, four inner entries).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_imma_planes(
    dst: *mut u32,
    src: *const u32,
    xs: u32,
    ks: u32,
    stride_x: u32,
    stride_k: u32,
    xs_pad: u32,
    ks_pad: u32,
) {
    let z = _block_idx_z() as usize;
    let (xs, ks, sx, sk) = (
        xs as usize,
        ks as usize,
        stride_x as usize,
        stride_k as usize,
    );
    let (xp, kp) = (xs_pad as usize, ks_pad as usize / 4);
    let q = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    if kp == 0 || q >= xp * kp {
        return;
    }
    let (x, kq) = (q / kp, q % kp);
    let src = src.add(z * xs * ks);
    let mut v = [0u32; 4];
    for (j, w) in v.iter_mut().enumerate() {
        let kk = 4 * kq + j;
        if x < xs && kk < ks {
            *w = *src.add(x * sx + kk * sk);
        }
    }
    let dst = dst.add(z * xp * kp * PLANES);
    for (i, w) in byte_planes(v).into_iter().enumerate() {
        *dst.add((i * xp + x) * kp + kq) = w;
    }
}

/// `res[e] += Σ_s acc[s][e]·2^(8s) mod m` for the four entries of one `m16n8` tile, and
/// the group accumulators cleared (written out entry by entry: constant indices keep
/// them in registers).
#[inline(always)]
fn fold(acc: &mut [[u32; 4]; GROUPS], res: &mut [u32; 4], m: Modulus) {
    macro_rules! entry {
        ($e:literal) => {
            res[$e] = m.add(
                res[$e],
                combine_groups(
                    &[
                        acc[0][$e], acc[1][$e], acc[2][$e], acc[3][$e], acc[4][$e], acc[5][$e],
                        acc[6][$e],
                    ],
                    m,
                ),
            );
        };
    }
    entry!(0);
    entry!(1);
    entry!(2);
    entry!(3);
    *acc = [[0; 4]; GROUPS];
}

/// Batched matrix product modulo each channel (`blockIdx.z`) on the tensor cores, the
/// same product as `rns_matmul` (`out = a · b`, `n × p` row-major per channel at
/// `c·n·p`), from the byte planes of `rns_imma_planes`: `ap` holds A's (`n_pad` rows),
/// `bp` B's transposed (`p_pad` columns), `k_pad` inner entries each (multiples of the
/// tiles). A block of 8 warps computes a 64 × 32 tile, each warp 16 × 16 (two `m16n8`
/// tiles); every 32-wide k-tile of the four planes is staged in shared memory (the next
/// one loaded into registers meanwhile), and each warp issues the 16 plane pairs' `mma`s
/// into seven group accumulators per tile, folded modulo the prime every `SEGMENT` inner
/// entries and at the end. Dynamic shared memory: `IMMA_SMEM_BYTES`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_matmul_imma(
    out: *mut u32,
    ap: *const u32,
    bp: *const u32,
    moduli: *const Modulus,
    n: u32,
    p: u32,
    k_pad: u32,
    n_pad: u32,
    p_pad: u32,
) {
    let sa = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let sb = sa.add(PLANES * IMMA_BM * IMMA_ROW);
    let c = _block_idx_z() as usize;
    let m = *moduli.add(c);
    let (n, p, kw) = (n as usize, p as usize, k_pad as usize / 4);
    let (n_pad, p_pad) = (n_pad as usize, p_pad as usize);
    let (ap, bp) = (
        ap.add(c * n_pad * kw * PLANES),
        bp.add(c * p_pad * kw * PLANES),
    );
    let out = out.add(c * n * p);
    let (row0, col0) = (
        _block_idx_y() as usize * IMMA_BM,
        _block_idx_x() as usize * IMMA_BN,
    );
    let tid = _thread_idx_x() as usize;
    let (warp, lane) = (tid / 32, tid % 32);
    let (wr, wc) = ((warp % 4) * 16, (warp / 4) * 16);
    let (g, t) = (lane / 4, lane % 4);
    // This thread's share of a k-tile: two 16-byte pieces of A's planes (plane, row,
    // half) and one of B's, at fixed offsets from the tile's first inner word.
    let piece = |q: usize, rows: usize, x0: usize, xs_pad: usize| {
        let (plane, x, half) = (q / (2 * rows), (q / 2) % rows, q % 2);
        let global = (plane * xs_pad + x0 + x) * kw + 4 * half;
        let shared = (plane * rows + x) * IMMA_ROW + 4 * half;
        (global, shared)
    };
    let pa = [
        piece(tid, IMMA_BM, row0, n_pad),
        piece(tid + 256, IMMA_BM, row0, n_pad),
    ];
    let pb = piece(tid, IMMA_BN, col0, p_pad);
    let load = |kw0: usize| {
        [
            *(ap.add(pa[0].0 + kw0) as *const Words4),
            *(ap.add(pa[1].0 + kw0) as *const Words4),
            *(bp.add(pb.0 + kw0) as *const Words4),
        ]
    };
    let mut acc = [[[0u32; 4]; GROUPS]; 2];
    let mut res = [[0u32; 4]; 2];
    let mut seg = 0usize;
    let tiles = kw / (IMMA_BK / 4);
    let mut next = if tiles > 0 {
        load(0)
    } else {
        [Words4([0; 4]); 3]
    };
    for tile in 0..tiles {
        *(sa.add(pa[0].1) as *mut Words4) = next[0];
        *(sa.add(pa[1].1) as *mut Words4) = next[1];
        *(sb.add(pb.1) as *mut Words4) = next[2];
        _syncthreads();
        if tile + 1 < tiles {
            next = load((tile + 1) * (IMMA_BK / 4));
        }
        // Fragments of the four planes (constant indices throughout, so that the
        // accumulators and fragments stay in registers).
        let x = sa.add((wr + g) * IMMA_ROW + t);
        let y = sb.add((wc + g) * IMMA_ROW + t);
        let (plane_a, plane_b) = (IMMA_BM * IMMA_ROW, IMMA_BN * IMMA_ROW);
        let (r8, c8) = (8 * IMMA_ROW, 8 * IMMA_ROW);
        let fa = [0, 1, 2, 3].map(|i| {
            let x = x.add(i * plane_a);
            [*x, *x.add(r8), *x.add(4), *x.add(r8 + 4)]
        });
        let fb = [0, 1, 2, 3].map(|j| {
            let y = y.add(j * plane_b);
            [[*y, *y.add(4)], [*y.add(c8), *y.add(c8 + 4)]]
        });
        // Plane pair (i, j) into group i + j, both n-tiles.
        macro_rules! pairs {
            ($(($i:literal, $j:literal)),*) => {$(
                mma(&mut acc[0][$i + $j], &fa[$i], &fb[$j][0]);
                mma(&mut acc[1][$i + $j], &fa[$i], &fb[$j][1]);
            )*};
        }
        pairs!(
            (0, 0),
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 0),
            (1, 1),
            (1, 2),
            (1, 3),
            (2, 0),
            (2, 1),
            (2, 2),
            (2, 3),
            (3, 0),
            (3, 1),
            (3, 2),
            (3, 3)
        );
        _syncthreads();
        seg += IMMA_BK;
        if seg >= SEGMENT || tile + 1 == tiles {
            fold(&mut acc[0], &mut res[0], m);
            fold(&mut acc[1], &mut res[1], m);
            seg = 0;
        }
    }
    for (nt, r) in res.iter().enumerate() {
        for (e, &v) in r.iter().enumerate() {
            let (row, col) = (
                row0 + wr + g + 8 * (e / 2),
                col0 + wc + nt * 8 + 2 * t + e % 2,
            );
            if row < n && col < p {
                *out.add(row * p + col) = v;
            }
        }
    }
}
