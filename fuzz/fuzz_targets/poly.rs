//! The polynomial file format: never a panic; what parses prints back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rns::IntPoly;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match IntPoly::parse(text, "fuzz") {
        Ok(f) => {
            let printed: Vec<String> = f.coeffs().iter().map(|c| c.to_string()).collect();
            let again = IntPoly::parse(&printed.join(" "), "printed").expect("printed text parses");
            assert_eq!(again, f);
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
