//! Decimal text made on the device (`rns_digits_decimal`, `rns_decimal_text`): the
//! exact product's text against the host's formatting of rug's integers, byte for byte,
//! with values at both ends of the signed range, powers of ten and their neighbours
//! (the chunks' boundaries) of both signs, 0 and ±1, rows of one entry and of many; an
//! entry out of range reported at its index; the longest numbers the device writes and
//! the next (the host writes those), and a memory cap that leaves no room for the text
//! (the host again). Without a usable GPU these tests print that they skip; with
//! `RNS_REQUIRE_GPU=1` they fail instead.

use rns::backend::gpu::launch;
use rns::timing::Laps;
use rns::{Backend, IntMatrix, RnsBasis, TextMatrix};
use rns_suite::{
    check_product_text, decimal_edges, dev, gpu_backend as gpu, product_text, Gen, LiftCaps,
};
use rug::Integer;
use std::sync::Arc;

#[test]
fn product_text_from_the_device_matches_the_host() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(51);
    for bits in [31, 64, 100, 2000, 7000] {
        check_product_text(&g, bits, &mut gen, "the text made on the device");
    }
}

/// The range's numbers in chunks of nine digits (as the device counts them).
fn chunks(b: &RnsBasis) -> usize {
    let range = &b.moduli()[..b.moduli().len() - 1];
    launch::chunks_for(launch::limbs_for(range))
}

#[test]
fn the_longest_numbers_on_the_device_and_the_next_on_the_host() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let max = rns::backend::gpu::ops::decimal::TEXT_MAX_CHUNKS;
    // The widest basis whose numbers the device writes, and the next one.
    let mut bits = (max * 9 * 3322 / 1000 - 300) as u64;
    while chunks(&RnsBasis::for_bits(bits + 31)) <= max {
        bits += 31;
    }
    let mut gen = Gen::new(52);
    for (bits, on_device) in [(bits, true), (bits + 31, false)] {
        let b = Arc::new(RnsBasis::for_bits(bits));
        let col = decimal_edges(&b);
        let x = IntMatrix::new(col.len(), 1, col).unwrap();
        let one = IntMatrix::new(1, 1, vec![Integer::from(1)]).unwrap();
        let got = product_text(&g, &b, &x, &one);
        assert_eq!(
            got.is_some(),
            on_device,
            "{bits} bits: {} chunks",
            chunks(&b)
        );
        if let Some(text) = got {
            assert_eq!(text, x.to_text(), "{bits} bits");
        }
        // The library's text, from the device or the host, is the CPU's.
        let half = (bits / 2 - 8) as u32;
        let (x, y) = (gen.matrix(9, 5, half), gen.matrix(5, 7, half));
        let want = rns::matmul(&x, &y, &Backend::Cpu).unwrap().to_text();
        assert_eq!(rns::matmul_text(&x, &y, &g).unwrap(), want, "{bits} bits");
    }
}

#[test]
fn no_room_for_the_text_leaves_it_to_the_host() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(53);
    let (x, y) = (gen.matrix(300, 40, 500), gen.matrix(40, 300, 500));
    let want = rns::matmul(&x, &y, &Backend::Cpu).unwrap().to_text();
    // 90 000 entries of about 300 digits: their text alone is 27 MB.
    let b = Arc::new(RnsBasis::for_bits(1007));
    for (cap, on_device) in [(None, true), (Some(20_000_000), false)] {
        dev(&g).config().set_memory_limit(cap);
        let got = product_text(&g, &b, &x, &y);
        assert_eq!(got.is_some(), on_device, "cap {cap:?}");
        assert_eq!(rns::matmul_text(&x, &y, &g).unwrap(), want, "cap {cap:?}");
        let (tx, ty) = (x.to_text(), y.to_text());
        let (tx, ty) = (
            TextMatrix::parse(&tx, "x").unwrap(),
            TextMatrix::parse(&ty, "y").unwrap(),
        );
        assert_eq!(
            read_on_device(&g, &tx, &ty).is_some(),
            on_device,
            "cap {cap:?}"
        );
        assert_eq!(
            rns::matmul_text_of(&tx, &ty, &g).unwrap(),
            want,
            "cap {cap:?}"
        );
    }
}

/// The product's text of matrices read from their text on the device; `None` where the
/// device does not read them.
fn read_on_device(g: &Backend, a: &TextMatrix, b: &TextMatrix) -> Option<String> {
    let (n, k, p) = (a.rows(), a.cols(), b.cols());
    let spans = ((a.text(), a.spans()), (b.text(), b.spans()));
    let digits = (a.max_digits(), b.max_digits());
    let bits = |x: u64, y: u64| Arc::new(RnsBasis::for_bits(x + y + (k as u64).ilog2() as u64 + 1));
    let header = format!("{n} {p}\n");
    let mut laps = Laps::start();
    g.matmul_text_of_spans(spans, (n, k, p), digits, bits, &header, &mut laps)
        .unwrap()
}

/// An `rows × cols` matrix's text with entries of `digits` digits (edges and random),
/// leading zeros, `-0`, a comment and blank lines.
fn matrix_text(gen: &mut Gen, rows: usize, cols: usize, digits: usize) -> String {
    let nines = "9".repeat(digits);
    let power = format!("1{}", "0".repeat(digits - 1));
    let mut t = format!("# {digits} digits\n{rows} {cols}\n\n");
    for i in 0..rows {
        let line: Vec<String> = (0..cols)
            .map(|j| match (i * cols + j) % 7 {
                0 => nines.clone(),
                1 => format!("-{nines}"),
                2 => power.clone(),
                3 => format!("-00{power}"),
                4 => ["0", "-0", "007", "-1"][(i + j) % 4].to_string(),
                _ => {
                    let x = gen.signed((digits as f64 * 3.32) as u32);
                    x.to_string()
                }
            })
            .collect();
        t += &format!("{}\n", line.join("  "));
    }
    t
}

/// Both texts split, and the text of their product by rug's reading and the CPU.
fn read_both<'t>(ta: &'t str, tb: &'t str) -> (TextMatrix<'t>, TextMatrix<'t>, String) {
    let (a, b) = (
        TextMatrix::parse(ta, "a").unwrap(),
        TextMatrix::parse(tb, "b").unwrap(),
    );
    let (ia, ib) = (
        IntMatrix::parse(ta, "a").unwrap(),
        IntMatrix::parse(tb, "b").unwrap(),
    );
    let want = rns::matmul(&ia, &ib, &Backend::Cpu).unwrap().to_text();
    (a, b, want)
}

#[test]
fn matrices_read_from_their_text_on_the_device_match_rug() {
    let Some(g) = gpu() else { return };
    let _caps = LiftCaps::hold();
    let mut gen = Gen::new(54);
    let wmax = rns::backend::gpu::ops::decimal::WORDS_MAX;
    let words = rns::backend::gpu::ops::decimal::words_for_digits;
    // The most digits the device reads.
    let mut longest = wmax * 32 * 3 / 10;
    while words(longest as u64 + 1).is_some() {
        longest += 1;
    }
    let lengths = [
        1,
        2,
        8,
        9,
        10,
        17,
        18,
        19,
        20,
        38,
        39,
        40,
        300,
        longest,
        longest + 1,
    ];
    for digits in lengths {
        let (n, k, p) = (5, 4, 3);
        let (ta, tb) = (
            matrix_text(&mut gen, n, k, digits),
            matrix_text(&mut gen, k, p, 2),
        );
        let (a, b, want) = read_both(&ta, &tb);
        let direct = read_on_device(&g, &a, &b);
        assert_eq!(a.max_digits(), digits as u64 + 2);
        assert_eq!(direct.is_some(), digits + 2 <= longest, "{digits} digits");
        if let Some(text) = direct {
            assert_eq!(text, want, "{digits} digits, on the device");
        }
        assert_eq!(
            rns::matmul_text_of(&a, &b, &g).unwrap(),
            want,
            "{digits} digits"
        );
    }
    // Many entries (over several pieces of the staged copy of the text: 4 MB and more).
    let (ta, tb) = (
        matrix_text(&mut gen, 300, 200, 300),
        matrix_text(&mut gen, 200, 30, 40),
    );
    let (a, b, want) = read_both(&ta, &tb);
    assert_eq!(
        read_on_device(&g, &a, &b).expect("read on the device"),
        want,
        "300×200"
    );
}
