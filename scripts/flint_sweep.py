#!/usr/bin/env python3
"""A long differential sweep against FLINT (python-flint): the generator of
python/tests/differential.py for as many cases (or seconds) as asked, on any backend,
printing progress and every mismatch; exit 1 on any.

    .venv/bin/python scripts/flint_sweep.py --cases 1000000 [--backend gpu] [--seed 1]
    .venv/bin/python scripts/flint_sweep.py --seconds 3600 --cli target/release/rns
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python" / "tests"))
import differential  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100_000)
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--backend", default="cpu", choices=["cpu", "gpu", "auto"])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cli", help="also 1000 cases through this rns binary", default=None)
    a = ap.parse_args()
    start = time.monotonic()
    chunk, seed, total, bad, per_op = 10_000, a.seed, 0, [], {}
    while total < a.cases and (a.seconds is None or time.monotonic() - start < a.seconds):
        left = None if a.seconds is None else a.seconds - (time.monotonic() - start)
        n, ops, b = differential.run(seed, min(chunk, a.cases - total), a.backend, left)
        total += n
        bad += b
        for k, v in ops.items():
            per_op[k] = per_op.get(k, 0) + v
        for line in b:
            print("MISMATCH", line, flush=True)
        print(f"{total} cases, {len(bad)} mismatches, {time.monotonic() - start:.0f} s", flush=True)
        seed += 1
    if a.cli:
        n, b = differential.run_cli(a.cli, a.seed, 1000, a.backend)
        bad += b
        print(f"CLI: {n} cases, {len(b)} mismatches")
    print("per operation:", ", ".join(f"{k} {v}" for k, v in sorted(per_op.items())))
    print(f"{total} cases on backend {a.backend} in {time.monotonic() - start:.0f} s: {len(bad)} mismatches")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
