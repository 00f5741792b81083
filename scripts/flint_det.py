#!/usr/bin/env python3
"""Time FLINT's fmpz_mat_det (python-flint) on a matrix in the rns text format.

Usage: scripts/flint_det.py MATRIX [REPEATS]   (pip install python-flint)
Prints the median time and the determinant's last digits, for comparison with
`rns det` on the same file.
"""
import statistics
import sys
import time

import flint


def read(path):
    with open(path) as f:
        rows, cols = map(int, f.readline().split())
        data = [[int(t) for t in f.readline().split()] for _ in range(rows)]
    return flint.fmpz_mat(data)


def main():
    a = read(sys.argv[1])
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        d = a.det()
        times.append(time.perf_counter() - t)
    s = str(d)
    print(f"flint fmpz_mat_det: median {statistics.median(times) * 1e3:.1f} ms over {reps}; "
          f"det …{s[-20:]} ({len(s.lstrip('-'))} digits)")


if __name__ == "__main__":
    main()
