#!/usr/bin/env python3
"""The operations of issue 53 (charpoly, minpoly, rref, nullspace) against python-flint, from
Python, answers compared. For each case: the rns call on the backend asked, the
library's own time in that call (Engine.last_seconds), the CPU backend where it is
quick enough, and FLINT with one thread and with all (flint.ctx.threads), each the best
of `--reps`. FLINT runs only below `--flint-cap` estimated seconds (from a smaller
size's time, scaled as n³·primes): its larger cases would take minutes.

    python bench/new_ops.py [--backend gpu] [--only charpoly200,...] [--reps 2]
"""

import argparse
import os
import random

import flint
from vs_flint import best

import rns

P = 2147483629


def rand(rng, rows, cols, bits):
    return [[rng.randrange(-(2**bits) + 1, 2**bits) for _ in range(cols)] for _ in range(rows)]


def low_rank_mod(rng, rows, cols, rank, p):
    """A rows × cols matrix of rank `rank` modulo p (a product of random factors)."""
    x = flint.nmod_mat([[rng.randrange(p) for _ in range(rank)] for _ in range(rows)], p)
    y = flint.nmod_mat([[rng.randrange(p) for _ in range(cols)] for _ in range(rank)], p)
    z = x * y
    return [[int(z[i, j]) for j in range(cols)] for i in range(rows)]


def low_rank_int(rng, n, rank, bits):
    """An n × n integer matrix of rank `rank`: a product of random thin factors."""
    x = flint.fmpz_mat(rand(rng, n, rank, bits))
    y = flint.fmpz_mat(rand(rng, rank, n, bits))
    z = x * y
    return [[int(z[i, j]) for j in range(n)] for i in range(n)]


def coeffs(poly):
    return [int(c) for c in poly.coeffs()]


def primitive(rows, k):
    import math

    out = []
    for t in range(k):
        c = [r[t] for r in rows]
        g = math.gcd(*c)
        last = [x for x in c if x != 0][-1]
        out.append([(1 if last > 0 else -1) * (x // g) for x in c])
    return out


def cases(rng):
    """name → (rns call(engine), FLINT call, answers equal?(rns, flint))."""
    out = {}
    for n in (200, 500):
        a = rand(rng, n, n, 63)
        fa = flint.fmpz_mat(a)
        out[f"charpoly{n}"] = (
            lambda e, a=a: e.charpoly(a),
            lambda fa=fa: fa.charpoly(),
            lambda r, f: r == coeffs(f),
        )
    for n in (1000, 2000, 4000):
        a = [[rng.randrange(P) for _ in range(n)] for _ in range(n)]
        na = flint.nmod_mat(a, P)
        out[f"charpolymod{n}"] = (
            lambda e, a=a: e.charpoly(a, mod=P),
            lambda na=na: na.charpoly(),
            lambda r, f: r == coeffs(f),
        )
    for n in (200, 500):
        a = rand(rng, n, n, 63)
        fa = flint.fmpz_mat(a)
        out[f"minpoly{n}"] = (
            lambda e, a=a: e.minpoly(a),
            lambda fa=fa: fa.minpoly(),
            lambda r, f: r == coeffs(f),
        )
    # Rank 50 of 100: degree at most 51 (fewer primes than the full bound), and about 50
    # generators (the cost grows as generators × degree × n², as FLINT's).
    low = [[int(x) for x in row] for row in low_rank_int(rng, 100, 50, 30)]
    flow = flint.fmpz_mat(low)
    out["minpolylow100"] = (lambda e: e.minpoly(low), lambda: flow.minpoly(), lambda r, f: r == coeffs(f))
    for n in (1000, 2000):
        a = [[rng.randrange(P) for _ in range(n)] for _ in range(n)]
        na = flint.nmod_mat(a, P)
        out[f"minpolymod{n}"] = (
            lambda e, a=a: e.minpoly(a, mod=P),
            lambda na=na: na.minpoly(),
            lambda r, f: r == coeffs(f),
        )
    for n, extra, deficit in ((1000, 100, 100), (2000, 50, 100), (4000, 100, 100)):
        a = low_rank_mod(rng, n, n + extra, n - deficit, P)
        na = flint.nmod_mat(a, P)
        out[f"rrefmod{n}"] = (
            lambda e, a=a: e.rref(a, mod=P),
            lambda na=na: na.rref(),
            lambda r, f: r[1] == f[1] and r[0] == [[int(f[0][i, j]) for j in range(f[0].ncols())] for i in range(f[0].nrows())],
        )
        out[f"nullspacemod{n}"] = (
            lambda e, a=a: e.nullspace(a, mod=P),
            lambda na=na: na.nullspace(),
            lambda r, f: r[1] == f[1] and r[0] == [[int(f[0][i, j]) for j in range(f[1])] for i in range(f[0].nrows())],
        )
    for n in (200, 1000):
        a = rand(rng, n, n + 10, 63)
        fa = flint.fmpz_mat(a)

        def same_null(r, f):
            x, k = f
            rows = [[int(x[i, j]) for j in range(x.ncols())] for i in range(x.nrows())]
            return r[1] == k and [list(c) for c in zip(*r[0])] == primitive(rows, k)

        out[f"nullspace{n}"] = (lambda e, a=a: e.nullspace(a), lambda fa=fa: fa.nullspace(), same_null)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--backend", default="gpu")
    ap.add_argument("--only", default="")
    ap.add_argument("--reps", type=int, default=2)
    ap.add_argument("--flint-cap", type=float, default=60.0)
    args = ap.parse_args()
    rng = random.Random(53)
    engine, cpu = rns.Engine(args.backend), rns.Engine("cpu")
    all_threads = os.cpu_count()
    print(f"backend {args.backend}; FLINT-1 and FLINT-{all_threads}; python-flint {flint.__version__}", flush=True)
    only = [o for o in args.only.split(",") if o]
    for name, (ours, theirs, same) in cases(rng).items():
        if only and name not in only:
            continue
        t, r, lib = best(lambda: ours(engine), args.reps, engine)
        line = f"{name:>16}: rns {t:8.3f} s (library {lib:8.3f} s)"
        if args.backend != "cpu" and not name.endswith(("2000", "4000")) and name not in ("charpoly500", "minpoly500"):
            tc, rc, _ = best(lambda: ours(cpu), 1)
            line += f"  cpu {tc:8.3f} s"
        times = {}
        for threads in (all_threads, 1):
            if threads == 1 and times.get(all_threads, 0) * all_threads / 4 > args.flint_cap:
                line += "  FLINT-1 skipped (over the cap)"
                continue
            if (name in ("charpoly500", "charpolymod2000", "nullspace1000") or name.endswith(("mod2000", "mod4000"))) and threads == 1:
                line += "  FLINT-1 skipped (minutes)"
                continue
            if name in ("minpoly500", "charpolymod4000") or (name.startswith("minpoly") and threads == 1 and name != "minpoly200"):
                # FLINT's minpoly runs on one thread: FLINT-1 is FLINT-all; 500² takes minutes.
                line += f"  FLINT-{threads} skipped"
                continue
            flint.ctx.threads = threads
            tf, f, _ = best(theirs, 1)
            times[threads] = tf
            line += f"  FLINT-{threads} {tf:8.3f} s ({tf / t:6.1f}×)"
            if threads == all_threads:
                line += f" same {same(r, f)}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
