//! The cost model's estimate of each exact computation as the library runs it: the
//! algorithm [`Method::Auto`] picks for the sizes at hand (asked of [`Method`] itself,
//! not copied), priced by the backends' rates ([`crate::backend::cost`]). The CLI and
//! Python pass these to [`crate::backend::auto::Chooser::backend`].

use super::method::Method;
use super::rank::RANK_FIRST_PRIMES;
use super::rref::RREF_PRIMES_PER_TRY;
use crate::backend::cost::{self, Estimate};
use crate::mat::matrix::IntMatrix;
use crate::poly::bipoly::{pair_shape, BiPoly};
use crate::poly::bounds::{resultant_bits, resultant_xy_bits};
use crate::poly::intpoly::IntPoly;
use rns_core::launch::{LIFT_GLOBAL_MAX_LIMBS, LIFT_GLOBAL_MAX_RHS};
use rns_core::padic::{limbs_for_bits, residual_fits};

/// Whether the GPU lifts `A X = B` for `A` `n × n` with `bits`-bit entries and `l`
/// right-hand sides of `rhs_bits`: the residuals fit in 128 bits, and the rows (about)
/// in shared memory or a global-memory launch takes them (few right-hand sides).
fn gpu_lifts(n: usize, a_bits: u64, (l, rhs_bits): (usize, u64)) -> bool {
    let bits = |b: u64| b.min(u32::MAX as u64) as u32;
    let global = l <= LIFT_GLOBAL_MAX_RHS && limbs_for_bits(bits(a_bits)) <= LIFT_GLOBAL_MAX_LIMBS;
    (n <= cost::GPU_LIFT_MAX_N || global) && residual_fits(n, bits(a_bits), bits(rhs_bits))
}

/// The shape and entry size of an input matrix, for the cost model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Bits of the largest entry.
    pub bits: u64,
}

impl Dims {
    /// The dimensions of an integer matrix (its largest entry's bits).
    pub fn of(m: &IntMatrix) -> Dims {
        Dims {
            rows: m.rows(),
            cols: m.cols(),
            bits: m.max_bits(),
        }
    }
}

/// The matrix computations the cost model estimates from their inputs' [`Dims`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MatrixKind {
    /// The determinant of `A`.
    Det,
    /// The product `A · B`.
    Matmul,
    /// The rank of `A`.
    Rank,
    /// The inverse of `A`.
    Inverse,
    /// The solution of `A X = B`.
    Solve,
    /// The reduced row echelon form of `A`.
    Rref,
    /// A basis of the nullspace of `A`.
    Nullspace,
    /// The characteristic polynomial of `A`.
    Charpoly,
    /// The minimal polynomial of `A`.
    Minpoly,
}

/// The estimate of a matrix computation on inputs `dims` (`A`, then `B` where there is
/// one) over Z/Q, or modulo one prime when `modular`.
pub fn matrix(kind: MatrixKind, dims: &[Dims], modular: bool) -> Estimate {
    let a = dims[0];
    let (n, cols) = (a.rows, a.cols);
    let primes = |bits: f64| if modular { 1.0 } else { cost::primes_for(bits) };
    let minors = || primes(cost::hadamard_bits(n.min(cols), a.bits));
    let auto = Method::Auto;
    match kind {
        // The divisor trick where `Method::Auto` lifts (multimodular otherwise).
        MatrixKind::Det if !modular && n == cols => {
            let multimodular = cost::det(n, minors());
            let cpu = auto.det_lifting((n, a.bits), false, || false).is_some();
            let gpu = auto
                .det_lifting((n, a.bits), true, || gpu_lifts(n, a.bits, (1, 1)))
                .is_some();
            priced(n, (a.bits, 1), (cpu, gpu), multimodular)
        }
        MatrixKind::Det => cost::det(n.max(cols), minors()),
        MatrixKind::Matmul => {
            let b = dims[1];
            let bits = (a.bits + b.bits) as f64 + (cols.max(2) as f64).log2();
            cost::matmul(n, cols, b.cols, primes(bits))
        }
        // The usual case: full rank modulo one of the primes tried first.
        MatrixKind::Rank => {
            let tried = if modular { 1 } else { RANK_FIRST_PRIMES };
            cost::gauss_jordan(n, cols, tried as f64)
        }
        MatrixKind::Inverse => cost::gauss_jordan(n, 2 * n, minors()),
        // Hessenberg form and recurrence: about three eliminations' products a prime.
        MatrixKind::Charpoly => {
            let bits = n as f64 * (a.bits as f64 + (n.max(2) as f64).log2() / 2.0 + 1.0);
            cost::gauss_jordan(n, n, 3.0 * primes(bits))
        }
        // Krylov rows with their combinations, the span's basis and the products `A·v`:
        // about four eliminations' products a prime, to the bound `(2‖A‖)^n`.
        MatrixKind::Minpoly => {
            let bits = n as f64 * (a.bits as f64 + (n.max(2) as f64).log2() + 1.0);
            cost::gauss_jordan(n, n, 4.0 * primes(bits))
        }
        MatrixKind::Rref | MatrixKind::Nullspace if modular => cost::gauss_jordan(n, cols, 1.0),
        // The forms of `A` and `Aᵀ` modulo the primes of a try, then the solve of the
        // pivot block (taken as full rank) for the other columns.
        MatrixKind::Rref | MatrixKind::Nullspace => {
            let tried = (RREF_PRIMES_PER_TRY + 1) as f64;
            let forms = cost::gauss_jordan(n, cols, tried);
            let k = n.min(cols);
            let block = Dims {
                rows: k,
                cols: k,
                ..a
            };
            let rest = Dims {
                rows: k,
                cols: (cols - k).max(1),
                ..a
            };
            let solve = matrix(MatrixKind::Solve, &[block, rest], false);
            Estimate {
                cpu_ms: forms.cpu_ms + solve.cpu_ms,
                gpu_ms: forms.gpu_ms + solve.gpu_ms,
            }
        }
        MatrixKind::Solve => {
            let b = dims[1];
            let multimodular = cost::gauss_jordan(n, n + b.cols, minors());
            if modular || n != cols {
                return multimodular;
            }
            let l = b.cols;
            let cpu = auto.solve_lifting(n, l, false, || false).is_some();
            let fits = || gpu_lifts(n, a.bits, (l, b.bits));
            let gpu = auto.solve_lifting(n, l, true, fits).is_some();
            priced(n, (a.bits, l.max(1)), (cpu, gpu), multimodular)
        }
    }
}

/// A univariate resultant: a Euclidean resultant per prime (a pseudo-remainder on the
/// host where one degree is small against the other).
pub fn resultant(f: &IntPoly, g: &IntPoly) -> Estimate {
    if crate::algo::resultant_unbalanced::applies(f, g) {
        // A pseudo-remainder on the host, whichever backend: no reason to start a GPU.
        let ms = (f.degree() + g.degree()) as f64 * 1e-4;
        return Estimate {
            cpu_ms: ms,
            gpu_ms: ms,
        };
    }
    let primes = cost::primes_for(resultant_bits(f, g) as f64);
    cost::euclid_blocks(f.degree(), g.degree(), primes)
}

/// A bivariate resultant: a Euclidean resultant in `y` per prime and per point of the
/// degree bound.
pub fn resultant_xy(f: &BiPoly, g: &BiPoly) -> Estimate {
    let primes = cost::primes_for(resultant_xy_bits(f, g) as f64);
    let points = (pair_shape(f, g).degree_bound() + 1) as f64;
    cost::euclid(f.deg_y(), g.deg_y(), primes * points)
}

/// An estimate where each backend lifts (`cpu`, `gpu`: Dixon's lifting of `n × n` with
/// entries of `bits` bits and `l` right-hand sides) or runs `multimodular`.
fn priced(
    n: usize,
    (bits, l): (u64, usize),
    (cpu, gpu): (bool, bool),
    multimodular: Estimate,
) -> Estimate {
    let lifted = cost::lifting(n, bits, l, gpu, multimodular);
    Estimate {
        cpu_ms: if cpu {
            lifted.cpu_ms
        } else {
            multimodular.cpu_ms
        },
        gpu_ms: lifted.gpu_ms,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cost::{det, gauss_jordan, hadamard_bits, primes_for};

    #[test]
    fn the_divisor_trick_is_priced_as_lifted() {
        let a = Dims {
            rows: 500,
            cols: 500,
            bits: 64,
        };
        let multimodular = det(500, primes_for(hadamard_bits(500, 64)));
        let lifted = matrix(MatrixKind::Det, &[a], false);
        // 2152 steps of 4·500² products against ≈ 1100 eliminations of 500³/3.
        assert!(lifted.cpu_ms * 5.0 < multimodular.cpu_ms, "{lifted:?}");
        // On the GPU: 2152 steps of about 4 µs.
        assert!((5.0..20.0).contains(&lifted.gpu_ms), "{lifted:?}");
        // Entries too large for 128-bit residuals (120 + 9 + 1 bits): the GPU's
        // multimodular path.
        let wide = Dims { bits: 120, ..a };
        let w = matrix(MatrixKind::Det, &[wide], false);
        assert_eq!(
            w.gpu_ms,
            det(500, primes_for(hadamard_bits(500, 120))).gpu_ms
        );
        // A solve with many right-hand sides stays multimodular on the CPU.
        let b = Dims {
            rows: 500,
            cols: 100,
            bits: 10,
        };
        let s = matrix(MatrixKind::Solve, &[a, b], false);
        let m = gauss_jordan(500, 600, primes_for(hadamard_bits(500, 64)));
        assert_eq!(s.cpu_ms, m.cpu_ms);
    }
}
