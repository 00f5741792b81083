//! `rns batch`: many commands in one process print exactly what they print one by one.

mod common;

use common::{rns, text, write};

#[test]
fn a_batch_prints_what_its_lines_print_one_by_one() {
    let a = write("a.txt", "3 3\n2 -1 0\n-1 2 -1\n0 -1 2\n");
    let b = write("b.txt", "3 1\n1\n0\n1\n");
    let f = write("f.txt", "1 2 3 4\n");
    let g = write("g.txt", "-7 0 1\n");
    let lines = [
        format!("det {a}"),
        format!("det {a} --mod 2147483629"),
        format!("rns matmul {a} {a}"),
        format!("solve {a} {b} --method dixon"),
        format!("inverse {a} --mod 2147483647"),
        format!("rank {a}"),
        format!("resultant {f} {g}"),
    ];
    let mut want = String::new();
    for l in &lines {
        let mut args: Vec<&str> = l.split_whitespace().collect();
        if args[0] == "rns" {
            args.remove(0);
        }
        args.extend(["--backend", "cpu"]);
        let one = rns(&args, "");
        assert_eq!(one.status.code(), Some(0), "{l}: {}", text(&one.stderr));
        want += &text(&one.stdout);
    }
    let jobs = format!("# jobs\n\n{}\n", lines.join("\n"));
    let file = write("jobs.txt", &jobs);
    for (args, stdin) in [(vec!["batch", &file], ""), (vec!["batch", "-"], &jobs[..])] {
        let mut args = args.clone();
        args.extend(["--backend", "cpu"]);
        let got = rns(&args, stdin);
        assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
        assert_eq!(text(&got.stdout), want);
        assert!(got.stderr.is_empty(), "{}", text(&got.stderr));
    }
}

#[test]
fn failing_lines_are_named_and_the_others_still_run() {
    let a = write("a2.txt", "2 2\n1 2\n3 4\n");
    let jobs = write(
        "bad.txt",
        &format!(
            "det {a}\ndet /no/such/file\ndet {a} --frobnicate\nbatch x\nsolve {a} {a} --mod 4\n\
             rank {a} --backend auto\ndet {a} --stats\n"
        ),
    );
    let got = rns(&["batch", &jobs, "--backend", "cpu", "--stats"], "");
    assert_eq!(got.status.code(), Some(2));
    assert_eq!(text(&got.stdout), "-2\n2\n-2\n");
    let err = text(&got.stderr);
    let failures: Vec<&str> = err.lines().filter(|l| l.starts_with("rns: ")).collect();
    assert_eq!(failures.len(), 5, "{err}");
    assert!(failures[0].starts_with(&format!("rns: {jobs}:2: /no/such/file: ")));
    assert!(failures[1].contains(":3: unexpected argument '--frobnicate'"));
    assert!(failures[2].contains(":4: a batch line cannot run `batch`"));
    assert!(
        failures[3].contains(":5: ") && failures[3].contains("4"),
        "{}",
        failures[3]
    );
    assert_eq!(failures[4], "rns: 4 of 7 lines failed");
    // The batch's --stats reached the lines (a line's own options win, no clash).
    assert_eq!(err.matches("backend cpu").count(), 3, "{err}");
    assert!(!err.contains("panicked"));
}

#[test]
fn lines_in_flight_keep_their_order() {
    // Slow lines (a 120² determinant) beside fast ones and failures: whatever finishes
    // first, each line's output, notes and error come in the order of the lines.
    let mut big = String::from("120 120\n");
    let mut x: u64 = 7;
    for _ in 0..120 {
        let row: Vec<String> = (0..120)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                ((x >> 1) as i64).to_string()
            })
            .collect();
        big += &(row.join(" ") + "\n");
    }
    let big = write("big.txt", &big);
    let small = write("small.txt", "1 1\n5\n");
    let mut lines = Vec::new();
    for i in 0..12 {
        lines.push(match i % 3 {
            0 => format!("det {big}"),
            1 => format!("det {small}"),
            _ => format!("det /no/such/{i}"),
        });
    }
    let mut want = String::new();
    for l in lines.iter().filter(|l| !l.contains("/no/such/")) {
        let args: Vec<&str> = l.split_whitespace().chain(["--backend", "cpu"]).collect();
        want += &text(&rns(&args, "").stdout);
    }
    let jobs = write("order.txt", &(lines.join("\n") + "\n"));
    let got = rns(&["batch", &jobs, "--backend", "cpu", "--stats"], "");
    assert_eq!(got.status.code(), Some(2));
    assert_eq!(text(&got.stdout), want);
    // Each line's statistics end with its print stage; a failing line's error follows the
    // statistics of the lines before it.
    let err = text(&got.stderr);
    let events: Vec<String> = err
        .lines()
        .filter_map(|l| {
            if l.trim_start().starts_with("print:") {
                Some("ok".to_string())
            } else {
                l.strip_prefix(&format!("rns: {jobs}:"))
                    .map(|rest| rest.split(':').next().unwrap_or("").to_string())
            }
        })
        .collect();
    let expect: Vec<String> = (1..=12)
        .map(|i| {
            if i % 3 == 0 {
                i.to_string()
            } else {
                "ok".into()
            }
        })
        .collect();
    assert_eq!(events, expect, "{err}");
}
