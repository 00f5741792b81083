//! [`RnsVec`]: many integers held as residues, stored channel-major.

use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::num::crt::{self, CrtMethod};
use crate::num::layout;
use crate::num::multimod::{signed, RemainderTree, TREE_MIN_CHANNELS, TREE_MIN_LIMBS};
use crate::num::multimod_table::{PowerTable, TABLE_MIN_VALUES};
use crate::num::words::{Words, WordsRef};
use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;
use std::sync::Arc;

/// `len` signed integers of one basis, as residues. Channel-major: the residues of
/// all numbers modulo channel 0, then modulo channel 1, … (`data[c·len + i]`), so
/// that consecutive GPU threads read consecutive words.
///
/// ```
/// use rns::{RnsBasis, RnsVec};
/// use std::sync::Arc;
///
/// let basis = Arc::new(RnsBasis::for_bits(100));
/// let v = RnsVec::from_i64(&basis, &[-5, 0, i64::MAX])?;
/// assert_eq!((v.len(), v.residues().len()), (3, 3 * basis.channels()));
/// assert_eq!(v.to_integers_checked()?[2], i64::MAX);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct RnsVec {
    basis: Arc<RnsBasis>,
    len: usize,
    data: Words,
}

/// The residues of `x` modulo every one of `moduli`, into `out`: by GMP's `mpn_mod_1`
/// modulo the product of two primes at a time (below 2^62, so one pass over the limbs
/// gives two residues; GMP reduces a 64-bit limb in a few cycles).
pub fn residues_into(x: &Integer, moduli: &[Modulus], out: &mut [u32]) {
    let limbs = x.as_limbs();
    if limbs.is_empty() {
        out.fill(0);
        return;
    }
    let rem = |d: u64| {
        // SAFETY: limbs is a valid slice of GMP limbs; d is non-zero.
        unsafe { gmp_mpfr_sys::gmp::mpn_mod_1(limbs.as_ptr(), limbs.len() as _, d) }
    };
    let mut pairs = moduli.chunks_exact(2);
    let mut outs = out.chunks_exact_mut(2);
    for (m, o) in (&mut pairs).zip(&mut outs) {
        let t = rem(m[0].m as u64 * m[1].m as u64);
        o[0] = (t % m[0].m as u64) as u32;
        o[1] = (t % m[1].m as u64) as u32;
    }
    for (m, o) in pairs.remainder().iter().zip(outs.into_remainder()) {
        *o = rem(m.m as u64) as u32;
    }
    signed(x, moduli, out);
}

/// The residues of `values` modulo every one of `moduli`, channel-major
/// (`out[c·len + i]`), on all cores: values the table of powers holds
/// ([`crate::num::multimod_table`], up to 128 limbs while the table fits a core's cache,
/// for [`TABLE_MIN_VALUES`] values or more) by it; larger values of [`TREE_MIN_LIMBS`] limbs or more by a remainder tree
/// ([`crate::num::multimod`]) when there are [`TREE_MIN_CHANNELS`] primes or more; the
/// rest directly ([`residues_into`]); [`Error::OutOfMemory`] when the host cannot hold
/// them ([`crate::limits`]).
pub fn residues_of(values: &[Integer], moduli: &[Modulus]) -> Result<Vec<u32>> {
    let channels = moduli.len();
    // The residues twice: number-major, then channel-major.
    crate::limits::check_words(
        2 * values.len() as u128 * channels as u128,
        &format!(
            "the residues of {} integers modulo {channels} primes",
            values.len()
        ),
    )?;
    let mut number_major = vec![0u32; values.len() * channels];
    // Values the table of powers holds by it (when there are enough to pay for the
    // table), larger ones by the remainder tree, the rest (when neither applies) directly.
    let limbs = |x: &Integer| x.as_limbs().len();
    let table = (values.len() >= TABLE_MIN_VALUES)
        .then(|| PowerTable::new(moduli, values.par_iter().map(limbs).max().unwrap_or(0)))
        .flatten();
    let by_table = |x: &Integer| table.as_ref().is_some_and(|t| t.holds(limbs(x)));
    let large = |x: &Integer| limbs(x) >= TREE_MIN_LIMBS && !by_table(x);
    let tree = (channels >= TREE_MIN_CHANNELS && values.par_iter().any(large))
        .then(|| RemainderTree::new(moduli));
    if channels > 0 {
        number_major
            .par_chunks_mut(channels)
            .zip(values.par_iter())
            .for_each(|(row, x)| {
                if table.as_ref().is_some_and(|t| t.residues_into(x, row)) {
                    return;
                }
                match &tree {
                    Some(tree) if large(x) => tree.residues_into(x, row),
                    _ => residues_into(x, moduli, row),
                }
            });
    }
    Ok(layout::to_channel_major(
        &number_major,
        values.len(),
        channels,
    ))
}

/// The residue of a signed integer modulo one channel.
pub fn residue(x: &Integer, m: Modulus) -> u32 {
    let r = m.reduce_limbs(x.as_limbs());
    if x.is_negative() {
        m.neg(r)
    } else {
        r
    }
}

/// `values` if each agrees with its residue in the basis's redundant channel
/// (`redundant[i]` for `values[i]`), else [`Error::OutOfRange`] for the first that does not.
pub fn check_redundant(
    basis: &RnsBasis,
    redundant: &[u32],
    values: Vec<Integer>,
) -> Result<Vec<Integer>> {
    let red = basis.redundant();
    match values
        .par_iter()
        .zip(redundant.par_iter())
        .position_first(|(x, &r)| residue(x, red) != r)
    {
        Some(index) => Err(Error::OutOfRange {
            index,
            range_bits: basis.range_bits(),
        }),
        None => Ok(values),
    }
}

impl RnsVec {
    /// Converts signed integers; each must lie in the basis's signed range.
    pub fn from_integers(basis: &Arc<RnsBasis>, values: &[Integer]) -> Result<RnsVec> {
        if let Some(index) = values.iter().position(|x| !basis.contains(x)) {
            return Err(Error::OutOfRange {
                index,
                range_bits: basis.range_bits(),
            });
        }
        let data = residues_of(values, basis.moduli())?;
        Ok(Self::from_residues_unchecked(basis, values.len(), data))
    }

    /// Converts machine integers; each must lie in the basis's signed range.
    pub fn from_i64(basis: &Arc<RnsBasis>, values: &[i64]) -> Result<RnsVec> {
        let values: Vec<Integer> = values.iter().map(|&v| Integer::from(v)).collect();
        Self::from_integers(basis, &values)
    }

    /// Wraps channel-major residues (`data[c·len + i]`); each must be reduced modulo its channel.
    pub fn from_residues(basis: &Arc<RnsBasis>, len: usize, data: Vec<u32>) -> Result<RnsVec> {
        let expected = len * basis.channels();
        if data.len() != expected {
            return Err(Error::Shape(format!(
                "residue buffer holds {} words, expected {len} numbers × {} channels = {expected}",
                data.len(),
                basis.channels()
            )));
        }
        if len > 0 {
            for (c, (chunk, m)) in data.chunks(len).zip(basis.moduli()).enumerate() {
                if let Some(i) = chunk.iter().position(|&r| r >= m.m) {
                    return Err(Error::Shape(format!(
                        "residue {} of number {i} in channel {c} is not reduced modulo {}",
                        chunk[i], m.m
                    )));
                }
            }
        }
        Ok(Self::from_residues_unchecked(basis, len, data))
    }

    /// `len` numbers with uniformly random residues (xorshift64, reproducible from `seed`)
    /// in every channel: for benchmarks and tests, never all zeros.
    pub fn random(basis: &Arc<RnsBasis>, len: usize, seed: u64) -> RnsVec {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut data = Vec::with_capacity(len * basis.channels());
        for m in basis.moduli() {
            for _ in 0..len {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                data.push((x % m.m as u64) as u32);
            }
        }
        Self::from_residues_unchecked(basis, len, data)
    }

    /// Builds a vector from residues the caller guarantees to be valid for the basis.
    pub(crate) fn from_residues_unchecked(
        basis: &Arc<RnsBasis>,
        len: usize,
        data: impl Into<Words>,
    ) -> RnsVec {
        let data = data.into();
        debug_assert_eq!(data.len(), len * basis.channels());
        RnsVec {
            basis: basis.clone(),
            len,
            data,
        }
    }

    /// The residues and whether they are page-locked.
    pub(crate) fn words(&self) -> WordsRef<'_> {
        (&self.data).into()
    }

    /// Whether the residues sit in page-locked memory (a GPU result), which a GPU copies
    /// directly.
    pub fn is_page_locked(&self) -> bool {
        self.data.is_locked()
    }

    /// The number of integers held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the vector holds no integer.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The basis.
    pub fn basis(&self) -> &Arc<RnsBasis> {
        &self.basis
    }

    /// All residues, channel-major.
    pub fn residues(&self) -> &[u32] {
        &self.data
    }

    /// The residues of every number modulo channel `c`.
    pub fn channel(&self, c: usize) -> &[u32] {
        &self.data[c * self.len..(c + 1) * self.len]
    }

    /// The residues of number `i` in every channel.
    pub fn residues_of(&self, i: usize) -> Vec<u32> {
        (0..self.basis.channels())
            .map(|c| self.data[c * self.len + i])
            .collect()
    }

    /// Reconstructs every integer with the precomputed-weights CRT (the subproduct tree
    /// for bases of more than 2048 primes, or for a few numbers over a large basis). Exact for every value of the signed range; a
    /// value outside it comes back reduced into the range.
    pub fn to_integers(&self) -> Vec<Integer> {
        self.to_integers_with(crt::default_method(self.basis.range_len(), self.len))
    }

    /// Reconstructs every integer from its CRT terms `y_i = x_i · coef_i mod m_i`, with
    /// `coef` the cofactor inverses `inv(M/m_i) mod m_i` of the range moduli
    /// ([`crt::from_cofactor_terms`]); exact for every value of the signed range.
    pub fn to_integers_from_cofactors(&self, coef: &[u32]) -> Vec<Integer> {
        let channels = self.basis.channels();
        let rows = layout::to_number_major(&self.data, self.len, channels);
        let range = self.basis.range_moduli();
        rows.par_chunks(channels.max(1))
            .take(self.len)
            .map(|r| crt::from_cofactor_terms(&crt::cofactor_terms(r, range, coef), &self.basis))
            .collect()
    }

    /// Reconstructs every integer with the chosen CRT method.
    pub fn to_integers_with(&self, method: CrtMethod) -> Vec<Integer> {
        crt::prepare(&self.basis, method);
        let channels = self.basis.channels();
        let rows = layout::to_number_major(&self.data, self.len, channels);
        rows.par_chunks(channels.max(1))
            .take(self.len)
            .map(|r| crt::reconstruct(r, &self.basis, method))
            .collect()
    }

    /// Reconstructs every integer and checks each against the redundant channel:
    /// a value that left the signed range (by overflow, say) gives
    /// [`Error::OutOfRange`], never a wrong number. The check is exact for values of
    /// absolute value below `M·m_K/2`.
    pub fn to_integers_checked(&self) -> Result<Vec<Integer>> {
        self.check_redundant(self.to_integers())
    }

    /// `values` (reconstructed from the range channels) if each agrees with the
    /// redundant channel, else [`Error::OutOfRange`] for the first that does not.
    pub fn check_redundant(&self, values: Vec<Integer>) -> Result<Vec<Integer>> {
        check_redundant(&self.basis, self.channel(self.basis.range_len()), values)
    }
}
