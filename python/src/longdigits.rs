//! Large Python ints written and read through their digits, many at once on all cores.
//!
//! A CPython int is a header and `n` digits of 30 bits (a `uint32` each on the 64-bit
//! machines this builds for), least significant first. The word just before the digits
//! holds the sign and `n`:
//!
//! | CPython | that word |
//! | --- | --- |
//! | 3.9 … 3.11 | `ob_size`: `n`, or `−n` for a negative int |
//! | ≥ 3.12 | `lv_tag`: `n << 3`, or'ed with 2 for a negative int |
//!
//! The digits start at `int.__basicsize__` (CPython defines it as their offset). The
//! interpreter's converters ([`crate::pylong`]) take a large int a byte at a time with
//! the GIL held: about 30 µs for 274 000 bits, so 0.1–0.3 s for a 4000² solve's
//! numerators. Here each int is allocated with the GIL (`_PyLong_New`, exported by every
//! CPython 3.9 … 3.13), and its digits are written by all cores without it: nothing
//! else can see the new objects until they are handed back. Ints read in are kept
//! (referenced) as they come, and their digits read by all cores at the end: an int
//! cannot change, and the references keep it alive.
//!
//! [`init`] reads the layout from the running interpreter and checks it on known values
//! (every sign and digit boundary) against ints Python parses from decimal. The path is
//! off when anything differs, on an interpreter without the symbol, and whenever
//! `RNS_PYLONG` is set (to test and measure the converters).

use crate::pylong;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::PyInt;
use rayon::prelude::*;
use rug::Integer;
use std::sync::OnceLock;

/// `_PyLong_New(n)`: a new int object with room for `n` digits (sign and digits unset).
type NewLong = unsafe extern "C" fn(ffi::Py_ssize_t) -> *mut ffi::PyObject;

/// Bits a digit holds.
const SHIFT: usize = 30;
/// Digits written or read in all, from which all cores do it (written without the GIL).
const PARALLEL_FROM: usize = 1 << 15;

/// The running interpreter's int layout.
pub struct Digits {
    new: NewLong,
    /// Where the digits start (`int.__basicsize__`).
    offset: usize,
    /// The sign word is 3.12's `lv_tag`, not `ob_size`.
    tagged: bool,
}

static DIGITS: OnceLock<Option<Digits>> = OnceLock::new();

/// An int read by any thread: it cannot change, and the caller's reference keeps it
/// alive.
#[derive(Clone, Copy)]
struct Live(*mut ffi::PyObject);
// SAFETY: only read, while the caller holds a reference.
unsafe impl Send for Live {}
// SAFETY: as above.
unsafe impl Sync for Live {}

/// A new object, ours alone until handed back (so its digits may be written by any
/// thread).
#[derive(Clone, Copy)]
struct Fresh(*mut ffi::PyObject);
// SAFETY: no other thread, and no Python code, can reach the object until it is handed
// back with the GIL held.
unsafe impl Send for Fresh {}
// SAFETY: as above; each object is written by one thread.
unsafe impl Sync for Fresh {}

/// Reads the layout of the running interpreter (`version`: its major and minor) and
/// checks it, once (see the module's documentation).
pub fn init(py: Python<'_>, version: (u8, u8)) {
    DIGITS.get_or_init(|| {
        if std::env::var_os("RNS_PYLONG").is_some() {
            return None;
        }
        let d = layout(py, version)?;
        d.agrees(py).then_some(d)
    });
}

/// The layout, when the interpreter's int is the one described above.
fn layout(py: Python<'_>, version: (u8, u8)) -> Option<Digits> {
    if !cfg!(all(target_endian = "little", target_pointer_width = "64")) {
        return None;
    }
    let int = py.get_type::<PyInt>();
    let basic: usize = int.getattr("__basicsize__").ok()?.extract().ok()?;
    let item: usize = int.getattr("__itemsize__").ok()?.extract().ok()?;
    let info = py.import("sys").ok()?.getattr("int_info").ok()?;
    let bits: usize = info.getattr("bits_per_digit").ok()?.extract().ok()?;
    if item != 4 || bits != SHIFT || basic < 24 || !basic.is_multiple_of(8) || version < (3, 9) {
        return None;
    }
    let new = pylong::symbol(c"_PyLong_New")?;
    Some(Digits {
        // SAFETY: `_PyLong_New` has this type in CPython 3.9 … 3.13.
        new: unsafe { std::mem::transmute::<*mut std::ffi::c_void, NewLong>(new) },
        offset: basic,
        tagged: version >= (3, 12),
    })
}

impl Digits {
    /// The layout, when [`init`] found and checked it.
    pub fn get() -> Option<&'static Digits> {
        DIGITS.get().and_then(Option::as_ref)
    }

    /// Whether ints written here equal those Python parses, for every sign and digit
    /// boundary (below 4300 decimal digits, Python's default limit for parsing).
    fn agrees(&self, py: Python<'_>) -> bool {
        let int = py.get_type::<PyInt>();
        let mut values = Vec::new();
        for k in [
            64u32, 65, 89, 90, 91, 119, 120, 121, 127, 128, 129, 1000, 10000,
        ] {
            let p = Integer::from(1) << k;
            for v in [Integer::from(&p - 1u32), p.clone(), p + 12345u32] {
                values.push(Integer::from(-&v));
                values.push(v);
            }
        }
        let made = match self.ints(py, &values.iter().collect::<Vec<_>>()) {
            Ok(m) => m,
            Err(_) => return false,
        };
        let parsed: Vec<_> = values.iter().map(|v| int.call1((v.to_string(),))).collect();
        let written = made
            .iter()
            .zip(&parsed)
            .all(|(ob, p)| p.as_ref().is_ok_and(|p| ob.eq(p).unwrap_or(false)));
        // Then read back from the ints Python parsed (with the layout now trusted).
        written
            && parsed.iter().zip(&values).all(|(p, v)| {
                // SAFETY: `p` is a live exact int, referenced here.
                p.as_ref()
                    .is_ok_and(|p| unsafe { self.read(Live(p.as_ptr())) } == *v)
            })
    }

    /// The integers of `ints`, their digits read by all cores when there are many. No
    /// GIL is needed: an int cannot change, and the caller's references keep them.
    ///
    /// # Safety
    /// Each pointer is a live `int` (not a subclass) that the caller keeps referenced
    /// until this returns.
    pub unsafe fn integers(&self, ints: &[*mut ffi::PyObject]) -> Vec<Integer> {
        let live: Vec<Live> = ints.iter().map(|&p| Live(p)).collect();
        let total: usize = live.iter().map(|&h| self.sign_word(h).0).sum();
        // SAFETY: as the caller promised.
        let read = |&h: &Live| unsafe { self.read(h) };
        if total >= PARALLEL_FROM {
            live.par_iter().map(read).collect()
        } else {
            live.iter().map(read).collect()
        }
    }

    /// The digit count and sign of the int `h`, from its sign word.
    ///
    /// # Safety
    /// `h` is a live int.
    unsafe fn sign_word(&self, h: Live) -> (usize, bool) {
        let tag = h.0.cast::<u8>().add(self.offset - 8).cast::<isize>().read();
        match self.tagged {
            true => ((tag as usize) >> 3, tag & 3 == 2),
            false => (tag.unsigned_abs(), tag < 0),
        }
    }

    /// The value of the int `h`.
    ///
    /// # Safety
    /// `h` is a live int that nothing changes or frees meanwhile.
    unsafe fn read(&self, h: Live) -> Integer {
        let (n, negative) = self.sign_word(h);
        let base = h.0.cast::<u8>().add(self.offset).cast::<u32>();
        let digits = std::slice::from_raw_parts(base, n);
        let x = Integer::from_digits(&to_limbs(digits), rug::integer::Order::Lsf);
        if negative {
            -x
        } else {
            x
        }
    }

    /// Python ints equal to `xs`: those of 64 bits and fewer as the interpreter makes
    /// them, the larger ones allocated here and their digits written by all cores
    /// (without the GIL when there are many).
    pub fn ints<'py>(&self, py: Python<'py>, xs: &[&Integer]) -> PyResult<Vec<Bound<'py, PyAny>>> {
        let mut made: Vec<Fresh> = Vec::with_capacity(xs.len());
        let (mut large, mut total) = (Vec::new(), 0);
        for (i, x) in xs.iter().enumerate() {
            // SAFETY: the GIL is held; each call gives a new reference or null.
            let ob = unsafe {
                match x.to_i64() {
                    Some(v) => ffi::PyLong_FromLongLong(v),
                    None => {
                        let n = digit_count(x);
                        large.push(i);
                        total += n;
                        (self.new)(n as ffi::Py_ssize_t)
                    }
                }
            };
            if ob.is_null() {
                let err = PyErr::fetch(py);
                // SAFETY: the GIL is held; each is a new reference of ours. Its digits
                // are unset, which the deallocator of an int does not read.
                made.iter().for_each(|f| unsafe { ffi::Py_DECREF(f.0) });
                return Err(err);
            }
            made.push(Fresh(ob));
        }
        // SAFETY: `made[i]` was allocated for the digits of `xs[i]`.
        let write = |&i: &usize| unsafe { self.write(made[i], xs[i]) };
        if total >= PARALLEL_FROM {
            py.detach(|| large.par_iter().for_each(write));
        } else {
            large.iter().for_each(write);
        }
        // SAFETY: each is a new reference, now a whole int.
        Ok(made
            .into_iter()
            .map(|f| unsafe { Bound::from_owned_ptr(py, f.0) })
            .collect())
    }

    /// Writes the sign and digits of `x` into `ob`.
    ///
    /// # Safety
    /// `ob` came from `_PyLong_New(digit_count(x))` and no other thread reaches it.
    unsafe fn write(&self, ob: Fresh, x: &Integer) {
        let n = digit_count(x);
        let base = ob.0.cast::<u8>();
        let negative = *x < 0;
        let sign = match (self.tagged, negative) {
            (true, _) => ((n << 3) | if negative { 2 } else { 0 }) as isize,
            (false, false) => n as isize,
            (false, true) => -(n as isize),
        };
        base.add(self.offset - 8).cast::<isize>().write(sign);
        let digits = std::slice::from_raw_parts_mut(base.add(self.offset).cast::<u32>(), n);
        to_digits(x.as_limbs(), digits);
    }
}

/// The digits `|x|` needs (its top digit is not zero).
fn digit_count(x: &Integer) -> usize {
    (x.significant_bits() as usize).div_ceil(SHIFT)
}

/// The 30-bit digits of the number whose 64-bit limbs are `limbs`, least significant
/// first, into `out` (as many as it holds; zeros past the limbs).
fn to_digits(limbs: &[u64], out: &mut [u32]) {
    let (mut acc, mut have) = (0u128, 0usize);
    let mut next = limbs.iter();
    for d in out {
        if have < SHIFT {
            acc |= u128::from(next.next().copied().unwrap_or(0)) << have;
            have += 64;
        }
        *d = (acc as u32) & ((1 << SHIFT) - 1);
        acc >>= SHIFT;
        have -= SHIFT;
    }
}

/// The 64-bit limbs, least significant first, of the number whose 30-bit digits are
/// `digits` (least significant first).
fn to_limbs(digits: &[u32]) -> Vec<u64> {
    let mut out = Vec::with_capacity((digits.len() * SHIFT).div_ceil(64));
    let (mut acc, mut have) = (0u128, 0usize);
    for &d in digits {
        acc |= u128::from(d) << have;
        have += SHIFT;
        if have >= 64 {
            out.push(acc as u64);
            acc >>= 64;
            have -= 64;
        }
    }
    if have > 0 {
        out.push(acc as u64);
    }
    out
}
