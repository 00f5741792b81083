//! Launches whose geometry passes a hardware limit of the grid (65 535 blocks in y and
//! z) are split or looped: elementwise operations and the reduction of integers over
//! more channels than that, an exact product whose transposed operands have more row
//! tiles than that, and a resultant over more primes than that; each against the CPU
//! or a known answer.

use rns::{Backend, IntPoly, Op, RnsBasis, RnsVec};
use rns_suite::{gpu_backend as gpu, random_with_edges, same, Gen};
use rug::Integer;
use std::sync::Arc;

/// Channels past the grid's y limit.
const CHANNELS: usize = 65_535 + 1_000;

#[test]
fn elementwise_and_reduction_over_more_channels_than_the_grid() {
    let Some(g) = gpu() else { return };
    let basis = Arc::new(RnsBasis::largest_primes(CHANNELS).unwrap());
    let (a, b) = (
        random_with_edges(&basis, 9, 1),
        random_with_edges(&basis, 9, 2),
    );
    let cpu = Backend::Cpu;
    for op in [Op::Add, Op::Mul, Op::MulSubMul, Op::MulScalar] {
        let s = Integer::from(-7);
        let scalar = op.has_scalar().then_some(&s);
        let ins: Vec<&RnsVec> = [&a, &b, &a, &b][..op.arity()].to_vec();
        let got = g.elementwise(op, &ins, scalar).unwrap();
        let want = cpu.elementwise(op, &ins, scalar).unwrap();
        same(got.residues(), want.residues(), &format!("{op:?}"));
    }
    // Integers of many words reduced on the device into every channel.
    let mut gen = Gen::new(31);
    let values: Vec<Integer> = (0..5).map(|_| gen.signed(70_000)).collect();
    let got = g.to_rns(&basis, &values).unwrap();
    let want = RnsVec::from_integers(&basis, &values).unwrap();
    same(got.residues(), want.residues(), "to_rns");
}

#[test]
fn exact_products_with_more_row_tiles_than_the_grid() {
    let Some(g) = gpu() else { return };
    // 1500 × 1500 entries: 70 313 tiles of 32 numbers to transpose (past 65 535).
    let mut gen = Gen::new(32);
    let (a, b) = (gen.matrix(1500, 1500, 10), gen.matrix(1500, 2, 10));
    let want = rns::matmul(&a, &b, &Backend::Cpu).unwrap();
    assert_eq!(rns::matmul(&a, &b, &g).unwrap(), want);
}

#[test]
fn resultants_over_more_primes_than_the_grid() {
    let Some(g) = gpu() else { return };
    // res(a·x + b, c·x + d) = a·d − b·c, with coefficients of 1.1 million bits: about
    // 71 000 primes.
    let mut gen = Gen::new(33);
    let c: Vec<Integer> = (0..4).map(|_| gen.signed(1_100_000)).collect();
    let f = IntPoly::new(vec![c[1].clone(), c[0].clone()]).unwrap();
    let h = IntPoly::new(vec![c[3].clone(), c[2].clone()]).unwrap();
    let want = Integer::from(&c[0] * &c[3]) - Integer::from(&c[1] * &c[2]);
    let (got, st) = rns::resultant_with(&f, &h, &g, &Default::default()).unwrap();
    assert!(st.primes() > 65_535, "{} primes", st.primes());
    assert_eq!(got, want);
}
