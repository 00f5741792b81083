//! numpy arrays in and out. An integer array of any dtype (int8 … int64, uint8 …
//! uint64), order or strides is read through its buffer straight into machine words, on
//! all cores, with no Python object per entry; results go into new arrays the same way.
//! Object arrays (Python ints of any size) are read entry by entry, as a list's ints.

use crate::held::Entries;
use crate::ints::IntBuf;
use numpy::ndarray::{ArrayViewD, Ix2};
use numpy::{
    Element, PyArray1, PyArrayDescrMethods, PyReadonlyArrayDyn, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use rayon::prelude::*;
use rug::Integer;

/// Whether `ob` is a numpy array (checked without importing numpy).
pub fn is_ndarray(ob: &Bound<'_, PyAny>) -> bool {
    let t = ob.get_type();
    let module = t.module().map(|m| m.to_string()).unwrap_or_default();
    let name = t.name().map(|m| m.to_string()).unwrap_or_default();
    module == "numpy" && name == "ndarray"
}

/// The int64 entries of a C-order numpy array, read in place: the array is kept alive
/// by the reference held here, and numpy does not resize an array that is referenced.
pub struct InPlace {
    _array: Py<PyAny>,
    ptr: *const i64,
    len: usize,
}

// SAFETY: the entries are only read, and the array outlives this (its reference).
unsafe impl Send for InPlace {}
// SAFETY: as above.
unsafe impl Sync for InPlace {}

impl InPlace {
    /// The entries, row-major.
    pub fn as_slice(&self) -> &[i64] {
        // SAFETY: `ptr` points to `len` aligned int64s of the referenced array.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A C-order int64 array's entries in place (see [`InPlace`]), or None.
fn in_place(ob: &Bound<'_, PyAny>) -> Option<InPlace> {
    let a = ob.extract::<PyReadonlyArrayDyn<'_, i64>>().ok()?;
    // `as_slice` also takes a Fortran-order array, in memory order.
    if !a.is_c_contiguous() {
        return None;
    }
    let s = a.as_slice().ok()?;
    Some(InPlace {
        _array: ob.clone().unbind(),
        ptr: s.as_ptr(),
        len: s.len(),
    })
}

/// The shape and entries of a numpy integer array of `ndim` dimensions: machine words
/// unless some entry needs more than 64 bits (uint64 entries of 2^63 and more, large
/// Python ints in an array of dtype object). With
/// `borrow`, a C-order int64 array is read in place (for a call's argument, not for an
/// `rns.Matrix`, which must not change with the array).
pub fn read(ob: &Bound<'_, PyAny>, ndim: usize, borrow: bool) -> PyResult<(Vec<usize>, Entries)> {
    let arr = ob.cast::<PyUntypedArray>()?;
    if arr.ndim() != ndim {
        return Err(PyValueError::new_err(format!(
            "expected a {ndim}-dimensional array, got {} dimensions",
            arr.ndim()
        )));
    }
    let shape = arr.shape().to_vec();
    if borrow {
        if let Some(w) = in_place(ob) {
            return Ok((shape, Entries::InPlace(w)));
        }
    }
    // The copy's memory, checked before it is made (MemoryError when it does not fit).
    let what = format!("the 64-bit words of a numpy array of shape {shape:?}");
    rns::limits::check_bytes(arr.len() as u128 * 8, &what).map_err(crate::error::to_py)?;
    let dtype = arr.dtype();
    let words = match (dtype.kind(), dtype.itemsize()) {
        (b'i', 8) => words::<i64>(ob)?,
        (b'i', 4) => words::<i32>(ob)?,
        (b'i', 2) => words::<i16>(ob)?,
        (b'i', 1) => words::<i8>(ob)?,
        (b'u', 4) => words::<u32>(ob)?,
        (b'u', 2) => words::<u16>(ob)?,
        (b'u', 1) => words::<u8>(ob)?,
        (b'u', 8) => {
            let big = ob.extract::<PyReadonlyArrayDyn<'_, u64>>()?;
            let v = row_major(big.as_array(), |x: u64| x);
            return Ok((shape, from_u64(v)));
        }
        (b'O', _) => {
            // As a list's ints: words while every one fits, large ones read together.
            let a: PyReadonlyArrayDyn<'_, Py<PyAny>> = ob.extract()?;
            let mut buf = IntBuf::default();
            for x in a.as_array().iter() {
                buf.push(x.bind(ob.py()))?;
            }
            return Ok((shape, buf.finish_entries()));
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "expected integer entries, got a numpy array of dtype {}",
                dtype.str()?
            )))
        }
    };
    Ok((shape, Entries::Words(words)))
}

/// The entries of an array of dtype `T`, row-major, as `i64`s.
fn words<T: Element + Copy + Sync + Into<i64>>(ob: &Bound<'_, PyAny>) -> PyResult<Vec<i64>> {
    let a: PyReadonlyArrayDyn<'_, T> = ob.extract()?;
    Ok(row_major(a.as_array(), T::into))
}

/// uint64 entries as words when all are below 2^63, else as big integers.
fn from_u64(v: Vec<u64>) -> Entries {
    if v.par_iter().all(|&x| x <= i64::MAX as u64) {
        Entries::Words(v.into_par_iter().map(|x| x as i64).collect())
    } else {
        Entries::Ints(v.into_par_iter().map(Integer::from).collect())
    }
}

/// Rows of a strided 2-D array read a block at a time (so that a Fortran-order array is
/// read down its columns, which are contiguous).
const BLOCK_ROWS: usize = 64;

/// The entries of `view` in row-major order, converted by `f`, on all cores: one copy
/// for a C-order array, blocks of rows for any other layout.
fn row_major<T: Copy + Sync, U: Send + Default + Clone>(
    view: ArrayViewD<'_, T>,
    f: impl Fn(T) -> U + Sync,
) -> Vec<U> {
    if let Some(s) = view.as_slice() {
        return s.par_iter().map(|&x| f(x)).collect();
    }
    let Ok(m) = view.view().into_dimensionality::<Ix2>() else {
        return view.iter().map(|&x| f(x)).collect();
    };
    let (rows, cols) = m.dim();
    let mut out = vec![U::default(); rows * cols];
    if cols == 0 {
        return out;
    }
    out.par_chunks_mut(BLOCK_ROWS * cols)
        .enumerate()
        .for_each(|(b, chunk)| {
            let r0 = b * BLOCK_ROWS;
            let n = chunk.len() / cols;
            for j in 0..cols {
                for i in 0..n {
                    chunk[i * cols + j] = f(m[[r0 + i, j]]);
                }
            }
        });
    out
}

/// A new `rows × cols` array holding `data` (row-major): int64 for `i64`s, of dtype
/// object for Python objects.
pub fn array<'py, T: Element>(
    py: Python<'py>,
    data: Vec<T>,
    rows: usize,
    cols: usize,
) -> PyResult<Bound<'py, PyAny>> {
    PyArray1::from_vec(py, data)
        .into_any()
        .call_method1("reshape", ((rows, cols),))
}
