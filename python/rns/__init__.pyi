from fractions import Fraction
from typing import Any, Dict, Iterator, List, Literal, Optional, Sequence, SupportsIndex, Tuple, Union, overload


BackendName = Literal["auto", "cpu", "gpu"]
# Lists of rows of ints, 2-D numpy integer arrays, fmpz_mat, nmod_mat or rns.Matrix.
MatrixLike = Any
# Lists (or tuples) of rows of ints: results come back as lists.
Rows = Sequence[Sequence[SupportsIndex]]
# Coefficient lists (constant term first), 1-D numpy integer arrays or fmpz_poly.
PolyLike = Union[Sequence[SupportsIndex], Any]
# {(i, j): c} for the terms c·x^i·y^j, or fmpz_mpoly in x, y.
BiPolyLike = Union[Dict[Tuple[int, int], SupportsIndex], Any]

class GpuUnavailable(RuntimeError):
    """No usable CUDA GPU for backend="gpu"."""

class GpuStalled(RuntimeError):
    """The GPU made no progress for the stall limit (RNS_GPU_STALL_S, 60 s by default)."""

class Matrix:
    """An integer matrix converted once, for repeated work without conversion."""

    def __init__(self, a: MatrixLike) -> None: ...
    def nrows(self) -> int: ...
    def ncols(self) -> int: ...
    @property
    def shape(self) -> Tuple[int, int]: ...
    def tolist(self) -> List[List[int]]: ...
    def __len__(self) -> int: ...
    @overload
    def __getitem__(self, key: Tuple[int, int]) -> int: ...
    @overload
    def __getitem__(self, key: int) -> List[int]: ...
    def __iter__(self) -> Iterator[List[int]]: ...
    def to_numpy(self) -> Any:
        """A 2-D numpy array: int64 when every entry fits, else dtype object of ints."""
    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> Any: ...
    def to_fmpz_mat(self) -> Any:
        """The matrix as python-flint's fmpz_mat (ImportError without python-flint)."""

class Engine:
    """Where computations run: "cpu", "gpu" (every usable device by default, or device
    `device`, or several `devices`) or "auto"."""

    def __init__(
        self,
        backend: BackendName = "auto",
        device: Optional[int] = None,
        devices: Union[Sequence[int], Literal["all"], None] = None,
    ) -> None: ...
    @property
    def backend_name(self) -> str: ...
    @property
    def device(self) -> int: ...
    @property
    def devices(self) -> Union[List[int], Literal["all"]]: ...
    @property
    def last_seconds(self) -> float: ...
    def det(self, a: MatrixLike, *, mod: Optional[int] = None) -> int: ...
    def rank(self, a: MatrixLike, *, mod: Optional[int] = None) -> int: ...
    @overload
    def matmul(self, a: Matrix, b: MatrixLike, *, mod: Optional[int] = None) -> Matrix: ...
    @overload
    def matmul(self, a: MatrixLike, b: Matrix, *, mod: Optional[int] = None) -> Matrix: ...
    @overload
    def matmul(self, a: Rows, b: MatrixLike, *, mod: Optional[int] = None) -> List[List[int]]: ...
    @overload
    def matmul(self, a: MatrixLike, b: MatrixLike, *, mod: Optional[int] = None) -> Any: ...
    @overload
    def solve(
        self, a: Rows, b: MatrixLike, *, mod: Optional[int] = None, denominator: bool = False
    ) -> List[List[Union[Fraction, int]]]: ...
    @overload
    def solve(self, a: MatrixLike, b: MatrixLike, *, mod: Optional[int] = None, denominator: bool = False) -> Any: ...
    @overload
    def inverse(
        self, a: Rows, *, mod: Optional[int] = None, denominator: bool = False
    ) -> List[List[Union[Fraction, int]]]: ...
    @overload
    def inverse(self, a: MatrixLike, *, mod: Optional[int] = None, denominator: bool = False) -> Any: ...
    def charpoly(self, a: MatrixLike, *, mod: Optional[int] = None) -> Any: ...
    def minpoly(self, a: MatrixLike, *, mod: Optional[int] = None) -> Any: ...
    def rref(self, a: MatrixLike, *, mod: Optional[int] = None) -> Tuple[Any, int]: ...
    def nullspace(self, a: MatrixLike, *, mod: Optional[int] = None) -> Tuple[Any, int]: ...
    def resultant(self, f: PolyLike, g: PolyLike, *, mod: Optional[int] = None) -> int: ...
    def resultant_xy(self, f: BiPolyLike, g: BiPolyLike, *, mod: Optional[int] = None) -> List[int]: ...

def backends() -> List[str]:
    """The usable backends: "cpu", and "gpu" when a CUDA device can be opened."""

def det(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> int:
    """The exact determinant (an int in [0, p) with mod=p)."""

def rank(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> int:
    """The rank over Q (over Z/pZ with mod=p)."""

def charpoly(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Any:
    """det(x·I − A): coefficients constant first (ints; fmpz_poly/nmod_poly for python-flint input)."""

def minpoly(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Any:
    """The monic polynomial of least degree vanishing at A, constant first (fmpz_poly/nmod_poly for python-flint input)."""

def rref(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Tuple[Any, int]:
    """The reduced row echelon form in A's type (rationals over Q, ints mod p) and the rank."""

def nullspace(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Tuple[Any, int]:
    """A nullspace basis as the columns of an n × nullity matrix in A's type, and the nullity."""

@overload
def solve(
    A: Rows,
    B: Union[MatrixLike, Sequence[SupportsIndex]],
    *,
    mod: Optional[int] = None,
    backend: BackendName = "auto",
    denominator: bool = False,
) -> Any: ...
@overload
def solve(
    A: MatrixLike,
    B: Union[MatrixLike, Sequence[SupportsIndex]],
    *,
    mod: Optional[int] = None,
    backend: BackendName = "auto",
    denominator: bool = False,
) -> Any:
    """The solution of A X = B in A's type: for lists, rows of Fractions over Q, of ints mod p;
    with denominator=True, (N, d) with X = N / d."""

@overload
def inverse(
    A: Rows, *, mod: Optional[int] = None, backend: BackendName = "auto", denominator: bool = False
) -> Any: ...
@overload
def inverse(A: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto", denominator: bool = False) -> Any:
    """The inverse in A's type: for lists, rows of Fractions over Q, of ints mod p; with
    denominator=True, (N, d) with A⁻¹ = N / d."""

@overload
def matmul(A: Matrix, B: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Matrix: ...
@overload
def matmul(A: MatrixLike, B: Matrix, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Matrix: ...
@overload
def matmul(A: Rows, B: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> List[List[int]]: ...
@overload
def matmul(A: MatrixLike, B: MatrixLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> Any:
    """The exact product (mod p with mod=p) in A's type; an rns.Matrix when A or B is one."""

def resultant(f: PolyLike, g: PolyLike, *, mod: Optional[int] = None, backend: BackendName = "auto") -> int:
    """The resultant of f, g in Z[x] (coefficients constant term first)."""

def resultant_xy(
    f: BiPolyLike, g: BiPolyLike, *, mod: Optional[int] = None, backend: BackendName = "auto"
) -> List[int]:
    """The coefficients (constant first) of res_y(f, g) in Z[x]."""
