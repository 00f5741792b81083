//! The library's errors as Python exceptions: `ValueError` for bad shapes, moduli and
//! polynomials, `ZeroDivisionError` for singular systems, `GpuUnavailable` (a
//! `RuntimeError`) when no GPU is usable, `GpuStalled` (a `RuntimeError`) when the GPU
//! made no progress for the stall limit, `MemoryError` when the GPU's memory or the
//! host's is too small, `KeyboardInterrupt` when Ctrl-C stopped the computation.

use pyo3::exceptions::{
    PyKeyboardInterrupt, PyMemoryError, PyOSError, PyRuntimeError, PyValueError,
    PyZeroDivisionError,
};
use pyo3::prelude::*;
use rns::Error;

pyo3::create_exception!(
    rns,
    GpuUnavailable,
    PyRuntimeError,
    "No usable CUDA GPU (no driver, no device, or it failed to start) for backend=\"gpu\"."
);

pyo3::create_exception!(
    rns,
    GpuStalled,
    PyRuntimeError,
    "The GPU made no progress for the stall limit (RNS_GPU_STALL_S, default 60 s): the call \
     gave up; the message says whether the device is usable again."
);

/// The Python exception for a library error.
pub fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match e {
        Error::Singular { .. } => PyZeroDivisionError::new_err(msg),
        Error::NoGpu { .. } => GpuUnavailable::new_err(msg),
        Error::GpuStalled { .. } => GpuStalled::new_err(msg),
        Error::GpuOutOfMemory { .. } | Error::OutOfMemory { .. } => PyMemoryError::new_err(msg),
        Error::Gpu { .. }
        | Error::Internal(_)
        | Error::DeviceMismatch { .. }
        | Error::Rank { .. }
        | Error::Cluster(_) => PyRuntimeError::new_err(msg),
        Error::Interrupted => PyKeyboardInterrupt::new_err(msg),
        Error::Io { .. } => PyOSError::new_err(msg),
        _ => PyValueError::new_err(msg),
    }
}
