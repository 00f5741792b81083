//! What a reduced row echelon form modulo a prime ([`Echelon`]) gives: its pivot
//! columns and the nullspace basis read from it, python-flint's `nmod_mat` conventions.

use crate::mat::modmat::{Echelon, ModMatrices};

impl Echelon {
    /// The pivot columns of matrix `c`, in increasing order: in each of its first
    /// `ranks[c]` rows, the column of the leading 1.
    ///
    /// ```
    /// use rns::{Backend, ModMatrices};
    ///
    /// let m = ModMatrices::new(&[2147483647], 2, 3, vec![0, 1, 3, 0, 2, 7])?;
    /// assert_eq!(Backend::Cpu.rref_mod(&m)?.pivots(0), [1, 2]);
    /// # Ok::<(), rns::Error>(())
    /// ```
    pub fn pivots(&self, c: usize) -> Vec<usize> {
        let (rows, cols) = (self.rref.rows, self.rref.cols);
        let r = self.rref.matrix(c);
        (0..self.ranks[c].min(rows))
            .filter_map(|i| r[i * cols..(i + 1) * cols].iter().position(|&x| x != 0))
            .collect()
    }

    /// A basis of the (right) nullspace of matrix `c` as the columns of an
    /// `n × (n − rank)` matrix modulo its prime: for each non-pivot column `j` in
    /// increasing order, the vector with 1 at `j`, `−R[k][j]` at the `k`-th pivot column
    /// and 0 elsewhere (python-flint's `nmod_mat.nullspace` vectors).
    ///
    /// ```
    /// use rns::{Backend, ModMatrices};
    ///
    /// let p = 2147483647;
    /// let m = ModMatrices::new(&[p], 2, 3, vec![1, 2, 3, 2, 4, 6])?;
    /// let x = Backend::Cpu.rref_mod(&m)?.nullspace(0);
    /// assert_eq!((x.rows(), x.cols()), (3, 2));
    /// assert_eq!(x.data(), [p - 2, p - 3, 1, 0, 0, 1]);
    /// # Ok::<(), rns::Error>(())
    /// ```
    pub fn nullspace(&self, c: usize) -> ModMatrices {
        let n = self.rref.cols;
        let p = self.rref.moduli[c].m;
        let r = self.rref.matrix(c);
        let pivots = self.pivots(c);
        let free: Vec<usize> = (0..n)
            .filter(|j| pivots.binary_search(j).is_err())
            .collect();
        let k = free.len();
        let mut x = vec![0u32; n * k];
        for (t, &j) in free.iter().enumerate() {
            x[j * k + t] = 1;
            for (row, &pc) in pivots.iter().enumerate() {
                let v = r[row * n + j];
                x[pc * k + t] = if v == 0 { 0 } else { p - v };
            }
        }
        ModMatrices {
            moduli: vec![self.rref.moduli[c]],
            rows: n,
            cols: k,
            data: x.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::Backend;
    use crate::mat::modmat::ModMatrices;

    /// Every nullspace vector is annihilated by the matrix, the basis has `n − rank`
    /// vectors with a 1 at distinct free columns (so independent), on wide, tall, zero
    /// and full-rank matrices.
    #[test]
    fn nullspace_vectors_are_annihilated_and_independent() {
        let p = 2147483629u32;
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as u32 % 5
        };
        for (m, n) in [(1, 1), (3, 3), (2, 5), (5, 2), (4, 6), (6, 6), (0, 3)] {
            for zero in [false, true] {
                let data: Vec<u32> = (0..m * n).map(|_| if zero { 0 } else { next() }).collect();
                let a = ModMatrices::new(&[p], m, n, data.clone()).unwrap();
                let e = Backend::Cpu.rref_mod(&a).unwrap();
                let x = e.nullspace(0);
                let k = x.cols();
                assert_eq!(k, n - e.ranks[0], "{m}×{n}");
                let xd = x.data();
                for t in 0..k {
                    for i in 0..m {
                        let s = (0..n).fold(0u64, |s, j| {
                            (s + data[i * n + j] as u64 * xd[j * k + t] as u64) % p as u64
                        });
                        assert_eq!(s, 0, "{m}×{n}, vector {t}, row {i}");
                    }
                }
                let free: Vec<usize> = (0..n).filter(|j| !e.pivots(0).contains(j)).collect();
                for (t, &j) in free.iter().enumerate() {
                    assert_eq!(xd[j * k + t], 1);
                }
            }
        }
    }
}
