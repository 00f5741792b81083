#!/usr/bin/env python3
"""The scaling table of bivariate resultants (issue 36, item 3).

For each shape `D:BITS`, two dense random polynomials f, g in Z[x, y] of degree D in x
and in y with BITS-bit coefficients (seeded by the shape), and the whole
`rns resultant-xy f g` process on BACKEND (default gpu) with its `--stats`: the degree
bound, the primes and the compute stage. Checked two ways:

* where FLINT's own bivariate resultant (python-flint's `fmpz_mpoly.resultant`, one
  thread) is predicted to finish under FLINT_CAP seconds (default 120; the previous
  degree's time of the same coefficient size times (ratio of degrees)^8, about how it
  grew here; before the first, 0.3 s at degree 10 for 64 bits), the answers are
  compared coefficient by coefficient;
* always, at two points x = a: our polynomial's value against FLINT's univariate
  resultant of f(a, y) and g(a, y) (a chosen where neither leading coefficient in y
  vanishes), which is exact and costs a fraction of a second at every size here.

    scripts/resultant_xy_scaling.py RNS_BINARY "D:BITS ..." > table.csv
"""
import csv
import os
import random
import re
import subprocess
import sys
import tempfile
import time

import flint

CAP = float(os.environ.get("FLINT_CAP", "120"))
BACKEND = os.environ.get("BACKEND", "gpu")
LIMIT = float(os.environ.get("RNS_LIMIT", "300"))


def dense(rng, d, bits):
    """A dense polynomial as {(i, j): c}, i the power of x, j of y; lc in y nonzero."""
    lo, hi = -(2**bits) + 1, 2**bits
    c = {(i, j): rng.randrange(lo, hi) for i in range(d + 1) for j in range(d + 1)}
    c[(d, d)] = c[(d, d)] or 1
    return c


def write(path, p):
    with open(path, "w") as f:
        f.write("".join(f"{c} {i} {j}\n" for (i, j), c in p.items() if c))


def at(p, a, d):
    """p(a, y) as an fmpz_poly in y."""
    powers = [flint.fmpz(a) ** i for i in range(d + 1)]
    return flint.fmpz_poly([sum(p[(i, j)] * powers[i] for i in range(d + 1)) for j in range(d + 1)])


def value(coeffs, a):
    """Horner's rule (over fmpz when the coefficients are)."""
    v = 0
    for c in reversed(coeffs):
        v = v * a + c
    return v


def main():
    rns, shapes = sys.argv[1], sys.argv[2].split()
    out = csv.writer(sys.stdout)
    out.writerow(["deg", "bits", "degree_bound", "primes", "rns_whole_s", "rns_compute_s",
                  "flint1_s", "same_as_flint", "checked_at_points"])
    ctx = flint.fmpz_mpoly_ctx.get(("x", "y"))
    last = {}  # bits → (degree, FLINT's seconds)
    with tempfile.TemporaryDirectory() as tmp:
        for shape in shapes:
            d, bits = map(int, shape.split(":"))
            rng = random.Random(d * 100_003 + bits)
            f, g = dense(rng, d, bits), dense(rng, d, bits)
            write(f"{tmp}/f", f)
            write(f"{tmp}/g", g)
            t = time.perf_counter()
            run = subprocess.run([rns, "resultant-xy", f"{tmp}/f", f"{tmp}/g", "--backend", BACKEND,
                                  "--stats"], capture_output=True, text=True, timeout=LIMIT)
            whole = time.perf_counter() - t
            if run.returncode != 0:
                out.writerow([d, bits, "-", "-", f"failed: {run.stderr.strip()[-200:]}", "", "", "", ""])
                sys.stdout.flush()
                continue
            # fmpz parses (and evaluates) by GMP: subquadratic, unlike Python's int.
            ours = [flint.fmpz(c) for c in run.stdout.split()]
            stats = run.stderr
            bound = re.search(r"degree bound (\d+)", stats).group(1)
            primes = re.search(r"(\d+) primes", stats).group(1)
            compute = float(re.search(r"^\s*compute:\s+([\d.]+) ms", stats, re.M).group(1)) / 1e3
            # Two points where neither leading coefficient in y vanishes.
            lf = [f[(i, d)] for i in range(d + 1)]
            lg = [g[(i, d)] for i in range(d + 1)]
            points = [a for a in range(-7, 100) if value(lf, a) and value(lg, a)][:2]
            checked = all(value(ours, flint.fmpz(a)) == at(f, a, d).resultant(at(g, a, d)) for a in points)
            flint_s, same = "skipped", "-"
            # Before FLINT has run on this coefficient size: about 0.3 s at degree 10 with
            # 64-bit coefficients (the H100 host), in proportion to the bits.
            prev = last.get(bits, (10, 0.3 * max(bits, 64) / 64))
            if prev[1] * (d / prev[0]) ** 8 <= CAP:
                ff, gg = ctx.from_dict(f), ctx.from_dict(g)
                t = time.perf_counter()
                r = ff.resultant(gg, "y")
                flint_s = time.perf_counter() - t
                last[bits] = (d, flint_s)
                theirs = [flint.fmpz(0)] * (r.degrees()[0] + 1)
                for (i, _), c in r.to_dict().items():
                    theirs[i] = c
                same = theirs == ours
                flint_s = f"{flint_s:.3f}"
            out.writerow([d, bits, bound, primes, f"{whole:.3f}", f"{compute:.3f}", flint_s,
                          same, f"{checked} at {points}"])
            sys.stdout.flush()


if __name__ == "__main__":
    main()
