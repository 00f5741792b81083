//! Python ints ↔ little-endian 64-bit limbs through the fastest interface the running
//! CPython offers, found at import ([`init`]).
//!
//! The module is built once for the stable ABI (abi3, CPython ≥ 3.9), whose limited API
//! has no bulk int conversion before 3.14: through it, a large int costs a method call
//! (`int.to_bytes`, `int.from_bytes`) and a bytes object. Every CPython 3.9 … 3.13
//! exports the binary converters its own modules use, so they are looked up by name in
//! the running interpreter (`dlsym`), with the signature of its version:
//!
//! | CPython | read | write |
//! | --- | --- | --- |
//! | 3.9 … 3.12 | `_PyLong_NumBits`, `_PyLong_AsByteArray` (5 arguments) | `_PyLong_FromByteArray` |
//! | ≥ 3.13 | `_PyLong_NumBits`, `PyLong_AsNativeBytes` (public) | `PyLong_FromNativeBytes` (public) |
//!
//! When a symbol is missing (another interpreter), [`Fast::get`] gives `None` and
//! callers use the limited API. Both directions are tested on every CPython here
//! (`scripts/wheel.sh --test`).

use pyo3::ffi;
use pyo3::prelude::*;
use std::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

type NumBits = unsafe extern "C" fn(*mut ffi::PyObject) -> usize;
/// `_PyLong_AsByteArray(v, bytes, n, little_endian, is_signed)`, CPython 3.9 … 3.12.
type AsByteArray = unsafe extern "C" fn(*mut ffi::PyObject, *mut u8, usize, c_int, c_int) -> c_int;
/// `PyLong_AsNativeBytes(v, buffer, n, flags)`, CPython ≥ 3.13.
type AsNativeBytes = unsafe extern "C" fn(*mut ffi::PyObject, *mut c_void, isize, c_int) -> isize;
/// `_PyLong_FromByteArray(bytes, n, little_endian, is_signed)`, CPython 3.9 … 3.12.
type FromByteArray = unsafe extern "C" fn(*const u8, usize, c_int, c_int) -> *mut ffi::PyObject;
/// `PyLong_FromNativeBytes(buffer, n, flags)`, CPython ≥ 3.13.
type FromNativeBytes = unsafe extern "C" fn(*const c_void, usize, c_int) -> *mut ffi::PyObject;

/// `Py_ASNATIVEBYTES_LITTLE_ENDIAN`: little-endian, two's complement (signed).
const LITTLE_ENDIAN: c_int = 1;

enum Read {
    ByteArray(AsByteArray),
    NativeBytes(AsNativeBytes),
}

enum Write {
    ByteArray(FromByteArray),
    NativeBytes(FromNativeBytes),
}

/// The interpreter's binary int converters.
pub struct Fast {
    num_bits: NumBits,
    read: Read,
    write: Write,
}

static FAST: OnceLock<Option<Fast>> = OnceLock::new();

extern "C" {
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// The address of `name` in the running process (glibc's `RTLD_DEFAULT` is null).
pub(crate) fn symbol(name: &CStr) -> Option<*mut c_void> {
    // SAFETY: dlsym only reads the name; a null result means not found.
    let p = unsafe { dlsym(std::ptr::null_mut(), name.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// Finds the converters of the running interpreter (`version`: its major and minor),
/// once; `RNS_PYLONG=limited` turns them off (to test and measure the limited API).
/// Only on little-endian 64-bit machines, where a limb's bytes are in the order the
/// converters use.
pub fn init(version: (u8, u8)) {
    FAST.get_or_init(|| {
        let limbs_fit = cfg!(all(target_endian = "little", target_pointer_width = "64"));
        if !limbs_fit || std::env::var("RNS_PYLONG").is_ok_and(|v| v == "limited") {
            return None;
        }
        // SAFETY: each symbol has, in that CPython version, the type it is cast to.
        unsafe {
            let num_bits: NumBits = std::mem::transmute(symbol(c"_PyLong_NumBits")?);
            let (read, write) = if version >= (3, 13) {
                (
                    Read::NativeBytes(std::mem::transmute::<*mut c_void, AsNativeBytes>(symbol(
                        c"PyLong_AsNativeBytes",
                    )?)),
                    Write::NativeBytes(std::mem::transmute::<*mut c_void, FromNativeBytes>(
                        symbol(c"PyLong_FromNativeBytes")?,
                    )),
                )
            } else if version >= (3, 9) {
                (
                    Read::ByteArray(std::mem::transmute::<*mut c_void, AsByteArray>(symbol(
                        c"_PyLong_AsByteArray",
                    )?)),
                    Write::ByteArray(std::mem::transmute::<*mut c_void, FromByteArray>(symbol(
                        c"_PyLong_FromByteArray",
                    )?)),
                )
            } else {
                return None;
            };
            Some(Fast {
                num_bits,
                read,
                write,
            })
        }
    });
}

impl Fast {
    /// The converters, when [`init`] found them.
    pub fn get() -> Option<&'static Fast> {
        FAST.get().and_then(Option::as_ref)
    }

    /// Writes the two's complement of the int `ob` into `limbs` (resized to fit, least
    /// significant first); false (an exception set) on failure.
    ///
    /// # Safety
    /// `ob` must be a live `int` object and the GIL held.
    pub unsafe fn read(&self, ob: *mut ffi::PyObject, limbs: &mut Vec<u64>) -> bool {
        let bits = (self.num_bits)(ob);
        if bits == usize::MAX {
            return false;
        }
        // One more bit for the sign.
        let n = bits / 64 + 1;
        limbs.clear();
        limbs.resize(n, 0);
        let buf = limbs.as_mut_ptr() as *mut u8;
        match self.read {
            Read::ByteArray(f) => f(ob.cast(), buf, n * 8, 1, 1) == 0,
            Read::NativeBytes(f) => {
                let need = f(ob, buf.cast(), (n * 8) as isize, LITTLE_ENDIAN);
                need >= 0 && need as usize <= n * 8
            }
        }
    }

    /// A new int from the two's complement `limbs` (least significant first), or null
    /// with an exception set.
    ///
    /// # Safety
    /// The GIL must be held.
    pub unsafe fn write(&self, limbs: &[u64]) -> *mut ffi::PyObject {
        let (buf, n) = (limbs.as_ptr() as *const u8, limbs.len() * 8);
        match self.write {
            Write::ByteArray(f) => f(buf, n, 1, 1),
            Write::NativeBytes(f) => f(buf.cast(), n, LITTLE_ENDIAN),
        }
    }
}

/// Negates the two's complement number `limbs` in place.
pub fn negate(limbs: &mut [u64]) {
    let mut carry = true;
    for l in limbs {
        let (v, c) = (!*l).overflowing_add(carry as u64);
        *l = v;
        carry = c;
    }
}

/// Whether the two's complement number `limbs` is negative.
pub fn is_negative(limbs: &[u64]) -> bool {
    limbs.last().is_some_and(|&l| l >> 63 == 1)
}

/// The interpreter's version, major and minor.
pub fn version(py: Python<'_>) -> (u8, u8) {
    let v = py.version_info();
    (v.major, v.minor)
}
