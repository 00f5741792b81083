//! The `rns` binary: outputs, exit codes and messages for good and bad input.

mod common;

use common::{gpu_usable, rns, rns_env, text, write};

#[test]
fn det_prints_only_the_integer() {
    let out = rns(
        &["det", "-", "--backend", "cpu"],
        "3 3\n2 -1 0\n-1 2 -1\n0\t-1 2\n",
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "4\n");
    assert!(out.stderr.is_empty());
}

#[test]
fn det_reads_files_and_reports_stats_on_stderr() {
    let dir = std::env::temp_dir().join(format!("rns-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.txt");
    std::fs::write(
        &path,
        "3 3\n123456789012345678901234567890 1 0\n-1 98765432109876543210 0\n0 0 1\n",
    )
    .unwrap();
    let out = rns(&["det", path.to_str().unwrap(), "--stats"], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let want = rug::Integer::from_str_radix("123456789012345678901234567890", 10).unwrap()
        * rug::Integer::from_str_radix("98765432109876543210", 10).unwrap()
        + 1u32;
    assert_eq!(text(&out.stdout), format!("{want}\n"));
    let err = text(&out.stderr);
    assert!(err.contains("primes") && err.contains("det mod p"), "{err}");
}

#[test]
fn bad_inputs_exit_2_with_one_clear_line() {
    let cases = [
        ("", "empty input"),
        ("2 2\n1 2\n3\n", "row 2 has 1 entries"),
        ("2 2\n1 2\n3 x\n", "`x` is not a decimal integer"),
        ("2 2\n1 2\n3 4 5\n", "row 2 has 3 entries"),
        ("2 3\n1 2 3\n4 5 6\n", "square"),
        ("0 0\n", "empty matrix"),
        ("2 two\n", "bad dimensions"),
        ("1 1\n5\n6\n", "more than the 1 rows"),
        ("2 2\n1 2\n", "expected 2 rows"),
        ("1 1\n1_000\n", "not a decimal integer"),
    ];
    for (input, msg) in cases {
        let out = rns(&["det", "-", "--backend", "cpu"], input);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "input {input:?}: {err}");
        assert!(out.stdout.is_empty());
        assert!(err.contains(msg), "input {input:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"));
    }
    let out = rns(&["det", "/no/such/file"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("/no/such/file"));
}

#[test]
fn unusable_gpu_exits_3_and_auto_falls_back() {
    let has_gpu = rns::Backend::select(rns::BackendChoice::Gpu).is_ok();
    let out = rns(&["det", "-", "--backend", "gpu"], "1 1\n5\n");
    if has_gpu {
        assert_eq!(text(&out.stdout), "5\n");
    } else {
        assert_eq!(out.status.code(), Some(3));
        assert!(text(&out.stderr).contains("no CUDA device"));
    }
    let out = rns(&["det", "-", "--backend", "auto"], "1 1\n5\n");
    assert_eq!(text(&out.stdout), "5\n");
}

#[test]
fn resultant_prints_the_integer_and_rejects_bad_polynomials() {
    let dir = std::env::temp_dir().join(format!("rns-cli-res-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = |name: &str, text: &str| {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let (f, g) = (file("f", "1 0 1\n"), file("g", "-2\n1\n"));
    let out = rns(&["resultant", &f, &g, "--backend", "cpu"], "");
    assert_eq!(text(&out.stdout), "5\n", "{}", text(&out.stderr));
    for (name, content, msg) in [
        ("zero", "0 0 0", "zero polynomial"),
        ("empty", "\n", "empty polynomial"),
        ("bad", "1 2x", "`2x` is not a decimal integer"),
    ] {
        let p = file(name, content);
        let out = rns(&["resultant", &p, &g], "");
        assert_eq!(out.status.code(), Some(2), "{name}");
        assert!(
            text(&out.stderr).contains(msg),
            "{name}: {}",
            text(&out.stderr)
        );
        assert!(out.stdout.is_empty());
    }
}

/// Writes `files` (name, content), their names prefixed with `tag`, and returns their
/// paths.
fn files(tag: &str, files: &[(&str, &str)]) -> Vec<String> {
    files
        .iter()
        .map(|(name, content)| write(&format!("{tag}-{name}"), content))
        .collect()
}

#[test]
fn matrix_commands_print_results_in_the_matrix_format() {
    let f = files(
        "la",
        &[
            ("a", "2 2\n2 1\n1 3\n"),
            ("b", "2 1\n1\n-2\n"),
            ("s", "2 2\n1 2\n2 4\n"),
            ("r", "2 3\n1 2 3\n4 5 6\n"),
        ],
    );
    let (a, b, s, r) = (f[0].as_str(), f[1].as_str(), f[2].as_str(), f[3].as_str());
    let p = "2147483647";
    let ok = |args: &[&str], want: &str| {
        let out = rns(args, "");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stdout), want, "{args:?}");
        assert!(out.stderr.is_empty());
    };
    ok(&["matmul", a, b, "--backend", "cpu"], "2 1\n0\n-5\n");
    ok(&["matmul", a, b, "--mod", p], "2 1\n0\n2147483642\n");
    ok(&["solve", a, b], "2 1\n1\n-1\n");
    ok(&["solve", a, s], "2 2\n1/5 2/5\n3/5 6/5\n");
    ok(&["inverse", a], "2 2\n3/5 -1/5\n-1/5 2/5\n");
    // Over one denominator: d, then N = d·X.
    ok(&["solve", a, s, "--denominator"], "5\n2 2\n1 2\n3 6\n");
    ok(&["solve", a, b, "--denominator"], "1\n2 1\n1\n-1\n");
    ok(&["inverse", a, "--denominator"], "5\n2 2\n3 -1\n-1 2\n");
    ok(
        &["inverse", a, "--mod", p],
        "2 2\n429496730 1288490188\n1288490188 1717986918\n",
    );
    ok(&["solve", a, b, "--mod", p], "2 1\n1\n2147483646\n");
    ok(&["rank", s], "1\n");
    ok(&["rref", s], "2 2\n1 2\n0 0\n");
    ok(&["rref", r], "2 3\n1 0 -1\n0 1 2\n");
    ok(&["rref", r, "--mod", p], "2 3\n1 0 2147483646\n0 1 2\n");
    ok(&["nullspace", s], "2 1\n-2\n1\n");
    ok(&["nullspace", a], "2 0\n");
    ok(&["nullspace", r, "--mod", p], "3 1\n1\n2147483645\n1\n");
    ok(&["charpoly", a], "5 -5 1\n");
    ok(&["charpoly", s, "--mod", p], "0 2147483642 1\n");
    ok(&["minpoly", a], "5 -5 1\n");
    ok(&["minpoly", s, "--mod", p], "0 2147483642 1\n");
    ok(&["rank", a, "--mod", p], "2\n");
    ok(&["det", a, "--mod", p], "5\n");
    ok(&["det", s, "--mod", p], "0\n");
}

#[test]
fn matrix_commands_reject_bad_input_with_one_line() {
    let f = files(
        "bad",
        &[
            ("a", "2 2\n2 1\n1 3\n"),
            ("s", "2 2\n1 2\n2 4\n"),
            ("r", "2 3\n1 2 3\n4 5 6\n"),
            ("junk", "2 2\n1 x\n2 4\n"),
        ],
    );
    let (a, s, r, junk) = (f[0].as_str(), f[1].as_str(), f[2].as_str(), f[3].as_str());
    for (args, needle) in [
        (vec!["solve", s, a], "singular"),
        (vec!["solve", s, a, "--denominator"], "singular"),
        (
            vec!["inverse", s, "--mod", "2147483647"],
            "singular modulo 2147483647",
        ),
        (vec!["inverse", r], "square"),
        (
            vec!["inverse", r, "--denominator"],
            "the inverse needs a square matrix",
        ),
        (vec!["charpoly", r], "square"),
        (vec!["minpoly", r], "square"),
        (vec!["matmul", r, r], "cannot multiply"),
        (
            vec!["solve", a, r, "--mod", "7"],
            "outside the supported range",
        ),
        (vec!["rank", a, "--mod", "2147483645"], "not a prime"),
        (vec!["det", junk], "not a decimal integer"),
        (vec!["rank", "/nonexistent/m.txt"], "/nonexistent/m.txt"),
    ] {
        let out = rns(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = text(&out.stderr);
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
}

#[test]
fn resultant_xy_prints_the_coefficients_and_rejects_bad_polynomials() {
    let p = files(
        "res-xy",
        &[
            ("f", "1 0 2\n1 2 0\n-1 0 0\n"), // y² + x² − 1
            ("g", "# y − x\n1 0 1\n-1 1 0\n"),
            ("c", "5 0 0\n"),
            ("zero", "3 1 1\n-3 1 1\n"),
            ("empty", "\n\n"),
            ("tokens", "1 2\n"),
            ("exp", "1 x 0\n"),
        ],
    );
    let out = rns(&["resultant-xy", &p[0], &p[1], "--backend", "cpu"], "");
    assert_eq!(text(&out.stdout), "-1 0 2\n", "{}", text(&out.stderr));
    assert!(out.stderr.is_empty());
    // A constant: res_y(5, f) = 5^deg_y f = 25; res_y(f, f) = 0.
    let out = rns(&["resultant-xy", &p[2], &p[0]], "");
    assert_eq!(text(&out.stdout), "25\n");
    let out = rns(&["resultant-xy", &p[0], "-"], "1 0 2\n1 2 0\n-1 0 0\n");
    assert_eq!(text(&out.stdout), "0\n");
    for (i, msg) in [
        (3, "zero polynomial"),
        (4, "empty polynomial"),
        (5, "got 2 tokens"),
        (6, "`x` is not an exponent"),
    ] {
        let out = rns(&["resultant-xy", &p[i], &p[1]], "");
        assert_eq!(out.status.code(), Some(2), "{}", p[i]);
        assert!(text(&out.stderr).contains(msg), "{}", text(&out.stderr));
        assert!(out.stdout.is_empty());
    }
    let out = rns(&["resultant-xy", "/nonexistent/f", &p[1]], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn compare_rejects_a_bad_output_path_before_measuring() {
    let start = std::time::Instant::now();
    let out = rns(&["compare", "--quick", "--csv", "/no/such/dir/x.csv"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("rns: /no/such/dir/x.csv: "),
        "{}",
        text(&out.stderr)
    );
    assert!(out.stdout.is_empty(), "nothing was measured");
    assert!(start.elapsed().as_secs() < 10);
}

#[test]
fn comment_lines_are_ignored_in_matrix_and_polynomial_files() {
    let m = "# a 2×2 matrix\n2 2\n# first row\n1 2\n  # indented comment\n3 4\n# end\n";
    let out = rns(&["det", "-", "--backend", "cpu"], m);
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "-2\n".into())
    );
    let out = rns(&["det", "-", "--mod", "2147483647", "--backend", "cpu"], m);
    assert_eq!(text(&out.stdout), "2147483645\n");
    let dir = std::env::temp_dir().join(format!("rns-comments-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (f, g) = (dir.join("f.txt"), dir.join("g.txt"));
    std::fs::write(&f, "# x^2 - 2\n-2 0\n# leading\n1\n").unwrap();
    std::fs::write(&g, "-3 0 1 # not a comment: a bad token\n").unwrap();
    let out = rns(&["resultant", f.to_str().unwrap(), f.to_str().unwrap()], "");
    assert_eq!(text(&out.stdout), "0\n");
    let out = rns(&["resultant", f.to_str().unwrap(), g.to_str().unwrap()], "");
    assert_eq!(
        out.status.code(),
        Some(2),
        "a `#` inside a line is not a comment"
    );
    assert!(text(&out.stderr).contains("`#` is not a decimal integer"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn device_lists_are_checked() {
    for bad in ["0,0", "x", ""] {
        let out = rns(&["det", "-", "--devices", bad], "1 1\n5\n");
        assert_eq!(out.status.code(), Some(2), "{bad}");
        assert!(
            text(&out.stderr).contains("devices"),
            "{}",
            text(&out.stderr)
        );
    }
    // The CPU backend ignores the list; a missing device is the GPU backend's error.
    let out = rns(
        &["det", "-", "--backend", "cpu", "--devices", "7"],
        "1 1\n5\n",
    );
    assert_eq!(text(&out.stdout), "5\n");
    if rns::backend::gpu::Gpu::count() < 8 {
        let out = rns(
            &["det", "-", "--backend", "gpu", "--devices", "7"],
            "1 1\n5\n",
        );
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    }
}

/// A device operation that fails (`RNS_GPU_FAULT`, the test hook) ends the process with
/// exit code 1, one line on stderr and nothing on stdout, whatever the site.
#[test]
fn a_failing_device_operation_prints_no_answer() {
    if !gpu_usable() {
        return;
    }
    let matrix = "3 3\n2 -1 0\n-1 2 -1\n0 -1 2\n";
    let second = write("fault-second.txt", "3 2\n5 -6\n7 8\n0 1\n");
    let cases: [(&[&str], &str); 4] = [
        (&["det", "-", "--backend", "gpu"], matrix),
        (&["rank", "-", "--backend", "gpu"], matrix),
        (&["inverse", "-", "--backend", "gpu"], matrix),
        (&["matmul", "-", &second, "--backend", "gpu"], matrix),
    ];
    for (args, input) in cases {
        let clean = rns(args, input);
        assert_eq!(
            clean.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&clean.stderr)
        );
        for site in ["alloc", "copy", "launch", "sync"] {
            let fault = format!("{site}:1");
            let out = rns_env(args, input, &[("RNS_GPU_FAULT", &fault)]);
            let err = text(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?} {fault}: {err}");
            assert!(
                out.stdout.is_empty(),
                "{args:?} {fault}: {}",
                text(&out.stdout)
            );
            assert!(
                err.contains(&format!("injected {site}")),
                "{args:?} {fault}: {err}"
            );
            assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        }
    }
    let out = rns_env(
        &["det", "-", "--backend", "gpu"],
        matrix,
        &[("RNS_GPU_FAULT", "disk:1")],
    );
    assert_eq!(out.status.code(), Some(3));
    assert!(
        text(&out.stderr).contains("expected SITE:N"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn help_states_the_thresholds_the_code_uses() {
    use rns::algo::method::{DIXON_DET_MIN, DIXON_GPU_DET_MIN, DIXON_GPU_SOLVE_MIN};
    let out = rns(&["det", "--help"], "");
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    for n in [DIXON_DET_MIN, DIXON_GPU_DET_MIN, DIXON_GPU_SOLVE_MIN] {
        assert!(
            help.contains(&format!("n ≥ {n}")),
            "{n} missing from:\n{help}"
        );
    }
    let out = rns(&["compare", "--help"], "");
    let help = text(&out.stdout);
    for (op, _) in rns_cli::compare::OPERATIONS {
        assert!(help.contains(op), "{op} missing from:\n{help}");
    }
}

#[test]
fn two_files_read_at_once_report_the_first_failure() {
    // Both files are read and parsed at once; the error is still the first file's.
    let bad1 = write("first-bad.txt", "2 2\n1 x\n3 4\n");
    let bad2 = write("second-bad.txt", "2 2\n1 2\n3 y\n");
    for modulus in [None, Some("2147483629")] {
        let mut args = vec!["matmul", &bad1, &bad2, "--backend", "cpu"];
        args.extend(modulus.iter().flat_map(|p| ["--mod", p]));
        let got = rns(&args, "");
        let err = text(&got.stderr);
        assert_eq!(got.status.code(), Some(2), "{err}");
        assert!(
            err.contains("first-bad.txt") && !err.contains("second-bad.txt"),
            "{err}"
        );
    }
    // Standard input named twice goes to the first; the second finds it empty.
    let got = rns(&["matmul", "-", "-", "--backend", "cpu"], "2 2\n1 2\n3 4\n");
    assert_eq!(got.status.code(), Some(2));
    assert!(
        text(&got.stderr).contains("empty input"),
        "{}",
        text(&got.stderr)
    );
}

/// The exact product read and written as text on the GPU prints what the CPU backend
/// prints, byte for byte: entries of 1 to 700 digits, both signs, leading zeros,
/// comments and blank lines, a row of one entry and rows of many.
#[test]
fn the_gpu_product_prints_what_the_cpu_prints() {
    if !gpu_usable() {
        return;
    }
    let mut seed = 12345u64;
    let mut digit = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (b'0' + (seed >> 33) as u8 % 10) as char
    };
    for (n, k, p, most) in [(1, 1, 1, 1), (7, 3, 1, 700), (40, 30, 50, 80)] {
        let mut matrix = |rows: usize, cols: usize| {
            let mut t = format!("# {rows} by {cols}\n{rows} {cols}\n\n");
            for i in 0..rows {
                let line: Vec<String> = (0..cols)
                    .map(|j| {
                        let len = 1 + (i * 31 + j * 17) % most;
                        let sign = if (i + j) % 3 == 0 { "-" } else { "" };
                        let zeros = if (i + j) % 5 == 0 { "00" } else { "" };
                        format!(
                            "{sign}{zeros}{}",
                            (0..len).map(|_| digit()).collect::<String>()
                        )
                    })
                    .collect();
                t += &format!("{}\n", line.join(" "));
            }
            t
        };
        let b = write(&format!("product-{n}-{k}-{p}.txt"), &matrix(k, p));
        let a = matrix(n, k);
        let cpu = rns(&["matmul", "-", &b, "--backend", "cpu"], &a);
        let gpu = rns(&["matmul", "-", &b, "--backend", "gpu"], &a);
        assert_eq!(cpu.status.code(), Some(0), "{}", text(&cpu.stderr));
        assert_eq!(gpu.status.code(), Some(0), "{}", text(&gpu.stderr));
        assert_eq!(text(&gpu.stdout), text(&cpu.stdout), "{n}×{k} by {k}×{p}");
    }
}
