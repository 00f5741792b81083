//! Gauss–Jordan elimination of `[A | B]` modulo many primes by panels, the updates above
//! and below each panel on the tensor cores (`rns_lu_panel`, `rns_lu_rows`,
//! `rns_lu_upper`, products by small moduli), against `rns_eliminate` on the GPU and the
//! CPU backend, bit for bit: orders across the panel widths, one right-hand side up to
//! the inverse, entries at the range's edges, zero pivots that force row swaps within
//! and across panels, `A` singular modulo one prime only (that channel eliminated again
//! one pivot at a time) or modulo all, no kept columns, and channels in groups under a
//! memory cap. Without a usable GPU these tests print that they skip; with
//! `RNS_REQUIRE_GPU=1` they fail instead.

use rns::backend::gpu::launch;
use rns::{Backend, IntMatrix, RnsBasis};
use rns_suite::{basis, dev, edge_values, gpu_backend as gpu, Gen, LiftCaps};
use rug::Integer;
use std::sync::Arc;

/// How `A` is made awkward.
#[derive(Clone, Copy, Debug)]
enum Shape {
    /// Random, with entries at the basis's edges.
    Random,
    /// Zero pivots: the first column zero above row `n/2`, and singular leading minors
    /// of orders 20, 40, 70, 100, 130 (row `k − 1` equal to row `k − 2` in the first
    /// `k` columns).
    Swaps,
    /// Row 3 equal to row 1 modulo the first prime only.
    SingularModOne,
    /// Row 3 equal to row 1.
    Singular,
}

/// `[A | B]`: `A` `n × n` of `bits`-bit entries shaped by `shape`, `B` `n × l`.
fn system(basis: &RnsBasis, n: usize, l: usize, shape: Shape, seed: u64) -> IntMatrix {
    let mut gen = Gen::new(seed);
    let cols = n + l;
    let mut e: Vec<Integer> = (0..n * cols).map(|_| gen.signed(64)).collect();
    let edges = &edge_values(basis)[..7];
    for (i, v) in edges.iter().enumerate() {
        let at = (i * 7919 + seed as usize) % (n * cols);
        e[at] = v.clone();
    }
    let p = basis.moduli()[0].m;
    match shape {
        Shape::Random => {}
        Shape::Swaps => {
            for r in 0..n / 2 {
                e[r * cols] = Integer::new();
            }
            for k in [20, 40, 70, 100, 130].into_iter().filter(|&k| k < n) {
                for j in 0..k {
                    e[(k - 1) * cols + j] = e[(k - 2) * cols + j].clone();
                }
            }
        }
        Shape::SingularModOne | Shape::Singular => {
            for j in 0..n {
                let shift = match shape {
                    Shape::Singular => Integer::new(),
                    _ => Integer::from(gen.below(1000) + 1) * p,
                };
                e[3 * cols + j] = Integer::from(&e[cols + j] + &shift);
            }
        }
    }
    IntMatrix::new(n, cols, e).unwrap()
}

/// The elimination of `ab` (`n` pivot columns, keeping the columns from `n` when
/// `keep`) on the GPU, by panels of `None` (the default), 16 and 40 columns and by
/// `rns_eliminate`, equal to the CPU backend's.
fn check(g: &Backend, basis: &Arc<RnsBasis>, ab: &IntMatrix, keep: bool, what: &str) {
    let (n, cols) = (ab.rows(), ab.cols());
    let keep = keep.then_some(n);
    let shape = (n, cols, n);
    let want = Backend::Cpu
        .eliminate_integers(basis, ab.entries(), shape, true, keep)
        .unwrap();
    for (tensor, panel) in [
        (true, Some(16)),
        (true, Some(40)),
        (true, None),
        (false, None),
    ] {
        dev(g).config().set_tensor_cores(Some(tensor));
        dev(g).config().set_det_panel(panel);
        let got = g
            .eliminate_integers(basis, ab.entries(), shape, true, keep)
            .unwrap();
        let at = format!("{what}: tensor cores {tensor}, panels {panel:?}");
        assert_eq!(got.0, want.0, "{at}: ranks and determinants");
        rns_suite::same(&got.1, &want.1, &at);
    }
}

#[test]
fn blocked_gauss_jordan_matches_rns_eliminate_and_cpu() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let b = basis(6);
    let mut seed = 90;
    for n in [17, 41, 100, 129, 257] {
        for l in [1, 7, n] {
            for shape in [Shape::Random, Shape::Swaps, Shape::SingularModOne] {
                seed += 1;
                let ab = system(&b, n, l, shape, seed);
                check(&g, &b, &ab, true, &format!("{n}×{n} | {l}, {shape:?}"));
            }
        }
    }
}

#[test]
fn blocked_gauss_jordan_of_singular_systems_and_without_kept_columns() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let b = basis(6);
    for (i, n) in [41, 130].into_iter().enumerate() {
        let singular = system(&b, n, 5, Shape::Singular, 200 + i as u64);
        check(&g, &b, &singular, true, &format!("singular {n}×{n} | 5"));
        let ab = system(&b, n, 3, Shape::Swaps, 210 + i as u64);
        check(&g, &b, &ab, false, &format!("{n}×{n} | 3, no kept columns"));
    }
}

#[test]
fn blocked_gauss_jordan_in_groups_of_channels_under_a_memory_cap() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let b = basis(12);
    let (n, l) = (100, 30);
    let ab = system(&b, n, l, Shape::Swaps, 300);
    let want = Backend::Cpu
        .eliminate_integers(&b, ab.entries(), (n, n + l, n), true, Some(n))
        .unwrap();
    let config = dev(&g).config();
    config.set_tensor_cores(Some(true));
    config.set_det_panel(Some(32));
    // About three channels of reduced entries and scratch at once: packed words (two
    // per 64-bit entry, and a sign), then per channel its residues, the kept columns and
    // the largest update's scratch.
    let len = n * (n + l);
    let per_channel = len + 3 + n * l + launch::lu_scratch_words(dev(&g), n, n + l);
    config.set_memory_limit(Some(4 * (3 * len + 3 * per_channel)));
    let got = g
        .eliminate_integers(&b, ab.entries(), (n, n + l, n), true, Some(n))
        .unwrap();
    assert_eq!(got.0, want.0, "ranks and determinants");
    rns_suite::same(&got.1, &want.1, "kept columns, channels in groups");
}
