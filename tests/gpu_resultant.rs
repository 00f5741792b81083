//! Univariate and bivariate resultants on the GPU backend against the CPU backend and
//! rug: the block-per-prime and thread-per-prime Euclid kernels on every degree pattern,
//! Collins' steps in chunks and with global scratch. Without a usable GPU these tests
//! print that they skip; with `RNS_REQUIRE_GPU=1` they fail instead.

use rns::backend::cpu;
use rns::backend::gpu::{launch, ops};
use rns::num::pack::packed_width;
use rns::poly::bipoly::pair_shape;
use rns::{resultant, resultant_xy, Backend, BiPoly, IntPoly};
use rns_suite::{
    basis, dev, eval_poly, gpu_backend as gpu, poly_mul, random_with_edges, resultant_xy_at, same,
    Gen, LiftCaps,
};
use rug::Integer;

#[test]
fn resultants_match_cpu() {
    let Some(g) = gpu() else { return };
    // Not under the caps another test here sets: every GPU test of this file takes turns.
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(5);
    for (m, n, bits) in [(0, 3, 10), (1, 1, 64), (7, 5, 100), (20, 17, 200)] {
        let (f, h) = (gen.poly(m, bits), gen.poly(n, bits));
        assert_eq!(
            resultant(&f, &h, &g).unwrap(),
            resultant(&f, &h, &Backend::Cpu).unwrap(),
            "{m} {n}"
        );
    }
}

/// Bivariate pairs for the GPU tests: random dense ones, and one whose leading
/// coefficient in y vanishes at x = 0, 1, 2 (those points are dropped on every prime).
fn bivariate_cases() -> Vec<(BiPoly, BiPoly)> {
    let mut gen = Gen::new(8);
    let mut cases: Vec<(BiPoly, BiPoly)> = [
        (0, 3, 2, 2, 10),
        (1, 1, 1, 1, 64),
        (5, 6, 4, 7, 60),
        (9, 8, 7, 10, 120),
    ]
    .into_iter()
    .map(|(fy, fx, gy, gx, bits)| (gen.bipoly(fy, fx, bits), gen.bipoly(gy, gx, bits)))
    .collect();
    let lc = [(0, 2), (2, -3), (1, 1)]; // x³ − 3x² + 2x = x(x − 1)(x − 2)
    let mut terms: Vec<_> = lc
        .iter()
        .map(|&(i, c)| (Integer::from(c), i + 1, 3))
        .collect();
    terms.extend([(Integer::from(-4), 0, 0), (Integer::from(11), 2, 1)]);
    cases.push((BiPoly::new(terms).unwrap(), gen.bipoly(2, 3, 30)));
    cases
}

#[test]
fn bivariate_resultants_match_cpu_and_sylvester() {
    let Some(g) = gpu() else { return };
    // Not while another test caps the device's memory (the planner would refuse).
    let _lift = LiftCaps::hold();
    for (i, (f, h)) in bivariate_cases().iter().enumerate() {
        let (r, st) = rns::resultant_xy_with(f, h, &g, &rns::ResultantOptions::default()).unwrap();
        assert_eq!(st.backend, "gpu");
        assert_eq!(r, resultant_xy(f, h, &Backend::Cpu).unwrap(), "case {i}");
        for a in [0i64, 1, 2, 3, -5] {
            let a = Integer::from(a);
            assert_eq!(
                eval_poly(&r, &a),
                resultant_xy_at(f, h, &a),
                "case {i} at {a}"
            );
        }
    }
}

#[test]
fn bivariate_resultants_in_chunks_and_global_scratch_match_cpu() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    dev(&g).config().set_shared_memory_limit(Some(0));
    for (i, (f, h)) in bivariate_cases().iter().enumerate() {
        let (want, st) =
            rns::resultant_xy_with(f, h, &Backend::Cpu, &rns::ResultantOptions::default()).unwrap();
        // The smallest cap (in steps of 2 KB) the planner takes: the tightest chunks.
        let cap = (1..)
            .map(|k| 2_000 * k)
            .find(|&cap| plan_under(&g, cap, (f, h), &st).is_ok())
            .unwrap();
        assert_eq!(resultant_xy(f, h, &g).unwrap(), want, "case {i}, cap {cap}");
    }
    dev(&g).config().set_memory_limit(None);
    dev(&g).config().set_shared_memory_limit(None);
}

/// Sets the device's memory cap to `cap` and gives the plan the library makes under it
/// for the pair `(f, h)` (whose CPU run gave `st`): the shape, the words of the packed
/// coefficients and every channel of the basis, the redundant one too.
fn plan_under(
    g: &Backend,
    cap: usize,
    (f, h): (&BiPoly, &BiPoly),
    st: &rns::ResultantStats,
) -> rns::Result<ops::PointsPlan> {
    dev(g).config().set_memory_limit(Some(cap));
    let mut dense = f.dense(f.deg_x() + 1);
    dense.extend(h.dense(h.deg_x() + 1));
    let channels = st.primes() + 1;
    ops::resultant_xy_plan(
        dev(g),
        pair_shape(f, h),
        st.candidates,
        packed_width(&dense),
        channels,
    )
}

/// Collins' steps under device-memory caps on both sides of each piece boundary: many
/// channels at once, one channel with all its points, one channel's points in pieces,
/// and too little for a block's worth of points (an error naming the bytes, never a
/// wrong answer or an allocator's failure).
#[test]
fn bivariate_points_in_pieces_under_memory_caps() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(21);
    let (f, h) = (gen.bipoly(6, 30, 20), gen.bipoly(5, 30, 20));
    let (want, st) =
        rns::resultant_xy_with(&f, &h, &Backend::Cpu, &rns::ResultantOptions::default()).unwrap();
    let (mut ran, mut refused, mut pieces) = (0, 0, 0);
    for cap in (30_000..260_000).step_by(3_000) {
        let plan = plan_under(&g, cap, (&f, &h), &st);
        match resultant_xy(&f, &h, &g) {
            Ok(r) => {
                assert_eq!(r, want, "cap {cap}");
                let plan = plan.unwrap();
                pieces += usize::from(plan.piece < st.candidates);
                ran += 1;
            }
            Err(e @ rns::Error::GpuOutOfMemory { .. }) => {
                assert!(e.to_string().contains("bytes of device memory"), "{e}");
                assert!(plan.is_err() && ran == 0, "cap {cap}: {e}");
                refused += 1;
            }
            Err(e) => panic!("cap {cap}: {e}"),
        }
    }
    dev(&g).config().set_memory_limit(None);
    assert!(
        ran > 10 && refused > 0 && pieces > 0,
        "ran {ran}, refused {refused}, pieces {pieces}"
    );
}

/// Degree pairs of the per-channel tests: constants on either side, equal and unequal
/// degrees around the warp and block sizes, the degrees from which rounds of 8 and 16
/// steps run and look ahead (48, 56; 80, 96), and a first quotient much longer than `g`.
const DEGREES: [(usize, usize); 18] = [
    (0, 1),
    (3, 0),
    (1, 1),
    (2, 1),
    (5, 40),
    (40, 5),
    (31, 32),
    (33, 33),
    (48, 47),
    (49, 48),
    (57, 56),
    (64, 63),
    (81, 80),
    (97, 96),
    (200, 199),
    (257, 3),
    (1000, 999),
    (2000, 17),
];

/// Per-channel residues of `f` and `g` for the per-channel tests: random residues with
/// 0, 1 and m − 1 on every 7th coefficient ([`random_with_edges`]); with `sparse`, every
/// other coefficient of `f` is zero (remainders then drop several degrees at once).
/// Leading coefficients are made non-zero, as the kernels require.
fn channel_data(k: usize, df: usize, dg: usize, sparse: bool, seed: u64) -> Vec<u32> {
    let b = basis(k);
    let per = df + dg + 2;
    // Channel-major: channel c's coefficients at c·per …, as the kernels take them.
    let mut data = random_with_edges(&b, per, seed).residues().to_vec();
    for (c, chan) in data.chunks_mut(per).enumerate() {
        if sparse {
            for j in (1..df).step_by(2) {
                chan[j] = 0;
            }
        }
        for lead in [df, per - 1] {
            if chan[lead] == 0 {
                chan[lead] = 1 + c as u32;
            }
        }
    }
    data
}

#[test]
fn block_and_thread_kernels_match_cpu_on_every_degree_pattern() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let d = dev(&g);
    for (i, &(df, dg)) in DEGREES.iter().enumerate() {
        for (k, sparse) in [(1, false), (33, true), (330, false)] {
            let data = channel_data(k, df, dg, sparse, i as u64);
            let moduli = basis(k).moduli().to_vec();
            let want = cpu::resultant_per_channel(&moduli, df, dg, &data);
            for from in [Some(0), Some(usize::MAX), None] {
                d.config().set_block_resultant_from(from);
                let got = ops::resultant_per_channel(d, &moduli, df, dg, &data).unwrap();
                same(
                    &got,
                    &want,
                    &format!("degrees {df}, {dg}, {k} channels, block from {from:?}"),
                );
            }
            // The block kernel with its polynomials in global memory, rounds of 8 and 16.
            d.config().set_block_resultant_from(Some(0));
            d.config().set_shared_memory_limit(Some(0));
            for wide in [Some(usize::MAX), Some(0)] {
                d.config().set_resultant_wide_from(wide);
                let got = ops::resultant_per_channel(d, &moduli, df, dg, &data).unwrap();
                same(
                    &got,
                    &want,
                    &format!("degrees {df}, {dg}, {k} channels, global, wide from {wide:?}"),
                );
            }
            d.config().set_resultant_wide_from(None);
            d.config().set_shared_memory_limit(None);
            d.config().set_block_resultant_from(None);
        }
    }
}

#[test]
fn block_kernel_finds_common_factors_and_works_without_shared_memory() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(17);
    // (x − 7)·a and (x − 7)·b: zero modulo every prime, after Euclid's last step.
    let common = IntPoly::new(vec![Integer::from(-7), Integer::from(1)]).unwrap();
    let (a, b) = (gen.poly(60, 80), gen.poly(45, 80));
    let (f, h) = (poly_mul(&common, &a), poly_mul(&common, &b));
    dev(&g).config().set_block_resultant_from(Some(0));
    assert_eq!(resultant(&f, &h, &g).unwrap(), 0);
    // Whole polynomials: many primes, 1000-bit coefficients, against the CPU backend; then
    // in chunks of channels, then with no shared memory (the polynomials in global memory).
    let (f, h) = (gen.poly(120, 1000), gen.poly(97, 1000));
    let want = resultant(&f, &h, &Backend::Cpu).unwrap();
    dev(&g).config().set_block_resultant_from(None);
    assert_eq!(resultant(&f, &h, &g).unwrap(), want);
    // In chunks of about 200 of the ≈ 7000 channels (reduced and resolved on the device).
    dev(&g).config().set_memory_limit(Some(220_000));
    assert_eq!(resultant(&f, &h, &g).unwrap(), want);
    dev(&g).config().set_shared_memory_limit(Some(0));
    assert_eq!(resultant(&f, &h, &g).unwrap(), want);
}

/// The block kernel on both sides of its shared-memory threshold (a cap of exactly
/// `RESULTANT_SHARED_BLOCKS` blocks' polynomials, and 4 bytes less), with 32 to 1024
/// threads (each thread's first coefficients lack a term of the pass, the rest take the
/// loop without tests; the wide rounds at most 768), and at
/// degrees whose polynomials exceed the device's shared memory (a few channels, against
/// the CPU).
#[test]
fn block_kernel_on_both_sides_of_shared_memory_and_at_every_block_size() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let d = dev(&g);
    let (df, dg) = (700, 699);
    for sparse in [false, true] {
        let data = channel_data(40, df, dg, sparse, 99);
        let moduli = basis(40).moduli().to_vec();
        let want = cpu::resultant_per_channel(&moduli, df, dg, &data);
        let bytes = 4
            * rns_core::launch::RESULTANT_SHARED_BLOCKS
            * rns_core::launch::resultant_block_words(df, dg);
        for (cap, shared) in [(bytes, true), (bytes - 4, false)] {
            d.config().set_shared_memory_limit(Some(cap));
            assert_eq!(launch::resultant_block_shape(d, 40, df, dg).shared, shared);
            // In global memory also in wide rounds, at most RESULTANT_WIDE_THREADS.
            let widths: &[Option<usize>] = if shared { &[None] } else { &[None, Some(0)] };
            for &wide in widths {
                d.config().set_resultant_wide_from(wide);
                for threads in [None, Some(32), Some(96), Some(768), Some(1024)] {
                    d.config().set_resultant_threads(threads);
                    let shape = launch::resultant_block_shape(d, 40, df, dg);
                    assert_eq!(shape.wide, wide.is_some());
                    if shape.wide {
                        assert!(shape.threads <= rns_core::launch::RESULTANT_WIDE_THREADS);
                    }
                    let got = ops::resultant_per_channel(d, &moduli, df, dg, &data).unwrap();
                    let what = format!(
                        "cap {cap}, wide from {wide:?}, {threads:?} threads, sparse {sparse}"
                    );
                    same(&got, &want, &what);
                }
            }
        }
    }
    d.config().set_shared_memory_limit(None);
    d.config().set_resultant_threads(None);
    d.config().set_resultant_wide_from(None);
    // 264 KB of polynomials: more than a block may have on any current GPU (227 KB); in
    // rounds of 16 steps by default, and of 8.
    let (df, dg) = (33_000, 32_999);
    let shape = launch::resultant_block_shape(d, 3, df, dg);
    assert!(!shape.shared && shape.wide);
    let data = channel_data(3, df, dg, false, 7);
    let moduli = basis(3).moduli().to_vec();
    let want = cpu::resultant_per_channel(&moduli, df, dg, &data);
    for wide in [None, Some(usize::MAX)] {
        d.config().set_resultant_wide_from(wide);
        let got = ops::resultant_per_channel(d, &moduli, df, dg, &data).unwrap();
        same(
            &got,
            &want,
            &format!("degrees 33000, 32999, wide from {wide:?}"),
        );
    }
    d.config().set_resultant_wide_from(None);
}

/// The wide rounds run from [`RESULTANT_WIDE_FROM`](rns_core::launch::RESULTANT_WIDE_FROM)
/// (the larger degree) with the polynomials in global memory, never in shared memory.
#[test]
fn wide_rounds_from_their_degree_in_global_memory() {
    let Some(g) = gpu() else { return };
    let d = dev(&g);
    let from = rns_core::launch::RESULTANT_WIDE_FROM;
    d.config().set_shared_memory_limit(Some(0));
    assert!(launch::resultant_block_shape(d, 8, from, 5).wide);
    assert!(!launch::resultant_block_shape(d, 8, from - 1, 5).wide);
    d.config().set_shared_memory_limit(None);
    d.config().set_resultant_wide_from(Some(0));
    let shape = launch::resultant_block_shape(d, 8, 100, 99);
    assert!(
        shape.shared && !shape.wide,
        "shared memory takes the narrow rounds"
    );
    d.config().set_resultant_wide_from(None);
}

/// A resultant with a known answer, on the GPU with the polynomials in shared and in
/// global memory: `f = ∏ (x − aᵢ)` over chosen roots gives `res(f, g) = ∏ g(aᵢ)`.
#[test]
fn resultants_of_chosen_roots_in_shared_and_global_memory() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(23);
    let roots: Vec<i64> = (0..600).map(|i| (i * 7919) % 2001 - 1000).collect();
    let f = roots
        .iter()
        .fold(IntPoly::new(vec![Integer::from(1)]).unwrap(), |p, &a| {
            poly_mul(
                &p,
                &IntPoly::new(vec![Integer::from(-a), Integer::from(1)]).unwrap(),
            )
        });
    let h = gen.poly(599, 40);
    let want = roots.iter().fold(Integer::from(1), |acc, &a| {
        acc * eval_poly(h.coeffs(), &Integer::from(a))
    });
    assert_ne!(want, 0);
    assert_eq!(resultant(&f, &h, &g).unwrap(), want, "shared memory");
    dev(&g).config().set_shared_memory_limit(Some(0));
    assert_eq!(resultant(&f, &h, &g).unwrap(), want, "global memory");
}

/// `f`, `g` whose remainder sequence, over Z and modulo every prime, takes a quotient of
/// degree 2 (a step that is not normal: the degree drops by 2) at each of the steps
/// `gaps` counted from the top, and linear quotients elsewhere, down to the constant 1:
/// built from the bottom as `r_(k−1) = q_k·r_k + r_(k+1)` with monic quotients, so every
/// remainder is monic and the sequence is the same modulo every prime.
fn with_gaps(gen: &mut Gen, steps: usize, gaps: &[usize]) -> (IntPoly, IntPoly) {
    let small = |gen: &mut Gen| Integer::from(gen.below(7)) - 3;
    let poly = |c: Vec<Integer>| IntPoly::new(c).unwrap();
    let (mut lo, mut hi) = (
        poly(vec![Integer::from(1)]),
        poly(vec![small(gen), Integer::from(1)]),
    );
    for s in (0..steps).rev() {
        let deg = if gaps.contains(&s) { 2 } else { 1 };
        let mut q: Vec<Integer> = (0..deg).map(|_| small(gen)).collect();
        q.push(Integer::from(1));
        let mut next = poly_mul(&poly(q), &hi).coeffs().to_vec();
        for (c, l) in next.iter_mut().zip(lo.coeffs()) {
            *c += l;
        }
        (lo, hi) = (hi, poly(next));
    }
    (hi, lo)
}

/// The block kernel's rounds of normal steps meet steps that are not normal at several
/// places of a round (the round is then not taken and one step goes the usual way), in
/// shared and in global memory, against the CPU backend.
#[test]
fn rounds_of_normal_steps_meet_degree_drops() {
    let Some(g) = gpu() else { return };
    let _lift = LiftCaps::hold();
    let mut gen = Gen::new(29);
    let gaps = [1, 3, 11, 20, 21, 50, 57, 100, 127, 180];
    let (f, h) = with_gaps(&mut gen, 200, &gaps);
    assert_eq!(f.degree(), h.degree() + 1);
    assert!(h.degree() > 200, "every gap adds a degree");
    let want = resultant(&f, &h, &Backend::Cpu).unwrap();
    assert_ne!(want, 0);
    let d = dev(&g);
    d.config().set_block_resultant_from(Some(0));
    assert_eq!(resultant(&f, &h, &g).unwrap(), want, "shared memory");
    d.config().set_shared_memory_limit(Some(0));
    for wide in [Some(usize::MAX), Some(0)] {
        d.config().set_resultant_wide_from(wide);
        let what = format!("global memory, wide from {wide:?}");
        assert_eq!(resultant(&f, &h, &g).unwrap(), want, "{what}");
    }
    d.config().set_resultant_wide_from(None);
    d.config().set_shared_memory_limit(None);
    d.config().set_block_resultant_from(None);
}
