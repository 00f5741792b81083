//! Python inputs to the library's types: matrices from lists of rows, numpy integer
//! arrays and python-flint's `fmpz_mat`/`nmod_mat` (duck-typed: python-flint is not a
//! dependency), polynomials from lists, numpy arrays and `fmpz_poly`, bivariate
//! polynomials from `{(i, j): c}` dicts (or anything with `to_dict()`, such as
//! `fmpz_mpoly` in the variables x, y); and results back to lists, ints and `Fraction`s.

use crate::ints::{to_integer, IntBuf, IntMaker};
use numpy::{
    Element, PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple};
use rns::{IntMatrix, RatMatrix};
use rug::Integer;

/// A matrix argument: its entries, and the modulus it carries (an `nmod_mat`'s).
pub struct MatrixArg {
    /// The entries.
    pub matrix: IntMatrix,
    /// The modulus of an `nmod_mat`.
    pub modulus: Option<u64>,
}

fn type_name(ob: &Bound<'_, PyAny>) -> String {
    ob.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

/// Whether `ob` is a numpy array (checked without importing numpy).
fn is_ndarray(ob: &Bound<'_, PyAny>) -> bool {
    let t = ob.get_type();
    let module = t.module().map(|m| m.to_string()).unwrap_or_default();
    module == "numpy" && type_name(ob) == "ndarray"
}

fn is_text(ob: &Bound<'_, PyAny>) -> bool {
    ob.is_instance_of::<PyString>() || ob.is_instance_of::<PyBytes>()
}

/// The entries of a numpy integer array of `ndim` dimensions, row-major, with its shape.
fn ndarray_ints(ob: &Bound<'_, PyAny>, ndim: usize) -> PyResult<(Vec<usize>, Vec<Integer>)> {
    let arr = ob.cast::<PyUntypedArray>()?;
    if arr.ndim() != ndim {
        return Err(PyValueError::new_err(format!(
            "expected a {ndim}-dimensional array, got {} dimensions",
            arr.ndim()
        )));
    }
    let shape = arr.shape().to_vec();
    let kind = arr.dtype().kind();
    let data = match (kind, arr.dtype().itemsize()) {
        (b'i', 8) => typed::<i64>(ob)?,
        (b'i', 4) => typed::<i32>(ob)?,
        (b'i', 2) => typed::<i16>(ob)?,
        (b'i', 1) => typed::<i8>(ob)?,
        (b'u', 8) => typed::<u64>(ob)?,
        (b'u', 4) => typed::<u32>(ob)?,
        (b'u', 2) => typed::<u16>(ob)?,
        (b'u', 1) => typed::<u8>(ob)?,
        (b'O', _) => {
            let a: PyReadonlyArrayDyn<Py<PyAny>> = ob.extract()?;
            let items = a.as_array();
            items
                .iter()
                .map(|x| to_integer(x.bind(ob.py())))
                .collect::<PyResult<_>>()?
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "expected integer entries, got a numpy array of dtype {}",
                arr.dtype().str()?
            )))
        }
    };
    Ok((shape, data))
}

/// The entries, in logical (row-major) order, of an array whose dtype is `T`.
fn typed<T: Element + Copy + Into<Integer>>(ob: &Bound<'_, PyAny>) -> PyResult<Vec<Integer>> {
    let a: PyReadonlyArrayDyn<T> = ob.extract()?;
    let items = a.as_array();
    Ok(items.iter().map(|&x| x.into()).collect())
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
        for x in list.iter() {
            out.push(&x)?;
        }
    } else if let Ok(t) = ob.cast::<PyTuple>() {
        for x in t.iter() {
            out.push(&x)?;
        }
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

/// A matrix argument from a list (or tuple, or iterable) of rows, a numpy array or a
/// python-flint matrix.
pub fn to_matrix(ob: &Bound<'_, PyAny>) -> PyResult<MatrixArg> {
    if is_text(ob) || ob.is_instance_of::<PyDict>() {
        return Err(not_a_matrix(ob));
    }
    if is_ndarray(ob) {
        let (shape, data) = ndarray_ints(ob, 2)?;
        return Ok(MatrixArg {
            matrix: IntMatrix::new(shape[0], shape[1], data).map_err(crate::error::to_py)?,
            modulus: None,
        });
    }
    if ob.hasattr("nrows")? && ob.hasattr("ncols")? && ob.hasattr("entries")? {
        let rows: usize = ob.call_method0("nrows")?.extract()?;
        let cols: usize = ob.call_method0("ncols")?.extract()?;
        let mut data = IntBuf::default();
        let entries = ob.call_method0("entries")?;
        let modulus = if ob.hasattr("modulus")? {
            // An nmod_mat's entries (nmod) convert by int(), not by __index__.
            let int = ob.py().get_type::<PyInt>();
            for x in entries.try_iter()? {
                data.push(&int.call1((x?,))?)?;
            }
            Some(ob.call_method0("modulus")?.extract()?)
        } else {
            int_items(&entries, &mut data)?;
            None
        };
        let matrix = IntMatrix::new(rows, cols, data.finish()).map_err(crate::error::to_py)?;
        return Ok(MatrixArg { matrix, modulus });
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
    let matrix = IntMatrix::new(rows.len(), cols.unwrap_or(0), data.finish())
        .map_err(crate::error::to_py)?;
    Ok(MatrixArg {
        matrix,
        modulus: None,
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
        ndarray_ints(ob, 1)?.1
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
    let out = rows_of(values, rows)
        .map(|r| ints.list(r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(ints.py(), out)
}

/// Rows of Python ints from the residues of a matrix with `rows` rows.
pub fn residue_rows<'py>(
    py: Python<'py>,
    values: &[u32],
    rows: usize,
) -> PyResult<Bound<'py, PyList>> {
    let out = rows_of(values, rows)
        .map(|r| PyList::new(py, r))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, out)
}

/// Rows of `fractions.Fraction`s (built without a second gcd: the library's rationals are
/// already in lowest terms).
pub fn fraction_rows<'py>(ints: &IntMaker<'py>, x: &RatMatrix) -> PyResult<Bound<'py, PyList>> {
    let py = ints.py();
    let fraction = py.import("fractions")?.getattr("Fraction")?;
    // Python 3.12+: Fraction._from_coprime_ints; before, Fraction(n, d, _normalize=False).
    let coprime = fraction.getattr("_from_coprime_ints").ok();
    let kwargs = PyDict::new(py);
    kwargs.set_item("_normalize", false)?;
    let make = |q: &rug::Rational| -> PyResult<Bound<'py, PyAny>> {
        let (n, d) = (ints.int(q.numer())?, ints.int(q.denom())?);
        match &coprime {
            Some(f) => f.call1((n, d)),
            None => fraction.call((n, d), Some(&kwargs)),
        }
    };
    let rows = rows_of(x.entries(), x.rows())
        .map(|r| {
            let items = r.iter().map(make).collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, rows)
}
