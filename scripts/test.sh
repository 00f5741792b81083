#!/usr/bin/env bash
# The README's test command: the Rust tests of the whole workspace; the MPI build and
# its mpirun tests (when OpenMPI is installed: `scripts/setup.sh --mpi`; required with
# RNS_REQUIRE_MPI=1); then the Python package built and installed into .venv and its
# tests (against python-flint), and the soak of issue 50 at small sizes on the CPU
# backend (scripts/soak.py; on a GPU host, scripts/gpu-check.sh --run --soak).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release
if command -v mpirun >/dev/null && dpkg -s libopenmpi-dev >/dev/null 2>&1; then
    cargo test --release -p rns-cli --features mpi --test mpi
elif [[ "${RNS_REQUIRE_MPI:-}" == 1 ]]; then
    echo "RNS_REQUIRE_MPI=1 but OpenMPI is not installed (scripts/setup.sh --mpi)" >&2
    exit 1
else
    echo "SKIPPED: the MPI tests (OpenMPI is not installed: scripts/setup.sh --mpi)" >&2
fi
scripts/python-env.sh
.venv/bin/python -m pytest -q -rs python/tests
# The package's type information, as a user's editor sees it.
.venv/bin/mypy --strict python/typecheck/user_script.py
cargo build --release -p rns-cli --bin rns
.venv/bin/python -u scripts/soak.py --backend cpu --sizes small --reps 5 --cli target/release/rns
