#!/usr/bin/env bash
# Prints the path of NVIDIA's ptxas (on the PATH, or from Python's nvidia-cuda-nvcc-cu12
# package, which it installs, about 40 MB, when neither has it). host/build.rs uses it
# for the kernels' machine code (RNS_PTXAS), scripts/check-ptx.sh to check the PTX.
set -euo pipefail
from_pip() {
    python3 -c 'import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], "bin", "ptxas"))' 2>/dev/null || true
}
p=$(command -v ptxas || true)
[ -n "$p" ] || p=$(from_pip)
if [ -z "$p" ] || [ ! -x "$p" ]; then
    python3 -m pip install -q nvidia-cuda-nvcc-cu12 >/dev/null 2>&1
    p=$(from_pip)
fi
[ -x "$p" ] || { echo "ptxas.sh: no ptxas (pip install nvidia-cuda-nvcc-cu12 failed)" >&2; exit 1; }
echo "$p"
