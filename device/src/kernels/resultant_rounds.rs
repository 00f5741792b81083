//! Rounds of normal Euclidean steps for the block-per-prime resultant kernel: `K =`
//! [`RESULTANT_ROUND_STEPS`] steps from one read and one write of the polynomials and two
//! barriers, where one step a pass costs a read, a write and a barrier each.
//!
//! A normal step takes `f` of degree `d + 1` and `g` of degree `d` to a remainder of
//! degree `d − 1`, every coefficient alike: `r_j = s·f_j + n₀·g_(j−1) + n₁·g_j`
//! ([`normal_coefficient`]). Write `p₀ = f`, `p₁ = g` and `p_(i+2)` for step `i`'s
//! remainder. Warp 0 finds the `K` steps' multipliers from the top 32 coefficients of `f`
//! and `g` (a lane a coefficient; each step makes one more low lane wrong, and `K ≤ 14`
//! leaves the lanes that the next multipliers read right). Then every warp takes a range
//! of the coefficients in chunks of `4 × 32`, a lane four coefficients 32 apart, and
//! steps them `K` times in registers: `p_(i+1)[j − 1]` comes from the lane below by a
//! shuffle, and across chunks from lane 31 of the chunk before, a carry a step. A range
//! starts from those carries of the 32 coefficients below it (read before the barrier,
//! since another warp rewrites them). A round that meets a step that is not normal is
//! not taken: the caller then takes one step the usual way.

use super::{from_below, from_lane};
use core::arch::nvptx::*;
use rns_core::euclid::{normal_coefficient, normal_multipliers};
use rns_core::launch::RESULTANT_ROUND_STEPS as K;
use rns_core::Modulus;

/// Rows of 32 coefficients a chunk of the sweep.
const ROWS: usize = 4;
const CHUNK: usize = 32 * ROWS;

/// One step of `R` rows of 32 coefficients (`a = p_i`, `b = p_(i+1)` at this lane's
/// coefficients, rows 32 apart), with `carry = p_(i+1)` just below the first row:
/// `(a, b) ← (b, p_(i+2))`. Returns `p_(i+1)` at the last row's lane 31, the next
/// chunk's carry.
#[inline(always)]
unsafe fn step_rows<const R: usize>(
    (a, b): (&mut [u32; R], &mut [u32; R]),
    carry: u32,
    mult: (u32, u32, u32),
    m: Modulus,
    lane: u32,
) -> u32 {
    let mut next = [0u32; R];
    let mut below_row = carry;
    for r in 0..R {
        let (up, top) = (from_below(b[r]), from_lane(b[r], 31));
        let below = if lane == 0 { below_row } else { up };
        next[r] = normal_coefficient(mult, a[r], below, b[r], m);
        below_row = top;
    }
    *a = *b;
    *b = next;
    below_row
}

/// The `K` steps of a chunk (or of a range's 32 coefficients below it, for the carries),
/// each step's carry in and out of `carry`, its multipliers read from `mult` (held in
/// registers they would not leave room for the coefficients under the kernel's cap).
macro_rules! steps {
    ($rows:literal, $a:expr, $b:expr, $carry:expr, $mult:expr, $m:expr, $lane:expr, [$($i:literal),*]) => {
        $(
            let mu = $mult.add(3 * $i);
            let mu = (*mu, *mu.add(1), *mu.add(2));
            $carry[$i] = step_rows::<$rows>((&mut $a, &mut $b), $carry[$i], mu, $m, $lane);
        )*
    };
}
const _: () = assert!(K == 8, "the steps! calls below name the steps 0 to 7");

/// Warp 0: the multipliers of the `K` steps from `f` (degree `d + 1`) and `g` (degree
/// `d ≥ 30`) into `round[3i …]`, their records (`lc(g)`, the denominator exponent
/// `2·(d − i) − 2` of [`rns_core::euclid::step_exponents`]) into `rec[2i …]`, and
/// `round[3K] = 1` when every step is normal (else 0).
#[inline(always)]
unsafe fn window(
    f: *const u32,
    g: *const u32,
    d: usize,
    m: Modulus,
    round: *mut u32,
    rec: *mut u32,
) {
    let lane = _thread_idx_x() & 31;
    // Lane L holds coefficient d − 30 + L: f's top is lane 31, g's lane 30.
    let x = d - 30 + lane as usize;
    let mut a = *f.add(x);
    let mut b = if x <= d { *g.add(x) } else { 0 };
    let mut normal = 1;
    for i in 0..K as u32 {
        let at = 30 - i; // lane of g's leading coefficient at step i
        let lc = from_lane(b, at);
        let mult = normal_multipliers(
            lc,
            from_lane(a, at + 1),
            from_lane(a, at),
            from_lane(b, at - 1),
            m,
        );
        let r = normal_coefficient(mult, a, from_below(b), b, m);
        if lane == 0 {
            let e = 3 * i as usize;
            (*round.add(e), *round.add(e + 1), *round.add(e + 2)) = mult;
            *rec.add(2 * i as usize) = lc;
            *rec.add(2 * i as usize + 1) = 2 * (d as u32 - i) - 2;
        }
        // The remainder's degree must be d − i − 1: its coefficient there, lane at − 1.
        if from_lane(r, at - 1) == 0 {
            normal = 0;
            break;
        }
        (a, b) = (b, r);
    }
    if lane == 0 {
        *round.add(3 * K) = normal;
    }
}

/// One round of `K` normal steps on `f` (degree `d + 1`) and `g` (degree `d ≥`
/// [`rns_core::launch::RESULTANT_ROUND_FROM`]) by the whole block (its size a multiple of
/// 32), in place: `f ← p_K`, `g ← p_(K+1)` (degrees `d + 1 − K`, `d − K`), the steps'
/// records at `rec` (two words a step). `mults` holds the multipliers. Returns whether the
/// round was taken (for every thread); when not, `f`, `g` and the step count are as they
/// were. Every thread of the block calls it; the polynomials must be as the last barrier
/// left them.
#[inline(always)]
pub(super) unsafe fn round(
    f: *mut u32,
    g: *mut u32,
    d: usize,
    m: Modulus,
    mults: *mut u32,
    rec: *mut u32,
) -> bool {
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    let (lane, warp, warps) = (tid as u32 & 31, tid / 32, nt / 32);
    if warp == 0 {
        window(f, g, d, m, mults, rec);
    }
    // f has d + 2 coefficients, g d + 1 (its coefficient d + 1 reads as zero).
    let len = d + 2;
    let load = |x: usize| {
        let a = if x < len { *f.add(x) } else { 0 };
        (a, if x <= d { *g.add(x) } else { 0 })
    };
    let chunks = len.div_ceil(CHUNK);
    // Warp w's range of chunks (no panicking path: the block holds at least one warp).
    let share = |w: usize| (w * chunks).checked_div(warps).unwrap_or(0);
    let (first, end) = (share(warp), share(warp + 1));
    // The 32 coefficients below this warp's range, before another warp rewrites them.
    let ghost = if first > 0 && first < end {
        load(first * CHUNK - 32 + lane as usize)
    } else {
        (0, 0)
    };
    _syncthreads();
    if *mults.add(3 * K) == 0 {
        return false;
    }
    let mut carry = [0u32; K];
    if first > 0 && first < end {
        let (mut a, mut b) = ([ghost.0], [ghost.1]);
        steps!(1, a, b, carry, mults, m, lane, [0, 1, 2, 3, 4, 5, 6, 7]);
    }
    for c in first..end {
        let base = c * CHUNK + lane as usize;
        let (mut a, mut b) = ([0u32; ROWS], [0u32; ROWS]);
        for r in 0..ROWS {
            (a[r], b[r]) = load(base + 32 * r);
        }
        steps!(4, a, b, carry, mults, m, lane, [0, 1, 2, 3, 4, 5, 6, 7]);
        for r in 0..ROWS {
            let x = base + 32 * r;
            if x < len {
                *f.add(x) = a[r];
            }
            if x <= d {
                *g.add(x) = b[r];
            }
        }
    }
    _syncthreads();
    true
}
