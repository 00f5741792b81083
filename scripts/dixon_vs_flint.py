#!/usr/bin/env python3
"""Issue 14's CPU cases, whole `rns` process against FLINT (python-flint) in one run:
det 200^2 100-bit on one thread (RAYON_NUM_THREADS=1 against flint.ctx.threads = 1) and
solve 200^2 64-bit over Q on every core (against flint.ctx.threads = cores), each by
`--method dixon` and `--method multimodular`. Answers must agree exactly. Best of REPS.

Usage: scripts/dixon_vs_flint.py RNS_BINARY [N_DET] [N_SOLVE]
"""
import os
import random
import subprocess
import sys
import tempfile

import flint

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cli_vs_flint import best, flint_time, rand_matrix, rat_text, write  # noqa: E402

REPS = int(os.environ.get("REPS", "3"))


def rns_run(rns, args, threads):
    env = dict(os.environ, RAYON_NUM_THREADS=str(threads))

    def f():
        p = subprocess.run([rns, *args, "--backend", "cpu"], capture_output=True, text=True, env=env)
        if p.returncode != 0:
            sys.exit(f"rns failed: {p.stderr}")
        return p.stdout

    return best(f, REPS)


def main():
    rns = sys.argv[1]
    n_det = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    n_solve = int(sys.argv[3]) if len(sys.argv) > 3 else 200
    cores = os.cpu_count()
    rng = random.Random(14)
    d = tempfile.mkdtemp(prefix="rns-dixon-")
    a = rand_matrix(rng, n_det, n_det, 100)
    write(f"{d}/det.txt", a)
    fa = flint.fmpz_mat(a)
    sa, sb = rand_matrix(rng, n_solve, n_solve, 63), rand_matrix(rng, n_solve, 1, 63)
    write(f"{d}/sa.txt", sa)
    write(f"{d}/sb.txt", sb)
    qa, qb = flint.fmpq_mat(flint.fmpz_mat(sa)), flint.fmpq_mat(flint.fmpz_mat(sb))
    cases = [
        (f"det {n_det}^2 100-bit, 1 thread", ["det", f"{d}/det.txt"], 1, lambda: str(fa.det()) + "\n"),
        (f"solve {n_solve}^2 64-bit, {cores} threads", ["solve", f"{d}/sa.txt", f"{d}/sb.txt"], cores,
         lambda: f"{n_solve} 1\n" + rat_text(qa.solve(qb)) + "\n"),
    ]
    ok = True
    print(f"whole rns process (--backend cpu, best of {REPS}) against FLINT {flint.__version__} (compute only)")
    for what, args, threads, flint_f in cases:
        tf, want = flint_time(flint_f, threads, REPS)
        line = f"{what:<34} flint {tf * 1e3:8.1f} ms"
        for method in ["dixon", "multimodular"]:
            t, out = rns_run(rns, args + ["--method", method], threads)
            same = out == want
            ok &= same
            line += f" | rns {method} {t * 1e3:8.1f} ms = {tf / t:5.2f}x FLINT{'' if same else ' ANSWER DIFFERS'}"
        print(line, flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
