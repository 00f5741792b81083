#!/usr/bin/env bash
# The README's test command: the Rust tests of the whole workspace, then the Python
# package built and installed into .venv and its tests (against python-flint).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --release
scripts/python-env.sh
.venv/bin/python -m pytest -q -rs python/tests
