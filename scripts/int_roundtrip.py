#!/usr/bin/env python3
"""Python ints across the boundary on this interpreter, without python-flint: every
limb (64-bit) and digit (30-bit) boundary and sign, through each path: the digits
written directly (the default on CPython), the running CPython's converters
(RNS_PYLONG=converters) and the limited API (RNS_PYLONG=limited); and numpy arrays of
every integer dtype when numpy is installed. scripts/wheel.sh runs it on each CPython
3.9 ... 3.13.

    python scripts/int_roundtrip.py
"""

import os
import subprocess
import sys

import rns

EDGES = [0, 1, -1, 2**31 - 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64 - 1, 2**64, -(2**64)]
EDGES += [s * (2**k + d) for k in (65, 89, 90, 91, 127, 128, 129, 959, 960, 961, 1000, 20000) for d in (-1, 0, 1) for s in (1, -1)]


def check():
    assert rns._rns.roundtrip(EDGES, "binary") == EDGES
    if "RNS_PYLONG" not in os.environ and sys.implementation.name == "cpython" and sys.maxsize > 2**32:
        assert rns._rns._int_path == "digits", rns._rns._int_path
    assert rns.Matrix([EDGES]).tolist() == [EDGES]
    col = [[x] for x in EDGES]
    assert rns.matmul(col, [[-1]]) == [[-x] for x in EDGES]
    p = 2**31 - 1
    assert rns.matmul(col, [[1]], mod=p) == [[x % p] for x in EDGES]
    try:
        import numpy as np
    except ImportError:
        return "no numpy"
    for dtype in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64):
        info = np.iinfo(dtype)
        a = np.array([[info.min, info.max], [0, 1]], dtype=dtype)
        assert rns.Matrix(a).tolist() == [[int(info.min), int(info.max)], [0, 1]], dtype
        assert rns.det(np.asfortranarray(a)) == int(info.min), dtype  # min·1 − max·0
    return "numpy dtypes"


if __name__ == "__main__":
    what = check()
    if "RNS_PYLONG" not in os.environ:
        for path in ("converters", "limited"):
            env = dict(os.environ, RNS_PYLONG=path)
            subprocess.run([sys.executable, __file__], env=env, check=True)
    print(f"int_roundtrip: Python {sys.version.split()[0]} {rns._rns._int_path}: ok ({what})")
