//! A matrix as the engine takes it: machine words when every entry fits in 64 bits (a
//! numpy array, or a result modulo p), big integers otherwise, each other form made on
//! first need and kept: the integers for work over Z, the residues modulo the last prime
//! asked for. An `rns.Matrix` holds one, so repeated calls on it cost only the
//! computation.

use crate::arrays::InPlace;
use rayon::prelude::*;
use rns::{IntMatrix, ModMatrices};
use rug::Integer;
use std::sync::{Arc, Mutex, OnceLock};

/// Entries as read from Python, row-major.
pub enum Entries {
    /// Every entry fits in an `i64`.
    Words(Vec<i64>),
    /// The int64 entries of a numpy array, read in place.
    InPlace(InPlace),
    /// Some entry does not fit in an `i64`.
    Ints(Vec<Integer>),
}

impl Entries {
    /// The entries as big integers (made on all cores).
    pub fn into_integers(self) -> Vec<Integer> {
        let of = |w: &[i64]| w.par_iter().map(|&x| Integer::from(x)).collect();
        match self {
            Entries::Words(w) => of(&w),
            Entries::InPlace(a) => of(a.as_slice()),
            Entries::Ints(v) => v,
        }
    }
}

/// Machine words, owned or in a numpy array.
enum Words {
    Owned(Vec<i64>),
    InPlace(InPlace),
}

impl Words {
    fn as_slice(&self) -> &[i64] {
        match self {
            Words::Owned(v) => v,
            Words::InPlace(a) => a.as_slice(),
        }
    }
}

/// A matrix's entries in the forms the engine has needed so far.
pub struct Held {
    rows: usize,
    cols: usize,
    /// The row-major entries, when each fits in an `i64`.
    words: Option<Words>,
    /// The entries as big integers (given, or made from the words on first need).
    ints: OnceLock<Arc<IntMatrix>>,
    /// The residues modulo the prime of the last call modulo a prime.
    residues: Mutex<Option<Arc<ModMatrices>>>,
    /// The bits of the largest entry.
    bits: OnceLock<u64>,
}

/// Entries from which a matrix's integers are freed by all cores.
const PARALLEL_FREE_FROM: usize = 1 << 16;

impl Drop for Held {
    /// A large matrix's integers are freed by all cores: one free each, 16 M of them at
    /// 4000², about as long as the call's own work where one core frees them.
    fn drop(&mut self) {
        let Some(m) = self.ints.take().and_then(|m| Arc::try_unwrap(m).ok()) else {
            return;
        };
        // A matrix of words that never made its integers has none to free (asking for
        // its entries would make them).
        if m.integers_made() && m.rows() * m.cols() >= PARALLEL_FREE_FROM {
            m.into_entries().into_par_iter().for_each(drop);
        }
    }
}

impl Held {
    /// A matrix of machine words, row-major (`data.len()` is `rows · cols`).
    pub fn from_words(rows: usize, cols: usize, data: Vec<i64>) -> rns::Result<Held> {
        Held::of_words(rows, cols, Words::Owned(data))
    }

    fn of_words(rows: usize, cols: usize, words: Words) -> rns::Result<Held> {
        let len = words.as_slice().len();
        if len != rows * cols {
            return Err(rns::Error::Shape(format!(
                "{len} entries do not form a {rows}×{cols} matrix"
            )));
        }
        Ok(Held {
            rows,
            cols,
            words: Some(words),
            ints: OnceLock::new(),
            residues: Mutex::new(None),
            bits: OnceLock::new(),
        })
    }

    /// A matrix of the entries read from Python.
    pub fn new(rows: usize, cols: usize, entries: Entries) -> rns::Result<Held> {
        match entries {
            Entries::Words(w) => Held::from_words(rows, cols, w),
            Entries::InPlace(a) => Held::of_words(rows, cols, Words::InPlace(a)),
            Entries::Ints(v) => Ok(Held::from_ints(IntMatrix::new(rows, cols, v)?)),
        }
    }

    /// The same matrix with its entries its own (a copy of words read in place), for
    /// an `rns.Matrix`, which must not change with the array it was made from.
    pub fn owned(self: Arc<Held>) -> Arc<Held> {
        match &self.words {
            Some(Words::InPlace(a)) => {
                let words = Words::Owned(a.as_slice().to_vec());
                Arc::new(Held::of_words(self.rows, self.cols, words).expect("same shape"))
            }
            _ => self,
        }
    }

    /// A matrix of big integers.
    pub fn from_ints(m: IntMatrix) -> Held {
        Held::from_shared(Arc::new(m))
    }

    /// A matrix of big integers, kept as machine words when every entry fits in an
    /// `i64` (a result, so that its words go back to Python without Python ints).
    pub fn from_integers(m: IntMatrix) -> Held {
        let words: Option<Vec<i64>> = m.entries().par_iter().map(Integer::to_i64).collect();
        match words {
            Some(w) => Held::from_words(m.rows(), m.cols(), w).expect("same shape"),
            None => Held::from_ints(m),
        }
    }

    /// A matrix of big integers already shared.
    pub fn from_shared(m: Arc<IntMatrix>) -> Held {
        Held {
            rows: m.rows(),
            cols: m.cols(),
            words: None,
            ints: OnceLock::from(m),
            residues: Mutex::new(None),
            bits: OnceLock::new(),
        }
    }

    /// The number of rows.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The number of columns.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The machine words, when every entry fits in an `i64`.
    pub fn words(&self) -> Option<&[i64]> {
        self.words.as_ref().map(Words::as_slice)
    }

    /// The entries as big integers (made on all cores from the words the first time).
    pub fn ints(&self) -> Arc<IntMatrix> {
        rns::lazy::get_or_build(&self.ints, || {
            let w = self.words().unwrap_or_default();
            Arc::new(IntMatrix::from_i64(self.rows, self.cols, w).expect("shape checked"))
        })
        .clone()
    }

    /// The residues modulo the prime `p` (from the words when there are some), kept
    /// until a call modulo another prime.
    pub fn residues(&self, p: u32) -> rns::Result<Arc<ModMatrices>> {
        let mut last = self.residues.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(r) = last.as_ref().filter(|r| r.primes() == [p]) {
            return Ok(r.clone());
        }
        let r = Arc::new(match self.words() {
            Some(w) => ModMatrices::from_i64(self.rows, self.cols, w, &[p])?,
            None => ModMatrices::from_int_matrix(&self.ints(), &[p])?,
        });
        *last = Some(r.clone());
        Ok(r)
    }

    /// Whether both hold the same entries.
    pub fn same_entries(&self, other: &Held) -> bool {
        match (self.words(), other.words()) {
            (Some(a), Some(b)) => (self.rows, self.cols, a) == (other.rows, other.cols, b),
            _ => *self.ints() == *other.ints(),
        }
    }

    /// The number of bits of the largest entry's absolute value.
    pub fn max_bits(&self) -> u64 {
        *rns::lazy::get_or_build(&self.bits, || match self.words() {
            Some(w) => w
                .par_iter()
                .map(|x| 64 - u64::from(x.unsigned_abs().leading_zeros()))
                .max()
                .unwrap_or(0),
            None => self.ints().max_bits(),
        })
    }
}
