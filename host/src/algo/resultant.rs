//! Resultants over Z through residues.
//!
//! `res(f, g)` is the determinant of the Sylvester matrix of `f` and `g` (`deg g` rows of
//! `f`'s coefficients, then `deg f` rows of `g`'s, leading coefficients first), as FLINT,
//! PARI and Sage define it. [`resultant`] computes it by the multimodular method: the
//! Hadamard bound of the Sylvester matrix → primes that divide neither leading
//! coefficient → Euclid's algorithm modulo each prime (O(deg f · deg g) products, one
//! GPU thread or one CPU task per prime) → CRT, checked against a redundant prime.
//! [`sylvester_resultant`] is the same number as an O(n³)-per-prime determinant.
//!
//! [`resultant_xy`] eliminates `y` from `f, g ∈ Z[x, y]` by Collins' modular method, as
//! in the seed's GPU paper: a degree bound `D` in `x` and a coefficient bound → primes
//! (those dividing the content of a leading coefficient in `y` are skipped) → for each
//! prime, the first `D + 1` points `x = α = 0, 1, 2, …` at which neither leading
//! coefficient vanishes (the others are dropped and replaced), one univariate resultant
//! in `y` per (prime, point) → interpolation per prime → CRT of every coefficient,
//! checked against a redundant prime.

use crate::algo::det::det;
use crate::backend::cost::{self, Estimate};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::mat::bounds::log2_norm;
use crate::mat::matrix::IntMatrix;
use crate::num::basis::RnsBasis;
use crate::poly::bipoly::BiPoly;
use crate::poly::intpoly::IntPoly;
use crate::timing::Laps;
use rns_core::poly::BiShape;
use rug::Integer;
use std::sync::Arc;
use std::time::Duration;

/// The Sylvester matrix of `f` (degree m) and `g` (degree n): `(m+n) × (m+n)`, the first
/// `n` rows hold `f`'s coefficients from the leading one, shifted one column per row,
/// the last `m` rows those of `g`.
pub fn sylvester(f: &IntPoly, g: &IntPoly) -> IntMatrix {
    sylvester_of(f.coeffs(), g.coeffs())
}

/// The Sylvester matrix of two coefficient lists (constant term first) taken with the
/// formal degrees `f.len() − 1` and `g.len() − 1`, whose leading coefficients may be
/// zero (as for `f(a, y)` when a leading coefficient in `y` vanishes at `a`).
pub fn sylvester_of(f: &[Integer], g: &[Integer]) -> IntMatrix {
    let (m, n) = (f.len().saturating_sub(1), g.len().saturating_sub(1));
    let size = m + n;
    let mut data = vec![Integer::new(); size * size];
    for (rows, shift_rows, p) in [(n, 0, f), (m, n, g)] {
        for r in 0..rows {
            for (j, c) in p.iter().rev().enumerate() {
                data[(shift_rows + r) * size + r + j] = c.clone();
            }
        }
    }
    IntMatrix::new(size, size, data).expect("square by construction")
}

/// The resultant `res(f, g)`, exact, as the determinant of the Sylvester matrix.
pub fn sylvester_resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    if f.degree() + g.degree() == 0 {
        return Ok(Integer::from(1)); // two constants: the empty determinant
    }
    det(&sylvester(f, g), backend)
}

/// Bits `b` with `|res(f, g)| ≤ 2^b` that also cover every coefficient: Hadamard's bound
/// on the Sylvester matrix, `‖f‖^deg g · ‖g‖^deg f`.
pub fn bound_bits(f: &IntPoly, g: &IntPoly) -> u64 {
    let (lf, lg) = (
        log2_norm(f.coeffs()).unwrap_or(0.0),
        log2_norm(g.coeffs()).unwrap_or(0.0),
    );
    let hadamard = g.degree() as f64 * lf + f.degree() as f64 * lg;
    hadamard.max(lf).max(lg).ceil() as u64 + 1
}

/// The resultant `res(f, g)`, exact (multimodular Euclid; see the module documentation).
pub fn resultant(f: &IntPoly, g: &IntPoly, backend: &Backend) -> Result<Integer> {
    resultant_with_stats(f, g, backend).map(|(r, _)| r)
}

/// [`resultant`], with the bound, the primes and the time of each stage (bounds and
/// primes, reduction and the resultants modulo the primes, CRT).
pub fn resultant_with_stats(
    f: &IntPoly,
    g: &IntPoly,
    backend: &Backend,
) -> Result<(Integer, ResultantStats)> {
    let mut laps = Laps::start();
    let bits = bound_bits(f, g);
    let basis = basis_for_bits(f, g, bits);
    laps.stage("bounds, primes")?;
    let (r, mut stats) = resultant_over(f, g, basis, bits, backend)?;
    for &(name, d) in &stats.stages {
        laps.add(name, d);
    }
    stats.stages = laps.into_stages();
    Ok((r, stats))
}

/// The basis of [`resultant`] for `f` and `g`: the primes that Hadamard's bound asks for,
/// skipping those that divide a leading coefficient (one prime when both are constants).
pub fn basis_for(f: &IntPoly, g: &IntPoly) -> Arc<RnsBasis> {
    basis_for_bits(f, g, bound_bits(f, g))
}

/// [`basis_for`] with the bound `bits` already known.
fn basis_for_bits(f: &IntPoly, g: &IntPoly, bits: u64) -> Arc<RnsBasis> {
    let (lf, lg) = (f.leading(), g.leading());
    Arc::new(RnsBasis::for_bits_excluding(bits, |p| {
        lf.is_divisible_u(p) || lg.is_divisible_u(p)
    }))
}

/// [`resultant_with_stats`] over a given basis, such as [`basis_for`] built while
/// something else waits (the CLI builds it while CUDA starts): one whose range holds
/// [`bound_bits`] and none of whose primes divides a leading coefficient, else
/// [`Error::Shape`].
pub fn resultant_in_basis(
    f: &IntPoly,
    g: &IntPoly,
    basis: Arc<RnsBasis>,
    backend: &Backend,
) -> Result<(Integer, ResultantStats)> {
    let bits = bound_bits(f, g);
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
    resultant_over(f, g, basis, bits, backend)
}

/// The resultant over `basis`, which suits `f` and `g` (bound `bits`): the stages after
/// the primes.
fn resultant_over(
    f: &IntPoly,
    g: &IntPoly,
    basis: Arc<RnsBasis>,
    bits: u64,
    backend: &Backend,
) -> Result<(Integer, ResultantStats)> {
    let mut laps = Laps::start();
    let mut stats = ResultantStats {
        backend: backend.name(),
        bound_bits: bits,
        range_primes: basis.range_moduli().iter().map(|m| m.m).collect(),
        ..ResultantStats::default()
    };
    if f.degree() + g.degree() == 0 {
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

/// What a resultant computation did and how long each stage took.
#[derive(Clone, Debug, Default)]
pub struct ResultantStats {
    /// Bits `b` with every coefficient of the result (and of the inputs) at most `2^b`.
    pub bound_bits: u64,
    /// The degree bound `D` of the result in `x` (0 for a univariate resultant).
    pub degree_bound: usize,
    /// Candidate points per prime: `D + 1` plus one per root a leading coefficient may
    /// have (0 for a univariate resultant).
    pub candidates: usize,
    /// The primes used for the range (plus one redundant prime), in the basis's order.
    pub range_primes: Vec<u32>,
    /// The backend that ran the modular resultants and interpolations.
    pub backend: &'static str,
    /// Stage names and their wall-clock times, in order.
    pub stages: Vec<(&'static str, Duration)>,
}

impl ResultantStats {
    /// Number of primes used for the range (plus one redundant prime).
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

/// Bits `b` with every coefficient of `res_y(f, g)` and of `f` and `g` at most `2^b` in
/// absolute value. For the result: Hadamard's bound on the Sylvester matrix on the unit
/// circle `|x| = 1`, where each entry `f_j(x)` is at most its 1-norm, so
/// `|res(x)| ≤ (Σ_j ‖f_j‖₁²)^(deg_y g / 2) · (Σ_j ‖g_j‖₁²)^(deg_y f / 2)`; each
/// coefficient is at most that maximum (Cauchy's estimate).
pub fn bound_bits_xy(f: &BiPoly, g: &BiPoly) -> u64 {
    let rows_norm = |p: &BiPoly| {
        let norms: Vec<Integer> = (0..=p.deg_y())
            .map(|j| p.row(j).iter().map(|c| c.clone().abs()).sum())
            .collect();
        log2_norm(&norms).unwrap_or(0.0)
    };
    let biggest = |p: &BiPoly| {
        (0..=p.deg_y())
            .flat_map(|j| p.row(j))
            .map(|c| c.significant_bits())
            .max()
            .unwrap_or(0) as f64
    };
    let hadamard = g.deg_y() as f64 * rows_norm(f) + f.deg_y() as f64 * rows_norm(g);
    hadamard.max(biggest(f)).max(biggest(g)).ceil() as u64 + 1
}

/// The cost model's estimate of [`resultant`]: a Euclidean resultant per prime.
pub fn estimate(f: &IntPoly, g: &IntPoly) -> Estimate {
    let primes = cost::primes_for(bound_bits(f, g) as f64);
    cost::euclid(f.degree(), g.degree(), primes)
}

/// The degrees of `f` and `g` in `y` and in `x`.
fn shape_of(f: &BiPoly, g: &BiPoly) -> BiShape {
    BiShape {
        fy: f.deg_y() as u32,
        fx: f.deg_x() as u32,
        gy: g.deg_y() as u32,
        gx: g.deg_x() as u32,
    }
}

/// The cost model's estimate of [`resultant_xy`]: a Euclidean resultant in `y` per prime
/// and per point of the degree bound.
pub fn estimate_xy(f: &BiPoly, g: &BiPoly) -> Estimate {
    let primes = cost::primes_for(bound_bits_xy(f, g) as f64);
    let points = (shape_of(f, g).degree_bound() + 1) as f64;
    cost::euclid(f.deg_y(), g.deg_y(), primes * points)
}

/// `res_y(f, g) ∈ Z[x]`, exact: the determinant of the Sylvester matrix of `f` and `g`
/// as polynomials in `y` (f's rows first), by Collins' modular method (see the module
/// documentation). The coefficients, constant term first, without trailing zeros; the
/// zero polynomial (`f` and `g` share a factor of positive degree in `y`) is `[0]`.
///
/// ```
/// use rns::{resultant_xy, Backend, BiPoly};
/// use rug::Integer;
///
/// let term = |c: i64, i, j| (Integer::from(c), i, j);
/// let f = BiPoly::new([term(1, 0, 2), term(1, 2, 0), term(-1, 0, 0)])?; // y² + x² − 1
/// let g = BiPoly::new([term(1, 0, 1), term(-1, 1, 0)])?; // y − x
/// // res_y = f(x, x) = 2x² − 1
/// assert_eq!(resultant_xy(&f, &g, &Backend::Cpu)?, [-1, 0, 2]);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn resultant_xy(f: &BiPoly, g: &BiPoly, backend: &Backend) -> Result<Vec<Integer>> {
    resultant_xy_with_stats(f, g, backend).map(|(r, _)| r)
}

/// [`resultant_xy`], with the bounds, primes and points used and the time of each stage.
pub fn resultant_xy_with_stats(
    f: &BiPoly,
    g: &BiPoly,
    backend: &Backend,
) -> Result<(Vec<Integer>, ResultantStats)> {
    let mut laps = Laps::start();
    let shape = shape_of(f, g);
    let n = shape.degree_bound() + 1;
    let candidates = n + f.leading_y().len() + g.leading_y().len() - 2;
    if candidates >= 1 << 30 {
        return Err(Error::Shape(format!(
            "the resultant's degree bound {} in x is too large",
            n - 1
        )));
    }
    let mut stats = ResultantStats {
        bound_bits: bound_bits_xy(f, g),
        degree_bound: n - 1,
        candidates,
        backend: backend.name(),
        ..ResultantStats::default()
    };
    laps.stage("bounds")?;
    let content = |row: &[Integer]| row.iter().fold(Integer::new(), |acc, c| acc.gcd(c));
    let contents = content(f.leading_y()) * content(g.leading_y());
    let basis = Arc::new(RnsBasis::for_bits_excluding(stats.bound_bits, |p| {
        contents.is_divisible_u(p)
    }));
    stats.range_primes = basis.range_moduli().iter().map(|m| m.m).collect();
    // The dense inputs, the values at every point and the coefficients, for every prime.
    let words = basis.channels() as u128 * (shape.len() + candidates + n) as u128;
    let what = format!(
        "a resultant of degree up to {} in x over {} primes",
        n - 1,
        basis.channels()
    );
    crate::limits::check_words(words, &what)?;
    let mut coeffs = f.dense(shape.fx as usize + 1);
    coeffs.extend(g.dense(shape.gx as usize + 1));
    laps.stage("primes")?;
    let (computed, modular) =
        backend.resultant_xy_per_channel(&basis, &coeffs, shape, candidates)?;
    laps.append(modular);
    let residues = &computed.residues;
    if residues.len() != n * basis.channels() || residues.contains(&rns_core::poly::NO_POINT) {
        return Err(Error::Internal(
            "a prime had fewer good evaluation points than the degree bound".into(),
        ));
    }
    let mut r = backend.reconstruct_computed(&basis, n, computed, "the resultant")?;
    while r.len() > 1 && r.last().is_some_and(|c| *c == 0) {
        r.pop();
    }
    laps.lap("crt");
    stats.stages = laps.into_stages();
    Ok((r, stats))
}
