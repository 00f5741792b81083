//! The exact product's text on the CPU straight from its residues (`crt_decimal`), no
//! integer built: against rug's text of the naive product, with the range's edges,
//! powers of ten and their neighbours of both signs, rows of one entry and of many; an
//! entry out of range reported at its index; and the choice of that path on both sides of
//! the CRT weights' thresholds (few numbers, or more range primes than the weights'
//! tables take), where the integers are formatted instead, with the same text.

use rns::num::crt::TREE_ABOVE;
use rns::{Backend, IntMatrix, RnsBasis};
use rns_suite::{basis, check_product_text, naive_matmul, product_text, Gen};
use std::sync::Arc;

/// The CPU's text of `x · y` over `b`: `None` where it formats integers instead.
fn cpu_text(b: &Arc<RnsBasis>, x: &IntMatrix, y: &IntMatrix) -> Option<String> {
    product_text(&Backend::Cpu, b, x, y)
}

#[test]
fn cpu_product_text_from_residues_matches_rug() {
    let mut gen = Gen::new(61);
    for bits in [31, 64, 1000, 2046, 9000] {
        check_product_text(&Backend::Cpu, bits, &mut gen, "from residues");
    }
}

#[test]
fn residue_text_on_both_sides_of_the_weights_thresholds() {
    let mut gen = Gen::new(62);
    // 66 range primes: one number is too few for the weights (64 numbers a prime), two
    // are enough.
    let b = basis(66);
    for (n, from_residues) in [(1, false), (2, true)] {
        let (x, y) = (gen.matrix(n, 3, 900), gen.matrix(3, 1, 900));
        let want = naive_matmul(&x, &y).to_text();
        let got = cpu_text(&b, &x, &y);
        assert_eq!(got.is_some(), from_residues, "{n} numbers");
        if let Some(text) = got {
            assert_eq!(text, want, "{n} numbers");
        }
        assert_eq!(rns::matmul_text(&x, &y, &Backend::Cpu).unwrap(), want);
    }
    // The most range primes the weights take, and one more.
    for (k, from_residues) in [(TREE_ABOVE, true), (TREE_ABOVE + 1, false)] {
        let b = basis(k);
        let (x, y) = (gen.matrix(40, 1, 31_000), gen.matrix(1, 1, 31_000));
        let want = naive_matmul(&x, &y).to_text();
        let got = cpu_text(&b, &x, &y);
        assert_eq!(got.is_some(), from_residues, "{k} range primes");
        if let Some(text) = got {
            assert_eq!(text, want, "{k} range primes");
        }
    }
}
