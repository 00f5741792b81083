//! Python inputs to the library's types: matrices from lists of rows, numpy integer
//! arrays and python-flint's `fmpz_mat`/`nmod_mat` (duck-typed: python-flint is not a
//! dependency), polynomials from lists, numpy arrays and `fmpz_poly`, bivariate
//! polynomials from `{(i, j): c}` dicts (or anything with `to_dict()`, such as
//! `fmpz_mpoly` in the variables x, y). Results go back by [`crate::output`].

use crate::arrays::{self, is_ndarray};
use crate::held::{Entries, Held};
use crate::ints::{to_integer, IntBuf};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rug::Integer;
use std::sync::Arc;

/// The Python type a matrix argument came as: results are given back in it
/// (`docs/python.md` has the table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A list (or tuple, or iterable) of rows of ints.
    List,
    /// A numpy array.
    Numpy,
    /// python-flint's `fmpz_mat`.
    Fmpz,
    /// python-flint's `nmod_mat`.
    Nmod,
    /// An `rns.Matrix`.
    Matrix,
}

/// A matrix argument: its entries, the modulus it carries (an `nmod_mat`'s) and the
/// type it came as.
pub struct MatrixArg {
    /// The entries.
    pub held: Arc<Held>,
    /// The modulus of an `nmod_mat`.
    pub modulus: Option<u64>,
    /// The type it came as.
    pub kind: Kind,
}

fn type_name(ob: &Bound<'_, PyAny>) -> String {
    ob.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn is_text(ob: &Bound<'_, PyAny>) -> bool {
    ob.is_instance_of::<PyString>() || ob.is_instance_of::<PyBytes>()
}

/// The ints of a sequence (a list or tuple fast, any iterable otherwise).
fn int_items(ob: &Bound<'_, PyAny>, out: &mut IntBuf) -> PyResult<usize> {
    if is_text(ob) {
        return Err(PyTypeError::new_err(format!(
            "expected a sequence of ints, got {}",
            type_name(ob)
        )));
    }
    let start = out.len();
    if let Ok(list) = ob.cast::<PyList>() {
        out.push_list(list)?;
    } else if let Ok(t) = ob.cast::<PyTuple>() {
        out.push_tuple(t)?;
    } else {
        for x in ob.try_iter()? {
            out.push(&x?)?;
        }
    }
    Ok(out.len() - start)
}

fn not_a_matrix(ob: &Bound<'_, PyAny>) -> PyErr {
    PyTypeError::new_err(format!(
        "expected a matrix (a list of rows of ints, a 2-D numpy integer array, an fmpz_mat or nmod_mat, or an rns.Matrix), got {}",
        type_name(ob)
    ))
}

fn held(rows: usize, cols: usize, entries: Entries) -> PyResult<Arc<Held>> {
    let h = Held::new(rows, cols, entries).map_err(crate::error::to_py)?;
    Ok(Arc::new(h))
}

/// A matrix argument from a list (or tuple, or iterable) of rows, a numpy array or a
/// python-flint matrix (read by `entries()`, its fastest public export).
pub fn to_matrix(ob: &Bound<'_, PyAny>) -> PyResult<MatrixArg> {
    if is_text(ob) || ob.is_instance_of::<PyDict>() {
        return Err(not_a_matrix(ob));
    }
    if is_ndarray(ob) {
        let (shape, entries) = arrays::read(ob, 2, true)?;
        return Ok(MatrixArg {
            held: held(shape[0], shape[1], entries)?,
            modulus: None,
            kind: Kind::Numpy,
        });
    }
    if ob.hasattr("nrows")? && ob.hasattr("ncols")? && ob.hasattr("entries")? {
        let rows: usize = ob.call_method0("nrows")?.extract()?;
        let cols: usize = ob.call_method0("ncols")?.extract()?;
        let mut data = IntBuf::default();
        let entries = ob.call_method0("entries")?;
        let (modulus, kind) = if ob.hasattr("modulus")? {
            // An nmod_mat's entries (nmod) convert by int(), not by __index__.
            match entries.cast::<PyList>() {
                Ok(list) => list.iter().try_for_each(|x| data.push_int_of(&x))?,
                Err(_) => entries
                    .try_iter()?
                    .try_for_each(|x| data.push_int_of(&x?))?,
            }
            (Some(ob.call_method0("modulus")?.extract()?), Kind::Nmod)
        } else {
            int_items(&entries, &mut data)?;
            (None, Kind::Fmpz)
        };
        return Ok(MatrixArg {
            held: held(rows, cols, data.finish_entries())?,
            modulus,
            kind,
        });
    }
    let rows: Vec<Bound<'_, PyAny>> = match ob.try_iter() {
        Ok(it) => it.collect::<PyResult<_>>()?,
        Err(_) => return Err(not_a_matrix(ob)),
    };
    let mut data = IntBuf::default();
    let mut cols = None;
    for (i, row) in rows.iter().enumerate() {
        if row.hasattr("__index__")? {
            return Err(PyTypeError::new_err(
                "expected a matrix as a list of rows, got a flat list of ints (write [[...], ...])",
            ));
        }
        let len = int_items(row, &mut data)?;
        match cols {
            None => cols = Some(len),
            Some(c) if c != len => {
                return Err(PyValueError::new_err(format!(
                    "rows of different lengths: row 0 has {c} entries, row {i} has {len}"
                )))
            }
            _ => {}
        }
    }
    Ok(MatrixArg {
        held: held(rows.len(), cols.unwrap_or(0), data.finish_entries())?,
        modulus: None,
        kind: Kind::List,
    })
}

/// The coefficients of a univariate polynomial, constant term first: a list (or tuple or
/// iterable) of ints, a 1-D numpy integer array, or an `fmpz_poly` (whose zero has no
/// coefficients: it gives `[0]`). An empty list is an error.
pub fn to_poly(ob: &Bound<'_, PyAny>) -> PyResult<Vec<Integer>> {
    if ob.is_instance_of::<PyDict>() {
        return Err(PyTypeError::new_err(
            "a dict is a bivariate polynomial: use resultant_xy",
        ));
    }
    let coeffs = if is_ndarray(ob) {
        arrays::read(ob, 1, false)?.1.into_integers()
    } else if ob.hasattr("coeffs")? && ob.hasattr("degree")? {
        let mut buf = IntBuf::default();
        int_items(&ob.call_method0("coeffs")?, &mut buf)?;
        // An fmpz_poly's zero has no coefficients.
        match buf.is_empty() {
            true => vec![Integer::new()],
            false => buf.finish(),
        }
    } else if is_text(ob) || ob.try_iter().is_err() {
        return Err(PyTypeError::new_err(format!(
            "expected a polynomial (a list of int coefficients, constant term first, or an fmpz_poly), got {}",
            type_name(ob)
        )));
    } else {
        let mut buf = IntBuf::default();
        int_items(ob, &mut buf)?;
        buf.finish()
    };
    if coeffs.is_empty() {
        return Err(PyValueError::new_err(
            "empty polynomial: give its coefficients, constant term first ([0] for zero)",
        ));
    }
    Ok(coeffs)
}

/// The terms `(c, i, j)` of `Σ c·x^i·y^j` from a dict `{(i, j): c}` (or an object with
/// `to_dict()` giving one). An empty dict is an error.
pub fn to_terms(ob: &Bound<'_, PyAny>) -> PyResult<Vec<(Integer, usize, usize)>> {
    let owned;
    let dict = match ob.cast::<PyDict>() {
        Ok(d) => d,
        Err(_) if !is_text(ob) && ob.hasattr("to_dict")? => {
            owned = ob.call_method0("to_dict")?;
            owned.cast::<PyDict>()?
        }
        Err(_) => {
            return Err(PyTypeError::new_err(format!(
                "expected a bivariate polynomial as a dict {{(i, j): c}} for the terms c·x^i·y^j, got {}",
                type_name(ob)
            )))
        }
    };
    if dict.is_empty() {
        return Err(PyValueError::new_err(
            "empty polynomial: give its terms as {(i, j): c} ({(0, 0): 0} for zero)",
        ));
    }
    let mut terms = Vec::with_capacity(dict.len());
    for (k, v) in dict.iter() {
        let key = k.cast::<PyTuple>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a term's key must be a tuple (i, j) of exponents, got {}",
                type_name(&k)
            ))
        })?;
        if key.len() != 2 {
            return Err(PyValueError::new_err(format!(
                "a term's key must be (i, j), the exponents of x and y; got {} exponents",
                key.len()
            )));
        }
        let exp = |e: Bound<'_, PyAny>| -> PyResult<usize> {
            let e = to_integer(&e)?;
            e.to_usize().ok_or_else(|| {
                PyValueError::new_err(format!("an exponent must be a non-negative int, got {e}"))
            })
        };
        terms.push((
            to_integer(&v)?,
            exp(key.get_item(0)?)?,
            exp(key.get_item(1)?)?,
        ));
    }
    Ok(terms)
}
