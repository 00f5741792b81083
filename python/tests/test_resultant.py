"""Resultants against python-flint: univariate (fmpz_poly.resultant) and bivariate
(fmpz_mpoly.resultant in y)."""

import random

import pytest

import rns
from conftest import PRIMES, flint, rand_int


def rand_poly(rng, deg, bits):
    c = [rand_int(rng, bits) for _ in range(deg + 1)]
    if c[-1] == 0:
        c[-1] = 1
    return c


@pytest.mark.parametrize("seed", range(6))
def test_resultant_matches_flint(backend, seed):
    rng = random.Random(3000 + seed)
    for _ in range(10):
        f = rand_poly(rng, rng.randint(0, 12), rng.choice([1, 16, 64, 300]))
        g = rand_poly(rng, rng.randint(0, 12), rng.choice([1, 16, 64, 300]))
        if rng.random() < 0.2:  # a common factor
            h = rand_poly(rng, 1, 8)
            f = (flint.fmpz_poly(f) * flint.fmpz_poly(h)).coeffs()
            g = (flint.fmpz_poly(g) * flint.fmpz_poly(h)).coeffs()
            f, g = [int(c) for c in f], [int(c) for c in g]
        want = int(flint.fmpz_poly(f).resultant(flint.fmpz_poly(g)))
        assert rns.resultant(f, g, backend=backend) == want
        p = rng.choice(PRIMES)
        assert rns.resultant(f, g, mod=p, backend=backend) == want % p


@pytest.mark.parametrize("small", [0, 1, 2, 16, 17])
def test_unbalanced_resultants_match_flint(backend, small):
    # One degree small against the other (the pseudo-remainder from degree 2048 on).
    rng = random.Random(77 + small)
    for large in (2047, 2048, 3000):
        f = rand_poly(rng, large, 64)
        g = rand_poly(rng, small, rng.choice([1, 64]))
        if rng.random() < 0.5:
            g[-1] = rng.choice([1, -1])
        want = int(flint.fmpz_poly(f).resultant(flint.fmpz_poly(g)))
        assert rns.resultant(f, g, backend=backend) == want
        assert rns.resultant(g, f, backend=backend) == int(flint.fmpz_poly(g).resultant(flint.fmpz_poly(f)))
    # A common factor: zero.
    h = [3, -2]
    fh = [int(c) for c in (flint.fmpz_poly(rand_poly(rng, 2500, 20)) * flint.fmpz_poly(h)).coeffs()]
    gh = [int(c) for c in (flint.fmpz_poly(rand_poly(rng, max(small, 1) - 1, 20)) * flint.fmpz_poly(h)).coeffs()]
    assert rns.resultant(fh, gh, backend=backend) == 0


def test_resultant_edges(backend):
    assert rns.resultant([3], [5], backend=backend) == 1
    assert rns.resultant([0], [1, 1], backend=backend) == 0
    assert rns.resultant([0, 0], [5], backend=backend) == 0
    # Leading coefficients divisible by the primes every basis starts with.
    p = 2**31 - 1
    f, g = [1, 2, p * 3], [5, p * (2**31 - 19)]
    assert rns.resultant(f, g, backend=backend) == int(flint.fmpz_poly(f).resultant(flint.fmpz_poly(g)))


def mpoly_res(f, g):
    ctx = flint.fmpz_mpoly_ctx.get(("x", "y"))
    r = ctx.from_dict(f).resultant(ctx.from_dict(g), "y")
    d = {i: int(c) for (i, j), c in r.to_dict().items()}
    coeffs = [d.get(i, 0) for i in range(max(d) + 1)] if d else []
    return coeffs


@pytest.mark.parametrize("seed", range(4))
def test_resultant_xy_matches_flint(backend, seed):
    rng = random.Random(4000 + seed)
    for _ in range(6):
        def rand_bi():
            dy, dx = rng.randint(0, 4), rng.randint(0, 4)
            t = {(i, j): rand_int(rng, rng.choice([4, 40, 200])) for j in range(dy + 1) for i in range(dx + 1)}
            t[(rng.randint(0, dx), dy)] = rng.choice([1, -3, 2**50])
            return t

        f, g = rand_bi(), rand_bi()
        want = mpoly_res(f, g)
        assert rns.resultant_xy(f, g, backend=backend) == want
        p = PRIMES[0]
        got = rns.resultant_xy(f, g, mod=p, backend=backend)
        w = [c % p for c in want]
        while w and w[-1] == 0:
            w.pop()
        assert got == w


def test_resultant_xy_common_factor_is_zero(backend):
    h = {(1, 0): 1, (0, 1): 1}  # y + x
    f = {(1, 1): 1, (0, 2): 1, (2, 0): 0}  # y(y + x)
    g = {(2, 0): 1, (1, 1): 1, (0, 0): 0}  # x(y + x)
    assert rns.resultant_xy(f, g, backend=backend) == mpoly_res(f, g) == []
    assert rns.resultant_xy({(0, 0): 0}, h, backend=backend) == []
