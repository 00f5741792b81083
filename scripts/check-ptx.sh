#!/usr/bin/env bash
# Checks the kernels' PTX (built by host/build.rs) with NVIDIA's ptxas for sm_90:
# it must assemble, call no external function (a panic path would), and spill nothing.
# Installs ptxas from PyPI (nvidia-cuda-nvcc-cu12) when it is missing (scripts/ptxas.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PTXAS=$(scripts/ptxas.sh)
cargo build --release -p rns >/dev/null 2>&1 || cargo build --release -p rns
PTX=$(ls -t target/release/build/rns-*/out/rns_device.ptx | head -1)
if grep -n '\.extern \.func' "$PTX"; then
    echo "check-ptx: FAILED: the PTX calls external functions (a panicking path in a kernel?)"
    exit 1
fi
REPORT=$("$PTXAS" -arch=sm_90 -v "$PTX" -o /dev/null 2>&1) || { echo "$REPORT"; echo "check-ptx: FAILED: ptxas rejected the PTX"; exit 1; }
if echo "$REPORT" | grep -E '[1-9][0-9]* bytes spill'; then
    echo "check-ptx: FAILED: register spills"
    exit 1
fi
echo "$REPORT" | grep -E "Compiling entry|registers" | paste - - | sed -E "s/.*function '([a-z_]+)'.*Used ([0-9]+) registers.*/\1: \2 registers/" | tr '\n' ' '
echo
echo "check-ptx: ok ($(grep -c '^\.visible \.entry' "$PTX") kernels, no spills, no external calls)"
