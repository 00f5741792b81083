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
/// Threads per block of the interpolation kernel (one block per channel).
pub const INTERPOLATE_THREADS: u32 = 256;

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

/// Words of interpolation scratch per channel for `n` coefficients from `points`
/// candidate points: the abscissae, two buffers of differences, the inverses of the
/// points, and one count.
pub const fn interpolation_words(n: usize, points: usize) -> usize {
    3 * n + points + 1
}
