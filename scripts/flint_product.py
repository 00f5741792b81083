#!/usr/bin/env python3
"""Time FLINT's exact matrix product (python-flint's fmpz_mat, 1 thread and all threads)
and the whole `rns matmul` process on the inputs that examples/product_bench.rs wrote,
check the answers against rns's fingerprint, and print the ratios to rns's times.

Usage: scripts/flint_product.py DIR [RNS_BINARY]      (pip install python-flint)
"""
import os
import subprocess
import sys
import time

import flint

from flint_linalg import fingerprint, read


def main():
    d = sys.argv[1]
    rns_bin = sys.argv[2] if len(sys.argv) > 2 else "target/release/rns"
    times = dict(line.split() for line in open(f"{d}/rns_times.txt"))
    e2e, cpu = float(times["e2e"]), float(times["cpu"])
    want = int(open(f"{d}/product_fp.txt").read())
    a, b = flint.fmpz_mat(read(f"{d}/a.txt")), flint.fmpz_mat(read(f"{d}/b.txt"))
    n = a.nrows()
    ok = True
    for threads in (1, os.cpu_count()):
        flint.ctx.threads = threads
        t = time.perf_counter()
        c = a * b
        ms = (time.perf_counter() - t) * 1e3
        same = fingerprint(int(c[i, j]) for i in range(n) for j in range(b.ncols())) == want
        ok &= same
        print(f"flint fmpz_mat_mul {n}² ({threads} threads): {ms:10.1f} ms; rns gpu library "
              f"{e2e:.1f} ms = {ms / e2e:.1f}x, rns cpu backend {cpu:.1f} ms = {ms / cpu:.1f}x"
              + ("" if same else "   ANSWERS DIFFER"), flush=True)
        if threads == os.cpu_count():
            flint16 = ms
    flint.ctx.threads = 1
    # The whole process: parse both files, compute on the GPU, print every entry.
    ts = []
    for _ in range(2):
        t = time.perf_counter()
        r = subprocess.run([rns_bin, "matmul", f"{d}/a.txt", f"{d}/b.txt", "--backend", "gpu"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        ts.append(time.perf_counter() - t)
        if r.returncode != 0:
            print("rns matmul failed:", r.stderr.decode()[-500:])
            ok = False
    print(f"whole `rns matmul` process on the GPU: {min(ts) * 1e3:.1f} ms = "
          f"{flint16 / (min(ts) * 1e3):.1f}x FLINT with {os.cpu_count()} threads", flush=True)
    # To a file, and the text against the CPU backend's (rug's formatting), byte for byte.
    out = {}
    for backend in ("gpu", "gpu", "cpu"):
        path = f"{d}/c_{backend}.txt"
        t = time.perf_counter()
        with open(path, "wb") as f:
            r = subprocess.run([rns_bin, "matmul", f"{d}/a.txt", f"{d}/b.txt", "--backend", backend],
                               stdout=f, stderr=subprocess.PIPE)
        out.setdefault(backend, []).append(time.perf_counter() - t)
        ok &= r.returncode == 0
    same = subprocess.run(["cmp", "-s", f"{d}/c_gpu.txt", f"{d}/c_cpu.txt"]).returncode == 0
    ok &= same
    size = os.path.getsize(f"{d}/c_gpu.txt")
    print(f"to a file ({size / 1e6:.0f} MB): gpu {' '.join(f'{x * 1e3:.0f}' for x in out['gpu'])} ms, "
          f"cpu {out['cpu'][0] * 1e3:.0f} ms; texts " + ("identical" if same else "DIFFER"), flush=True)
    # Its stages, from one more run.
    r = subprocess.run([rns_bin, "matmul", f"{d}/a.txt", f"{d}/b.txt", "--backend", "gpu", "--stats"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    print("stages of that process (--stats):\n" + r.stderr.decode()[-2000:], flush=True)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
