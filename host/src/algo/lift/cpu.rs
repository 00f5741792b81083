//! Dixon's lifting on the CPU: `A⁻¹ mod p` by the CPU backend, then the steps of
//! `steps` by all cores. `A`'s entries are split into signed 29-bit limbs, so
//! each step's product `A·X_i` is dot products of 32-bit integers whose terms stay below
//! `2^60` (summed four at a time in 64-bit lanes, which vector units multiply several at
//! once), and only the update touches big integers.

use super::steps::{self, Lifting};
use super::{
    divisor_of, finish, limb_of, limb_of_word, steps_for, DixonSolution, Expansion, PRIMES_TRIED,
};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::bounds::solve_bits;
use crate::mat::matrix::{require_rhs, require_square, IntMatrix};
use crate::mat::modmat::ModMatrices;
use rayon::prelude::*;
use rns_core::padic::{self, limbs_for_bits};
use rns_core::{prime, Modulus};
use rug::Integer;

/// `A⁻¹ mod p` (row-major, residues) for the first of a few 31-bit primes modulo which
/// `A` is invertible, or `None`.
fn inverse_mod_prime(a: &IntMatrix) -> Result<Option<(Modulus, Vec<u32>)>> {
    for p in prime::moduli_descending(|_| false).take(PRIMES_TRIED) {
        let m = Modulus::new(p).expect("a generated prime");
        match Backend::Cpu.inverse_mod(&ModMatrices::reduce(a, &[m])) {
            Ok(inv) => return Ok(Some((m, inv.data().to_vec()))),
            Err(Error::Singular { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(None)
}

/// `A`'s entries as `limbs` signed 29-bit limbs each ([`limb_of`]), limb `t` of every
/// entry in matrix `t` (row-major).
fn split_limbs(a: &IntMatrix, limbs: usize) -> Vec<Vec<i32>> {
    (0..limbs)
        .map(|t| match a.words() {
            Some(w) => w.par_iter().map(|&x| limb_of_word(x, t)).collect(),
            None => a.entries().par_iter().map(|x| limb_of(x, t)).collect(),
        })
        .collect()
}

/// `A X = B` over Q by Dixon's lifting; `None` when `A` is singular modulo every prime
/// tried (then the multimodular solve decides). `Error::Singular` when `A` has a zero
/// column. Reconstruction is tried after 16, 32, 64, … steps (each answer checked
/// exactly), and at the bound, where it cannot fail.
pub fn solve(a: &IntMatrix, b: &IntMatrix) -> Result<Option<DixonSolution>> {
    require_square(a.rows(), a.cols(), "solving A X = B")?;
    require_rhs(a.rows(), b.rows())?;
    let bits = solve_bits(a, b)?;
    solve_within(a, b, bits)
}

/// [`solve`] with Cramer's bounds `bits` for `A X = B` already taken (the dispatcher's,
/// `crate::mat::bounds::cramer_bits`) and the shapes checked.
pub(crate) fn solve_within(
    a: &IntMatrix,
    b: &IntMatrix,
    bits: (u64, u64),
) -> Result<Option<DixonSolution>> {
    let n = a.rows();
    if n == 0 || b.cols() == 0 {
        return Ok(Some(DixonSolution {
            numerators: b.entries().to_vec(),
            denominator: Integer::from(1),
            prime: 0,
            steps: 0,
            primes: 1,
            devices: 1,
        }));
    }
    let mut next_try = 16;
    lift(a, b, bits, |x, last| {
        let step = x.digits.len();
        if step < next_try && !last {
            return Ok(None);
        }
        next_try = 2 * step;
        let s = finish(a, b, x, !last)?;
        if s.is_none() && last {
            return Err(Error::Internal(
                "Dixon lifting reached its bound without a solution".into(),
            ));
        }
        Ok(s)
    })
}

/// A divisor of `det A` (FLINT's `fmpz_mat_det_divisor`): the denominator, in lowest
/// terms, of the first entry of `A⁻¹ b`, lifted to the bound where its reconstruction is
/// unique (so no check is needed: it divides `det A` whatever `b` is), with the lifting
/// steps taken. `None` when `A` is singular modulo every prime tried; `Error::Singular`
/// when `A` has a zero column.
pub fn divisor(a: &IntMatrix, b: &IntMatrix) -> Result<Option<(Integer, usize)>> {
    require_square(a.rows(), a.cols(), "the determinant")?;
    require_rhs(a.rows(), b.rows())?;
    if a.rows() == 0 || b.cols() == 0 {
        return Ok(Some((Integer::from(1), 0)));
    }
    let bits = solve_bits(a, b)?;
    lift(a, b, bits, |x, last| {
        if last {
            divisor_of(x).map(Some)
        } else {
            Ok(None)
        }
    })
}

/// The lifting loop: after each step, `done(expansion, last)` may end it with a value;
/// `last` is true at the step count where reconstruction is unique (`p^k > 2·max(N,
/// D)²` for Cramer's bounds `N`, `D` (`bits`: their bits), after which the loop stops.
fn lift<T>(
    a: &IntMatrix,
    b: &IntMatrix,
    bits: (u64, u64),
    done: impl FnMut(&Expansion, bool) -> Result<Option<T>>,
) -> Result<Option<T>> {
    let (n, l) = (a.rows(), b.cols());
    let Some((m, inv)) = inverse_mod_prime(a)? else {
        return Ok(None);
    };
    let p = m.m;
    let k_max = steps_for(bits, &[p]);
    let a_bits = a.max_bits().min(u32::MAX as u64) as u32;
    let lifting = Lifting {
        inv_c: inv.iter().map(|&x| m.center(x)).collect(),
        a_limbs: split_limbs(a, limbs_for_bits(a_bits)),
        p_inv: padic::inverse_mod_2_128(p),
        m,
        n,
        l,
    };
    let rhs_bits = b.max_bits().min(u32::MAX as u64) as u32;
    let small: Option<Vec<i128>> = padic::residual_fits(n, a_bits, rhs_bits)
        .then(|| b.entries().iter().map(Integer::to_i128).collect())
        .flatten();
    match small {
        Some(r) => steps::run(&lifting, r, k_max, done),
        None => steps::run(&lifting, b.entries().to_vec(), k_max, done),
    }
}
