//! `rns.Matrix`: an integer matrix converted once from Python objects and kept by the
//! library, so that repeated work on it skips the conversion.

use crate::convert::{int_rows, to_matrix, MatrixArg};
use crate::ints::IntMaker;
use numpy::PyArray1;
use pyo3::exceptions::{PyImportError, PyIndexError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rns::IntMatrix;
use std::sync::Arc;

/// An integer matrix held by the engine: build it once from any matrix input (a list of
/// rows, a numpy integer array, an fmpz_mat) and pass it to det, rank, solve, inverse
/// and matmul as often as needed without converting it again.
///
/// >>> import rns
/// >>> m = rns.Matrix([[1, 2], [3, 4]])
/// >>> rns.det(m), m[1, 0]
/// (-2, 3)
/// >>> rns.matmul(m, m).tolist()
/// [[7, 10], [15, 22]]
#[pyclass(frozen, module = "rns")]
pub struct Matrix {
    pub(crate) inner: Arc<IntMatrix>,
}

impl From<IntMatrix> for Matrix {
    fn from(m: IntMatrix) -> Matrix {
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

/// A matrix argument: an `rns.Matrix` as it is (shared), anything else converted.
pub fn matrix_arg(ob: &Bound<'_, PyAny>) -> PyResult<(Arc<IntMatrix>, Option<u64>)> {
    if let Ok(m) = ob.cast::<Matrix>() {
        return Ok((m.get().inner.clone(), None));
    }
    let MatrixArg { matrix, modulus } = to_matrix(ob)?;
    Ok((Arc::new(matrix), modulus))
}

#[pymethods]
impl Matrix {
    /// Matrix(A): converts A (a list of rows of ints, a 2-D numpy integer array, an
    /// fmpz_mat or nmod_mat, or another rns.Matrix) once.
    #[new]
    fn new(a: &Bound<'_, PyAny>) -> PyResult<Matrix> {
        Ok(Matrix {
            inner: matrix_arg(a)?.0,
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
        int_rows(&IntMaker::new(py)?, self.inner.entries(), self.inner.rows())
    }

    /// The entries as a 2-D numpy array: of dtype int64 when every entry fits in 64
    /// bits (no Python int is made), else of dtype object holding Python ints.
    fn to_numpy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (rows, cols) = (self.inner.rows(), self.inner.cols());
        let small: Option<Vec<i64>> = self.inner.entries().iter().map(|x| x.to_i64()).collect();
        let flat = match small {
            Some(v) => PyArray1::from_vec(py, v).into_any(),
            None => {
                let list = IntMaker::new(py)?.list(self.inner.entries())?;
                let np = py.import("numpy")?;
                let kw = PyDict::new(py);
                kw.set_item("dtype", py.get_type::<PyAny>())?;
                np.call_method("array", (list,), Some(&kw))?
            }
        };
        flat.call_method1("reshape", ((rows, cols),))
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

    /// The matrix as python-flint's `fmpz_mat` (built from one flat list of ints);
    /// ImportError when python-flint is not installed.
    fn to_fmpz_mat<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let flint = py
            .import("flint")
            .map_err(|e| PyImportError::new_err(format!("to_fmpz_mat needs python-flint ({e})")))?;
        let list = IntMaker::new(py)?.list(self.inner.entries())?;
        flint
            .getattr("fmpz_mat")?
            .call1((self.inner.rows(), self.inner.cols(), list))
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
        let ints = IntMaker::new(py)?;
        if let Ok((i, j)) = key.extract::<(isize, isize)>() {
            let (i, j) = (position(i, rows, "row")?, position(j, cols, "column")?);
            return ints.int(&self.inner.entries()[i * cols + j]);
        }
        let i = position(key.extract::<isize>()?, rows, "row")?;
        Ok(ints
            .list(&self.inner.entries()[i * cols..(i + 1) * cols])?
            .into_any())
    }

    /// Iterates over the rows, each a list of Python ints.
    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.tolist(py)?.try_iter().map(Bound::into_any)
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<Matrix>()
            .is_ok_and(|o| *o.get().inner == *self.inner)
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
