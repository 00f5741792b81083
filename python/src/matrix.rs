//! `rns.Matrix`: an integer matrix converted once from Python objects and kept by the
//! library ([`Held`]), so that repeated work on it skips the conversion.

use crate::convert::{to_matrix, Kind, MatrixArg};
use crate::held::Held;
use crate::ints::IntMaker;
use crate::output::{fmpz_mat, held_array, held_rows};
use pyo3::exceptions::PyIndexError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use std::sync::Arc;

/// An integer matrix held by the engine: build it once from any matrix input (a list of
/// rows, a numpy integer array, an fmpz_mat) and pass it to det, rank, solve, inverse
/// and matmul as often as needed without converting it again. It keeps what the engine
/// needs: machine words when every entry fits in 64 bits, the big integers made for
/// work over Z, and the residues modulo the last prime used. Results computed from an
/// rns.Matrix are rns.Matrix too (except solutions over Q: lists of Fractions).
///
/// >>> import rns
/// >>> m = rns.Matrix([[1, 2], [3, 4]])
/// >>> rns.det(m), m[1, 0]
/// (-2, 3)
/// >>> rns.matmul(m, m).tolist()
/// [[7, 10], [15, 22]]
#[pyclass(frozen, module = "rns")]
pub struct Matrix {
    pub(crate) inner: Arc<Held>,
}

impl From<Held> for Matrix {
    fn from(m: Held) -> Matrix {
        Matrix { inner: Arc::new(m) }
    }
}

/// `i` counted from the end when negative, or IndexError outside `0 … len − 1`.
fn position(i: isize, len: usize, what: &str) -> PyResult<usize> {
    let j = if i < 0 { i + len as isize } else { i };
    if (0..len as isize).contains(&j) {
        Ok(j as usize)
    } else {
        Err(PyIndexError::new_err(format!(
            "{what} index {i} out of range for {len}"
        )))
    }
}

/// Two matrix arguments, read once when they are the same object (`A · A`).
pub fn matrix_args(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<(MatrixArg, MatrixArg)> {
    let first = matrix_arg(a)?;
    let second = match a.is(b) {
        true => MatrixArg {
            held: first.held.clone(),
            ..first
        },
        false => matrix_arg(b)?,
    };
    Ok((first, second))
}

/// A matrix argument: an `rns.Matrix` as it is (shared), anything else converted.
pub fn matrix_arg(ob: &Bound<'_, PyAny>) -> PyResult<MatrixArg> {
    if let Ok(m) = ob.cast::<Matrix>() {
        return Ok(MatrixArg {
            held: m.get().inner.clone(),
            modulus: None,
            kind: Kind::Matrix,
        });
    }
    to_matrix(ob)
}

#[pymethods]
impl Matrix {
    /// Matrix(A): converts A (a list of rows of ints, a 2-D numpy integer array, an
    /// fmpz_mat or nmod_mat, or another rns.Matrix) once.
    #[new]
    fn new(a: &Bound<'_, PyAny>) -> PyResult<Matrix> {
        Ok(Matrix {
            inner: matrix_arg(a)?.held.owned(),
        })
    }

    /// The number of rows.
    fn nrows(&self) -> usize {
        self.inner.rows()
    }

    /// The number of columns.
    fn ncols(&self) -> usize {
        self.inner.cols()
    }

    /// (rows, columns).
    #[getter]
    fn shape(&self) -> (usize, usize) {
        (self.inner.rows(), self.inner.cols())
    }

    /// The entries as a list of rows of Python ints.
    fn tolist<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        held_rows(py, &self.inner)
    }

    /// The entries as a 2-D numpy array: of dtype int64 when every entry fits in 64
    /// bits (no Python int is made), else of dtype object holding Python ints.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        held_array(py, &self.inner)
    }

    /// numpy's conversion protocol: `numpy.asarray(M)` is [`Matrix::to_numpy`], cast to
    /// `dtype` when one is asked for.
    #[pyo3(signature = (dtype=None, copy=None))]
    fn __array__<'py>(
        &self,
        py: Python<'py>,
        dtype: Option<Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let _ = copy; // always a new array
        let a = self.to_numpy(py)?;
        match dtype {
            Some(d) => a.call_method1("astype", (d,)),
            None => Ok(a),
        }
    }

    /// The matrix as python-flint's `fmpz_mat`; ImportError when python-flint is not
    /// installed.
    fn to_fmpz_mat<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        fmpz_mat(held_rows(py, &self.inner)?, self.inner.cols())
    }

    /// The number of rows.
    fn __len__(&self) -> usize {
        self.inner.rows()
    }

    /// `M[i, j]`: one entry as a Python int; `M[i]`: row `i` as a list of ints
    /// (negative indices count from the end).
    fn __getitem__<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (rows, cols) = (self.inner.rows(), self.inner.cols());
        let (span, row) = match key.extract::<(isize, isize)>() {
            Ok((i, j)) => {
                let k = position(i, rows, "row")? * cols + position(j, cols, "column")?;
                (k..k + 1, false)
            }
            Err(_) => {
                let i = position(key.extract::<isize>()?, rows, "row")?;
                (i * cols..(i + 1) * cols, true)
            }
        };
        let list = match self.inner.words() {
            Some(w) => PyList::new(py, &w[span])?,
            None => IntMaker::new(py)?.list(&self.inner.ints().entries()[span])?,
        };
        match row {
            true => Ok(list.into_any()),
            false => list.get_item(0),
        }
    }

    /// Iterates over the rows, each a list of Python ints.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tolist(py)?.try_iter().map(Bound::into_any)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Matrix>()
            .is_ok_and(|o| o.get().inner.same_entries(&self.inner))
    }

    fn __repr__(&self) -> String {
        format!(
            "rns.Matrix({}×{}, entries of up to {} bits)",
            self.inner.rows(),
            self.inner.cols(),
            self.inner.max_bits()
        )
    }
}
