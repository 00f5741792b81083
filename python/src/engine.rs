//! `rns.Engine`: a backend choice (and, for a GPU, the device whose context it holds),
//! with one method per computation. The module's functions call a default engine.

use crate::convert::{to_poly, to_terms, Kind};
use crate::error::to_py;
use crate::held::Held;
use crate::ints::{to_integer, IntMaker};
use crate::matrix::{matrix_arg, matrix_args};
use crate::output;
use crate::run::compute;
use crate::solve::over_q;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rns::algo::estimate::{self, Dims, MatrixKind};
use rns::backend::auto::Chooser;
use rns::backend::cost::Estimate;
use rns::backend::gpu::Expecting;
use rns::backend::BackendChoice;
use rns::mat::matrix::{require_product, require_rhs, require_square};
use rns::mat::modmat::MatrixPolynomial;
use rns::{Backend, BiPoly, Devices, IntMatrix, IntPoly, ModMatrices, RatMatrix};
use rns_core::Modulus;
use rug::Integer;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Engine(backend="auto", device=None, devices=None): where the computations run. "cpu"
/// uses all cores; "gpu" uses every usable CUDA device (the default), or device
/// `device`, or the devices `devices` (a list of ordinals, or "all"), opened now
/// (GpuUnavailable if they are not usable): each computation's primes are shared among
/// them and a large Dixon lifting (det, solve) is split by rows across devices with
/// peer access; "auto" asks the cost model per call and opens the GPUs the first time
/// they pay.
///
/// >>> import rns
/// >>> cpu = rns.Engine("cpu")
/// >>> cpu.det([[2, 1], [1, 3]]), cpu.rank([[1, 2], [2, 4]])
/// (5, 1)
/// >>> cpu.resultant([-2, 0, 1], [-3, 0, 1], mod=2147483647)
/// 1
#[pyclass(frozen, module = "rns")]
pub struct Engine {
    chooser: Chooser,
    /// Nanoseconds of the library's own work in the last call (conversions excluded).
    last_ns: AtomicU64,
}

/// The prime of a call: `mod=` if given, else the modulus the inputs carry (nmod_mat);
/// validated as a prime in (2^30, 2^31).
fn modulus(arg: Option<&Bound<'_, PyAny>>, carried: &[Option<u64>]) -> PyResult<Option<u32>> {
    let mut from_inputs: Option<u64> = None;
    for &c in carried.iter().flatten() {
        if from_inputs.is_some_and(|q| q != c) {
            return Err(PyValueError::new_err(format!(
                "the matrices have different moduli ({} and {c})",
                from_inputs.unwrap_or(0)
            )));
        }
        from_inputs = Some(c);
    }
    let given = match arg {
        Some(o) if !o.is_none() => Some(to_integer(o)?),
        _ => None,
    };
    let p = match (given, from_inputs) {
        (Some(p), Some(c)) if p != c => {
            return Err(PyValueError::new_err(format!(
                "mod={p} but the input matrix is modulo {c}"
            )))
        }
        (Some(p), _) => p,
        (None, Some(c)) => Integer::from(c),
        (None, None) => return Ok(None),
    };
    let bad = || {
        PyValueError::new_err(format!(
            "modulus {p}: the modulus must be a prime between 2^30 and 2^31"
        ))
    };
    let q = p.to_u32().ok_or_else(bad)?;
    Modulus::new(q).map_err(|e| to_py(e.into()))?;
    Ok(Some(q))
}

fn nonzero(coeffs: &[Integer]) -> bool {
    coeffs.iter().any(|c| *c != 0)
}

impl Engine {
    /// The backend for work estimated by `est` ([`Chooser::backend`], the CLI's choice).
    fn backend(&self, est: Estimate) -> PyResult<Backend> {
        self.chooser.backend(est).map_err(to_py)
    }

    /// Runs `f` on the backend the estimate `est` picks.
    fn run<T: Send>(
        &self,
        py: Python<'_>,
        est: Estimate,
        f: impl FnOnce(&Backend) -> rns::Result<T> + Send,
    ) -> PyResult<T> {
        let be = self.backend(est)?;
        let start = Instant::now();
        let expected_ms = est.on(be.gpu().is_some());
        // Host waits on the device allow 20 times this (rns::backend::gpu::Expecting).
        let _expecting = Expecting::new(expected_ms / 1e3);
        let out = compute(py, expected_ms, || f(&be));
        self.last_ns
            .store(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
        out
    }

    /// [`Engine::run`] of a matrix operation of kind `kind` on `inputs` (modulo `p`, if
    /// given): the backend chosen by its estimate.
    pub(crate) fn matrix_run<T: Send>(
        &self,
        py: Python<'_>,
        kind: MatrixKind,
        inputs: &[&Held],
        p: Option<u32>,
        f: impl FnOnce(&Backend) -> rns::Result<T> + Send,
    ) -> PyResult<T> {
        let d: Vec<Dims> = py.detach(|| {
            let dims = |m: &&Held| Dims {
                rows: m.rows(),
                cols: m.cols(),
                bits: m.max_bits(),
            };
            inputs.iter().map(dims).collect()
        });
        self.run(py, estimate::matrix(kind, &d, p.is_some()), f)
    }
}

fn square(a: &Held, what: &str) -> PyResult<()> {
    require_square(a.rows(), a.cols(), what)
        .map(drop)
        .map_err(to_py)
}

/// The integers of `a`, made (from machine words) without the GIL.
pub(crate) fn ints(py: Python<'_>, a: &Held) -> Arc<IntMatrix> {
    py.detach(|| a.ints())
}

/// The residues of `a` modulo `p`, made without the GIL.
pub(crate) fn reduce(py: Python<'_>, a: &Held, p: u32) -> PyResult<Arc<ModMatrices>> {
    py.detach(|| a.residues(p)).map_err(to_py)
}

#[pymethods]
impl Engine {
    #[new]
    #[pyo3(signature = (backend = "auto", device = None, devices = None))]
    fn new(
        backend: &str,
        device: Option<usize>,
        devices: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Engine> {
        let one = || device.map_or(Devices::All, |d| Devices::List(vec![d]));
        let devices = match devices {
            None => one(),
            Some(d) if d.is_none() => one(),
            Some(d) => match d.extract::<String>() {
                Ok(s) if s == "all" => Devices::All,
                Ok(s) => {
                    return Err(PyValueError::new_err(format!(
                        "devices must be \"all\" or a list of device ordinals, got {s:?}"
                    )))
                }
                Err(_) => Devices::list(d.extract::<Vec<usize>>()?).map_err(to_py)?,
            },
        };
        let choice = BackendChoice::from_name(backend).ok_or_else(|| {
            PyValueError::new_err(format!(
                "backend must be \"auto\", \"cpu\" or \"gpu\", got {backend:?}"
            ))
        })?;
        if choice == BackendChoice::Gpu {
            devices.open().map_err(to_py)?;
        }
        Ok(Engine {
            chooser: Chooser::new(choice, devices),
            last_ns: AtomicU64::new(0),
        })
    }

    /// The backend asked for: "auto", "cpu" or "gpu".
    #[getter]
    fn backend_name(&self) -> &'static str {
        self.chooser.choice().name()
    }

    /// The (first) CUDA device ordinal of the GPU backend.
    #[getter]
    fn device(&self) -> usize {
        self.chooser.devices().first()
    }

    /// The CUDA devices of the GPU backend: a list of ordinals, or "all".
    #[getter]
    fn devices(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        Ok(match self.chooser.devices() {
            Devices::All => "all".into_pyobject(py)?.into_any().unbind(),
            Devices::List(l) => l.clone().into_pyobject(py)?.into_any().unbind(),
        })
    }

    /// Seconds the library itself took in this engine's last computation: the call
    /// without the conversions of its inputs and outputs (for measuring their share).
    #[getter]
    fn last_seconds(&self) -> f64 {
        self.last_ns.load(Ordering::Relaxed) as f64 * 1e-9
    }

    fn __repr__(&self) -> String {
        format!(
            "rns.Engine(backend={:?}, devices={})",
            self.backend_name(),
            match self.chooser.devices() {
                Devices::All => "'all'".to_string(),
                Devices::List(l) => format!("{l:?}"),
            }
        )
    }

    /// det(A, *, mod=None): the determinant (see rns.det).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn det<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arg = matrix_arg(a)?;
        let (a, p) = (&*arg.held, modulus(r#mod, &[arg.modulus])?);
        square(a, "the determinant")?;
        let maker = IntMaker::new(py)?;
        if a.rows() == 0 {
            return maker.int(&Integer::from(1));
        }
        match p {
            None => {
                let m = ints(py, a);
                let d = self.matrix_run(py, MatrixKind::Det, &[a], p, |be| rns::det(&m, be))?;
                maker.int(&d)
            }
            Some(p) => {
                let r = reduce(py, a, p)?;
                let d = self.matrix_run(py, MatrixKind::Det, &[a], Some(p), |be| {
                    Ok(be.det_mod(&r)?[0])
                })?;
                Ok(d.into_pyobject(py)?.into_any())
            }
        }
    }

    /// rank(A, *, mod=None): the rank (see rns.rank).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn rank(
        &self,
        py: Python<'_>,
        a: &Bound<'_, PyAny>,
        r#mod: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<usize> {
        let arg = matrix_arg(a)?;
        let (a, p) = (&*arg.held, modulus(r#mod, &[arg.modulus])?);
        if a.rows() == 0 || a.cols() == 0 {
            return Ok(0);
        }
        match p {
            None => {
                let m = ints(py, a);
                self.matrix_run(py, MatrixKind::Rank, &[a], p, |be| rns::rank(&m, be))
            }
            Some(p) => {
                let r = reduce(py, a, p)?;
                self.matrix_run(py, MatrixKind::Rank, &[a], Some(p), |be| {
                    Ok(be.rank_mod(&r)?[0])
                })
            }
        }
    }

    /// rref(A, *, mod=None): the reduced row echelon form and the rank (see rns.rref).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn rref<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let arg = matrix_arg(a)?;
        let p = modulus(r#mod, &[arg.modulus])?;
        let (kind, a) = (arg.kind, &*arg.held);
        let (m, n) = (a.rows(), a.cols());
        let empty = m == 0 || n == 0;
        match p {
            None if empty => {
                let zero = RatMatrix::new(m, n, Vec::new()).map_err(to_py)?;
                Ok((output::rationals(py, kind, &zero)?, 0))
            }
            Some(p) if empty => Ok((output::residues(py, kind, p, m, n, &[])?, 0)),
            None => {
                let ints = ints(py, a);
                let r =
                    self.matrix_run(py, MatrixKind::Rref, &[a], p, |be| rns::rref(&ints, be))?;
                Ok((output::rationals(py, kind, &r.matrix)?, r.rank))
            }
            Some(p) => {
                let r = reduce(py, a, p)?;
                let e =
                    self.matrix_run(py, MatrixKind::Rref, &[a], Some(p), |be| be.rref_mod(&r))?;
                let form = output::residues(py, kind, p, m, n, e.rref.data())?;
                Ok((form, e.ranks[0]))
            }
        }
    }

    /// nullspace(A, *, mod=None): a basis as columns and the nullity (see rns.nullspace).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn nullspace<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyAny>, usize)> {
        let arg = matrix_arg(a)?;
        let p = modulus(r#mod, &[arg.modulus])?;
        let (kind, a) = (arg.kind, &*arg.held);
        let (m, n) = (a.rows(), a.cols());
        if m == 0 || n == 0 {
            // Every vector: the identity's columns.
            return match p {
                None => Ok((output::integers(py, kind, IntMatrix::identity(n))?, n)),
                Some(p) => {
                    let one: Vec<u32> = (0..n * n).map(|k| (k / n == k % n) as u32).collect();
                    Ok((output::residues(py, kind, p, n, n, &one)?, n))
                }
            };
        }
        match p {
            None => {
                let ints = ints(py, a);
                let x = self.matrix_run(py, MatrixKind::Nullspace, &[a], p, |be| {
                    rns::nullspace(&ints, be)
                })?;
                let k = x.cols();
                Ok((output::integers(py, kind, x)?, k))
            }
            Some(p) => {
                let r = reduce(py, a, p)?;
                let x = self.matrix_run(py, MatrixKind::Nullspace, &[a], Some(p), |be| {
                    Ok(be.rref_mod(&r)?.nullspace(0))
                })?;
                let k = x.cols();
                Ok((output::residues(py, kind, p, n, k, x.data())?, k))
            }
        }
    }

    /// charpoly(A, *, mod=None): the characteristic polynomial (see rns.charpoly).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn charpoly<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.matrix_polynomial(py, a, r#mod, MatrixPolynomial::Characteristic)
    }

    /// minpoly(A, *, mod=None): the minimal polynomial (see rns.minpoly).
    #[pyo3(signature = (a, *, r#mod = None))]
    fn minpoly<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.matrix_polynomial(py, a, r#mod, MatrixPolynomial::Minimal)
    }

    /// matmul(A, B, *, mod=None): the product (see rns.matmul), in A's type (an
    /// rns.Matrix when A or B is one).
    #[pyo3(signature = (a, b, *, r#mod = None))]
    fn matmul<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (a, b) = matrix_args(a, b)?;
        let p = modulus(r#mod, &[a.modulus, b.modulus])?;
        let kind = match b.kind {
            Kind::Matrix => Kind::Matrix,
            _ => a.kind,
        };
        let (a, b) = (&*a.held, &*b.held);
        require_product((a.rows(), a.cols()), (b.rows(), b.cols())).map_err(to_py)?;
        let (n, k, l) = (a.rows(), a.cols(), b.cols());
        let empty = n == 0 || k == 0 || l == 0;
        match p {
            Some(p) => {
                if empty {
                    return output::residues(py, kind, p, n, l, &vec![0; n * l]);
                }
                let (ra, rb) = (reduce(py, a, p)?, reduce(py, b, p)?);
                let c = self.matrix_run(py, MatrixKind::Matmul, &[a, b], Some(p), |be| {
                    be.matmul_mod(&ra, &rb)
                })?;
                output::residues(py, kind, p, n, l, c.data())
            }
            None => {
                let c = if empty {
                    IntMatrix::new(n, l, vec![Integer::new(); n * l]).map_err(to_py)?
                } else {
                    let (ma, mb) = (ints(py, a), ints(py, b));
                    self.matrix_run(py, MatrixKind::Matmul, &[a, b], p, |be| {
                        rns::matmul(&ma, &mb, be)
                    })?
                };
                output::integers(py, kind, c)
            }
        }
    }

    /// solve(A, B, *, mod=None, denominator=False): the solution X of A X = B (see
    /// rns.solve).
    #[pyo3(signature = (a, b, *, r#mod = None, denominator = false))]
    fn solve<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        b: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
        denominator: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (a, b) = matrix_args(a, b)?;
        let p = over_q(modulus(r#mod, &[a.modulus, b.modulus])?, denominator)?;
        square(&a.held, "solving A X = B")?;
        require_rhs(a.held.rows(), b.held.rows()).map_err(to_py)?;
        let what = (MatrixKind::Solve, denominator);
        self.solve_with(py, a.kind, (&a.held, &b.held), p, what)
    }

    /// inverse(A, *, mod=None, denominator=False): the inverse (see rns.inverse).
    #[pyo3(signature = (a, *, r#mod = None, denominator = false))]
    fn inverse<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
        denominator: bool,
    ) -> PyResult<Bound<'py, PyAny>> {
        let a = matrix_arg(a)?;
        let p = over_q(modulus(r#mod, &[a.modulus])?, denominator)?;
        square(&a.held, "the inverse")?;
        let (n, held) = (a.held.rows(), &*a.held);
        match p {
            Some(p) if n > 0 => {
                let r = reduce(py, held, p)?;
                let x = self.matrix_run(py, MatrixKind::Inverse, &[held, held], Some(p), |be| {
                    be.inverse_mod(&r)
                })?;
                output::residues(py, a.kind, p, n, n, x.data())
            }
            _ => {
                let id = Held::from_ints(IntMatrix::identity(n));
                let what = (MatrixKind::Inverse, denominator);
                self.solve_with(py, a.kind, (held, &id), p, what)
            }
        }
    }

    /// resultant(f, g, *, mod=None): the resultant (see rns.resultant).
    #[pyo3(signature = (f, g, *, r#mod = None))]
    fn resultant<'py>(
        &self,
        py: Python<'py>,
        f: &Bound<'py, PyAny>,
        g: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (f, g) = (to_poly(f)?, to_poly(g)?);
        let p = modulus(r#mod, &[])?;
        let ints = IntMaker::new(py)?;
        let r = if nonzero(&f) && nonzero(&g) {
            let f = IntPoly::new(f).map_err(to_py)?;
            let g = IntPoly::new(g).map_err(to_py)?;
            self.run(py, rns::algo::estimate::resultant(&f, &g), |be| {
                rns::resultant(&f, &g, be)
            })?
        } else {
            Integer::new() // FLINT's convention: a resultant with the zero polynomial is 0
        };
        match p {
            None => ints.int(&r),
            Some(p) => Ok(r.mod_u(p).into_pyobject(py)?.into_any()),
        }
    }

    /// resultant_xy(f, g, *, mod=None): res_y(f, g) in Z[x] (see rns.resultant_xy).
    #[pyo3(signature = (f, g, *, r#mod = None))]
    fn resultant_xy<'py>(
        &self,
        py: Python<'py>,
        f: &Bound<'py, PyAny>,
        g: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let (f, g) = (to_terms(f)?, to_terms(g)?);
        let p = modulus(r#mod, &[])?;
        let ints = IntMaker::new(py)?;
        let zero = |t: &[(Integer, usize, usize)]| t.iter().all(|(c, _, _)| *c == 0);
        if zero(&f) || zero(&g) {
            return Ok(PyList::empty(py));
        }
        let f = BiPoly::new(f).map_err(to_py)?;
        let g = BiPoly::new(g).map_err(to_py)?;
        let est = rns::algo::estimate::resultant_xy(&f, &g);
        let mut r = self.run(py, est, |be| rns::resultant_xy(&f, &g, be))?;
        if let Some(p) = p {
            for c in &mut r {
                *c = Integer::from(c.mod_u(p));
            }
        }
        while r.last().is_some_and(|c| *c == 0) {
            r.pop();
        }
        ints.list(&r)
    }
}

impl Engine {
    /// The characteristic or minimal polynomial of a square matrix, over Z or modulo
    /// `mod`, in the output type of `a`'s kind (coefficients to the degree).
    fn matrix_polynomial<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        r#mod: Option<&Bound<'py, PyAny>>,
        which: MatrixPolynomial,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arg = matrix_arg(a)?;
        let p = modulus(r#mod, &[arg.modulus])?;
        let (kind, a) = (arg.kind, &*arg.held);
        square(a, which.name())?;
        let characteristic = which == MatrixPolynomial::Characteristic;
        let kind_of = match characteristic {
            true => MatrixKind::Charpoly,
            false => MatrixKind::Minpoly,
        };
        let coeffs = match p {
            _ if a.rows() == 0 => vec![Integer::from(1)],
            None => {
                let m = ints(py, a);
                self.matrix_run(py, kind_of, &[a], p, |be| match characteristic {
                    true => rns::charpoly(&m, be),
                    false => rns::minpoly(&m, be),
                })?
            }
            Some(p) => {
                let r = reduce(py, a, p)?;
                let mut c =
                    self.matrix_run(py, kind_of, &[a], Some(p), |be| match characteristic {
                        true => be.charpoly_mod(&r),
                        false => be.minpoly_mod(&r),
                    })?;
                c.truncate(MatrixPolynomial::degree(&c) + 1);
                c.into_iter().map(Integer::from).collect()
            }
        };
        output::polynomial(py, kind, &coeffs, p)
    }
}
