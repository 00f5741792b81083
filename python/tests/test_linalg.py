"""Every matrix function against python-flint on random and adversarial inputs, on
every backend."""

import random

import pytest

import rns
from conftest import P, PRIMES, flint, fraction_rows, int_rows, rand_int, rand_matrix

SHAPES = [1, 2, 3, 5, 8, 17, 33]
BITS = [1, 8, 31, 64, 200, 1000]


def cases(seed, count):
    rng = random.Random(seed)
    for _ in range(count):
        yield rng, rng.choice(SHAPES), rng.choice(BITS)


@pytest.mark.parametrize("seed", range(6))
def test_det_rank_matches_flint(backend, seed):
    for rng, n, bits in cases(seed, 12):
        a = rand_matrix(rng, n, n, bits)
        if rng.random() < 0.3 and n > 1:  # singular: a row repeated or combined
            a[-1] = [x + 2 * y for x, y in zip(a[0], a[1 % n])]
        fa = flint.fmpz_mat(a)
        assert rns.det(a, backend=backend) == int(fa.det())
        assert rns.rank(a, backend=backend) == fa.rank()
        p = rng.choice(PRIMES)
        na = flint.nmod_mat(a, p)
        assert rns.det(a, mod=p, backend=backend) == int(na.det())
        assert rns.rank(a, mod=p, backend=backend) == na.rank()


@pytest.mark.parametrize("seed", range(4))
def test_rank_of_rectangular_matrices(backend, seed):
    rng = random.Random(100 + seed)
    for _ in range(10):
        r, c, bits = rng.randint(1, 12), rng.randint(1, 12), rng.choice(BITS)
        k = rng.randint(0, min(r, c))  # a product of r×k and k×c: rank at most k
        a = flint.fmpz_mat(rand_matrix(rng, r, k, bits)) * flint.fmpz_mat(rand_matrix(rng, k, c, bits))
        rows = int_rows(a) if k else [[0] * c for _ in range(r)]
        assert rns.rank(rows, backend=backend) == flint.fmpz_mat(rows).rank()


@pytest.mark.parametrize("seed", range(6))
def test_solve_inverse_match_flint(backend, seed):
    for rng, n, bits in cases(1000 + seed, 8):
        bits = min(bits, 6000 // n)  # FLINT's inverse takes seconds beyond that
        a = rand_matrix(rng, n, n, bits)
        fa = flint.fmpz_mat(a)
        if fa.det() == 0:
            with pytest.raises(ZeroDivisionError):
                rns.inverse(a, backend=backend)
            continue
        b = rand_matrix(rng, n, rng.randint(1, 3), bits)
        assert rns.solve(a, b, backend=backend) == fraction_rows(fa.solve(flint.fmpz_mat(b)))
        assert rns.inverse(a, backend=backend) == fraction_rows(fa.inv())
        p = rng.choice(PRIMES)
        na = flint.nmod_mat(a, p)
        if na.det() != 0:
            assert rns.solve(a, b, mod=p, backend=backend) == int_rows(na.solve(flint.nmod_mat(b, p)))
            assert rns.inverse(a, mod=p, backend=backend) == int_rows(na.inv())
        else:
            with pytest.raises(ZeroDivisionError, match=str(p)):
                rns.inverse(a, mod=p, backend=backend)


@pytest.mark.parametrize("seed", range(4))
def test_solve_over_one_denominator_matches_flint(backend, seed):
    """denominator=True: (N, d) with X = N / d, d the least common denominator, in each
    input type, against python-flint's fmpq_mat solution."""
    import numpy as np
    from math import lcm

    for rng, n, bits in cases(3000 + seed, 6):
        a = rand_matrix(rng, n, n, bits)
        fa = flint.fmpz_mat(a)
        b = rand_matrix(rng, n, rng.randint(1, 3), bits)
        if fa.det() == 0:
            with pytest.raises(ZeroDivisionError):
                rns.solve(a, b, backend=backend, denominator=True)
            continue
        x = fraction_rows(fa.solve(flint.fmpz_mat(b)))
        d = lcm(*(q.denominator for row in x for q in row))
        want = [[int(q * d) for q in row] for row in x]
        assert rns.solve(a, b, backend=backend, denominator=True) == (want, d)
        # numpy (an object array), rns.Matrix, python-flint (fmpz_mat, fmpz).
        if bits <= 62:
            got, dd = rns.solve(np.array(a, dtype=np.int64), np.array(b, dtype=np.int64), backend=backend, denominator=True)
            assert (got.tolist(), dd) == (want, d)
        got, dd = rns.solve(rns.Matrix(a), rns.Matrix(b), backend=backend, denominator=True)
        assert (got.tolist(), dd) == (want, d)
        got, dd = rns.solve(fa, flint.fmpz_mat(b), backend=backend, denominator=True)
        assert isinstance(got, flint.fmpz_mat) and isinstance(dd, flint.fmpz)
        assert (int_rows(got), int(dd)) == (want, d)
        # The inverse the same way.
        xi = fraction_rows(fa.inv())
        di = lcm(*(q.denominator for row in xi for q in row))
        assert rns.inverse(a, backend=backend, denominator=True) == ([[int(q * di) for q in r] for r in xi], di)


def test_solve_over_one_denominator_edges(backend):
    # Integer solutions (d = 1), a zero column of X, a vector right-hand side.
    assert rns.solve([[2, 1], [1, 1]], [[1, 0], [1, 0]], backend=backend, denominator=True) == ([[0, 0], [1, 0]], 1)
    assert rns.solve([[2, 1], [1, 3]], [1, 2], backend=backend, denominator=True) == ([1, 3], 5)
    assert rns.solve([[4]], [[2]], backend=backend, denominator=True) == ([[1]], 2)
    with pytest.raises(ValueError, match="over Q"):
        rns.solve([[2, 1], [1, 3]], [1, 2], mod=P, backend=backend, denominator=True)
    with pytest.raises(ValueError, match="over Q"):
        rns.inverse([[2, 1], [1, 3]], mod=P, backend=backend, denominator=True)
    with pytest.raises(ZeroDivisionError):
        rns.solve([[1, 2], [2, 4]], [1, 2], backend=backend, denominator=True)


@pytest.mark.parametrize("seed", range(6))
def test_matmul_matches_flint(backend, seed):
    rng = random.Random(2000 + seed)
    for _ in range(8):
        n, k, m = (rng.choice(SHAPES) for _ in range(3))
        a = rand_matrix(rng, n, k, rng.choice(BITS))
        b = rand_matrix(rng, k, m, rng.choice(BITS))
        assert rns.matmul(a, b, backend=backend) == int_rows(flint.fmpz_mat(a) * flint.fmpz_mat(b))
        p = rng.choice(PRIMES)
        want = int_rows(flint.nmod_mat(a, p) * flint.nmod_mat(b, p))
        assert rns.matmul(a, b, mod=p, backend=backend) == want


def test_adversarial_determinants(backend):
    # det = ±1 with huge entries (a product of unimodular matrices).
    u = flint.fmpz_mat([[1, 2**300], [0, 1]]) * flint.fmpz_mat([[1, 0], [-(2**200) + 7, 1]])
    assert rns.det(int_rows(u), backend=backend) == 1
    assert rns.det([[0, 1], [1, 0]], backend=backend) == -1
    # Huge entries beside tiny ones, every sign.
    a = [[2**4000, 1, -1], [0, -(2**4000) + 1, 5], [3, 0, 2**63]]
    assert rns.det(a, backend=backend) == int(flint.fmpz_mat(a).det())
    # Entries at P - 1 and multiples of P.
    b = [[P - 1, P, 0], [P * P, 1, P - 1], [-P, 2, 3]]
    assert rns.det(b, backend=backend) == int(flint.fmpz_mat(b).det())
    assert rns.det(b, mod=P, backend=backend) == int(flint.nmod_mat(b, P).det())
    # A zero column, and the zero matrix.
    assert rns.det([[1, 0], [2, 0]], backend=backend) == 0
    assert rns.rank([[0, 0], [0, 0]], backend=backend) == 0
    # A det with a large square factor.
    s = flint.fmpz_mat([[2**40, 0, 0], [0, 2**40, 0], [1, 1, 3]])
    assert rns.det(int_rows(s), backend=backend) == int(s.det())


def test_empty_and_one_by_one(backend):
    assert rns.det([], backend=backend) == 1
    assert rns.rank([], backend=backend) == 0
    assert rns.inverse([], backend=backend) == []
    assert rns.det([[-(2**500)]], backend=backend) == -(2**500)
    assert rns.inverse([[4]], backend=backend) == [[rns_fraction(1, 4)]]
    assert rns.solve([[3]], [[-6]], backend=backend) == [[rns_fraction(-2, 1)]]
    assert rns.matmul([[2]], [[3]], backend=backend) == [[6]]
    assert rns.matmul([[1, 2]], [[], []], backend=backend) == [[]]
    assert rns.rank([[], []], backend=backend) == 0


def rns_fraction(n, d):
    from fractions import Fraction

    return Fraction(n, d)


def test_solve_vector_rhs(backend):
    assert rns.solve([[2, 1], [1, 3]], [1, 2], backend=backend) == [rns_fraction(1, 5), rns_fraction(3, 5)]
    assert rns.solve([[2, 1], [1, 3]], (1, 2), mod=P, backend=backend) == [
        x * pow(5, -1, P) % P for x in (1, 3)
    ]
