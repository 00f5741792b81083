//! `A⁻¹ mod p` of a few large matrices (one per prime) by recursive Schur complements,
//! for the inverses that Dixon's lifting starts from and for
//! [`inverse_mod`](crate::Backend::inverse_mod) of a few large matrices. With `A = [A11 A12; A21 A22]`, `X11 = A11⁻¹` and
//! `S = A22 − A21·X11·A12`:
//!
//! `A⁻¹ = [X11 + X11·A12·S⁻¹·A21·X11, −X11·A12·S⁻¹; −S⁻¹·A21·X11, S⁻¹]`,
//!
//! two inverses of half the order and six products of half the order on the tensor
//! cores (small moduli), about `n³` multiply-adds in all, most of them in products as
//! large as the matrix allows. Gauss–Jordan by panels does `1.5·n³` in products of
//! inner dimension one panel. Blocks of at most [`LEAF`] rows are inverted in shared
//! memory (`rns_block_inverse`). Every launch takes all the primes at once (a batch of
//! products, a thread block per prime's leaf), so that they share the small levels'
//! launches. No pivoting: where a leaf is singular (a leading block of `A` or of a Schur
//! complement is), [`invert`] says so for that prime and the caller factors it with row
//! swaps.

use crate::backend::gpu::launch::{self, BlockOut, Matmul, SmallPlanes, View};
use crate::backend::gpu::Gpu;
use crate::error::{Error, Result};
use cudarc::driver::{CudaSlice, CudaStream};
use rns_core::ozaki::moduli_for;
use std::sync::Arc;

/// Largest order inverted in shared memory by one thread block; larger ones split.
pub const LEAF: usize = 192;

/// Whether [`invert`] takes `channels` matrices `n × n`: above one leaf, as the config
/// says ([`GpuConfig::inverse_recursion_for`](crate::backend::gpu::GpuConfig::inverse_recursion_for):
/// by default from `channels·n` = 3000), when a leaf fits shared memory and the scratch
/// ([`invert_scratch_words`] a channel) and `extra` more words fit the memory budget.
pub fn invert_applies(gpu: &Gpu, (n, channels): (usize, usize), extra: usize) -> Result<bool> {
    let recursion = gpu.config().inverse_recursion_for(n, channels);
    if n <= LEAF || !recursion || !launch::block_inverse_fits(gpu, LEAF) {
        return Ok(false);
    }
    let words = channels
        .saturating_mul(invert_scratch_words(n))
        .saturating_add(extra);
    Ok(words.saturating_mul(4) <= gpu.budget()?)
}

/// Device words [`invert`] allocates a channel for an `n × n` matrix: the products' operands
/// `T1 = A21·X11` and `T2 = X11·A12` of every level down one path (at most `2n²/3`),
/// and the planes of the largest product.
pub fn invert_scratch_words(n: usize) -> usize {
    let h = split(n);
    let count = moduli_for(h).unwrap_or(1);
    2 * n * n / 3 + launch::small_moduli_scratch_words((h, h, h), count) + 1
}

/// The order of the leading block when an order `size > LEAF` splits: half, rounded up
/// to a multiple of 64 (whole tiles of the products) while that leaves a second block.
fn split(size: usize) -> usize {
    (size / 2)
        .div_ceil(64)
        .saturating_mul(64)
        .clamp(1, size.max(2) - 1)
}

/// `A⁻¹ mod m` for each of `channels` moduli (`dm`: their device words) of its `n × n`
/// row-major matrix in `a` (channel `c`'s at `c·n²`; overwritten) into `x` from word
/// `at` (channel `c`'s at `at + c·n²`, `n` words a row; zeroed here first), on
/// `stream`. Per channel, `false` where a leaf was singular: there `a` and `x` are left
/// part-way and the caller factors with row swaps (`A` itself may be singular).
pub fn invert(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    a: &mut CudaSlice<u32>,
    (x, at): (&mut CudaSlice<u32>, usize),
    dm: &CudaSlice<u32>,
    (n, channels): (usize, usize),
) -> Result<Vec<bool>> {
    let words = channels * n * n;
    if channels == 0 || a.len() < words || x.len() < at + words {
        return Err(Error::Internal(format!(
            "{channels} inverses of order {n} from {} words into {} from word {at}",
            a.len(),
            x.len()
        )));
    }
    gpu.zero_range(stream, x, at..at + words)?;
    let mut dets = gpu.alloc_on(stream, channels)?;
    let c = Ctx {
        gpu,
        stream,
        dm,
        n,
        channels,
        at,
    };
    c.invert_block(a, x, &mut dets, 0, n)?;
    let dets = gpu.download_on(stream, &dets, channels)?;
    Ok(dets.iter().map(|&d| d != 0).collect())
}

/// A block of each channel's row-major matrix in a buffer: its first word, its row
/// stride, and the words from one channel's matrix to the next.
#[derive(Clone, Copy)]
struct Block {
    at: usize,
    ld: usize,
    channel: usize,
}

/// What every level shares: the device, the stream, the moduli, the order, the
/// channels, and where `X` starts in its buffer.
struct Ctx<'a> {
    gpu: &'a Gpu,
    stream: &'a Arc<CudaStream>,
    dm: &'a CudaSlice<u32>,
    n: usize,
    channels: usize,
    at: usize,
}

impl Ctx<'_> {
    /// `A`'s block from row `i`, column `j`.
    fn a(&self, i: usize, j: usize) -> Block {
        Block {
            at: i * self.n + j,
            ld: self.n,
            channel: self.n * self.n,
        }
    }

    /// `X`'s block from row `i`, column `j`.
    fn x(&self, i: usize, j: usize) -> Block {
        Block {
            at: self.at + i * self.n + j,
            ..self.a(i, j)
        }
    }

    /// The inverse of `A`'s diagonal block at `(r, r)` of order `size` into `X`'s, as
    /// the module says; the leaves multiply their determinants into `dets`.
    fn invert_block(
        &self,
        a: &mut CudaSlice<u32>,
        x: &mut CudaSlice<u32>,
        dets: &mut CudaSlice<u32>,
        r: usize,
        size: usize,
    ) -> Result<()> {
        if size <= LEAF {
            let out = BlockOut {
                at: self.x(r, r).at,
                stride: self.n * self.n,
                ld: self.n,
            };
            let shape = (self.n, self.n, self.channels);
            let (gpu, s) = (self.gpu, self.stream);
            return launch::launch_block_inverse(
                gpu,
                s,
                shape,
                (r, r, size),
                (dets, x, out),
                a,
                self.dm,
            );
        }
        let h1 = split(size);
        let (h2, q) = (size - h1, r + h1);
        self.invert_block(a, x, dets, r, h1)?;
        let (at, channel) = (0, h1 * h2);
        let (b1, b2) = (
            Block {
                at,
                ld: h1,
                channel,
            },
            Block {
                at,
                ld: h2,
                channel,
            },
        );
        // T1 = A21·X11, then S = A22 − T1·A12 in place of A22, T2 = X11·A12.
        let mut t1 = self.gpu.alloc_on(self.stream, self.channels * h2 * h1)?;
        let p = self.planes((h2, h1, h1), (a, self.a(q, r)), (x, self.x(r, r)))?;
        self.finish(p, (&mut t1, b1), false)?;
        let p = self.planes((h2, h1, h2), (&t1, b1), (a, self.a(r, q)))?;
        self.finish(p, (a, self.a(q, q)), true)?;
        let mut t2 = self.gpu.alloc_on(self.stream, self.channels * h1 * h2)?;
        let p = self.planes((h1, h1, h2), (x, self.x(r, r)), (a, self.a(r, q)))?;
        self.finish(p, (&mut t2, b2), false)?;
        // X22 = S⁻¹; X12 = −T2·X22, X21 = −X22·T1 (from zero); X11 −= X12·T1.
        self.invert_block(a, x, dets, q, h2)?;
        let p = self.planes((h1, h2, h2), (&t2, b2), (x, self.x(q, q)))?;
        self.finish(p, (x, self.x(r, q)), true)?;
        drop(t2);
        let p = self.planes((h2, h2, h1), (x, self.x(q, q)), (&t1, b1))?;
        self.finish(p, (x, self.x(q, r)), true)?;
        let p = self.planes((h1, h2, h1), (x, self.x(r, q)), (&t1, b1))?;
        self.finish(p, (x, self.x(r, r)), true)
    }

    /// The first step of `lhs · rhs` (`n × k` by `k × p`): both operands' planes.
    fn planes(
        &self,
        (n, k, p): (usize, usize, usize),
        (a, ab): (&CudaSlice<u32>, Block),
        (b, bb): (&CudaSlice<u32>, Block),
    ) -> Result<(SmallPlanes, Matmul, usize)> {
        let count = moduli_for(k).ok_or_else(|| {
            Error::Internal(format!("an inner dimension of {k} for the small moduli"))
        })?;
        let shape = Matmul {
            n,
            k,
            p,
            channels: self.channels,
        };
        let views = [
            (a, View::new(ab.channel, ab.at, ab.ld, 1)),
            (b, View::new(bb.channel, bb.at, 1, bb.ld)),
        ];
        let planes =
            launch::small_moduli_planes(self.gpu, self.stream, shape, views, self.dm, count)?;
        Ok((planes, shape, count))
    }

    /// The second step: the product written to `out` or (`subtract`) subtracted from it.
    fn finish(
        &self,
        (planes, shape, count): (SmallPlanes, Matmul, usize),
        (out, ob): (&mut CudaSlice<u32>, Block),
        subtract: bool,
    ) -> Result<()> {
        let view = View::new(ob.channel, ob.at, ob.ld, 1);
        let (gpu, s) = (self.gpu, self.stream);
        launch::small_moduli_product(gpu, s, shape, planes, (out, view, subtract), self.dm, count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_leave_two_blocks_in_whole_tiles_where_they_can() {
        assert_eq!(split(LEAF + 1), 128);
        assert_eq!(split(4000), 2048);
        assert_eq!(split(8000), 4032);
        assert_eq!(split(256), 128);
        for size in LEAF + 1..2000 {
            let h = split(size);
            assert!(h >= 1 && h < size, "{size}: {h}");
            assert!(h >= size / 2 && h < size / 2 + 64, "{size}: {h}");
        }
    }
}
