//! CPU-vs-GPU comparison of every operation, the same runner as `rns compare`:
//! `cargo run --release --example compare -- [--quick] [DIR]` prints the tables and,
//! with DIR, writes `compare.csv`, `compare.json` and the charts there.

use rns_cli::compare::{self, Preset};
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick");
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map(PathBuf::from);
    let report = compare::run(
        if quick { Preset::Quick } else { Preset::Full },
        None,
        true,
        &mut |w| eprintln!("compare: {w}"),
    )?;
    print!("{}", report.tables());
    if let Some(dir) = dir {
        std::fs::create_dir_all(&dir)?;
        compare::write_file(&dir.join("compare.csv"), &report.csv())?;
        compare::write_file(&dir.join("compare.json"), &report.json())?;
        for f in report.plot(&dir)? {
            eprintln!("wrote {f}");
        }
    }
    Ok(())
}
