//! The scaling table's rows for the inverse over Q, the characteristic and minimal
//! polynomials, the reduced row echelon form and the nullspace (over Z or Q, and modulo
//! the prime `P`). Each answer is checked in a way that does not repeat the
//! computation, modulo `P` on the same backend: a polynomial's constant term against
//! `(−1)^n det A` and its next-to-leading one against `−trace A` (a random matrix's
//! minimal polynomial is its characteristic one); an echelon form's rank against the
//! rank built into the input and `A·N ≡ 0` for the nullspace `N` it gives; the inverse's
//! `A·X ≡ I`. `flint_bench` has only the inverse: the others' FLINT figures come from
//! python-flint (`python/bench/new_ops.py`).

use crate::{flint, Answer, Case, P, R};
use rns::{Backend, IntMatrix, ModMatrices, RatMatrix};
use rns_suite::inputs::{random, rank_deficient};
use rug::Integer;
use std::time::Instant;

/// The operations of this module.
pub const OPS: [&str; 9] = [
    "inverse",
    "charpoly",
    "minpoly",
    "rref",
    "nullspace",
    "charpoly_mod",
    "minpoly_mod",
    "rref_mod",
    "nullspace_mod",
];

/// Runs `op` (one of [`OPS`]) at order `n` with `bits`-bit entries; the seconds are the
/// library call's alone, without the inputs or the check.
pub fn run(op: &str, n: usize, bits: u32, be: &Backend) -> R<Case> {
    let a = random(n, n, bits, 1);
    match op {
        "inverse" => {
            let t = Instant::now();
            let x = rns::inverse(&a, be)?;
            let s = t.elapsed().as_secs_f64();
            let note = check_product(&a, &x, &IntMatrix::identity(n), be)?;
            Case::new(s, note, flint("inverse", false, vec![a], Answer::Rat(x)))
        }
        "charpoly" | "minpoly" => {
            let t = Instant::now();
            let f = match op {
                "charpoly" => rns::charpoly(&a, be)?,
                _ => rns::minpoly(&a, be)?,
            };
            let s = t.elapsed().as_secs_f64();
            let mods: Vec<u32> = f.iter().map(|c| c.mod_u(P)).collect();
            let bits = f.iter().map(|c| c.significant_bits()).max().unwrap_or(0);
            let note = check_poly(&a, &mods, be)?;
            Case::new(s, format!("{note}, {bits}-bit coefficients"), None)
        }
        "charpoly_mod" | "minpoly_mod" => {
            let m = modp(&a)?;
            let t = Instant::now();
            let f = match op {
                "charpoly_mod" => be.charpoly_mod(&m)?,
                _ => be.minpoly_mod(&m)?,
            };
            let s = t.elapsed().as_secs_f64();
            Case::new(s, check_poly(&a, &f, be)?, None)
        }
        "rref" | "nullspace" => {
            // Wide, of full row rank (FLINT's nullspace case 1000 × 1010).
            let a = random(n, n + (n / 100).max(1), bits, 7);
            let t = Instant::now();
            let (rank, basis) = match op {
                "rref" => {
                    let e = rns::rref(&a, be)?;
                    (e.rank, rns::algo::nullspace::nullspace_from(&e))
                }
                _ => {
                    let x = rns::nullspace(&a, be)?;
                    (a.cols() - x.cols(), x)
                }
            };
            let s = t.elapsed().as_secs_f64();
            Case::new(s, check_nullspace(&a, (rank, n), &basis, be)?, None)
        }
        "rref_mod" | "nullspace_mod" => {
            // The case at 4000: 4000 × 4100 of rank 3900.
            let (cols, r) = (n + (n / 40).max(1), n - n / 40);
            let a = rank_deficient(n, cols, r, bits, 8);
            let m = modp(&a)?;
            let t = Instant::now();
            let e = be.rref_mod(&m)?;
            let basis = e.nullspace(0);
            let s = t.elapsed().as_secs_f64();
            let rank = e.ranks[0];
            let x = basis.to_int_matrix(0);
            Case::new(s, check_nullspace(&a, (rank, r), &x, be)?, None)
        }
        _ => Err(format!("unknown operation {op}").into()),
    }
}

/// `A` modulo `P`.
fn modp(a: &IntMatrix) -> R<ModMatrices> {
    Ok(ModMatrices::from_int_matrix(a, &[P])?)
}

/// Checks a monic polynomial of degree `n` given modulo `P` (constant first) against
/// `(−1)^n det A` and `−trace A` modulo `P`.
fn check_poly(a: &IntMatrix, f: &[u32], be: &Backend) -> R<String> {
    let n = a.rows();
    let p = u64::from(P);
    if f.len() != n + 1 || f[n] != 1 {
        return Err(format!("a polynomial of degree {} for order {n}", f.len() - 1).into());
    }
    let det = u64::from(be.det_mod(&modp(a)?)?[0]);
    let constant = if n.is_multiple_of(2) {
        det
    } else {
        (p - det) % p
    };
    let trace = (0..n).fold(Integer::new(), |t, i| t + a.get(i, i));
    let next = u64::from((-trace).mod_u(P));
    if u64::from(f[0]) != constant || n > 0 && u64::from(f[n - 1]) != next {
        return Err("the constant term or the trace's coefficient is wrong".into());
    }
    Ok("det and trace: ok".into())
}

/// Checks a nullspace basis `x` (`cols × (cols − rank)`) of `a`: the rank found against
/// the one built in (`want`), and `A·X ≡ 0 (mod P)`.
fn check_nullspace(
    a: &IntMatrix,
    (rank, want): (usize, usize),
    x: &IntMatrix,
    be: &Backend,
) -> R<String> {
    if rank != want || x.rows() != a.cols() || x.cols() != a.cols() - rank {
        return Err(format!(
            "rank {rank} (built {want}), basis {}×{}",
            x.rows(),
            x.cols()
        )
        .into());
    }
    let ax = be.matmul_mod(&modp(a)?, &modp(x)?)?;
    if ax.data().iter().any(|&v| v != 0) {
        return Err("A·N ≢ 0 (mod P)".into());
    }
    Ok(format!("rank {rank}, A·N ≡ 0: ok"))
}

/// Checks `A·X ≡ B (mod P)` for rationals `X` (their denominators invertible modulo `P`:
/// they divide `det A`, which is not divisible by `P` for the random inputs here; a
/// denominator that is says so instead).
fn check_product(a: &IntMatrix, x: &RatMatrix, b: &IntMatrix, be: &Backend) -> R<String> {
    let mut words = Vec::with_capacity(x.entries().len());
    for q in x.entries() {
        let den = Integer::from(q.denom().mod_u(P));
        let Ok(inv) = den.invert(&Integer::from(P)) else {
            return Ok("a denominator divisible by P: not checked".into());
        };
        words.push((q.numer() * inv).mod_u(P));
    }
    let xm = ModMatrices::new(&[P], x.rows(), x.cols(), words)?;
    if be.matmul_mod(&modp(a)?, &xm)?.data() != modp(b)?.data() {
        return Err("A·X ≢ B (mod P)".into());
    }
    Ok(format!("{} entries, A·X ≡ B: ok", x.entries().len()))
}
