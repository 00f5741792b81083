//! Python ints and `rug` integers, through their binary form: a machine-size int in one
//! C call, a larger one through its 30-bit digits ([`crate::longdigits`], many at once
//! on all cores), else as 64-bit limbs through the interpreter's own converters
//! ([`crate::pylong`]), or, where those are missing, as the little-endian bytes of its
//! absolute value (`int.to_bytes` / `int.from_bytes`). Decimal strings are kept only for
//! the measurement that chose this ([`roundtrip`]).

use crate::held::Entries;
use crate::longdigits::Digits;
use crate::pylong::{self, Fast};
use pyo3::exceptions::PyValueError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyList, PyTuple};
use rayon::prelude::*;
use rug::integer::Order;
use rug::Integer;
use std::cell::RefCell;

/// `ob` as an int: itself when it is one, else `operator.index(ob)` (a `TypeError` for
/// floats, strings and other non-integers).
fn index<'py>(ob: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if ob.is_exact_instance_of::<PyInt>() {
        return Ok(ob.clone());
    }
    // SAFETY: PyNumber_Index returns a new reference or NULL with an exception set.
    unsafe { Bound::from_owned_ptr_or_err(ob.py(), ffi::PyNumber_Index(ob.as_ptr())) }
}

/// A Python int (or any object with `__index__`: numpy integers, python-flint's `fmpz`)
/// as an [`Integer`].
pub fn to_integer(ob: &Bound<'_, PyAny>) -> PyResult<Integer> {
    let int = index(ob)?;
    let mut overflow = 0;
    // SAFETY: `int` is a live int object; the overflow flag is ours.
    let v = unsafe { ffi::PyLong_AsLongLongAndOverflow(int.as_ptr(), &mut overflow) };
    let py = ob.py();
    if overflow == 0 {
        if v == -1 {
            if let Some(e) = PyErr::take(py) {
                return Err(e);
            }
        }
        return Ok(Integer::from(v));
    }
    if let Some(fast) = Fast::get() {
        return big_integer(fast, &int);
    }
    let abs = if overflow < 0 { int.neg()? } else { int };
    // |x| < 2^64 (64-bit entries): one more C call.
    // SAFETY: `abs` is a live int object; an overflow sets an exception, cleared below.
    let u = unsafe { ffi::PyLong_AsUnsignedLongLong(abs.as_ptr()) };
    if u == u64::MAX && PyErr::occurred(py) {
        PyErr::take(py); // OverflowError: |x| ≥ 2^64, the bytes path below
    } else {
        let x = Integer::from(u);
        return Ok(if overflow < 0 { -x } else { x });
    }
    let bits: usize = abs.call_method0(intern!(py, "bit_length"))?.extract()?;
    let little = intern!(py, "little");
    let bytes = abs.call_method1(intern!(py, "to_bytes"), (bits.div_ceil(8), little))?;
    let bytes = bytes.cast::<PyBytes>()?;
    let x = Integer::from_digits(bytes.as_bytes(), Order::Lsf);
    Ok(if overflow < 0 { -x } else { x })
}

thread_local! {
    /// Scratch limbs for one int at a time.
    static LIMBS: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// The int `int` (an exact int) read as limbs by the interpreter's converters.
fn big_integer(fast: &Fast, int: &Bound<'_, PyAny>) -> PyResult<Integer> {
    LIMBS.with_borrow_mut(|limbs| {
        // SAFETY: `int` is a live int object and the GIL is held.
        if !unsafe { fast.read(int.as_ptr(), limbs) } {
            return Err(PyErr::fetch(int.py()));
        }
        let negative = pylong::is_negative(limbs);
        if negative {
            pylong::negate(limbs);
        }
        let x = Integer::from_digits(limbs, Order::Lsf);
        Ok(if negative { -x } else { x })
    })
}

/// Ints read from Python one at a time and made [`Integer`]s together, on all cores:
/// one that fits in 64 bits is kept as an `i64` (reading it is one C call; allocating
/// its `Integer` is what costs), a larger one kept apart with its place: referenced as
/// it is, for its digits to be read with the others at the end, or, where the digits
/// path is off, converted at once. While every one fits, the words are the result as
/// they stand.
#[derive(Default)]
pub struct IntBuf {
    /// Every int read, 0 in the places of the large ones.
    words: Vec<i64>,
    /// The large ones, with their places.
    big: Vec<(usize, Integer)>,
    /// Large exact ints kept as they are, with their places, read together at the end
    /// through their digits ([`Digits::integers`]).
    pending: Vec<(usize, Py<PyAny>)>,
}

impl IntBuf {
    /// Reads `ob` as an int (as [`to_integer`]). An object that is not an int (an
    /// `fmpz`, a numpy integer) is read through `operator.index`, and kept as a word when
    /// it fits, like an int.
    pub fn push(&mut self, ob: &Bound<'_, PyAny>) -> PyResult<()> {
        // SAFETY: `ob` is a live object and the GIL is held.
        if unsafe { self.push_exact(ob.as_ptr()) }? {
            return Ok(());
        }
        let int = index(ob)?;
        // SAFETY: `int` is a live object and the GIL is held.
        if unsafe { self.push_exact(int.as_ptr()) }? {
            return Ok(());
        }
        let at = self.words.len();
        match Digits::get().is_some() && int.is_exact_instance_of::<PyInt>() {
            true => self.pending.push((at, int.unbind())),
            false => self.big.push((at, to_integer(&int)?)),
        }
        self.words.push(0);
        Ok(())
    }

    /// Reads the object `ptr` when it is an exact int of 64 bits at most (`true`), else
    /// reads nothing (`false`). No Python code runs.
    ///
    /// # Safety
    /// `ptr` is a live object and the GIL is held.
    unsafe fn push_exact(&mut self, ptr: *mut ffi::PyObject) -> PyResult<bool> {
        if ffi::PyLong_CheckExact(ptr) == 0 {
            return Ok(false);
        }
        let mut overflow = 0;
        let v = ffi::PyLong_AsLongLongAndOverflow(ptr, &mut overflow);
        if v == -1 && !ffi::PyErr_Occurred().is_null() {
            return Err(PyErr::fetch(Python::assume_attached()));
        }
        if overflow != 0 {
            return Ok(false);
        }
        self.words.push(v);
        Ok(true)
    }

    /// Reads the borrowed item `item` of a list or tuple (null: the error its getter
    /// set): an exact int of 64 bits with no reference counting, any other as an owned
    /// reference, whose conversion may run Python code.
    ///
    /// # Safety
    /// `item` is null or a live object, and the GIL is held.
    unsafe fn push_borrowed(&mut self, py: Python<'_>, item: *mut ffi::PyObject) -> PyResult<()> {
        if item.is_null() {
            return Err(PyErr::fetch(py));
        }
        if !self.push_exact(item)? {
            self.push(&Bound::from_borrowed_ptr(py, item))?;
        }
        Ok(())
    }

    /// Reads every item of `list` as [`IntBuf::push`] does, by borrowed pointers (an
    /// exact int of 64 bits with no reference counting); an item's conversion may run
    /// Python code, so the list's length is read each time.
    pub fn push_list(&mut self, list: &Bound<'_, PyList>) -> PyResult<()> {
        let mut i = 0;
        // SAFETY: the GIL is held throughout; `i` is below the list's current length, so
        // the item is a live borrowed reference until Python code next runs, which only
        // `push` of an owned reference may do.
        unsafe {
            while (i as ffi::Py_ssize_t) < ffi::PyList_Size(list.as_ptr()) {
                let item = ffi::PyList_GetItem(list.as_ptr(), i as ffi::Py_ssize_t);
                self.push_borrowed(list.py(), item)?;
                i += 1;
            }
        }
        Ok(())
    }

    /// Reads every item of `tuple` as [`IntBuf::push_list`] does. A tuple's items cannot
    /// change, so its length is read once and its items stay alive while it does.
    pub fn push_tuple(&mut self, tuple: &Bound<'_, PyTuple>) -> PyResult<()> {
        // SAFETY: the GIL is held throughout; each item is a borrowed reference that
        // `tuple`, alive and immutable, keeps alive.
        unsafe {
            for i in 0..ffi::PyTuple_Size(tuple.as_ptr()) {
                let item = ffi::PyTuple_GetItem(tuple.as_ptr(), i);
                self.push_borrowed(tuple.py(), item)?;
            }
        }
        Ok(())
    }

    /// Reads `int(ob)` (for objects such as python-flint's `nmod`, which convert by
    /// `__int__`, not `__index__`).
    pub fn push_int_of(&mut self, ob: &Bound<'_, PyAny>) -> PyResult<()> {
        // SAFETY: PyNumber_Long returns a new reference or NULL with an exception set.
        let int =
            unsafe { Bound::from_owned_ptr_or_err(ob.py(), ffi::PyNumber_Long(ob.as_ptr())) }?;
        self.push(&int)
    }

    /// The ints read so far.
    pub fn len(&self) -> usize {
        self.words.len()
    }

    /// Whether none was read.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty()
    }

    /// All of them, in the order read: as machine words when every one fits.
    pub fn finish_entries(self) -> Entries {
        match self.big.is_empty() && self.pending.is_empty() {
            true => Entries::Words(self.words),
            false => Entries::Ints(self.finish()),
        }
    }

    /// All of them as [`Integer`]s, in the order read.
    pub fn finish(self) -> Vec<Integer> {
        let mut out: Vec<Integer> = self.words.into_par_iter().map(Integer::from).collect();
        for (at, x) in self.big {
            out[at] = x;
        }
        if let Some(d) = Digits::get().filter(|_| !self.pending.is_empty()) {
            let ptrs: Vec<_> = self.pending.iter().map(|(_, ob)| ob.as_ptr()).collect();
            // SAFETY: each is a live exact int, referenced by `self.pending` until the end.
            let xs = unsafe { d.integers(&ptrs) };
            for ((at, _), x) in self.pending.iter().zip(xs) {
                out[*at] = x;
            }
        }
        out
    }
}

/// The Python int equal to `x`, through the interpreter's converters.
fn big_int<'py>(py: Python<'py>, fast: &Fast, x: &Integer) -> PyResult<Bound<'py, PyAny>> {
    if *x > 0 && !pylong::is_negative(x.as_limbs()) {
        // Its limbs are already its two's complement.
        // SAFETY: the GIL is held; the result is a new reference or null with an error.
        return unsafe { Bound::from_owned_ptr_or_err(py, fast.write(x.as_limbs())) };
    }
    LIMBS.with_borrow_mut(|limbs| {
        limbs.clear();
        // GMP's limbs are 64 bits on the 64-bit machines this builds for.
        limbs.extend_from_slice(x.as_limbs());
        if pylong::is_negative(limbs) {
            limbs.push(0); // the magnitude's top bit is not a sign
        }
        if *x < 0 {
            pylong::negate(limbs);
        }
        // SAFETY: the GIL is held; the result is a new reference or null with an error.
        unsafe { Bound::from_owned_ptr_or_err(py, fast.write(limbs)) }
    })
}

/// Makes Python ints from [`Integer`]s (holds `int.from_bytes` for the large ones).
pub struct IntMaker<'py> {
    from_bytes: Bound<'py, PyAny>,
}

impl<'py> IntMaker<'py> {
    /// A maker for this interpreter.
    pub fn new(py: Python<'py>) -> PyResult<IntMaker<'py>> {
        Ok(IntMaker {
            from_bytes: py.get_type::<PyInt>().getattr("from_bytes")?,
        })
    }

    /// The interpreter.
    pub fn py(&self) -> Python<'py> {
        self.from_bytes.py()
    }

    /// The Python int equal to `x`.
    pub fn int(&self, x: &Integer) -> PyResult<Bound<'py, PyAny>> {
        let py = self.from_bytes.py();
        if let Some(v) = x.to_i64() {
            return Ok(v.into_pyobject(py)?.into_any());
        }
        if let Some(d) = Digits::get() {
            return Ok(d.ints(py, &[x])?.remove(0));
        }
        if let Some(fast) = Fast::get() {
            return big_int(py, fast, x);
        }
        let v = match x.to_u64() {
            Some(u) => u.into_pyobject(py)?.into_any(),
            None => match x.as_abs().to_u64() {
                Some(u) => return u.into_pyobject(py)?.into_any().neg(),
                None => {
                    let bytes = PyBytes::new(py, &x.to_digits::<u8>(Order::Lsf));
                    self.from_bytes.call1((bytes, intern!(py, "little")))?
                }
            },
        };
        if *x < 0 {
            v.neg()
        } else {
            Ok(v)
        }
    }

    /// Python ints equal to `xs`, the large ones' digits written by all cores where the
    /// interpreter allows ([`Digits`]).
    pub fn many<'a>(
        &self,
        xs: impl IntoIterator<Item = &'a Integer>,
    ) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let xs: Vec<&Integer> = xs.into_iter().collect();
        match Digits::get() {
            Some(d) => d.ints(self.py(), &xs),
            None => xs.into_iter().map(|x| self.int(x)).collect(),
        }
    }

    /// A list of Python ints.
    pub fn list<'a>(
        &self,
        xs: impl IntoIterator<Item = &'a Integer>,
    ) -> PyResult<Bound<'py, PyList>> {
        PyList::new(self.py(), self.many(xs)?)
    }
}

/// Converts `values` to [`Integer`]s and back by `method` (`"binary"`, the path every
/// function uses, or `"decimal"`, through `str` and `int`), for the benchmark that
/// compares the two; returns the converted list.
#[pyfunction]
pub fn roundtrip<'py>(values: &Bound<'py, PyList>, method: &str) -> PyResult<Bound<'py, PyList>> {
    let py = values.py();
    match method {
        "binary" => {
            let xs = values
                .iter()
                .map(|v| to_integer(&v))
                .collect::<PyResult<Vec<_>>>()?;
            IntMaker::new(py)?.list(&xs)
        }
        "decimal" => {
            let int = py.get_type::<PyInt>();
            let mut xs = Vec::with_capacity(values.len());
            for v in values.iter() {
                let s = v.str()?;
                let x = Integer::from_str_radix(&s.extract::<String>()?, 10)
                    .map_err(|e| PyValueError::new_err(e.to_string()))?;
                xs.push(x);
            }
            let out = xs
                .iter()
                .map(|x| int.call1((x.to_string(),)))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, out)
        }
        _ => Err(PyValueError::new_err(format!(
            "method must be \"binary\" or \"decimal\", got {method:?}"
        ))),
    }
}
