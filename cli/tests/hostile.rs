//! Every subcommand of the `rns` binary (`batch` too) under hostile conditions: standard output closed
//! early or full, standard input endless or cut short, input files missing or not files,
//! a small address space, SIGINT and SIGTERM mid-computation. Each ends with the exit
//! code of the README's table and at most one line on standard error, never a panic.

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

use common::{bin, dir, text, write};

/// Every subcommand, with small good inputs, on the CPU backend.
fn commands() -> Vec<Vec<String>> {
    let a = write("a.txt", "3 3\n2 -1 0\n-1 2 -1\n0 -1 2\n");
    let b = write("b.txt", "3 1\n1\n0\n1\n");
    let f = write("f.txt", "1 2 3 4 5 6\n");
    let g = write("g.txt", "-7 0 1\n");
    let xf = write("xf.txt", "1 0 2\n3 1 0\n-1 0 0\n");
    let xg = write("xg.txt", "1 0 1\n-2 2 0\n");
    let csv = write(
        "c.csv",
        "operation,backend,size,channels,ms,ops_per_ms\nmul,cpu,1024,16,0.5,2048\n",
    );
    let cpu = ["--backend", "cpu"];
    let mut out: Vec<Vec<String>> = [
        vec!["det", &a],
        vec!["matmul", &a, &a],
        vec!["rank", &a],
        vec!["rref", &a],
        vec!["nullspace", &a],
        vec!["charpoly", &a],
        vec!["minpoly", &a],
        vec!["inverse", &a],
        vec!["solve", &a, &b],
        vec!["resultant", &f, &g],
        vec!["resultant-xy", &xf, &xg],
    ]
    .iter()
    .map(|c| c.iter().chain(&cpu).map(|s| s.to_string()).collect())
    .collect();
    out.push(vec!["compare".into(), "--from-csv".into(), csv]);
    let jobs = write("jobs.txt", &format!("det {a}\nresultant {f} {g}\n"));
    out.push(
        ["batch", &jobs, "--backend", "cpu"]
            .map(String::from)
            .into(),
    );
    out
}

fn spawn(args: &[String], stdout: Stdio) -> Child {
    Command::new(bin())
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("run rns")
}

/// Standard error holds at most one line, and no panic.
fn one_line(args: &[String], out: &Output) -> String {
    let err = text(&out.stderr);
    assert!(err.lines().count() <= 1, "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// The write end of a pipe whose read end is already closed.
fn closed_pipe() -> Stdio {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe writes two new descriptors; we own both, close one, hand over the other.
    unsafe {
        assert_eq!(libc::pipe(fds.as_mut_ptr()), 0);
        libc::close(fds[0]);
        Stdio::from(std::os::fd::OwnedFd::from_raw_fd(fds[1]))
    }
}

#[test]
fn a_closed_standard_output_ends_quietly_with_141() {
    for args in commands() {
        // Closed before the command starts, so whatever it writes meets a closed pipe.
        let out = spawn(&args, closed_pipe()).wait_with_output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(141),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(one_line(&args, &out), "", "{args:?}");
    }
}

#[test]
fn a_full_disk_gives_one_line_and_status_1() {
    let Ok(full) = std::fs::File::create("/dev/full") else {
        eprintln!("skipped: no /dev/full here");
        return;
    };
    for args in commands() {
        let child = spawn(&args, Stdio::from(full.try_clone().unwrap()));
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(
            one_line(&args, &out),
            "rns: cannot write <stdout>: No space left on device (os error 28)\n"
        );
    }
}

/// Runs `args` with `head` then `tail` repeated for ever on standard input; the status
/// and standard error, and how long it took.
fn endless(args: &[String], head: &str, tail: &str) -> (Output, Duration) {
    let t = Instant::now();
    let mut child = spawn(args, Stdio::piped());
    let mut stdin = child.stdin.take().unwrap();
    let (head, tail) = (head.to_string(), tail.repeat(4096));
    // Writes until the command closes its end.
    let writer = std::thread::spawn(move || {
        if stdin.write_all(head.as_bytes()).is_ok() {
            while stdin.write_all(tail.as_bytes()).is_ok() {}
        }
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out, t.elapsed())
}

#[test]
fn an_endless_standard_input_fails_as_soon_as_it_is_wrong() {
    let a = write("e.txt", "2 2\n1 0\n0 1\n");
    for cmd in [
        "det",
        "rank",
        "rref",
        "nullspace",
        "charpoly",
        "minpoly",
        "inverse",
        "matmul",
        "solve",
    ] {
        let mut args: Vec<String> = vec![cmd.into(), "-".into()];
        if cmd == "matmul" || cmd == "solve" {
            args.push(a.clone());
        }
        // `yes 1`: no first line `rows cols`.
        let (out, took) = endless(&args, "", "1\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = one_line(&args, &out);
        assert!(
            err.contains("<stdin>:1: bad first line `1`"),
            "{args:?}: {err}"
        );
        assert!(took < Duration::from_secs(10), "{args:?}: {took:?}");
        // More rows than declared, for ever.
        let (out, _) = endless(&args, "2 2\n", "1 0\n");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = one_line(&args, &out);
        assert!(err.contains("more than the 2 rows declared"), "{err}");
        // One row, for ever.
        let (out, _) = endless(&args, "2 2\n", "1 ");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(one_line(&args, &out).contains("expected 2"), "{args:?}");
    }
    // A CSV has a most size.
    let args: Vec<String> = ["compare", "--from-csv", "-"].map(String::from).into();
    let (out, _) = endless(
        &args,
        "operation,backend,size,channels,ms,ops_per_ms\n",
        "1\n",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(one_line(&args, &out).contains("bytes: too long for this input"));
    // The polynomial formats have no declared size: a byte no number has stops them.
    for cmd in ["resultant", "resultant-xy"] {
        let args: Vec<String> = vec![cmd.into(), "-".into(), write("one.txt", "1 0 0\n")];
        let (out, _) = endless(&args, "1 2 ", "x ");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = one_line(&args, &out);
        assert!(
            err.contains("`x") || err.contains("tokens"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn an_endless_stream_of_good_numbers_meets_the_memory_limit() {
    // 1 GB of address space: the read stops with the bytes needed and available.
    let args: Vec<String> = vec![
        "-c".into(),
        format!(
            "ulimit -v 1000000 && exec {} resultant - {}",
            bin(),
            write("x.txt", "1 1")
        ),
    ];
    let mut child = Command::new("sh")
        .args(&args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let ones = "1 ".repeat(1 << 15);
        while stdin.write_all(ones.as_bytes()).is_ok() {}
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    let err = one_line(&args, &out);
    assert!(
        err.contains("reading <stdin> (still arriving) needs"),
        "{err}"
    );
    assert!(err.contains("of memory available"), "{err}");
}

#[test]
fn a_standard_input_cut_short_is_an_error() {
    let one = write("one.txt", "1 0 0\n");
    let cases: [(&[&str], &str, &str); 6] = [
        (
            &["det", "-"],
            "2 2\n1 2\n3",
            "row 2 has 1 entries, expected 2",
        ),
        (&["rank", "-"], "3 3\n1 2 3\n", "expected 3 rows, found 1"),
        (&["det", "-"], "", "empty input"),
        (&["resultant", "-", &one], "", "empty polynomial"),
        (&["resultant-xy", "-", &one], "1 2", "got 2 tokens"),
        (
            &["compare", "--from-csv", "-"],
            "operation,backend,size,channels,ms,ops_per_ms\nmul,cpu,10",
            "expected 6 fields, found 3",
        ),
    ];
    for (args, input, want) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let mut child = spawn(&args, Stdio::piped());
        let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = one_line(&args, &out);
        assert!(err.contains(want), "{args:?}: {err}");
    }
}

#[test]
fn missing_and_unreadable_inputs_exit_2() {
    let gone = dir().join("gone.txt");
    std::fs::write(&gone, "1 1\n5\n").unwrap();
    std::fs::remove_file(&gone).unwrap();
    let gone = gone.display().to_string();
    let a_dir = dir().display().to_string();
    for args in commands() {
        for bad in [&gone, &a_dir] {
            // The first input file replaced by a vanished file or a directory.
            let at = args.iter().position(|a| a.starts_with('/')).unwrap();
            let mut args = args.clone();
            args[at] = bad.clone();
            let out = spawn(&args, Stdio::piped()).wait_with_output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{args:?}: {}",
                text(&out.stderr)
            );
            let err = one_line(&args, &out);
            assert!(err.starts_with(&format!("rns: {bad}: ")), "{args:?}: {err}");
            assert!(out.stdout.is_empty(), "{args:?}");
        }
    }
}

#[test]
fn work_beyond_a_small_address_space_is_refused_before_it_starts() {
    let huge = write("huge.txt", "100000 100000\n1 2 3\n");
    let f = write("long.txt", &"1 ".repeat(1_000_001));
    let one = write("x1.txt", "1 1\n");
    let wide = write("wide.txt", &"1 ".repeat(20_001));
    let cases = [
        (format!("det {huge}"), "the 100000×100000 matrix that"),
        (
            format!("det {huge} --mod 2147483647"),
            "the 100000×100000 matrix that",
        ),
        (format!("resultant {f} {wide}"), "primes needs"),
    ];
    // A degree small against the other needs no residues of the long one: it runs.
    let sh = format!(
        "ulimit -v 2000000 && exec {} resultant {f} {one} --backend cpu",
        bin()
    );
    let out = Command::new("sh").args(["-c", &sh]).output().unwrap();
    assert_eq!(
        (out.status.code(), text(&out.stdout)),
        (Some(0), "1\n".into())
    );
    // As a 32-core host would run them (every thread its own 64 MiB arena), too: the
    // arenas are capped to fit the limit, so the refusal still comes first.
    let hosts = ["", "RAYON_NUM_THREADS=32 MALLOC_ARENA_MAX=256"];
    for ((args, want), env) in cases.iter().flat_map(|c| hosts.map(|h| (c, h))) {
        let sh = format!(
            "ulimit -v 2000000 && {env} exec {} {args} --backend cpu",
            bin()
        );
        let out = Command::new("sh").args(["-c", &sh]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{env} {args}: {}",
            text(&out.stderr)
        );
        let err = text(&out.stderr);
        assert!(
            err.contains(want) && err.contains("of memory available"),
            "{args}: {err}"
        );
        assert!(
            !err.contains("panicked") && err.lines().count() == 1,
            "{err}"
        );
    }
}

#[test]
fn sigint_and_sigterm_end_a_computation_at_once_with_no_answer() {
    // A resultant of degree 4000 with 200-bit coefficients: seconds of work on the CPU.
    let coeffs: Vec<String> = (0..4001u64)
        .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) % 1_000_003).to_string() + &"7".repeat(55))
        .collect();
    let f = write("big_f.txt", &coeffs.join(" "));
    let g = write("big_g.txt", &coeffs[1..].join(" "));
    for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        let args: Vec<String> = ["resultant", &f, &g, "--backend", "cpu"]
            .map(String::from)
            .into();
        let child = spawn(&args, Stdio::piped());
        std::thread::sleep(Duration::from_millis(200));
        let sent = Instant::now();
        // SAFETY: kill only sends a signal to our child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        let took = sent.elapsed();
        if out.status.success() {
            eprintln!("skipped: the resultant finished within 200 ms here");
            continue;
        }
        // Killed by the signal: the shell reports 128 + its number.
        let status = out.status.signal().map(|s| 128 + s).or(out.status.code());
        assert_eq!(status, Some(code), "{:?}", out.status);
        assert!(took < Duration::from_secs(1), "{took:?}");
        assert!(out.stdout.is_empty());
        assert_eq!(one_line(&args, &out), "");
    }
}

#[test]
fn non_finite_figures_in_a_csv_are_refused_naming_the_row() {
    let head = "operation,backend,size,channels,ms,ops_per_ms\nmul,cpu,1024,16,0.5,2048\n";
    let plots = dir().join("plots").display().to_string();
    for bad in [
        "mul,gpu,1024,16,0,1",
        "mul,gpu,1024,16,inf,0",
        "mul,gpu,1024,16,NaN,0",
        "mul,gpu,1024,16,-2,0",
        "mul,gpu,0,16,1,1",
        "mul,gpu,inf,16,1,1",
        "mul,gpu,1e400,16,1,1",
        "mul,gpu,1024,-1,1,1",
    ] {
        let csv = write("bad.csv", &format!("{head}{bad}\n"));
        for extra in [vec![], vec!["--plots".to_string(), plots.clone()]] {
            let mut args = vec!["compare".to_string(), "--from-csv".into(), csv.clone()];
            args.extend(extra);
            let t = Instant::now();
            let out = spawn(&args, Stdio::piped()).wait_with_output().unwrap();
            assert_eq!(out.status.code(), Some(2), "{bad}: {}", text(&out.stderr));
            let err = one_line(&args, &out);
            assert!(err.starts_with("rns: csv:3: "), "{bad}: {err}");
            assert!(t.elapsed() < Duration::from_secs(10));
        }
    }
}
