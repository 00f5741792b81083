//! The matrix file format, over Z and straight into residues: never a panic; both
//! parsers accept exactly the same texts, agree on the entries modulo p, and what they
//! accept prints back to the same matrix.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rns::{IntMatrix, ModMatrices};
use rns_core::Modulus;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let p = 2_147_483_647;
    let m = Modulus::new(p).expect("a prime");
    let over_z = IntMatrix::parse(text, "fuzz");
    let mod_p = ModMatrices::parse_mod(text, "fuzz", m);
    match (&over_z, &mod_p) {
        (Ok(a), Ok(b)) => {
            assert_eq!((a.rows(), a.cols()), (b.rows(), b.cols()));
            for (x, &r) in a.entries().iter().zip(b.matrix(0)) {
                let want = x.clone().modulo(&rug::Integer::from(p));
                assert_eq!(want, r, "entry modulo p");
            }
            let again = IntMatrix::parse(&a.to_string(), "printed").expect("printed text parses");
            assert_eq!(&again, a);
        }
        (Err(e), Err(f)) => {
            assert!(!e.to_string().is_empty() && !f.to_string().is_empty());
        }
        _ => panic!("the parsers disagree: {over_z:?} against {mod_p:?}"),
    }
});
