//! Numbers out of their mixed-radix digits, with the redundant channel's check: signed
//! binary limbs (`rns_core::limbs`), what the host needs to build its integers with one
//! copy each; or their decimal text (`rns_core::decimal`), chunks of nine digits and
//! then the bytes, so that large results never become integers on the host. And the way
//! in: decimal text read straight into binary words (`rns_decimal_words`). And sums of
//! limbs carried into binary words (`rns_carry_terms`).

use super::number_loop;
use core::sync::atomic::{AtomicU32, Ordering};
use rns_core::decimal::{self, Decimal};
use rns_core::limbs::{self, Limbs, NEGATIVE, OUT_OF_RANGE};
use rns_core::Modulus;

/// One number's limbs: a column of a limb-major array, limb `j` at `base[j·len]`.
struct Column {
    base: *mut u32,
    len: usize,
}

impl Column {
    /// Number `i`'s column of a limb-major array of `len` numbers.
    #[inline(always)]
    unsafe fn at(base: *mut u32, i: usize, len: usize) -> Column {
        Column {
            base: base.add(i),
            len,
        }
    }
}

impl Limbs for Column {
    #[inline(always)]
    fn get(&self, j: usize) -> u32 {
        unsafe { *self.base.add(j * self.len) }
    }
    #[inline(always)]
    fn set(&mut self, j: usize, v: u32) {
        unsafe { *self.base.add(j * self.len) = v }
    }
}

/// One thread per number (grid-stride) of `len` numbers given by their `k` mixed-radix
/// digits over `moduli` (channel-major, `digits[c·len + i]`; `half` the digits of
/// `(M − 1)/2`): writes `|v|` as `nlimbs` limbs, limb-major (`out[j·len + i]`, reads
/// and writes coalesced). `flags[i]` holds the number's residue modulo `q = *redundant`
/// on entry, and then `NEGATIVE` or 0, or `OUT_OF_RANGE` when that residue is not
/// `v mod q` (`m_mod_q = M mod q`).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_digits_limbs(
    out: *mut u32,
    flags: *mut u32,
    digits: *const u32,
    moduli: *const Modulus,
    half: *const u32,
    redundant: *const Modulus,
    m_mod_q: u32,
    len: u32,
    k: u32,
    nlimbs: u32,
) {
    let (len_u, k_u) = (len as usize, k as usize);
    let q = *redundant;
    number_loop(len_u, |i| {
        let digit = |c: usize| *digits.add(c * len_u + i);
        let modulus = |c: usize| *moduli.add(c);
        let mut column = Column::at(out, i, len_u);
        let half = |c| *half.add(c);
        let negative = limbs::signed_limbs(k_u, digit, modulus, half, &mut column, nlimbs as usize);
        *flags.add(i) = flag(k_u, digit, modulus, (q, m_mod_q), negative, *flags.add(i));
    });
}

/// The flag of a number with these digits (`NEGATIVE`, 0, or `OUT_OF_RANGE` when its
/// residue modulo `q` is not `redundant`; `m_mod_q = M mod q`).
#[inline(always)]
fn flag(
    k: usize,
    digit: impl Fn(usize) -> u32,
    modulus: impl Fn(usize) -> Modulus,
    (q, m_mod_q): (Modulus, u32),
    negative: bool,
    redundant: u32,
) -> u32 {
    let mut r = limbs::residue_of_digits(k, digit, modulus, q);
    if negative {
        r = q.sub(r, m_mod_q);
    }
    if r != redundant {
        OUT_OF_RANGE
    } else if negative {
        NEGATIVE
    } else {
        0
    }
}

/// As `rns_digits_limbs`, in base `10^9`: writes `|v|`'s chunks of nine decimal digits
/// limb-major (`chunks[j·len + i]`, `j < nchunks`; chunk 0 is 0 for zero), the flag, and
/// the bytes of its text (`lens[i]`, sign included).
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "ptx-kernel" fn rns_digits_decimal(
    chunks: *mut u32,
    lens: *mut u32,
    flags: *mut u32,
    digits: *const u32,
    moduli: *const Modulus,
    half: *const u32,
    redundant: *const Modulus,
    m_mod_q: u32,
    len: u32,
    k: u32,
    nchunks: u32,
) {
    let (len_u, k_u) = (len as usize, k as usize);
    let q = *redundant;
    number_loop(len_u, |i| {
        let digit = |c: usize| *digits.add(c * len_u + i);
        let modulus = |c: usize| *moduli.add(c);
        let mut column = Column::at(chunks, i, len_u);
        let half = |c| *half.add(c);
        let n = nchunks as usize;
        let (negative, used) =
            limbs::signed_magnitude::<Decimal, _>(k_u, digit, modulus, half, &mut column, n);
        let top = if used == 0 {
            column.set(0, 0);
            0
        } else {
            column.get(used - 1)
        };
        *lens.add(i) = decimal::text_len(negative, used, top) as u32;
        *flags.add(i) = flag(k_u, digit, modulus, (q, m_mod_q), negative, *flags.add(i));
    });
}

/// The text of `len` numbers from `rns_digits_decimal`'s chunks, lengths and flags: one
/// thread per chunk (number-major, so that a warp writes a number's bytes side by side).
/// Number `i` goes at byte `offsets[i]` of `text`, followed by a space, or a newline after
/// every `cols`-th number.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_decimal_text(
    text: *mut u8,
    chunks: *const u32,
    lens: *const u32,
    flags: *const u32,
    offsets: *const u64,
    len: u32,
    nchunks: u32,
    cols: u32,
) {
    let (len_u, nc, cols) = (len as usize, nchunks as usize, cols as usize);
    if nc == 0 || cols == 0 {
        return;
    }
    number_loop(len_u * nc, |t| {
        let (i, j) = (t / nc, t % nc);
        let negative = *flags.add(i) == NEGATIVE;
        let n = *lens.add(i) as usize;
        let used = decimal::chunks_of(negative, n);
        if j < used {
            let at = text.add(*offsets.add(i) as usize);
            let (first, width) = decimal::chunk_place(negative, n, j);
            decimal::write_digits(*chunks.add(j * len_u + i), width, |b, d| {
                *at.add(first + b) = d
            });
            if j == 0 {
                *at.add(n) = if (i + 1) % cols == 0 { b'\n' } else { b' ' };
            }
            if negative && j + 1 == used {
                *at = b'-';
            }
        }
    });
}

/// One thread per number (grid-stride) of `len` decimal numbers in `text`, number `i`
/// given by `spans[3i..3i + 3]`: its first digit's byte (two words, a `u64`), then its
/// digits with the sign in the top bit. Writes `|v|` as `nwords` words, word-major
/// (`words[j·len + i]`, zero-padded: as `rns_reduce_words` reads them), its sign flag
/// (`neg[i]`), and raises `*bits` to the most bits of any magnitude.
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_decimal_words(
    words: *mut u32,
    neg: *mut u32,
    bits: *mut u32,
    text: *const u8,
    spans: *const u32,
    len: u32,
    nwords: u32,
) {
    let (len_u, n) = (len as usize, nwords as usize);
    let mut most = 0;
    number_loop(len_u, |i| {
        let s = spans.add(3 * i);
        let at = *s as usize | (*s.add(1) as usize) << 32;
        let nd = (*s.add(2) & 0x7fff_ffff) as usize;
        let digits = text.add(at);
        let mut column = Column::at(words, i, len_u);
        let (mut used, b) = decimal::words_of_digits(nd, |d| *digits.add(d), &mut column, n);
        while used < n {
            column.set(used, 0);
            used += 1;
        }
        *neg.add(i) = *s.add(2) >> 31;
        most = most.max(b);
    });
    AtomicU32::from_ptr(bits).fetch_max(most, Ordering::Relaxed);
}

/// One thread per number (grid-stride) of `len` numbers, number `i` the sum
/// `Σ_w c_w·2^(32w)` of `words` terms given as `nlimbs ≤ 4` 32-bit limbs, limb-major
/// over the `words × len` terms (limb `j` of term `w` of number `i` at
/// `terms[j·words·len + w·len + i]`): writes the sum's `words + tail` binary words,
/// least significant first, word-major (`out[w·len + i]`; reads and writes coalesced).
/// The words past `words + tail` are to be zero (the caller's bound).
#[no_mangle]
pub unsafe extern "ptx-kernel" fn rns_carry_terms(
    out: *mut u32,
    terms: *const u32,
    len: u32,
    words: u32,
    nlimbs: u32,
    tail: u32,
) {
    let (len_u, words_u) = (len as usize, words as usize);
    let plane = words_u * len_u;
    let shape = (words_u, nlimbs as usize, tail as usize);
    number_loop(len_u, |i| {
        let term = |w: usize, j: usize| *terms.add(j * plane + w * len_u + i);
        limbs::carry_terms(shape, term, |w, v| *out.add(w * len_u + i) = v);
    });
}
