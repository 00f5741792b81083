#!/usr/bin/env python3
"""The whole `rns` CLI process against FLINT (python-flint) on the same inputs, with the
answers compared: the cases of issue "End-to-end speed".

For each case the script writes a seeded random input, runs `rns ... --stats` (best of
REPS runs of the whole process, with `--backend auto`, and `cpu`/`gpu` for reference),
reads from its statistics the CUDA start-up it waited for, and times FLINT's computation
alone (the matrices built beforehand) with 1 thread and with all cores
(`flint.ctx.threads`; FLINT1=0 skips the single thread). Answers must agree exactly.

With `--median` each whole-process time is the median of REPS runs (not the best), and
each line ends with issue 39's check of `auto`: within 10% (or 20 ms) of the better of
`cpu` and `gpu`.

PRODUCT_N sets the exact product's order (256; 64 with --quick).

Usage: scripts/cli_vs_flint.py RNS_BINARY [--quick] [--median]
           [--only det,product,modmul,moddet,solve,inverse,rank,det1000,resultant]
"""
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import flint

P = 2147483629  # 2^31 - 19, a prime in (2^30, 2^31)
REPS = int(os.environ.get("REPS", "3"))
MEDIAN = "--median" in sys.argv
FLINT1 = os.environ.get("FLINT1", "1") != "0"


def rand_matrix(rng, rows, cols, bits):
    return [[rng.randrange(-(1 << bits) + 1, 1 << bits) for _ in range(cols)] for _ in range(rows)]


def write(path, m):
    with open(path, "w") as f:
        f.write(f"{len(m)} {len(m[0])}\n")
        for row in m:
            f.write(" ".join(map(str, row)) + "\n")


def run_rns(rns, args, backend):
    """Best (or, with --median, median) wall time (s) of the whole process, its stdout and
    the backend it used, and the CUDA start it waited for (ms) in that run."""
    runs = []
    for _ in range(REPS):
        # The answer goes to a file, read after the timing: a pipe read by this script
        # would time Python's reading too.
        with tempfile.TemporaryFile() as out:
            t = time.perf_counter()
            p = subprocess.run([rns, *args, "--backend", backend, "--stats"], stdout=out,
                               stderr=subprocess.PIPE, text=True)
            dt = time.perf_counter() - t
            out.seek(0)
            stdout = out.read().decode()
        if p.returncode != 0:
            return None, p.stderr.strip(), 0.0
        m = re.search(r"([0-9.]+) ms of it waited for", p.stderr)
        used = re.search(r"^backend (\w+)", p.stderr, re.M)
        runs.append((dt, (stdout, used.group(1) if used else "?"), float(m.group(1)) if m else 0.0))
    runs.sort(key=lambda r: r[0])
    return runs[len(runs) // 2] if MEDIAN else runs[0]


def best(f, reps):
    """The shortest of `reps` timed calls of `f` (s), and the last result."""
    t_best, out = None, None
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t
        t_best = dt if t_best is None else min(t_best, dt)
    return t_best, out


def flint_time(f, threads, reps):
    flint.ctx.threads = threads
    return best(f, reps)


def matrix_text(m):
    return "\n".join(" ".join(str(int(m[i, j])) for j in range(m.ncols())) for i in range(m.nrows()))


def scalar(r):
    return f"{r}\n"


def matrix_file(m):
    return f"{m.nrows()} {m.ncols()}\n" + matrix_text(m) + "\n"


def rat_file(x):
    return f"{x.nrows()} {x.ncols()}\n" + rat_text(x) + "\n"


def rat_text(x):
    parts = []
    for i in range(x.nrows()):
        row = []
        for j in range(x.ncols()):
            q = x[i, j]
            row.append(str(q.p) if q.q == 1 else f"{q.p}/{q.q}")
        parts.append(" ".join(row))
    return "\n".join(parts)


def main():
    rns = sys.argv[1]
    quick = "--quick" in sys.argv
    only = None
    if "--only" in sys.argv:
        only = sys.argv[sys.argv.index("--only") + 1].split(",")
    rng = random.Random(12)
    d = tempfile.mkdtemp(prefix="rns-cli-flint-")
    n_det, n_prod, n_mod, n_solve = (100, 64, 256, 60) if quick else (500, 256, 1024, 200)
    n_prod = int(os.environ.get("PRODUCT_N", n_prod))
    cases = []
    a = rand_matrix(rng, n_det, n_det, 63)
    write(f"{d}/det.txt", a)
    fa = flint.fmpz_mat(a)
    cases.append(("det", f"det {n_det}^2 64-bit", ["det", f"{d}/det.txt"], (fa.det, scalar), 1))
    a, b = rand_matrix(rng, n_prod, n_prod, 999), rand_matrix(rng, n_prod, n_prod, 999)
    write(f"{d}/pa.txt", a)
    write(f"{d}/pb.txt", b)
    pa, pb = flint.fmpz_mat(a), flint.fmpz_mat(b)
    cases.append(("product", f"exact product {n_prod}^2 1000-bit", ["matmul", f"{d}/pa.txt", f"{d}/pb.txt"],
                  (lambda: pa * pb, matrix_file), REPS))
    a, b = rand_matrix(rng, n_mod, n_mod, 30), rand_matrix(rng, n_mod, n_mod, 30)
    a = [[x % P for x in r] for r in a]
    b = [[x % P for x in r] for r in b]
    write(f"{d}/ma.txt", a)
    write(f"{d}/mb.txt", b)
    ma, mb = flint.nmod_mat(a, P), flint.nmod_mat(b, P)
    cases.append(("modmul", f"product {n_mod}^2 mod p", ["matmul", f"{d}/ma.txt", f"{d}/mb.txt", "--mod", str(P)],
                  (lambda: ma * mb, matrix_file), REPS))
    cases.append(("moddet", f"det {n_mod}^2 mod p", ["det", f"{d}/ma.txt", "--mod", str(P)],
                  (ma.det, lambda r: f"{int(r)}\n"), REPS))
    a, b = rand_matrix(rng, n_solve, n_solve, 63), rand_matrix(rng, n_solve, 1, 63)
    write(f"{d}/sa.txt", a)
    write(f"{d}/sb.txt", b)
    sa, sb = flint.fmpq_mat(flint.fmpz_mat(a)), flint.fmpq_mat(flint.fmpz_mat(b))
    cases.append(("solve", f"solve {n_solve}^2 64-bit over Q", ["solve", f"{d}/sa.txt", f"{d}/sb.txt"],
                  (lambda: sa.solve(sb), rat_file), 1))
    n_inv = 40 if quick else 200
    a = rand_matrix(rng, n_inv, n_inv, 63)
    write(f"{d}/ia.txt", a)
    ia = flint.fmpq_mat(flint.fmpz_mat(a))
    cases.append(("inverse", f"inverse {n_inv}^2 64-bit over Q", ["inverse", f"{d}/ia.txt"],
                  (ia.inv, rat_file), 1))
    a = rand_matrix(rng, n_inv * 5, n_inv * 5, 63)
    write(f"{d}/ra.txt", a)
    ra = flint.fmpz_mat(a)
    cases.append(("rank", f"rank {n_inv * 5}^2 64-bit", ["rank", f"{d}/ra.txt"], (ra.rank, scalar), 1))
    n_big = 200 if quick else 1000
    a = rand_matrix(rng, n_big, n_big, 63)
    write(f"{d}/det1000.txt", a)
    fb = flint.fmpz_mat(a)
    cases.append(("det1000", f"det {n_big}^2 64-bit", ["det", f"{d}/det1000.txt"], (fb.det, scalar), 1))
    deg = 100 if quick else 500
    rf = [rng.randrange(-(1 << 999) + 1, 1 << 1000) or 1 for _ in range(deg + 1)]
    rg = [rng.randrange(-(1 << 999) + 1, 1 << 1000) or 1 for _ in range(deg + 1)]
    for name, c in (("rf", rf), ("rg", rg)):
        with open(f"{d}/{name}.txt", "w") as f:
            f.write(" ".join(map(str, c)) + "\n")
    pf, pg = flint.fmpz_poly(rf), flint.fmpz_poly(rg)
    cases.append(("resultant", f"resultant deg {deg} 1000-bit", ["resultant", f"{d}/rf.txt", f"{d}/rg.txt"],
                  (lambda: pf.resultant(pg), scalar), 1))
    cores = os.cpu_count()
    ok = True
    print(f"rns CLI (whole process, {'median' if MEDIAN else 'best'} of {REPS}) against FLINT {flint.__version__} (compute only), {cores} cores")
    for name, what, args, (flint_f, text_of), reps in cases:
        if only and name not in only:
            continue
        # FLINT's computation alone is timed; its answer is written as text afterwards.
        f1 = flint_time(flint_f, 1, reps)[0] if FLINT1 else float("nan")
        fall, result = flint_time(flint_f, cores, reps)
        want = text_of(result)
        line = f"{what:<32} flint 1 thread {f1 * 1e3:9.1f} ms, {cores} threads {fall * 1e3:9.1f} ms"
        times = {}
        for backend in ["auto", "cpu", "gpu"]:
            t, out, waited = run_rns(rns, args, backend)
            if t is None:
                line += f" | rns {backend}: unavailable"
                continue
            times[backend] = t
            text, used = out
            same = text == want
            ok &= same
            line += (f" | rns {backend}->{used} {t * 1e3:8.1f} ms ({fall / t:5.2f}x FLINT all cores"
                     f"{'' if waited == 0 else f', minus CUDA start waited {waited:.0f} ms: {(t * 1e3 - waited):.1f} ms'})"
                     f"{'' if same else ' ANSWER DIFFERS'}")
        if MEDIAN and "auto" in times:
            better = min(t for b, t in times.items() if b != "auto")
            within = times["auto"] <= max(better * 1.1, better + 0.020)
            line += f" | auto/better {times['auto'] / better:.2f}: {'within' if within else 'OUTSIDE'} 10% or 20 ms"
        print(line, flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
