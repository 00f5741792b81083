"""The differential slice of every test run: thousands of seeded random and adversarial
cases (every operation, over Z/Q and modulo primes) against FLINT through the package,
per backend, and a few hundred through the `rns` CLI. `scripts/flint_sweep.py` runs the
same generator for as long as asked."""

import os
from pathlib import Path

import pytest

import differential
import rns

CASES = int(os.environ.get("RNS_DIFF_CASES", "6000"))
SEEDS = {"cpu": 1, "auto": 2, "gpu": 3}


def test_random_cases_match_flint(backend):
    done, per_op, bad = differential.run(SEEDS[backend], CASES, backend)
    assert not bad, f"{len(bad)} of {done} cases differ from FLINT:\n" + "\n".join(bad[:20])
    assert done == CASES
    assert len(per_op) == 22, per_op  # every operation, over Z/Q and mod p


def test_a_planted_error_is_caught(monkeypatch):
    det = rns.det
    monkeypatch.setattr(rns, "det", lambda a, **k: det(a, **k) + (len(a) == 3))
    done, _, bad = differential.run(2, 400, "cpu")
    assert bad and all("det" in b for b in bad), bad[:3]


def rns_binary():
    given = os.environ.get("RNS_BIN")
    if given:
        return given
    built = Path(__file__).resolve().parents[2] / "target" / "release" / "rns"
    return str(built) if built.exists() else None


def test_cli_cases_match_flint():
    binary = rns_binary()
    if binary is None:
        if os.environ.get("CI"):
            pytest.fail("the rns binary is not built (cargo build --release)")
        pytest.skip("the rns binary is not built (cargo build --release); set RNS_BIN")
    done, bad = differential.run_cli(binary, 7, 300)
    assert not bad, "\n".join(bad[:20])
    assert done == 300
