//! The batched modular product on the INT8 tensor cores, by byte planes
//! (`rns_matmul_imma`) and by small moduli (`rns_matmul_ozaki` by warps, and
//! `rns_matmul_wgmma` by warpgroups on 9.0 devices), against the
//! integer-unit kernel (`rns_matmul`) and the CPU backend, bit for bit: shapes that are
//! not multiples of the tiles, inner dimensions at and across the 32-bit accumulation
//! limits and the change in the number of small moduli, all-(m − 1) and ±(m − 1)/2
//! matrices (the largest sums), one prime up to 1024; and the exact integer product's
//! signed limbs from the device. Without a usable GPU these tests
//! print that they skip; with `RNS_REQUIRE_GPU=1` they fail instead.

use rns::backend::cpu;
use rns::backend::gpu::driver::raw;
use rns::backend::gpu::launch;
use rns::backend::gpu::TensorSplit;
use rns::{Backend, Error, RnsBasis};
use rns_core::imma::SEGMENT;
use rns_core::ozaki::MAX_INNER;
use rns_suite::{
    basis, dev, gpu_backend as gpu, naive_matmul, pairs_out_of_range_at_3, random_with_edges, same,
    Gen, LiftCaps,
};
use rug::Integer;
use std::sync::Arc;

/// Residues of `len` entries per channel for the `k` largest primes, channel-major
/// ([`random_with_edges`]: every 7th entry 0, 1 or m − 1).
fn residues(k: usize, len: usize, seed: u64) -> (Vec<rns_core::Modulus>, Vec<u32>) {
    let b = basis(k);
    let data = random_with_edges(&b, len, seed).residues()[..k * len].to_vec();
    (b.moduli()[..k].to_vec(), data)
}

/// The product on the tensor cores, on the integer units and on the CPU, compared.
fn check(
    g: &Backend,
    moduli: &[rns_core::Modulus],
    (n, k, p): (usize, usize, usize),
    a: &[u32],
    b: &[u32],
) {
    let want = cpu::matmul_per_channel(moduli, n, k, p, a, b);
    let config = dev(g).config();
    for (tensor, split, wgmma) in [
        (false, None, false),
        (true, Some(TensorSplit::BytePlanes), false),
        (true, Some(TensorSplit::SmallModuli), false),
        (true, Some(TensorSplit::SmallModuli), true),
    ] {
        config.set_tensor_cores(Some(tensor));
        config.set_tensor_split(split);
        config.set_wgmma(wgmma);
        let got = g.matmul_per_channel(moduli, (n, k, p), a, b).unwrap();
        let what = format!(
            "{n}×{k}×{p} over {} primes, tensor cores {tensor} {split:?}, warpgroups {}",
            moduli.len(),
            wgmma && dev(g).has_wgmma()
        );
        same(&got[..], &want, &what);
    }
    config.set_wgmma(true);
}

/// `len` copies of `f(m)` per channel.
fn constant(moduli: &[rns_core::Modulus], len: usize, f: impl Fn(u32) -> u32) -> Vec<u32> {
    moduli.iter().flat_map(|m| vec![f(m.m); len]).collect()
}

#[test]
fn tensor_core_products_match_the_integer_kernel_and_cpu_on_every_shape() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let sizes = [1, 15, 17, 31, 33, 64, 65, 255, 257];
    let mut seed = 0;
    for &n in &sizes {
        for &(k, p) in &[(1, 17), (32, 33), (255, 1), (257, 64), (15, 257)] {
            seed += 1;
            let (moduli, a) = residues(3, n * k, seed);
            let (_, b) = residues(3, k * p, seed + 1000);
            check(&g, &moduli, (n, k, p), &a, &b);
        }
    }
    let (n, k, p) = (4097, 129, 130);
    let (moduli, a) = residues(2, n * k, 99);
    let (_, b) = residues(2, k * p, 100);
    check(&g, &moduli, (n, k, p), &a, &b);
}

#[test]
fn tensor_core_sums_stay_exact_across_the_accumulation_limit() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    // All entries m − 1: every group sum of the byte planes is the largest possible;
    // ±(m − 1)/2, the largest centered values, give the largest sums of the small moduli
    // (at MAX_INNER, the most inner entries they take, and 1024 | 1025, where their count
    // changes from 9 to 10).
    for k in [
        1024,
        1025,
        SEGMENT - 32,
        SEGMENT,
        SEGMENT + 1,
        2 * SEGMENT + 33,
        MAX_INNER,
        MAX_INNER + 1,
    ] {
        let (n, p) = (17, 9);
        let moduli = basis(2).moduli()[..2].to_vec();
        let full = |len| constant(&moduli, len, |m| m - 1);
        let (half, minus_half) = (|m| m / 2, |m| m / 2 + 1);
        check(&g, &moduli, (n, k, p), &full(n * k), &full(k * p));
        let a = constant(&moduli, n * k, half);
        check(&g, &moduli, (n, k, p), &a, &constant(&moduli, k * p, half));
        check(
            &g,
            &moduli,
            (n, k, p),
            &a,
            &constant(&moduli, k * p, minus_half),
        );
        let (_, a) = residues(2, n * k, k as u64);
        let (_, b) = residues(2, k * p, k as u64 + 1);
        check(&g, &moduli, (n, k, p), &a, &b);
    }
}

#[test]
fn tensor_core_products_from_one_prime_to_1024() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    for (primes, n) in [(1, 300), (1024, 20), (16, 129)] {
        let (moduli, a) = residues(primes, n * n, 7);
        let (_, b) = residues(primes, n * n, 8);
        check(&g, &moduli, (n, n, n), &a, &b);
    }
}

/// Determinants modulo each channel with the trailing updates on the tensor cores
/// (panels of `DET_PANEL` and of 40 columns, products by small moduli), against the fused kernel
/// and the CPU backend: orders across the panel width, rows that force pivoting, a
/// singular matrix, and a matrix singular modulo one channel only.
#[test]
fn tensor_core_determinants_match_the_fused_kernel_and_cpu() {
    use rns::RnsVec;
    use rns_core::launch::DET_PANEL;
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let b = basis(6);
    for (i, n) in [
        DET_PANEL + 1,
        100,
        2 * DET_PANEL,
        2 * DET_PANEL + 1,
        257,
        400,
        // Panels of 256 by default.
        rns_core::launch::DET_WIDE_PANEL_FROM + 5,
    ]
    .into_iter()
    .enumerate()
    {
        let m = random_with_edges(&b, n * n, 40 + i as u64);
        let mut data = m.residues().to_vec();
        let chans = b.channels();
        // Channel 0: the first column zero above row n/2 (pivots from far down); channel
        // 1: row 3 equal to row 1 (singular); channel 2: the last column zero (singular
        // from the last panel on); channel 3: singular leading minors of orders 20, 40,
        // 70, 100, 130 (row k − 1 equal to row k − 2 in the first k columns), so that rows
        // swap in later sub-panels and panels, carrying their multipliers.
        for r in 0..n / 2 {
            data[r * n] = 0;
        }
        let c1 = &mut data[n * n..2 * n * n];
        let row1 = c1[n..2 * n].to_vec();
        c1[3 * n..4 * n].copy_from_slice(&row1);
        for r in 0..n {
            data[2 * n * n + r * n + n - 1] = 0;
        }
        let c3 = &mut data[3 * n * n..4 * n * n];
        for k in [20, 40, 70, 100, 130].into_iter().filter(|&k| k < n) {
            for j in 0..k {
                c3[(k - 1) * n + j] = c3[(k - 2) * n + j];
            }
        }
        assert!(chans >= 3);
        let mats = RnsVec::from_residues(&b, n * n, data).unwrap();
        let want = Backend::Cpu.det_per_channel(&mats, n).unwrap();
        assert_eq!(want[1], 0);
        assert_eq!(want[2], 0);
        // Panels of DET_PANEL columns, and of 40 (sub-panels of 16, 16 and 8).
        for (tensor, panel) in [(true, None), (true, Some(40)), (false, None)] {
            dev(&g).config().set_tensor_cores(Some(tensor));
            dev(&g).config().set_det_panel(panel);
            let got = g.det_per_channel(&mats, n).unwrap();
            let what = format!("det {n}×{n}, tensor cores {tensor}, panels {panel:?}");
            same(&got, &want, &what);
        }
    }
}

/// `rns_transpose` (channel-major digits to number-major on the device) against the
/// host, on shapes around its 32 × 32 tiles.
#[test]
fn device_transpose_matches_the_host() {
    let Some(g) = gpu() else { return };
    let d = dev(&g);
    for (rows, cols) in [(1, 1), (1, 70), (33, 65), (65, 1000), (64, 32)] {
        let src: Vec<u32> = (0..rows * cols)
            .map(|i| (i as u32).wrapping_mul(2654435761))
            .collect();
        let ds = raw::upload(d, &src).unwrap();
        let mut dd = raw::alloc(d, rows * cols).unwrap();
        launch::launch_transpose(d, raw::stream(d), &mut dd, &ds, (rows, cols)).unwrap();
        let got = raw::download(d, &dd, rows * cols).unwrap();
        let want = rns::num::layout::to_number_major(&src, cols, rows);
        same(&got, &want, &format!("transpose {rows}×{cols}"));
    }
}

/// The exact product's last stage on the device (signed limbs from the mixed-radix
/// digits, checked against the redundant prime): values at both ends of the signed
/// range and just past them, 0, ±1, entries of every size in one matrix, against rug
/// and the CPU backend; the first entry out of range is the one reported.
#[test]
fn exact_products_come_back_as_signed_limbs() {
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(41);
    for bits in [31, 64, 100, 2000] {
        let b = Arc::new(RnsBasis::for_bits(bits));
        let h = b.half().clone();
        // A column times 1: the column comes back.
        let mut col: Vec<Integer> = [0, 1, -1, 2, -2]
            .map(Integer::from)
            .into_iter()
            .chain([h.clone(), -h.clone(), h.clone() - 1u32, 1 - h.clone()])
            .collect();
        for e in 1..bits {
            col.push(Integer::from(1) << e as u32);
            col.push(-(Integer::from(1) << e as u32) + 1u32);
        }
        let one = [Integer::from(1)];
        let got = g
            .matmul_integers(&b, &col, &one, (col.len(), 1, 1))
            .unwrap();
        assert_eq!(got, col, "{bits} bits: a column times 1");
        // Rows [x, 0] but for rows 3 (H + 1) and 7 (−H − 1): the first is reported.
        let pairs = pairs_out_of_range_at_3(&b, &col);
        let two = [Integer::from(1), Integer::from(1)];
        match g.matmul_integers(&b, &pairs, &two, (col.len(), 2, 1)) {
            Err(Error::OutOfRange { index: 3, .. }) => {}
            other => panic!("{bits} bits: want entry 3 out of range, got {other:?}"),
        }
        // Random products of mixed sizes, against rug and the CPU backend.
        let (x, y) = (
            gen.matrix(37, 19, bits as u32 / 2 - 5),
            gen.matrix(19, 41, 3),
        );
        let want = naive_matmul(&x, &y);
        let (n, k, p) = (37, 19, 41);
        let got = g.matmul_integers(&b, x.entries(), y.entries(), (n, k, p));
        assert_eq!(got.unwrap(), want.entries(), "{bits} bits: random");
        let cpu = Backend::Cpu.matmul_integers(&b, x.entries(), y.entries(), (n, k, p));
        assert_eq!(cpu.unwrap(), want.entries(), "{bits} bits: CPU");
    }
}

/// The exact product in blocks of rows when the whole does not fit the device's budget:
/// under memory caps from where not one row fits (the other path) to where every row
/// does, each product equals rug's, and an entry out of range in the last rows is named
/// by its index in the whole product, not in its block.
#[test]
fn exact_products_come_in_blocks_of_rows_under_a_memory_cap() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let b = Arc::new(RnsBasis::for_bits(400));
    let mut gen = Gen::new(47);
    let (n, k, p) = (61, 23, 37);
    let (x, y) = (gen.matrix(n, k, 150), gen.matrix(k, p, 150));
    let want = naive_matmul(&x, &y);
    // Rows [v, 0] times [1, 1]ᵀ, but row n − 2 is [H, 1]: H + 1, past the range.
    let col: Vec<Integer> = (0..n as u32).map(|i| Integer::from(i) - 30).collect();
    let mut pairs = Vec::new();
    for (i, v) in col.iter().enumerate() {
        match i == n - 2 {
            true => pairs.extend([b.half().clone(), Integer::from(1)]),
            false => pairs.extend([v.clone(), Integer::new()]),
        }
    }
    let ones = [Integer::from(1), Integer::from(1)];
    let mut cap = 1usize << 12;
    while cap < 1 << 24 {
        dev(&g).config().set_memory_limit(Some(cap));
        let got = g.matmul_integers(&b, x.entries(), y.entries(), (n, k, p));
        assert_eq!(got.unwrap(), want.entries(), "cap {cap} bytes");
        match g.matmul_integers(&b, &pairs, &ones, (n, 2, 1)) {
            Err(Error::OutOfRange { index, .. }) if index == n - 2 => {}
            other => panic!(
                "cap {cap} bytes: want entry {} out of range, got {other:?}",
                n - 2
            ),
        }
        cap = cap * 3 / 2;
    }
}
