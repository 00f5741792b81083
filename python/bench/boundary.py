#!/usr/bin/env python3
"""What a Python call costs beside the library's own time for the same work.

For each operation, size and input type (numpy int64, lists of ints, rns.Matrix,
python-flint's fmpz_mat / nmod_mat), the best of --reps calls of rns.<op>(...) on a warm
Engine, and in that call the library's own time (Engine.last_seconds: the computation
without the conversions in and out). The ratio call / library is the figure: 1.0 means
the boundary costs nothing. Answers are checked against the numpy input's.

    python -u bench/boundary.py [--backend cpu|gpu|auto] [--sizes 1000,2000]
        [--ops det,inverse,solve,rank,matmul,det_z,solve_z,solve_zd,matmul_z,matmul_big]
        [--inputs numpy,list,Matrix,flint] [--flint-max 4000] [--reps 3]

Modulo p = 2^31 - 19 unless the op ends in _z (over Z, 64-bit entries, solve_z over Q
with one right-hand side; det_z and solve_z only up to --z-max) or is solve_zd (solve_z
with denominator=True: numerators over one denominator) or is matmul_big (the
exact product of 1000-bit entries, rns.Matrix in and out,
lists: sizes up to --big-max). For python-flint inputs it also prints the time of
entries(), python-flint's fastest export, which the call cannot beat.
"""

import argparse
import os
import random
import sys
import time

import numpy as np

import rns

P = 2**31 - 19


def best(f, reps, engine):
    """The shortest of `reps` runs of f: (seconds, library seconds, result)."""
    t, lib, out = float("inf"), float("nan"), None
    for _ in range(reps):
        s = time.perf_counter()
        out = f()
        d = time.perf_counter() - s
        if d < t:
            t, lib = d, engine.last_seconds
    return t, lib, out


def same(x, y):
    """Whether two results (any types of the table) hold the same entries."""
    rows = lambda v: v.tolist() if hasattr(v, "tolist") else v  # noqa: E731
    if isinstance(x, tuple):  # (N, d) of denominator=True
        return same(x[0], y[0]) and int(x[1]) == int(y[1])
    if isinstance(x, int) or isinstance(y, int):
        return int(x) == int(y)
    a, b = rows(x), rows(y)
    return [[int(e) for e in r] for r in a] == [[int(e) for e in r] for r in b]


def inputs(kind, a, flint):
    """The numpy matrix `a` as the input type `kind` (mod p for nmod_mat)."""
    if kind == "numpy":
        return a
    if kind == "list":
        return a.tolist()
    if kind == "Matrix":
        return rns.Matrix(a)
    return flint.nmod_mat(flint.fmpz_mat(a.tolist()), P)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--sizes", default="1000,2000,4000,8000")
    ap.add_argument("--ops", default="det,inverse,solve,rank,matmul,det_z,matmul_z,matmul_big")
    ap.add_argument("--inputs", default="numpy,list,Matrix,flint")
    ap.add_argument("--flint-max", type=int, default=4000)
    ap.add_argument("--z-max", type=int, default=4000)
    ap.add_argument("--big-max", type=int, default=4096)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    try:
        import flint
    except ImportError:
        flint = None
    engine = rns.Engine(args.backend)
    kinds = args.inputs.split(",")
    print(f"# rns boundary benchmark: backend={args.backend} ({', '.join(rns.backends())} usable), "
          f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}", flush=True)
    print(f"{'op':<10} {'n':>5} {'input':<8} {'call s':>9} {'library s':>10} {'ratio':>6}  note", flush=True)
    rng = np.random.default_rng(1)
    for n in [int(x) for x in args.sizes.split(",")]:
        a64 = rng.integers(-(2**62), 2**62, size=(n, n), dtype=np.int64)
        small = rng.integers(-(2**31), 2**31, size=(n, n), dtype=np.int64)
        b = rng.integers(-(2**62), 2**62, size=(n, 1), dtype=np.int64)
        for op in args.ops.split(","):
            over_z = op.endswith("_z") or op == "solve_zd"
            if op in ("det_z", "solve_z", "solve_zd") and n > args.z_max:
                continue
            if op == "matmul_big":
                if n <= args.big_max:
                    big_case(engine, n, args.reps)
                continue
            a = small if op == "matmul_z" else a64
            want = None
            for kind in kinds:
                if kind == "flint" and (flint is None or n > args.flint_max):
                    continue
                if kind == "flint" and over_z:
                    arg = flint.fmpz_mat(a.tolist())
                else:
                    arg = inputs(kind, a, flint)
                rhs = b if kind == "numpy" else (b.tolist() if kind != "Matrix" else rns.Matrix(b))
                if kind == "flint":
                    rhs = flint.fmpz_mat(b.tolist())
                    if not over_z:
                        rhs = flint.nmod_mat(rhs, P)
                mod = None if over_z else P
                call = {
                    "det": lambda: engine.det(arg, mod=mod),
                    "rank": lambda: engine.rank(arg, mod=mod),
                    "inverse": lambda: engine.inverse(arg, mod=mod),
                    "solve": lambda: engine.solve(arg, rhs, mod=mod),
                    "matmul": lambda: engine.matmul(arg, arg, mod=mod),
                    "det_z": lambda: engine.det(arg),
                    "solve_z": lambda: engine.solve(arg, rhs),
                    "solve_zd": lambda: engine.solve(arg, rhs, denominator=True),
                    "matmul_z": lambda: engine.matmul(arg, arg),
                }[op]
                t, lib, out = best(call, args.reps, engine)
                note = ""
                if want is None:
                    want = out
                elif not same(out, want):
                    note = "DIFFERENT ANSWER "
                if kind == "flint":
                    e, _, _ = best(lambda: arg.entries(), 1, engine)
                    note += f"entries() {e:.3f} s: call/entries {t / e:.2f}"
                label = kind if kind != "flint" else ("fmpz_mat" if over_z else "nmod_mat")
                print(f"{op:<10} {n:>5} {label:<8} {t:9.4f} {lib:10.4f} {t / lib:6.2f}  {type(out).__name__} {note}", flush=True)
                del out


def big_case(engine, n, reps):
    """The exact product of n×n matrices of 1000-bit entries: rns.Matrix in and out, and
    lists in and out; the Matrix built from lists once (its time and per-int cost)."""
    r = random.Random(n)
    pool = [r.getrandbits(1000) - (1 << 999) for _ in range(4 * n)]
    rows = [[pool[(i * 7 + j * 3) % len(pool)] for j in range(n)] for i in range(n)]
    s = time.perf_counter()
    m = rns.Matrix(rows)
    built = time.perf_counter() - s
    print(f"{'Matrix()':<10} {n:>5} {'list':<8} {built:9.4f} {'':>10} {'':>6}  {built / n / n * 1e6:.3f} µs an int", flush=True)
    t, lib, out = best(lambda: engine.matmul(m, m), reps, engine)
    print(f"{'matmul_big':<10} {n:>5} {'Matrix':<8} {t:9.4f} {lib:10.4f} {t / lib:6.2f}  1000-bit, {type(out).__name__}", flush=True)
    s = time.perf_counter()
    out.tolist()
    print(f"{'tolist()':<10} {n:>5} {'Matrix':<8} {time.perf_counter() - s:9.4f}", flush=True)
    del out
    if n <= 2048:
        t, lib, out = best(lambda: engine.matmul(rows, rows), 1, engine)
        print(f"{'matmul_big':<10} {n:>5} {'list':<8} {t:9.4f} {lib:10.4f} {t / lib:6.2f}  1000-bit", flush=True)


if __name__ == "__main__":
    main()
