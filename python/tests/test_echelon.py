"""rref, nullspace, charpoly and minpoly against python-flint, over Q/Z and modulo p, on every backend:
random, rank-deficient (products of thin factors), zero, identity, 1×1, wide and tall
matrices, with entries from 1 to 1000 bits and the edge values of conftest.rand_int."""

import random
from fractions import Fraction

import pytest

import rns
from conftest import PRIMES, flint, fraction_rows, int_rows, rand_matrix
from differential import minpoly_reference

BITS = [1, 8, 31, 64, 200, 1000]


def low_rank(rng, rows, cols, k, bits):
    """A rows × cols matrix of rank at most k: the product of random thin factors."""
    if k == 0:
        return [[0] * cols for _ in range(rows)]
    f = flint.fmpz_mat(rand_matrix(rng, rows, k, bits)) * flint.fmpz_mat(rand_matrix(rng, k, cols, bits))
    return int_rows(f)


def shapes(seed, count):
    rng = random.Random(seed)
    fixed = [(1, 1, 1), (3, 3, 3), (4, 4, 0), (2, 5, 2), (5, 2, 2), (6, 9, 4), (9, 6, 3)]
    for r, c, k in fixed:
        yield rng, r, c, k
    for _ in range(count):
        r, c = rng.randint(1, 14), rng.randint(1, 14)
        yield rng, r, c, rng.randint(0, min(r, c))


def column(x, j):
    return [row[j] for row in x]


def proportional(u, v):
    """Whether the integer vectors u and v are non-zero multiples of each other (FLINT's
    sign follows its fraction-free denominator's)."""
    i = next(i for i, x in enumerate(v) if x != 0)
    return u[i] != 0 and all(Fraction(a, u[i]) == Fraction(b, v[i]) for a, b in zip(u, v))


@pytest.mark.parametrize("seed", range(4))
def test_rref_over_q_matches_flint(backend, seed):
    for rng, r, c, k in shapes(seed, 8):
        bits = rng.choice(BITS)
        a = low_rank(rng, r, c, k, max(1, bits // 2)) if k < min(r, c) else rand_matrix(rng, r, c, bits)
        want, rank = flint.fmpq_mat(flint.fmpz_mat(a)).rref()
        got, got_rank = rns.rref(a, backend=backend)
        assert got_rank == rank, (r, c, k, bits)
        assert got == fraction_rows(want), (r, c, k, bits)
        # python-flint in, python-flint out.
        fm, frank = rns.rref(flint.fmpz_mat(a), backend=backend)
        assert isinstance(fm, flint.fmpq_mat) and fm == want and frank == rank


@pytest.mark.parametrize("seed", range(4))
def test_rref_mod_p_matches_flint(backend, seed):
    for rng, r, c, k in shapes(100 + seed, 8):
        p = rng.choice(PRIMES)
        a = low_rank(rng, r, c, k, 40)
        want, rank = flint.nmod_mat(a, p).rref()
        got, got_rank = rns.rref(a, mod=p, backend=backend)
        assert (got, got_rank) == (int_rows(want), rank), (r, c, k)
        fm, frank = rns.rref(flint.nmod_mat(a, p), backend=backend)
        assert fm == want and frank == rank


@pytest.mark.parametrize("seed", range(4))
def test_nullspace_matches_flint(backend, seed):
    for rng, r, c, k in shapes(200 + seed, 8):
        bits = rng.choice(BITS[:5])
        a = low_rank(rng, r, c, k, bits)
        fx, nullity = flint.fmpz_mat(a).nullspace()
        x, got = rns.nullspace(a, backend=backend)
        assert got == nullity and len(x) == c and all(len(row) == nullity for row in x)
        want = int_rows(fx)
        for j in range(nullity):
            assert proportional(column(x, j), column(want, j)), (r, c, k, j)
        if nullity:
            assert (flint.fmpz_mat(a) * flint.fmpz_mat(x)).is_zero()
        p = rng.choice(PRIMES)
        nx, nn = flint.nmod_mat(a, p).nullspace()
        got_x, got_n = rns.nullspace(a, mod=p, backend=backend)
        assert got_n == nn and [row[:nn] for row in int_rows(nx)] == got_x, (r, c, k)


def test_identity_zero_and_empty(backend):
    for n in (1, 4):
        eye = [[int(i == j) for j in range(n)] for i in range(n)]
        assert rns.rref(eye, backend=backend) == (eye, n)
        assert rns.nullspace(eye, backend=backend) == ([[] for _ in range(n)], 0)
        zero = [[0] * n for _ in range(n)]
        assert rns.rref(zero, backend=backend) == (zero, 0)
        x, k = rns.nullspace(zero, backend=backend)
        assert (x, k) == (eye, n)
        assert rns.nullspace(zero, mod=PRIMES[0], backend=backend) == (eye, n)


def test_bad_inputs(backend):
    with pytest.raises(ValueError):
        rns.rref([[1, 2]], mod=15, backend=backend)
    with pytest.raises((ValueError, TypeError)):
        rns.nullspace([[1, 2], [3]], backend=backend)


@pytest.mark.parametrize("seed", range(3))
def test_charpoly_matches_flint(backend, seed):
    rng = random.Random(300 + seed)
    for n in [1, 2, 3, 5, 9, 16]:
        bits = rng.choice(BITS)
        a = rand_matrix(rng, n, n, bits)
        fa = flint.fmpz_mat(a)
        want = [int(c) for c in fa.charpoly().coeffs()]
        assert rns.charpoly(a, backend=backend) == want, (n, bits)
        got = rns.charpoly(fa, backend=backend)
        assert isinstance(got, flint.fmpz_poly) and got == fa.charpoly()
        p = rng.choice(PRIMES)
        na = flint.nmod_mat(a, p)
        assert rns.charpoly(a, mod=p, backend=backend) == [int(c) for c in na.charpoly().coeffs()]
        assert rns.charpoly(na, backend=backend) == na.charpoly()
    assert rns.charpoly([], backend=backend) == [1]
    with pytest.raises(ValueError):
        rns.charpoly([[1, 2, 3]], backend=backend)


@pytest.mark.parametrize("seed", range(3))
def test_minpoly_matches_flint(backend, seed):
    rng = random.Random(400 + seed)
    for n in [1, 2, 3, 5, 9, 16]:
        bits = rng.choice(BITS)
        # Random (the characteristic polynomial), low rank (degree at most rank + 1) and
        # a scalar matrix (degree 1).
        for a in [rand_matrix(rng, n, n, bits), low_rank(rng, n, n, n // 2, bits),
                  [[7 if i == j else 0 for j in range(n)] for i in range(n)]]:
            fa = flint.fmpz_mat(a)
            want = minpoly_reference(a)
            assert rns.minpoly(a, backend=backend) == want, (n, bits)
            got = rns.minpoly(fa, backend=backend)
            assert isinstance(got, flint.fmpz_poly) and got == flint.fmpz_poly(want)
            p = rng.choice(PRIMES)
            na = flint.nmod_mat(a, p)
            assert rns.minpoly(a, mod=p, backend=backend) == [int(c) for c in na.minpoly().coeffs()]
            assert rns.minpoly(na, backend=backend) == na.minpoly()
    assert rns.minpoly([], backend=backend) == [1]
    with pytest.raises(ValueError):
        rns.minpoly([[1, 2, 3]], backend=backend)
