//! Matrices modulo primes on a backend ([`ModMatrices`]): product, determinant, rank,
//! reduced echelon form, inverse and solve, every prime at once. On a GPU backend a few
//! large matrices have the whole device (a block per prime would leave it idle): their
//! determinants, their solves and inverses by Gauss–Jordan over the whole grid, and
//! their rank where the determinant is not zero.

use super::cpu;
use super::gpu::ops;
use super::gpu::ops::few_devices::{self, Rhs};
use super::plan::Channels;
use super::Backend;
use crate::error::{Error, Result};
use crate::mat::matrix::{require_product, require_rhs};
use crate::mat::modmat::{identity, Echelon, MatrixPolynomial, ModMatrices};
use crate::num::words::Words;

impl Backend {
    /// `a · b` modulo each prime. Errors: different primes, inner dimensions that differ.
    pub fn matmul_mod(&self, a: &ModMatrices, b: &ModMatrices) -> Result<ModMatrices> {
        a.require_same_moduli(b)?;
        require_product((a.rows, a.cols), (b.rows, b.cols))?;
        let data =
            self.matmul_per_channel(&a.moduli, (a.rows, a.cols, b.cols), &a.data, &b.data)?;
        Ok(ModMatrices {
            moduli: a.moduli.clone(),
            rows: a.rows,
            cols: b.cols,
            data,
        })
    }

    /// The determinant of each (square) matrix. On a GPU backend a few large ones have
    /// the whole device (`det_mod_few`).
    pub fn det_mod(&self, a: &ModMatrices) -> Result<Vec<u32>> {
        let n = a.require_square("the determinant")?;
        if let Some(g) = self.device_for(a.data.len()) {
            if ops::det_few_for(g, a.moduli.len(), n) {
                if let Some(dets) = self.det_mod_split(a)? {
                    return Ok(dets);
                }
                return ops::det_mod_few(g, &a.moduli, n, &a.data);
            }
        }
        let mut data = a.data.clone();
        let e = self.eliminate_per_channel(&a.moduli, (n, n, n), false, &mut data, false)?;
        Ok(e.into_iter().map(|e| e.det).collect())
    }

    /// The characteristic polynomial `det(x·I − A)` of each (square) matrix: `n + 1`
    /// coefficients a matrix, constant first (the last 1), one matrix after another.
    ///
    /// ```
    /// use rns::{Backend, ModMatrices};
    ///
    /// let p = 2147483647;
    /// let m = ModMatrices::new(&[p], 2, 2, vec![1, 2, 3, 4])?;
    /// assert_eq!(Backend::Cpu.charpoly_mod(&m)?, [p - 2, p - 5, 1]); // x² − 5x − 2
    /// # Ok::<(), rns::Error>(())
    /// ```
    pub fn charpoly_mod(&self, a: &ModMatrices) -> Result<Vec<u32>> {
        self.matrix_polynomial_mod(MatrixPolynomial::Characteristic, a)
    }

    /// The minimal polynomial of each (square) matrix: the monic `μ` of least degree
    /// with `μ(A) = 0`, as `n + 1` coefficients a matrix, constant first and zero above
    /// its degree, one matrix after another.
    ///
    /// ```
    /// use rns::{Backend, ModMatrices};
    ///
    /// let p = 2147483647;
    /// let m = ModMatrices::new(&[p], 2, 2, vec![3, 0, 0, 3])?;
    /// assert_eq!(Backend::Cpu.minpoly_mod(&m)?, [p - 3, 1, 0]); // x − 3
    /// # Ok::<(), rns::Error>(())
    /// ```
    pub fn minpoly_mod(&self, a: &ModMatrices) -> Result<Vec<u32>> {
        self.matrix_polynomial_mod(MatrixPolynomial::Minimal, a)
    }

    /// [`Backend::charpoly_mod`] or [`Backend::minpoly_mod`].
    fn matrix_polynomial_mod(&self, kind: MatrixPolynomial, a: &ModMatrices) -> Result<Vec<u32>> {
        let n = a.require_square(kind.name())?;
        // A few large matrices have the whole device (a minimal polynomial there only
        // where it is the characteristic one: `ops::minpoly_mod_few`), and so do many
        // primes of a large one (`ops::charpoly_mod_grid`, in groups that fit).
        if let Some(g) = self.device_for(a.data.len()) {
            let few = ops::det_few_for(g, a.moduli.len(), n);
            let found = match kind {
                MatrixPolynomial::Characteristic if few || n >= ops::CHARPOLY_GRID_FROM => {
                    ops::charpoly_mod_grid(g, &a.moduli, n, &a.data)?
                }
                MatrixPolynomial::Minimal if few => ops::minpoly_mod_few(g, &a.moduli, n, &a.data)?,
                _ => None,
            };
            if let Some(out) = found {
                return Ok(out);
            }
        }
        let size = n * n;
        let job = Channels::new(a.moduli.len(), n + 1, a.data.len().saturating_mul(n));
        let part = |r: &std::ops::Range<usize>| &a.data[r.start * size..r.end * size];
        let out = self.per_channel(
            job,
            &|r| {
                let threads = rayon::current_num_threads();
                let words = kind.cpu_words(n, r.len(), threads);
                crate::limits::check_words(words, kind.name())?;
                let mods = &a.moduli[r.clone()];
                let out = cpu::matrix_polynomial_per_channel(kind, mods, n, part(&r));
                Ok(Words::Heap(out))
            },
            &|g, r| {
                let mods = &a.moduli[r.clone()];
                let out = ops::matrix_polynomial_per_channel(g, kind, mods, n, part(&r))?;
                Ok(Words::Heap(out))
            },
        )?;
        Ok(out.into_vec())
    }

    /// The rank of each matrix. A few large square ones on a GPU backend: full rank where
    /// the determinant (with the whole device) is not zero, an elimination for the rest.
    pub fn rank_mod(&self, a: &ModMatrices) -> Result<Vec<usize>> {
        let n = a.rows;
        let few = a.rows == a.cols
            && self
                .device_for(a.data.len())
                .is_some_and(|g| ops::det_few_for(g, a.moduli.len(), n));
        let mut ranks = vec![n; a.moduli.len()];
        let redo: Vec<usize> = match few {
            true => {
                let dets = self.det_mod(a)?;
                (0..dets.len()).filter(|&c| dets[c] == 0).collect()
            }
            false => (0..a.moduli.len()).collect(),
        };
        if redo.is_empty() {
            return Ok(ranks);
        }
        let mut sub = a.channels(&redo);
        let shape = (a.rows, a.cols, a.cols);
        let e = self.eliminate_per_channel(&sub.moduli, shape, false, &mut sub.data, false)?;
        for (&c, e) in redo.iter().zip(e) {
            ranks[c] = e.rank as usize;
        }
        Ok(ranks)
    }

    /// The reduced row echelon form and rank of each matrix. On a GPU backend a few large
    /// ones have the whole device (`rref_mod_few`).
    pub fn rref_mod(&self, a: &ModMatrices) -> Result<Echelon> {
        if let Some(g) = self.device_for(a.data.len()) {
            if ops::det_few_for(g, a.moduli.len(), a.rows.min(a.cols)) {
                let shape = (a.rows, a.cols);
                if let Some((data, ranks)) = ops::rref_mod_few(g, &a.moduli, shape, &a.data)? {
                    let rref = ModMatrices {
                        moduli: a.moduli.clone(),
                        rows: a.rows,
                        cols: a.cols,
                        data: data.into(),
                    };
                    return Ok(Echelon { rref, ranks });
                }
            }
        }
        let mut rref = a.clone();
        let shape = (a.rows, a.cols, a.cols);
        let e = self.eliminate_per_channel(&a.moduli, shape, true, &mut rref.data, true)?;
        Ok(Echelon {
            rref,
            ranks: e.into_iter().map(|e| e.rank as usize).collect(),
        })
    }

    /// The inverse of each matrix. Errors: a non-square matrix; a matrix that is
    /// singular modulo its prime ([`Error::Singular`] names the prime).
    pub fn inverse_mod(&self, a: &ModMatrices) -> Result<ModMatrices> {
        let n = a.require_square("the inverse")?;
        if let Some(x) = self.solve_mod_few(a, None)? {
            return Ok(x);
        }
        self.solve_mod(a, &identity(&a.moduli, n))
    }

    /// The solution `X` of `A X = B` modulo each prime, for square `A` (`a`) and `B`
    /// (`b`) with as many rows. Errors: shapes that do not fit, different primes, and
    /// `A` singular modulo a prime ([`Error::Singular`] names the first such prime).
    pub fn solve_mod(&self, a: &ModMatrices, b: &ModMatrices) -> Result<ModMatrices> {
        let n = a.require_square("solving A X = B")?;
        a.require_same_moduli(b)?;
        require_rhs(n, b.rows)?;
        if let Some(x) = self.solve_mod_few(a, Some(b))? {
            return Ok(x);
        }
        let mut ab = a.augment(b);
        let shape = (n, ab.cols, n);
        let e = self.eliminate_per_channel(&a.moduli, shape, true, &mut ab.data, true)?;
        if let Some(c) = e.iter().position(|e| e.rank as usize != n) {
            return Err(Error::Singular {
                prime: Some(a.moduli[c].m),
            });
        }
        Ok(ab.columns_from(n))
    }

    /// `A⁻¹·B` (`b = None`: the inverse) by Gauss–Jordan with the whole device, when
    /// this is a GPU backend and the matrices are a few large ones (`det_few_for`);
    /// `None` otherwise. `a` square, `b` checked against it by the caller.
    fn solve_mod_few(
        &self,
        a: &ModMatrices,
        b: Option<&ModMatrices>,
    ) -> Result<Option<ModMatrices>> {
        let (n, k) = (a.rows, b.map_or(a.rows, |b| b.cols));
        let work = a.data.len() + b.map_or(a.data.len(), |b| b.data.len());
        let Some(g) = self.device_for(work) else {
            return Ok(None);
        };
        if !ops::det_few_for(g, a.moduli.len(), n) {
            return Ok(None);
        }
        let rhs = b.map(|b| (&b.data[..], k));
        let gpus = self.factor_devices(n, a.moduli.len());
        let split = few_devices::split_panel(gpus, (n, n + k), a.moduli.len(), true)?;
        let done = match split {
            Some(panel) => {
                let rhs = rhs.map_or(Rhs::Identity, |(b, k)| Rhs::Given(b, k));
                few_devices::solve_split(gpus, &a.moduli, (n, panel), &a.data, rhs)?
            }
            None => None,
        };
        let data = match done {
            Some(x) => x,
            None => ops::few::solve_mod_few(g, &a.moduli, n, &a.data, rhs)?,
        };
        Ok(Some(ModMatrices {
            moduli: a.moduli.clone(),
            rows: n,
            cols: k,
            data,
        }))
    }

    /// The determinants of a few large matrices (`ops::det_few_for`) with their rows
    /// split across the GPUs ([`Backend::factor_devices`], where
    /// `few_devices::split_panel` applies), `None` where they are not split. A prime
    /// whose panel block is singular somewhere is redone on the first device.
    fn det_mod_split(&self, a: &ModMatrices) -> Result<Option<Vec<u32>>> {
        let (n, channels) = (a.rows, a.moduli.len());
        let gpus = self.factor_devices(n, channels);
        let Some(panel) = few_devices::split_panel(gpus, (n, n), channels, false)? else {
            return Ok(None);
        };
        let mut dets = few_devices::det_split(gpus, &a.moduli, n, panel, &a.data)?;
        let redo: Vec<usize> = (0..channels).filter(|&c| dets[c] == 0).collect();
        if redo.is_empty() {
            return Ok(Some(dets));
        }
        let sub = a.channels(&redo);
        let again = ops::det_mod_few(&gpus[0], &sub.moduli, n, &sub.data)?;
        for (&c, det) in redo.iter().zip(again) {
            dets[c] = det;
        }
        Ok(Some(dets))
    }
}
