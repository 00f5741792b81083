//! The block lifting on the GPU (many right-hand sides: `ops::start_block_lift`, the
//! kernels of `device/src/kernels/dixon_block.rs`) against the CPU's lifting and the
//! multimodular solve: the same fractions and prime, on both sides of the 32-row and
//! 32-column tiles, for 1 to 4 limbs, with each step's sums split or not, in groups
//! under a memory cap, for a matrix singular modulo the first prime, and for the
//! inverse (`B = I`).

use rns::algo::lift::gpu::{block_group, solve as solve_dixon_gpu};
use rns::backend::gpu::LiftRows;
use rns::{Backend, IntMatrix, Method};
use rns_suite::lifting::{divisible_by_first, solve_same_as_cpu};
use rns_suite::{dev, gpu_backend as gpu, naive_matmul, Gen, LiftCaps};

/// The block lifting is what `solve` takes for `A X = B`, all `l` columns at once.
fn takes_block(g: &Backend, a: &IntMatrix, b: &IntMatrix, what: &str) {
    assert_eq!(
        block_group(g, a, b).unwrap(),
        Some(b.cols()),
        "{what}: one block"
    );
}

#[test]
fn block_lifting_matches_the_cpu_at_tile_edges() {
    let _caps = LiftCaps::hold();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(131);
    // More columns than the row-per-warp launch takes (32 with the rows in shared
    // memory): rows and columns on both sides of 32 and 64, 1 to 4 limbs.
    for (n, l, bits) in [
        (1, 33, 10),
        (2, 40, 64),
        (31, 33, 20),
        (32, 64, 40),
        (33, 65, 64),
        (64, 34, 90),
        (65, 97, 110),
        (100, 48, 64),
    ] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, l, bits));
        let what = format!("{n}×{n} {bits}-bit, {l} right-hand sides");
        takes_block(&g, &a, &b, &what);
        solve_same_as_cpu(&g, &a, &b, &what);
    }
    // Small solutions in some columns (found by the early tries), zero in others.
    let n = 50;
    let a = gen.matrix(n, n, 64);
    let x0 = gen.matrix(n, 40, 4);
    let mut b = naive_matmul(&a, &x0).entries().to_vec();
    for row in b.chunks_mut(40) {
        row[7] = rug::Integer::new();
    }
    let b = IntMatrix::new(n, 40, b).unwrap();
    takes_block(&g, &a, &b, "small solutions");
    solve_same_as_cpu(&g, &a, &b, "small solutions");
    // Singular modulo the first prime tried: lifted modulo the second.
    let (e, first) = divisible_by_first(&mut gen, n);
    let b = gen.matrix(n, 36, 30);
    takes_block(&g, &e, &b, "det ≡ 0 mod the first prime");
    solve_same_as_cpu(&g, &e, &b, "det ≡ 0 mod the first prime");
    let (s, _) = solve_dixon_gpu(&g, &e, &b).unwrap().unwrap();
    assert_ne!(s.prime, first);
    // Singular: no prime, then the multimodular solve says so.
    let low = gen.low_rank(n, n, n - 1, 20);
    assert_eq!(solve_dixon_gpu(&g, &low, &b).unwrap().map(|s| s.0), None);
}

#[test]
fn the_inverse_and_rows_from_global_memory_lift_as_blocks() {
    let _caps = LiftCaps::hold();
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(132);
    // The inverse by lifting: B = I, n right-hand sides.
    let a = gen.matrix(70, 70, 64);
    let id = IntMatrix::identity(70);
    takes_block(&g, &a, &id, "the inverse");
    let (x, _) = rns::solve_with(&a, &id, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(x, rns::inverse(&a, &Backend::Cpu).unwrap());
    // Rows read from global memory: that launch takes up to 4 columns, 5 lift as a
    // block.
    dev(&g)
        .config()
        .set_lift_rows(Some(LiftRows::Global { blocks: None }));
    for (n, l) in [(40, 5), (96, 9)] {
        let (a, b) = (gen.matrix(n, n, 64), gen.matrix(n, l, 64));
        let what = format!("{n}×{n} from global memory, {l} right-hand sides");
        takes_block(&g, &a, &b, &what);
        solve_same_as_cpu(&g, &a, &b, &what);
    }
    dev(&g).config().set_lift_rows(None);
    // Each step's sums split into ranges of terms, joined after: none, ranges of
    // uneven length, one empty (3 of 4 tiles of terms), one a tile (16, clamped to 4).
    let (a, b) = (gen.matrix(100, 100, 64), gen.matrix(100, 40, 64));
    for split in [1, 2, 3, 16] {
        dev(&g).config().set_block_split(Some(split));
        solve_same_as_cpu(&g, &a, &b, &format!("sums split {split} ways"));
    }
    dev(&g).config().set_block_split(None);
    // Under a memory cap a block takes fewer columns than asked: groups of blocks, over
    // one common denominator.
    let (a, b) = (gen.matrix(40, 40, 64), gen.matrix(40, 100, 64));
    let mut cap = 8usize << 20;
    let group = loop {
        dev(&g).config().set_memory_limit(Some(cap));
        match block_group(&g, &a, &b).unwrap() {
            Some(k) if k < 100 => break k,
            _ => cap = cap * 4 / 5,
        }
        assert!(cap > 1 << 16, "a cap that splits the block");
    };
    assert!(group > 32, "groups of {group}");
    solve_same_as_cpu(&g, &a, &b, &format!("groups of {group} of 100"));
}
