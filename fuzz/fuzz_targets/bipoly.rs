//! The bivariate polynomial file format: never a panic, no allocation beyond the
//! format's cap (`-rss_limit_mb` enforces it), and what parses keeps its degrees.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rns::BiPoly;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match BiPoly::parse(text, "fuzz") {
        Ok(f) => {
            let mut terms = String::new();
            for j in 0..=f.deg_y() {
                for (i, c) in f.row(j).iter().enumerate() {
                    if *c != 0 {
                        terms += &format!("{c} {i} {j}\n");
                    }
                }
            }
            let again = BiPoly::parse(&terms, "printed").expect("printed text parses");
            assert_eq!((again.deg_x(), again.deg_y()), (f.deg_x(), f.deg_y()));
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
