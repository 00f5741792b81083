//! The rings of `rns_dixon_lift_global` (entry points `rns_dixon_lift_ring…`): each warp
//! streams the rows it sums (a step's rows of `A⁻¹ mod p`, then `A`'s limbs) through
//! its own stages of shared memory by `cp.async`, the copies of `LIFT_RING_STAGES − 1`
//! chunks in flight while one chunk is summed; a lane reads back only the words it
//! copied itself, so its own `cp.async.wait_group` is the only wait. The sums take one
//! `mad.wide.s32` a product, the limbs a compile-time count (no local arrays). Loaded
//! into registers instead, a thread keeps one chunk in flight, and the step reached
//! about 1.7 TB/s on H100 and H200 alike: bound by latency, not by the bandwidth
//! (`docs/performance.md`, thirty-fourth session).

use super::lift::{warp_residues, weighted_total, Primes};
use super::tensor::{async_commit, async_copy4, async_wait, shared_address};
use core::arch::asm;
use core::array::from_fn;
use rns_core::launch::{
    LIFT_GLOBAL_MAX_PRIMES, LIFT_RING_COLUMNS, LIFT_RING_ROWS, LIFT_RING_STAGES, LIFT_RING_WORDS,
};
use rns_core::modulus::{mad_wide_signed, LAZY_PRODUCTS};
use rns_core::{padic, Modulus};

const STAGES: usize = LIFT_RING_STAGES;
const COLS: usize = LIFT_RING_COLUMNS;
const ROWS: usize = LIFT_RING_ROWS;

/// This lane's words of its warp's ring: word `(s, r, u)` (stage, row, column) at
/// `32·((s·ROWS + r)·COLS + u)` words from its first, the lanes' words side by side.
#[derive(Clone, Copy)]
pub(super) struct Ring {
    /// The shared-memory address of the lane's first word.
    addr: u32,
}

/// Bytes between two stages of a lane's ring.
const STAGE_BYTES: u32 = (4 * 32 * ROWS * COLS) as u32;

impl Ring {
    /// The ring of lane `lane` of warp `warp`, the block's rings at `rings`
    /// (`LIFT_RING_WORDS` words a thread).
    #[inline(always)]
    pub(super) unsafe fn of(rings: *mut u32, warp: u32, lane: u32) -> Ring {
        let at = rings.add(warp as usize * LIFT_RING_WORDS * 32 + lane as usize);
        Ring {
            addr: shared_address(at),
        }
    }

    /// The address of word `(r, u)` of the stage `stage` bytes from the first.
    #[inline(always)]
    fn at(self, stage: u32, r: usize, u: usize) -> u32 {
        self.addr + stage + (4 * 32 * (r * COLS + u)) as u32
    }
}

/// The word at shared-memory address `a`.
#[inline(always)]
unsafe fn load_shared(a: u32) -> u32 {
    let v: u32;
    asm!(
        "ld.shared.u32 {v}, [{a}];",
        v = out(reg32) v,
        a = in(reg32) a,
        options(readonly, nostack, preserves_flags)
    );
    v
}

/// Streams this lane's columns (`j0`, then every `stride`-th, below `len`) of `R` rows
/// (row `r`'s column `j` at `row + r·skip + j`) through `ring`, `COLS` columns a chunk: `f`
/// gets each chunk's columns and words (a column past `len` read as the last one, for
/// `f` to count as 0).
#[inline(always)]
unsafe fn stream<const R: usize>(
    ring: Ring,
    (row, skip): (*const u32, usize),
    (j0, stride, len): (u32, u32, u32),
    mut f: impl FnMut([u32; COLS], &[[u32; COLS]; R]),
) {
    let chunk = COLS as u32 * stride;
    let chunks = (len + chunk - 1 - j0.min(len)) / chunk;
    let last = len - 1;
    // Chunk `t`'s stage, `t` chunks on from `first`.
    let stage = |t: u32| (t % STAGES as u32) * STAGE_BYTES;
    let issue = |t: u32| {
        if t < chunks {
            let first = j0 + t * chunk;
            for r in 0..R {
                for u in 0..COLS {
                    let j = (first + u as u32 * stride).min(last);
                    async_copy4(ring.at(stage(t), r, u), row.add(r * skip + j as usize));
                }
            }
        }
        // Empty groups too: the count of groups in flight stays the same for all.
        async_commit();
    };
    for t in 0..STAGES as u32 - 1 {
        issue(t);
    }
    for t in 0..chunks {
        issue(t + STAGES as u32 - 1);
        async_wait::<{ STAGES as u32 - 1 }>();
        let first = j0 + t * chunk;
        let cols: [u32; COLS] = from_fn(|u| first + u as u32 * stride);
        let words: [[u32; COLS]; R] =
            from_fn(|r| from_fn(|u| unsafe { load_shared(ring.at(stage(t), r, u)) }));
        f(cols, &words);
    }
}

/// `super::lift::dot_mod` through the ring: `Σ_j row_q[j]·ys_q[j] mod p_q` for each of
/// the `K` primes over this lane's columns, summed over the warp (in lane 0).
#[inline(always)]
pub(super) unsafe fn dot_mod_ring<const K: usize>(
    ring: Ring,
    (row, skip): (*const u32, usize),
    (ys, ql): (*const u32, usize),
    (j0, stride, len): (usize, usize, usize),
    primes: Primes,
) -> [u32; LIFT_GLOBAL_MAX_PRIMES] {
    let m: [Modulus; K] = from_fn(|q| unsafe { primes.at(q) });
    let mut acc = [0i64; K];
    let lane = (j0 as u32, stride as u32, len as u32);
    stream::<K>(ring, (row, skip), lane, |cols, v| unsafe {
        dot_chunk(&mut acc, &m, v, (cols, len as u32), (ys, ql));
    });
    warp_residues(acc, m)
}

/// `super::lift::product_part` through the ring: this lane's part of
/// `Σ_q w_q·Σ_j a[j]·x_q[j]` modulo `2^128` (`row` limb 0 of `A`'s row, limb `t` at
/// `t·len²`, `L` limbs; `xs` the staged digits, `x_q` at `q·ql` words on).
#[inline(always)]
pub(super) unsafe fn product_part_ring<const K: usize, const L: usize>(
    ring: Ring,
    row: *const i32,
    xs: *const i32,
    (j0, stride, len, ql): (usize, usize, usize, usize),
    primes: Primes,
) -> i128 {
    let mut sums = LimbSums::<K, L>::new();
    let lane = (j0 as u32, stride as u32, len as u32);
    stream::<L>(
        ring,
        (row as *const u32, len * len),
        lane,
        |cols, av| unsafe {
            let av: [[i32; COLS]; L] = from_fn(|t| from_fn(|u| av[t][u] as i32));
            sums.chunk(&av, (cols, len as u32), (xs, ql));
        },
    );
    weighted_total(sums.totals(), primes)
}

/// `acc_q += Σ_u center_q(v_q[u])·ys_q[cols[u]]` for the chunk's columns below `len`
/// (one `mad.wide.s32` a product), folded every `LAZY_PRODUCTS`.
#[inline(always)]
unsafe fn dot_chunk<const K: usize, const C: usize>(
    acc: &mut [i64; K],
    m: &[Modulus; K],
    v: &[[u32; C]; K],
    (cols, len): ([u32; C], u32),
    (ys, ql): (*const u32, usize),
) {
    for (q, (acc, v)) in acc.iter_mut().zip(v.iter()).enumerate() {
        let mq = m[q % K];
        for (u, (&v, &c)) in v.iter().zip(cols.iter()).enumerate() {
            let y = *ys.add(q * ql + c.min(len - 1) as usize) as i32;
            let a = if c < len { mq.center(v) } else { 0 };
            *acc = mad_wide_signed(a, y, *acc);
            if (u + 1) % LAZY_PRODUCTS == 0 || u + 1 == C {
                // `Modulus::fold`, its product one `mad.wide.s32` (`x >> 32` fits).
                let x = *acc;
                *acc = mad_wide_signed((x >> 32) as i32, mq.fold_factor(), (x as u32) as i64);
            }
        }
    }
}

/// Products of a limb and a digit (each below `2^60` in absolute value: a limb below
/// `2^29`, a digit below `2^31`) that a 64-bit sum holds: `8·2^60 < 2^63`.
const PRODUCTS_IN_64: u32 = 8;

/// A lane's sums of the products of `A`'s limbs and the digits: each prime's limb sums in
/// 64-bit words, added into the prime's 128-bit total (shifted into place) only once
/// they hold `PRODUCTS_IN_64` products. Shifting and adding 128-bit words after every
/// chunk had cost more than the products (`docs/performance.md`, thirty-sixth session).
struct LimbSums<const K: usize, const L: usize> {
    total: [i128; K],
    part: [[i64; L]; K],
    products: u32,
}

impl<const K: usize, const L: usize> LimbSums<K, L> {
    #[inline(always)]
    fn new() -> Self {
        LimbSums {
            total: [0; K],
            part: [[0; L]; K],
            products: 0,
        }
    }

    /// `part_q,t += Σ_u a_t[u]·x_q[cols[u]]` over the chunk's columns below `len` (one
    /// `mad.wide.s32` a product), the parts folded into the totals first when the
    /// chunk's products would not fit beside them.
    #[inline(always)]
    unsafe fn chunk<const C: usize>(
        &mut self,
        av: &[[i32; C]; L],
        (cols, len): ([u32; C], u32),
        (xs, ql): (*const i32, usize),
    ) {
        if self.products + C as u32 > PRODUCTS_IN_64 {
            self.fold();
        }
        self.products += C as u32;
        for (q, part) in self.part.iter_mut().enumerate() {
            let xv: [i32; C] = from_fn(|u| {
                let c = cols[u];
                let x = unsafe { *xs.add(q * ql + c.min(len - 1) as usize) };
                if c < len {
                    x
                } else {
                    0
                }
            });
            for (s, av) in part.iter_mut().zip(av.iter()) {
                for (&a, &x) in av.iter().zip(xv.iter()) {
                    *s = mad_wide_signed(a, x, *s);
                }
            }
        }
    }

    /// `total_q += Σ_t 2^(29·t)·part_q,t`, the parts emptied.
    #[inline(always)]
    fn fold(&mut self) {
        for (total, part) in self.total.iter_mut().zip(self.part.iter_mut()) {
            for (t, s) in part.iter_mut().enumerate() {
                let shifted = (*s as i128).wrapping_shl(padic::LIMB_BITS * t as u32);
                *total = total.wrapping_add(shifted);
                *s = 0;
            }
        }
        self.products = 0;
    }

    /// The totals, the parts folded in.
    #[inline(always)]
    fn totals(mut self) -> [i128; K] {
        self.fold();
        self.total
    }
}
