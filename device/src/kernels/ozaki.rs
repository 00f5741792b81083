//! The batched modular matrix product on INT8 tensor cores by small moduli
//! ([`rns_core::ozaki`]): the operands as signed bytes per small modulus
//! (`rns_ozaki_planes`), one `s8` product per (channel, small modulus)
//! (`rns_matmul_ozaki`), and the Chinese remainder theorem per entry
//! (`rns_ozaki_combine`).

use super::tensor::{
    async_commit, async_copy16, async_wait, ldmatrix_x4, mma_s8, shared_address, store16,
};
use super::wgmma;
use core::arch::nvptx::*;
use rns_core::launch::{
    wg_tiled_byte, OZ_BK, OZ_BM, OZ_BN, OZ_ROW, OZ_SPLIT_K, OZ_SPLIT_ROW, OZ_SPLIT_X, OZ_STAGES,
    OZ_THREADS, WG_CORE_BYTES, WG_GROUP_BYTES, WG_OUT_ROW, WG_STAGES, WG_TILE_BYTES,
};
use rns_core::ozaki::{
    cofactor_mod, crt_inverse, small_residue, CrtSum, SmallModulus, MAX_SMALL, SMALL_MODULI,
};
use rns_core::Modulus;

/// The signed-byte planes of one operand for `rns_matmul_ozaki`: for channel `z =
/// blockIdx.z` (prime `p`), small modulus `j < count`, every `x < xs_pad` (a row of A,
/// or a column of B) and inner entry `e < ks_pad`, byte `e` of row `x` of plane
/// `z·count + j` is [`small_residue`] of `src[z·src_channel + src_offset + x·stride_x +
/// e·stride_k]` modulo `m_j`, times the CRT inverse when `scale ≠ 0` (0 beyond `xs ×
/// ks`); planes of `xs_pad · ks_pad` bytes one after another, their rows one after
/// another, or with `tiled ≠ 0` in the order `rns_matmul_wgmma` copies them
/// ([`wg_tiled_byte`]). A block per tile of `OZ_SPLIT_X` rows by `OZ_SPLIT_K` inner
/// entries (`blockIdx.x`, `blockIdx.y`), read along whichever dimension is contiguous
/// into shared memory, then split a thread per (row, four inner entries); `xs_pad`,
/// `ks_pad` are multiples of the tile.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_ozaki_planes(
    dst: *mut u32,
    src: *const u32,
    src_channel: u64,
    src_offset: u64,
    moduli: *const Modulus,
    xs: u32,
    ks: u32,
    stride_x: u32,
    stride_k: u32,
    xs_pad: u32,
    ks_pad: u32,
    count: u32,
    scale: u32,
    tiled: u32,
) {
    let tile = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let z = _block_idx_z() as usize;
    let (xs, ks, sx, sk) = (
        xs as usize,
        ks as usize,
        stride_x as usize,
        stride_k as usize,
    );
    let (xp, kp, count) = (xs_pad as usize, ks_pad as usize / 4, count as usize);
    if count > MAX_SMALL {
        return;
    }
    let (x0, k0) = (
        _block_idx_x() as usize * OZ_SPLIT_X,
        _block_idx_y() as usize * OZ_SPLIT_K,
    );
    let tid = _thread_idx_x() as usize;
    let p = (*moduli.add(z)).m;
    let src = src.add(z * src_channel as usize + src_offset as usize);
    // Coalesced reads: consecutive threads along k for A (stride_k = 1), along x for B.
    for i in (tid..OZ_SPLIT_X * OZ_SPLIT_K).step_by(OZ_THREADS as usize) {
        let (x, kk) = if sk == 1 {
            (i / OZ_SPLIT_K, i % OZ_SPLIT_K)
        } else {
            (i % OZ_SPLIT_X, i / OZ_SPLIT_X)
        };
        let (gx, gk) = (x0 + x, k0 + kk);
        let v = if gx < xs && gk < ks {
            *src.add(gx * sx + gk * sk)
        } else {
            0
        };
        *tile.add(x * OZ_SPLIT_ROW + kk) = v;
    }
    _syncthreads();
    let dst = dst.add(z * count * xp * kp);
    for q in (tid..OZ_SPLIT_X * OZ_SPLIT_K / 4).step_by(OZ_THREADS as usize) {
        let (x, kq) = (q / (OZ_SPLIT_K / 4), q % (OZ_SPLIT_K / 4));
        let t = tile.add(x * OZ_SPLIT_ROW + 4 * kq);
        let v = [*t, *t.add(1), *t.add(2), *t.add(3)];
        let at = if tiled != 0 {
            wg_tiled_byte(x0 + x, k0 + 4 * kq, kp * 4) / 4
        } else {
            (x0 + x) * kp + k0 / 4 + kq
        };
        // Each modulus a constant (its remainders are multiplications), written out.
        let plane = |j: usize, m: u32| {
            if j < count {
                let f = if scale != 0 { crt_inverse(count, j) } else { 1 };
                let mut w = 0u32;
                for (e, &ve) in v.iter().enumerate() {
                    w |= (small_residue(ve, p, m, f) as u32) << (8 * e);
                }
                *dst.add(j * xp * kp + at) = w;
            }
        };
        macro_rules! planes {
            ($($j:literal),*) => {$(plane($j, SMALL_MODULI[$j]);)*};
        }
        planes!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    }
}

/// One `s8` product per plane pair `z = blockIdx.z` of `rns_ozaki_planes` (channel
/// `z / count`, small modulus `j = z % count`): `y[z·y_len + r·p_pad + c] = (Σ_e a_re·b_ce)
/// mod m_j` for `r < n`, `c < p`, from A's planes `ap` (`n_pad` rows) and B's `bp`
/// (`p_pad` columns), `k_pad` bytes each (multiples of the tiles). A block of 8 warps
/// computes a 128 × 128 tile, each warp 64 × 32 (4 × 4 `m16n8` tiles); k-tiles of 64
/// bytes are copied to shared memory by `cp.async`, `OZ_STAGES − 1` of them in flight
/// while one is multiplied, and read by `ldmatrix`. Dynamic shared memory:
/// `OZ_SMEM_BYTES` (above the default 48 KiB: the host raises the kernel's limit).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_matmul_ozaki(
    y: *mut u8,
    ap: *const u8,
    bp: *const u8,
    n: u32,
    p: u32,
    k_pad: u32,
    n_pad: u32,
    p_pad: u32,
    y_len: u32,
    count: u32,
) {
    if count == 0 || count as usize > MAX_SMALL {
        return;
    }
    let smem = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u8>();
    let base = shared_address(smem);
    const STAGE: u32 = ((OZ_BM + OZ_BN) * OZ_ROW) as u32;
    const B_OFF: u32 = (OZ_BM * OZ_ROW) as u32;
    let z = _block_idx_z() as usize;
    let j = z % count as usize;
    let (n, p, kp) = (n as usize, p as usize, k_pad as usize);
    let (n_pad, p_pad) = (n_pad as usize, p_pad as usize);
    let (row0, col0) = (
        _block_idx_y() as usize * OZ_BM,
        _block_idx_x() as usize * OZ_BN,
    );
    let (ap, bp) = (
        ap.add((z * n_pad + row0) * kp),
        bp.add((z * p_pad + col0) * kp),
    );
    let y = y.add(z * y_len as usize);
    let tid = _thread_idx_x() as usize;
    // This thread's copies per stage: 16-byte pieces q = tid and tid + 256 of each
    // tile (row q / 4, piece q % 4).
    let piece = |q: usize| {
        (
            (q / 4) * kp + 16 * (q % 4),
            ((q / 4) * OZ_ROW + 16 * (q % 4)) as u32,
        )
    };
    let ((g0, s0), (g1, s1)) = (piece(tid), piece(tid + OZ_THREADS as usize));
    let issue = |tile: usize, stage: u32| {
        let (s, k0) = (base + stage * STAGE, tile * OZ_BK);
        async_copy16(s + s0, ap.add(g0 + k0));
        async_copy16(s + s1, ap.add(g1 + k0));
        async_copy16(s + B_OFF + s0, bp.add(g0 + k0));
        async_copy16(s + B_OFF + s1, bp.add(g1 + k0));
    };
    let (warp, lane) = (tid / 32, tid % 32);
    let (wr, wc) = ((warp % 2) * 64, (warp / 2) * 32);
    // ldmatrix row addresses: A's four matrices are (rows 0–7 | 8–15) × (bytes 0–15 |
    // 16–31) of a 16 × 32 tile, in the order of the mma's A fragment; B's are (bytes
    // 0–15 | 16–31) × (columns 0–7 | 8–15), the fragments of two n8 tiles.
    let a_lane = ((wr + lane % 8 + 8 * ((lane / 8) % 2)) * OZ_ROW + 16 * (lane / 16)) as u32;
    let b_lane =
        B_OFF + ((wc + lane % 8 + 8 * (lane / 16)) * OZ_ROW + 16 * ((lane / 8) % 2)) as u32;
    let mut acc = [[[0u32; 4]; 4]; 4];
    // OZ_STAGES − 1 k-tiles in flight ahead of the one multiplied: at the barrier of
    // tile t every thread is done with tile t − 1, whose stage then takes tile t + 2.
    let tiles = kp / OZ_BK;
    for t in 0..OZ_STAGES - 1 {
        if t < tiles {
            issue(t, t as u32);
        }
        async_commit();
    }
    let mut stage = 0u32;
    for tile in 0..tiles {
        async_wait::<{ OZ_STAGES as u32 - 2 }>();
        _syncthreads();
        let ahead = tile + OZ_STAGES - 1;
        if ahead < tiles {
            let st = if stage == 0 {
                OZ_STAGES as u32 - 1
            } else {
                stage - 1
            };
            issue(ahead, st);
        }
        async_commit();
        let s = base + stage * STAGE;
        // Both m16n8k32 steps of the k-tile, every index a constant (the accumulators
        // stay in registers).
        macro_rules! step {
            ($ks:literal) => {
                let a = |mi: u32| ldmatrix_x4(s + a_lane + mi * 16 * OZ_ROW as u32 + $ks);
                let b = |ni: u32| ldmatrix_x4(s + b_lane + ni * 16 * OZ_ROW as u32 + $ks);
                let (fa, fb) = ([a(0), a(1), a(2), a(3)], [b(0), b(1)]);
                macro_rules! row {
                    ($mi:literal) => {
                        mma_s8(&mut acc[$mi][0], &fa[$mi], &[fb[0][0], fb[0][1]]);
                        mma_s8(&mut acc[$mi][1], &fa[$mi], &[fb[0][2], fb[0][3]]);
                        mma_s8(&mut acc[$mi][2], &fa[$mi], &[fb[1][0], fb[1][1]]);
                        mma_s8(&mut acc[$mi][3], &fa[$mi], &[fb[1][2], fb[1][3]]);
                    };
                }
                row!(0);
                row!(1);
                row!(2);
                row!(3);
            };
        }
        step!(0);
        step!(32);
        stage = if stage + 1 == OZ_STAGES as u32 {
            0
        } else {
            stage + 1
        };
    }
    let (g, t) = (lane / 4, lane % 4);
    let small = SmallModulus::new(j);
    let put = |mi: usize, ni: usize, e: usize, v: u32| {
        let (r, col) = (
            row0 + wr + 16 * mi + g + 8 * (e / 2),
            col0 + wc + 8 * ni + 2 * t + e % 2,
        );
        if r < n && col < p {
            *y.add(r * p_pad + col) = small.reduce(v as i32) as u8;
        }
    };
    macro_rules! put_tile {
        ($mi:literal, $ni:literal) => {
            put($mi, $ni, 0, acc[$mi][$ni][0]);
            put($mi, $ni, 1, acc[$mi][$ni][1]);
            put($mi, $ni, 2, acc[$mi][$ni][2]);
            put($mi, $ni, 3, acc[$mi][$ni][3]);
        };
    }
    macro_rules! put_row {
        ($mi:literal) => {
            put_tile!($mi, 0);
            put_tile!($mi, 1);
            put_tile!($mi, 2);
            put_tile!($mi, 3);
        };
    }
    put_row!(0);
    put_row!(1);
    put_row!(2);
    put_row!(3);
}

/// `rns_matmul_ozaki` by Hopper's warpgroup products (`wgmma`, `sm_90a`: `host/build.rs`
/// moves it into a module of its own): the same planes, grid and output. Each of the
/// block's two warpgroups computes 64 rows × 128 columns of the tile by two
/// `m64n128k32` products a k-tile, both operands read by the tensor cores from shared
/// memory, where `cp.async` copies them as whole core matrices (8 rows × 16 bytes): a
/// row group's four core matrices (a k-tile) 128 bytes apart, row groups 512 apart, as
/// the planes already lie when `rns_ozaki_planes` writes them tiled.
/// `WG_STAGES − 2` k-tiles are copied ahead; a stage is refilled two tiles after it
/// was multiplied, once each warpgroup has waited for all but its latest products.
/// Dynamic shared memory: `WG_SMEM_BYTES`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_matmul_wgmma(
    y: *mut u8,
    ap: *const u8,
    bp: *const u8,
    n: u32,
    _p: u32,
    k_pad: u32,
    n_pad: u32,
    p_pad: u32,
    y_len: u32,
    count: u32,
) {
    if count == 0 || count as usize > MAX_SMALL {
        return;
    }
    let smem = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u8>();
    let base = shared_address(smem);
    const TILE: u32 = WG_TILE_BYTES as u32;
    const STAGE: u32 = 2 * TILE;
    // Core matrices along K, and row groups of 8.
    const LEAD: u32 = WG_CORE_BYTES as u32;
    const GROUP: u32 = WG_GROUP_BYTES as u32;
    let z = _block_idx_z() as usize;
    let j = z % count as usize;
    let (n, kp) = (n as usize, k_pad as usize);
    let (n_pad, p_pad) = (n_pad as usize, p_pad as usize);
    let (ty, tx) = (_block_idx_y() as usize, _block_idx_x() as usize);
    let (row0, col0) = (ty * OZ_BM, tx * OZ_BN);
    let tiles = kp / OZ_BK;
    // The planes are tiled (`wg_tiled_byte`): this block's row of tiles of each.
    let (ap, bp) = (
        ap.add(z * n_pad * kp + ty * tiles * WG_TILE_BYTES),
        bp.add(z * p_pad * kp + tx * tiles * WG_TILE_BYTES),
    );
    let y = y.add(z * y_len as usize);
    let tid = _thread_idx_x() as usize;
    // This thread's 16-byte pieces tid and tid + 256 of each operand's tile, at the
    // same place on both sides.
    let (s0, s1) = (16 * tid, 16 * (tid + OZ_THREADS as usize));
    let issue = |tile: usize, stage: u32| {
        let (s, at) = (base + stage * STAGE, tile * WG_TILE_BYTES);
        async_copy16(s + s0 as u32, ap.add(at + s0));
        async_copy16(s + s1 as u32, ap.add(at + s1));
        async_copy16(s + TILE + s0 as u32, bp.add(at + s0));
        async_copy16(s + TILE + s1 as u32, bp.add(at + s1));
    };
    let group = (tid / 128) as u32;
    let mut acc = [0u32; 64];
    const AHEAD: usize = WG_STAGES - 2;
    for t in 0..AHEAD {
        if t < tiles {
            issue(t, t as u32);
        }
        async_commit();
    }
    let mut stage = 0u32;
    for tile in 0..tiles {
        // This thread's copies of `tile` have landed; after the barrier everyone's
        // have, and every warpgroup is done with tile − 2, whose stage is refilled.
        async_wait::<{ AHEAD as u32 - 1 }>();
        wgmma::fence_proxy_shared();
        _syncthreads();
        if tile + AHEAD < tiles {
            let refill = (stage + AHEAD as u32) % WG_STAGES as u32;
            issue(tile + AHEAD, refill);
        }
        async_commit();
        let s = base + stage * STAGE;
        let (a, b) = (s + group * (GROUP * 8), s + TILE);
        wgmma::fence();
        wgmma::mma_m64n128k32_s8(
            &mut acc,
            wgmma::descriptor(a, LEAD, GROUP),
            wgmma::descriptor(b, LEAD, GROUP),
        );
        wgmma::mma_m64n128k32_s8(
            &mut acc,
            wgmma::descriptor(a + 2 * LEAD, LEAD, GROUP),
            wgmma::descriptor(b + 2 * LEAD, LEAD, GROUP),
        );
        wgmma::commit();
        wgmma::wait::<1>();
        stage = if stage + 1 == WG_STAGES as u32 {
            0
        } else {
            stage + 1
        };
    }
    wgmma::wait::<0>();
    wgmma::fence_operands(&mut acc);
    // The tile's residues through shared memory (the stages are free once every
    // warpgroup is done: the barrier), rows of WG_OUT_ROW bytes so that the eight rows a
    // warp writes at once fall in distinct banks; then out in 16-byte pieces of rows,
    // whole sectors, where each thread storing its own bytes wrote a sector 2 bytes at a
    // time.
    _syncthreads();
    let (warp, lane) = ((tid / 32) % 4, tid % 32);
    let (g, t) = (lane / 4, lane % 4);
    let r0 = 64 * group as usize + 16 * warp + g;
    let small = SmallModulus::new(j);
    let pair = |lo: u32, hi: u32| (small.reduce(lo as i32) | small.reduce(hi as i32) << 8) as u16;
    let tile = smem as *mut u16;
    let put = |i: usize, v: &[u32]| {
        let at = (r0 * WG_OUT_ROW + 8 * i + 2 * t) / 2;
        *tile.add(at) = pair(v[0], v[1]);
        *tile.add(at + 4 * WG_OUT_ROW) = pair(v[2], v[3]);
    };
    // Every accumulator index a constant, so that they stay in registers.
    macro_rules! put_quads {
        ($($i:literal),*) => {$(
            put($i, &[acc[4 * $i], acc[4 * $i + 1], acc[4 * $i + 2], acc[4 * $i + 3]]);
        )*};
    }
    put_quads!(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    _syncthreads();
    let words = smem as *const u32;
    for q in (tid..OZ_BM * OZ_BN / 16).step_by(OZ_THREADS as usize) {
        let (r, c) = (q / (OZ_BN / 16), q % (OZ_BN / 16));
        if row0 + r < n {
            let from = (r * WG_OUT_ROW + 16 * c) / 4;
            let v = [
                *words.add(from),
                *words.add(from + 1),
                *words.add(from + 2),
                *words.add(from + 3),
            ];
            store16(y.add((row0 + r) * p_pad + col0 + 16 * c), v);
        }
    }
}

/// The product modulo each channel's prime from the small residues of
/// `rns_matmul_ozaki`, for channel `z = blockIdx.z` and entry `(r, col)`, `r < rows`,
/// `col < cols` (`y[(z·count + j)·y_len + r·y_ld + col] = c·inv_j mod m_j`,
/// [`CrtSum`]; `y_ld` and `y_len` multiples of 4): `c mod p` is written to
/// `out[z·out_channel + out_offset + r·ld + col]`, or subtracted from it when
/// `subtract ≠ 0`. A thread per four entries (one
/// word of each plane); the cofactors `(M/m_j) mod p` are computed once per block into
/// shared memory (dynamic, `MAX_SMALL + 1` words).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_ozaki_combine(
    out: *mut u32,
    out_channel: u64,
    out_offset: u64,
    ld: u32,
    cols: u32,
    subtract: u32,
    y: *const u32,
    moduli: *const Modulus,
    rows: u32,
    y_len: u32,
    y_ld: u32,
    count: u32,
) {
    let w = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let z = _block_idx_z() as usize;
    let (rows, yw, count) = (rows as usize, y_len as usize / 4, count as usize);
    let (ld, cols, y_ld) = (ld as usize, cols as usize, y_ld as usize);
    if count > MAX_SMALL || cols == 0 || y_ld == 0 || y_ld < cols {
        return;
    }
    let p = *moduli.add(z);
    let tid = _thread_idx_x() as usize;
    if tid <= count {
        *w.add(tid) = cofactor_mod(p, count, tid);
    }
    _syncthreads();
    let q = _block_idx_x() as usize * _block_dim_x() as usize + tid;
    if q >= yw {
        return;
    }
    let y = y.add(z * count * yw + q);
    let mut sums = [CrtSum::default(); 4];
    for j in 0..count {
        let (word, wj) = (*y.add(j * yw), *w.add(j));
        for (b, sum) in sums.iter_mut().enumerate() {
            sum.add(j, (word >> (8 * b)) & 0xFF, wj);
        }
    }
    let out = out.add(z * out_channel as usize + out_offset as usize);
    let w_m = *w.add(count);
    for (b, sum) in sums.iter().enumerate() {
        let (r, col) = ((4 * q + b) / y_ld, (4 * q + b) % y_ld);
        if r < rows && col < cols {
            let at = out.add(r * ld + col);
            let v = sum.finish(w_m, p);
            *at = if subtract != 0 { p.sub(*at, v) } else { v };
        }
    }
}
