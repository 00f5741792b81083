//! [`ModMatrices`]: matrices modulo primes, batched (one matrix per prime, or the
//! residue images of one integer matrix), and the linear algebra on them: product,
//! determinant, rank, reduced row echelon form, inverse and solve, on either backend.
//!
//! ```
//! use rns::{Backend, IntMatrix, ModMatrices};
//!
//! let p = 2_147_483_647; // 2^31 − 1
//! let a = ModMatrices::from_int_matrix(&IntMatrix::from_i64(2, 2, &[2, 1, 1, 1])?, &[p])?;
//! let inv = Backend::Cpu.inverse_mod(&a)?;
//! assert_eq!(inv.matrix(0), [1, p - 1, p - 1, 2]); // [[1, −1], [−1, 2]]
//! assert_eq!(Backend::Cpu.det_mod(&a)?, [1]);
//! # Ok::<(), rns::Error>(())
//! ```

use crate::error::{Error, Result};
use crate::input::{read_source, source_name, Expect};
use crate::mat::matrix::{
    classify, parse_entries, parse_integer, require_square, IntMatrix, Token,
};
use crate::num::vector::residue;
use crate::num::words::Words;
use rayon::prelude::*;
use rns_core::Modulus;
use rug::Integer;

/// A polynomial of a square matrix modulo a prime, computed per channel by the backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixPolynomial {
    /// `det(x·I − A)`: Hessenberg form and recurrence (`rns_core::charpoly`).
    Characteristic,
    /// The monic polynomial `μ` of least degree with `μ(A) = 0`: Krylov sequences of
    /// generating vectors (`rns_core::minpoly`).
    Minimal,
}

impl MatrixPolynomial {
    /// The degree of a polynomial given as `n + 1` residues, constant first and zero
    /// above the degree (as [`crate::Backend::minpoly_mod`] gives it): the last non-zero
    /// coefficient's index, 0 when there is none.
    ///
    /// ```
    /// use rns::mat::modmat::MatrixPolynomial;
    ///
    /// assert_eq!(MatrixPolynomial::degree(&[5, 1, 0, 0]), 1);
    /// assert_eq!(MatrixPolynomial::degree(&[0, 0]), 0);
    /// ```
    pub fn degree(coeffs: &[u32]) -> usize {
        coeffs.iter().rposition(|&c| c != 0).unwrap_or(0)
    }

    /// Words of scratch per channel for an `n × n` matrix.
    pub fn scratch_words(self, n: usize) -> usize {
        match self {
            Self::Characteristic => rns_core::charpoly::charpoly_scratch_words(n),
            Self::Minimal => rns_core::minpoly::minpoly_scratch_words(n),
        }
    }

    /// Words the CPU backend holds at once for `channels` `n × n` matrices on `threads`
    /// threads (beyond the input): each busy thread's scratch and, for the
    /// characteristic polynomial, its copy of a matrix (worked in place), then the
    /// `n + 1` coefficients of every channel.
    ///
    /// ```
    /// use rns::mat::modmat::MatrixPolynomial;
    ///
    /// // 2 threads, 3 channels of 10 × 10: two scratches (3n² + 12n + 4 words each for
    /// // the minimal polynomial) and 3 × 11 coefficients.
    /// assert_eq!(MatrixPolynomial::Minimal.cpu_words(10, 3, 2), 2 * 424 + 33);
    /// ```
    pub fn cpu_words(self, n: usize, channels: usize, threads: usize) -> u128 {
        let copy = match self {
            Self::Characteristic => n * n,
            Self::Minimal => 0,
        };
        let live = threads.min(channels) as u128;
        live * (self.scratch_words(n) + copy) as u128 + (channels * (n + 1)) as u128
    }

    /// Its name in messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Characteristic => "the characteristic polynomial",
            Self::Minimal => "the minimal polynomial",
        }
    }
}

/// One `rows × cols` row-major matrix of residues per modulus, stored one after another
/// (`data[c·rows·cols + i·cols + j]`), each entry reduced modulo its prime.
///
/// ```
/// use rns::{Backend, ModMatrices};
///
/// // The same 2 × 2 matrix modulo two primes, one after the other.
/// let (p, q) = (2147483647, 2147483629);
/// let m = ModMatrices::new(&[p, q], 2, 2, vec![4, 1, 2, 3, 4, 1, 2, 3])?;
/// assert_eq!(Backend::Cpu.det_mod(&m)?, [10, 10]);
/// assert_eq!(Backend::Cpu.rref_mod(&m)?.ranks, [2, 2]);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ModMatrices {
    pub(crate) moduli: Vec<Modulus>,
    pub(crate) rows: usize,
    pub(crate) cols: usize,
    pub(crate) data: Words,
}

impl ModMatrices {
    /// Validates the primes (each a prime with `2^30 < p < 2^31`) and the residues
    /// (`rows · cols` per prime, each below its prime).
    pub fn new(primes: &[u32], rows: usize, cols: usize, data: Vec<u32>) -> Result<ModMatrices> {
        let moduli = primes
            .iter()
            .map(|&p| Modulus::new(p))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Self::from_moduli(moduli, rows, cols, data)
    }

    /// As [`ModMatrices::new`] for moduli already validated.
    pub fn from_moduli(
        moduli: Vec<Modulus>,
        rows: usize,
        cols: usize,
        data: Vec<u32>,
    ) -> Result<ModMatrices> {
        if data.len() != moduli.len() * rows * cols {
            return Err(Error::Shape(format!(
                "{} residues do not form {} matrices of {rows}×{cols}",
                data.len(),
                moduli.len()
            )));
        }
        let size = rows * cols;
        if size > 0 {
            for (c, (chunk, m)) in data.chunks(size).zip(&moduli).enumerate() {
                if let Some(x) = chunk.iter().find(|&&x| x >= m.m) {
                    return Err(Error::Shape(format!(
                        "residue {x} of matrix {c} is not reduced modulo {}",
                        m.m
                    )));
                }
            }
        }
        Ok(ModMatrices {
            moduli,
            rows,
            cols,
            data: data.into(),
        })
    }

    /// The images of one integer matrix modulo each prime (negative entries map to
    /// `[0, p)`).
    pub fn from_int_matrix(a: &IntMatrix, primes: &[u32]) -> Result<ModMatrices> {
        let moduli = residue_moduli(primes, a.rows(), a.cols())?;
        Ok(Self::reduce(a, &moduli))
    }

    /// The images modulo each prime of the row-major `rows × cols` machine integers
    /// `data` (negative entries map to `[0, p)`), on all cores, with no big integer made.
    pub fn from_i64(rows: usize, cols: usize, data: &[i64], primes: &[u32]) -> Result<ModMatrices> {
        if data.len() != rows * cols {
            return Err(Error::Shape(format!(
                "{} entries do not form a {rows}×{cols} matrix",
                data.len()
            )));
        }
        let moduli = residue_moduli(primes, rows, cols)?;
        Ok(Self::reduce_with(data, (rows, cols), &moduli, |&x, m| {
            m.reduce_i64(x)
        }))
    }

    /// Reads a matrix file (the format of [`IntMatrix`], `-` for standard input) straight
    /// into its residues modulo the prime `p` (validated): machine-size entries never
    /// become big integers.
    pub fn read_mod(path: &str, p: u32) -> Result<ModMatrices> {
        let m = Modulus::new(p)?;
        let text = read_source(path, Expect::Matrix { entry_bytes: 4 })?;
        Self::parse_mod(&text, source_name(path), m)
    }

    /// Parses the matrix text format straight into residues modulo `m`; `source` names
    /// the input in error messages.
    pub fn parse_mod(text: &str, source: &str, m: Modulus) -> Result<ModMatrices> {
        let (rows, cols, data) = parse_entries(text, source, |t| match classify(t)? {
            Token::Small(v) => Some(m.reduce_i64(v)),
            Token::Medium(v) => Some(v.rem_euclid(m.m as i128) as u32),
            Token::Large => parse_integer(t).map(|x| residue(&x, m)),
        })?;
        Self::from_moduli(vec![m], rows, cols, data)
    }

    /// The images of `a` modulo each of `moduli`.
    pub(crate) fn reduce(a: &IntMatrix, moduli: &[Modulus]) -> ModMatrices {
        let shape = (a.rows(), a.cols());
        match a.words() {
            Some(w) => Self::reduce_with(w, shape, moduli, |&x, m| m.reduce_i64(x)),
            None => Self::reduce_with(a.entries(), shape, moduli, residue),
        }
    }

    /// The images modulo each of `moduli` of the row-major `entries` of a `rows × cols`
    /// matrix, each entry reduced by `residue`.
    fn reduce_with<T: Sync>(
        entries: &[T],
        (rows, cols): (usize, usize),
        moduli: &[Modulus],
        residue: impl Fn(&T, Modulus) -> u32 + Sync,
    ) -> ModMatrices {
        let size = rows * cols;
        let mut data = vec![0u32; moduli.len() * size];
        if size > 0 {
            // By all cores over the primes and, for few primes, over the entries too.
            const GRAIN: usize = 1 << 12;
            data.par_chunks_mut(size)
                .zip(moduli.par_iter())
                .for_each(|(out, &m)| {
                    out.par_chunks_mut(GRAIN)
                        .zip(entries.par_chunks(GRAIN))
                        .for_each(|(o, x)| {
                            for (o, x) in o.iter_mut().zip(x) {
                                *o = residue(x, m);
                            }
                        });
                });
        }
        ModMatrices {
            moduli: moduli.to_vec(),
            rows,
            cols,
            data: data.into(),
        }
    }

    /// Number of rows of each matrix.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns of each matrix.
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The moduli, one per matrix.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// The primes, one per matrix.
    pub fn primes(&self) -> Vec<u32> {
        self.moduli.iter().map(|m| m.m).collect()
    }

    /// Number of matrices (primes).
    pub fn count(&self) -> usize {
        self.moduli.len()
    }

    /// All residues, one matrix after another.
    pub fn data(&self) -> &[u32] {
        &self.data
    }

    /// The row-major matrix modulo prime number `c`.
    pub fn matrix(&self, c: usize) -> &[u32] {
        let size = self.rows * self.cols;
        &self.data[c * size..(c + 1) * size]
    }

    /// Matrix `c` as an integer matrix with entries in `[0, p)`.
    pub fn to_int_matrix(&self, c: usize) -> IntMatrix {
        let data = self
            .matrix(c)
            .par_iter()
            .map(|&x| Integer::from(x))
            .collect();
        IntMatrix::new(self.rows, self.cols, data).expect("shape matches")
    }

    /// Matrix `c` in the text format of [`IntMatrix`] (entries in `[0, p)`), written by
    /// all cores.
    pub fn to_text(&self, c: usize) -> String {
        let header = format!("{} {}\n", self.rows, self.cols);
        crate::mat::matrix::rows_text(
            header,
            self.matrix(c),
            self.cols,
            |_| 11,
            |out, x| {
                let _ = std::fmt::Write::write_fmt(out, format_args!("{x}"));
            },
        )
    }

    pub(crate) fn require_square(&self, what: &str) -> Result<usize> {
        require_square(self.rows, self.cols, what)
    }

    pub(crate) fn require_same_moduli(&self, other: &ModMatrices) -> Result<()> {
        if self.moduli != other.moduli {
            return Err(Error::BasisMismatch);
        }
        Ok(())
    }

    /// The matrices of channels `which`, in that order.
    pub(crate) fn channels(&self, which: &[usize]) -> ModMatrices {
        let size = self.rows * self.cols;
        ModMatrices {
            moduli: which.iter().map(|&c| self.moduli[c]).collect(),
            rows: self.rows,
            cols: self.cols,
            data: which
                .iter()
                .flat_map(|&c| &self.data[c * size..(c + 1) * size])
                .copied()
                .collect(),
        }
    }

    /// `[self | other]`, column-wise, for every prime.
    pub(crate) fn augment(&self, other: &ModMatrices) -> ModMatrices {
        let (r, c1, c2) = (self.rows, self.cols, other.cols);
        let mut data = Vec::with_capacity(self.count() * r * (c1 + c2));
        for c in 0..self.count() {
            let (a, b) = (self.matrix(c), other.matrix(c));
            for i in 0..r {
                data.extend_from_slice(&a[i * c1..(i + 1) * c1]);
                data.extend_from_slice(&b[i * c2..(i + 1) * c2]);
            }
        }
        ModMatrices {
            moduli: self.moduli.clone(),
            rows: r,
            cols: c1 + c2,
            data: data.into(),
        }
    }

    /// The transpose of every matrix.
    pub(crate) fn transpose(&self) -> ModMatrices {
        let (r, c) = (self.rows, self.cols);
        let mut data = vec![0u32; self.data.len()];
        let size = (r * c).max(1);
        for (from, to) in self.data.chunks(size).zip(data.chunks_mut(size)) {
            for i in 0..r {
                for j in 0..c {
                    to[j * r + i] = from[i * c + j];
                }
            }
        }
        ModMatrices {
            moduli: self.moduli.clone(),
            rows: c,
            cols: r,
            data: data.into(),
        }
    }

    /// The columns from `start` on, for every prime.
    pub(crate) fn columns_from(&self, start: usize) -> ModMatrices {
        let w = self.cols - start;
        let data = self
            .data
            .chunks(self.cols.max(1))
            .flat_map(|row| row[start..].iter().copied())
            .collect();
        ModMatrices {
            moduli: self.moduli.clone(),
            rows: self.rows,
            cols: w,
            data,
        }
    }
}

/// The validated moduli of `primes`, for the residues of a `rows × cols` matrix modulo
/// each (refused when they would not fit in memory).
fn residue_moduli(primes: &[u32], rows: usize, cols: usize) -> Result<Vec<Modulus>> {
    let moduli = primes
        .iter()
        .map(|&p| Modulus::new(p))
        .collect::<std::result::Result<Vec<_>, _>>()?;
    crate::limits::check_words(
        primes.len() as u128 * rows as u128 * cols as u128,
        &format!(
            "the residues of a {rows}×{cols} matrix modulo {} primes",
            primes.len()
        ),
    )?;
    Ok(moduli)
}

/// The `n × n` identity modulo each of `moduli`.
pub(crate) fn identity(moduli: &[Modulus], n: usize) -> ModMatrices {
    let one: Vec<u32> = (0..n * n).map(|k| (k / n == k % n) as u32).collect();
    ModMatrices {
        moduli: moduli.to_vec(),
        rows: n,
        cols: n,
        data: one.repeat(moduli.len()).into(),
    }
}

/// The reduced row echelon form of each matrix and its rank.
///
/// ```
/// use rns::{Backend, ModMatrices};
///
/// let p = 2147483647;
/// let m = ModMatrices::new(&[p], 2, 3, vec![1, 2, 3, 2, 4, 7])?;
/// let e = Backend::Cpu.rref_mod(&m)?;
/// assert_eq!(e.ranks, [2]);
/// assert_eq!(e.rref.data(), [1, 2, 0, 0, 0, 1]);
/// # Ok::<(), rns::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Echelon {
    /// The reduced row echelon forms (unique: each pivot 1, alone in its column).
    pub rref: ModMatrices,
    /// The rank of each matrix.
    pub ranks: Vec<usize>,
}
