//! The extension module `rns._rns` behind the Python package `rns` (see
//! `python/rns/__init__.py` for the functions users call and their documentation).
//!
//! - [`pylong`]: the running CPython's binary int converters, found at import.
//! - [`ints`]: Python ints ↔ `rug` integers, through their binary form.
//! - [`longdigits`]: many large Python ints written through their digits on all cores.
//! - [`arrays`]: numpy arrays read and written as machine words.
//! - [`held`]: a matrix in the forms the engine needs (words, integers, residues).
//! - [`convert`]: Python inputs (lists, numpy arrays, python-flint objects) → the
//!   library's matrices and polynomials.
//! - [`output`]: results in the type the caller's matrix came as.
//! - [`matrix`]: `rns.Matrix`, a matrix converted once.
//! - [`engine`]: `rns.Engine`, a backend and one method per computation.
//! - [`run`]: the GIL released during compute, Ctrl-C noticed between stages.
//! - [`error`]: the library's errors as Python exceptions.

pub mod arrays;
pub mod convert;
pub mod engine;
pub mod error;
pub mod held;
pub mod ints;
pub mod longdigits;
pub mod matrix;
pub mod output;
pub mod pylong;
pub mod run;
pub mod solve;

use pyo3::prelude::*;

/// The backends usable here: "cpu", and "gpu" when a CUDA device can be opened.
///
/// >>> import rns
/// >>> "cpu" in rns.backends()
/// True
#[pyfunction]
fn backends() -> Vec<&'static str> {
    let mut out = vec!["cpu"];
    if rns::backend::Gpu::get().is_ok() {
        out.push("gpu");
    }
    out
}

#[pymodule]
fn _rns(m: &Bound<'_, PyModule>) -> PyResult<()> {
    rns::limits::fit_allocator();
    let version = pylong::version(m.py());
    pylong::init(version);
    longdigits::init(m.py(), version);
    // How large ints cross (tests assert the fastest path is on where it should be).
    let path = match (longdigits::Digits::get(), pylong::Fast::get()) {
        (Some(_), _) => "digits",
        (None, Some(_)) => "converters",
        (None, None) => "limited",
    };
    m.add("_int_path", path)?;
    m.add_class::<engine::Engine>()?;
    m.add_class::<matrix::Matrix>()?;
    m.add("GpuUnavailable", m.py().get_type::<error::GpuUnavailable>())?;
    m.add("GpuStalled", m.py().get_type::<error::GpuStalled>())?;
    m.add_function(wrap_pyfunction!(backends, m)?)?;
    m.add_function(wrap_pyfunction!(ints::roundtrip, m)?)?;
    Ok(())
}
