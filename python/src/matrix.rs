//! `rns.Matrix`: an integer matrix converted once from Python objects and kept by the
//! library, so that repeated work on it skips the conversion.

use crate::convert::{int_rows, to_matrix, MatrixArg};
use crate::ints::IntMaker;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rns::IntMatrix;
use std::sync::Arc;

/// An integer matrix held by the engine: build it once from any matrix input (a list of
/// rows, a numpy integer array, an fmpz_mat) and pass it to det, rank, solve, inverse
/// and matmul as often as needed without converting it again.
#[pyclass(frozen, module = "rns")]
pub struct Matrix {
    pub(crate) inner: Arc<IntMatrix>,
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
