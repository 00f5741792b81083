#!/usr/bin/env bash
# Checks the kernels' PTX (built by host/build.rs) with NVIDIA's ptxas for sm_90, and
# the module of kernels that need sm_90a (wgmma) for sm_90a: each must assemble, call no
# external function (a panic path would), and spill nothing.
# Installs ptxas from PyPI (nvidia-cuda-nvcc-cu12) when it is missing (scripts/ptxas.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PTXAS=$(scripts/ptxas.sh)
cargo build --release -p rns >/dev/null 2>&1 || cargo build --release -p rns
OUT=$(dirname "$(ls -t target/release/build/rns-*/out/rns_device.ptx | head -1)")
kernels=0
for pair in "rns_device.ptx sm_90" "rns_device_sm90a.ptx sm_90a"; do
    set -- $pair
    PTX=$OUT/$1
    if grep -n '\.extern \.func' "$PTX"; then
        echo "check-ptx: FAILED: $1 calls external functions (a panicking path in a kernel?)"
        exit 1
    fi
    REPORT=$("$PTXAS" -arch=$2 -v "$PTX" -o /dev/null 2>&1) || { echo "$REPORT"; echo "check-ptx: FAILED: ptxas rejected $1"; exit 1; }
    if echo "$REPORT" | grep -E '[1-9][0-9]* bytes spill'; then
        echo "check-ptx: FAILED: register spills in $1"
        exit 1
    fi
    if echo "$REPORT" | grep -i 'warning'; then
        echo "check-ptx: FAILED: ptxas warns about $1 (a wgmma serialized?)"
        exit 1
    fi
    echo "$REPORT" | grep -E "Compiling entry|registers" | paste - - | sed -E "s/.*function '([a-z_]+)'.*Used ([0-9]+) registers.*/\1: \2 registers/" | tr '\n' ' '
    echo
    kernels=$((kernels + $(grep -c '^\.visible \.entry' "$PTX")))
done
echo "check-ptx: ok ($kernels kernels, no spills, no external calls)"
