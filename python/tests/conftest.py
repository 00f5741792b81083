"""Shared fixtures: the backends to test (the GPU too when one is usable; required,
not skipped, when RNS_REQUIRE_GPU=1), seeded random inputs, and python-flint helpers."""

import os
import random
from fractions import Fraction

import pytest

import rns

flint = pytest.importorskip("flint")

# 2^30 < P < 2^31, primes.
P = 2**31 - 1
Q = 2147483629
PRIMES = [P, Q, 1073741827]


def _backends():
    usable = rns.backends()
    out = ["cpu", "auto"]
    if "gpu" in usable:
        out.append("gpu")
    elif os.environ.get("RNS_REQUIRE_GPU") == "1":
        out.append("gpu")  # the tests on it fail with GpuUnavailable: a GPU was required
    return out


BACKENDS = _backends()


def pytest_report_header(config):
    if "gpu" not in BACKENDS:
        return "rns: no usable GPU: the GPU backend is not tested (set RNS_REQUIRE_GPU=1 to require it)"
    return "rns: testing the GPU backend too"


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


def rand_int(rng, bits):
    """A random int of up to `bits` bits, either sign, with edge values now and then."""
    r = rng.random()
    if r < 0.05:
        return 0
    if r < 0.1:
        return rng.choice([1, -1, P - 1, -(P - 1), 2**bits - 1, -(2**bits - 1)])
    return rng.randrange(-(2**bits) + 1, 2**bits)


def rand_matrix(rng, rows, cols, bits):
    return [[rand_int(rng, bits) for _ in range(cols)] for _ in range(rows)]


def fraction_rows(m):
    """An fmpq_mat as rows of Fractions."""
    return [
        [Fraction(int(m[i, j].p), int(m[i, j].q)) for j in range(m.ncols())]
        for i in range(m.nrows())
    ]


def int_rows(m):
    return [[int(m[i, j]) for j in range(m.ncols())] for i in range(m.nrows())]

