//! Exact solutions over Q of `A X = B` for square non-singular `A`, and the inverse
//! (`B = I`, the same path): a short dispatcher that takes Cramer's bounds once and
//! chooses between Dixon's lifting ([`solve_dixon`](super::solve_dixon), the default
//! on the CPU backend for few right-hand sides, and on the GPU for large systems with
//! very few) and the multimodular method with Cramer's rule
//! ([`solve_modular`](super::solve_modular)), as [`Method`] says.
//!
//! ```
//! use rns::{solve, Backend, IntMatrix};
//!
//! let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 3])?;
//! let b = IntMatrix::from_i64(2, 1, &[1, 2])?;
//! let x = solve(&a, &b, &Backend::Cpu)?;
//! assert_eq!(x.to_string(), "2 1\n1/5\n3/5\n");
//! # Ok::<(), rns::Error>(())
//! ```

use super::fractions::lowest_terms;
use super::lift;
use super::lift::DixonSolution;
use super::method::{Lifting, Method};
use super::solve_dixon::solve_dixon;
use super::solve_modular::solve_modular;
use crate::backend::Backend;
use crate::error::Result;
use crate::mat::bounds::solve_bits;
use crate::mat::matrix::{require_rhs, require_square, IntMatrix, RatMatrix};
use crate::timing::Laps;
use rug::Integer;
use std::time::Duration;

/// How to solve a system.
///
/// ```
/// use rns::{solve_with, Backend, IntMatrix, Method, SolveOptions};
///
/// let a = IntMatrix::from_i64(2, 2, &[3, 1, 1, 2])?;
/// let b = IntMatrix::from_i64(2, 1, &[1, 0])?;
/// let (x, _) = solve_with(&a, &b, &Backend::Cpu, &SolveOptions { method: Method::Dixon })?;
/// assert_eq!(x.to_text(), "2 1\n2/5\n-1/5\n");
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SolveOptions {
    /// The algorithm ([`Method::Auto`] by default).
    pub method: Method,
}

impl From<Method> for SolveOptions {
    /// The options that pick `method`.
    fn from(method: Method) -> Self {
        Self { method }
    }
}

/// The exact solution `X` of `A X = B` over Q for square non-singular `A`, in lowest
/// terms with positive denominators. A singular `A` gives [`crate::Error::Singular`].
///
/// ```
/// use rns::{solve, Backend, IntMatrix};
/// use rug::Rational;
///
/// let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 3])?;
/// let b = IntMatrix::from_i64(2, 1, &[1, 2])?;
/// let x = solve(&a, &b, &Backend::Cpu)?;
/// assert_eq!(*x.get(0, 0), Rational::from((1, 5)));
/// assert_eq!(*x.get(1, 0), Rational::from((3, 5)));
/// # Ok::<(), rns::Error>(())
/// ```
pub fn solve(a: &IntMatrix, b: &IntMatrix, backend: &Backend) -> Result<RatMatrix> {
    solve_with(a, b, backend, &SolveOptions::default()).map(|(x, _)| x)
}

/// [`solve`] as `opts` say, with the time of each stage (the lifting's first, when it
/// ran).
///
/// ```
/// use rns::{solve_with, Backend, IntMatrix, Method, SolveOptions};
///
/// let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 3])?;
/// let b = IntMatrix::from_i64(2, 1, &[1, 2])?;
/// let opts = SolveOptions::from(Method::Multimodular);
/// let (x, stages) = solve_with(&a, &b, &Backend::Cpu, &opts)?;
/// assert_eq!(x.get(1, 0).to_string(), "3/5");
/// assert!(!stages.is_empty());
/// # Ok::<(), rns::Error>(())
/// ```
pub fn solve_with(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
    opts: &SolveOptions,
) -> Result<(RatMatrix, Vec<(&'static str, Duration)>)> {
    let mut laps = Laps::start();
    let x = match solve_any((a, b), backend, opts, &mut laps)? {
        Answer::Lifted(s) => {
            let x = lowest_terms(s.numerators, &s.denominator, backend, &mut laps)?;
            let x = RatMatrix::new(a.rows(), b.cols(), x)?;
            laps.lap("fractions");
            x
        }
        Answer::Rational(x) => x,
    };
    Ok((x, laps.into_stages()))
}

/// `X = N / d` for square non-singular `A`: the numerators `N` over the least common
/// denominator `d > 0` of `X`'s entries, each entry not reduced on its own. This is the
/// form of FLINT's `fmpz_mat_solve`. [`solve`] takes a gcd of each entry with `d` on top
/// of it: 40 % of the library's time at 4000² (64-bit, one column, H200). A singular `A`
/// gives [`crate::Error::Singular`].
///
/// ```
/// use rns::{solve_over_denominator, Backend, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 3])?;
/// let b = IntMatrix::from_i64(2, 2, &[1, 1, 2, 3])?;
/// let (d, n) = solve_over_denominator(&a, &b, &Backend::Cpu)?;
/// // X = [[1/5, 0], [3/5, 1]]: 0 and 1 stay over d = 5.
/// assert_eq!((d.to_string(), n.to_text()), ("5".into(), "2 2\n1 0\n3 5\n".into()));
/// # Ok::<(), rns::Error>(())
/// ```
pub fn solve_over_denominator(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
) -> Result<OverDenominator> {
    solve_over_denominator_with(a, b, backend, &SolveOptions::default()).map(|(x, _)| x)
}

/// `(d, N)`: a solution `X = N / d` over its least common denominator `d`.
pub type OverDenominator = (Integer, IntMatrix);

/// [`solve_over_denominator`] as `opts` say, with the time of each stage.
pub fn solve_over_denominator_with(
    a: &IntMatrix,
    b: &IntMatrix,
    backend: &Backend,
    opts: &SolveOptions,
) -> Result<(OverDenominator, Vec<(&'static str, Duration)>)> {
    let mut laps = Laps::start();
    let x = match solve_any((a, b), backend, opts, &mut laps)? {
        Answer::Lifted(s) => (
            s.denominator,
            IntMatrix::new(a.rows(), b.cols(), s.numerators)?,
        ),
        Answer::Rational(x) => {
            let x = x.over_common_denominator();
            laps.lap("over one denominator");
            x
        }
    };
    Ok((x, laps.into_stages()))
}

/// A solution as its path gives it.
enum Answer {
    /// Dixon's lifting: numerators over the least common denominator.
    Lifted(DixonSolution),
    /// The multimodular method: entries in lowest terms.
    Rational(RatMatrix),
}

/// The dispatcher of [`solve_with`] and [`solve_over_denominator_with`].
fn solve_any(
    (a, b): (&IntMatrix, &IntMatrix),
    backend: &Backend,
    opts: &SolveOptions,
    laps: &mut Laps,
) -> Result<Answer> {
    let n = require_square(a.rows(), a.cols(), "solving A X = B")?;
    require_rhs(n, b.rows())?;
    let l = b.cols();
    // One bound for every path (a zero column of A is singular at once).
    let bits = solve_bits(a, b)?;
    // With no right-hand side only A's singularity is left to decide: the multimodular
    // path does that for every method.
    let gpu = backend.lifting_gpu(n, l);
    let fits_gpu = || gpu.is_some_and(|g| lift::gpu::fits(g, a, b));
    let lifting = (l > 0)
        .then(|| opts.method.solve_lifting(n, l, gpu.is_some(), fits_gpu))
        .flatten();
    if let Some(lifting) = Lifting::agreed(lifting)? {
        if let Some(s) = solve_dixon((a, b), bits, backend, lifting, laps)? {
            return Ok(Answer::Lifted(s));
        }
        laps.stage("dixon: singular modulo the primes tried")?;
    }
    solve_modular((a, b), bits, backend, laps).map(Answer::Rational)
}

/// The exact inverse over Q of a square non-singular integer matrix.
///
/// ```
/// use rns::{inverse, Backend, Error, IntMatrix};
///
/// let a = IntMatrix::from_i64(2, 2, &[2, 1, 1, 1])?;
/// assert_eq!(inverse(&a, &Backend::Cpu)?.to_text(), "2 2\n1 -1\n-1 2\n");
/// let singular = IntMatrix::from_i64(2, 2, &[1, 2, 2, 4])?;
/// assert!(matches!(inverse(&singular, &Backend::Cpu), Err(Error::Singular { .. })));
/// # Ok::<(), rns::Error>(())
/// ```
pub fn inverse(a: &IntMatrix, backend: &Backend) -> Result<RatMatrix> {
    inverse_with(a, backend, &SolveOptions::default()).map(|(x, _)| x)
}

/// [`inverse`] as `opts` say, with the time of each stage: [`solve_with`] for `B = I`
/// (a block lifting of all `n` columns, or Cramer's rule modulo primes).
///
/// ```
/// use rns::{inverse_with, Backend, IntMatrix, Method, SolveOptions};
///
/// let a = IntMatrix::from_i64(2, 2, &[3, 1, 1, 2])?;
/// for m in Method::ALL {
///     let (x, _) = inverse_with(&a, &Backend::Cpu, &SolveOptions::from(m))?;
///     assert_eq!(x.to_text(), "2 2\n2/5 -1/5\n-1/5 3/5\n");
/// }
/// # Ok::<(), rns::Error>(())
/// ```
pub fn inverse_with(
    a: &IntMatrix,
    backend: &Backend,
    opts: &SolveOptions,
) -> Result<(RatMatrix, Vec<(&'static str, Duration)>)> {
    require_square(a.rows(), a.cols(), "the inverse")?;
    solve_with(a, &IntMatrix::identity(a.rows()), backend, opts)
}
