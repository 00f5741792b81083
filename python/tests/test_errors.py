"""Every error the package promises: the right exception with a clear message, never a
panic or a wrong answer."""

import pytest

import rns
from conftest import P


@pytest.mark.parametrize(
    "call, exc, match",
    [
        (lambda: rns.det([[1, 2, 3], [4, 5, 6]]), ValueError, "square"),
        (lambda: rns.det([[1, 2], [3]]), ValueError, "different lengths"),
        (lambda: rns.matmul([[1, 2]], [[1, 2]]), ValueError, "cannot multiply"),
        (lambda: rns.solve([[1, 2], [3, 4]], [[1]]), ValueError, "rows"),
        (lambda: rns.inverse([[1, 2]]), ValueError, "square"),
        (lambda: rns.det([[1]], mod=1000), ValueError, "prime"),
        (lambda: rns.det([[1]], mod=2**31 - 3), ValueError, None),
        (lambda: rns.det([[1]], mod=-5), ValueError, "prime"),
        (lambda: rns.det([[1]], mod=2**64 + 13), ValueError, "prime"),
        (lambda: rns.rank([[1]], mod=4), ValueError, "prime"),
        (lambda: rns.resultant([], [1, 2]), ValueError, "empty"),
        (lambda: rns.resultant_xy({}, {(0, 1): 1}), ValueError, "empty"),
        (lambda: rns.resultant_xy({(0,): 1}, {(0, 1): 1}), ValueError, r"\(i, j\)"),
        (lambda: rns.resultant_xy({(0, -1): 1}, {(0, 1): 1}), ValueError, "non-negative"),
        (lambda: rns.inverse([[1, 2], [2, 4]]), ZeroDivisionError, "singular"),
        (lambda: rns.solve([[0, 0], [0, 0]], [[1], [1]]), ZeroDivisionError, "singular"),
        (lambda: rns.inverse([[1, 0], [0, P]], mod=P), ZeroDivisionError, str(P)),
        (lambda: rns.det([[1.5]]), TypeError, "integer"),
        (lambda: rns.det("12"), TypeError, "matrix"),
        (lambda: rns.det(5), TypeError, "matrix"),
        (lambda: rns.det([1, 2]), TypeError, "rows"),
        (lambda: rns.det([["a"]]), TypeError, None),
        (lambda: rns.det({(0, 0): 1}), TypeError, "matrix"),
        (lambda: rns.resultant({(0, 0): 1}, [1]), TypeError, "resultant_xy"),
        (lambda: rns.resultant("x+1", [1]), TypeError, "polynomial"),
        (lambda: rns.resultant_xy([1, 2], {(0, 1): 1}), TypeError, "dict"),
        (lambda: rns.resultant_xy({"a": 1}, {(0, 1): 1}), TypeError, "tuple"),
        (lambda: rns.det([[1]], backend="tpu"), ValueError, "backend"),
        (lambda: rns.Engine("fast"), ValueError, "backend"),
        (lambda: rns.Engine("cpu", devices=[0, 0]), ValueError, "twice"),
        (lambda: rns.Engine("cpu", devices=[]), ValueError, "empty"),
        (lambda: rns.Engine("cpu", devices="most"), ValueError, "all"),
        (lambda: rns.Engine("cpu", devices=[-1]), OverflowError, "negative|unsigned|convert"),
    ],
)
def test_errors(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_gpu_stalled_is_a_runtime_error_apart_from_gpu_unavailable():
    # Raised when the GPU made no progress for the stall limit (tests/gpu_stall.rs
    # makes kernels stall on purpose on a GPU host).
    assert issubclass(rns.GpuStalled, RuntimeError)
    assert not issubclass(rns.GpuStalled, rns.GpuUnavailable)
    assert "GpuStalled" in rns.__all__


def test_gpu_unavailable_is_a_runtime_error():
    assert issubclass(rns.GpuUnavailable, RuntimeError)
    if "gpu" in rns.backends():
        with pytest.raises(rns.GpuUnavailable):
            rns.Engine("gpu", device=63)
    else:
        with pytest.raises(rns.GpuUnavailable, match="CUDA"):
            rns.det([[1]], backend="gpu")
        with pytest.raises(rns.GpuUnavailable):
            rns.Engine("gpu")


def test_help_reads_like_flint():
    for f in (rns.det, rns.rank, rns.solve, rns.inverse, rns.matmul, rns.resultant, rns.resultant_xy):
        doc = f.__doc__
        assert doc.startswith(f.__name__ + "(") and ">>>" in doc and "backend" in doc


def test_device_lists():
    assert rns.Engine("cpu").devices == "all"
    assert rns.Engine("cpu").device == 0
    assert rns.Engine("cpu", device=3).devices == [3]
    assert rns.Engine("cpu", devices=[1, 0]).devices == [1, 0]
    assert rns.Engine("cpu", devices=[1, 0]).device == 1
    assert rns.Engine("cpu", devices="all").devices == "all"
    assert "devices=[2]" in repr(rns.Engine("cpu", device=2))


def test_several_gpus_give_the_answers_of_one():
    if "gpu" not in rns.backends():
        pytest.skip("no usable GPU")
    a = [[(i * 7 + j * 13) % 101 - 50 + (i == j) * 1000 for j in range(40)] for i in range(40)]
    one = rns.Engine("gpu", device=0)
    every = rns.Engine("gpu")
    assert every.det(a) == one.det(a) == rns.det(a, backend="cpu")
    b = [[i - 20] for i in range(40)]
    assert every.solve(a, b) == rns.solve(a, b, backend="cpu")


def test_a_failing_device_operation_raises_and_the_next_call_works():
    """RNS_GPU_FAULT (the library's test hook) fails the first allocation or launch of
    the device: MemoryError or RuntimeError, then the right answer on the next call."""
    if "gpu" not in rns.backends():
        pytest.skip("no usable GPU")
    import subprocess
    import sys
    import os

    script = (
        "import rns\n"
        "a = [[2, -1, 0], [-1, 2, -1], [0, -1, 2]]\n"
        "try:\n"
        "    rns.det(a, backend='gpu')\n"
        "except (MemoryError, RuntimeError) as e:\n"
        "    print(type(e).__name__, e)\n"
        "print(rns.det(a, backend='gpu'))\n"
    )
    for site, exc in [("alloc", "MemoryError"), ("launch", "RuntimeError")]:
        env = dict(os.environ, RNS_GPU_FAULT=f"{site}:1")
        out = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        first, second = out.stdout.strip().splitlines()
        assert first.startswith(exc) and f"injected {site}" in first, first
        assert second == "4"
