#!/usr/bin/env bash
# Installs what a fresh machine lacks: m4 (GMP's build needs it) and the pinned
# nightly toolchain with rust-src (rust-toolchain.toml).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v m4 >/dev/null; then
    (apt-get update -qq && apt-get install -y -qq m4) >/dev/null
fi
rustup toolchain install >/dev/null
# The Python package, built and installed into .venv (scripts/python-env.sh).
scripts/python-env.sh
