#!/usr/bin/env bash
# Builds the Python package (python/, by maturin) and installs it into the virtual
# environment .venv, creating it (with maturin, pytest, numpy, python-flint and mypy) when it
# is missing. Idempotent: a second run only rebuilds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/pytest ] || [ ! -x .venv/bin/maturin ] || [ ! -x .venv/bin/mypy ]; then
    python3 -m venv .venv
    .venv/bin/pip install -q --upgrade pip
    .venv/bin/pip install -q "maturin>=1.9,<2" pytest numpy python-flint mypy
fi
# ptxas from the system's Python (the build's python3 is the venv's): machine code.
RNS_PTXAS=${RNS_PTXAS:-$(scripts/ptxas.sh 2>/dev/null || true)}
export RNS_PTXAS
PATH="$PWD/.venv/bin:$PATH" .venv/bin/pip install -q --no-build-isolation --force-reinstall --no-deps ./python
