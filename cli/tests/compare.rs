//! The comparison runner on tiny sizes: every operation measured on every available
//! backend, checked, and written as tables, CSV, JSON and charts.

use rns::backend::gpu::Gpu;
use rns_cli::compare::{self, Preset, BANDWIDTH, OPERATIONS};

#[test]
fn tiny_run_covers_every_operation_and_backend() {
    let report = compare::run(Preset::Tiny, None, false, &mut |_| {}).unwrap();
    let has_gpu = Gpu::get().is_ok();
    for (op, _) in OPERATIONS {
        let rows: Vec<_> = report.rows.iter().filter(|r| r.operation == op).collect();
        let mut backends = vec!["cpu1", "cpu"];
        if has_gpu {
            backends.extend(["gpu_kernel", "gpu_resident", "gpu"]);
        }
        for b in &backends {
            let n = rows.iter().filter(|r| r.backend == *b).count();
            assert_eq!(n, 2, "{op} on {b}: {n} sizes");
        }
        assert_eq!(rows.len(), 2 * backends.len(), "{op}");
        assert!(
            rows.iter()
                .all(|r| r.ms > 0.0 && r.ops_per_ms().is_finite()),
            "{op}"
        );
    }
    let bandwidth = report.rows.iter().filter(|r| r.operation == BANDWIDTH);
    assert_eq!(bandwidth.count(), if has_gpu { 6 } else { 0 });
    let tables = report.tables();
    for (op, _) in OPERATIONS {
        assert!(tables.contains(&format!("\n{op} (")), "table for {op}");
    }
    let csv = report.csv();
    assert!(csv.starts_with("operation,backend,size,channels,ms,ops_per_ms\n"));
    assert_eq!(csv.lines().count(), report.rows.len() + 1);
    let json = report.json();
    assert!(json.starts_with("{\"device\":"));
    assert_eq!(json.matches("\"operation\":").count(), report.rows.len());
}

#[test]
fn unknown_operations_are_errors() {
    let err = compare::run(
        Preset::Tiny,
        Some(&["mul".into(), "fft".into()]),
        false,
        &mut |_| {},
    )
    .unwrap_err();
    assert!(err.to_string().contains("unknown operation `fft`"), "{err}");
}

#[test]
fn output_paths_are_checked_before_measuring() {
    let bad = std::path::Path::new("/no/such/dir/x.csv");
    let err = compare::check_writable(bad).unwrap_err();
    assert!(err.to_string().starts_with("/no/such/dir/x.csv: "), "{err}");
    let ok = std::env::temp_dir().join(format!("rns-check-{}.csv", std::process::id()));
    compare::check_writable(&ok).unwrap();
    assert!(!ok.exists(), "the check leaves no file behind");
}

#[test]
fn charts_are_written_as_svg_and_png() {
    let report = compare::run(
        Preset::Tiny,
        Some(&["add".into(), "det".into()]),
        false,
        &mut |_| {},
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("rns-plots-{}", std::process::id()));
    let files = report.plot(&dir).unwrap();
    assert_eq!(files.len(), 4, "{files:?}"); // two families × (svg, png)
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if f.ends_with(".png") {
            assert_eq!(&bytes[..4], b"\x89PNG");
        } else {
            assert!(String::from_utf8_lossy(&bytes).contains("<svg"));
        }
    }
}

#[test]
fn csv_reads_back_into_the_same_rows() {
    let report = compare::run(
        Preset::Tiny,
        Some(&["mul".into(), "det".into()]),
        false,
        &mut |_| {},
    )
    .unwrap();
    let back = compare::Report::from_csv(&report.csv(), "dev", 2).unwrap();
    assert_eq!(back.rows.len(), report.rows.len());
    for (a, b) in back.rows.iter().zip(&report.rows) {
        assert_eq!(
            (a.operation, a.backend, a.size, a.channels),
            (b.operation, b.backend, b.size, b.channels)
        );
        assert!((a.ms - b.ms).abs() <= 1e-9 * b.ms.max(1.0));
    }
    assert!(compare::Report::from_csv("h\nmul,cpu,1,2\n", "x", 1).is_err());
    assert!(compare::Report::from_csv("h\nfft,cpu,1,2,3,4\n", "x", 1).is_err());
}
