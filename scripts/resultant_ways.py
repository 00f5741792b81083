#!/usr/bin/env python3
"""A univariate resultant three of the four ways in one run (the kernel's own figure is
`univariate_bench --kernels-only`): the whole `rns resultant --backend gpu --stats`
process and its compute stage (the library call, host in, host out), and Python's
`Engine("gpu").resultant` on lists of ints, twice each (or REPS times, from a shape's
third field), answers compared digit for digit.
The inputs (`inputs`, one seed per shape) are also those of scripts/resultant-scaling.sh,
which writes them with `--write`.

    scripts/resultant_ways.py RNS_BINARY DEG:BITS[:REPS] [DEG:BITS[:REPS] ...]
    scripts/resultant_ways.py --write DEG BITS DIR     # DIR/f and DIR/g
"""
import os
import random
import subprocess
import sys
import tempfile
import time


def inputs(deg, bits):
    rng = random.Random(deg * 1000 + bits)
    polys = []
    for _ in "fg":
        c = [rng.randrange(-(2**bits) + 1, 2**bits) for _ in range(deg + 1)]
        c[-1] = c[-1] or 1
        polys.append(c)
    return polys


def write(d, polys):
    """Two polynomials (from `inputs`) as text, one line each, in `d/f` and `d/g`."""
    for name, c in zip("fg", polys):
        with open(os.path.join(d, name), "w") as out:
            out.write(" ".join(map(str, c)) + "\n")


def main():
    sys.set_int_max_str_digits(0)
    if sys.argv[1] == "--write":
        write(sys.argv[4], inputs(int(sys.argv[2]), int(sys.argv[3])))
        return
    import rns

    binary, shapes = sys.argv[1], sys.argv[2:]
    eng = rns.Engine("gpu")
    for shape in shapes:
        deg, bits, *rest = map(int, shape.split(":"))
        reps = rest[0] if rest else 2
        f, g = inputs(deg, bits)
        with tempfile.TemporaryDirectory() as d:
            write(d, (f, g))
            answers = []
            for _ in range(reps):
                t0 = time.perf_counter()
                run = subprocess.run(
                    [binary, "resultant", f"{d}/f", f"{d}/g", "--backend", "gpu", "--stats"],
                    capture_output=True, text=True, check=True)
                whole = time.perf_counter() - t0
                stage = [ln.strip() for ln in run.stderr.splitlines() if ln.strip()]
                compute = next((ln for ln in stage if ln.startswith("compute:")), "compute: ?")
                answers.append(run.stdout.strip())
                print(f"deg {deg} {bits}-bit: whole CLI process {whole:.3f} s ({compute})", flush=True)
            if len(set(answers)) > 1:
                print(f"deg {deg} {bits}-bit: the CLI answers differ", flush=True)
                sys.exit(1)
            for ln in stage:
                print(f"  stats: {ln}", flush=True)
        for _ in range(reps):
            t0 = time.perf_counter()
            r = eng.resultant(f, g)
            t = time.perf_counter() - t0
            same = str(r) == answers[0]
            print(f"deg {deg} {bits}-bit: Python Engine('gpu').resultant {t:.3f} s, "
                  f"{r.bit_length()} bits, equals the CLI's: {same}", flush=True)
            if not same:
                sys.exit(1)


if __name__ == "__main__":
    main()
