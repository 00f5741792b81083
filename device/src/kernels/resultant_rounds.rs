//! Rounds of normal Euclidean steps for the block-per-prime resultant kernels: `K =`
//! [`RESULTANT_ROUND_STEPS`] steps ([`RESULTANT_ROUND_STEPS_WIDE`] in the wide kernel)
//! from one read and one write of the polynomials and two barriers, where one step a pass
//! costs a read, a write and a barrier each.
//!
//! A normal step takes `f` of degree `d + 1` and `g` of degree `d` to a remainder of
//! degree `d − 1`, every coefficient alike. Write `p₀ = f`, `p₁ = g` and `p_(i+2)` for
//! step `i`'s remainder. Warp 0 finds the `K` steps' fraction-free multipliers from the
//! top `32·W` coefficients of `f` and `g` (`W =` [`RESULTANT_ROUND_WINDOW`] a lane; each
//! step makes one more low coefficient wrong, and `K ≤ 16·W − 2` leaves those that the
//! next multipliers read right), and
//! lane 0 turns them into those of [`rns_core::euclid_redc`]: `r_j = REDC(f_j +
//! N₀·g_(j−1) + N₁·g_j)` on signed residues, two products and no correction a
//! coefficient, with the round's two records. Then every warp takes a range of the
//! coefficients in chunks of `32 × R`, a lane `R` consecutive coefficients ([`ROWS`],
//! [`ROWS_WIDE`]), and
//! steps them `K` times in registers: `g_(j−1)` is the lane's own but for its first
//! coefficient, which comes from the lane below by a shuffle, and across chunks from
//! lane 31 of the chunk before, a carry a step. A range starts from those carries of the
//! 32 coefficients below it (read before the barrier, since another warp rewrites them).
//! Meanwhile warp 0 looks ahead: it steps the top `32·`[`RESULTANT_ROUND_AHEAD`]
//! coefficients through the round itself and finds the next round's
//! window from them, so that no warp waits for a window but the first. A round that
//! meets a step that is not normal is not taken: the caller then takes one step the
//! usual way.

use super::{from_below, from_lane};
use core::arch::nvptx::*;
use rns_core::euclid::{normal_coefficient, normal_multipliers};
use rns_core::euclid_redc::{inv_mod_two32, redc_coefficient, redc_normalize, redc_round};
use rns_core::launch::{
    resultant_round_ahead, resultant_round_area, resultant_round_from, resultant_round_window,
    RESULTANT_ROUND_STEPS, RESULTANT_ROUND_STEPS_WIDE, RESULTANT_ROUND_WORDS,
};
use rns_core::Modulus;

/// Coefficients a lane holds in a chunk of the narrow rounds' sweep (H200, deg 16 000,
/// rounds of 8 steps: 2 and 8 were 13 % and 1.9× slower).
const ROWS: usize = 4;

/// Coefficients a lane holds in a chunk of the wide rounds' sweep (H200, deg 32 000,
/// 1584 primes, 256 threads: 4 rows at 64 registers 567 ms, 6 at 80 554, 8 at 96 slower).
const ROWS_WIDE: usize = 6;

/// One step of `32·R` coefficients, lane `L` holding `base + R·L … base + R·L + R − 1`
/// (`a = p_i`, `b = p_(i+1)` there, signed), with `carry = p_(i+1)[base − 1]`:
/// `(a, b) ← (b, p_(i+2))`. Returns `p_(i+1)` at lane 31's last coefficient, the next
/// chunk's carry.
#[inline(always)]
unsafe fn step_rows<const R: usize>(
    (a, b): (&mut [i32; R], &mut [i32; R]),
    carry: i32,
    mult: (i32, i32),
    (m, m_inv): (i32, u32),
    lane: u32,
) -> i32 {
    let last = b[R - 1] as u32;
    let (up, top) = (from_below(last) as i32, from_lane(last, 31) as i32);
    let mut below = if lane == 0 { carry } else { up };
    let mut next = [0i32; R];
    for r in 0..R {
        next[r] = redc_coefficient(mult, a[r], below, b[r], m, m_inv);
        below = b[r];
    }
    *a = *b;
    *b = next;
    top
}

/// The `K` steps of a chunk (or of a range's 32 coefficients below it, for the carries),
/// each step's carry in and out of `carry`, its multipliers read from `mult` (held in
/// registers they would not leave room for the coefficients under the kernel's cap).
/// The steps are written out, up to 16 (the steps past `K` fold away).
macro_rules! steps {
    ($k:expr, $rows:tt, $a:expr, $b:expr, $carry:expr, $mult:expr, $m:expr, $lane:expr) => {
        steps!(@each $k, $rows, $a, $b, $carry, $mult, $m, $lane,
            [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15])
    };
    (@each $k:expr, $rows:tt, $a:expr, $b:expr, $carry:expr, $mult:expr, $m:expr, $lane:expr,
        [$($i:literal),*]) => {
        $(
            if $i < $k {
                let mu = $mult.add(2 * $i);
                let mu = (*mu as i32, *mu.add(1) as i32);
                $carry[$i] = step_rows::<$rows>((&mut $a, &mut $b), $carry[$i], mu, $m, $lane);
            }
        )*
    };
}
const _: () = assert!(
    RESULTANT_ROUND_STEPS_WIDE <= 16,
    "steps! writes out 16 steps"
);

/// Coefficient `o` of the window (from its lowest) of a polynomial held `W` a lane, in
/// every lane.
#[inline(always)]
unsafe fn at<const W: usize>(v: &[u32; W], o: usize) -> u32 {
    let mut x = v[0];
    for (r, &y) in v.iter().enumerate().skip(1) {
        if o % W == r {
            x = y;
        }
    }
    from_lane(x, (o / W) as u32)
}

/// Warp 0: the fraction-free multipliers of the `K` steps from `f` (degree `d + 1`) and
/// `g` (degree `d ≥ 32·W − 2`) into `round[3i …]`; when every step is normal, lane 0 rewrites
/// `round[2i …]` with [`redc_round`]'s `(N₀, N₁)`, writes its two records to `rec` (and
/// `(1, 0)` to the round's other steps' records) and sets `round[3K] = 1` (else 0).
#[inline(never)]
unsafe fn window<const K: usize, const W: usize>(
    f: *const u32,
    g: *const u32,
    d: usize,
    m: Modulus,
    round: *mut u32,
    rec: *mut u32,
) {
    let lane = _thread_idx_x() & 31;
    // Lane L holds coefficients lo + W·L …: f's top (d + 1) is the window's last, g's
    // the one below.
    let span = 32 * W;
    let lo = d + 2 - span;
    let (mut a, mut b) = ([0u32; W], [0u32; W]);
    for r in 0..W {
        let x = lo + W * lane as usize + r;
        a[r] = *f.add(x);
        b[r] = if x <= d { *g.add(x) } else { 0 };
    }
    let mut normal = 1;
    for i in 0..K {
        let t = span - 2 - i; // where g's leading coefficient is at step i
        let mult = normal_multipliers(at(&b, t), at(&a, t + 1), at(&a, t), at(&b, t - 1), m);
        let mut r = [0u32; W];
        let mut below = from_below(b[W - 1]);
        for k in 0..W {
            r[k] = normal_coefficient(mult, a[k], below, b[k], m);
            below = b[k];
        }
        if lane == 0 {
            let e = 3 * i;
            (*round.add(e), *round.add(e + 1), *round.add(e + 2)) = mult;
        }
        // The remainder's degree must be d − i − 1: its coefficient there, at t − 1.
        if at(&r, t - 1) == 0 {
            normal = 0;
            break;
        }
        (a, b) = (b, r);
    }
    if lane == 0 {
        if normal == 1 {
            let mut ff = [(0u32, 0u32, 0u32); K];
            for (i, step) in ff.iter_mut().enumerate() {
                *step = (
                    *round.add(3 * i),
                    *round.add(3 * i + 1),
                    *round.add(3 * i + 2),
                );
            }
            let r = redc_round(&ff, d, m);
            for (i, &(n0, n1)) in r.n.iter().enumerate() {
                (*round.add(2 * i), *round.add(2 * i + 1)) = (n0 as u32, n1 as u32);
                let (base, e) = if i < 2 { r.records[i] } else { (1, 0) };
                (*rec.add(2 * i), *rec.add(2 * i + 1)) = (base, e);
            }
        }
        *round.add(3 * K) = normal;
    }
}

/// Warp 0's share of a wide round's chunks, in quarters of another warp's, when it also
/// looks ahead (H200, 1584 primes, 128 threads: shares of 0, 1, 2 and 4 quarters took
/// 552, 546, 539 and 536 ms at deg 32 000, 156, 155, 155 and 158 ms at deg 16 000).
const AHEAD_SHARE_WIDE: u32 = 2;

/// The same in a narrow round: none (deg 4000 in shared memory, 128 threads: 15.5, 15.9,
/// 16.3 and 17.0 ms, its rounds too short to hide the look-ahead in).
const AHEAD_SHARE_NARROW: u32 = 0;

/// Words of one of the channel's two round areas (half of [`RESULTANT_ROUND_WORDS`],
/// [`resultant_round_area`] of the wide rounds): a round's multipliers and normality flag
/// (`3K + 1` words), then the coefficients the look-ahead leaves, whose top the next
/// round's window reads (`32·V` of `f`, then of `g`).
const AREA: usize = RESULTANT_ROUND_WORDS / 2;

// The window and look-ahead widths [`round_of`] names for each round width.
const NARROW: usize = RESULTANT_ROUND_STEPS;
const WIDE: usize = RESULTANT_ROUND_STEPS_WIDE;
const _: () = assert!(resultant_round_window(NARROW) == 1 && resultant_round_ahead(NARROW) == 2);
const _: () = assert!(resultant_round_window(WIDE) == 2 && resultant_round_ahead(WIDE) == 3);
const _: () = assert!(resultant_round_area(NARROW) <= AREA && resultant_round_area(WIDE) == AREA);

/// A [`round`] of [`RESULTANT_ROUND_STEPS_WIDE`] steps when `IS_WIDE`, else of
/// [`RESULTANT_ROUND_STEPS`], on `g` of degree `d ≥ resultant_round_from(K)`.
#[inline(always)]
pub(super) unsafe fn round_of<const IS_WIDE: bool>(
    (f, g, d): (*mut u32, *mut u32, usize),
    m: Modulus,
    (areas, rec): (*mut u32, *mut u32),
    ahead: &mut Ahead,
) -> bool {
    if IS_WIDE {
        round::<WIDE, 2, 3, ROWS_WIDE, AHEAD_SHARE_WIDE>((f, g, d), m, (areas, rec), ahead)
    } else {
        round::<NARROW, 1, 2, ROWS, AHEAD_SHARE_NARROW>((f, g, d), m, (areas, rec), ahead)
    }
}

/// Where the block stands between rounds: whether the area `cur` already holds the
/// next round's window (found by the last round's look-ahead).
#[derive(Clone, Copy)]
pub(super) struct Ahead {
    pub ready: bool,
    pub cur: usize,
}

/// One round of `K` normal steps on `f` (degree `d + 1`) and `g` (degree `d ≥`
/// [`resultant_round_from`]`(K)`; a window of `W` coefficients a lane, `V` stepped
/// ahead, warp 0 sweeping `S` quarters of another warp's share) by the whole block (its
/// size a multiple of 32), in place: `f ← Q_K`, `g ← Q_(K+1)` (degrees `d + 1 − K`,
/// `d − K`, residues in `[0, m)`), the round's records at `rec` (two words a step).
/// `areas` holds the two round areas.
/// Returns whether the round was taken (for every thread); when not, `f`, `g` and the
/// step count are as they were. Every thread of the block calls it; the polynomials must
/// be as the last barrier left them.
///
/// Two barriers a round. Before the first, every warp reads what another warp may
/// rewrite (its range's 32 coefficients below, and warp 0 the top `32·V` coefficients), and
/// warp 0 finds the round's window unless the last round's look-ahead did. Between them
/// the other warps sweep their ranges while warp 0 steps the top `32·V` coefficients through
/// this round and finds the next round's window from them, then sweeps its smaller range
/// (the lowest chunks): so the window's serial work overlaps the sweep. A block of one
/// warp sweeps alone and finds each window in turn.
#[inline(always)]
unsafe fn round<const K: usize, const W: usize, const V: usize, const R: usize, const S: u32>(
    (f, g, d): (*mut u32, *mut u32, usize),
    m: Modulus,
    (areas, rec): (*mut u32, *mut u32),
    ahead: &mut Ahead,
) -> bool {
    let (top_words, span) = (3 * K + 1, 32 * V);
    let (tid, nt) = (_thread_idx_x() as usize, _block_dim_x() as usize);
    let (lane, warp, warps) = (tid as u32 & 31, tid / 32, nt / 32);
    let cur = areas.add(ahead.cur * AREA);
    let next = areas.add((1 - ahead.cur) * AREA);
    // f has d + 2 coefficients, g d + 1 (its coefficient d + 1 reads as zero).
    let len = d + 2;
    let load = |x: usize| {
        let a = if x < len { *f.add(x) } else { 0 };
        (a as i32, if x <= d { *g.add(x) as i32 } else { 0 })
    };
    // Every warp sweeps a range of chunks, warp 0 the lowest: a share of `S` quarters
    // when it also looks ahead (there are other warps), four quarters each other warp (no
    // panicking path: the total is at least 4).
    let chunks = len.div_ceil(32 * R) as u32;
    let own = if warps > 1 { S } else { 4 };
    let total = own + 4 * (warps as u32 - 1);
    let bound = |w: usize| {
        let q = if w == 0 { 0 } else { own + 4 * (w as u32 - 1) };
        (q * chunks).checked_div(total).unwrap_or(0) as usize
    };
    let (first, end) = (bound(warp), bound(warp + 1));
    let ranged = first > 0 && first < end;
    let ghost = if ranged {
        load(first * 32 * R - 32 + lane as usize)
    } else {
        (0, 0)
    };
    // The next round's window reads the top 32·W coefficients after this round, which
    // depend on the top 32·W + K before it: 32·V from lane 0's coefficient `base` up.
    // (With one warp there is nothing to overlap: the next window waits for its round.)
    let look = warps > 1 && d >= resultant_round_from(K) + K && len >= span;
    let base = len.wrapping_sub(span);
    let mut top = ([0i32; V], [0i32; V]);
    if warp == 0 && look {
        for r in 0..V {
            // (In 32 bits: a 64-bit `V·lane` kept over the rounds spills in the wide kernel.)
            let x = base as u32 + V as u32 * lane + r as u32;
            (top.0[r], top.1[r]) = load(x as usize);
        }
    }
    if !ahead.ready && warp == 0 {
        window::<K, W>(f, g, d, m, cur, rec);
    }
    _syncthreads();
    if *cur.add(3 * K) == 0 {
        ahead.ready = false;
        return false;
    }
    let mi = (m.m as i32, inv_mod_two32(m.m));
    if warp == 0 && look {
        // The top 32·V through this round (the lowest K come out wrong, unread), then
        // the next round's window from them.
        let (mut a, mut b) = top;
        let mut carry = [0i32; K];
        steps!(K, V, a, b, carry, cur, mi, lane);
        let held = next.add(top_words);
        for r in 0..V {
            let i = V * lane as usize + r;
            *held.add(i) = redc_normalize(a[r], m.m);
            *held.add(span + i) = redc_normalize(b[r], m.m);
        }
        super::sync_warp();
        let (hf, hg) = (held.wrapping_sub(base), held.add(span).wrapping_sub(base));
        window::<K, W>(hf, hg, d - K, m, next, rec.add(2 * K));
    }
    sweep::<K, R>((f, g, d), (first, end), ghost, cur, mi, lane);
    _syncthreads();
    ahead.ready = look;
    if look {
        ahead.cur = 1 - ahead.cur;
    }
    true
}

/// A sweeper's `K` steps of its chunks `first … end − 1` (of `32·R` coefficients) of
/// `f` and `g` (degrees `d + 1`, `d`) in place, from the carries of `ghost` (the 32
/// coefficients below its range) and the multipliers at `mults`. Chunks wholly below
/// `g`'s top go without bounds tests.
#[inline(always)]
unsafe fn sweep<const K: usize, const R: usize>(
    (f, g, d): (*mut u32, *mut u32, usize),
    (first, end): (usize, usize),
    ghost: (i32, i32),
    mults: *const u32,
    mi: (i32, u32),
    lane: u32,
) {
    let mut carry = [0i32; K];
    if first > 0 && first < end {
        let (mut a, mut b) = ([ghost.0], [ghost.1]);
        steps!(K, 1, a, b, carry, mults, mi, lane);
    }
    for c in first..end {
        let x0 = c * 32 * R + R * lane as usize;
        if (c + 1) * 32 * R <= d + 1 {
            chunk::<K, R, true>((f, g, d), x0, &mut carry, mults, mi, lane);
        } else {
            chunk::<K, R, false>((f, g, d), x0, &mut carry, mults, mi, lane);
        }
    }
}

/// The `K` steps of one chunk, a lane's coefficients from `x0`: read, stepped, written
/// back in `[0, m)` (`FULL`: all of them below `g`'s top, no bounds tests).
#[inline(always)]
unsafe fn chunk<const K: usize, const R: usize, const FULL: bool>(
    (f, g, d): (*mut u32, *mut u32, usize),
    x0: usize,
    carry: &mut [i32; K],
    mults: *const u32,
    mi: (i32, u32),
    lane: u32,
) {
    let len = d + 2;
    let (mut a, mut b) = ([0i32; R], [0i32; R]);
    for r in 0..R {
        let x = x0 + r;
        a[r] = if FULL || x < len { *f.add(x) as i32 } else { 0 };
        b[r] = if FULL || x <= d { *g.add(x) as i32 } else { 0 };
    }
    steps!(K, R, a, b, carry, mults, mi, lane);
    for r in 0..R {
        let x = x0 + r;
        if FULL || x < len {
            *f.add(x) = redc_normalize(a[r], mi.0 as u32);
        }
        if FULL || x <= d {
            *g.add(x) = redc_normalize(b[r], mi.0 as u32);
        }
    }
}
