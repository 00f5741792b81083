//! Dixon's lifting for matrices whose rows do not fit in the blocks' shared memory
//! (`rns_dixon_lift` keeps them there): every step reads `A⁻¹ mod p` and `A`'s limbs
//! from global memory, so a step is one pass over `n²·(k + limbs)` words, bound by the
//! device's bandwidth. A step lifts by the product `P` of `k` primes (1 to
//! `LIFT_GLOBAL_MAX_PRIMES`): the digit `A⁻¹·y mod P` as `k` mixed-radix digits
//! (`rns_core::padic::mixed_radix`), so that `A`'s limbs are read once for `31·k` bits
//! of the answer. The same arithmetic (`rns_core::padic`) and the same exchange of
//! tagged words as `rns_dixon_lift`; with one prime, the same digits. On several devices
//! (peer access between them) each launch takes a share of the rows and publishes its
//! tagged words into the others' memory too: one lifting, its blocks on every device.

use super::dixon::warp_sum_i128;
use super::lift_ring::{dot_mod_ring, product_part_ring, Ring};
use super::shuffle_down;
use super::tagged::{gpu_load_u64, gpu_store_u64, stage_tagged, sys_store_u64, tagged, Watch};
use core::arch::nvptx::*;
use core::array::from_fn;
use rns_core::padic;
use rns_core::Modulus;

/// Limbs of `A`'s entries at most.
const MAX_LIMBS: usize = rns_core::launch::LIFT_GLOBAL_MAX_LIMBS;
/// Primes a step at most.
const MAX_PRIMES: usize = rns_core::launch::LIFT_GLOBAL_MAX_PRIMES;

/// This warp's place in a block of `rns_dixon_lift_global`: of the launch's rows
/// `row0 .. row0 + rows`, the block takes `rows_here` rows from `first_row`, each
/// worked on by `parts` warps (each taking every `parts`-th group of 32 columns) when
/// the block has fewer rows than warps; else each warp takes every `concurrent`-th row.
struct Place {
    first_row: u32,
    rows_here: u32,
    parts: u32,
    part: u32,
    /// This warp's first row (local to the block), and the rows taken at once.
    local: u32,
    concurrent: u32,
    warp: u32,
    lane: u32,
}

impl Place {
    unsafe fn of(row0: u32, rows: u32) -> Place {
        let wpb = _block_dim_x() / 32;
        let blocks = _grid_dim_x().max(1);
        let rpb = rows.div_ceil(blocks).max(1);
        let first = _block_idx_x() * rpb;
        let parts = if rpb >= wpb {
            1
        } else {
            wpb.checked_div(rpb).unwrap_or(1).max(1)
        };
        let warp = _thread_idx_x() / 32;
        let concurrent = wpb.checked_div(parts).unwrap_or(1).max(1);
        Place {
            first_row: row0 + first,
            rows_here: rpb.min(rows.saturating_sub(first)),
            parts,
            part: warp % parts,
            // Warps beyond `concurrent · parts` have no row.
            local: if warp < concurrent * parts {
                warp / parts
            } else {
                u32::MAX
            },
            concurrent,
            warp,
            lane: _thread_idx_x() % 32,
        }
    }

    /// Word `w` of column `c`'s partial result of part `part` of this warp's row
    /// (`l` columns, 4 words each, per warp).
    unsafe fn slot(&self, slots: *mut u32, l: u32, part: u32, c: u32, w: u32) -> *mut u32 {
        let warp = self.warp - self.part + part;
        slots.add((4 * (warp * l + c) + w) as usize)
    }
}

/// The primes of a run of [`rns_dixon_lift_global`] (`k` of them at `m`, read where
/// used: a block keeps no per-prime registers), their mixed-radix inverses, and
/// `P⁻¹ mod 2^128`.
#[derive(Clone, Copy)]
pub(super) struct Primes {
    k: u32,
    m: *const Modulus,
    /// `inv[u·MAX_PRIMES + q] = p_u⁻¹ mod p_q`.
    inv: *const u32,
    p_inv: u128,
}

impl Primes {
    /// Prime `q`.
    #[inline(always)]
    pub(super) unsafe fn at(self, q: usize) -> Modulus {
        *self.m.add(q)
    }

    /// The digits `x_q` of `A⁻¹·y mod P` from the residues `d_q` of `A⁻¹·y mod p_q`.
    unsafe fn mixed_radix(self, d: [u32; MAX_PRIMES]) -> [u32; MAX_PRIMES] {
        let m = |q: usize| unsafe { self.at(q) };
        let inv = |u: usize, q: usize| unsafe { *self.inv.add(u * MAX_PRIMES + q) };
        padic::mixed_radix(d, self.k as usize, m, inv)
    }
}

/// The other devices of a lifting split by rows across devices: `count` pairs of
/// pointers at `at`, each a peer's `y` and `x` (its device memory, mapped here by peer
/// access), where the rows of this launch are published too (system-scope stores).
#[derive(Clone, Copy)]
struct Peers {
    at: *const u64,
    count: u32,
}

impl Peers {
    /// Stores the tagged word `v` at entry `at` of matrix `which` (0: `y`, 1: `x`) of
    /// every peer.
    #[inline(always)]
    unsafe fn store(self, which: usize, at: usize, v: u64) {
        for p in 0..self.count as usize {
            let base = *self.at.add(2 * p + which) as *mut u64;
            sys_store_u64(base.add(at), v);
        }
    }
}

/// One entry point of [`lift_global`] for each number of primes a step, with and
/// without the rings.
macro_rules! lift_global_kernel {
    ($name:ident, $k:literal, $ring:literal) => {
        #[doc = concat!("[`lift_global`] by ", $k, " prime(s) a step, rings: ", $ring, ".")]
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "ptx-kernel" fn $name(
            r: *mut u64,
            y: *mut u64,
            x: *mut u64,
            digits: *mut u32,
            first: *mut u32,
            inv: *const u32,
            a: *const i32,
            moduli: *const Modulus,
            garner: *const u32,
            n: u32,
            l: u32,
            ld: u32,
            limbs: u32,
            p_inv_lo: u64,
            p_inv_hi: u64,
            step0: u32,
            steps: u32,
            row0: u32,
            rows: u32,
            peers: *const u64,
            npeers: u32,
            watch: *mut u32,
            limit_ns: u64,
        ) {
            let p_inv = p_inv_lo as u128 | ((p_inv_hi as u128) << 64);
            let peers = Peers {
                at: peers,
                count: npeers,
            };
            lift_global::<$k, $ring>(
                [r, y, x],
                (digits, first),
                (inv, a, moduli, garner),
                (n, l, ld, limbs),
                p_inv,
                (step0, steps),
                (row0, rows, peers),
                Watch::new(watch, limit_ns).across_devices(npeers > 0),
            );
        }
    };
}

lift_global_kernel!(rns_dixon_lift_global, 1, false);
lift_global_kernel!(rns_dixon_lift_global2, 2, false);
lift_global_kernel!(rns_dixon_lift_global3, 3, false);
lift_global_kernel!(rns_dixon_lift_global4, 4, false);
lift_global_kernel!(rns_dixon_lift_ring, 1, true);
lift_global_kernel!(rns_dixon_lift_ring2, 2, true);
lift_global_kernel!(rns_dixon_lift_ring3, 3, true);
lift_global_kernel!(rns_dixon_lift_ring4, 4, true);

/// Dixon's lifting, steps `step0 .. step0 + steps` in one cooperative launch, each by the
/// product `P` of the `K` primes at `moduli` (an entry point per `K`:
/// `rns_dixon_lift_global`, `…2`, `…3`, `…4`) (`p_inv` = `P⁻¹ mod 2^128`, `garner[u·4 +
/// q] = p_u⁻¹ mod p_q`), with `A⁻¹ mod p_q` (`inv + q·n·ld`, rows `ld` apart) and `A`'s
/// limbs (limb `t` of entry `(i, j)` at `a[t·n² + i·n + j]`) read from global memory on
/// every step. The launch takes rows `row0 .. row0 + rows` (all `n` on one device;
/// split by rows across devices, each device's share, its rows' `x` and `y` also
/// stored into every peer's: [`Peers`], its waits then system-scope). Block `b` takes
/// the launch's rows `b·R ..` (`R = ⌈rows / blocks⌉`), its warps
/// splitting each row into parts when it has fewer rows than warps ([`Place`]); `r` (two
/// 64-bit words an entry) is `n × l` (row-major), `y` and `x` are `k` such matrices (one
/// per prime), the residuals kept in global memory between steps. Each step: `y` staged
/// (centered modulo each prime) in shared memory, the residues `d_q = A⁻¹·y mod p_q` of
/// the block's rows turned into mixed-radix digits `x_q` and published tagged `s + 1`
/// (level `s·k + q` of `digits`, `n·l` words a level; row 0's also into `first`, `l` a
/// level), `x` staged, then `r ← (r − Σ_q w_q·A·x_q)/P` and `y_q = r mod p_q` published
/// tagged `s + 2`. At most `LIFT_GLOBAL_MAX_LIMBS` limbs and `LIFT_GLOBAL_MAX_PRIMES`
/// primes. With `RING` (entry points `rns_dixon_lift_ring`, `…2`, `…3`, `…4`), each warp
/// streams its rows through a ring of shared memory (`super::lift_ring`), else it loads
/// them into registers. Every wait is bounded by `watch` (the launch's word and stall
/// limit: the entry points' last two arguments).
/// Dynamic shared memory: `4·(k·n·l + 4·l·warps)` bytes, and `4·LIFT_RING_WORDS` a
/// thread more with `RING`.
#[inline(always)]
unsafe fn lift_global<const K: usize, const RING: bool>(
    [r, y, x]: [*mut u64; 3],
    (digits, first): (*mut u32, *mut u32),
    (inv, a, moduli, garner): (*const u32, *const i32, *const Modulus, *const u32),
    (n, l, ld, limbs): (u32, u32, u32, u32),
    p_inv: u128,
    (step0, steps): (u32, u32),
    (row0, rows, peers): (u32, u32, Peers),
    watch: Watch,
) {
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let k = K as u32;
    let (nu, nl) = (n as usize, (n * l) as usize);
    let slots = sh.add(k as usize * nl);
    let primes = Primes {
        k,
        m: moduli,
        inv: garner,
        p_inv,
    };
    let place = Place::of(row0, rows);
    let ring = RING.then(|| {
        let rings = slots.add(4 * l as usize * (_block_dim_x() / 32) as usize);
        Ring::of(rings, place.warp, place.lane)
    });
    // Columns a lane reads: `lane + 32·part`, then every `32·parts`-th.
    let (j0, stride) = (
        (place.lane + 32 * place.part) as usize,
        32 * place.parts as usize,
    );
    let mut step = step0;
    while step < step0 + steps {
        for q in 0..k as usize {
            let mq = primes.at(q);
            stage_tagged(
                y.add(q * nl),
                sh.add(q * nl),
                (n, l),
                step + 1,
                Some(mq),
                watch,
            );
        }
        // The digits of this warp's rows (their parts).
        let mut local = place.local;
        while local < place.rows_here {
            let i = place.first_row + local;
            let mut c = 0;
            while c < l {
                let row = (inv.add(i as usize * ld as usize), nu * ld as usize);
                let ys = (sh.add(c as usize * nu) as *const u32, nl);
                let cols = (j0, stride, nu);
                let d = match (ring, K) {
                    (Some(g), _) => dot_mod_ring::<K>(g, row, ys, cols, primes),
                    (None, 1 | 2) => dot_mod::<K, 4>(row, ys, cols, primes),
                    (None, 3) => dot_mod::<K, 2>(row, ys, cols, primes),
                    (None, _) => dot_mod::<K, 1>(row, ys, cols, primes),
                };
                if place.lane == 0 {
                    match place.parts {
                        1 => publish_digits(
                            primes,
                            d,
                            (i, c),
                            (n, l),
                            step,
                            (digits, x, first),
                            peers,
                        ),
                        _ => {
                            for (q, &d) in d.iter().enumerate().take(k as usize) {
                                *place.slot(slots, l, place.part, c, q as u32) = d;
                            }
                        }
                    }
                }
                c += 1;
            }
            local += place.concurrent;
        }
        _syncthreads();
        // The parts' digits added up by lane `c` of each row's part 0.
        if place.parts > 1 && place.part == 0 && place.local < place.rows_here && place.lane < l {
            let c = place.lane;
            let mut d = [0u32; MAX_PRIMES];
            for (q, d) in d.iter_mut().enumerate().take(k as usize) {
                let mq = primes.at(q);
                for p in 0..place.parts {
                    *d = mq.add(*d, *place.slot(slots, l, p, c, q as u32));
                }
            }
            let i = place.first_row + place.local;
            publish_digits(primes, d, (i, c), (n, l), step, (digits, x, first), peers);
        }
        // Every warp of the block is done with `y` (and the slots) before `x` takes its
        // place.
        _syncthreads();
        for q in 0..k as usize {
            stage_tagged(x.add(q * nl), sh.add(q * nl), (n, l), step + 1, None, watch);
        }
        // The residuals of this warp's rows (their parts).
        let mut local = place.local;
        while local < place.rows_here {
            let i = place.first_row + local;
            let mut c = 0;
            while c < l {
                let row = a.add(i as usize * nu);
                let xs = sh.add(c as usize * nu) as *const i32;
                let cols = (j0, stride, nu, nl);
                let own = match (ring, limbs) {
                    (Some(g), 1) => product_part_ring::<K, 1>(g, row, xs, cols, primes),
                    (Some(g), 2) => product_part_ring::<K, 2>(g, row, xs, cols, primes),
                    (Some(g), 3) => product_part_ring::<K, 3>(g, row, xs, cols, primes),
                    (Some(g), _) => product_part_ring::<K, 4>(g, row, xs, cols, primes),
                    (None, _) if K < MAX_PRIMES => {
                        product_part::<K, 4>(row, xs, cols, limbs, primes)
                    }
                    (None, _) => product_part::<K, 2>(row, xs, cols, limbs, primes),
                };
                let total = warp_sum_i128(own);
                if place.lane == 0 {
                    match place.parts {
                        1 => update_residual(primes, total, (i, c), (n, l), step, (r, y), peers),
                        _ => {
                            let u = total as u128;
                            for v in 0..4 {
                                *place.slot(slots, l, place.part, c, v) = (u >> (32 * v)) as u32;
                            }
                        }
                    }
                }
                c += 1;
            }
            local += place.concurrent;
        }
        _syncthreads();
        if place.parts > 1 && place.part == 0 && place.local < place.rows_here && place.lane < l {
            let c = place.lane;
            let mut total = 0u128;
            for p in 0..place.parts {
                let word = |v: u32| unsafe { (*place.slot(slots, l, p, c, v) as u128) << (32 * v) };
                total = total.wrapping_add(word(0) | word(1) | word(2) | word(3));
            }
            let i = place.first_row + place.local;
            update_residual(primes, total as i128, (i, c), (n, l), step, (r, y), peers);
        }
        // And done with `x` (and the slots) before the next step's `y` takes its place.
        _syncthreads();
        step += 1;
    }
}

/// `Σ_j row_q[j]·ys_q[j] mod p_q` for each of the `K` primes over this lane's columns
/// (`j0`, then every `stride`-th, below `len`), summed over the warp (in lane 0): `row`
/// the row of prime 0's inverse (prime `q`'s `q·skip` words on), `ys` the staged
/// centered residues modulo prime 0 (prime `q`'s `q·ql` words on). `C` columns of every
/// prime's row loaded at once (`C ≤ 4`), then the products and one fold a prime
/// (`LAZY_PRODUCTS` of them fit between folds).
#[inline(always)]
unsafe fn dot_mod<const K: usize, const C: usize>(
    (row, skip): (*const u32, usize),
    (ys, ql): (*const u32, usize),
    (j0, stride, len): (usize, usize, usize),
    primes: Primes,
) -> [u32; MAX_PRIMES] {
    let m: [Modulus; K] = from_fn(|q| unsafe { primes.at(q) });
    let mut acc = [0i64; K];
    let mut j = j0;
    while j + (C - 1) * stride < len {
        let v: [[u32; C]; K] =
            from_fn(|q| from_fn(|u| unsafe { *row.add(q * skip + j + u * stride) }));
        for (q, (acc, v)) in acc.iter_mut().zip(v.iter()).enumerate() {
            for (u, &v) in v.iter().enumerate() {
                let y = *ys.add(q * ql + j + u * stride) as i32 as i64;
                *acc += m[q % K].center(v) as i64 * y;
            }
            *acc = Modulus::fold(*acc, m[q % K].fold_factor());
        }
        j += C * stride;
    }
    while j < len {
        for (q, acc) in acc.iter_mut().enumerate() {
            let y = *ys.add(q * ql + j) as i32 as i64;
            *acc += m[q % K].center(*row.add(q * skip + j)) as i64 * y;
        }
        j += stride;
    }
    warp_residues(acc, m)
}

/// Each prime's sum `acc_q` reduced modulo `m_q` and added up over the warp (in lane 0).
#[inline(always)]
pub(super) unsafe fn warp_residues<const K: usize>(
    acc: [i64; K],
    m: [Modulus; K],
) -> [u32; MAX_PRIMES] {
    let mut d = [0u32; MAX_PRIMES];
    for (q, (d, acc)) in d.iter_mut().zip(acc.iter()).enumerate() {
        let mq = m[q % K];
        *d = mq.reduce_i64(*acc);
        let mut s = 16;
        while s > 0 {
            *d = mq.add(*d, shuffle_down(*d, s));
            s /= 2;
        }
    }
    d
}

/// This lane's part of `Σ_q w_q·Σ_j a[j]·x_q[j]` modulo `2^128`, over its columns
/// (`j0`, then every `stride`-th, below `len`): `row` limb 0 of `A`'s row (limb `t` at
/// `t·len²`), `xs` the staged digits `x_0` (`x_q` at `q·ql` words on). `C` columns at a
/// time, every limb's `C` products (each below `2^60`, `C ≤ 4`) summed in a 64-bit word,
/// then shifted into place. `K` is the step's primes (`primes.k`).
#[inline(always)]
unsafe fn product_part<const K: usize, const C: usize>(
    row: *const i32,
    xs: *const i32,
    (j0, stride, len, ql): (usize, usize, usize, usize),
    limbs: u32,
    primes: Primes,
) -> i128 {
    let limbs = limbs as usize;
    let mut acc = [0i128; K];
    let mut j = j0;
    while j + (C - 1) * stride < len {
        let av: [[i32; C]; MAX_LIMBS] = from_fn(|t| {
            if t < limbs {
                from_fn(|u| unsafe { *row.add(t * len * len + j + u * stride) })
            } else {
                [0; C]
            }
        });
        for (q, acc) in acc.iter_mut().enumerate() {
            let xv: [i32; C] = from_fn(|u| unsafe { *xs.add(q * ql + j + u * stride) });
            for (t, av) in av.iter().enumerate().take(limbs) {
                let mut s = 0i64;
                for (a, x) in av.iter().zip(xv.iter()) {
                    s += *a as i64 * *x as i64;
                }
                *acc = acc.wrapping_add((s as i128).wrapping_shl(padic::LIMB_BITS * t as u32));
            }
        }
        j += C * stride;
    }
    while j < len {
        for (q, acc) in acc.iter_mut().enumerate() {
            let xv = *xs.add(q * ql + j) as i64;
            for t in 0..limbs {
                let s = *row.add(t * len * len + j) as i64 * xv;
                *acc = acc.wrapping_add((s as i128).wrapping_shl(padic::LIMB_BITS * t as u32));
            }
        }
        j += stride;
    }
    weighted_total(acc, primes)
}

/// `Σ_q w_q·acc_q` modulo `2^128`, the weights `w_q = p_0·…·p_(q−1)` formed on the way.
#[inline(always)]
pub(super) unsafe fn weighted_total<const K: usize>(acc: [i128; K], primes: Primes) -> i128 {
    let (mut total, mut w) = (0u128, 1u128);
    for (q, acc) in acc.iter().enumerate() {
        total = total.wrapping_add((*acc as u128).wrapping_mul(w));
        w = w.wrapping_mul(primes.at(q).m as u128);
    }
    total as i128
}

/// Publishes the digits of entry `(i, c)` at `step` from its residues `d`: the
/// mixed-radix digits into `digits` (and `first` for row 0) and, tagged `step + 1`,
/// into `x` and every peer's.
#[inline(always)]
unsafe fn publish_digits(
    primes: Primes,
    d: [u32; MAX_PRIMES],
    (i, c): (u32, u32),
    (n, l): (u32, u32),
    step: u32,
    (digits, x, first): (*mut u32, *mut u64, *mut u32),
    peers: Peers,
) {
    let xq = primes.mixed_radix(d);
    let (e, nl, k) = ((i * l + c) as usize, (n * l) as usize, primes.k as usize);
    for (q, &v) in xq.iter().enumerate().take(k) {
        let level = step as usize * k + q;
        *digits.add(level * nl + e) = v;
        gpu_store_u64(x.add(q * nl + e), tagged(v, step + 1));
        peers.store(1, q * nl + e, tagged(v, step + 1));
        if i == 0 {
            *first.add(level * l as usize + c as usize) = v;
        }
    }
}

/// `r[i][c] ← (r[i][c] − total) / P` (exact) and its residues published in `y` and
/// every peer's, tagged `step + 2`.
#[inline(always)]
unsafe fn update_residual(
    primes: Primes,
    total: i128,
    (i, c): (u32, u32),
    (n, l): (u32, u32),
    step: u32,
    (r, y): (*mut u64, *mut u64),
    peers: Peers,
) {
    let (e, nl) = ((i * l + c) as usize, (n * l) as usize);
    let at = r.add(2 * e);
    let old = (gpu_load_u64(at) as u128 | ((gpu_load_u64(at.add(1)) as u128) << 64)) as i128;
    let new = padic::update(old, total, primes.p_inv);
    gpu_store_u64(at, new as u64);
    gpu_store_u64(at.add(1), ((new as u128) >> 64) as u64);
    for q in 0..primes.k as usize {
        let v = padic::reduce_i128(new, primes.at(q));
        gpu_store_u64(y.add(q * nl + e), tagged(v, step + 2));
        peers.store(0, q * nl + e, tagged(v, step + 2));
    }
}
