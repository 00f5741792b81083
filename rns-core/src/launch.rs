//! Launch geometry shared by the kernels (`device`) and the host that launches them:
//! block shapes, tile sizes and the shared-memory and scratch sizes they imply. One
//! definition, so that the two sides cannot drift apart.

/// Numbers per block (block x) of the equality and mixed-radix kernels.
pub const NUMBERS_PER_BLOCK: u32 = 32;
/// Channel lanes per block (block y) of the equality and mixed-radix kernels.
pub const CHANNEL_LANES: u32 = 8;
/// Threads per block of the one-thread-per-element kernels (elementwise, reduction,
/// digit comparison).
pub const ELEMENT_THREADS: u32 = 256;
/// Threads per block of the one-thread-per-channel resultant kernel and of the
/// one-thread-per-(channel, point) kernel of Collins' method.
pub const RESULTANT_THREADS: u32 = 128;
/// Below this larger degree the one-thread-per-channel resultant kernel runs (a pass of
/// the block kernel would leave most of its threads idle).
pub const RESULTANT_BLOCK_MIN_DEGREE: usize = 32;

/// Threads of the block-per-channel resultant kernel for degrees `df`, `dg`: about 32
/// coefficients per thread and pass, a multiple of 32 between 32 and 1024. Measured on
/// the H100 (64-bit coefficients, both of degree `d`), the best of three or four sizes
/// was `d/32` at every degree: 64 threads at 2000, 128 at 4000, 256 at 8000, 512 at
/// 16000 (in shared memory) and 1024 at 32000 (in global memory); half or twice that
/// cost 1.1–2.2×.
pub const fn resultant_block_threads(df: usize, dg: usize) -> u32 {
    threads_for(df, dg, 32)
}

/// Threads a block of the block-per-channel resultant kernel with its polynomials in
/// global memory: about 128 coefficients a thread (32 to 256), so that several blocks
/// share a multiprocessor and hide the latency of each other's steps, and at least four
/// warps beyond degree 2048 (with two, one sweeps while the other looks ahead). H200,
/// rounds with look-ahead: 128 threads best at degrees 4000 and 16 000 (225 ms against
/// 235 at 256 and 355 at 64), 128 and 256 within 1–3 % either way at 32 000; wide rounds
/// at 48 000 and 64 000 (1584 primes): 1201 and 2106 ms at 128 and 256 threads, 1371
/// and 2282 at 512, so no more than 256.
pub const fn resultant_block_threads_global(df: usize, dg: usize) -> u32 {
    let t = threads_for(df, dg, 128);
    if t < 128 && (df > 2048 || dg > 2048) {
        128
    } else if t > 256 {
        256
    } else {
        t
    }
}

/// The most threads a block of the wide-round resultant kernel
/// (`rns_resultant_block_global_wide`) launches with: its 80 registers a thread
/// (`host/build.rs`) leave 65 536 / 80 = 819, so 768 in whole warps.
pub const RESULTANT_WIDE_THREADS: u32 = 768;

/// Whole warps of about `per` coefficients of the larger degree a thread, 32 to 1024.
const fn threads_for(df: usize, dg: usize, per: usize) -> u32 {
    let d = if df > dg { df } else { dg };
    let t = d.div_ceil(per).div_ceil(32) * 32;
    if t < 32 {
        32
    } else if t > 1024 {
        1024
    } else {
        t as u32
    }
}

/// Blocks whose polynomials a multiprocessor's shared memory must hold for the
/// block-per-channel resultant kernel to keep them there; with fewer, the global-memory
/// variant runs more blocks a multiprocessor and measured faster (H200: degree 8000,
/// 162 against 176 ms; degree 16 000, 314 against 432 ms, 2048 primes each).
pub const RESULTANT_SHARED_BLOCKS: usize = 4;

/// Words of the polynomials of the block-per-channel resultant kernel (`f`'s `df + 1`
/// coefficients, then `g`'s `dg + 1`): its dynamic shared memory when they fit there.
pub const fn resultant_block_words(df: usize, dg: usize) -> usize {
    df + dg + 2
}

/// Words of a channel's step records in the block-per-channel resultant kernel: two
/// words (leading coefficient, denominator exponent) per Euclidean step
/// ([`crate::euclid::max_steps`]).
pub const fn resultant_block_records(df: usize, dg: usize) -> usize {
    2 * crate::euclid::max_steps(df, dg)
}

/// Normal Euclidean steps a round of the block-per-channel resultant kernel takes
/// together (one read and write of the polynomials, two barriers) below
/// [`RESULTANT_WIDE_FROM`].
pub const RESULTANT_ROUND_STEPS: usize = 8;

/// Steps of a wide round, from `deg g ≥` [`RESULTANT_WIDE_FROM`]: half the reads, writes
/// and barriers a step, for a longer window and look-ahead.
pub const RESULTANT_ROUND_STEPS_WIDE: usize = 16;

/// The larger degree from which the block-per-channel resultant kernel, with its
/// polynomials in global memory, takes rounds of [`RESULTANT_ROUND_STEPS_WIDE`] steps
/// (H200, 2048 primes, kernel time against rounds of 8: 13 % slower at degree 4000, even
/// at 8000, 5 %, 11 % and 16 % faster at 10 000, 16 000 and 24 000).
pub const RESULTANT_WIDE_FROM: usize = 8000;

/// Coefficients of each polynomial a lane holds in the window of a round of `k ≤ 30`
/// steps: each step makes one more low coefficient wrong, and the `k` steps read `k + 2`
/// from the top, so `k ≤ 16·W − 2`.
pub const fn resultant_round_window(k: usize) -> usize {
    (k + 2).div_ceil(16)
}

/// Coefficients of each polynomial a lane steps through a round of `k` steps to find the
/// next round's window (the look-ahead): the lowest `k` come out wrong, and the next
/// window reads the `32·W` from the top after the round, `k` lower than before it.
pub const fn resultant_round_ahead(k: usize) -> usize {
    (32 * resultant_round_window(k) + 2 * k).div_ceil(32)
}

/// The degree of `g` from which rounds of `k` steps run (the window reads the top `32·W`
/// coefficients of each polynomial).
pub const fn resultant_round_from(k: usize) -> usize {
    32 * resultant_round_window(k) + 16
}

/// The degree of `g` from which the block-per-channel resultant kernel steps in rounds.
pub const RESULTANT_ROUND_FROM: usize = resultant_round_from(RESULTANT_ROUND_STEPS);

/// Words of one of a channel's two round areas for rounds of `k` steps: the fraction-free
/// multipliers `(s, n₀, n₁)` of each step (then, in their place, the `(N₀, N₁)` of
/// [`crate::euclid_redc`]), whether every step of the window was normal, and the
/// `32·`[`resultant_round_ahead`] top coefficients of each polynomial that the look-ahead
/// steps, whose top the next round's window reads.
pub const fn resultant_round_area(k: usize) -> usize {
    3 * k + 1 + 64 * resultant_round_ahead(k)
}

/// Words of a channel's scratch for rounds: two areas of the wide rounds' size (this
/// round's and the next's, which the look-ahead fills).
pub const RESULTANT_ROUND_WORDS: usize = 2 * resultant_round_area(RESULTANT_ROUND_STEPS_WIDE);
const _: () = assert!(RESULTANT_ROUND_STEPS_WIDE <= 30);
const _: () = assert!(resultant_round_area(RESULTANT_ROUND_STEPS) <= RESULTANT_ROUND_WORDS / 2);

/// Words of global scratch per channel of the block-per-channel resultant kernel: the
/// step records, a round's multipliers ([`RESULTANT_ROUND_WORDS`]), then the polynomials
/// when they are not held in shared memory.
pub const fn resultant_block_scratch(df: usize, dg: usize, shared: bool) -> usize {
    resultant_block_records(df, dg)
        + RESULTANT_ROUND_WORDS
        + if shared {
            0
        } else {
            resultant_block_words(df, dg)
        }
}

/// Rows of the product per block of the tensor-core product kernel (4 warps of 16 rows).
pub const IMMA_BM: usize = 64;
/// Columns of the product per block of the tensor-core product kernel (2 warps of 16).
pub const IMMA_BN: usize = 32;
/// The k-tile of the tensor-core product kernel: one `m16n8k32` step.
pub const IMMA_BK: usize = 32;
/// Threads per block of the tensor-core product kernel: 8 warps.
pub const IMMA_THREADS: u32 = 256;
/// Words per row (32 bytes of one plane, padded to 12 words so that a fragment's loads
/// fall in distinct banks) of the tensor-core kernel's shared tiles.
pub const IMMA_ROW: usize = 12;
/// Dynamic shared memory of the tensor-core product kernel: four byte planes of the A
/// tile (`IMMA_BM` rows) and of the transposed B tile (`IMMA_BN` columns).
pub const IMMA_SMEM_BYTES: u32 = (crate::imma::PLANES * (IMMA_BM + IMMA_BN) * IMMA_ROW * 4) as u32;

// A block's threads stage a k-tile's planes in 16-byte pieces (half a row of 32 bytes):
// two pieces of A each, one of B.
const _: () = assert!(IMMA_BK == 32);
const _: () = assert!(crate::imma::PLANES * IMMA_BM * 2 == 2 * IMMA_THREADS as usize);
const _: () = assert!(crate::imma::PLANES * IMMA_BN * 2 == IMMA_THREADS as usize);

/// Threads per block of the interpolation kernel (one block per channel).
pub const INTERPOLATE_THREADS: u32 = 256;

/// Rows of `a` one thread of `rns_redc_extend` (the Montgomery products' extensions on
/// the integer units) sums for, each in 128 bits.
pub const REDC_EXTEND_ROWS: u32 = 8;
/// Threads a launch of `rns_redc_extend` aims at: below it the inner dimension is split
/// into chunks of at least [`REDC_EXTEND_MIN_CHUNK`] (H200: 4000²'s proof, the levels of
/// fewer than 128 pairs, 254 ms unsplit).
pub const REDC_EXTEND_THREADS: usize = 1 << 17;
/// The least inner positions a chunk of `rns_redc_extend` sums.
pub const REDC_EXTEND_MIN_CHUNK: usize = 256;

/// Rows and columns of the product per block of the matrix-product kernel (and of the
/// blocked determinant's trailing update).
pub const MM_TILE: u32 = 64;
/// The k-tile of the matrix product: inner-dimension entries staged per step.
pub const MM_TK: u32 = 16;
/// Padded row length of the A tile in shared memory (68 words: stores conflict at most 2-way).
pub const MM_A_STRIDE: u32 = 68;
/// Threads per side of the 16 × 16 blocks of the product and determinant kernels.
pub const MM_THREADS_SIDE: u32 = 16;
/// Dynamic shared memory of the matrix-product kernel: the A and B k-tiles.
pub const MATMUL_SMEM_BYTES: u32 = (MM_A_STRIDE + MM_TILE) * MM_TK * 4;
/// Dynamic shared memory of the blocked determinant kernel: the product's tiles and
/// four control words (pivot row, determinant, pivot inverse, padding).
pub const DET_SMEM_BYTES: u32 = MATMUL_SMEM_BYTES + 16;
/// Dynamic shared memory of the elimination kernel: four control words.
pub const ELIMINATE_SMEM_BYTES: u32 = 16;

// The A tile's padded rows hold a whole row, and the largest block fits in the shared
// memory that a block may use without opting in to more (48 KiB).
const _: () = assert!(MM_A_STRIDE >= MM_TILE && DET_SMEM_BYTES <= 48 * 1024);

/// Threads per block of the elimination kernel for `rows` rows: a warp per row at
/// most, between 2 and 32 warps.
pub const fn eliminate_threads(rows: usize) -> u32 {
    let t = rows.saturating_mul(32);
    if t < 64 {
        64
    } else if t > 1024 {
        1024
    } else {
        t as u32
    }
}

/// Threads per block of the minimal polynomial kernel (`rns_minpoly`): it holds about
/// 170 registers a thread, so 256 threads stay within a multiprocessor's 65 536.
pub const MINPOLY_THREADS: u32 = 256;

/// Rows and columns of a block's tile in the block lifting (`rns_block_digits`,
/// `rns_block_update`), and terms staged at a time; its blocks have
/// `BLOCK_LIFT_TILE / 2` threads a side, each thread 2 × 2 entries.
pub const BLOCK_LIFT_TILE: usize = 32;

/// Threads of a charpoly recurrence step's blocks, and the terms of a block's chunk of
/// the sums (`rns_charpoly_sums`, `rns_charpoly_next`).
pub const RECURRENCE_CHUNK: usize = 256;

/// Words of interpolation scratch per channel for `n` coefficients from `points`
/// candidate points: the abscissae, two buffers of differences, the inverses of the
/// points, and one count.
pub const fn interpolation_words(n: usize, points: usize) -> usize {
    3 * n + points + 1
}

/// Rows of the product per block of the small-moduli tensor-core kernel
/// (`rns_matmul_ozaki`): 2 warps of 64 rows.
pub const OZ_BM: usize = 128;
/// Columns of the product per block of `rns_matmul_ozaki`: 4 warps of 32 columns.
pub const OZ_BN: usize = 128;
/// Inner entries (bytes) per shared-memory stage of `rns_matmul_ozaki`: two `m16n8k32`
/// steps.
pub const OZ_BK: usize = 64;
/// Threads per block of `rns_matmul_ozaki`: 8 warps.
pub const OZ_THREADS: u32 = 256;
/// Bytes per shared row of `rns_matmul_ozaki` (64 padded to 80, so that the eight rows
/// of an `ldmatrix` phase fall in distinct banks).
pub const OZ_ROW: usize = 80;
/// Shared-memory stages of `rns_matmul_ozaki` (copies of the next k-tile in flight).
pub const OZ_STAGES: usize = 3;
/// Dynamic shared memory of `rns_matmul_ozaki`: every stage's A and B tiles.
pub const OZ_SMEM_BYTES: u32 = (OZ_STAGES * (OZ_BM + OZ_BN) * OZ_ROW) as u32;

/// Rows (of A, or columns of B) per block of the split kernel `rns_ozaki_planes`.
pub const OZ_SPLIT_X: usize = 64;
/// Inner entries per block of `rns_ozaki_planes`.
pub const OZ_SPLIT_K: usize = 64;
/// Words per shared row of `rns_ozaki_planes` (64 padded to 65: no bank conflicts
/// whether the tile is read along rows or columns).
pub const OZ_SPLIT_ROW: usize = OZ_SPLIT_K + 1;
/// Dynamic shared memory of `rns_ozaki_planes`: one tile of residues.
pub const OZ_SPLIT_SMEM_BYTES: u32 = (OZ_SPLIT_X * OZ_SPLIT_ROW * 4) as u32;

// The tiles of the split kernel divide the product kernel's.
const _: () = assert!(OZ_BM.is_multiple_of(OZ_SPLIT_X) && OZ_BN.is_multiple_of(OZ_SPLIT_X));
const _: () = assert!(OZ_BK.is_multiple_of(OZ_SPLIT_K) && OZ_STAGES >= 2);
// A block's threads copy a stage in 16-byte pieces, two of A and two of B each.
const _: () = assert!(OZ_BM * OZ_BK / 16 == 2 * OZ_THREADS as usize);
const _: () = assert!(OZ_BN * OZ_BK / 16 == 2 * OZ_THREADS as usize);

/// Shared-memory stages of the warpgroup kernel `rns_matmul_wgmma` (the same tiles as
/// `rns_matmul_ozaki`, unpadded: core matrices of 8 rows × 16 bytes stored whole): up to
/// `WG_STAGES − 2` k-tiles of copies in flight while one is multiplied and the
/// previous one may still be.
pub const WG_STAGES: usize = 6;
/// Bytes of one operand's tile in a stage of `rns_matmul_wgmma`.
pub const WG_TILE_BYTES: usize = OZ_BM * OZ_BK;
/// Bytes of a group of 8 rows of such a tile (its `OZ_BK / 16` core matrices): the
/// distance between row groups in `rns_matmul_wgmma`'s descriptors.
pub const WG_GROUP_BYTES: usize = 8 * OZ_BK;
/// Bytes of a core matrix (8 rows × 16 bytes): the distance between the core matrices
/// of a row group along K in `rns_matmul_wgmma`'s descriptors.
pub const WG_CORE_BYTES: usize = 128;

/// Where byte `e` of row `x` lies in a tiled plane of `ks_pad` bytes a row
/// (`rns_ozaki_planes` with `tiled`): tiles of `OZ_BM` rows × `OZ_BK` bytes
/// ([`WG_TILE_BYTES`]), by rows of tiles then along K, each stored as
/// `rns_matmul_wgmma` reads it from shared memory — core matrices of 8 rows × 16 bytes
/// whole, [`WG_CORE_BYTES`] apart along K, row groups [`WG_GROUP_BYTES`] apart — so that
/// a stage's copy is contiguous on both sides.
#[inline(always)]
pub fn wg_tiled_byte(x: usize, e: usize, ks_pad: usize) -> usize {
    let tile = (x / OZ_BM) * (ks_pad / OZ_BK) + e / OZ_BK;
    let (r, c) = (x % OZ_BM, e % OZ_BK);
    tile * WG_TILE_BYTES
        + (r / 8) * WG_GROUP_BYTES
        + (c / 16) * WG_CORE_BYTES
        + (r % 8) * 16
        + c % 16
}
/// Bytes per row of `rns_matmul_wgmma`'s output tile in shared memory (128 padded by
/// a word: the rows a warp writes at once fall in distinct banks).
pub const WG_OUT_ROW: usize = OZ_BN + 4;
/// Bytes of a product's small residues per channel and small modulus (the `y_len` of
/// `rns_matmul_ozaki` and `rns_matmul_wgmma`): `n` rows of the padded width, so that
/// each row starts 16-byte aligned.
pub const fn small_results_bytes(n: usize, p: usize) -> usize {
    n * p.next_multiple_of(OZ_BN)
}
/// Whether [`small_results_bytes`] of an `n × p` product fits the product and CRT
/// kernels' 32-bit indices: what a path by small moduli checks before it is taken.
pub fn small_results_fit(n: usize, p: usize) -> bool {
    p.checked_next_multiple_of(OZ_BN)
        .and_then(|w| n.checked_mul(w))
        .is_some_and(|bytes| bytes <= u32::MAX as usize)
}
/// Dynamic shared memory of `rns_matmul_wgmma`: every stage's A and B tiles.
pub const WG_SMEM_BYTES: u32 = (WG_STAGES * 2 * WG_TILE_BYTES) as u32;
const _: () = assert!(OZ_BM == OZ_BN && OZ_BK == 64 && OZ_THREADS == 256 && WG_STAGES >= 3);
// The output tile fits in the stages it reuses.
const _: () = assert!(OZ_BM * WG_OUT_ROW <= WG_STAGES * 2 * WG_TILE_BYTES);

/// Columns per panel of the determinant whose trailing updates run on the tensor cores
/// (`rns_lu_panel`, then a batched product by small moduli with this inner dimension),
/// below [`DET_WIDE_PANEL_FROM`]. H200, exact det 500² with 64-bit entries: panels of 32
/// 114.2 ms, 64 74.7, 128 59.6, 256 60.5 (the fused kernel 69.0).
pub const DET_PANEL: usize = 128;

/// The order from which determinant panels are twice [`DET_PANEL`] wide. H200, exact
/// det 1000² with 64-bit entries: panels of 128 495.1 ms, 256 455.2 ms.
pub const DET_WIDE_PANEL_FROM: usize = 768;

/// The default panel width of the tensor-core determinant of `n × n` matrices.
pub const fn det_panel_for(n: usize) -> usize {
    if n >= DET_WIDE_PANEL_FROM {
        2 * DET_PANEL
    } else {
        DET_PANEL
    }
}

/// Threads per block of the lifting kernel that reads its matrices from global memory
/// (`rns_dixon_lift_global`): 16 warps, each taking whole rows.
pub const LIFT_GLOBAL_THREADS: u32 = 512;
/// Limbs of the matrix's entries at most for that kernel (the residuals' 128 bits allow
/// entries of about `124 − log2 n` bits: four 29-bit limbs reach 116), each limb's sum
/// kept in a register.
pub const LIFT_GLOBAL_MAX_LIMBS: usize = 4;
/// Right-hand sides at most for that kernel (each takes one pass over the matrix a step).
pub const LIFT_GLOBAL_MAX_RHS: usize = 4;
/// Primes at most that one step of that kernel lifts by (`x` grows by their product a
/// step, one pass over `A`'s limbs for all of them; `rns_core::padic::mixed_radix`).
pub const LIFT_GLOBAL_MAX_PRIMES: usize = 4;
/// Stages of the ring through which each warp of that kernel copies its rows' words
/// into shared memory (`cp.async`, no registers held while they are in flight): the
/// copies of `LIFT_RING_STAGES − 1` chunks run ahead of the one being summed.
pub const LIFT_RING_STAGES: usize = 4;
/// Threads per block of that kernel with the rings (`rns_dixon_lift_ring…`): 12 warps,
/// so that each thread has up to 168 registers (the rings' loops and the 128-bit sums).
pub const LIFT_RING_THREADS: u32 = 384;
/// Columns a lane takes in one chunk of the ring (of every prime's or limb's row).
pub const LIFT_RING_COLUMNS: usize = 2;
/// Rows a chunk of the ring holds at most: a step's primes or the limbs.
pub const LIFT_RING_ROWS: usize = if LIFT_GLOBAL_MAX_LIMBS > LIFT_GLOBAL_MAX_PRIMES {
    LIFT_GLOBAL_MAX_LIMBS
} else {
    LIFT_GLOBAL_MAX_PRIMES
};
/// Shared-memory words of the ring a thread (`LIFT_RING_ROWS` rows of
/// `LIFT_RING_COLUMNS` columns a stage).
pub const LIFT_RING_WORDS: usize = LIFT_RING_STAGES * LIFT_RING_COLUMNS * LIFT_RING_ROWS;
/// Primes a step of that kernel by default: measured on an H200 with the rings (det of
/// 64-bit matrices, whole call), three primes 1.94 s at 4000² and 16.9 s at 8000²
/// against 2.05 s and 18.0 s by two and 1.97 s and 17.0 s by four (whose inverses cost
/// more than their steps save). `docs/performance.md` has the figures.
pub const LIFT_DEFAULT_PRIMES: usize = 3;

/// The double-precision product `rns_f64_gemm`: a block's tile of the result is
/// `F64_TILE × F64_TILE`, staged `F64_DEPTH` inner entries at a time.
pub const F64_TILE: usize = 64;
/// Inner entries of both operands staged in shared memory at a time.
pub const F64_DEPTH: usize = 16;
/// Threads of a block of `rns_f64_gemm` (each computes 4 × 4 entries).
pub const F64_GEMM_THREADS: u32 = 256;
/// Dynamic shared memory of `rns_f64_gemm`: both staged operands, rows padded by one.
pub const F64_GEMM_SMEM_BYTES: usize = 2 * F64_DEPTH * (F64_TILE + 1) * 8;
/// `rns_f64_gemm` mode bit: `A` stored transposed.
pub const F64_TRANS_A: u32 = 1;
/// `rns_f64_gemm` mode bit: the product added to `C`.
pub const F64_ACCUMULATE: u32 = 2;
/// `rns_f64_gemm` mode bit: the product negated.
pub const F64_NEGATE: u32 = 4;
/// `rns_f64_gemm` mode bit: only the tiles that meet the upper triangle.
pub const F64_UPPER_ONLY: u32 = 8;
/// `rns_f64_gemm` mode bit: `B` upper triangular (its zero rows not read).
pub const F64_B_UPPER: u32 = 16;
/// Width of the diagonal blocks `rns_f64_cholesky_block` factors (at most).
pub const F64_CHOLESKY_BLOCK: usize = 64;
/// Dynamic shared memory of `rns_f64_cholesky_block` for a `w × w` block.
pub const fn f64_cholesky_smem_bytes(w: usize) -> usize {
    8 * w * (w + 1)
}
/// Rows of a piece of `rns_f64_column_squares` (one partial sum a column each).
pub const F64_SQUARES_ROWS: usize = 256;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_results_fit_32_bit_indices_with_their_rows_padded() {
        // Both sides of 2^32 bytes at a padded width of 256.
        let n = 1usize << 24;
        assert!(small_results_fit(n - 1, 2 * OZ_BN));
        assert!(!small_results_fit(n, 2 * OZ_BN));
        // n·p fits in 32 bits, but its rows padded to the tile width do not.
        assert!(n * (OZ_BN + 1) <= u32::MAX as usize);
        assert!(!small_results_fit(n, OZ_BN + 1));
        assert!(small_results_fit(n - 1, OZ_BN + 1));
        // Overflow is no fit, and nothing fits.
        assert!(!small_results_fit(usize::MAX, 1));
        assert!(!small_results_fit(1, usize::MAX));
        assert!(small_results_fit(0, 0));
    }

    #[test]
    fn tiled_planes_hold_whole_core_matrices_where_the_descriptors_say() {
        // Two tiles of rows by three along K: every byte somewhere, once.
        let (rows, ks_pad) = (2 * OZ_BM, 3 * OZ_BK);
        let mut seen = [false; 2 * OZ_BM * 3 * OZ_BK];
        for x in 0..rows {
            for e in 0..ks_pad {
                let at = wg_tiled_byte(x, e, ks_pad);
                assert!(!seen[at], "byte ({x}, {e}) lands on another");
                seen[at] = true;
            }
        }
        // A core matrix (8 rows × 16 bytes) is 128 bytes in row order; the next along K
        // is WG_CORE_BYTES on, the next row group WG_GROUP_BYTES on, within a tile.
        for (x, e) in [(0, 0), (8, 16), (120, 48), (136, 80)] {
            let base = wg_tiled_byte(x, e, ks_pad);
            for (dr, dc) in [(0, 1), (1, 0), (7, 15)] {
                assert_eq!(wg_tiled_byte(x + dr, e + dc, ks_pad), base + 16 * dr + dc);
            }
            if e % OZ_BK < OZ_BK - 16 {
                assert_eq!(wg_tiled_byte(x, e + 16, ks_pad), base + WG_CORE_BYTES);
            }
            if x % OZ_BM < OZ_BM - 8 {
                assert_eq!(wg_tiled_byte(x + 8, e, ks_pad), base + WG_GROUP_BYTES);
            }
        }
        // A stage's tile is one contiguous run: tile (1, 2) starts where (1, 1) ends.
        assert_eq!(wg_tiled_byte(OZ_BM, 2 * OZ_BK, ks_pad), 5 * WG_TILE_BYTES);
    }

    #[test]
    fn shared_memory_holds_the_tiles_and_fits_a_block() {
        // The A k-tile (MM_TK rows of MM_A_STRIDE ≥ MM_TILE words) and the B k-tile.
        assert_eq!(MATMUL_SMEM_BYTES, 4 * MM_TK * (MM_A_STRIDE + MM_TILE));
        assert_eq!(DET_SMEM_BYTES, MATMUL_SMEM_BYTES + 4 * 4);
        assert_eq!(ELIMINATE_SMEM_BYTES, 4 * 4);
        // 16 × 16 threads cover a 64 × 64 tile, four by four.
        assert_eq!(MM_TILE % MM_THREADS_SIDE, 0);
    }

    #[test]
    fn elimination_blocks_are_whole_warps_between_2_and_32() {
        assert_eq!(eliminate_threads(0), 64);
        assert_eq!(eliminate_threads(1), 64);
        assert_eq!(eliminate_threads(2), 64);
        assert_eq!(eliminate_threads(3), 96);
        assert_eq!(eliminate_threads(31), 992);
        assert_eq!(eliminate_threads(32), 1024);
        assert_eq!(eliminate_threads(33), 1024);
        assert_eq!(eliminate_threads(usize::MAX), 1024);
        for rows in 0..100 {
            let t = eliminate_threads(rows);
            assert!(
                t.is_multiple_of(32) && (64..=1024).contains(&t),
                "{rows} rows: {t}"
            );
        }
    }

    #[test]
    fn resultant_blocks_are_whole_warps_of_about_32_coefficients_each() {
        assert_eq!(resultant_block_threads(0, 0), 32);
        assert_eq!(resultant_block_threads(32, 5), 32);
        assert_eq!(resultant_block_threads(5, 1024), 32);
        assert_eq!(resultant_block_threads(1025, 500), 64);
        assert_eq!(resultant_block_threads(2000, 1999), 64);
        assert_eq!(resultant_block_threads(4000, 1), 128);
        assert_eq!(resultant_block_threads(8000, 7999), 256);
        assert_eq!(resultant_block_threads(16000, 1), 512);
        assert_eq!(resultant_block_threads(32768, 1), 1024);
        assert_eq!(resultant_block_threads(usize::MAX, 1), 1024);
        assert_eq!(resultant_block_words(500, 499), 1001);
        assert_eq!(resultant_block_records(500, 499), 2 * 501);
        let round = RESULTANT_ROUND_WORDS;
        // 8 steps: a window of 32 coefficients, 64 stepped ahead, rounds from degree 48;
        // 16 steps: 64, 96, from 80.
        let shape = |k| {
            (
                resultant_round_window(k),
                resultant_round_ahead(k),
                resultant_round_from(k),
            )
        };
        assert_eq!(shape(RESULTANT_ROUND_STEPS), (1, 2, 48));
        assert_eq!(shape(RESULTANT_ROUND_STEPS_WIDE), (2, 3, 80));
        assert_eq!(round, 2 * (3 * 16 + 1 + 3 * 64));
        assert_eq!(resultant_block_scratch(3, 40, true), 2 * 5 + round);
        assert_eq!(resultant_block_scratch(3, 40, false), 2 * 5 + round + 45);
        // In global memory, about 128 coefficients a thread, four warps beyond 2048.
        assert_eq!(resultant_block_threads_global(0, 0), 32);
        assert_eq!(resultant_block_threads_global(2048, 1), 32);
        assert_eq!(resultant_block_threads_global(1, 2049), 128);
        assert_eq!(resultant_block_threads_global(8000, 7999), 128);
        assert_eq!(resultant_block_threads_global(16000, 1), 128);
        assert_eq!(resultant_block_threads_global(32000, 1), 256);
        assert_eq!(resultant_block_threads_global(32769, 1), 256);
        assert_eq!(resultant_block_threads_global(65536, 1), 256);
        assert_eq!(resultant_block_threads_global(usize::MAX, 1), 256);
    }

    #[test]
    fn interpolation_scratch_is_its_parts() {
        // abscissae (n) + two difference buffers (2n) + inverses (points) + a count.
        assert_eq!(interpolation_words(0, 0), 1);
        assert_eq!(interpolation_words(5, 9), 5 + 2 * 5 + 9 + 1);
        assert_eq!(interpolation_words(1000, 1100), 3000 + 1100 + 1);
    }
}
