//! Results in the type the caller's matrix came as ([`Kind`]; the table is in
//! `docs/python.md`): lists of rows of Python ints or `Fraction`s for lists, numpy
//! arrays for numpy arrays, python-flint matrices for python-flint matrices, and
//! `rns.Matrix` for `rns.Matrix`. Machine-size entries never become Python objects on
//! the way to numpy or an `rns.Matrix`.

use crate::arrays::array;
use crate::convert::Kind;
use crate::held::Held;
use crate::ints::IntMaker;
use crate::matrix::Matrix;
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rayon::prelude::*;
use rns::{IntMatrix, RatMatrix};
use rug::{Integer, Rational};

/// The `rows` rows of the row-major `values` (a matrix with no columns has empty rows).
fn rows_of<T>(values: &[T], rows: usize) -> impl Iterator<Item = &[T]> {
    let cols = values.len().checked_div(rows).unwrap_or(0);
    (0..rows).map(move |i| &values[i * cols..(i + 1) * cols])
}

/// Rows of Python ints from the row-major `values` of a matrix with `rows` rows.
pub fn int_rows<'py>(
    ints: &IntMaker<'py>,
    values: &[Integer],
    rows: usize,
) -> PyResult<Bound<'py, PyList>> {
    let all = ints.many(values)?;
    let out = rows_of(&all, rows)
        .map(|r| PyList::new(ints.py(), r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(ints.py(), out)
}

/// Rows of Python ints from row-major machine integers (words or residues).
pub fn word_rows<'py, T: Copy + IntoPyObject<'py>>(
    py: Python<'py>,
    values: &[T],
    rows: usize,
) -> PyResult<Bound<'py, PyList>> {
    let out = rows_of(values, rows)
        .map(|r| PyList::new(py, r.iter().copied()))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)
}

/// Rows of Python ints of a held matrix.
pub fn held_rows<'py>(py: Python<'py>, m: &Held) -> PyResult<Bound<'py, PyList>> {
    match m.words() {
        Some(w) => word_rows(py, w, m.rows()),
        None => int_rows(&IntMaker::new(py)?, m.ints().entries(), m.rows()),
    }
}

/// A held matrix as a numpy array: int64 when it holds words or every integer fits,
/// else of dtype object holding Python ints.
pub fn held_array<'py>(py: Python<'py>, m: &Held) -> PyResult<Bound<'py, PyAny>> {
    match m.words() {
        Some(w) => array(py, w.to_vec(), m.rows(), m.cols()),
        None => int_array(py, &m.ints()),
    }
}

/// Integers as a numpy array: int64 when every one fits (no Python int is made), else
/// of dtype object holding Python ints.
fn int_array<'py>(py: Python<'py>, m: &IntMatrix) -> PyResult<Bound<'py, PyAny>> {
    let words: Option<Vec<i64>> = m.entries().par_iter().map(Integer::to_i64).collect();
    if let Some(w) = words {
        return array(py, w, m.rows(), m.cols());
    }
    let items = IntMaker::new(py)?.many(m.entries())?;
    let items = items.into_iter().map(Bound::unbind).collect();
    array(py, items, m.rows(), m.cols())
}

fn flint<'py>(py: Python<'py>, what: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("flint")?
        .getattr(what)
        .map_err(|e| PyImportError::new_err(format!("python-flint's {what}: {e}")))
}

/// python-flint's `fmpz_mat` from `rows` rows of Python ints of `cols` entries each
/// (its fastest constructor; an empty one by its shape).
pub fn fmpz_mat<'py>(rows: Bound<'py, PyList>, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    let make = flint(rows.py(), "fmpz_mat")?;
    match rows.is_empty() || cols == 0 {
        true => make.call1((rows.len(), cols, PyList::empty(rows.py()))),
        false => make.call1((rows,)),
    }
}

/// An integer matrix result (over Z) in the type `kind`.
pub fn integers<'py>(py: Python<'py>, kind: Kind, m: IntMatrix) -> PyResult<Bound<'py, PyAny>> {
    let rows = || int_rows(&IntMaker::new(py)?, m.entries(), m.rows());
    match kind {
        Kind::Matrix => Ok(Bound::new(py, Matrix::from(Held::from_integers(m)))?.into_any()),
        Kind::Numpy => int_array(py, &m),
        Kind::List => Ok(rows()?.into_any()),
        Kind::Fmpz | Kind::Nmod => fmpz_mat(rows()?, m.cols()),
    }
}

/// A result modulo the prime `p` (`rows` rows of residues) in the type `kind`: an
/// `nmod_mat` for python-flint's matrices, int64 for numpy.
pub fn residues<'py>(
    py: Python<'py>,
    kind: Kind,
    p: u32,
    rows: usize,
    cols: usize,
    data: &[u32],
) -> PyResult<Bound<'py, PyAny>> {
    let words = || data.par_iter().map(|&x| i64::from(x)).collect::<Vec<_>>();
    match kind {
        Kind::List => Ok(word_rows(py, data, rows)?.into_any()),
        Kind::Numpy => array(py, words(), rows, cols),
        Kind::Matrix => {
            let held = Held::from_words(rows, cols, words()).map_err(crate::error::to_py)?;
            Ok(Bound::new(py, Matrix::from(held))?.into_any())
        }
        Kind::Fmpz | Kind::Nmod => {
            // Through fmpz_mat: python-flint builds an nmod_mat from it fastest.
            let z = fmpz_mat(word_rows(py, data, rows)?, cols)?;
            flint(py, "nmod_mat")?.call1((z, p))
        }
    }
}

/// A rational result (over Q) in the type `kind`: rows of `Fraction`s, an object array
/// of them for numpy, an `fmpq_mat` for python-flint's matrices.
pub fn rationals<'py>(py: Python<'py>, kind: Kind, x: &RatMatrix) -> PyResult<Bound<'py, PyAny>> {
    let ints = IntMaker::new(py)?;
    match kind {
        Kind::List | Kind::Matrix => Ok(fraction_rows(&ints, x)?.into_any()),
        Kind::Numpy => {
            let items = fractions(&ints, x)?;
            let items = items.into_iter().map(Bound::unbind).collect();
            array(py, items, x.rows(), x.cols())
        }
        Kind::Fmpz | Kind::Nmod => {
            // fmpq_mat(N) / d for the common denominator d: python-flint reduces each
            // entry in C, where making an fmpq per entry costs a Python call each.
            let (d, numerators) = x.over_common_denominator();
            let z = fmpz_mat(int_rows(&ints, numerators.entries(), x.rows())?, x.cols())?;
            let q = flint(py, "fmpq_mat")?.call1((z,))?;
            q.div(ints.int(&d)?)
        }
    }
}

/// `(N, d)` for `X = N / d` over the common denominator `d`: `N` as [`integers`] makes
/// it, `d` an int (an `fmpz` for python-flint's matrices).
pub fn over_denominator<'py>(
    py: Python<'py>,
    kind: Kind,
    d: &Integer,
    n: IntMatrix,
) -> PyResult<Bound<'py, PyAny>> {
    let d = IntMaker::new(py)?.int(d)?;
    let d = match kind {
        Kind::Fmpz | Kind::Nmod => flint(py, "fmpz")?.call1((d,))?,
        _ => d,
    };
    Ok((integers(py, kind, n)?, d).into_pyobject(py)?.into_any())
}

/// `fractions.Fraction`s of the entries of `x`, made without a second gcd (the
/// library's rationals are already in lowest terms). The ints are made together
/// ([`IntMaker::many`]); a denominator equal to the one before is the same int object: a
/// solve's entries mostly share the whole common denominator.
fn fractions<'py>(ints: &IntMaker<'py>, x: &RatMatrix) -> PyResult<Vec<Bound<'py, PyAny>>> {
    let py = ints.py();
    let fraction = py.import("fractions")?.getattr("Fraction")?;
    // Python 3.12+: Fraction._from_coprime_ints; before, Fraction(n, d, _normalize=False).
    let coprime = fraction.getattr("_from_coprime_ints").ok();
    let kwargs = PyDict::new(py);
    kwargs.set_item("_normalize", false)?;
    let q = x.entries();
    let nums = ints.many(q.iter().map(Rational::numer))?;
    // Entry i's denominator is dens[which[i]].
    let mut which = Vec::with_capacity(q.len());
    let mut distinct: Vec<&Integer> = Vec::new();
    for (i, v) in q.iter().enumerate() {
        if i == 0 || v.denom() != q[i - 1].denom() {
            distinct.push(v.denom());
        }
        which.push(distinct.len() - 1);
    }
    let dens = ints.many(distinct)?;
    nums.into_iter()
        .zip(which)
        .map(|(n, w)| match &coprime {
            Some(f) => f.call1((n, &dens[w])),
            None => fraction.call((n, &dens[w]), Some(&kwargs)),
        })
        .collect()
}

/// Rows of `fractions.Fraction`s.
pub fn fraction_rows<'py>(ints: &IntMaker<'py>, x: &RatMatrix) -> PyResult<Bound<'py, PyList>> {
    let all = fractions(ints, x)?;
    let rows = rows_of(&all, x.rows())
        .map(|r| PyList::new(ints.py(), r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(ints.py(), rows)
}

/// A polynomial result (coefficients constant first) for a matrix of type `kind`: an
/// `fmpz_poly` (over Z) or `nmod_poly` (modulo `p`) for python-flint's matrices, else
/// a list of Python ints.
pub fn polynomial<'py>(
    py: Python<'py>,
    kind: Kind,
    coeffs: &[Integer],
    p: Option<u32>,
) -> PyResult<Bound<'py, PyAny>> {
    let list = IntMaker::new(py)?.list(coeffs)?;
    match (kind, p) {
        (Kind::Fmpz | Kind::Nmod, None) => flint(py, "fmpz_poly")?.call1((list,)),
        (Kind::Fmpz | Kind::Nmod, Some(p)) => flint(py, "nmod_poly")?.call1((list, p)),
        _ => Ok(list.into_any()),
    }
}
