//! Factorizations of a few large matrices by panel inverses (`rns_block_inverse` and
//! products by small moduli on the tensor cores: `launch::panels`) against the CPU
//! backend bit for bit: determinants, solves, inverses and ranks modulo one and a few
//! primes, and the exact determinant whose lifting starts from such an inverse. On both
//! sides of the order from which they apply, with panels that divide the order and
//! that leave a last panel of one column, and on matrices whose panel blocks are
//! singular (the fallback), need a row swap inside a block, or are singular.

use rns::{Backend, Error, IntMatrix, Method, ModMatrices};
use rns_suite::{dev, gpu_backend as gpu, images, Gen, LiftCaps};
use rug::Integer;

/// Every modular operation on `a` (and the right-hand sides `b`) on both backends.
fn same_as_cpu(g: &Backend, a: &ModMatrices, b: &ModMatrices, what: &str) {
    let cpu = Backend::Cpu;
    assert_eq!(
        g.det_mod(a).unwrap(),
        cpu.det_mod(a).unwrap(),
        "{what}: det"
    );
    assert_eq!(
        g.rank_mod(a).unwrap(),
        cpu.rank_mod(a).unwrap(),
        "{what}: rank"
    );
    match cpu.solve_mod(a, b) {
        Ok(x) => {
            assert_eq!(g.solve_mod(a, b).unwrap(), x, "{what}: solve");
            let inv = cpu.inverse_mod(a).unwrap();
            assert_eq!(g.inverse_mod(a).unwrap(), inv, "{what}: inverse");
        }
        Err(e) => assert_eq!(g.solve_mod(a, b).unwrap_err(), e, "{what}: singular"),
    }
}

/// `a` with its rows reversed: every panel block of the anti-diagonal is zero when `a`
/// is the identity.
fn rows_reversed(a: &IntMatrix) -> IntMatrix {
    let n = a.cols();
    let e: Vec<Integer> = (0..a.rows())
        .rev()
        .flat_map(|i| a.entries()[i * n..(i + 1) * n].to_vec())
        .collect();
    IntMatrix::new(a.rows(), n, e).unwrap()
}

#[test]
fn panel_inverses_match_the_cpu() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let config = dev(&g).config();
    let mut gen = Gen::new(5);
    // Small panels at small orders: 64 = 4 × 16, 65 = 4 × 16 + 1, 100 = 6 × 16 + 4.
    config.set_inverse_panels(Some(1), Some(16));
    for (n, count) in [(64, 1), (65, 1), (100, 3)] {
        let a = images(&gen.matrix(n, n, 64), count);
        let b = images(&gen.matrix(n, 3, 64), count);
        same_as_cpu(&g, &a, &b, &format!("{n}² modulo {count}, panels of 16"));
    }
    let n = 80;
    let b = images(&gen.matrix(n, 1, 20), 2);
    // A zero leading entry: a row swap inside the first block.
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    e[0] = Integer::new();
    let swap = images(&IntMatrix::new(n, n, e).unwrap(), 2);
    same_as_cpu(&g, &swap, &b, "zero leading entry");
    // Singular panel blocks, the matrix not: the rows of the identity reversed, and of
    // a random matrix whose first 16 rows are zero in their first 16 columns.
    let ident: Vec<Integer> = (0..n * n)
        .map(|e| Integer::from((e % (n + 1) == 0) as u32))
        .collect();
    let anti = images(&rows_reversed(&IntMatrix::new(n, n, ident).unwrap()), 2);
    same_as_cpu(&g, &anti, &b, "reversed identity");
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    for i in 0..16 {
        for j in 0..16 {
            e[i * n + j] = Integer::new();
        }
    }
    let block = images(&IntMatrix::new(n, n, e).unwrap(), 2);
    same_as_cpu(&g, &block, &b, "zero first block");
    // Singular: a repeated row, and a low rank.
    let mut e = gen.matrix(n, n, 30).entries().to_vec();
    let row: Vec<Integer> = e[3 * n..4 * n].to_vec();
    e[70 * n..71 * n].clone_from_slice(&row);
    let twice = images(&IntMatrix::new(n, n, e).unwrap(), 2);
    same_as_cpu(&g, &twice, &b, "repeated row");
    assert!(matches!(g.inverse_mod(&twice), Err(Error::Singular { .. })));
    let low = images(&gen.low_rank(n, n, 50, 20), 1);
    same_as_cpu(&g, &low, &images(&gen.matrix(n, 1, 20), 1), "rank 50");
    // The exact determinant: its lifting starts from an inverse by panels.
    for n in [70, 97] {
        let a = gen.matrix(n, n, 64);
        let (d, st) = rns::det_with(&a, &g, &Method::Dixon.into()).unwrap();
        assert_eq!(d, rns::det(&a, &Backend::Cpu).unwrap(), "{n}² exact det");
        assert_eq!(st.method, "dixon");
    }
    // The default panels, both sides of the order they start from, and a last panel
    // narrower than the rest: one prime, 700 = 10 × 64 + 60; eight primes (panels of
    // 224 for LU), 600 = 2 × 224 + 152.
    config.set_inverse_panels(None, None);
    let from = rns::backend::gpu::INVERSE_PANELS_FROM;
    for (n, count) in [(from - 1, 1), (from, 1), (700, 1), (600, 8)] {
        let a = images(&gen.matrix(n, n, 64), count);
        let b = images(&gen.matrix(n, 2, 64), count);
        same_as_cpu(&g, &a, &b, &format!("{n}² modulo {count}, default panels"));
    }
}
