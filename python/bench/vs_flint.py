#!/usr/bin/env python3
"""rns against python-flint with the data already in Python objects on both sides.

For each operation: the same seeded inputs as Python ints, the answers compared, and
the times of
  rns        rns.<op>(lists of ints): conversion in and out included
  rns Matrix rns.<op>(rns.Matrix) where a matrix is prebuilt (no conversion in)
  library    the library's own time inside that call (Engine.last_seconds)
  FLINT-1    python-flint on a prebuilt fmpz_mat / fmpz_poly, one thread
  FLINT-N    the same with all threads (flint.ctx.threads)
and the ratios FLINT / rns. The Python overhead is (rns − library) / rns.
It also times Python int conversion through binary and through decimal strings.

    python bench/vs_flint.py [--quick] [--backend auto|cpu|gpu] [--only det,matmul,...]

det1000 and solve1000 (1000² 64-bit) run only when --only names them.
"""

import argparse
import os
import random
import sys
import time

import flint

import rns


def best(f, reps, engine=None):
    """The shortest of `reps` runs of f, its result, and the library's own time in that
    run (from `engine`, when given)."""
    t, out, lib = float("inf"), None, float("nan")
    for _ in range(reps):
        s = time.perf_counter()
        out = f()
        d = time.perf_counter() - s
        if d < t:
            t, lib = d, engine.last_seconds if engine else lib
    return t, out, lib


def rand_rows(rng, n, m, bits):
    return [[rng.randrange(-(2**bits) + 1, 2**bits) for _ in range(m)] for _ in range(n)]


def fmpq_rows(x):
    from fractions import Fraction

    return [[Fraction(int(x[i, j].p), int(x[i, j].q)) for j in range(x.ncols())] for i in range(x.nrows())]


def fmpz_rows(x):
    return [[int(x[i, j]) for j in range(x.ncols())] for i in range(x.nrows())]


def cases(quick):
    """(name, build) pairs; build(rng) gives (rns call on lists, rns call on prebuilt, flint call, to-python of flint's answer)."""
    s = 0.25 if quick else 1.0

    def det(n, bits):
        def build(rng):
            a = rand_rows(rng, n, n, bits)
            fa, m = flint.fmpz_mat(a), rns.Matrix(a)
            return (lambda be: rns.det(a, backend=be)), (lambda be: rns.det(m, backend=be)), fa.det, int

        return f"det {n}² {bits}-bit", build

    def matmul(n, bits):
        def build(rng):
            a, b = rand_rows(rng, n, n, bits), rand_rows(rng, n, n, bits)
            fa, fb = flint.fmpz_mat(a), flint.fmpz_mat(b)
            ma, mb = rns.Matrix(a), rns.Matrix(b)
            return (
                (lambda be: rns.matmul(a, b, backend=be)),
                (lambda be: rns.matmul(ma, mb, backend=be)),
                (lambda: fa * fb),
                fmpz_rows,
                # FLINT as a list user meets it: lists in, the product, lists out.
                (lambda: fmpz_rows(flint.fmpz_mat(a) * flint.fmpz_mat(b))),
            )

        return f"matmul {n}² {bits}-bit", build

    def solve(n, bits):
        def build(rng):
            a, b = rand_rows(rng, n, n, bits), rand_rows(rng, n, 1, bits)
            fa, fb = flint.fmpz_mat(a), flint.fmpz_mat(b)
            ma, mb = rns.Matrix(a), rns.Matrix(b)
            return (
                (lambda be: rns.solve(a, b, backend=be)),
                (lambda be: rns.solve(ma, mb, backend=be)),
                (lambda: fa.solve(fb)),
                fmpq_rows,
            )

        return f"solve {n}² {bits}-bit over Q", build

    def resultant(d, bits):
        def build(rng):
            f = [rng.randrange(-(2**bits) + 1, 2**bits) for _ in range(d + 1)]
            g = [rng.randrange(-(2**bits) + 1, 2**bits) for _ in range(d + 1)]
            f[-1] = f[-1] or 1
            g[-1] = g[-1] or 1
            ff, fg = flint.fmpz_poly(f), flint.fmpz_poly(g)
            return (
                (lambda be: rns.resultant(f, g, backend=be)),
                None,
                (lambda: ff.resultant(fg)),
                int,
            )

        return f"resultant deg {d} {bits}-bit", build

    return {
        "det": det(int(500 * s), 64),
        "matmul": matmul(int(256 * s), 1000),
        "resultant": resultant(int(500 * s), 1000),
        "solve": solve(int(200 * s), 64),
        # Only when named in --only (FLINT takes tens of seconds on them).
        "det1000": det(int(1000 * s), 64),
        "matmul1024": matmul(int(1024 * s), 1000),
        "solve1000": solve(int(1000 * s), 64),
    }


LARGE = {"det1000", "solve1000", "matmul1024"}


def conversions(quick):
    """Python int → rug → Python int through binary and decimal, per int."""
    rng = random.Random(5)
    count = 20000 if quick else 100000
    print(f"\nint conversion, {count} ints each way (round trip, µs per int):")
    for bits in (63, 64 * 4, 1000, 10000):
        values = [rng.randrange(-(2**bits), 2**bits) for _ in range(count if bits < 5000 else count // 20)]
        row = []
        for method in ("binary", "decimal"):
            try:
                t, out, _ = best(lambda: rns._rns.roundtrip(values, method), 3)
                assert out == values
                row.append(f"{method} {t / len(values) * 1e6:8.3f}")
            except ValueError as e:  # CPython's limit on decimal conversion of long ints
                row.append(f"{method} refused ({str(e)[:40]}…)")
        print(f"  {bits:>6}-bit: " + "   ".join(row))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    threads = os.cpu_count()
    print(f"rns {args.backend} (usable: {rns.backends()}), python-flint {flint.__version__}, {threads} threads")
    if args.backend != "cpu":
        rns.det([[1]], backend=args.backend)  # open the device before timing
    engine = rns._engine(args.backend)
    header = f"{'operation':32} {'rns':>9} {'Matrix':>9} {'library':>9} {'overhead':>8} {'FLINT-1':>9} {'FLINT-N':>9} {'×F1':>7} {'×FN':>7}"
    print(header)
    only = set(args.only.split(",")) - {""}
    status = 0
    for key, (name, build) in cases(args.quick).items():
        if (only and key not in only) or (key in LARGE and key not in only):
            continue
        rng = random.Random(1)
        on_lists, on_prebuilt, in_flint, to_py, *flint_lists = build(rng)
        reps = 1 if key in LARGE else 3
        t_rns, got, lib = best(lambda: on_lists(args.backend), reps, engine)
        t_pre = best(lambda: on_prebuilt(args.backend), reps)[0] if on_prebuilt else float("nan")
        flint.ctx.threads = 1
        t_f1, want, _ = best(in_flint, 1)
        flint.ctx.threads = threads
        t_fn = best(in_flint, 1 if args.quick or key in LARGE else 2)[0]
        want = to_py(want)
        ok = got == want
        status |= not ok
        overhead = (t_rns - lib) / t_rns
        print(
            f"{name:32} {t_rns:9.4f} {t_pre:9.4f} {lib:9.4f} {overhead:8.1%} {t_f1:9.4f} {t_fn:9.4f}"
            f" {t_f1 / t_rns:7.1f} {t_fn / t_rns:7.1f}" + ("" if ok else "  ANSWERS DIFFER")
        )
        if on_prebuilt:
            print(f"{'':32} rns.Matrix in and out: {t_fn / t_pre:.1f}× FLINT-N's product alone")
        if flint_lists:
            t_fl = best(flint_lists[0], 1)[0]
            print(f"{'':32} FLINT-N from and to lists {t_fl:.4f} s: rns on lists {t_fl / t_rns:.2f}× that")
    conversions(args.quick)
    sys.exit(status)


if __name__ == "__main__":
    main()
