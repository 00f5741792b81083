//! Kernels on residue vectors: elementwise arithmetic, the `mul_m` and mul-add probes, equality,
//! mixed-radix conversion (and its table), digit comparison, sign and comparison by
//! interval evaluation (and its table), reduction of integers.

use super::{ballot, channel_loop};
use core::arch::nvptx::*;
use rns_core::launch::NUMBERS_PER_BLOCK;
use rns_core::{crt, interval, mixed_radix, Modulus};

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
/// converts `X` numbers (block x; 32 by default, fewer for large bases); the Y lanes of a
/// number update its channels after the digits fixed so far. With `shared` non-zero the
/// residues sit in shared memory (`k·X·4` bytes, `tile[c·X + x]`) and are copied out at
/// the end; otherwise (a basis too large for even one number's tile) the conversion runs
/// in place in `digits`. Digits are written channel-major like the input. `offset` (one
/// residue per channel, or null) is added first: with `(m_c − 1)/2` it maps the signed
/// range monotonically onto `[0, M)`. With `pending` non-null, only the numbers whose
/// entry is `interval::AMBIGUOUS` are converted, and a block with none of them returns at
/// once (the dynamic shared memory then ends with one word for that vote).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_mrc_digits(
    digits: *mut u32,
    x: *const u32,
    offset: *const u32,
    moduli: *const Modulus,
    table: *const u32,
    pending: *const u32,
    len: u32,
    k: u32,
    shared: u32,
) {
    let (tx, nx) = (_thread_idx_x(), _block_dim_x());
    let i = _block_idx_x() * nx + tx;
    let live = i < len && (pending.is_null() || *pending.add(i as usize) == interval::AMBIGUOUS);
    let dynamic: *mut u32 = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    if !pending.is_null() {
        // The block's vote: does any of its numbers need the exact path?
        let any = dynamic.add(if shared != 0 { (k * nx) as usize } else { 0 });
        if tx == 0 && _thread_idx_y() == 0 {
            *any = 0;
        }
        _syncthreads();
        if live {
            *any = 1;
        }
        _syncthreads();
        if *any == 0 {
            return;
        }
    }
    let ins = MrcInputs {
        x,
        offset,
        moduli,
        table,
        len,
        k,
    };
    // Two calls, so that the shared tile's accesses compile to shared-memory ones.
    if shared != 0 {
        mrc_convert(ins, dynamic, (nx as usize, tx as usize), live, true);
        if live {
            let mut c = _thread_idx_y();
            while c < k {
                let at = c as usize * len as usize + i as usize;
                *digits.add(at) = *dynamic.add((c * nx + tx) as usize);
                c += _block_dim_y();
            }
        }
    } else {
        // In place, a thread past the end has no column to work in.
        mrc_convert(ins, digits, (len as usize, i as usize), live, live);
    }
}

/// The inputs of [`rns_mrc_digits`].
#[derive(Clone, Copy)]
struct MrcInputs {
    x: *const u32,
    offset: *const u32,
    moduli: *const Modulus,
    table: *const u32,
    len: u32,
    k: u32,
}

/// Digits a pass of [`mrc_convert`]: one barrier for this many.
const MRC_GROUP: usize = 4;

/// Number `col`'s conversion in `tile` (channel `c` at `c·stride + col`) by lane
/// `threadIdx.y` of `blockDim.y`: its residues staged (offset added), then the digits in
/// passes of `MRC_GROUP` and one barrier each. In a pass every lane of the number finds
/// the group's digits itself from the group's residues, which no lane writes during the
/// pass; it applies the group's steps to its channels after the group, and writes the
/// previous group's digits that it owns (channel `c` is lane `c mod Y`'s), which no lane
/// reads any more. The last `k mod MRC_GROUP` digits take a pass each, as the seed's
/// conversion (a digit is final in the tile when its pass begins). Ends with a barrier.
#[inline(always)]
unsafe fn mrc_convert(
    ins: MrcInputs,
    tile: *mut u32,
    (stride, col): (usize, usize),
    live: bool,
    active: bool,
) {
    let (ty, ny, k) = (_thread_idx_y(), _block_dim_y(), ins.k);
    let slot = |c: u32| tile.add(c as usize * stride + col);
    let mut c = ty;
    while c < k {
        let mut r = if live {
            *ins.x.add(
                c as usize * ins.len as usize
                    + (_block_idx_x() * _block_dim_x()) as usize
                    + _thread_idx_x() as usize,
            )
        } else {
            0
        };
        if !ins.offset.is_null() {
            r = (*ins.moduli.add(c as usize)).add(r, *ins.offset.add(c as usize));
        }
        if active {
            *slot(c) = r;
        }
        c += ny;
    }
    _syncthreads();
    let row = |s: u32| ins.table.add(s as usize * k as usize);
    let (mut s, mut prev) = (0u32, [0u32; MRC_GROUP]);
    while s + MRC_GROUP as u32 <= k {
        if active {
            // The group's digits: d_{s+t} from its residue by the steps s .. s + t.
            let mut d = [0u32; MRC_GROUP];
            let mut t = 0;
            while t < MRC_GROUP {
                let c = s + t as u32;
                let mc = *ins.moduli.add(c as usize);
                let mut v = *slot(c);
                let mut u = 0;
                while u < t {
                    v = mixed_radix::step(mc, v, d[u], *row(s + u as u32).add(c as usize));
                    u += 1;
                }
                d[t] = v;
                t += 1;
            }
            let rows: [*const u32; MRC_GROUP] = core::array::from_fn(|u| row(s + u as u32));
            let mut j = s + MRC_GROUP as u32 + ty;
            while j < k {
                let mj = *ins.moduli.add(j as usize);
                let p = slot(j);
                let mut v = *p;
                let mut u = 0;
                while u < MRC_GROUP {
                    v = mixed_radix::step(mj, v, d[u], *rows[u].add(j as usize));
                    u += 1;
                }
                *p = v;
                j += ny;
            }
            if s > 0 {
                write_owned(&slot, &prev, s - MRC_GROUP as u32, ty, ny);
            }
            prev = d;
        }
        _syncthreads();
        s += MRC_GROUP as u32;
    }
    if active && s > 0 {
        write_owned(&slot, &prev, s - MRC_GROUP as u32, ty, ny);
    }
    while s + 1 < k {
        if active {
            let d = *slot(s);
            let r = row(s);
            let mut j = s + 1 + ty;
            while j < k {
                let mj = *ins.moduli.add(j as usize);
                let p = slot(j);
                *p = mixed_radix::step(mj, *p, d, *r.add(j as usize));
                j += ny;
            }
        }
        _syncthreads();
        s += 1;
    }
    _syncthreads();
}

/// Writes the digits `d` of channels `from ..` that lane `ty` of `ny` owns (channel `c`
/// is lane `c mod ny`'s) at `slot(c)`.
#[inline(always)]
unsafe fn write_owned(
    slot: &impl Fn(u32) -> *mut u32,
    d: &[u32; MRC_GROUP],
    from: u32,
    ty: u32,
    ny: u32,
) {
    let mut t = 0;
    while t < MRC_GROUP {
        let c = from + t as u32;
        if c % ny == ty {
            *slot(c) = d[t];
        }
        t += 1;
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
/// With `pending_only` non-zero, only entries of `out` that are `interval::AMBIGUOUS`
/// are computed (the others are already decided).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_cmp_digits(
    out: *mut i32,
    a: *const u32,
    b: *const u32,
    b_broadcast: u32,
    pending_only: u32,
    len: u32,
    k: u32,
) {
    let i = _block_idx_x() * _block_dim_x() + _thread_idx_x();
    if i >= len || (pending_only != 0 && *out.add(i as usize) as u32 != interval::AMBIGUOUS) {
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

/// Sign or comparison by interval evaluation (`rns_core::interval`), one thread per
/// number (grid-stride): `out[i]` is `LESS`, `EQUAL`, `GREATER` or `AMBIGUOUS` for `a[i]`
/// against `b[i]`, or against 0 when `b` is null, over the `k` range channels
/// (channel-major, reads coalesced). Per channel: the modulus, the CRT cofactor inverse
/// `coef`, the residue `half` of `H`, the fixed-point `weights` and `zero_terms`, the
/// term of 0 (the constant side of a sign, added instead of recomputed).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_interval_cmp(
    out: *mut u32,
    a: *const u32,
    b: *const u32,
    moduli: *const Modulus,
    coef: *const u32,
    half: *const u32,
    weights: *const u64,
    zero_terms: *const u64,
    slack: u64,
    len: u32,
    k: u32,
) {
    let mut i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while i < len as usize {
        let (mut sa, mut sb, mut equal) = (0u64, 0u64, true);
        let table = |c: usize| (*moduli.add(c), *half.add(c), *coef.add(c), *weights.add(c));
        let at = |c: usize| c * len as usize + i;
        // Two loops, so that neither branches on `b` per channel.
        if b.is_null() {
            for c in 0..k as usize {
                let ((m, h, cf, w), ra) = (table(c), *a.add(at(c)));
                equal &= ra == 0;
                sa = sa.wrapping_add(interval::term(m, ra, h, cf, w));
                sb = sb.wrapping_add(*zero_terms.add(c));
            }
        } else {
            for c in 0..k as usize {
                let ((m, h, cf, w), ra, rb) = (table(c), *a.add(at(c)), *b.add(at(c)));
                equal &= ra == rb;
                sa = sa.wrapping_add(interval::term(m, ra, h, cf, w));
                sb = sb.wrapping_add(interval::term(m, rb, h, cf, w));
            }
        }
        *out.add(i) = interval::decide(sa, sb, equal, slack);
        i += stride;
    }
}

/// The per-channel tables of `rns_interval_cmp`, one thread per channel (grid-stride):
/// `coef[i] = inv(M/m_i) mod m_i` (0 if the moduli are not distinct primes),
/// `weights[i] = ⌊2^64/m_i⌋` and `zero_terms[i]`, the term of the residue 0.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_interval_table(
    coef: *mut u32,
    weights: *mut u64,
    zero_terms: *mut u64,
    moduli: *const Modulus,
    k: u32,
) {
    let mut i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    let all = core::slice::from_raw_parts(moduli, k as usize);
    while i < k as usize {
        let m = *moduli.add(i);
        let (c, w) = (
            crt::cofactor_inverse(all, i).unwrap_or(0),
            interval::weight(m),
        );
        *coef.add(i) = c;
        *weights.add(i) = w;
        *zero_terms.add(i) = interval::term(m, 0, (m.m - 1) / 2, c, w);
        i += stride;
    }
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

/// `dst = srcᵀ` for a `rows × cols` row-major matrix of words (`dst` is `cols × rows`):
/// channel-major data to number-major. A block of 32 × 8 threads per 32 × 32 tile
/// (`blockIdx.x` along the columns, `blockIdx.y` along the rows, looping over the row
/// tiles beyond the grid's y limit), staged in shared memory (dynamic, `32 × 33` words:
/// no bank conflicts either way).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_transpose(
    dst: *mut u32,
    src: *const u32,
    rows: u32,
    cols: u32,
) {
    let tile = core::intrinsics::gpu::gpu_launch_sized_workgroup_mem::<u32>();
    let bx = _block_idx_x() * 32;
    let (tx, ty) = (_thread_idx_x(), _thread_idx_y());
    let (rows_u, cols_u) = (rows as usize, cols as usize);
    let mut by = _block_idx_y() as usize * 32;
    while by < rows_u {
        let mut j = ty;
        while j < 32 {
            let (r, c) = (by + j as usize, bx + tx);
            if r < rows_u && c < cols {
                *tile.add((j * 33 + tx) as usize) = *src.add(r * cols_u + c as usize);
            }
            j += 8;
        }
        _syncthreads();
        let mut j = ty;
        while j < 32 {
            // Row bx + j of dst is column bx + j of src.
            let (r, c) = (bx + j, by + tx as usize);
            if r < cols && c < rows_u {
                *dst.add(r as usize * rows_u + c) = *tile.add((tx * 33 + j) as usize);
            }
            j += 8;
        }
        // The tile is read before the next row tile overwrites it.
        _syncthreads();
        by += _grid_dim_y() as usize * 32;
    }
}

/// `dst[e] = src[(e / w)·cols + from + e mod w]` for `e < len`, `w = cols − from`: the
/// columns `from..` of a stack of rows (a solve's right-hand sides after Gauss–Jordan).
/// Grid-stride.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_gather_columns(
    dst: *mut u32,
    src: *const u32,
    len: u64,
    cols: u64,
    from: u64,
) {
    let w = cols - from;
    if w == 0 {
        return;
    }
    let mut e = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as u64;
    let stride = (_grid_dim_x() * _block_dim_x()) as u64;
    while e < len {
        *dst.add(e as usize) = *src.add(((e / w) * cols + from + e % w) as usize);
        e += stride;
    }
}

/// `dst[(e / w)·cols + from + e mod w] = src[e]` for `e < len` (the inverse of
/// [`rns_gather_columns`]: a stack of rows `w` wide placed in columns `from..from + w`
/// of rows `cols` wide), or with `identity` non-zero the identity's entries (1 where
/// `e / w = e mod w`, else 0; `src` is not read). Grid-stride.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_place_columns(
    dst: *mut u32,
    src: *const u32,
    len: u64,
    cols: u64,
    from: u64,
    w: u64,
    identity: u32,
) {
    if w == 0 {
        return;
    }
    let mut e = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as u64;
    let stride = (_grid_dim_x() * _block_dim_x()) as u64;
    while e < len {
        let (r, j) = (e / w, e % w);
        let x = match identity {
            0 => *src.add(e as usize),
            _ => (r == j) as u32,
        };
        *dst.add((r * cols + from + j) as usize) = x;
        e += stride;
    }
}
