"""Differential testing against FLINT (python-flint): a seeded generator of random and
adversarial cases for every operation, each run through rns (the Python package over
the library, or the `rns` CLI) and through FLINT, the answers compared.

Used by `test_differential.py` (a time-bounded slice in every test run) and by
`scripts/flint_sweep.py` (long sweeps, any backend).
"""

import math
import os
import random
import subprocess
import tempfile
import time
from fractions import Fraction

import flint

import rns

PRIMES = [2**31 - 1, 2147483629, 1073741827]
# Primes every rns basis starts with (the largest below 2^31): entries and leading
# coefficients divisible by them are adversarial.
BASIS_PRIMES = [2**31 - 1, 2147483629, 2147483587]
BITS = [1, 2, 8, 31, 32, 33, 63, 64, 65, 200, 1000]


def rand_int(rng, bits):
    r = rng.random()
    if r < 0.04:
        return 0
    if r < 0.08:
        return rng.choice([1, -1, 2, -2])
    if r < 0.12:
        p = rng.choice(PRIMES + BASIS_PRIMES)
        return rng.choice([p - 1, -(p - 1), p, -p, p * rng.randint(1, 9), (p + 1) // 2])
    if r < 0.16:
        return rng.choice([1, -1]) * (2**bits - 1)
    return rng.randrange(-(2**bits) + 1, 2**bits)


def rand_matrix(rng, rows, cols, bits):
    return [[rand_int(rng, bits) for _ in range(cols)] for _ in range(rows)]


def matrix_case(rng, n, m=None):
    """A random matrix of one of the adversarial kinds (`n × m`, square by default)."""
    m = n if m is None else m
    bits = rng.choice(BITS)
    kind = rng.choice(["random", "random", "singular", "low rank", "unimodular", "mixed", "factor", "sparse"])
    if kind == "singular" and n > 1:
        a = rand_matrix(rng, n, m, bits)
        i, j = rng.sample(range(n), 2)
        c = rng.randint(-3, 3)
        a[i] = [c * x for x in a[j]]
        return a, kind
    if kind == "low rank" and min(n, m) > 1:
        k = rng.randint(1, min(n, m) - 1)
        return int_rows(flint.fmpz_mat(rand_matrix(rng, n, k, min(bits, 60))) * flint.fmpz_mat(rand_matrix(rng, k, m, min(bits, 60)))), kind
    if kind == "unimodular" and n == m:
        # A product of unit lower and upper triangular matrices: det = ±1.
        lo = [[1 if i == j else (rand_int(rng, 8) if j < i else 0) for j in range(n)] for i in range(n)]
        up = [[(-1 if i == 0 else 1) if i == j else (rand_int(rng, 8) if j > i else 0) for j in range(n)] for i in range(n)]
        return int_rows(flint.fmpz_mat(lo) * flint.fmpz_mat(up)), kind
    if kind == "mixed":
        return [[rand_int(rng, rng.choice([1, 1000])) for _ in range(m)] for _ in range(n)], kind
    if kind == "factor":
        a = rand_matrix(rng, n, m, min(bits, 64))
        f = rng.choice(BASIS_PRIMES + [2**64 + 13, 3**40])
        r = rng.randrange(n)
        a[r] = [f * x for x in a[r]]
        return a, kind
    if kind == "sparse":
        return [[rand_int(rng, bits) if rng.random() < 0.2 else 0 for _ in range(m)] for _ in range(n)], kind
    return rand_matrix(rng, n, m, bits), "random"


def int_rows(m):
    return [[int(m[i, j]) for j in range(m.ncols())] for i in range(m.nrows())]


def fraction_rows(m):
    return [[Fraction(int(m[i, j].p), int(m[i, j].q)) for j in range(m.ncols())] for i in range(m.nrows())]


def nmod_rows(m):
    return [[int(m[i, j]) for j in range(m.ncols())] for i in range(m.nrows())]


def rand_poly(rng, deg, bits):
    c = [rand_int(rng, bits) for _ in range(deg + 1)]
    r = rng.random()
    if r < 0.15:
        c[-1] = rng.choice(BASIS_PRIMES) * rng.randint(1, 5)  # leading coefficient ≡ 0 mod a basis prime
    elif c[-1] == 0:
        c[-1] = rng.choice([1, -1, 3])
    return c


def rand_bipoly(rng):
    dy, dx = rng.randint(0, 3), rng.randint(0, 3)
    bits = rng.choice([2, 16, 64, 200])
    t = {(i, j): rand_int(rng, bits) for j in range(dy + 1) for i in range(dx + 1)}
    t[(rng.randint(0, dx), dy)] = rng.choice([1, -3, 2**31 - 1, 2**50])
    return {k: v for k, v in t.items() if v != 0} or {(0, 0): 1}


def mpoly_res(f, g):
    ctx = flint.fmpz_mpoly_ctx.get(("x", "y"))
    r = ctx.from_dict(f).resultant(ctx.from_dict(g), "y")
    d = {i: int(c) for (i, j), c in r.to_dict().items()}
    return [d.get(i, 0) for i in range(max(d) + 1)] if d else []


def outcome(f):
    """`("ok", value)` or `("singular", None)` for a ZeroDivisionError."""
    try:
        return ("ok", f())
    except ZeroDivisionError:
        return ("singular", None)


# One generator per operation: returns (description, rns call, FLINT call).
def case_det(rng, mod):
    a, kind = matrix_case(rng, rng.choice([1, 1, 2, 3, 4, 5, 8, 12, 20]))
    if mod:
        p = rng.choice(PRIMES)
        return f"det mod {p} {kind} {len(a)}", (lambda be: rns.det(a, mod=p, backend=be)), (lambda: int(flint.nmod_mat(a, p).det())), a
    return f"det {kind} {len(a)}", (lambda be: rns.det(a, backend=be)), (lambda: int(flint.fmpz_mat(a).det())), a


def case_rank(rng, mod):
    n, m = rng.randint(1, 12), rng.randint(1, 12)
    a, kind = matrix_case(rng, n, m)
    if mod:
        p = rng.choice(PRIMES)
        return f"rank mod {p} {kind} {n}×{m}", (lambda be: rns.rank(a, mod=p, backend=be)), (lambda: flint.nmod_mat(a, p).rank()), a
    return f"rank {kind} {n}×{m}", (lambda be: rns.rank(a, backend=be)), (lambda: flint.fmpz_mat(a).rank()), a


def primitive_columns(rows, k):
    """The first `k` columns of `rows`, each divided by its entries' gcd and signed so
    that its last non-zero entry (its non-pivot column) is positive, as rows."""
    cols = []
    for t in range(k):
        c = [row[t] for row in rows]
        g = math.gcd(*c)
        last = [x for x in c if x != 0][-1]
        s = 1 if last > 0 else -1
        cols.append([s * (x // g) for x in c])
    return [[cols[t][i] for t in range(k)] for i in range(len(rows))]


def case_rref(rng, mod):
    n, m = rng.randint(1, 12), rng.randint(1, 12)
    a, kind = matrix_case(rng, n, m)
    if mod:
        p = rng.choice(PRIMES)

        def want_mod():
            r, rank = flint.nmod_mat(a, p).rref()
            return nmod_rows(r), rank

        return f"rref mod {p} {kind} {n}×{m}", (lambda be: rns.rref(a, mod=p, backend=be)), want_mod, a

    def want():
        r, rank = flint.fmpq_mat(flint.fmpz_mat(a)).rref()
        return fraction_rows(r), rank

    return f"rref {kind} {n}×{m}", (lambda be: rns.rref(a, backend=be)), want, a


def case_nullspace(rng, mod):
    n, m = rng.randint(1, 12), rng.randint(1, 12)
    a, kind = matrix_case(rng, n, m)
    if mod:
        p = rng.choice(PRIMES)

        def want_mod():
            x, k = flint.nmod_mat(a, p).nullspace()
            return [row[:k] for row in nmod_rows(x)], k

        return f"nullspace mod {p} {kind} {n}×{m}", (lambda be: rns.nullspace(a, mod=p, backend=be)), want_mod, a

    def want():
        x, k = flint.fmpz_mat(a).nullspace()
        return primitive_columns(int_rows(x), k), k

    return f"nullspace {kind} {n}×{m}", (lambda be: rns.nullspace(a, backend=be)), want, a


def case_charpoly(rng, mod):
    a, kind = matrix_case(rng, rng.choice([1, 1, 2, 3, 4, 5, 8, 12]))
    if mod:
        p = rng.choice(PRIMES)
        return (
            f"charpoly mod {p} {kind} {len(a)}",
            (lambda be: rns.charpoly(a, mod=p, backend=be)),
            (lambda: [int(c) for c in flint.nmod_mat(a, p).charpoly().coeffs()]),
            a,
        )
    return (
        f"charpoly {kind} {len(a)}",
        (lambda be: rns.charpoly(a, backend=be)),
        (lambda: [int(c) for c in flint.fmpz_mat(a).charpoly().coeffs()]),
        a,
    )


def minpoly_reference(a):
    """The minimal polynomial of the square integer matrix `a` (coefficients, constant
    first) without FLINT's `fmpz_mat.minpoly`, which returns wrong answers for entries of
    hundreds of bits (`[[c, 0, 0], [0, 0, 0], [d, 0, 0]]` with 1000-bit c, d gives
    `x² + r·x` for a residue r of c): the characteristic polynomial, factored, with each
    irreducible factor divided out while the quotient still vanishes at A."""
    n = len(a)
    if n == 0:
        return [1]
    fa = flint.fmpz_mat(a)
    zero = flint.fmpz_mat(n, n)
    one = flint.fmpz_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])

    def vanishes(f):
        acc = zero
        for c in reversed(f.coeffs()):
            acc = acc * fa + one * int(c)
        return acc == zero

    mu = fa.charpoly()
    _, factors = mu.factor()
    for q, e in factors:
        for _ in range(e):
            t = mu // q
            if t.degree() < 0 or not vanishes(t):
                break
            mu = t
    return [int(c) for c in mu.coeffs()]


def case_minpoly(rng, mod):
    n = rng.choice([1, 1, 2, 3, 4, 5, 8, 12])
    a, kind = matrix_case(rng, n)
    if n > 1 and rng.random() < 0.3:
        # Derogatory: a diagonal with repeats, conjugated by elementary operations
        # (row i += c·row j, then column j −= c·column i).
        kind = "derogatory"
        c = rand_int(rng, 8)
        a = [[(c if i % 3 else c + 1) if i == j else 0 for j in range(n)] for i in range(n)]
        for _ in range(3 * n):
            i, j = rng.sample(range(n), 2)
            f = rng.randint(-2, 2)
            a[i] = [x + f * y for x, y in zip(a[i], a[j])]
            for row in a:
                row[j] -= f * row[i]
    if mod:
        p = rng.choice(PRIMES)
        return (
            f"minpoly mod {p} {kind} {len(a)}",
            (lambda be: rns.minpoly(a, mod=p, backend=be)),
            (lambda: [int(c) for c in flint.nmod_mat(a, p).minpoly().coeffs()]),
            a,
        )
    return (
        f"minpoly {kind} {len(a)}",
        (lambda be: rns.minpoly(a, backend=be)),
        (lambda: minpoly_reference(a)),
        a,
    )


def case_solve(rng, mod):
    n = rng.choice([1, 1, 2, 3, 4, 6, 9])
    a, kind = matrix_case(rng, n)
    a = [[x % 2**200 if abs(x) >= 2**200 else x for x in row] for row in a]  # FLINT's solve is slow beyond
    b = rand_matrix(rng, n, rng.randint(1, 3), rng.choice([1, 8, 64, 200]))
    if mod:
        p = rng.choice(PRIMES)
        return (
            f"solve mod {p} {kind} {n}",
            lambda be: outcome(lambda: rns.solve(a, b, mod=p, backend=be)),
            lambda: outcome(lambda: nmod_rows(flint.nmod_mat(a, p).solve(flint.nmod_mat(b, p)))),
            a,
        )
    return (
        f"solve {kind} {n}",
        lambda be: outcome(lambda: rns.solve(a, b, backend=be)),
        lambda: outcome(lambda: fraction_rows(flint.fmpz_mat(a).solve(flint.fmpz_mat(b)))),
        a,
    )


def case_inverse(rng, mod):
    n = rng.choice([1, 1, 2, 3, 4, 6, 9])
    a, kind = matrix_case(rng, n)
    a = [[x % 2**200 if abs(x) >= 2**200 else x for x in row] for row in a]
    if mod:
        p = rng.choice(PRIMES)
        return (
            f"inverse mod {p} {kind} {n}",
            lambda be: outcome(lambda: rns.inverse(a, mod=p, backend=be)),
            lambda: outcome(lambda: nmod_rows(flint.nmod_mat(a, p).inv())),
            a,
        )
    return (
        f"inverse {kind} {n}",
        lambda be: outcome(lambda: rns.inverse(a, backend=be)),
        lambda: outcome(lambda: fraction_rows(flint.fmpz_mat(a).inv())),
        a,
    )


def case_matmul(rng, mod):
    n, k, m = rng.randint(1, 10), rng.randint(1, 10), rng.randint(1, 10)
    a, kind = matrix_case(rng, n, k)
    b, _ = matrix_case(rng, k, m)
    if mod:
        p = rng.choice(PRIMES)
        return (
            f"matmul mod {p} {kind} {n}×{k}×{m}",
            lambda be: rns.matmul(a, b, mod=p, backend=be),
            lambda: nmod_rows(flint.nmod_mat(a, p) * flint.nmod_mat(b, p)),
            a,
        )
    return (
        f"matmul {kind} {n}×{k}×{m}",
        lambda be: rns.matmul(a, b, backend=be),
        lambda: int_rows(flint.fmpz_mat(a) * flint.fmpz_mat(b)),
        a,
    )


def case_resultant(rng, mod):
    bits = rng.choice([1, 16, 64, 300, 1000])
    f = rand_poly(rng, rng.choice([0, 0, 1, 2, 5, 12, 25]), bits)
    g = rand_poly(rng, rng.choice([0, 1, 2, 5, 12, 25]), bits)
    if rng.random() < 0.15:  # a common factor: resultant 0
        h = rand_poly(rng, rng.randint(1, 3), 8)
        f = [int(c) for c in (flint.fmpz_poly(f) * flint.fmpz_poly(h)).coeffs()]
        g = [int(c) for c in (flint.fmpz_poly(g) * flint.fmpz_poly(h)).coeffs()]
    want = lambda: int(flint.fmpz_poly(f).resultant(flint.fmpz_poly(g)))  # noqa: E731
    if mod:
        p = rng.choice(PRIMES)
        return f"resultant mod {p} deg {len(f) - 1}/{len(g) - 1}", (lambda be: rns.resultant(f, g, mod=p, backend=be)), (lambda: want() % p), f
    return f"resultant deg {len(f) - 1}/{len(g) - 1}", (lambda be: rns.resultant(f, g, backend=be)), want, f


def case_resultant_xy(rng, mod):
    f, g = rand_bipoly(rng), rand_bipoly(rng)
    if mod:
        p = PRIMES[0]

        def want():
            w = [c % p for c in mpoly_res(f, g)]
            while w and w[-1] == 0:
                w.pop()
            return w

        return "resultant_xy mod p", (lambda be: rns.resultant_xy(f, g, mod=p, backend=be)), want, f
    return "resultant_xy", (lambda be: rns.resultant_xy(f, g, backend=be)), (lambda: mpoly_res(f, g)), f


CASES = [
    case_det,
    case_rank,
    case_rref,
    case_nullspace,
    case_charpoly,
    case_minpoly,
    case_solve,
    case_inverse,
    case_matmul,
    case_resultant,
    case_resultant_xy,
]


def short(x, limit=300):
    r = repr(x)
    return r if len(r) <= limit else r[:limit] + f"… ({len(r)} chars)"


def run(seed, count, backend="cpu", seconds=None, on_case=None):
    """Runs up to `count` cases from `seed` (stopping after `seconds` when given);
    returns (cases run, per-operation counts, mismatches as descriptions)."""
    rng = random.Random(seed)
    start = time.monotonic()
    done, per_op, bad = 0, {}, []
    while done < count and (seconds is None or time.monotonic() - start < seconds):
        make = rng.choice(CASES)
        mod = rng.random() < 0.4
        what, ours, theirs, _ = make(rng, mod)
        want = theirs()
        got = ours(backend)
        if got != want:
            bad.append(f"case {done} (seed {seed}): {what}: rns {short(got)} FLINT {short(want)}")
        done += 1
        key = make.__name__[5:] + (" mod p" if mod else "")
        per_op[key] = per_op.get(key, 0) + 1
        if on_case:
            on_case(done)
    return done, per_op, bad


def write_matrix(path, a):
    with open(path, "w") as f:
        f.write(f"{len(a)} {len(a[0]) if a else 0}\n")
        for row in a:
            f.write(" ".join(str(x) for x in row) + "\n")


def matrix_text(rows, n=None, k=None):
    """The CLI's matrix text of `rows` (ints or Fractions; `n × k` given for no columns:
    the header alone)."""
    n = len(rows) if n is None else n
    k = len(rows[0]) if k is None else k
    if k == 0:
        return f"{n} 0\n"
    return f"{n} {k}\n" + "".join(" ".join(str(x) for x in r) + "\n" for r in rows)


def run_cli(rns_bin, seed, count, backend="cpu"):
    """Determinants, ranks, echelon forms, nullspaces, characteristic polynomials and
    products through the `rns` CLI
    (one process a case); returns (cases run, mismatches)."""
    rng = random.Random(seed)
    bad = []
    with tempfile.TemporaryDirectory() as d:
        pa, pb = os.path.join(d, "a.txt"), os.path.join(d, "b.txt")
        for i in range(count):
            op = rng.choice(["det", "rank", "rref", "nullspace", "charpoly", "minpoly", "matmul"])
            n = rng.choice([1, 2, 3, 5, 8, 13])
            a, kind = matrix_case(rng, n)
            write_matrix(pa, a)
            args = [rns_bin, op, pa, "--backend", backend]
            if op == "det":
                want = f"{int(flint.fmpz_mat(a).det())}\n"
            elif op == "rank":
                want = f"{flint.fmpz_mat(a).rank()}\n"
            elif op == "rref":
                r, _ = flint.fmpq_mat(flint.fmpz_mat(a)).rref()
                want = matrix_text(fraction_rows(r))
            elif op in ("charpoly", "minpoly"):
                poly = flint.fmpz_mat(a).charpoly().coeffs() if op == "charpoly" else minpoly_reference(a)
                want = " ".join(str(int(c)) for c in poly) + "\n"
            elif op == "nullspace":
                x, k = flint.fmpz_mat(a).nullspace()
                want = matrix_text(primitive_columns(int_rows(x), k), n, k)
            else:
                b, _ = matrix_case(rng, n, rng.randint(1, 6))
                write_matrix(pb, b)
                args.insert(3, pb)
                want = matrix_text(int_rows(flint.fmpz_mat(a) * flint.fmpz_mat(b)))
            out = subprocess.run(args, capture_output=True, text=True)
            if out.returncode != 0 or out.stdout != want:
                bad.append(f"cli case {i} (seed {seed}): {op} {kind} {n}: rc {out.returncode} {out.stderr.strip()}")
    return count, bad
