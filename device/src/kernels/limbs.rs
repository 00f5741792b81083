//! Binary limbs of signed numbers from their mixed-radix digits (`rns_core::limbs`),
//! with the redundant channel's check: what the host needs to build its integers with
//! one copy each.

use core::arch::nvptx::*;
use rns_core::limbs::{self, Limbs, NEGATIVE, OUT_OF_RANGE};
use rns_core::Modulus;

/// One number's limbs: a column of a limb-major array, limb `j` at `base[j·len]`.
struct Column {
    base: *mut u32,
    len: usize,
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
    let mut i = (_block_idx_x() * _block_dim_x() + _thread_idx_x()) as usize;
    let stride = (_grid_dim_x() * _block_dim_x()) as usize;
    while i < len_u {
        let digit = |c: usize| *digits.add(c * len_u + i);
        let modulus = |c: usize| *moduli.add(c);
        let mut column = Column {
            base: out.add(i),
            len: len_u,
        };
        let negative = limbs::signed_limbs(
            k_u,
            digit,
            modulus,
            |c| *half.add(c),
            &mut column,
            nlimbs as usize,
        );
        let mut r = limbs::residue_of_digits(k_u, digit, modulus, q);
        if negative {
            r = q.sub(r, m_mod_q);
        }
        *flags.add(i) = if r != *flags.add(i) {
            OUT_OF_RANGE
        } else if negative {
            NEGATIVE
        } else {
            0
        };
        i += stride;
    }
}
