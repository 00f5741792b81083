"""Fuzzes the Python package's argument conversion with atheris (issue 15, item 3).

Every public function gets arguments built from the fuzzer's bytes: rows of Python ints
(tiny, huge, negative, bools), floats, strings, None, Fractions, ragged and nested
lists, tuples, iterators, dicts, numpy arrays of every dtype and shape, python-flint
matrices and polynomials, and ``mod=`` / ``backend=`` values good and bad. Each call
must return or raise one of the documented exceptions (``ValueError``, ``TypeError``,
``ZeroDivisionError``, ``OverflowError``, ``GpuUnavailable`` for the GPU without one);
anything else (``SystemError``, a Rust panic, another ``RuntimeError``) is a crash.
When a call over Z returns, its answer is checked against python-flint.

    .venv/bin/python python/fuzz/fuzz_args.py -atheris_runs=100000
    scripts/fuzz.sh 60 python      # a bounded run, as CI does
"""

import sys
from fractions import Fraction

import atheris

with atheris.instrument_imports():
    import rns

import flint
import numpy as np

P = 2**31 - 1
EXPECTED = (ValueError, TypeError, ZeroDivisionError, OverflowError)
DTYPES = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float64, np.bool_, object]


class Gen:
    """Python values from the fuzzer's bytes."""

    def __init__(self, data):
        self.f = atheris.FuzzedDataProvider(data)

    def pick(self, n):
        return self.f.ConsumeIntInRange(0, n - 1)

    def int_(self):
        k = self.pick(6)
        if k == 0:
            return self.f.ConsumeIntInRange(-3, 3)
        if k == 1:
            return [0, 1, -1, P, P - 1, 2**31, 2**63 - 1, -(2**63), 2**64][self.pick(9)]
        if k == 2:
            return self.f.ConsumeInt(self.f.ConsumeIntInRange(1, 260))
        return self.f.ConsumeInt(8)

    def scalar(self):
        k = self.pick(12)
        if k < 8:
            return self.int_()
        return [1.5, "7", None, True, Fraction(1, 2), b"\x01", float("nan"), 2.0][self.pick(8)]

    def dims(self):
        return self.f.ConsumeIntInRange(0, 7), self.f.ConsumeIntInRange(0, 7)

    def rows(self, r, c, clean):
        """An r × c list of rows: of ints when ``clean``, else with stray values."""
        out = []
        for _ in range(r):
            row = [self.int_() if clean else self.scalar() for _ in range(c)]
            if not clean and self.pick(8) == 0:
                row = row[: self.pick(c + 1)]  # ragged
            out.append(row)
        return out

    def matrix(self):
        r, c = self.dims()
        if self.pick(3) == 0:
            c = r
        k = self.pick(10)
        if k < 4:
            return self.rows(r, c, True)
        if k == 4:
            return self.rows(r, c, False)
        if k == 5:
            dt = DTYPES[self.pick(len(DTYPES))]
            shape = [(r, c), (r,), (r, c, 2), ()][self.pick(4)]
            a = np.zeros(shape, dtype=dt)
            flat = a.reshape(-1)
            for i in range(flat.size):
                try:
                    flat[i] = self.int_()
                except (OverflowError, ValueError, TypeError):
                    pass
            return a[:, ::-1] if a.ndim == 2 and self.pick(2) else a
        if k == 6:
            return flint.fmpz_mat(self.rows(r, c, True))
        if k == 7:
            return tuple(tuple(row) for row in self.rows(r, c, True))
        if k == 8:
            return iter(self.rows(r, c, True))
        return self.scalar()

    def poly(self):
        k = self.pick(6)
        n = self.f.ConsumeIntInRange(0, 12)
        if k < 3:
            return [self.int_() for _ in range(n)]
        if k == 3:
            return flint.fmpz_poly([self.int_() for _ in range(n)])
        if k == 4:
            return [self.scalar() for _ in range(n)]
        return self.scalar()

    def bipoly(self):
        k = self.pick(5)
        n = self.f.ConsumeIntInRange(0, 6)
        if k < 3:
            return {(self.pick(4), self.pick(4)): self.int_() for _ in range(n)}
        if k == 3:
            return {self.scalar(): self.scalar() for _ in range(n)} if n else {}
        return self.poly()

    def mod(self):
        good = [None, None, None, None, P, 2147483629]
        bad = [7, -P, 2**31, 2**40, 1.0, "p", 2**31 - 3]
        return (good + bad)[self.pick(13)]

    def backend(self):
        return ["cpu", "cpu", "cpu", "auto", "auto", "gpu", "GPU", None][self.pick(8)]


def clean_int_matrix(a):
    return (isinstance(a, list) and all(isinstance(r, list) for r in a)
            and all(type(x) is int for r in a for x in r)
            and len({len(r) for r in a}) <= 1)


def check(name, args, mod, got):
    """The answer against python-flint, for clean integer inputs over Z."""
    if mod is not None or not all(clean_int_matrix(a) for a in args):
        return
    a = args[0]
    if not a or not a[0]:
        return
    if name == "det" and len(a) == len(a[0]):
        assert got == int(flint.fmpz_mat(a).det()), (a, got)
    elif name == "rank":
        assert got == flint.fmpz_mat(a).rank(), (a, got)
    elif name == "matmul" and args[1] and args[1][0] and len(a[0]) == len(args[1]):
        want = flint.fmpz_mat(a) * flint.fmpz_mat(args[1])
        assert got == [[int(want[i, j]) for j in range(want.ncols())] for i in range(want.nrows())]


def one_input(data):
    g = Gen(data)
    name = ["det", "rank", "solve", "inverse", "matmul", "resultant", "resultant_xy"][g.pick(7)]
    if name in ("det", "rank", "inverse"):
        args = [g.matrix()]
    elif name in ("solve", "matmul"):
        args = [g.matrix(), g.matrix()]
    elif name == "resultant":
        args = [g.poly(), g.poly()]
    else:
        args = [g.bipoly(), g.bipoly()]
    mod, backend = g.mod(), g.backend()
    try:
        got = getattr(rns, name)(*args, mod=mod, backend=backend)
    except EXPECTED:
        return
    except rns.GpuUnavailable:
        if backend == "gpu" and "gpu" not in rns.backends():
            return
        raise
    check(name, args, mod, got)


if __name__ == "__main__":
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()
