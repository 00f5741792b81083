#!/usr/bin/env python3
"""The multimodular FLINT baseline for `examples/resultant.rs`, same inputs, same host.

    python3 scripts/flint_resultant_xy.py DIR [--primes K] [--mpoly]

For each instance in DIR (written by `examples/resultant.rs DIR`): over the same primes
(the first K when given, then scaled to all of them: every prime costs the same) and the
same points (per prime, the first D + 1 of x = 0, 1, 2, ... where neither leading
coefficient in y vanishes), FLINT's nmod_poly resultant of f(a, y) and g(a, y) modulo p,
on one core. Only the resultant calls are timed: the evaluations run in Python, and
FLINT's interpolation and CRT are not counted, so the baseline is a lower bound on a
multimodular FLINT program. Every value is checked against rns's answer at that point.
With --mpoly, FLINT's own bivariate resultant (fmpz_mpoly.resultant) is timed too.
"""
import sys, time, os
import flint

sys.set_int_max_str_digits(0)  # the answers have tens of thousands of digits


def read_terms(path):
    rows = {}
    for line in open(path):
        c, i, j = map(int, line.split())
        rows.setdefault(j, {})[i] = c
    dy = max(rows)
    dx = max(max(r) for r in rows.values())
    return [[rows.get(j, {}).get(i, 0) for i in range(dx + 1)] for j in range(dy + 1)]


def run(d, limit, mpoly):
    name = os.path.basename(d.rstrip("/"))
    fy, fx, gy, gx, deg = map(int, open(f"{d}/meta").read().split())
    F, G = read_terms(f"{d}/f"), read_terms(f"{d}/g")
    primes = [int(p) for p in open(f"{d}/primes").read().split()]
    result = [int(c) for c in open(f"{d}/result").read().split()]
    timing = dict(l.split() for l in open(f"{d}/timing"))
    used = primes[:limit] if limit else primes
    t_res = t_eval = 0.0
    pairs = 0
    for p in used:
        fr = [flint.nmod_poly(r, p) for r in F]
        gr = [flint.nmod_poly(r, p) for r in G]
        r_p = flint.nmod_poly(result, p)
        t = time.perf_counter()
        polys, a = [], 0
        while len(polys) < deg + 1:
            if int(fr[-1](a)) != 0 and int(gr[-1](a)) != 0:
                fa = flint.nmod_poly([r(a) for r in fr], p)
                ga = flint.nmod_poly([r(a) for r in gr], p)
                polys.append((a, fa, ga))
            a += 1
        t_eval += time.perf_counter() - t
        t = time.perf_counter()
        vals = [fa.resultant(ga) for _, fa, ga in polys]
        t_res += time.perf_counter() - t
        for (a, _, _), v in zip(polys, vals):
            if int(v) != int(r_p(a)):
                print(f"{name}: FLINT and rns DIFFER at p = {p}, x = {a}")
                return 1
        pairs += len(polys)
    scale = len(primes) / len(used)
    flint_s = t_res * scale
    print(f"{name}: FLINT nmod_poly resultants, {len(used)} of {len(primes)} primes x {deg + 1} points "
          f"({pairs} resultants, all equal to rns's answer there): {t_res:.3f} s, "
          f"{t_res / pairs * 1e6:.2f} us each; all primes: {flint_s:.3f} s "
          f"(Python evaluation, not counted: {t_eval * scale:.3f} s)")
    for key in ("gpu_total_ms", "cpu_total_ms"):
        if key in timing:
            ours = float(timing[key]) / 1e3
            print(f"{name}: rns {key[:3]} end to end {ours * 1e3:.3f} ms: {flint_s / ours:.1f}x the FLINT baseline")
    if mpoly:
        ctx = flint.fmpz_mpoly_ctx.get(("x", "y"))
        mk = lambda R: ctx.from_dict({(i, j): c for j, row in enumerate(R) for i, c in enumerate(row) if c})
        f, g = mk(F), mk(G)
        t = time.perf_counter()
        r = f.resultant(g, "y")
        t = time.perf_counter() - t
        coeffs = [0] * (deg + 1)
        for (i, _), c in r.to_dict().items():
            coeffs[i] = int(c)
        while len(coeffs) > 1 and coeffs[-1] == 0:
            coeffs.pop()
        verdict = "equal to" if coeffs == result else "DIFFERENT from"
        print(f"{name}: FLINT fmpz_mpoly resultant (its own bivariate algorithm): {t:.3f} s, {verdict} rns's answer")
        if "gpu_total_ms" in timing:
            print(f"{name}: rns gpu {t / (float(timing['gpu_total_ms']) / 1e3):.0f}x faster than fmpz_mpoly")
        if coeffs != result:
            return 1
    return 0


def main():
    args = sys.argv[1:]
    limit = int(args[args.index("--primes") + 1]) if "--primes" in args else 0
    mpoly = "--mpoly" in args
    dirs = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--primes")]
    status = 0
    for d in dirs:
        status |= run(d, limit, mpoly)
    sys.exit(status)


if __name__ == "__main__":
    main()
