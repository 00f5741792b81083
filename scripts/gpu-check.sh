#!/usr/bin/env bash
# Builds the test and benchmark binaries here, then (with --run, on the device machine)
# runs the whole test suite with RNS_REQUIRE_GPU=1 and the GPU benchmarks.
#
#   scripts/gpu-check.sh            # here: build everything into gpu-bundle/ (ignored by git)
#   scripts/gpu-check.sh --run      # there: run what gpu-bundle/ holds (carry gpu-bundle)
set -euo pipefail
cd "$(dirname "$0")/.."
B=gpu-bundle
if [ "${1:-}" != "--run" ]; then
    rm -rf $B && mkdir -p $B/bin
    cargo test --workspace --release --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' > $B/tests.txt
    while read -r exe; do cp "$exe" $B/bin/; done < $B/tests.txt
    cargo build --release --bins --examples
    cp target/release/rns target/release/examples/gpu_bench target/release/examples/determinant $B/
    cp device/reference/mul_chain.cu $B/
    PTX=$(ls -t target/release/build/rns-*/out/rns_device.ptx | head -1)
    cp "$PTX" $B/rns_device.ptx
    strip --strip-debug $B/bin/* $B/rns $B/gpu_bench $B/determinant
    du -sh $B
    exit 0
fi
export RNS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true
status=0
for t in $B/bin/*; do
    name=$(basename "$t")
    # The CLI test needs the binary where cargo put it.
    if [[ $name == cli-* ]]; then export RNS_BIN=$PWD/$B/rns; fi
    echo "== $name"
    "$t" --test-threads=4 2>&1 | grep -E "^test |test result|SKIPPED|panicked|FAILED" || status=1
done
echo "== ptxas + SASS of the Rust kernels"
ptxas -arch=sm_90 -v $B/rns_device.ptx -o /tmp/rns.cubin 2>&1 | grep -A2 "rns_mul_chain" | tail -2
cuobjdump -sass /tmp/rns.cubin | awk '/Function : rns_mul_chain/,/EXIT/' | grep -E "I2F|DFMA|IMAD|VIMNMX|IMNMX|ISETP" | head -20
echo "== CUDA C reference"
nvcc -O3 -arch=sm_90 -o /tmp/mul_chain $B/mul_chain.cu && /tmp/mul_chain $((1<<22)) 256
echo "== Rust benchmarks"
$B/gpu_bench || status=1
/tmp/mul_chain $((1<<22)) 256
exit $status
