//! The GPU backend against the CPU backend (bit for bit) and rug, over many shapes,
//! edge values, poisoned output buffers and the chunked paths. Without a usable GPU
//! these tests print that they skip; with `RNS_REQUIRE_GPU=1` they fail instead.

use rns::backend::gpu::driver::raw;
use rns::backend::gpu::launch::EqualKernel;
use rns::backend::gpu::ops;
use rns::{det, Backend, IntMatrix, Method, ModMatrices, Op, RnsBasis, RnsVec};
use rns_suite::{
    bareiss_det, basis, dev, edge_values, gpu_backend as gpu, interval_edges, naive_matmul,
    random_with_edges as random, rational_solve, same, Gen, LiftCaps,
};
use rug::Integer;
use std::sync::Arc;

const LENS: [usize; 5] = [1, 31, 32, 33, 1000];
const KS: [usize; 5] = [1, 7, 32, 330, 1024];

#[test]
fn elementwise_ops_match_cpu_on_every_shape() {
    let Some(g) = gpu() else { return };
    let shapes = LENS.iter().flat_map(|&l| KS.iter().map(move |&k| (l, k)));
    for (len, k) in shapes.chain([(1_000_000, 1), (1_000_000, 7)]) {
        let b = basis(k);
        let xs: Vec<RnsVec> = (0..4).map(|s| random(&b, len, s + 1)).collect();
        let s = Gen::new(k as u64).in_range(b.half());
        for op in Op::ALL {
            let args: Vec<&RnsVec> = xs.iter().take(op.arity()).collect();
            let sc = op.has_scalar().then_some(&s);
            let want = Backend::Cpu.elementwise(op, &args, sc).unwrap();
            let got = g.elementwise(op, &args, sc).unwrap();
            same(
                got.residues(),
                want.residues(),
                &format!("{op:?} len {len} k {k}"),
            );
        }
    }
}

#[test]
fn equality_kernels_match_cpu() {
    let Some(g) = gpu() else { return };
    let dev = dev(&g);
    for &k in &KS {
        for &len in LENS.iter().chain(&[100_000]) {
            let b = basis(k);
            let a = random(&b, len, 5);
            // b equals a except for one channel of every third number (cycling channels).
            let mut data = a.residues().to_vec();
            for i in (0..len).step_by(3) {
                let c = (i / 3) % b.channels();
                let m = b.moduli()[c].m;
                data[c * len + i] = (data[c * len + i] + 1) % m;
            }
            let bb = RnsVec::from_residues(&b, len, data).unwrap();
            let want = Backend::Cpu.equal(&a, &bb).unwrap();
            assert_eq!(want.iter().filter(|&&e| !e).count(), len.div_ceil(3));
            for kernel in [EqualKernel::SharedTree, EqualKernel::WarpVote] {
                let got = ops::equal(dev, kernel, b.channels(), len, a.residues(), bb.residues())
                    .unwrap();
                same(&got, &want, &format!("{kernel:?} len {len} k {k}"));
            }
            same(&g.equal(&a, &bb).unwrap(), &want, "equal");
        }
    }
}

#[test]
fn sign_compare_and_digits_match_cpu() {
    let Some(g) = gpu() else { return };
    for &k in &KS {
        for &len in &LENS {
            let b = basis(k);
            let (x, y) = (random(&b, len, 11), random(&b, len, 12));
            let what = format!("len {len} k {k}");
            same(
                &g.mixed_radix_digits(&x).unwrap(),
                &Backend::Cpu.mixed_radix_digits(&x).unwrap(),
                &what,
            );
            same(&g.sign(&x).unwrap(), &Backend::Cpu.sign(&x).unwrap(), &what);
            same(
                &g.compare(&x, &y).unwrap(),
                &Backend::Cpu.compare(&x, &y).unwrap(),
                &what,
            );
            same(
                &g.compare(&x, &x).unwrap(),
                &vec![std::cmp::Ordering::Equal; len],
                &what,
            );
        }
    }
}

/// Sign and comparison where the interval pass cannot decide (values near 0 and near
/// ±H, at the edges of its undecided regions), every pair of them, then long vectors of
/// decided numbers with undecided ones scattered among them (so that most blocks of the
/// exact path return at once and a few convert one number): against rug and the CPU.
#[test]
fn sign_and_compare_at_the_interval_edges_match_rug() {
    let Some(g) = gpu() else { return };
    for k in [1, 3, 33, 330, 1024] {
        let b = basis(k);
        let v = interval_edges(&b);
        let n = v.len();
        let mut va: Vec<Integer> = (0..n * n).map(|p| v[p / n].clone()).collect();
        let mut vb: Vec<Integer> = (0..n * n).map(|p| v[p % n].clone()).collect();
        let mut gen = Gen::new(k as u64 + 7);
        for i in 0..20_000 {
            let (x, y) = if i % 997 == 0 {
                (v[i % n].clone(), v[(i / 7) % n].clone())
            } else {
                (gen.in_range(b.half()), gen.in_range(b.half()))
            };
            va.push(x);
            vb.push(y);
        }
        let (x, y) = (g.to_rns(&b, &va).unwrap(), g.to_rns(&b, &vb).unwrap());
        let (sign, cmp) = (g.sign(&x).unwrap(), g.compare(&x, &y).unwrap());
        for i in 0..va.len() {
            assert_eq!(sign[i], va[i].cmp0(), "k {k}: sign of {}", va[i]);
            assert_eq!(cmp[i], va[i].cmp(&vb[i]), "k {k}: {} vs {}", va[i], vb[i]);
        }
        same(&sign, &Backend::Cpu.sign(&x).unwrap(), "sign");
        same(&cmp, &Backend::Cpu.compare(&x, &y).unwrap(), "compare");
    }
}

#[test]
fn edges_of_the_range_against_rug() {
    let Some(g) = gpu() else { return };
    for k in [1, 3, 33, 330] {
        let b = basis(k);
        let h = b.half().clone();
        let mut gen = Gen::new(k as u64);
        let mut v = edge_values(&b);
        v.extend((0..500).map(|_| gen.in_range(&h)));
        let x = g.to_rns(&b, &v).unwrap();
        same(
            x.residues(),
            RnsVec::from_integers(&b, &v).unwrap().residues(),
            "to_rns",
        );
        same(&g.to_integers(&x).unwrap(), &v, "to_integers");
        let signs = g.sign(&x).unwrap();
        let rev: Vec<Integer> = v.iter().rev().cloned().collect();
        let y = g.to_rns(&b, &rev).unwrap();
        let cmp = g.compare(&x, &y).unwrap();
        for i in 0..v.len() {
            assert_eq!(signs[i], v[i].cmp0());
            assert_eq!(cmp[i], v[i].cmp(&rev[i]));
        }
        assert!(g.to_rns(&b, &[Integer::from(&h + 1u32)]).is_err());
    }
}

#[test]
fn determinants_match_cpu_and_bareiss() {
    let Some(g) = gpu() else { return };
    // Modular determinants of random residue matrices, channel by channel.
    for (n, k) in [
        (1, 3),
        (2, 3),
        (3, 3),
        (5, 7),
        (16, 9),
        (17, 33),
        (64, 7),
        (96, 128),
        (161, 5),
    ] {
        let b = basis(k);
        let m = random(&b, n * n, n as u64);
        same(
            &g.det_per_channel(&m, n).unwrap(),
            &Backend::Cpu.det_per_channel(&m, n).unwrap(),
            &format!("n {n}"),
        );
    }
    let mut gen = Gen::new(99);
    for (n, bits) in [(1, 10), (2, 64), (17, 100), (64, 64), (130, 20)] {
        let a = gen.matrix(n, n, bits);
        let want = bareiss_det(&a);
        assert_eq!(det(&a, &g).unwrap(), want, "n {n}");
    }
    // Singular, zero pivots, identity; singular only at the last pivot (rank 99 of 100);
    // an anti-diagonal (every pivot from the last row: swaps across panels).
    let anti: Vec<i64> = (0..70 * 70)
        .map(|e| {
            if e % 70 + e / 70 == 69 {
                1 + (e % 5) as i64
            } else {
                0
            }
        })
        .collect();
    let cases = [
        IntMatrix::from_i64(3, 3, &[0, 2, 3, 4, 0, 6, 7, 8, 0]).unwrap(),
        IntMatrix::from_i64(3, 3, &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap(),
        IntMatrix::from_i64(2, 2, &[0, 0, 0, 5]).unwrap(),
        IntMatrix::identity(40),
        gen.low_rank(100, 100, 99, 30),
        IntMatrix::from_i64(70, 70, &anti).unwrap(),
    ];
    for a in &cases {
        assert_eq!(det(a, &g).unwrap(), bareiss_det(a));
    }
}

#[test]
fn bases_too_large_for_the_mixed_radix_kernel_convert_anyway() {
    let Some(g) = gpu() else { return };
    let b = basis(2100); // 2100·128 bytes of tile: more than any GPU's shared memory
    let mut gen = Gen::new(21);
    let h = b.half().clone();
    let mut values: Vec<Integer> = (0..40).map(|_| gen.in_range(&h)).collect();
    values.extend([0, 1, -1].map(Integer::from));
    values.extend([h.clone(), Integer::from(-&h), Integer::from(&h - 1u32)]);
    let x = RnsVec::from_integers(&b, &values).unwrap();
    // Over more than TREE_ABOVE primes: the device's cofactor inverses, then sums of
    // products on the host.
    let mut want = vec![0u32; b.range_len()];
    rns_core::crt::fill_inverses(b.range_moduli(), &mut want);
    assert_eq!(
        ops::cofactor_inverses(dev(&g), b.range_moduli()).unwrap(),
        want
    );
    assert_eq!(g.to_integers_checked(&x).unwrap(), values);
}

#[test]
fn chunked_paths_match_cpu() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    dev(&g).config().set_memory_limit(Some(40_000));
    let b = basis(33);
    let (x, y) = (random(&b, 3001, 1), random(&b, 3001, 2));
    let cpu = Backend::Cpu;
    same(
        g.mul(&x, &y).unwrap().residues(),
        cpu.mul(&x, &y).unwrap().residues(),
        "mul",
    );
    same(
        g.mul_sub_mul(&x, &y, &y, &x).unwrap().residues(),
        cpu.mul_sub_mul(&x, &y, &y, &x).unwrap().residues(),
        "abcd",
    );
    same(&g.equal(&x, &x).unwrap(), &vec![true; 3001], "equal");
    same(
        &g.compare(&x, &y).unwrap(),
        &cpu.compare(&x, &y).unwrap(),
        "compare",
    );
    same(&g.sign(&x).unwrap(), &cpu.sign(&x).unwrap(), "sign");
    let v = g.to_integers(&x).unwrap();
    same(&v, &x.to_integers(), "to_integers");
    // The random redundant channel of x is not that of v: compare with the CPU conversion,
    // and with x on the range channels.
    let back = g.to_rns(&b, &v).unwrap();
    same(
        back.residues(),
        RnsVec::from_integers(&b, &v).unwrap().residues(),
        "to_rns",
    );
    let kl = b.range_len() * 3001;
    same(
        &back.residues()[..kl],
        &x.residues()[..kl],
        "to_rns range channels",
    );
    let m = random(&b, 40 * 40, 3);
    same(
        &g.det_per_channel(&m, 40).unwrap(),
        &cpu.det_per_channel(&m, 40).unwrap(),
        "det",
    );
    // Too large for the fused reduce-and-eliminate path under this cap: the chunked one.
    let mut gen = Gen::new(3);
    let big = gen.matrix(30, 30, 64);
    assert_eq!(det(&big, &g).unwrap(), bareiss_det(&big), "det, chunked");
    // The exact product's fused device path does not fit this cap: the chunked one.
    let (x, y) = (gen.matrix(9, 7, 200), gen.matrix(7, 5, 200));
    assert_eq!(rns::matmul(&x, &y, &g).unwrap(), naive_matmul(&x, &y));
    // Nor does the solve's: eliminated in chunks, its right-hand sides cut on the host.
    let (a, rhs) = (gen.matrix(12, 12, 40), gen.matrix(12, 3, 40));
    let (x, _) = rns::solve_with(&a, &rhs, &g, &Method::Multimodular.into()).unwrap();
    assert_eq!(
        x.entries(),
        &rational_solve(&a, &rhs).unwrap()[..],
        "solve, chunked"
    );
    let a = mod_matrices(&b, 20, 20, 4);
    same(
        g.matmul_mod(&a, &a).unwrap().data(),
        cpu.matmul_mod(&a, &a).unwrap().data(),
        "matmul",
    );
    same(
        g.rref_mod(&a).unwrap().rref.data(),
        cpu.rref_mod(&a).unwrap().rref.data(),
        "rref",
    );
}

/// Random matrices modulo every channel of `b` (edge values included, as [`random`]).
fn mod_matrices(b: &Arc<RnsBasis>, rows: usize, cols: usize, seed: u64) -> ModMatrices {
    let v = random(b, rows * cols, seed);
    ModMatrices::new(&b.primes(), rows, cols, v.residues().to_vec()).unwrap()
}

#[test]
fn matrices_mod_p_match_cpu() {
    let Some(g) = gpu() else { return };
    let cpu = Backend::Cpu;
    // Products: shapes around the 64-wide tiles and 16-wide k-tiles, many primes.
    for (n, k, p, primes) in [
        (1, 1, 1, 3),
        (3, 5, 7, 40),
        (64, 16, 64, 5),
        (65, 17, 63, 5),
        (1, 300, 1, 9),
        (130, 1, 129, 2),
        (200, 333, 70, 3),
        (256, 256, 256, 33),
    ] {
        let b = basis(primes);
        let (x, y) = (mod_matrices(&b, n, k, 1), mod_matrices(&b, k, p, 2));
        let want = cpu.matmul_mod(&x, &y).unwrap();
        same(
            g.matmul_mod(&x, &y).unwrap().data(),
            want.data(),
            &format!("matmul {n}×{k}×{p}"),
        );
    }
    // Elimination: square, rectangular, rank-deficient; forward and Gauss–Jordan.
    let mut gen = Gen::new(5);
    for (rows, cols, rank, primes) in [
        (1, 1, 1, 3),
        (5, 9, 3, 17),
        (40, 40, 40, 65),
        (33, 20, 7, 9),
        (100, 101, 100, 4),
    ] {
        let b = basis(primes);
        let a =
            ModMatrices::from_int_matrix(&gen.low_rank(rows, cols, rank, 20), &b.primes()).unwrap();
        let (ge, ce) = (g.rref_mod(&a).unwrap(), cpu.rref_mod(&a).unwrap());
        same(
            ge.rref.data(),
            ce.rref.data(),
            &format!("rref {rows}×{cols}"),
        );
        same(&ge.ranks, &ce.ranks, "ranks");
        same(&g.rank_mod(&a).unwrap(), &cpu.rank_mod(&a).unwrap(), "rank");
        if rows == cols {
            same(&g.det_mod(&a).unwrap(), &cpu.det_mod(&a).unwrap(), "det");
            let r = mod_matrices(&b, rows, 3, 9);
            assert_eq!(g.solve_mod(&a, &r), cpu.solve_mod(&a, &r), "solve {rows}");
        }
    }
    let b = basis(7);
    let s = ModMatrices::from_int_matrix(&gen.low_rank(30, 30, 29, 20), &b.primes()).unwrap();
    assert!(matches!(
        g.inverse_mod(&s),
        Err(rns::Error::Singular { prime: Some(_) })
    ));
}

#[test]
fn exact_linear_algebra_matches_cpu_and_rug() {
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(11);
    for (n, k, p, bits) in [
        (1, 1, 1, 5),
        (40, 70, 30, 1000),
        (65, 3, 67, 3000),
        (128, 128, 128, 64),
    ] {
        let (a, b) = (gen.matrix(n, k, bits), gen.matrix(k, p, bits));
        assert_eq!(
            rns::matmul(&a, &b, &g).unwrap(),
            naive_matmul(&a, &b),
            "matmul {n}"
        );
    }
    for (rows, cols, rank) in [(30, 30, 30), (50, 40, 17), (12, 80, 12)] {
        let a = gen.low_rank(rows, cols, rank, 20);
        assert_eq!(
            rns::rank(&a, &g).unwrap(),
            rank.min(rows).min(cols),
            "rank {rows}×{cols}"
        );
    }
    // A generator of its own, so that cases added above do not change these inputs
    // (with seed 13 all three are non-singular; the CPU tests cover singular ones).
    let mut gen = Gen::new(13);
    for (n, bits) in [(1, 3), (30, 64), (60, 100)] {
        let (a, b) = (gen.matrix(n, n, bits), gen.matrix(n, 2, bits));
        let x = rns::solve(&a, &b, &g).unwrap();
        assert_eq!(x, rns::solve(&a, &b, &Backend::Cpu).unwrap(), "solve {n}");
        assert_eq!(
            x.entries(),
            &rational_solve(&a, &b).unwrap()[..],
            "solve {n} vs rug"
        );
    }
}

/// Both methods of det and solve with the GPU backend (the divisor trick's modular
/// determinants on the device), against the CPU.
#[test]
fn every_method_matches_cpu() {
    let Some(g) = gpu() else { return };
    let mut gen = Gen::new(14);
    for (n, bits) in [(40, 20), (64, 100)] {
        let a = gen.matrix(n, n, bits);
        let want = det(&a, &Backend::Cpu).unwrap();
        for method in [Method::Dixon, Method::Multimodular, Method::Auto] {
            assert_eq!(
                rns::det_with(&a, &g, &rns::DetOptions { method })
                    .unwrap()
                    .0,
                want,
                "det {n} {method}"
            );
        }
        let b = gen.matrix(n, 1, bits);
        let want = rns::solve(&a, &b, &Backend::Cpu).unwrap();
        for method in [Method::Dixon, Method::Multimodular] {
            let (x, _) = rns::solve_with(&a, &b, &g, &rns::SolveOptions { method }).unwrap();
            assert_eq!(x, want, "solve {n} {method}");
        }
    }
    // 6·U (U unimodular): a divisor of 6 at most, so det / d takes many device primes.
    let n = 48;
    let mut u = IntMatrix::identity(n).entries().to_vec();
    for i in 0..n {
        for j in i + 1..n {
            u[i * n + j] = gen.signed(16);
        }
    }
    let six: Vec<Integer> = u.iter().map(|x| Integer::from(x * 6)).collect();
    let six = IntMatrix::new(n, n, six).unwrap();
    let (d, st) = rns::det_with(&six, &g, &Method::Dixon.into()).unwrap();
    assert_eq!(d, det(&six, &Backend::Cpu).unwrap());
    assert!(st.primes > 3, "{st:?}");
}

/// Checked conversions of a block of numbers or more run on the device as signed limbs
/// (`Gpu::signed_limbs`): equal to the host's CRT from one prime to 2200, the range's
/// edges included, also in chunks under a memory cap; a redundant residue that
/// disagrees is reported at the same index as on the host.
#[test]
fn checked_conversions_by_device_limbs_match_the_host() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    for (k, len, cap) in [
        (1, 300, None),
        (3, 1000, None),
        (70, 5000, None),
        (70, 5000, Some(400_000)),
        (2200, 300, None),
    ] {
        dev(&g).config().set_memory_limit(cap);
        let b = basis(k);
        let mut gen = Gen::new(k as u64);
        let h = b.half().clone();
        let mut values: Vec<Integer> = (0..len).map(|_| gen.in_range(&h)).collect();
        let edges = [
            Integer::new(),
            Integer::from(1),
            Integer::from(-1),
            h.clone(),
            Integer::from(-&h),
            Integer::from(&h - 1u32),
            Integer::from(1u32) - &h,
        ];
        for (i, e) in edges.into_iter().enumerate() {
            values[7 + 31 * i] = e;
        }
        let x = RnsVec::from_integers(&b, &values).unwrap();
        let what = format!("{k} primes, {len} numbers, cap {cap:?}");
        assert_eq!(g.to_integers_checked(&x).unwrap(), values, "{what}");
        let mut r = x.residues().to_vec();
        let red = b.redundant().m;
        for i in [123, 200] {
            r[k * len + i] = (r[k * len + i] + 1) % red;
        }
        let bad = RnsVec::from_residues(&b, len, r).unwrap();
        let want = Backend::Cpu.to_integers_checked(&bad).unwrap_err();
        assert_eq!(g.to_integers_checked(&bad).unwrap_err(), want, "{what}");
    }
}

/// Large downloads into heap memory go through two page-locked buffers, piece by piece
/// (`Gpu::dtoh_staged`): every word arrives, at lengths around the pieces of 2^24 words
/// and from an offset.
#[test]
fn staged_downloads_bring_every_word_back() {
    let Some(g) = gpu() else { return };
    let d = dev(&g);
    let n = (5 << 24) + 12_345;
    let words: Vec<u32> = (0..n as u32)
        .map(|i| i.wrapping_mul(2_654_435_761))
        .collect();
    let on = raw::upload(d, &words).unwrap();
    for (from, len) in [
        (0, n),
        (7, (2 << 24) - 7),
        (1, (2 << 24) + 1),
        (100, 4 << 24),
    ] {
        let mut back = vec![0u32; len];
        raw::dtoh_staged(d, raw::stream(d), (&on, from..from + len), &mut back).unwrap();
        same(
            &back,
            &words[from..from + len],
            &format!("{len} words from {from}"),
        );
    }
    let mut short = vec![0u32; 10];
    assert!(raw::dtoh_staged(d, raw::stream(d), (&on, 0..11), &mut short).is_err());
}

/// A build with machine code loads it on the architectures it was built for: no JIT.
#[test]
fn known_architectures_load_machine_code() {
    let Some(g) = gpu() else { return };
    let start = dev(&g).start_times();
    eprintln!("{}: {start}", dev(&g).name());
    let name = dev(&g).name();
    let built_for = ["A100", "A10", "L4", "L40", "H100", "H200", "GH200"];
    if rns::backend::gpu::MACHINE_CODE_BUILT && built_for.iter().any(|a| name.contains(a)) {
        assert!(
            matches!(start.code, rns::backend::gpu::Code::Machine(_)),
            "{name}: {start}"
        );
    }
}

#[test]
fn the_auto_rule_leaves_work_below_its_threshold_to_the_cpu() {
    use rns::backend::AUTO_MIN_WORK;
    use rns::{det_with, DetOptions, Location};
    let Some(g) = gpu() else { return };
    let auto = Backend::on_gpus(g.gpus().to_vec(), AUTO_MIN_WORK).unwrap();
    let first = g.gpus()[0].ordinal();
    // Resident values: the fewest numbers whose residues reach the threshold, and one
    // fewer.
    let b = basis(8);
    let at_len = AUTO_MIN_WORK.div_ceil(b.channels());
    let below = random(&b, at_len - 1, 1);
    let at = random(&b, at_len, 2);
    assert_eq!(auto.upload(&below).unwrap().location(), Location::Host);
    assert_eq!(auto.upload(&at).unwrap().location(), Location::Gpu(first));
    assert_eq!(g.upload(&below).unwrap().location(), Location::Gpu(first));
    // A lifting (work n³ for one right-hand side): 40³ < 2^16 ≤ 41³. The CPU's lifting
    // names its stage "dixon lifting", the GPU's stages start with "lift:".
    let dixon = DetOptions::from(Method::Dixon);
    for (n, on_gpu) in [(40, false), (41, true)] {
        let a = rns_suite::inputs::random(n, n, 64, n as u64);
        let (d, stats) = det_with(&a, &auto, &dixon).unwrap();
        let (want, explicit) = det_with(&a, &g, &dixon).unwrap();
        assert_eq!(d, want, "{n}²");
        let lifted_on_gpu =
            |st: &rns::DetStats| st.stages.iter().any(|(s, _)| s.starts_with("lift:"));
        assert_eq!(
            lifted_on_gpu(&stats),
            on_gpu,
            "{n}² on the auto backend: {:?}",
            stats.stages
        );
        assert!(lifted_on_gpu(&explicit), "{n}² on the explicit GPU backend");
    }
}
