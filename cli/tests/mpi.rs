//! `mpirun -np N rns …` (the binary built with the `mpi` feature) against the single
//! process: the same bytes on standard output, the same exit code and error for bad
//! input, a clean end (never a hang) when a rank fails or dies. Ranks oversubscribe
//! the CPU backend, so these run on any machine with OpenMPI.
#![cfg(feature = "mpi")]

use std::io::Write;
use std::process::{Command, Output, Stdio};

mod common;

use common::{bin, text, write};

/// Runs `cmd` with `stdin`, under `timeout` so that a hung job fails the test.
fn run(mut cmd: Command, stdin: &str) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    let mut input = child.stdin.take().unwrap();
    input.write_all(stdin.as_bytes()).unwrap();
    drop(input);
    child.wait_with_output().unwrap()
}

fn single(args: &[String], stdin: &str) -> Output {
    let mut c = Command::new(bin());
    c.args(args);
    run(c, stdin)
}

/// One `mpirun` at a time: concurrent jobs on a small machine run out of OpenMPI's
/// launch resources.
static MPIRUN: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `mpirun -np ranks rns args` (as root too, oversubscribed), killed after 300 s.
fn ranks(np: usize, args: &[String], env: &[(&str, &str)], stdin: &str) -> Output {
    let _one = MPIRUN.lock().unwrap_or_else(|e| e.into_inner());
    let mut c = Command::new("timeout");
    c.args(["300", "mpirun", "--allow-run-as-root", "--oversubscribe"]);
    c.args(["--mca", "btl", "self,vader", "-np", &np.to_string()]);
    for (k, v) in env {
        c.env(k, v).args(["-x", k]);
    }
    c.arg(bin()).args(args);
    run(c, stdin)
}

/// A deterministic generator of signed integers of up to `bits` bits.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 11
    }

    fn int(&mut self, bits: u32) -> rug::Integer {
        let mut x = rug::Integer::new();
        for _ in 0..bits.div_ceil(50) {
            x = (x << 50u32) + self.next() % (1 << 50);
        }
        x >>= bits.div_ceil(50) * 50 - bits;
        if self.next() & 1 == 0 {
            -x
        } else {
            x
        }
    }

    fn matrix(&mut self, rows: usize, cols: usize, bits: u32) -> String {
        let mut s = format!("{rows} {cols}\n");
        for _ in 0..rows {
            let row: Vec<String> = (0..cols).map(|_| self.int(bits).to_string()).collect();
            s += &row.join(" ");
            s.push('\n');
        }
        s
    }
}

impl Gen {
    /// A `rows × cols` matrix of rank `r`: the product of random `rows × r` and
    /// `r × cols` factors.
    fn low_rank(&mut self, rows: usize, cols: usize, r: usize) -> String {
        let l: Vec<rug::Integer> = (0..rows * r).map(|_| self.int(20)).collect();
        let m: Vec<rug::Integer> = (0..r * cols).map(|_| self.int(20)).collect();
        let mut s = format!("{rows} {cols}\n");
        for i in 0..rows {
            let row: Vec<String> = (0..cols)
                .map(|j| {
                    let x: rug::Integer = (0..r)
                        .map(|t| l[i * r + t].clone() * &m[t * cols + j])
                        .sum();
                    x.to_string()
                })
                .collect();
            s += &row.join(" ");
            s.push('\n');
        }
        s
    }
}

fn args(s: &[&str]) -> Vec<String> {
    s.iter().map(|a| a.to_string()).collect()
}

/// The commands compared: every one that splits primes, over Z/Q and modulo a prime,
/// with prime counts that 2 and 3 ranks do not divide evenly.
fn cases() -> Vec<Vec<String>> {
    let mut g = Gen(7);
    let a = write("a.txt", &g.matrix(23, 23, 64));
    let b = write("b.txt", &g.matrix(23, 4, 100));
    let wide = write("wide.txt", &g.matrix(17, 29, 300));
    let tall = write("tall.txt", &g.matrix(29, 11, 1000));
    let low = write("low.txt", &g.low_rank(9, 12, 5));
    let f: Vec<String> = (0..41).map(|_| g.int(200).to_string()).collect();
    let h: Vec<String> = (0..30).map(|_| g.int(150).to_string()).collect();
    let f = write("f.txt", &f.join(" "));
    let h = write("h.txt", &h.join("\n"));
    let mut bf = String::from("# f(x, y)\n");
    let mut bh = String::new();
    for i in 0..4 {
        for j in 0..5 {
            bf += &format!("{} {i} {j}\n", g.int(60));
            bh += &format!("{} {j} {i}\n", g.int(40));
        }
    }
    let xf = write("xf.txt", &bf);
    let xh = write("xh.txt", &bh);
    let p = "2147483647";
    let cpu = ["--backend", "cpu"];
    let mut out = vec![
        args(&["det", &a]),
        args(&["det", &a, "--mod", p]),
        args(&["matmul", &wide, &tall]),
        args(&["matmul", &a, &b, "--mod", p]),
        args(&["rank", &wide]),
        args(&["rank", &low]),
        args(&["rref", &low]),
        args(&["nullspace", &wide]),
        args(&["nullspace", &low, "--mod", p]),
        args(&["charpoly", &a]),
        args(&["charpoly", &a, "--mod", p]),
        args(&["minpoly", &a]),
        args(&["minpoly", &a, "--mod", p]),
        args(&["solve", &a, &b]),
        args(&["solve", &a, &b, "--mod", p]),
        args(&["inverse", &a]),
        args(&["resultant", &f, &h]),
        args(&["resultant-xy", &xf, &xh]),
    ];
    for c in &mut out {
        c.extend(cpu.iter().map(|s| s.to_string()));
    }
    out
}

/// Runs `case` as one process, then under 2 and 3 ranks (the shares gathered in memory
/// the ranks share, and, under 2 ranks, copied through MPI too): each succeeds and
/// prints the same bytes.
fn ranks_print_what_one_process_prints(case: &[String]) {
    let want = single(case, "");
    assert_eq!(
        want.status.code(),
        Some(0),
        "{case:?}: {}",
        text(&want.stderr)
    );
    assert!(!want.stdout.is_empty());
    for (np, env) in [(2, &[][..]), (3, &[]), (2, &[("RNS_MPI_GATHER", "copy")])] {
        let got = ranks(np, case, env, "");
        assert_eq!(
            got.status.code(),
            Some(0),
            "{np} ranks {env:?} {case:?}: {}",
            text(&got.stderr)
        );
        assert_eq!(
            text(&got.stdout),
            text(&want.stdout),
            "{np} ranks {env:?} {case:?}"
        );
    }
}

#[test]
fn ranks_print_the_bytes_of_one_process() {
    for case in cases() {
        ranks_print_what_one_process_prints(&case);
    }
}

#[test]
fn rank_zero_reads_standard_input_for_all() {
    let m = Gen(3).matrix(12, 12, 90);
    let case = args(&["det", "-", "--backend", "cpu", "--stats"]);
    let want = single(&case, &m);
    let got = ranks(3, &case, &[], &m);
    assert_eq!(got.status.code(), Some(0), "{}", text(&got.stderr));
    assert_eq!(text(&got.stdout), text(&want.stdout));
    let stats = text(&got.stderr);
    assert!(stats.contains("3 MPI ranks"), "{stats}");
}

#[test]
fn bad_input_fails_with_the_error_of_one_process() {
    let garbage = write("garbage.txt", "2 2\n1 x\n3 4\n");
    let singular = write("singular.txt", "2 2\n1 2\n2 4\n");
    let rhs = write("rhs.txt", "2 1\n1\n1\n");
    let empty = write("empty.txt", "");
    let cases = [
        args(&["det", "/no/such/file", "--backend", "cpu"]),
        args(&["det", &garbage, "--backend", "cpu"]),
        args(&["det", &empty, "--backend", "cpu"]),
        args(&["solve", &singular, &rhs, "--backend", "cpu"]),
        args(&[
            "inverse",
            &singular,
            "--mod",
            "2147483647",
            "--backend",
            "cpu",
        ]),
        args(&["det", &singular, "--mod", "1000", "--backend", "cpu"]),
    ];
    for case in cases {
        let want = single(&case, "");
        assert_ne!(want.status.code(), Some(0), "{case:?}");
        let got = ranks(2, &case, &[], "");
        assert_eq!(
            got.status.code(),
            want.status.code(),
            "{case:?}: {}",
            text(&got.stderr)
        );
        let first = |o: &Output| text(&o.stderr).lines().next().unwrap_or("").to_string();
        assert_eq!(first(&got), first(&want), "{case:?}");
        assert!(got.stdout.is_empty());
    }
}

#[test]
fn a_failed_rank_ends_the_job_with_its_error() {
    let case = cases().remove(0);
    let got = ranks(3, &case, &[("RNS_TEST_FAIL_RANK", "1")], "");
    assert_eq!(got.status.code(), Some(1), "{}", text(&got.stderr));
    let err = text(&got.stderr);
    assert!(err.starts_with("rns: MPI rank 1 failed: "), "{err}");
    assert!(got.stdout.is_empty());
    // A rank that dies (aborts, or is killed mid-run): mpirun ends the job (no hang:
    // `timeout` would give 124), and no answer is printed.
    for how in ["1:abort", "1:kill"] {
        let got = ranks(2, &case, &[("RNS_TEST_FAIL_RANK", how)], "");
        let code = got.status.code();
        assert!(code.is_some_and(|c| c != 0 && c != 124), "{how}: {code:?}");
        assert!(got.stdout.is_empty(), "{how}");
        assert!(!text(&got.stderr).contains("panicked"), "{how}");
    }
}

#[test]
fn a_batch_under_ranks_prints_what_one_process_prints() {
    // Every case as a line of one batch: under MPI the lines run one at a time, each
    // rank's collectives in the same order.
    let jobs: Vec<String> = cases().iter().map(|c| c.join(" ")).collect();
    let jobs = write("jobs.txt", &(jobs.join("\n") + "\n"));
    ranks_print_what_one_process_prints(&args(&["batch", &jobs]));
}
