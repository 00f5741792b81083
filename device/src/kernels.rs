//! The kernels. Raw pointers and no panicking paths: a panic would leave an
//! `.extern .func` in the PTX, which fails at load (CI checks for it).

use core::arch::asm;
use core::arch::nvptx::*;
use core::sync::atomic::{AtomicU32, Ordering};
use rns_core::launch::{interpolation_words, MM_A_STRIDE, MM_TILE, MM_TK, NUMBERS_PER_BLOCK};
use rns_core::poly::{divided_difference, newton_shift, resultant_at_point, BiShape, NO_POINT};
use rns_core::{mixed_radix, Modulus};

#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    unsafe { trap() }
}

/// Calls `f(k)` for every index `k = c·len + i` of the channel `c = blockIdx.y`,
/// the numbers spread over the x dimension of the grid with a grid-stride loop.
#[inline(always)]
unsafe fn channel_loop(len: u32, mut f: impl FnMut(usize, usize)) {
    let c = _block_idx_y() as usize;
    let mut i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    let stride = _grid_dim_x() * _block_dim_x();
    while i < len {
        f(c, c * len as usize + i as usize);
        i += stride;
    }
}

macro_rules! elementwise {
    ($name:ident, |$m:ident, $s:ident, $k:ident, $a:ident, $b:ident, $c:ident, $d:ident| $e:expr) => {
        /// Elementwise kernel: `out[k] = op(a[k], b[k], c[k], d[k])` per channel
        /// (unused operands may be null); `s` holds one scalar residue per channel.
        #[no_mangle]
        pub unsafe extern "ptx-kernel" fn $name(
            out: *mut u32,
            $a: *const u32,
            $b: *const u32,
            $c: *const u32,
            $d: *const u32,
            $s: *const u32,
            moduli: *const Modulus,
            len: u32,
        ) {
            channel_loop(len, |ch, $k| {
                let $m = *moduli.add(ch);
                let _ = ($a, $b, $c, $d, $s, ch);
                *out.add($k) = $e;
            });
        }
    };
}

elementwise!(rns_add, |m, s, k, a, b, c, d| m.add(*a.add(k), *b.add(k)));
elementwise!(rns_sub, |m, s, k, a, b, c, d| m.sub(*a.add(k), *b.add(k)));
elementwise!(rns_neg, |m, s, k, a, b, c, d| m.neg(*a.add(k)));
elementwise!(rns_mul, |m, s, k, a, b, c, d| m.mul(*a.add(k), *b.add(k)));
elementwise!(rns_mul_naive, |m, s, k, a, b, c, d| m
    .mul_naive(*a.add(k), *b.add(k)));
elementwise!(rns_mul_add, |m, s, k, a, b, c, d| m.mul_add(
    *a.add(k),
    *b.add(k),
    *c.add(k)
));
elementwise!(rns_mul_sub_mul, |m, s, k, a, b, c, d| m.mul_sub_mul(
    *a.add(k),
    *b.add(k),
    *c.add(k),
    *d.add(k)
));
elementwise!(rns_add_scalar, |m, s, k, a, b, c, d| m
    .add(*a.add(k), *s.add(_block_idx_y() as usize)));
elementwise!(rns_sub_scalar, |m, s, k, a, b, c, d| m
    .sub(*a.add(k), *s.add(_block_idx_y() as usize)));
elementwise!(rns_mul_scalar, |m, s, k, a, b, c, d| m
    .mul(*a.add(k), *s.add(_block_idx_y() as usize)));

/// Throughput probe: four independent chains of `iters` canonical `mul_m` per thread,
/// unrolled by four (as nvcc unrolls the CUDA C reference; `iters` is a multiple of 4).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_mul_chain(
    out: *mut u32,
    a: *const u32,
    moduli: *const Modulus,
    len: u32,
    iters: u32,
) {
    channel_loop(len, |ch, k| {
        let m = *moduli.add(ch);
        let y = *a.add(k);
        let (mut x0, mut x1, mut x2, mut x3) = (y, m.add(y, 1), m.add(y, 2), m.add(y, 3));
        let mut t = 0;
        while t < iters {
            let mut u = 0;
            while u < 4 {
                x0 = m.mul(x0, y);
                x1 = m.mul(x1, y);
                x2 = m.mul(x2, y);
                x3 = m.mul(x3, y);
                u += 1;
            }
            t += 4;
        }
        *out.add(k) = x0 ^ x1 ^ x2 ^ x3;
    });
}

/// Numbers per block (block x) of the batched equality and mixed-radix kernels.
const LANES_X: u32 = NUMBERS_PER_BLOCK;

/// Thread (x, y) of a 32 × Y block: whether number `blockIdx.x·32 + x` agrees in
/// the channels `y, y + Y, …`.
#[inline(always)]
unsafe fn partial_equal(a: *const u32, b: *const u32, len: u32, channels: u32) -> (u32, bool) {
    let i = _block_idx_x() * LANES_X + _thread_idx_x();
    let mut eq = true;
    if i < len {
        let mut c = _thread_idx_y();
        while c < channels {
            let k = c as usize * len as usize + i as usize;
            eq &= *a.add(k) == *b.add(k);
            c += _block_dim_y();
        }
    }
    (i, eq)
}

/// Equality, the seed's reduction: a shared-memory AND tree across the Y lanes.
/// Block 32 × Y (Y a power of two), `32·Y·4` bytes of dynamic shared memory.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_equal_shared(
    out: *mut u32,
    a: *const u32,
    b: *const u32,
    len: u32,
    channels: u32,
) {
    let flags: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let (i, eq) = partial_equal(a, b, len, channels);
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let me = (ty * LANES_X + tx) as usize;
    *flags.add(me) = eq as u32;
    _syncthreads();
    let mut s = _block_dim_y() / 2;
    while s > 0 {
        if ty < s {
            *flags.add(me) &= *flags.add(me + (s * LANES_X) as usize);
        }
        _syncthreads();
        s /= 2;
    }
    if ty == 0 && i < len {
        *out.add(i as usize) = *flags.add(tx as usize);
    }
}

/// `vote.sync.ballot`: bit `l` set when lane `l` passes a non-zero value.
#[inline(always)]
unsafe fn ballot(x: u32) -> u32 {
    let r: u32;
    asm!(
        "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, 0xffffffff; }}",
        x = in(reg32) x,
        r = out(reg32) r,
    );
    r
}

/// Equality with warp votes: each warp (one Y lane, 32 numbers) folds its flags into
/// one ballot word, and the Y words are ANDed through shared memory (`Y·4` bytes).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_equal_vote(
    out: *mut u32,
    a: *const u32,
    b: *const u32,
    len: u32,
    channels: u32,
) {
    let words: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let (i, eq) = partial_equal(a, b, len, channels);
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let mask = ballot(eq as u32);
    if tx == 0 {
        *words.add(ty as usize) = mask;
    }
    _syncthreads();
    if ty == 0 && i < len {
        let mut all = u32::MAX;
        let mut y = 0;
        while y < _block_dim_y() {
            all &= *words.add(y as usize);
            y += 1;
        }
        *out.add(i as usize) = (all >> tx) & 1;
    }
}

/// Mixed-radix digits, the seed's parallel conversion: a block of `X × Y` threads
/// converts `X` numbers (block x; 32 by default, fewer for large bases); step `s` fixes
/// digit `s` and the Y lanes update the channels after it. With `shared` non-zero the
/// residues sit in shared memory (`k·X·4` bytes, `tile[c·X + x]`) and are copied out at
/// the end; otherwise (a basis too large for even one number's tile) the conversion runs
/// in place in `digits`. Digits are written channel-major like the input. `offset` (one
/// residue per channel, or null) is added first: with `(m_c − 1)/2` it maps the signed
/// range monotonically onto `[0, M)`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_mrc_digits(
    digits: *mut u32,
    x: *const u32,
    offset: *const u32,
    moduli: *const Modulus,
    table: *const u32,
    len: u32,
    k: u32,
    shared: u32,
) {
    let (tx, ty, ny, nx) = (
        _thread_idx_x(),
        _thread_idx_y(),
        _block_dim_y(),
        _block_dim_x(),
    );
    let i = _block_idx_x() * nx + tx;
    let live = i < len;
    let (tile, stride, col) = if shared != 0 {
        let t: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
        (t, nx as usize, tx as usize)
    } else {
        (digits, len as usize, i as usize)
    };
    // In place, a thread past the end has no column to work in.
    let active = live || shared != 0;
    let at = |c: u32| c as usize * stride + col;
    let mut c = ty;
    while c < k {
        let mut r = if live {
            *x.add(c as usize * len as usize + i as usize)
        } else {
            0
        };
        if !offset.is_null() {
            r = (*moduli.add(c as usize)).add(r, *offset.add(c as usize));
        }
        if active {
            *tile.add(at(c)) = r;
        }
        c += ny;
    }
    _syncthreads();
    let mut s = 0;
    while s + 1 < k {
        if active {
            let d = *tile.add(at(s));
            let row = table.add(s as usize * k as usize);
            let mut j = s + 1 + ty;
            while j < k {
                let mj = *moduli.add(j as usize);
                *tile.add(at(j)) = mixed_radix::step(mj, *tile.add(at(j)), d, *row.add(j as usize));
                j += ny;
            }
        }
        _syncthreads();
        s += 1;
    }
    if live && shared != 0 {
        let mut c = ty;
        while c < k {
            *digits.add(c as usize * len as usize + i as usize) = *tile.add(at(c));
            c += ny;
        }
    }
}

/// The `k × k` mixed-radix table of `rns_core::mixed_radix::fill_table`, one thread per
/// entry (grid-stride): `table[i·k + j] = inv(m_i) mod m_j` for `i < j`, else 0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_mr_table(table: *mut u32, moduli: *const Modulus, k: u32) {
    let total = k as usize * k as usize;
    let mut e = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while e < total {
        // k > 0 here (e < k²); checked, so that no division-by-zero panic path is compiled.
        let ku = k as usize;
        let (i, j) = (
            e.checked_div(ku).unwrap_or(0),
            e.checked_rem(ku).unwrap_or(0),
        );
        *table.add(e) = if i < j {
            (*moduli.add(j)).inv((*moduli.add(i)).m).unwrap_or(0)
        } else {
            0
        };
        e += stride;
    }
}

/// Compares numbers by their channel-major mixed-radix digits, most significant
/// (last) digit first: `out[i]` is −1, 0 or 1 for `a[i] <, =, > b[i]`. With
/// `b_broadcast` non-zero, `b` holds one number (`k` digits) compared with every `a[i]`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_cmp_digits(
    out: *mut i32,
    a: *const u32,
    b: *const u32,
    b_broadcast: u32,
    len: u32,
    k: u32,
) {
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if i >= len {
        return;
    }
    let mut r = 0i32;
    let mut c = k;
    while c > 0 {
        c -= 1;
        let x = *a.add(c as usize * len as usize + i as usize);
        let y = if b_broadcast != 0 {
            *b.add(c as usize)
        } else {
            *b.add(c as usize * len as usize + i as usize)
        };
        if x != y {
            r = if x > y { 1 } else { -1 };
            break;
        }
    }
    *out.add(i as usize) = r;
}

/// Residues of many non-negative integers given as 32-bit words, word-major
/// (`words[w·len + i]`, least significant word first, all padded to `nwords`),
/// negated where `neg[i]` is non-zero. Grid y = channel.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_reduce_words(
    out: *mut u32,
    words: *const u32,
    neg: *const u32,
    moduli: *const Modulus,
    len: u32,
    nwords: u32,
) {
    channel_loop(len, |ch, k| {
        let m = *moduli.add(ch);
        let i = k - ch * len as usize;
        let mut r = 0u32;
        let mut w = nwords;
        while w > 0 {
            w -= 1;
            r = m.push_word(r, *words.add(w as usize * len as usize + i));
        }
        *out.add(k) = if *neg.add(i) != 0 { m.neg(r) } else { r };
    });
}

/// One pivot step of the elimination kernels, by the whole block: finds the first row
/// `p` of `r..rows` with a non-zero entry in column `k`, swaps rows `p` and `r` from
/// column `from` on, multiplies the running determinant `ctl[1]` by the pivot (negated
/// after a swap) and returns the pivot's inverse; `None`, for every thread, when the
/// column has no pivot. `ctl` is three words of shared memory (pivot row, determinant,
/// inverse). Ends with a barrier.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn pivot_step(
    ctl: *mut u32,
    at: impl Fn(u32, u32) -> *mut u32,
    (r, k, from): (u32, u32, u32),
    (rows, cols): (u32, u32),
    m: Modulus,
    tid: u32,
    nt: u32,
) -> Option<u32> {
    if tid == 0 {
        *ctl = rows;
    }
    _syncthreads();
    let mut i = r + tid;
    while i < rows {
        if *at(i, k) != 0 {
            AtomicU32::from_ptr(ctl).fetch_min(i, Ordering::Relaxed);
        }
        i += nt;
    }
    _syncthreads();
    let p = *ctl;
    if p == rows {
        return None;
    }
    if p != r {
        let mut j = from + tid;
        while j < cols {
            let t = *at(p, j);
            *at(p, j) = *at(r, j);
            *at(r, j) = t;
            j += nt;
        }
    }
    _syncthreads();
    if tid == 0 {
        let pivot = *at(r, k);
        let det = m.mul(*ctl.add(1), pivot);
        *ctl.add(1) = if p != r { m.neg(det) } else { det };
        *ctl.add(2) = m.inv(pivot).unwrap_or(0);
    }
    _syncthreads();
    Some(*ctl.add(2))
}

/// Gaussian elimination modulo channel `blockIdx.x` of the `rows × cols` row-major matrix
/// at `mats[c·rows·cols…]` (overwritten), pivoting on the first `pivot_cols` columns:
/// forward elimination, or Gauss–Jordan to the reduced echelon form when `jordan` is
/// non-zero. The same steps as `rns_core::linalg::eliminate`, one block per channel: the
/// threads find the pivot row together (shared-memory minimum), swap, then each warp
/// updates whole rows, its lanes along the columns (coalesced). Writes the rank to
/// `ranks[c]` and the determinant of the pivot columns (when square) to `dets[c]`.
/// Dynamic shared memory: 16 bytes (pivot row, running determinant, pivot inverse).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_eliminate(
    ranks: *mut u32,
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    rows: u32,
    cols: u32,
    pivot_cols: u32,
    jordan: u32,
) {
    let sh: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let a = mats.add(c * rows as usize * cols as usize);
    let at = |i: u32, j: u32| a.add(i as usize * cols as usize + j as usize);
    let tid = _thread_idx_x();
    let nt = _block_dim_x();
    let (lane, warp, nwarps) = (tid % 32, tid / 32, nt / 32);
    let jordan = jordan != 0;
    if tid == 0 {
        *sh.add(1) = 1; // running determinant
    }
    let (mut r, mut k) = (0u32, 0u32);
    while k < pivot_cols && r < rows {
        let Some(inv) = pivot_step(sh, at, (r, k, k), (rows, cols), m, tid, nt) else {
            k += 1; // no pivot in this column (the same answer for every thread)
            continue;
        };
        if jordan {
            let mut j = k + 1 + tid;
            while j < cols {
                *at(r, j) = m.mul(*at(r, j), inv);
                j += nt;
            }
            _syncthreads();
        }
        // Row i −= f · row r over the columns after k, for the rows below r (and above it
        // for Gauss–Jordan). Column k is only read here, so rows need no barrier between them.
        let mut i = if jordan { warp } else { r + 1 + warp };
        while i < rows {
            if i != r {
                let lead = *at(i, k);
                let f = if jordan { lead } else { m.mul(lead, inv) };
                if f != 0 {
                    let mut j = k + 1 + lane;
                    while j < cols {
                        *at(i, j) = m.sub(*at(i, j), m.mul(*at(r, j), f));
                        j += 32;
                    }
                }
            }
            i += nwarps;
        }
        _syncthreads();
        // Column k: the unit column of a reduced pivot, or zeros below a forward pivot.
        let mut i = tid;
        while i < rows {
            if jordan {
                *at(i, k) = (i == r) as u32;
            } else if i > r {
                *at(i, k) = 0;
            }
            i += nt;
        }
        r += 1;
        k += 1;
    }
    if tid == 0 {
        *ranks.add(c) = r;
        *dets.add(c) = if pivot_cols == rows && r == rows {
            *sh.add(1)
        } else {
            0
        };
    }
}

/// A 16-byte aligned group of four centered residues (one `ld.shared.v4`).
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad([i32; 4]);

/// Products summed between two folds.
const LAZY: usize = rns_core::modulus::LAZY_PRODUCTS;
const _: () = assert!(MM_TK as usize % LAZY == 0);

/// Batched matrix product modulo each channel (`blockIdx.z`): `out = a · b` with `a`
/// `n × k`, `b` `k × p`, row-major, channel `c` at offset `c·n·k` (and `c·k·p`, `c·n·p`).
/// A 16 × 16 block computes a 64 × 64 tile of the product, 4 × 4 entries per thread,
/// from 16-wide k-tiles staged in shared memory as centered residues. Delayed
/// reduction: products are summed in signed 64 bits and folded once every
/// `LAZY_PRODUCTS` (`Modulus::fold`), then reduced once at the end. Dynamic shared memory:
/// `(68 + 64) · 16 · 4` bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_matmul(
    out: *mut u32,
    a: *const u32,
    b: *const u32,
    moduli: *const Modulus,
    n: u32,
    k: u32,
    p: u32,
) {
    let quads: *mut Quad = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Quad>();
    let sa = quads as *mut i32; // sa[kk·68 + row]
    let sb = sa.add((MM_TK * MM_A_STRIDE) as usize); // sb[kk·64 + col]
    let c = _block_idx_z() as usize;
    let m = *moduli.add(c);
    let t = m.fold_factor();
    let (nk, kp, np) = (
        n as usize * k as usize,
        k as usize * p as usize,
        n as usize * p as usize,
    );
    let (a, b, out) = (a.add(c * nk), b.add(c * kp), out.add(c * np));
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let tid = ty * 16 + tx;
    let (row0, col0) = (_block_idx_y() * MM_TILE, _block_idx_x() * MM_TILE);
    let mut acc = [[0i64; 4]; 4];
    let mut k0 = 0;
    while k0 < k {
        // Staged inline rather than through `stage_tiles`: with the closures this kernel
        // needs 104 registers instead of 80.
        let mut q = 0;
        while q < 4 {
            let e = tid + 256 * q;
            let (r, kk) = (e / MM_TK, e % MM_TK);
            let (gi, gk) = (row0 + r, k0 + kk);
            *sa.add((kk * MM_A_STRIDE + r) as usize) = if gi < n && gk < k {
                m.center(*a.add(gi as usize * k as usize + gk as usize))
            } else {
                0
            };
            let (kk, col) = (e / MM_TILE, e % MM_TILE);
            let (gk, gj) = (k0 + kk, col0 + col);
            *sb.add((kk * MM_TILE + col) as usize) = if gk < k && gj < p {
                m.center(*b.add(gk as usize * p as usize + gj as usize))
            } else {
                0
            };
            q += 1;
        }
        _syncthreads();
        tile_products(&mut acc, sa, sb, tx, ty, t);
        _syncthreads();
        k0 += MM_TK;
    }
    for (i, row) in acc.iter().enumerate() {
        let gi = row0 + ty * 4 + i as u32;
        for (j, &s) in row.iter().enumerate() {
            let gj = col0 + tx * 4 + j as u32;
            if gi < n && gj < p {
                *out.add(gi as usize * p as usize + gj as usize) = m.reduce_i64(s);
            }
        }
    }
}

/// Stages one k-tile of a 64 × 64 block product in shared memory (block of 16 × 16
/// threads, `tid = ty·16 + tx`): `sa[kk·68 + r] = a(r, kk)` for the tile's 64 rows and
/// `sb[kk·64 + col] = b(kk, col)` for its 64 columns, `kk < 16`, as centered residues.
#[inline(always)]
unsafe fn stage_tiles(
    sa: *mut i32,
    sb: *mut i32,
    tid: u32,
    a: impl Fn(u32, u32) -> i32,
    b: impl Fn(u32, u32) -> i32,
) {
    let mut q = 0;
    while q < 4 {
        let e = tid + 256 * q;
        let (r, kk) = (e / MM_TK, e % MM_TK);
        *sa.add((kk * MM_A_STRIDE + r) as usize) = a(r, kk);
        let (kk, col) = (e / MM_TILE, e % MM_TILE);
        *sb.add((kk * MM_TILE + col) as usize) = b(kk, col);
        q += 1;
    }
}

/// Adds the 16 products of one staged k-tile to thread `(tx, ty)`'s 4 × 4 accumulators
/// (rows `ty·4 …`, columns `tx·4 …` of the tile), folding every `LAZY_PRODUCTS`
/// (`t = fold_factor()`): afterwards each accumulator is below `2^61 + 2^32`.
#[inline(always)]
unsafe fn tile_products(
    acc: &mut [[i64; 4]; 4],
    sa: *const i32,
    sb: *const i32,
    tx: u32,
    ty: u32,
    t: i32,
) {
    let mut kk = 0;
    while kk < MM_TK {
        // LAZY steps of 16 products each, then one fold: fully unrolled, so that the
        // accumulators stay in registers.
        #[allow(clippy::needless_range_loop)]
        for u in 0..LAZY as u32 {
            let av = *(sa.add(((kk + u) * MM_A_STRIDE + ty * 4) as usize) as *const Quad);
            let bv = *(sb.add(((kk + u) * MM_TILE + tx * 4) as usize) as *const Quad);
            for i in 0..4 {
                for j in 0..4 {
                    acc[i][j] += av.0[i] as i64 * bv.0[j] as i64;
                }
            }
        }
        for row in acc.iter_mut() {
            for s in row.iter_mut() {
                *s = Modulus::fold(*s, t);
            }
        }
        kk += LAZY as u32;
    }
}

/// Determinant modulo channel `c` (one block of 16 × 16 threads per channel) of the
/// `n × n` matrix at `mats + c·n²` (overwritten): blocked LU with the same pivot rule as
/// [`rns_core::linalg::eliminate`] (the first non-zero entry at or below the diagonal).
/// Per panel of 16 columns: the panel is factored in place (multipliers below the
/// diagonal; only the panel's columns are updated), the 16 rows to its right are solved
/// by the panel's unit lower triangle, and the trailing matrix is updated by
/// `rns_matmul`'s tiles with delayed reduction, so that it streams once per 16 pivots
/// instead of once per pivot. Dynamic shared memory: `(68 + 64) · 16 · 4 + 16` bytes.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_det_blocked(
    dets: *mut u32,
    mats: *mut u32,
    moduli: *const Modulus,
    n: u32,
) {
    let quads: *mut Quad = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<Quad>();
    let sa = quads as *mut i32;
    let sb = sa.add((MM_TK * MM_A_STRIDE) as usize);
    let ctl = sb.add((MM_TK * MM_TILE) as usize) as *mut u32; // pivot row, det, pivot⁻¹
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let t = m.fold_factor();
    let a = mats.add(c * n as usize * n as usize);
    let at = |i: u32, j: u32| a.add(i as usize * n as usize + j as usize);
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (tid, nt) = (ty * 16 + tx, 256);
    if tid == 0 {
        *ctl.add(1) = 1;
    }
    let mut k0 = 0;
    while k0 < n {
        let k1 = if n - k0 < MM_TK { n } else { k0 + MM_TK };
        // The panel: columns k0..k1, every row from the diagonal down.
        let mut k = k0;
        while k < k1 {
            // Columns before the panel are never read again: swaps start at k0.
            let Some(inv) = pivot_step(ctl, at, (k, k, k0), (n, n), m, tid, nt) else {
                if tid == 0 {
                    *dets.add(c) = 0; // singular modulo this prime (the same for every thread)
                }
                return;
            };
            let mut i = k + 1 + tid;
            while i < n {
                let l = m.mul(*at(i, k), inv);
                *at(i, k) = l;
                if l != 0 {
                    let mut j = k + 1;
                    while j < k1 {
                        *at(i, j) = m.sub(*at(i, j), m.mul(l, *at(k, j)));
                        j += 1;
                    }
                }
                i += nt;
            }
            _syncthreads();
            k += 1;
        }
        // The panel's rows right of it: U12 = L11⁻¹ · A12, one column per thread.
        let mut j = k1 + tid;
        while j < n {
            let mut r = k0 + 1;
            while r < k1 {
                let mut s = *at(r, j);
                let mut q = k0;
                while q < r {
                    s = m.sub(s, m.mul(*at(r, q), *at(q, j)));
                    q += 1;
                }
                *at(r, j) = s;
                r += 1;
            }
            j += nt;
        }
        _syncthreads();
        // The trailing matrix: A22 −= L21 · U12 in 64 × 64 tiles (inner dimension ≤ 16).
        let mut tile = (k1, k1);
        while tile.0 < n {
            let (row0, col0) = tile;
            stage_tiles(
                sa,
                sb,
                tid,
                |r, kk| {
                    let (gi, gk) = (row0 + r, k0 + kk);
                    if gi < n && gk < k1 {
                        m.center(*at(gi, gk))
                    } else {
                        0
                    }
                },
                |kk, col| {
                    let (gk, gj) = (k0 + kk, col0 + col);
                    if gk < k1 && gj < n {
                        m.center(*at(gk, gj))
                    } else {
                        0
                    }
                },
            );
            _syncthreads();
            let mut acc = [[0i64; 4]; 4];
            tile_products(&mut acc, sa, sb, tx, ty, t);
            for (i, row) in acc.iter().enumerate() {
                let gi = row0 + ty * 4 + i as u32;
                for (j, &s) in row.iter().enumerate() {
                    let gj = col0 + tx * 4 + j as u32;
                    if gi < n && gj < n {
                        *at(gi, gj) = m.sub(*at(gi, gj), m.reduce_i64(s));
                    }
                }
            }
            _syncthreads();
            tile.1 += MM_TILE;
            if tile.1 >= n {
                tile = (tile.0 + MM_TILE, k1);
            }
        }
        k0 = k1;
    }
    if tid == 0 {
        *dets.add(c) = *ctl.add(1);
    }
}

/// Resultant modulo channel `c` (one thread per channel) of `f` (degree `df`) and `g`
/// (degree `dg`), whose coefficients are interleaved across channels: coefficient `j`
/// of `f` at `data[j·channels + c]`, of `g` at `data[(df + 1 + j)·channels + c]`
/// (overwritten). Leading coefficients must be non-zero modulo every channel.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_resultant(
    out: *mut u32,
    data: *mut u32,
    moduli: *const Modulus,
    channels: u32,
    df: u32,
    dg: u32,
) {
    let c = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if c >= channels {
        return;
    }
    let s = channels as usize;
    let f = data.add(c as usize);
    let g = data.add((df as usize + 1) * s + c as usize);
    *out.add(c as usize) = rns_core::linalg::resultant_strided(
        f,
        g,
        df as usize,
        dg as usize,
        s,
        *moduli.add(c as usize),
    );
}

/// Collins' step for every (channel, point): thread `(c, i)` (`c = blockIdx.y`, `i` over
/// the x dimension) writes `res_y(f(i, y), g(i, y)) mod m_c` to `vals[c·points + i]`, or
/// `NO_POINT` where a leading coefficient in `y` vanishes at `x = i`
/// ([`rns_core::poly::resultant_at_point`]). `coeffs` holds the dense pair of shape
/// `(fy, fx, gy, gx)` per channel; `work` gives each thread `fy + gy + 2` words,
/// interleaved across the grid's threads so that they are read coalesced.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_resultant_points(
    vals: *mut u32,
    work: *mut u32,
    coeffs: *const u32,
    moduli: *const Modulus,
    fy: u32,
    fx: u32,
    gy: u32,
    gx: u32,
    points: u32,
) {
    let c = _block_idx_y() as usize;
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if i >= points {
        return;
    }
    let s = BiShape { fy, fx, gy, gx };
    let total = _grid_dim_y() as usize * points as usize;
    let t = c * points as usize + i as usize;
    let r = resultant_at_point(
        coeffs.add(c * s.len()),
        s,
        i,
        work.add(t),
        total,
        *moduli.add(c),
    );
    *vals.add(t) = r.unwrap_or(NO_POINT);
}

/// Interpolation, one block per channel `c`: the first `n` points `x = i` whose value
/// `vals[c·points + i]` is not `NO_POINT` give the `n` coefficients `out[c·n + j]`
/// (constant first) of the polynomial of degree below `n` through them: the steps of
/// [`rns_core::poly::interpolate`], each level's divided differences (then each Newton
/// step) spread over the threads, between two buffers. Scratch per channel: `3n + points
/// + 1` words, in dynamic shared memory when `shared` is set, else at
/// `scratch + c·(3n + points + 1)`. With fewer than `n` points, `out[c·n] = NO_POINT`.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_interpolate(
    out: *mut u32,
    vals: *const u32,
    scratch: *mut u32,
    moduli: *const Modulus,
    points: u32,
    n: u32,
    shared: u32,
) {
    let c = _block_idx_x() as usize;
    let m = *moduli.add(c);
    let (nu, pu) = (n as usize, points as usize);
    let base = if shared != 0 {
        core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>()
    } else {
        scratch.add(c * interpolation_words(nu, pu))
    };
    let (xs, mut src, mut dst, inv) = (base, base.add(nu), base.add(2 * nu), base.add(3 * nu));
    let found = inv.add(pu);
    let (tid, nt) = (_thread_idx_x(), _block_dim_x());
    let mut g = tid;
    while g < points {
        *inv.add(g as usize) = m.inv(g).unwrap_or(0);
        g += nt;
    }
    if tid < 32 {
        // Warp 0 keeps the first n good points in order: a ballot per 32 candidates.
        let lane = tid;
        let (mut count, mut i0) = (0u32, 0u32);
        while i0 < points && count < n {
            let i = i0 + lane;
            let v = if i < points {
                *vals.add(c * pu + i as usize)
            } else {
                NO_POINT
            };
            let mask = ballot((v != NO_POINT) as u32);
            let pos = count + (mask & ((1u32 << lane) - 1)).count_ones();
            if v != NO_POINT && pos < n {
                *xs.add(pos as usize) = i;
                *src.add(pos as usize) = v;
            }
            count += mask.count_ones();
            i0 += 32;
        }
        if lane == 0 {
            *found = count;
        }
    }
    _syncthreads();
    if *found < n {
        if tid == 0 {
            *out.add(c * nu) = NO_POINT;
        }
        return;
    }
    // Divided differences: level k writes entries k − 1 (a copy, already final) to n − 1.
    let mut k = 1;
    while k < n {
        let mut i = k - 1 + tid;
        while i < n {
            let iu = i as usize;
            *dst.add(iu) = if i == k - 1 {
                *src.add(iu)
            } else {
                let gap = (*xs.add(iu)).wrapping_sub(*xs.add(iu - k as usize));
                divided_difference(*src.add(iu), *src.add(iu - 1), *inv.add(gap as usize), m)
            };
            i += nt;
        }
        _syncthreads();
        core::mem::swap(&mut src, &mut dst);
        k += 1;
    }
    // Newton form to monomials: both buffers start with every coefficient c_j.
    let mut j = tid;
    while j < n {
        *dst.add(j as usize) = *src.add(j as usize);
        j += nt;
    }
    _syncthreads();
    let mut k = n - 1;
    while k > 0 {
        k -= 1;
        let xk = *xs.add(k as usize);
        let mut j = k + tid;
        while j < n {
            let ju = j as usize;
            let above = if j + 1 < n { *src.add(ju + 1) } else { 0 };
            *dst.add(ju) = newton_shift(*src.add(ju), above, xk, m);
            j += nt;
        }
        _syncthreads();
        core::mem::swap(&mut src, &mut dst);
    }
    let mut j = tid;
    while j < n {
        *out.add(c * nu + j as usize) = *src.add(j as usize);
        j += nt;
    }
}
