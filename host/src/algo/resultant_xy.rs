//! Bivariate resultants: `res_y(f, g)` for `f, g ∈ Z[x, y]` by Collins' modular method,
//! as in the seed's GPU paper: a degree bound `D` in `x` and a coefficient bound →
//! primes (those dividing the content of a leading coefficient in `y` are skipped) →
//! for each prime, the first `D + 1` points `x = α = 0, 1, 2, …` at which neither
//! leading coefficient vanishes (the others are dropped and replaced), one univariate
//! resultant in `y` per (prime, point) → interpolation per prime → CRT of every
//! coefficient, checked against a redundant prime.

use super::resultant::{ResultantOptions, ResultantStats};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::num::basis::RnsBasis;
use crate::poly::bipoly::{pair_shape, BiPoly};
use crate::poly::bounds::resultant_xy_bits;
use crate::timing::Laps;
use rug::Integer;
use std::sync::Arc;

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
    resultant_xy_with(f, g, backend, &ResultantOptions::default()).map(|(r, _)| r)
}

/// [`resultant_xy`] as `opts` say, with the bounds, primes and points used and the time
/// of each stage.
///
/// ```
/// use rns::{resultant_xy_with, Backend, BiPoly, ResultantOptions};
///
/// let f = BiPoly::parse("1 0 2\n-1 1 0\n", "f.txt")?; // y² − x
/// let g = BiPoly::parse("1 0 1\n-2 0 0\n", "g.txt")?; // y − 2
/// let (r, stats) = resultant_xy_with(&f, &g, &Backend::Cpu, &ResultantOptions::default())?;
/// assert_eq!(r, [4, -1]); // f(x, 2) = 4 − x
/// assert!(stats.degree_bound >= 1);
/// # Ok::<(), rns::Error>(())
/// ```
pub fn resultant_xy_with(
    f: &BiPoly,
    g: &BiPoly,
    backend: &Backend,
    opts: &ResultantOptions,
) -> Result<(Vec<Integer>, ResultantStats)> {
    let mut laps = Laps::start();
    let shape = pair_shape(f, g);
    let n = shape.degree_bound() + 1;
    let candidates = n + f.leading_y().len() + g.leading_y().len() - 2;
    if candidates >= 1 << 30 {
        return Err(Error::Shape(format!(
            "the resultant's degree bound {} in x is too large",
            n - 1
        )));
    }
    let mut stats = ResultantStats {
        bound_bits: resultant_xy_bits(f, g),
        degree_bound: n - 1,
        candidates,
        backend: backend.name(),
        ..ResultantStats::default()
    };
    laps.stage("bounds")?;
    let content = |row: &[Integer]| row.iter().fold(Integer::new(), |acc, c| acc.gcd(c));
    let contents = content(f.leading_y()) * content(g.leading_y());
    let basis = match &opts.basis {
        None => Arc::new(RnsBasis::for_bits_excluding(stats.bound_bits, |p| {
            contents.is_divisible_u(p)
        })),
        Some(b)
            if b.range_bits() < stats.bound_bits
                || b.moduli().iter().any(|m| contents.is_divisible_u(m.m)) =>
        {
            return Err(Error::Shape(format!(
                "a basis of {} bits does not suit this resultant: it needs {} bits and primes \
                 that divide the contents of neither leading coefficient in y",
                b.range_bits(),
                stats.bound_bits
            )))
        }
        Some(b) => b.clone(),
    };
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
