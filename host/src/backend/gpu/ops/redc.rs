//! The product of many numbers modulo a large odd `r` on the device, by a tree of
//! Montgomery products in residues (the bases, the steps and the host's reference in
//! [`crate::num::redc`]). A level's pairs go through three elementwise steps and two base
//! extensions; each extension is one matrix product of the pairs' `σ` by the extension's
//! weights: on the tensor cores (where the config takes the shape) modulo three channel
//! primes that hold its exact sums, then reduced column by column, else on the integer
//! units with the sums in 128 bits. The leaves enter the same way: their
//! 30-bit digits times the digits' weights in every channel.
//!
//! A solve's fractions prove every numerator coprime to the rough part `r` of the
//! denominator by one such product ([`coprime_to`]): `gcd(Π y_i mod r, r) = 1`.

use crate::backend::gpu::driver::memory::moduli_words;
use crate::backend::gpu::launch::redc::{self as lr, Redc};
use crate::backend::gpu::launch::{launch_matmul, matmul_scratch_words, Matmul};
use crate::backend::gpu::Gpu;
use crate::error::Result;
use crate::num::redc::RedcBases;
use crate::timing::Laps;
use cudarc::driver::{CudaSlice, CudaStream};
use rayon::prelude::*;
use rns_core::launch::REDC_EXTEND_THREADS;
use rug::Integer;
use std::sync::Arc;

/// Whether `Π |y_i|` is coprime to the odd `r > 1`, from one product on the device;
/// `None` when it does not fit the device's memory budget (or `r` is not odd and above 1).
/// Stages on `laps`.
pub fn coprime_to(
    gpu: &Arc<Gpu>,
    nums: &[Integer],
    r: &Integer,
    laps: &mut Laps,
) -> Result<Option<bool>> {
    let Some(bases) = RedcBases::new(r) else {
        return Ok(None);
    };
    laps.lap("fractions: on the device: bases (host)");
    let Some(root) = redc_product(gpu, &bases, nums, laps)? else {
        return Ok(None);
    };
    let coprime = bases.value(&root).gcd(r) == 1;
    laps.lap("fractions: on the device: value, gcd (host)");
    Ok(Some(coprime))
}

/// The residues, in every channel of `bases`, of the product of `nums`' leaves
/// ([`RedcBases::leaf`]) by the tree of [`RedcBases::tree`], equal to it word for word;
/// `None` for no number, or when not even two leaves at a time fit the memory budget.
/// Stages on `laps` (the device's waited for at each).
pub fn redc_product(
    gpu: &Arc<Gpu>,
    bases: &RedcBases,
    nums: &[Integer],
    laps: &mut Laps,
) -> Result<Option<Vec<u32>>> {
    let s = Redc {
        k: bases.k(),
        k2: bases.k2(),
    };
    let (n, digits) = (s.n(), bases.digits());
    let Some(rows) = piece_rows(gpu, s, digits, nums.len())? else {
        return Ok(None);
    };
    let streams = gpu.lease_streams(1)?;
    let st = &streams[0];
    let t = Tables::upload(gpu, st, bases, digits)?;
    sync_lap(gpu, st, laps, "fractions: on the device: tables")?;
    // Each piece of leaves to its root, then the roots in pieces, until one is left.
    let mut roots = gpu.alloc_on(st, nums.len().div_ceil(rows) * n)?;
    for (p, piece) in nums.chunks(rows).enumerate() {
        let x = t.leaves(gpu, st, bases, piece, laps)?;
        let root = t.reduce_rows(gpu, st, x, piece.len(), laps)?;
        gpu.dtod(
            st,
            &root.slice(0..n),
            &mut roots.slice_mut(p * n..(p + 1) * n),
        )?;
    }
    let mut count = nums.len().div_ceil(rows);
    while count > 1 {
        let next = count.div_ceil(rows);
        let mut up = gpu.alloc_on(st, next * n)?;
        for p in 0..next {
            let r = p * rows..((p + 1) * rows).min(count);
            let mut x = gpu.alloc_on(st, r.len() * n)?;
            gpu.dtod(st, &roots.slice(r.start * n..r.end * n), &mut x)?;
            let root = t.reduce_rows(gpu, st, x, r.len(), laps)?;
            gpu.dtod(st, &root.slice(0..n), &mut up.slice_mut(p * n..(p + 1) * n))?;
        }
        (roots, count) = (up, next);
    }
    let root = gpu.download_on(st, &roots, n)?;
    laps.lap("fractions: on the device: root down");
    Ok(Some(root))
}

/// Leaves a piece holds: all of them when they fit the memory budget, else the most
/// (halving) down to two; `None` for none or when two do not fit.
fn piece_rows(gpu: &Gpu, s: Redc, digits: usize, len: usize) -> Result<Option<usize>> {
    let budget = gpu.budget()?;
    let mut rows = len;
    while rows > 0 {
        if 4 * words_for(gpu, s, digits, rows, len) <= budget {
            return Ok(Some(rows));
        }
        if rows <= 2 {
            break;
        }
        rows = rows.div_ceil(2);
    }
    Ok(None)
}

/// Device words of a product of `len` leaves in pieces of `rows`: the tables, the roots,
/// and the larger of a piece's leaves and of its first level.
pub fn words_for(gpu: &Gpu, s: Redc, digits: usize, rows: usize, len: usize) -> usize {
    let (n, wide) = (s.n(), s.k.max(s.k2) + 1);
    let scratch = |a, b, c| 3 * matmul_scratch_words(gpu, a, b, c);
    // Each table three times over, and once more while it is built; the integer units'
    // partial sums.
    let tables = 4 * (s.k * (s.k2 + 1) + s.k2 * (s.k + 1) + digits * n) + 8 * n;
    let tables = tables + 16 * REDC_EXTEND_THREADS;
    let leaves = 4 * rows * digits + 4 * rows * n + scratch(rows, digits, n);
    let pairs = rows / 2;
    let level = rows * n + (pairs + 1) * n + pairs * n + 7 * pairs * wide;
    let level = level + scratch(pairs, wide, wide);
    tables + len.div_ceil(rows.max(1)) * n + leaves.max(level)
}

/// A product's constant buffers on the device.
struct Tables {
    s: Redc,
    crt: rns_core::redc::Crt3,
    /// Every channel's modulus, the channel primes', `B ∪ {m_r}`'s and `B' ∪ {m_r}`'s.
    moduli: CudaSlice<u32>,
    primes: CudaSlice<u32>,
    to_b: CudaSlice<u32>,
    to_b2: CudaSlice<u32>,
    consts: CudaSlice<u32>,
    /// The extensions' weights, `B → B' ∪ {m_r}` and `B' → B ∪ {m_r}`, and the leaves'
    /// digit weights, each three times over (one per channel prime).
    w1: CudaSlice<u32>,
    w2: CudaSlice<u32>,
    powers: CudaSlice<u32>,
    digits: usize,
}

impl Tables {
    fn upload(gpu: &Gpu, st: &Arc<CudaStream>, b: &RedcBases, digits: usize) -> Result<Tables> {
        let (k, k2) = (b.k(), b.k2());
        let s = Redc { k, k2 };
        let n = s.n();
        let up = |m: &[rns_core::Modulus]| gpu.upload_on(st, &moduli_words(m));
        let (all, red) = (&b.moduli, &b.moduli[n - 1..]);
        let (bm, b2m) = (&all[..k], &all[k..k + k2]);
        let b_red: Vec<_> = bm.iter().chain(red).copied().collect();
        let (from_b, from_b2) = (up(bm)?, up(b2m)?);
        let (to_b, to_b2) = (up(&b_red)?, up(&all[k..])?);
        let (b_mod, b2_mod) = (gpu.upload_on(st, &b.b_mod)?, gpu.upload_on(st, &b.b2_mod)?);
        let mut w = gpu.alloc_on(st, k * (k2 + 1))?;
        lr::launch_redc_weights(gpu, st, &mut w, (&from_b, &to_b2, &b_mod), (k, k2 + 1))?;
        let w1 = thrice(gpu, st, &w, k * (k2 + 1))?;
        let mut w = gpu.alloc_on(st, k2 * (k + 1))?;
        lr::launch_redc_weights(gpu, st, &mut w, (&from_b2, &to_b, &b2_mod), (k2, k + 1))?;
        let w2 = thrice(gpu, st, &w, k2 * (k + 1))?;
        drop(w);
        let moduli = up(all)?;
        let mut pw = gpu.alloc_on(st, digits * n)?;
        lr::launch_redc_powers(gpu, st, &mut pw, &moduli, (digits, n))?;
        Ok(Tables {
            s,
            crt: b.crt,
            powers: thrice(gpu, st, &pw, digits * n)?,
            moduli,
            primes: up(&b.crt.p)?,
            to_b,
            to_b2,
            consts: gpu.upload_on(st, &b.consts)?,
            w1,
            w2,
            digits,
        })
    }

    /// `a·b` with column `c` reduced modulo `moduli`' `m_c` into `out`, for `a` and `b`
    /// held three times over: on the tensor cores where the config takes the shape,
    /// modulo each channel prime, then the columns' sums from those; else on the integer
    /// units in 128 bits (`rns_redc_extend`, the first copies only).
    #[allow(clippy::too_many_arguments)]
    fn product(
        &self,
        gpu: &Gpu,
        st: &Arc<CudaStream>,
        out: &mut CudaSlice<u32>,
        (a, b): (&CudaSlice<u32>, &CudaSlice<u32>),
        moduli: &CudaSlice<u32>,
        (rows, inner, cols): (usize, usize, usize),
        laps: &mut Laps,
    ) -> Result<()> {
        if !gpu.config().tensor_cores_for(rows, inner, cols) {
            lr::launch_redc_extend(gpu, st, out, (a, b), moduli, (rows, inner, cols))?;
            return sync_lap(
                gpu,
                st,
                laps,
                "fractions: on the device: products, integer units",
            );
        }
        let mut sums = gpu.alloc_on(st, 3 * rows * cols)?;
        let shape = Matmul {
            n: rows,
            k: inner,
            p: cols,
            channels: 3,
        };
        launch_matmul(gpu, st, shape, &mut sums, a, b, &self.primes)?;
        let crt = (&self.crt, &self.primes);
        lr::launch_redc_columns(gpu, st, out, &sums, crt, moduli, (rows, cols, cols))?;
        sync_lap(
            gpu,
            st,
            laps,
            "fractions: on the device: products, tensor cores",
        )
    }

    /// The residues of a piece of leaves, a row each.
    fn leaves(
        &self,
        gpu: &Gpu,
        st: &Arc<CudaStream>,
        bases: &RedcBases,
        piece: &[Integer],
        laps: &mut Laps,
    ) -> Result<CudaSlice<u32>> {
        let (rows, d, n) = (piece.len(), self.digits, self.s.n());
        let mut host = vec![0u32; rows * d];
        host.par_chunks_mut(d)
            .zip(piece)
            .for_each(|(out, y)| bases.leaf_digits(y, out));
        let one = gpu.upload_staged(st, &host)?;
        let digits = thrice(gpu, st, &one, rows * d)?;
        drop(one);
        let mut x = gpu.alloc_on(st, rows * n)?;
        sync_lap(
            gpu,
            st,
            laps,
            "fractions: on the device: leaves' digits, up",
        )?;
        let operands = (&digits, &self.powers);
        self.product(gpu, st, &mut x, operands, &self.moduli, (rows, d, n), laps)?;
        Ok(x)
    }

    /// The product of `rows` rows of `x` by levels of pairs (an odd last row carried up):
    /// a buffer whose first row is the root.
    fn reduce_rows(
        &self,
        gpu: &Gpu,
        st: &Arc<CudaStream>,
        mut x: CudaSlice<u32>,
        mut rows: usize,
        laps: &mut Laps,
    ) -> Result<CudaSlice<u32>> {
        let (s, n) = (self.s, self.s.n());
        let (m, c) = (&self.moduli, &self.consts);
        while rows > 1 {
            let pairs = rows / 2;
            let mut xn = gpu.alloc_on(st, (pairs + rows % 2) * n)?;
            let mut prod = gpu.alloc_on(st, pairs * n)?;
            let mut sigma = gpu.alloc_on(st, 3 * pairs * s.k)?;
            lr::launch_redc_pairs(gpu, st, (&mut prod, &mut sigma), &x, (m, c), s, pairs)?;
            let mut ext = gpu.alloc_on(st, pairs * (s.k2 + 1))?;
            let shape = (pairs, s.k, s.k2 + 1);
            sync_lap(gpu, st, laps, "fractions: on the device: steps")?;
            self.product(
                gpu,
                st,
                &mut ext,
                (&sigma, &self.w1),
                &self.to_b2,
                shape,
                laps,
            )?;
            let mut sigma = gpu.alloc_on(st, 3 * pairs * s.k2)?;
            let ends = (&mut xn, &mut sigma);
            lr::launch_redc_mid(gpu, st, ends, (&prod, &ext), (m, c), s, pairs)?;
            drop((prod, ext));
            let mut ext = gpu.alloc_on(st, pairs * (s.k + 1))?;
            let shape = (pairs, s.k2, s.k + 1);
            sync_lap(gpu, st, laps, "fractions: on the device: steps")?;
            self.product(
                gpu,
                st,
                &mut ext,
                (&sigma, &self.w2),
                &self.to_b,
                shape,
                laps,
            )?;
            lr::launch_redc_end(gpu, st, &mut xn, &ext, (m, c), s, pairs)?;
            if rows % 2 == 1 {
                let last = x.slice((rows - 1) * n..rows * n);
                gpu.dtod(st, &last, &mut xn.slice_mut(pairs * n..(pairs + 1) * n))?;
            }
            (x, rows) = (xn, pairs + rows % 2);
            sync_lap(gpu, st, laps, "fractions: on the device: steps")?;
        }
        Ok(x)
    }
}

/// Waits for `st`, then ends the stage `name` on `laps`.
fn sync_lap(gpu: &Gpu, st: &CudaStream, laps: &mut Laps, name: &'static str) -> Result<()> {
    gpu.sync_stream(st)?;
    laps.lap(name);
    Ok(())
}

/// Three copies of the first `len` words of `plane`, one after another.
fn thrice(
    gpu: &Gpu,
    st: &Arc<CudaStream>,
    plane: &CudaSlice<u32>,
    len: usize,
) -> Result<CudaSlice<u32>> {
    let mut out = gpu.alloc_on(st, 3 * len)?;
    for c in 0..3 {
        gpu.dtod(
            st,
            &plane.slice(0..len),
            &mut out.slice_mut(c * len..(c + 1) * len),
        )?;
    }
    Ok(out)
}
