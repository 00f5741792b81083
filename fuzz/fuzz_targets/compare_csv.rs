//! The CSV that `rns compare --from-csv` reads back: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rns_cli::compare::Report;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(r) = Report::from_csv(text, "GPU", 4) {
        let _ = r.tables();
        let again = Report::from_csv(&r.csv(), "GPU", 4).expect("written CSV reads back");
        assert_eq!(again.csv(), r.csv());
    }
});
