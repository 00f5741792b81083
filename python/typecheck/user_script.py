"""A small user script that `mypy --strict` checks against the package's type
information (`py.typed`, `rns/__init__.pyi`) in CI (scripts/test.sh)."""

from fractions import Fraction

import rns


def main() -> None:
    a: list[list[int]] = [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]
    d: int = rns.det(a)
    r: int = rns.rank(a, mod=2147483647)
    x = rns.solve(a, [1, 0, 0])
    first: Fraction = x[0]
    m = rns.Matrix(a)
    p = rns.matmul(m, m)
    rows: list[list[int]] = p.tolist()
    res: int = rns.resultant([-2, 0, 1], [-3, 0, 1])
    xy: list[int] = rns.resultant_xy({(0, 0): -2, (0, 2): 1}, {(1, 0): -1, (0, 1): 1})
    engine = rns.Engine("cpu")
    e: int = engine.det(a)
    usable: list[str] = rns.backends()
    try:
        rns.det(a, backend="gpu")
    except (rns.GpuUnavailable, rns.GpuStalled) as err:
        print(err)
    print(d, r, first, rows, res, xy, e, usable)


if __name__ == "__main__":
    main()
