//! The solve and the inverse over Q or modulo p: the part of [`Engine`] that both share.

use crate::convert::Kind;
use crate::engine::{ints, reduce, Engine};
use crate::held::Held;
use crate::output;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rns::algo::estimate::MatrixKind;

/// `p`, refused with `denominator` (a solution modulo p has no denominator).
pub(crate) fn over_q(p: Option<u32>, denominator: bool) -> PyResult<Option<u32>> {
    match (p, denominator) {
        (Some(_), true) => Err(PyValueError::new_err(
            "denominator=True is for solutions over Q, not modulo p",
        )),
        _ => Ok(p),
    }
}

impl Engine {
    /// Solves `A X = B` (B the identity for the inverse): rationals over Q (or, with
    /// `common`, numerators and their common denominator), residues mod p, in the type
    /// `kind`.
    pub(crate) fn solve_with<'py>(
        &self,
        py: Python<'py>,
        kind: Kind,
        (a, b): (&Held, &Held),
        p: Option<u32>,
        (what, common): (MatrixKind, bool),
    ) -> PyResult<Bound<'py, PyAny>> {
        if a.rows() == 0 && !common {
            return Ok(PyList::empty(py).into_any());
        }
        match p {
            None => {
                let (ma, mb) = (ints(py, a), ints(py, b));
                if common {
                    let run = |be: &_| rns::solve_over_denominator(&ma, &mb, be);
                    let (d, x) = self.matrix_run(py, what, &[a, b], p, run)?;
                    return output::over_denominator(py, kind, &d, x);
                }
                let x = self.matrix_run(py, what, &[a, b], p, |be| rns::solve(&ma, &mb, be))?;
                output::rationals(py, kind, &x)
            }
            Some(p) => {
                let (ra, rb) = (reduce(py, a, p)?, reduce(py, b, p)?);
                let x = self.matrix_run(py, what, &[a, b], Some(p), |be| be.solve_mod(&ra, &rb))?;
                output::residues(py, kind, p, a.rows(), b.cols(), x.data())
            }
        }
    }
}
