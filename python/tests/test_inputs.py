"""Input types (lists, tuples, numpy arrays, python-flint objects, rns.Matrix), int
conversion at every size, and the Python-facing guarantees: the GIL released, Ctrl-C."""

import os
import random
import signal
import threading
import time

import pytest

import rns
from conftest import P, flint, rand_matrix


def test_int_conversion_round_trips_every_size():
    rng = random.Random(7)
    values = [0, 1, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, -(2**64)]
    values += [rng.randrange(-(2**b), 2**b) for b in (1, 7, 62, 63, 64, 65, 100, 1000, 100000)]
    assert rns._rns.roundtrip(values, "binary") == values
    small = [v for v in values if abs(v) < 10**4000]
    assert rns._rns.roundtrip(small, "decimal") == small
    # A det over a 1×1 matrix returns the int itself: conversion both ways.
    for v in values:
        assert rns.det([[v]], backend="cpu") == v


def test_numpy_arrays_of_every_integer_type():
    np = pytest.importorskip("numpy")
    rng = random.Random(8)
    a = rand_matrix(rng, 6, 6, 20)
    want = int(flint.fmpz_mat(a).det())
    for dtype in (np.int64, np.int32, np.int16):
        assert rns.det(np.array([[x % 30000 - 15000 for x in r] for r in a], dtype=dtype)) == int(
            flint.fmpz_mat([[x % 30000 - 15000 for x in r] for r in a]).det()
        )
    assert rns.det(np.array(a, dtype=np.int64)) == want
    u = [[abs(x) for x in r] for r in a]
    for dtype in (np.uint32, np.uint64, np.uint8):
        arr = np.array([[x % 256 if dtype == np.uint8 else x for x in r] for r in u], dtype=dtype)
        assert rns.det(arr) == int(flint.fmpz_mat(arr.tolist()).det())
    big = np.array([[2**100, 1], [3, -(2**90)]], dtype=object)
    assert rns.det(big) == -(2**190) - 3
    # Non-contiguous views are read in logical order.
    full = np.arange(36, dtype=np.int64).reshape(6, 6) ** 2
    view = full[::2, 1::2]
    c = rns.matmul(view, view.T)
    assert c.dtype == np.int64 and c.tolist() == (view @ view.T).tolist()
    assert rns.resultant(np.array([-2, 0, 1]), np.array([-3, 0, 1], dtype=np.int32)) == 1
    with pytest.raises(TypeError, match="dtype"):
        rns.det(np.ones((2, 2)))
    with pytest.raises(ValueError, match="2-dimensional"):
        rns.det(np.ones(3, dtype=np.int64))


def test_python_flint_inputs():
    a = flint.fmpz_mat([[3, 1], [4, -(2**70)]])
    assert rns.det(a) == int(a.det())
    n = flint.nmod_mat([[3, 1], [4, 5]], P)
    assert rns.det(n) == int(n.det())  # the nmod_mat's modulus is used
    inv = rns.inverse(n)  # an nmod_mat in, an nmod_mat out
    assert type(inv) is flint.nmod_mat and inv.modulus() == P and inv == n.inv()
    with pytest.raises(ValueError, match="modulo"):
        rns.det(n, mod=2147483629)
    with pytest.raises(ValueError, match="different moduli"):
        rns.matmul(n, flint.nmod_mat([[1], [1]], 2147483629))
    f, g = flint.fmpz_poly([1, 2, 3]), flint.fmpz_poly([-5, 0, 0, 2**80])
    assert rns.resultant(f, g) == int(f.resultant(g))
    assert rns.resultant(flint.fmpz_poly(0), g) == 0
    ctx = flint.fmpz_mpoly_ctx.get(("x", "y"))
    fx = ctx.from_dict({(0, 2): 1, (1, 0): -1})
    gx = ctx.from_dict({(0, 1): 1, (0, 0): -2})
    assert rns.resultant_xy(fx, gx) == [4, -1]


def test_tuples_iterables_and_matrix_objects():
    rows = ((1, 2), (3, 4))
    assert rns.det(rows) == -2
    assert rns.det(iter([[1, 2], [3, 4]])) == -2
    m = rns.Matrix([[1, 2], [3, 4]])
    assert m.shape == (2, 2) and m.nrows() == 2 and m.ncols() == 2
    assert m.tolist() == [[1, 2], [3, 4]]
    assert rns.det(m) == -2 and rns.rank(m) == 2
    assert rns.Matrix(m) == m and "2×2" in repr(m)
    assert rns.det(m, mod=P) == P - 2


def test_list_rows_of_mixed_ints_and_objects():
    """Rows read item by item: machine ints, large ints in any place, bools, numpy and
    python-flint integers, int subclasses, and an object whose __index__ empties the row
    being read (the rest of that row is then missing: a clear error, not a crash)."""
    np = pytest.importorskip("numpy")

    class Sub(int):
        pass

    big = 2**200 + 7
    rows = [[big, 1, True], [np.int64(-3), Sub(5), flint.fmpz(2)], [0, -big, 4]]
    want = rns.Matrix([[big, 1, 1], [-3, 5, 2], [0, -big, 4]])
    assert rns.Matrix(rows) == want
    assert rns.Matrix(rows).tolist() == [[big, 1, 1], [-3, 5, 2], [0, -big, 4]]
    # The same rows as tuples, in a list and in a tuple.
    assert rns.Matrix([tuple(r) for r in rows]) == want
    assert rns.Matrix(tuple(tuple(r) for r in rows)) == want
    with pytest.raises(TypeError):
        rns.Matrix([(1, 2), (3, "4")])

    row = [1, 2, 3]

    class Emptier:
        def __index__(self):
            row.clear()
            return 9

    row.insert(1, Emptier())
    with pytest.raises(ValueError, match="rows of different lengths"):
        rns.Matrix([[1, 2, 3, 4], row])


def test_matrix_products_stay_matrices_until_read():
    m = rns.Matrix([[1, 2], [3, -4]])
    # An rns.Matrix operand gives an rns.Matrix: no Python ints until entries are read.
    for c in (rns.matmul(m, m), rns.matmul(m, [[1, 2], [3, -4]]), rns.matmul([[1, 2], [3, -4]], m)):
        assert isinstance(c, rns.Matrix) and c.tolist() == [[7, -6], [-9, 22]]
    assert rns.matmul([[1, 2], [3, -4]], [[1, 2], [3, -4]]) == [[7, -6], [-9, 22]]
    c = rns.matmul(m, m, mod=P)
    assert isinstance(c, rns.Matrix) and c.tolist() == [[7, P - 6], [P - 9, 22]]
    c = rns.matmul(m, m)
    assert c[0, 1] == -6 and c[-1, -1] == 22 and c[1] == [-9, 22] and c[-2] == [7, -6]
    assert len(c) == 2 and list(c) == [[7, -6], [-9, 22]]
    for bad in ((2, 0), (0, 2), (-3, 0), 2, -3):
        with pytest.raises(IndexError):
            c[bad]
    with pytest.raises(TypeError):
        c["x"]
    # Products of products, and an empty product, stay matrices too.
    assert rns.matmul(c, m).tolist() == [[-11, 38], [57, -106]]
    e = rns.matmul(rns.Matrix([[1, 2]]), rns.Matrix([[0], [0]]))
    assert e.shape == (1, 1) and e[0, 0] == 0
    big = 2**300 + 1
    assert rns.matmul(rns.Matrix([[big]]), [[-big]])[0, 0] == -big * big


def test_matrices_leave_as_numpy_arrays_and_fmpz_mats():
    np = pytest.importorskip("numpy")
    edges = [0, 1, -1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, -(2**64), 3**60000, -(3**60000)]
    small = rns.Matrix([[0, 1, -1], [2**63 - 1, -(2**63), 7]])
    a = small.to_numpy()
    # Every entry within 64 bits: int64, no Python ints; the range ends exact.
    assert a.dtype == np.int64 and a.shape == (2, 3) and a.tolist() == small.tolist()
    assert np.asarray(small).dtype == np.int64 and np.asarray(small, dtype=object).dtype == object
    assert rns.Matrix(a) == small
    for wide in (2**63, -(2**63) - 1, 3**60000):
        m = rns.Matrix([[wide, 1], [-1, 0]])
        b = m.to_numpy()
        assert b.dtype == object and b.shape == (2, 2) and b.tolist() == m.tolist()
        assert type(b[0, 0]) is int and rns.Matrix(b) == m
    big = rns.Matrix([edges[i:] + edges[:i] for i in range(len(edges))])
    assert big.to_numpy().tolist() == big.tolist()
    for shape in ((0, 3), (3, 0), (0, 0)):
        e = rns.Matrix(np.zeros(shape, dtype=np.int64))
        assert e.shape == shape and e.to_numpy().shape == shape
    for m in (small, big, rns.Matrix([[5]])):
        f = m.to_fmpz_mat()
        assert isinstance(f, flint.fmpz_mat) and (f.nrows(), f.ncols()) == m.shape
        assert [[int(x) for x in row] for row in f.table()] == m.tolist()
        assert rns.Matrix(f) == m
    p = rns.matmul(big, big)
    assert p.to_fmpz_mat() == big.to_fmpz_mat() * big.to_fmpz_mat()


def test_gil_is_released_during_compute():
    rng = random.Random(9)
    m = rns.Matrix(rand_matrix(rng, 120, 120, 64))
    done = threading.Event()
    out = {}

    def work():
        out["det"] = rns.det(m, backend="cpu")
        done.set()

    t = threading.Thread(target=work)
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1  # runs only while the worker has released the GIL
        time.sleep(0)
    t.join()
    assert out["det"] == int(flint.fmpz_mat(m.tolist()).det())
    assert ticks > 100


def test_ctrl_c_interrupts_a_long_call():
    rng = random.Random(10)
    m = rns.Matrix(rand_matrix(rng, 160, 160, 500))
    # Ctrl-C pressed every 50 ms until the call ends, as a user presses it again when
    # one press is not taken (once in a CI run a single press was lost); the first
    # press taken raises KeyboardInterrupt, later ones are ignored.
    taken, done = [], threading.Event()

    def on_ctrl_c(signum, frame):
        if not taken:
            taken.append(True)
            raise KeyboardInterrupt

    def presser():
        while not done.wait(0.05):
            os.kill(os.getpid(), signal.SIGINT)

    old = signal.signal(signal.SIGINT, on_ctrl_c)
    t = threading.Thread(target=presser)
    t.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            rns.det(m, backend="cpu")
    finally:
        done.set()
        t.join()
        signal.signal(signal.SIGINT, old)
    # The engine is still usable afterwards.
    assert rns.det([[1, 2], [3, 4]]) == -2


def test_engine_times_its_library_work():
    e = rns.Engine("cpu")
    assert e.backend_name == "cpu" and e.last_seconds == 0.0 and "cpu" in repr(e)
    e.det([[1, 2], [3, 4]])
    assert 0.0 < e.last_seconds < 1.0
