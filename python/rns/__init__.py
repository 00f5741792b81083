"""rns: exact linear algebra and resultants over the integers, through a residue
number system, on all CPU cores or on a CUDA GPU.

Every function computes an exact answer (never a floating-point or probabilistic
one). Matrices may be lists of rows of Python ints of any size, 2-D numpy integer
arrays (int64, uint32, ..., or object arrays of ints), python-flint ``fmpz_mat`` or
``nmod_mat``, or an :class:`rns.Matrix`; polynomials are coefficient lists, constant
term first, or python-flint ``fmpz_poly``.

Every function takes the keyword arguments

* ``mod``: ``None`` (over Z, or Q for solve and inverse) or a prime p with
  2^30 < p < 2^31, to compute modulo p (results in [0, p));
* ``backend``: ``"auto"`` (the cost model picks per call), ``"cpu"`` or ``"gpu"``
  (``GpuUnavailable`` when no CUDA device is usable; ``GpuStalled`` when the GPU made
  no progress for the stall limit, ``RNS_GPU_STALL_S`` seconds, 60 by default).

Matrix results come back in the type of the first matrix argument ``A`` (for
``matmul``, an :class:`rns.Matrix` when either argument is one):

============  ==========================  ====================  ===================
``A``         over Z (matmul)             modulo p              over Q (solve, inverse)
============  ==========================  ====================  ===================
list          rows of ints                rows of ints          rows of Fractions
numpy array   int64 array (object array   int64 array           object array of
              when an entry needs more)                         Fractions
rns.Matrix    rns.Matrix                  rns.Matrix            rows of Fractions
fmpz_mat      fmpz_mat                    nmod_mat              fmpq_mat
nmod_mat      (always modulo p)           nmod_mat              (always modulo p)
============  ==========================  ====================  ===================

det, rank and resultant give Python ints. numpy arrays of machine integers are the
fastest door: they are read as machine words, with no Python object per entry.

The GIL is released while computing; Ctrl-C stops a long call at its next stage.

>>> import rns
>>> rns.det([[2, -1, 0], [-1, 2, -1], [0, -1, 2]])
4
>>> rns.solve([[2, 1], [1, 3]], [1, 2])
[Fraction(1, 5), Fraction(3, 5)]
"""

from ._rns import Engine, GpuStalled, GpuUnavailable, Matrix, backends

__all__ = [
    "Engine",
    "GpuStalled",
    "GpuUnavailable",
    "Matrix",
    "backends",
    "det",
    "rank",
    "solve",
    "inverse",
    "rref",
    "nullspace",
    "charpoly",
    "minpoly",
    "matmul",
    "resultant",
    "resultant_xy",
]

_engines = {}


def _engine(backend):
    """The default engine for ``backend``, created on first use."""
    engine = _engines.get(backend)
    if engine is None:
        engine = Engine(backend)
        _engines[backend] = engine
    return engine


def _column(b):
    """A right-hand side vector ``b`` (a flat list or tuple of ints, or a 1-D numpy
    array) as a one-column matrix; None when ``b`` is not a vector."""
    if type(b).__module__ == "numpy" and type(b).__name__ == "ndarray":
        return b.reshape(-1, 1) if b.ndim == 1 else None
    if not isinstance(b, (list, tuple)) or not b:
        return None
    if isinstance(b[0], (list, tuple)) or not hasattr(b[0], "__index__"):
        return None
    return [[x] for x in b]


def _flat(x):
    """The one column of the solution ``x`` as a vector: a 1-D numpy array for a numpy
    array, else a list."""
    if isinstance(x, list):
        return [row[0] for row in x]
    if type(x).__module__ == "numpy":
        return x[:, 0]
    return [row[0] for row in x.tolist()]


def det(A, *, mod=None, backend="auto"):
    """det(A, *, mod=None, backend="auto") -> int

    The determinant of the square matrix ``A``: an exact int, or an int in [0, p)
    with ``mod=p``. The determinant of a 0×0 matrix is 1.

    >>> det([[1, 2], [3, 4]])
    -2
    >>> det([[1, 2], [3, 4]], mod=2**31 - 1)
    2147483645
    """
    return _engine(backend).det(A, mod=mod)


def rank(A, *, mod=None, backend="auto"):
    """rank(A, *, mod=None, backend="auto") -> int

    The rank of ``A`` over Q, or over Z/pZ with ``mod=p``.

    >>> rank([[1, 2], [2, 4]])
    1
    """
    return _engine(backend).rank(A, mod=mod)


def rref(A, *, mod=None, backend="auto"):
    """rref(A, *, mod=None, backend="auto") -> (R, rank)

    The reduced row echelon form ``R`` of ``A`` (any shape and rank) and its rank, as
    python-flint's ``fmpq_mat.rref`` and ``nmod_mat.rref`` give them: over Q, ``R`` has
    ``A``'s shape and rational entries in lowest terms (rows of ``fractions.Fraction``
    for lists, an ``fmpq_mat`` for python-flint's matrices); modulo p (``mod=p``),
    ints in [0, p) in ``A``'s type.

    >>> R, r = rref([[1, 2, 3], [2, 4, 6], [1, 0, 1]])
    >>> r, [[int(x) for x in row] for row in R]
    (2, [[1, 0, 1], [0, 1, 1], [0, 0, 0]])
    """
    return _engine(backend).rref(A, mod=mod)


def nullspace(A, *, mod=None, backend="auto"):
    """nullspace(A, *, mod=None, backend="auto") -> (X, nullity)

    A basis of the right nullspace ``{x : A x = 0}`` as the columns of the
    ``n × nullity`` matrix ``X``, in ``A``'s type. One vector per non-pivot column
    ``j`` of the echelon form, in increasing ``j``: modulo p (``mod=p``) it has 1 at
    ``j`` (python-flint's ``nmod_mat.nullspace`` vectors); over Z it is the primitive
    integer vector (entries' gcd 1) with a positive entry at ``j``, a multiple of
    python-flint's ``fmpz_mat.nullspace`` vector. python-flint returns an ``n × n``
    matrix whose first ``nullity`` columns are the basis; this returns those columns.

    >>> nullspace([[2, 4, 6, 8], [1, 3, 5, 7]])
    ([[1, 2], [-2, -3], [1, 0], [0, 1]], 2)
    """
    return _engine(backend).nullspace(A, mod=mod)


def charpoly(A, *, mod=None, backend="auto"):
    """charpoly(A, *, mod=None, backend="auto") -> list

    The characteristic polynomial ``det(x·I − A)`` of the square matrix ``A``: its
    ``n + 1`` coefficients, constant first (the last is 1), as ints, or ints in [0, p)
    with ``mod=p``; an ``fmpz_poly`` (``nmod_poly`` modulo p) for python-flint's
    matrices. Over Z it is exact: modulo enough primes for a bound on every
    coefficient, with no early termination.

    >>> charpoly([[1, 2], [3, 4]])
    [-2, -5, 1]
    """
    return _engine(backend).charpoly(A, mod=mod)


def minpoly(A, *, mod=None, backend="auto"):
    """minpoly(A, *, mod=None, backend="auto") -> list

    The minimal polynomial of the square matrix ``A``: the monic polynomial ``m`` of
    least degree with ``m(A) = 0``, its coefficients constant first (the last is 1), as
    ints, or ints in [0, p) with ``mod=p``; an ``fmpz_poly`` (``nmod_poly`` modulo p)
    for python-flint's matrices. Over Z it is exact: the image from the primes is
    proven to vanish at ``A`` by a bound, not by chance.

    >>> minpoly([[2, 0, 0], [0, 2, 0], [0, 0, 3]])
    [6, -5, 1]
    """
    return _engine(backend).minpoly(A, mod=mod)


def solve(A, B, *, mod=None, backend="auto", denominator=False):
    """solve(A, B, *, mod=None, backend="auto", denominator=False) -> list

    The solution ``X`` of ``A X = B`` for square non-singular ``A``, in ``A``'s type
    (the table in the module's documentation): over Q, rows of ``fractions.Fraction``
    (in lowest terms) for lists; modulo p (``mod=p``), ints in [0, p). ``B`` is a
    matrix, or a vector (a flat list of ints or a 1-D numpy array), in which case the
    solution is a vector too (a 1-D numpy array when ``A`` is a numpy array, else a
    list). Raises ``ZeroDivisionError`` when ``A`` is singular (modulo p with
    ``mod=p``).

    With ``denominator=True`` (over Q only) it returns ``(N, d)`` with ``X = N / d``:
    the integer matrix ``N`` in ``A``'s integer type (an ``fmpz_mat`` for python-flint,
    an object array for numpy) over the least common denominator ``d > 0`` (an
    ``fmpz`` for python-flint), as FLINT's ``fmpz_mat_solve`` gives it. That skips
    reducing each entry on its own: a gcd of each numerator with ``d``, 40 % of the
    library's time for a 4000² system, and for python-flint's ``fmpq_mat`` a second gcd
    per entry in python-flint itself, which costs more than the solve.

    >>> solve([[2, 1], [1, 3]], [[1], [2]])
    [[Fraction(1, 5)], [Fraction(3, 5)]]
    >>> solve([[2, 1], [1, 3]], [[1], [2]], denominator=True)
    ([[1], [3]], 5)
    """
    engine = _engine(backend)
    column = _column(B)
    if column is None:
        return engine.solve(A, B, mod=mod, denominator=denominator)
    x = engine.solve(A, column, mod=mod, denominator=denominator)
    return (_flat(x[0]), x[1]) if denominator else _flat(x)


def inverse(A, *, mod=None, backend="auto", denominator=False):
    """inverse(A, *, mod=None, backend="auto", denominator=False) -> list

    The inverse of the square matrix ``A``, in ``A``'s type: for lists, rows of
    ``fractions.Fraction`` over Q, or of ints in [0, p) with ``mod=p``. With
    ``denominator=True`` (over Q only), ``(N, d)`` with ``A⁻¹ = N / d`` as for
    :func:`solve`. Raises ``ZeroDivisionError`` when ``A`` is singular.

    >>> inverse([[2, 1], [1, 1]])
    [[Fraction(1, 1), Fraction(-1, 1)], [Fraction(-1, 1), Fraction(2, 1)]]
    >>> inverse([[2, 0], [0, 3]], denominator=True)
    ([[3, 0], [0, 2]], 6)
    """
    return _engine(backend).inverse(A, mod=mod, denominator=denominator)


def matmul(A, B, *, mod=None, backend="auto"):
    """matmul(A, B, *, mod=None, backend="auto") -> list or Matrix

    The product ``A · B`` in ``A``'s type: for lists, rows of exact ints, or of ints in
    [0, p) with ``mod=p``. When ``A`` or ``B`` is an :class:`rns.Matrix`, the product is
    an :class:`rns.Matrix` too (no Python ints are made until its entries are read).

    >>> matmul([[1, 2], [3, 4]], [[5], [6]])
    [[17], [39]]
    >>> matmul(Matrix([[1, 2], [3, 4]]), [[5], [6]])[1, 0]
    39
    """
    return _engine(backend).matmul(A, B, mod=mod)


def resultant(f, g, *, mod=None, backend="auto"):
    """resultant(f, g, *, mod=None, backend="auto") -> int

    The resultant of the polynomials ``f`` and ``g`` of Z[x], given as coefficient
    lists, constant term first, or as ``fmpz_poly``: the determinant of their Sylvester
    matrix (1 for two non-zero constants, 0 when either is the zero polynomial, as in
    FLINT). With ``mod=p``, that integer's residue in [0, p).

    >>> resultant([-2, 0, 1], [-3, 0, 1])   # x^2 - 2 and x^2 - 3
    1
    """
    return _engine(backend).resultant(f, g, mod=mod)


def resultant_xy(f, g, *, mod=None, backend="auto"):
    """resultant_xy(f, g, *, mod=None, backend="auto") -> list

    The resultant in ``y`` of ``f, g ∈ Z[x, y]``, given as dicts ``{(i, j): c}`` for the
    terms c·x^i·y^j (or python-flint ``fmpz_mpoly`` in the variables x, y): the
    coefficients of res_y(f, g) ∈ Z[x], constant term first, without trailing zeros
    (``[]`` for the zero polynomial). With ``mod=p``, the coefficients' residues.

    >>> resultant_xy({(0, 2): 1, (1, 0): -1}, {(0, 1): 1, (0, 0): -2})   # y^2 - x, y - 2
    [4, -1]
    """
    return _engine(backend).resultant_xy(f, g, mod=mod)
