//! Univariate resultants over Z through residues.
//!
//! `res(f, g)` is the determinant of the Sylvester matrix of `f` and `g` (`deg g` rows of
//! `f`'s coefficients, then `deg f` rows of `g`'s, leading coefficients first), as FLINT,
//! PARI and Sage define it. [`resultant`] computes it by the multimodular method: the
//! Hadamard bound of the Sylvester matrix → primes that divide neither leading
//! coefficient → Euclid's algorithm modulo each prime (O(deg f · deg g) products, one
//! GPU block or thread, or one CPU task, per prime) → CRT, checked against a redundant
//! prime. [`sylvester_resultant`] is the same number as an O(n³)-per-prime determinant.

use crate::algo::det::det;
use crate::algo::resultant_unbalanced as unbalanced;
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::poly::bounds::resultant_bits;
use crate::poly::intpoly::IntPoly;
use crate::poly::sylvester::sylvester;
use crate::timing::Laps;
use rug::Integer;
use std::sync::Arc;
use std::time::Duration;

/// How to compute a resultant.
///
/// ```
/// use rns::{resultant_with, Backend, IntPoly, ResultantOptions};
///
/// // Primes found beforehand (as the CLI does while CUDA starts) ...
/// let (f, g) = (IntPoly::from_i64(&[1, 0, 1])?, IntPoly::from_i64(&[-1, 1])?);
/// let basis = rns::algo::resultant::basis_for(&f, &g);
/// let opts = ResultantOptions { basis: Some(basis) };
/// // ... give the same answer: res(x² + 1, x − 1) = 2.
/// assert_eq!(resultant_with(&f, &g, &Backend::Cpu, &opts)?.0, 2);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ResultantOptions {
    /// The primes to use, when the caller has them already (the CLI finds them while CUDA
    /// starts): a basis whose range holds the bound and none of whose primes divides a
    /// leading coefficient (for a bivariate resultant, the content of a leading
    /// coefficient in `y`), else [`Error::Shape`]. `None`: found here.
    pub basis: Option<Arc<RnsBasis>>,
}

/// The resultant `res(f, g)`, exact, as the determinant of the Sylvester matrix.
pub fn sylvester_resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    if f.degree() + g.degree() == 0 {
        return Ok(Integer::from(1)); // two constants: the empty determinant
    }
    det(&sylvester(f, g), backend)
}

/// The resultant `res(f, g)`, exact (multimodular Euclid; see the module documentation).
///
/// ```
/// use rns::{resultant, Backend, IntPoly};
///
/// let f = IntPoly::from_i64(&[-2, 0, 1])?; // x² − 2
/// let g = IntPoly::from_i64(&[-3, 0, 1])?; // x² − 3
/// assert_eq!(resultant(&f, &g, &Backend::Cpu)?, 1);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    resultant_with(f, g, backend, &ResultantOptions::default()).map(|(r, _)| r)
}

/// [`resultant`] as `opts` say, with the bound, the primes and the time of each stage
/// (bounds and primes, reduction and the resultants modulo the primes, CRT).
///
/// ```
/// use rns::{resultant_with, Backend, IntPoly, ResultantOptions};
///
/// let f = IntPoly::from_i64(&[-1, 0, 1])?; // x² − 1
/// let g = IntPoly::from_i64(&[-1, 1])?; // x − 1: a common root
/// let (r, _stats) = resultant_with(&f, &g, &Backend::Cpu, &ResultantOptions::default())?;
/// assert_eq!(r, 0);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn resultant_with(
    f: &IntPoly,
    g: &IntPoly,
    backend: &Backend,
    opts: &ResultantOptions,
) -> Result<(Integer, ResultantStats)> {
    if unbalanced::applies(f, g) {
        if let Some(done) = resultant_unbalanced(f, g, backend)? {
            return Ok(done);
        }
    }
    let mut laps = Laps::start();
    let bits = resultant_bits(f, g);
    let basis = match &opts.basis {
        Some(basis) => check_basis(f, g, basis, bits)?,
        None => basis_for_bits(f, g, bits),
    };
    laps.stage("bounds, primes")?;
    let mut stats = ResultantStats {
        backend: backend.name(),
        bound_bits: bits,
        range_primes: basis.range_moduli().iter().map(|m| m.m).collect(),
        ..ResultantStats::default()
    };
    if f.degree() + g.degree() == 0 {
        stats.stages = laps.into_stages();
        return Ok((Integer::from(1), stats)); // two constants: the empty determinant
    }
    let coeffs: Vec<Integer> = f.coeffs().iter().chain(g.coeffs()).cloned().collect();
    let per_prime = backend.resultant_of_integers(&basis, &coeffs, f.degree(), g.degree())?;
    laps.stage("reduce, resultants mod p")?;
    let res = backend.reconstruct(&basis, 1, per_prime, "the resultant")?;
    laps.lap("crt");
    stats.stages = laps.into_stages();
    Ok((res.into_iter().next().expect("one value"), stats))
}

/// [`resultant_with`] for a constant, or a degree small against the other
/// ([`unbalanced`]): the pseudo-remainder first, then the smaller pair's resultant
/// (its bound and primes are the ones reported), then the power of the leading
/// coefficient. `None` when the smaller pair's residues would cost more than
/// [`unbalanced::INNER_WORK_MAX`] word operations (its coefficients are as large as
/// the answer, and each is reduced modulo each prime by itself).
fn resultant_unbalanced(
    f: &IntPoly,
    g: &IntPoly,
    backend: &Backend,
) -> Result<Option<(Integer, ResultantStats)>> {
    let mut laps = Laps::start();
    let reduced = unbalanced::reduce(f, g);
    laps.stage("pseudo-remainder")?;
    if let unbalanced::Reduced::Smaller { small, rest, .. } = &reduced {
        if unbalanced::inner_work(small, rest) > unbalanced::INNER_WORK_MAX {
            return Ok(None);
        }
    }
    let mut stats = ResultantStats {
        backend: backend.name(),
        ..ResultantStats::default()
    };
    let inner = match &reduced {
        unbalanced::Reduced::Done(r) => r.clone(),
        unbalanced::Reduced::Smaller { small, rest, .. } => {
            let (r, inner) = resultant_with(small, rest, backend, &ResultantOptions::default())?;
            stats = ResultantStats {
                stages: Vec::new(),
                ..inner.clone()
            };
            // The smaller pair timed its own stages.
            laps.restart();
            for (name, d) in inner.stages {
                laps.add(name, d);
            }
            r
        }
    };
    let value = unbalanced::value_of(&reduced, inner);
    laps.lap("power of the leading coefficient");
    stats.bound_bits = stats
        .bound_bits
        .max(u64::from(value.significant_bits()) + 1);
    stats.stages = laps.into_stages();
    Ok(Some((value, stats)))
}

/// The basis of [`resultant`] for `f` and `g`: the primes that Hadamard's bound asks for,
/// skipping those that divide a leading coefficient (one prime when both are constants).
pub fn basis_for(f: &IntPoly, g: &IntPoly) -> Arc<RnsBasis> {
    basis_for_bits(f, g, resultant_bits(f, g))
}

/// [`basis_for`] with the bound `bits` already known.
fn basis_for_bits(f: &IntPoly, g: &IntPoly, bits: u64) -> Arc<RnsBasis> {
    let (lf, lg) = (f.leading(), g.leading());
    Arc::new(RnsBasis::for_bits_excluding(bits, |p| {
        lf.is_divisible_u(p) || lg.is_divisible_u(p)
    }))
}

/// `basis` when it suits `f` and `g` (its range holds `bits`, none of its primes divides
/// a leading coefficient), else [`Error::Shape`].
fn check_basis(
    f: &IntPoly,
    g: &IntPoly,
    basis: &Arc<RnsBasis>,
    bits: u64,
) -> Result<Arc<RnsBasis>> {
    let (lf, lg) = (f.leading(), g.leading());
    let divides = |p: u32| lf.is_divisible_u(p) || lg.is_divisible_u(p);
    let constants = f.degree() + g.degree() == 0;
    if !constants && (basis.range_bits() < bits || basis.moduli().iter().any(|m| divides(m.m))) {
        return Err(Error::Shape(format!(
            "a basis of {} bits does not suit this resultant: it needs {bits} bits and primes \
             that divide neither leading coefficient",
            basis.range_bits(),
        )));
    }
    Ok(basis.clone())
}

/// What a resultant computation did and how long each stage took.
///
/// ```
/// use rns::{resultant_with, Backend, IntPoly, ResultantOptions};
///
/// let f = IntPoly::from_i64(&[-2, 0, 1])?;
/// let g = IntPoly::from_i64(&[-3, 0, 0, 1])?;
/// let (r, stats) = resultant_with(&f, &g, &Backend::Cpu, &ResultantOptions::default())?;
/// assert_eq!(r, 1); // ∏ (±√2)³ − 3 over the roots of f: (2√2 − 3)(−2√2 − 3) = 1
/// assert!(stats.bound_bits >= 1 && !stats.range_primes.is_empty());
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ResultantStats {
    /// Bits `b` with every coefficient of the result (and of the inputs) at most `2^b`.
    pub bound_bits: u64,
    /// The degree bound `D` of the result in `x` (0 for a univariate resultant).
    pub degree_bound: usize,
    /// Candidate points per prime: `D + 1` plus one per root a leading coefficient may
    /// have (0 for a univariate resultant).
    pub candidates: usize,
    /// The primes of the range, in the basis's order (the basis has one redundant
    /// prime more, not listed).
    pub range_primes: Vec<u32>,
    /// The backend that ran the modular resultants and interpolations.
    pub backend: &'static str,
    /// Stage names and their wall-clock times, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

impl ResultantStats {
    /// Number of primes of the range (the redundant prime not counted).
    pub fn primes(&self) -> usize {
        self.range_primes.len()
    }

    /// The time of the stages that ran on the device (or as their CPU counterpart):
    /// reduction, resultants modulo the primes, interpolation.
    pub fn device_time(&self) -> Duration {
        self.stage_time(&[
            "reduce",
            "resultants mod p",
            "interpolation",
            "resultants mod p, interpolation",
        ])
    }

    /// The time of the GPU's transfers (`upload`, `download`).
    pub fn transfer_time(&self) -> Duration {
        self.stage_time(&["upload", "download"])
    }

    fn stage_time(&self, names: &[&str]) -> Duration {
        self.stages
            .iter()
            .filter(|(n, _)| names.contains(n))
            .map(|(_, t)| *t)
            .sum()
    }
}
