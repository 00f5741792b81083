"""Issue 50: calls that never returned. Repeated calls on one engine, on engines of one
and of every device, and from threads, each under a watchdog (a call that does not
return fails the test, never hangs it). On the two-H100 host the second
`resultant_xy` below did not return: the rayon workers deadlocked on a basis table
built inside a parallel loop (`rns::lazy`). It runs on every backend here; on a GPU
with RNS_REQUIRE_GPU=1 it is the issue's own reproduction."""

import concurrent.futures
import random
import threading

import pytest

import rns

from conftest import BACKENDS

# Seconds a call may take before the test calls it a hang (the slowest below takes
# under 2 s on the 2-core machine's CPU backend).
HANG = 120


def watched(f, *args):
    """f(*args) on a thread; fails the test when it does not return within HANG s."""
    out = {}

    def run():
        try:
            out["value"] = f(*args)
        except BaseException as e:  # noqa: BLE001 - re-raised below
            out["error"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(HANG)
    assert not t.is_alive(), f"{getattr(f, '__name__', f)} did not return in {HANG} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


def dense(rng, d, bits):
    return {(i, j): rng.randrange(-(2**bits), 2**bits) for i in range(d + 1) for j in range(d + 1)}


def engines(backend):
    """An engine on device 0 and one on every device (the same for the CPU)."""
    if backend == "gpu":
        return [rns.Engine("gpu", devices=[0]), rns.Engine("gpu", devices="all")]
    return [rns.Engine(backend), rns.Engine(backend)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_resultant_xy_repeated_on_engines_of_one_and_all_devices(backend):
    rng = random.Random(4)
    d = 80 if backend == "gpu" else 12
    f, g = dense(rng, d, 63), dense(rng, d, 63)
    answers = []
    for e in engines(backend):
        for _ in range(3):
            answers.append(watched(e.resultant_xy, f, g))
    assert all(a == answers[0] for a in answers)


@pytest.mark.parametrize("backend", BACKENDS)
def test_interleaved_calls_from_threads(backend):
    rng = random.Random(5)
    n = 120 if backend == "gpu" else 24
    a = [[rng.randrange(-(2**63), 2**63) for _ in range(n)] for _ in range(n)]
    f = [rng.randrange(-(2**200), 2**200) for _ in range(200)]
    g = [rng.randrange(-(2**200), 2**200) for _ in range(150)]
    fx, gx = dense(rng, 6, 40), dense(rng, 5, 40)
    calls = [
        ("det", lambda e: e.det(a)),
        ("matmul", lambda e: e.matmul(a, a)),
        ("resultant", lambda e: e.resultant(f, g)),
        ("resultant_xy", lambda e: e.resultant_xy(fx, gx)),
        ("det mod p", lambda e: e.det(a, mod=2147483629)),
    ]
    es = engines(backend)
    want = {name: watched(c, es[0]) for name, c in calls}

    def work(t):
        for k in range(3):
            for name, c in calls[t % len(calls):] + calls[: t % len(calls)]:
                assert watched(c, es[(t + k) % len(es)]) == want[name], name

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
