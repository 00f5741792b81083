#!/usr/bin/env python3
"""Time FLINT (python-flint, one core) on the inputs that examples/linalg_bench.rs wrote,
check its answers against rns's fingerprints, and print the ratios to rns's times.

Usage: scripts/flint_linalg.py DIR      (pip install python-flint)
"""
import sys
import time

import flint

P61 = (1 << 61) - 1


def read(path):
    with open(path) as f:
        rows, cols = map(int, f.readline().split())
        return [[int(t) for t in f.readline().split()] for _ in range(rows)]


def fingerprint(values):
    s = 0
    for i, x in enumerate(values):
        s = (s + x * (i + 1)) % P61
    return s


def best(f, reps=3):
    out, ts = None, []
    for _ in range(reps):
        t = time.perf_counter()
        out = f()
        ts.append(time.perf_counter() - t)
    return min(ts) * 1e3, out


def main():
    d = sys.argv[1]
    rns = {}
    for line in open(f"{d}/rns_times.txt"):
        name, cpu, gpu = line.split()
        rns[name] = (float(cpu), float(gpu))
    ok = True

    def report(name, what, flint_ms, same):
        nonlocal ok
        ok &= same
        cpu, gpu = rns[name]
        line = f"{name:<8} {what:<40} flint {flint_ms:10.1f} ms   rns cpu {cpu:9.1f} ms ({flint_ms / cpu:6.1f}x)"
        if gpu > 0:
            line += f"   rns gpu {gpu:8.1f} ms ({flint_ms / gpu:7.1f}x)"
        print(line + ("" if same else "   ANSWERS DIFFER"), flush=True)

    primes = eval(open(f"{d}/matmul_primes.txt").read())
    a, b = read(f"{d}/matmul_a.txt"), read(f"{d}/matmul_b.txt")
    n = len(a)
    mats = [(flint.nmod_mat(a, p), flint.nmod_mat(b, p)) for p in primes]
    t_all, prods = best(lambda: [x * y for x, y in mats], reps=1)
    first = prods[0]
    fp = fingerprint(int(first[i, j]) for i in range(n) for j in range(n))
    same = fp == int(open(f"{d}/matmul_fp.txt").read())
    report("matmul", f"nmod_mat {n}² x{len(primes)} primes", t_all, same)
    print(f"         flint: {len(primes) * n ** 3 / (t_all * 1e-3) / 1e9:.2f} G mul-add/s on one core")

    a = flint.fmpz_mat(read(f"{d}/det_a.txt"))
    t, det = best(lambda: a.det(), reps=1)
    report("det", f"fmpz_mat_det {a.nrows()}²", t, str(det) == open(f"{d}/det_fp.txt").read().strip())

    a, b = flint.fmpz_mat(read(f"{d}/product_a.txt")), flint.fmpz_mat(read(f"{d}/product_b.txt"))
    t, c = best(lambda: a * b)
    fp = fingerprint(int(c[i, j]) for i in range(c.nrows()) for j in range(c.ncols()))
    report("product", f"fmpz_mat_mul {a.nrows()}², 1000-bit", t, fp == int(open(f"{d}/product_fp.txt").read()))

    a, b = flint.fmpq_mat(flint.fmpz_mat(read(f"{d}/solve_a.txt"))), flint.fmpq_mat(flint.fmpz_mat(read(f"{d}/solve_b.txt")))
    t, x = best(lambda: a.solve(b), reps=1)
    parts = []
    for i in range(x.nrows()):
        for j in range(x.ncols()):
            q = x[i, j]
            parts += [int(q.p), int(q.q)]
    report("solve", f"fmpq_mat_solve {a.nrows()}²", t, fingerprint(parts) == int(open(f"{d}/solve_fp.txt").read()))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
