"""Results in the caller's type (the table in rns's module documentation), numpy arrays
of every integer dtype and layout read as words, big ints through the interpreter's
converters and through the limited API, and rns.Matrix's kept forms."""

import os
import platform
import random
import subprocess
import sys
import threading
from fractions import Fraction

import pytest

import rns
from conftest import P, Q, flint

np = pytest.importorskip("numpy")


def nonsingular(rng, n, bits):
    while True:
        a = [[rng.randrange(-(2**bits), 2**bits) for _ in range(n)] for _ in range(n)]
        if flint.fmpz_mat(a).det() % P and flint.fmpz_mat(a).det() % Q:
            return a


def as_kind(rows, kind, p=P):
    """`rows` (lists of ints) as the input type `kind`."""
    if kind == "list":
        return rows
    if kind == "numpy":
        return np.array(rows, dtype=np.int64)
    if kind == "matrix":
        return rns.Matrix(rows)
    if kind == "fmpz":
        return flint.fmpz_mat(rows)
    return flint.nmod_mat([[x % p for x in r] for r in rows], p)


def as_rows(x):
    """Any matrix result as rows of Python ints or Fractions."""
    if isinstance(x, list):
        return x
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, rns.Matrix):
        return x.tolist()
    if isinstance(x, flint.fmpq_mat):
        return [[Fraction(int(x[i, j].p), int(x[i, j].q)) for j in range(x.ncols())] for i in range(x.nrows())]
    return [[int(x[i, j]) for j in range(x.ncols())] for i in range(x.nrows())]


KINDS = ["list", "numpy", "matrix", "fmpz", "nmod"]
# The type each input kind's matrix results come back as: over Z, modulo p, over Q.
OVER_Z = {"list": list, "numpy": np.ndarray, "matrix": rns.Matrix, "fmpz": flint.fmpz_mat}
MOD_P = {"list": list, "numpy": np.ndarray, "matrix": rns.Matrix, "fmpz": flint.nmod_mat, "nmod": flint.nmod_mat}
OVER_Q = {"list": list, "numpy": np.ndarray, "matrix": list, "fmpz": flint.fmpq_mat}


@pytest.mark.parametrize("kind", KINDS)
def test_results_come_back_in_the_callers_type(kind, backend):
    rng = random.Random(KINDS.index(kind))
    rows = nonsingular(rng, 5, 40)
    a = as_kind(rows, kind)
    fa = flint.fmpz_mat(rows)
    na = flint.nmod_mat([[x % P for x in r] for r in rows], P)
    # Modulo p (an nmod_mat carries its own modulus).
    c = rns.matmul(a, a, mod=P, backend=backend)
    assert type(c) is MOD_P[kind] and as_rows(c) == as_rows(na * na)
    x = rns.inverse(a, mod=P, backend=backend)
    assert type(x) is MOD_P[kind] and as_rows(x) == as_rows(na.inv())
    x = rns.solve(a, a, mod=P, backend=backend)
    assert type(x) is MOD_P[kind] and as_rows(x) == [[int(i == j) for j in range(5)] for i in range(5)]
    assert rns.det(a, mod=P, backend=backend) == int(na.det())
    if kind == "nmod":
        return
    c = rns.matmul(a, a, backend=backend)
    assert type(c) is OVER_Z[kind] and as_rows(c) == as_rows(fa * fa)
    x = rns.inverse(a, backend=backend)
    assert type(x) is OVER_Q[kind] and as_rows(x) == as_rows(fa.inv())
    if kind == "numpy":
        assert x.dtype == object and x.shape == (5, 5)
    if kind == "fmpz":
        assert x == fa.inv()
    assert rns.det(a, backend=backend) == int(fa.det())
    assert rns.rank(a, backend=backend) == 5


def test_numpy_results_hold_words_or_objects():
    a = np.array([[2**20, 1], [0, 2**30]], dtype=np.int64)
    c = rns.matmul(a, a)
    assert c.dtype == np.int64 and c.tolist() == (np.array(a, dtype=object) @ a).tolist()
    # An entry past int64: an object array of Python ints.
    big = np.array([[2**62, 0], [0, 2]], dtype=np.int64)
    c = rns.matmul(big, big)
    assert c.dtype == object and c[0, 0] == 2**124 and c[1, 1] == 4
    r = rns.inverse(np.array([[2, 1], [1, 1]], dtype=np.int32), mod=P)
    assert r.dtype == np.int64 and r.tolist() == [[1, P - 1], [P - 1, 2]]


def test_vectors_stay_vectors():
    a = [[2, 1], [1, 3]]
    assert rns.solve(a, [1, 2]) == [Fraction(1, 5), Fraction(3, 5)]
    x = rns.solve(np.array(a), np.array([1, 2]))
    assert isinstance(x, np.ndarray) and x.shape == (2,) and list(x) == [Fraction(1, 5), Fraction(3, 5)]
    x = rns.solve(np.array(a), [1, 2], mod=P)
    assert x.shape == (2,) and x.dtype == np.int64 and (np.array(a) @ x % P).tolist() == [1, 2]
    assert rns.solve(rns.Matrix(a), [1, 2], mod=P) == x.tolist()
    assert rns.solve(a, np.array([1, 2]), mod=P) == x.tolist()


DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_and_layout_is_read_exactly(dtype):
    info = np.iinfo(dtype)
    rng = np.random.default_rng(int(info.bits) + int(info.min < 0))
    n = 70  # more rows than one block of the strided reader (64)
    a = rng.integers(info.min, info.max, size=(n, n), dtype=dtype, endpoint=True)
    a[0, :3] = [info.min, info.max, 0]  # the range's ends
    want = [[int(x) for x in r] for r in a.tolist()]
    layouts = {
        "C": a,
        "Fortran": np.asfortranarray(a),
        "strided": np.ascontiguousarray(np.repeat(a, 2, axis=1))[:, ::2],
        "transposed view": np.ascontiguousarray(a.T).T,
        "negative strides": a[::-1, ::-1],
    }
    for name, view in layouts.items():
        expect = want if name != "negative strides" else [r[::-1] for r in want[::-1]]
        assert rns.Matrix(view).tolist() == expect, name
        # Modulo p straight from the words, against Python's own %.
        sq = rns.matmul(view, np.eye(n, dtype=np.int64), mod=P)
        assert sq.tolist() == [[x % P for x in r] for r in expect], name
    # Over Z against FLINT (a wide uint64 entry takes the big-integer path).
    assert rns.det(a[:6, :6]) == int(flint.fmpz_mat([r[:6] for r in want[:6]]).det())


def test_wide_uint64_and_object_arrays():
    a = np.array([[2**64 - 1, 2**63], [1, 2**63 - 1]], dtype=np.uint64)
    rows = [[2**64 - 1, 2**63], [1, 2**63 - 1]]
    assert rns.det(a) == int(flint.fmpz_mat(rows).det())
    assert rns.det(a, mod=P) == int(flint.fmpz_mat(rows).det()) % P
    o = np.array([[-(2**200), 3], [5, 2**199 + 1]], dtype=object)
    assert rns.det(o) == -(2**200) * (2**199 + 1) - 15
    with pytest.raises(TypeError, match="int"):
        rns.det(np.array([[1.5, 2], [3, 4]], dtype=object))


EDGES = [0, 1, -1, 2**31 - 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64 - 1, 2**64, -(2**64), 2**64 + 1]
# Limb (64-bit) and CPython digit (30-bit) boundaries, and where both meet (960 bits).
EDGES += [s * (2**k + d) for k in (65, 89, 90, 91, 127, 128, 129, 150, 191, 192, 959, 960, 961, 1000, 20000) for d in (-1, 0, 1) for s in (1, -1)]


def test_int_like_entries_read_as_ints_small_and_large():
    # fmpz and numpy integer scalars go through operator.index; small ones are kept as
    # words like ints, large ones as big integers, in one matrix.
    rows = [[2**63 - 1, -(2**63), 3], [-(2**64) - 5, 7, 2**200 + 1], [1, -1, 0]]
    want = int(flint.fmpz_mat(rows).det())
    fz = [[flint.fmpz(x) for x in r] for r in rows]
    assert rns.det(flint.fmpz_mat(rows)) == want
    assert rns.det(fz) == want
    small = [[np.int64(x) for x in r] for r in [[5, -7, 2], [1, 2**62, -3], [0, 4, 9]]]
    assert rns.det(small) == int(flint.fmpz_mat([[int(x) for x in r] for r in small]).det())
    assert rns.matmul(fz, [[1], [0], [0]]) == [[r[0]] for r in rows]
    # Object arrays: all small, and small with large.
    assert rns.det(np.array(small, dtype=object)) == rns.det(small)
    assert rns.det(np.array(rows, dtype=object)) == want


def test_big_ints_at_every_limb_boundary():
    rows = [EDGES]
    m = rns.Matrix(rows)
    assert m.tolist() == rows and [m[0, j] for j in range(len(EDGES))] == EDGES
    assert rns._rns.roundtrip(EDGES, "binary") == EDGES
    short = [x for x in EDGES if abs(x) < 2**10000]  # Python's decimal limit: 4300 digits
    assert rns._rns.roundtrip(short, "decimal") == short
    col = [[x] for x in EDGES]
    assert rns.matmul(col, [[1]]) == col
    assert rns.matmul(col, [[-3]]) == [[-3 * x] for x in EDGES]
    assert rns.matmul(rns.Matrix(col), [[1]], mod=P).tolist() == [[x % P] for x in EDGES]


def test_ints_past_the_parallel_threshold_cross_exactly():
    # Eight ints of about 206 000 bits: 55 000 digits in all, past the 2^15 from which
    # all cores write and read them (EDGES stay below it).
    xs = [(-1) ** i * (3 ** (130000 + i) + i) for i in range(8)]
    m = rns.Matrix([xs])
    assert m.tolist() == [xs]
    assert rns.matmul([[x] for x in xs], [[-1]]) == [[-x] for x in xs]
    assert rns.matmul(np.array([[x] for x in xs], dtype=object), [[1]]).tolist() == [[x] for x in xs]


def test_large_ints_are_written_through_their_digits_on_cpython():
    # 64-bit CPython 3.9 ... 3.13: the digits path passed its check at import.
    if platform.python_implementation() == "CPython" and sys.maxsize > 2**32 and sys.version_info < (3, 14):
        assert rns._rns._int_path == "digits"


@pytest.mark.parametrize("path", ["limited", "converters"])
def test_the_other_int_paths_give_the_same_ints(path):
    # RNS_PYLONG=converters: the interpreter's byte converters, not the digits;
    # RNS_PYLONG=limited: neither, int.to_bytes/from_bytes.
    code = (
        "import rns, sys; from fractions import Fraction; "
        "e = [int(x, 16) for x in sys.stdin.read().split()]; "
        "assert rns._rns._int_path == sys.argv[1], rns._rns._int_path; "
        "assert rns._rns.roundtrip(e, 'binary') == e; "
        "assert rns.Matrix([e]).tolist() == [e]; "
        "assert rns.matmul([[x] for x in e], [[-1]]) == [[-x] for x in e]; "
        "d = 3**700; assert rns.solve([[d]], [e[:9]]) == [[Fraction(x, d) for x in e[:9]]]; print('ok')"
    )
    env = dict(os.environ, RNS_PYLONG=path)
    out = subprocess.run([sys.executable, "-c", code, path], input=" ".join(hex(x) for x in EDGES), env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_fractions_with_large_parts_on_every_path_agree():
    # Numerators and denominators past 64 bits at digit boundaries, shared and not.
    d = 3**700
    a = [[d, 0], [0, 2**961 + 1]]
    b = [[x, -x] for x in EDGES]
    got = rns.solve(a, [list(r) for r in zip(*b)])
    want = [[Fraction(x, d) for x, _ in b], [Fraction(-x, 2**961 + 1) for x, _ in b]]
    assert got == want
    n, den = rns.solve(a, [list(r) for r in zip(*b)], denominator=True)
    assert [[Fraction(v, den) for v in r] for r in n] == want


def test_a_matrix_keeps_its_residues_per_prime_and_threads_agree():
    rng = random.Random(5)
    rows = nonsingular(rng, 12, 62)
    m = rns.Matrix(rows)
    f = flint.fmpz_mat(rows)
    primes = [P, Q, 1073741827, P, Q]
    for p in primes:  # switching primes must not reuse the last prime's residues
        assert rns.det(m, mod=p) == int(f.det()) % p
    assert rns.det(m) == int(f.det())
    errors = []

    def work(i):
        try:
            for k in range(20):
                p = primes[(i + k) % len(primes)]
                if rns.det(m, mod=p, backend="cpu") != int(f.det()) % p:
                    errors.append((i, k, p))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads) and errors == []


def test_empty_shapes_in_every_type():
    empty = {"list": [[], []], "numpy": np.zeros((2, 0), dtype=np.int64), "matrix": rns.Matrix(np.zeros((2, 0), dtype=np.int64))}
    for kind, b in empty.items():
        z = rns.matmul(as_kind([[1, 2]], kind), b)
        assert type(z) is OVER_Z[kind]
        assert (z == [[]]) if kind == "list" else z.shape == (1, 0)
    for kind in ("list", "numpy", "matrix", "fmpz"):
        c = rns.matmul(as_kind([[1, 2]], kind), as_kind([[0, 0, 0], [0, 0, 0]], kind), mod=P)
        assert type(c) is MOD_P[kind] and as_rows(c) == [[0, 0, 0]]
    z = rns.matmul(flint.fmpz_mat(1, 2, [1, 2]), flint.fmpz_mat(2, 0, []))
    assert type(z) is flint.fmpz_mat and (z.nrows(), z.ncols()) == (1, 0)


def test_a_matrix_owns_its_entries_and_calls_read_arrays_as_they_are():
    a = np.array([[2, 1], [1, 3]], dtype=np.int64)  # C-order int64: read in place by a call
    m = rns.Matrix(a)
    assert rns.det(a) == 5 and rns.det(a, mod=P) == 5
    a[0, 0] = 7
    assert rns.det(a) == 20 and rns.det(a, mod=P) == 20  # the array as it is now
    assert rns.det(m) == 5 and m.tolist() == [[2, 1], [1, 3]]  # the Matrix kept its copy
    assert rns.det(m, mod=P) == 5


def test_an_array_too_large_to_copy_is_refused_before_the_copy():
    # A broadcast view: 10^12 logical entries in 8 bytes of memory. Its words (8 TB)
    # cannot be made; the error says so instead of the allocator failing.
    huge = np.broadcast_to(np.int64(1), (10**6, 10**6))
    with pytest.raises(MemoryError, match="numpy array"):
        rns.det(huge, mod=P)
