//! Resultants modulo one prime on one core: Euclid's passes (`resultant_chunked`, the
//! CPU backend's and the GPU kernels' algorithm) against levels of `k` normal steps
//! (`resultant_levels`: quadratic work on the tops only, the rest one product per level),
//! random dense inputs of degree `d` and `d − 1`, the answers compared. The transforms
//! are applied term by term (`transform_low`, the shape of a device's matrix product).
//!
//! `cargo run --release --example levels_bench [-- DEG,DEG,… [K,K,…]]`

use rns_core::euclid::resultant_chunked;
use rns_core::euclid_levels::{levels_scratch_len, resultant_levels};
use rns_core::Modulus;
use rns_suite::bench::xorshift_below;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let list = |i: usize, default: &str| -> Vec<usize> {
        let s = args.get(i).map(String::as_str).unwrap_or(default);
        s.split(',').map(|x| x.parse().expect("a number")).collect()
    };
    let (degs, ks) = (list(0, "1000,2000,4000,8000"), list(1, "16,64,256,1024"));
    let m = Modulus::new(2_147_483_629).unwrap();
    println!(
        "| degree | passes | {} |",
        ks.iter()
            .map(|k| format!("levels, k = {k}"))
            .collect::<Vec<_>>()
            .join(" | ")
    );
    println!("|{}", " --- |".repeat(ks.len() + 2));
    for &d in &degs {
        // Non-zero coefficients, so the leading ones are.
        let nonzero = |len: usize, seed: u64| -> Vec<u32> {
            xorshift_below(len, m.m, seed)
                .into_iter()
                .map(|c| c.max(1))
                .collect()
        };
        let (f, g) = (nonzero(d + 1, 0x9E37_79B9), nonzero(d, 0x7F4A_7C15));
        let t = Instant::now();
        let want = resultant_chunked(&mut f.clone(), &mut g.clone(), m);
        let base = t.elapsed().as_secs_f64();
        let mut row = format!("| {d} | {:.1} ms |", base * 1e3);
        for &k in &ks {
            let mut scratch = vec![0u32; levels_scratch_len(d, d - 1, k)];
            let t = Instant::now();
            let got = resultant_levels(&f, &g, m, k, &mut scratch);
            let s = t.elapsed().as_secs_f64();
            assert_eq!(got, want, "degree {d}, k {k}");
            row += &format!(" {:.1} ms ({:.2}×) |", s * 1e3, base / s);
        }
        println!("{row}");
    }
}
