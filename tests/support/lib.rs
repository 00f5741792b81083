//! Reference algorithms and input generators shared by the cross-crate tests and the
//! examples: nothing here goes through residues, so it can check what does.

use rns::{IntMatrix, RnsBasis};
use rug::rand::RandState;
use rug::Integer;

/// Determinant by fraction-free Gaussian elimination (Bareiss), exact over Z.
pub fn bareiss_det(a: &IntMatrix) -> Integer {
    assert!(a.is_square());
    let n = a.rows();
    let mut m: Vec<Vec<Integer>> = (0..n).map(|i| a.row(i).to_vec()).collect();
    let mut sign = 1i32;
    let mut prev = Integer::from(1);
    for k in 0..n {
        if m[k][k] == 0 {
            match (k + 1..n).find(|&i| m[i][k] != 0) {
                Some(p) => {
                    m.swap(k, p);
                    sign = -sign;
                }
                None => return Integer::new(),
            }
        }
        for i in k + 1..n {
            for j in k + 1..n {
                let t = Integer::from(&m[i][j] * &m[k][k]) - Integer::from(&m[i][k] * &m[k][j]);
                m[i][j] = t.div_exact(&prev);
            }
        }
        prev = m[k][k].clone();
    }
    if n == 0 {
        return Integer::from(1);
    }
    Integer::from(&m[n - 1][n - 1] * sign)
}

/// The edges of a basis's signed range: 0, ±1, ±H, ±(H−1) and ±2^b, where
/// `H = (M−1)/2` and `b` is the basis's `range_bits`.
pub fn edge_values(basis: &RnsBasis) -> Vec<Integer> {
    let h = basis.half().clone();
    let top = Integer::from(1) << basis.range_bits() as u32;
    vec![
        Integer::new(),
        Integer::from(1),
        Integer::from(-1),
        h.clone(),
        -h.clone(),
        Integer::from(&h - 1u32),
        Integer::from(1u32) - &h,
        top.clone(),
        -top,
    ]
}

/// A reproducible random generator for test and benchmark inputs.
pub struct Gen {
    state: RandState<'static>,
}

impl Gen {
    /// A generator seeded with `seed`: the same seed gives the same inputs everywhere.
    pub fn new(seed: u64) -> Gen {
        let mut state = RandState::new();
        state.seed(&Integer::from(seed));
        Gen { state }
    }

    /// A uniform signed integer with `|x| < 2^bits`.
    pub fn signed(&mut self, bits: u32) -> Integer {
        let x = Integer::from(Integer::random_bits(bits, &mut self.state));
        if self.below(2) == 1 {
            -x
        } else {
            x
        }
    }

    /// A uniform integer in `[0, n)`.
    pub fn below(&mut self, n: u32) -> u32 {
        self.state.below(n)
    }

    /// A uniform integer in `[−h, h]`.
    pub fn in_range(&mut self, h: &Integer) -> Integer {
        let width = Integer::from(h * 2u32) + 1u32;
        Integer::from(width.random_below_ref(&mut self.state)) - h
    }

    /// An `rows × cols` matrix of signed entries with `|a_ij| < 2^bits`.
    pub fn matrix(&mut self, rows: usize, cols: usize, bits: u32) -> IntMatrix {
        let data = (0..rows * cols).map(|_| self.signed(bits)).collect();
        IntMatrix::new(rows, cols, data).expect("shape matches")
    }
}
