#!/usr/bin/env bash
# Builds the test and benchmark binaries here, then (with --run, on the device machine)
# runs the whole test suite with RNS_REQUIRE_GPU=1 and the GPU benchmarks.
#
#   scripts/gpu-check.sh            # here: build everything into gpu-bundle/ (ignored by git), packed
#                                   # into gpu-pack/bundle.tar.xz: carry gpu-pack (the bundle itself
#                                   # is over the 64 MiB a device call carries)
#   scripts/gpu-check.sh --with-cpu-benches    # here: and the criterion CPU benchmarks
#   scripts/gpu-check.sh --run      # there: run what gpu-bundle/ holds (unpacked from gpu-pack first)
#   scripts/gpu-check.sh --run --cpu-benches   # and the criterion CPU benchmarks there too
#   scripts/gpu-check.sh --run --compare       # and `rns compare` at full sizes
#   scripts/gpu-check.sh --run --flint         # and the FLINT comparisons (det, resultant)
#   scripts/gpu-check.sh --run --linalg        # and the matrix benchmarks against FLINT
#   scripts/gpu-check.sh --run --resultant     # and the resultant benchmarks against FLINT
#   scripts/gpu-check.sh --run --e2e           # and the end-to-end figures (examples/e2e_bench.rs)
#   scripts/gpu-check.sh --run --cli           # and the whole CLI against FLINT (scripts/cli_vs_flint.py)
#   scripts/gpu-check.sh --run --univariate    # and univariate resultants: kernels, CUDA C, CLI vs FLINT
#   scripts/gpu-check.sh --run --imma          # and the tensor-core products' SASS, cuBLAS INT8 (torch)
#   scripts/gpu-check.sh --run --roofline      # and the roofline table (examples/roofline/): cuBLAS INT8
#                                              # (torch) first, then every hot kernel against its limit
#   scripts/gpu-check.sh --run --product       # and the exact product 1024² 1000-bit: GPU variants, CPU,
#                                              # FLINT 1 and all threads, the whole `rns matmul` process
#   scripts/gpu-check.sh --run --python        # and the Python package: its tests, then python/bench/vs_flint.py
#   scripts/gpu-check.sh --run --pytest        # and the Python package's tests alone
#   scripts/gpu-check.sh --run --boundary      # and a Python call beside the library's time
#                                              # (python/bench/boundary.py; BOUNDARY_ARGS)
#   scripts/gpu-check.sh --run --multi         # and several GPUs against one (examples/multi_gpu_bench.rs),
#                                              # and mpirun with one rank per GPU when OpenMPI is there
#   scripts/gpu-check.sh --run --only --python # only the parts named (no suite, SASS or benchmarks)
#   scripts/gpu-check.sh --run --no-bench      # the suite without the SASS and the benchmarks
#   scripts/gpu-check.sh --run --scale         # and the scaling table (examples/scale/: every dense
#                                              # operation at n = 250 … 8000; CSV to $OUT when set;
#                                              # SCALE_OPS, SCALE_SIZES; FLINT from gpu-extra/flint_bench.xz)
#   scripts/gpu-check.sh --run --res-scale     # and univariate resultants by degree (RES_SHAPES "DEG:BITS ...")
#   scripts/gpu-check.sh --run --res-ways      # and univariate resultants by the whole CLI, its compute
#                                              # stage and Python, answers compared (RES_WAYS "DEG:BITS ...")
#   scripts/gpu-check.sh --run --xy-scale      # and bivariate resultants by degree (XY_SHAPES "D:BITS ...")
#   scripts/gpu-check.sh --run --soak          # and the soak of issue 50 (scripts/soak.py): every
#                                              # operation repeated, interleaved, across engines of one
#                                              # and all devices, from 4 threads, through `rns batch`,
#                                              # under a watchdog (SOAK_ARGS, e.g. "--reps 20")
#   scripts/gpu-check.sh --run --figures       # and issue 54's call figures (scripts/issue54-figures.sh):
#                                              # resultant kernels, det and solve by the library, Python
#                                              # and whole processes, resultants three ways
#   scripts/gpu-check.sh --run --sweep         # and the FLINT differential sweep on the GPU backend:
#                                              # SWEEP_PROCS processes (8) for SWEEP_SECONDS (450), seeds apart
set -euo pipefail
cd "$(dirname "$0")/.."
B=gpu-bundle
if [ "${1:-}" != "--run" ]; then
    # ptxas for the kernels' machine code (host/build.rs), found once whatever python3 the
    # PATH holds (without it the binaries ship PTX only, compiled by the driver).
    RNS_PTXAS=${RNS_PTXAS:-$(scripts/ptxas.sh)}
    export RNS_PTXAS
    rm -rf $B && mkdir -p $B/bin
    cargo test --workspace --release --no-run --message-format=json 2>/dev/null \
        | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["profile"]["test"]:
        print(m["executable"])' > $B/tests.txt
    while read -r exe; do cp "$exe" $B/bin/; done < $B/tests.txt
    mkdir -p $B/bench
    # The criterion CPU benchmarks (14 MB) only when asked: the tree that travels is capped at 64 MiB.
    if [ "${1:-}" = "--with-cpu-benches" ]; then
        cargo bench -p rns --no-run --message-format=json 2>/dev/null \
            | python3 -c 'import json,sys
for l in sys.stdin:
    m = json.loads(l)
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] == ["bench"]:
        print(m["executable"])' | while read -r exe; do cp "$exe" $B/bench/; done
    fi
    # The CLI built with the mpi feature (it needs OpenMPI's libraries where it runs).
    cargo build --release -p rns-cli --features mpi --bin rns
    cp target/release/rns $B/rns-mpi
    # The two-device table as one mpirun job (multi_gpu_bench --ranks).
    cargo build --release --example multi_gpu_bench --features rns/mpi
    cp target/release/examples/multi_gpu_bench $B/multi_gpu_bench-mpi
    cargo build --release --bins --examples
    cp target/release/rns target/release/examples/{gpu_bench,e2e_bench,determinant,compare,linalg_bench,resultant,univariate_bench,multi_gpu_bench,product_bench,det_bench,gj_bench,scale,panels_bench,solve_bench,charpoly_bench,roofline} $B/
    cp device/reference/mul_chain.cu device/reference/matmul.cu device/reference/resultant.cu device/reference/mul_m.cuh $B/
    # python-flint for the FLINT comparisons on the GPU host, which has no network.
    mkdir -p $B/wheels
    pip download -q python-flint==0.9.0 --no-deps --only-binary=:all: --python-version 3.12 \
        --platform manylinux2014_x86_64 -d $B/wheels || echo "no python-flint wheel: FLINT comparisons will be skipped there"
    # The Python package (an abi3 wheel) and pytest, for the Python tests there.
    PATH="$PWD/.venv/bin:$PATH" maturin build -q --release --strip -m python/Cargo.toml -o $B/wheels
    pip download -q pytest --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 -d $B/wheels \
        || echo "no pytest wheels: the Python tests will need pytest there"
    PTX=$(ls -t target/release/build/rns-*/out/rns_device.ptx | head -1)
    cp "$PTX" $B/rns_device.ptx
    strip --strip-all $B/bin/* $B/rns $B/rns-mpi $B/multi_gpu_bench-mpi $B/gpu_bench $B/e2e_bench $B/determinant $B/compare $B/linalg_bench $B/resultant $B/univariate_bench $B/multi_gpu_bench $B/product_bench $B/det_bench $B/gj_bench $B/scale $B/panels_bench $B/solve_bench $B/charpoly_bench
    [ -z "$(ls $B/bench)" ] || strip --strip-all $B/bench/*
    du -sh $B
    mkdir -p gpu-pack
    # -7: its 8 MiB window finds the binaries' shared code (-4 packed 62 MiB, -7 32 MiB).
    tar cf - $B | xz -T0 -7 > gpu-pack/bundle.tar.xz
    du -sh gpu-pack/bundle.tar.xz
    exit 0
fi
[ -d $B ] || tar xJf gpu-pack/bundle.tar.xz
export RNS_REQUIRE_GPU=1
# The bundle's wheels (python-flint, the rns package, pytest) for this shell's python3:
# the GPU host has no network.
python_wheels() {
    [ -d /tmp/pywheels ] || python3 -m pip install -q --no-index --target /tmp/pywheels $B/wheels/*.whl \
        || echo "the bundle's wheels did not install"
    export PYTHONPATH=/tmp/pywheels
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader || true
status=0
# --only: just the parts asked for (no test suite, SASS or benchmarks).
if [[ " $* " != *" --only "* ]]; then
# The CLI's tests run the bundle's binary (not where cargo put it).
export RNS_BIN=$PWD/$B/rns
for t in $B/bin/*; do
    name=$(basename "$t")
    echo "== $name (at ${SECONDS} s)"
    "$t" --test-threads=4 2>&1 | grep -E "^test |test result|SKIPPED|panicked|FAILED|left|right|assertion" || status=1
done
if [[ " $* " != *" --no-bench "* ]]; then
echo "== SASS of mul_chain, Rust and CUDA C (written to \$OUT when set)"
SASS=${OUT:-/tmp}
ptxas -arch=sm_90 $B/rns_device.ptx -o /tmp/rns.cubin
cuobjdump -sass -fun rns_mul_chain /tmp/rns.cubin > $SASS/sass_rust.txt || true
nvcc -O3 -arch=sm_90 -o /tmp/mul_chain $B/mul_chain.cu || status=1
cuobjdump -sass /tmp/mul_chain > $SASS/sass_cuda.txt || true
for f in $SASS/sass_rust.txt $SASS/sass_cuda.txt; do
    echo "$f: $(grep -cE '^\s+/\*[0-9a-f]{4}\*/' $f) instructions; loop body ops:"
    grep -oE '^\s+/\*[0-9a-f]{4}\*/\s+[A-Z0-9.]+' $f | awk '{print $2}' | sort | uniq -c | sort -rn | head -12 | tr '\n' ' '; echo
done
echo "== benchmarks: CUDA C references, then Rust, then CUDA C again"
nvcc -O3 -arch=sm_90 -o /tmp/matmul $B/matmul.cu || status=1
/tmp/mul_chain $((1<<22)) 256 || status=1
/tmp/matmul 1024 32 || status=1
$B/gpu_bench || status=1
/tmp/mul_chain $((1<<22)) 256 || status=1
/tmp/matmul 1024 32 || status=1
fi
fi
if [[ " $* " == *" --soak "* ]]; then
    echo "== soak: every operation repeated, interleaved, across engines and threads, rns batch"
    python_wheels
    devices=$(nvidia-smi -L | awk '{printf "%s%d", (NR > 1 ? "," : ""), NR - 1}')
    python3 -u scripts/soak.py --backend gpu --devices "${devices:-0}" --cli $B/rns ${SOAK_ARGS:-} || status=1
fi
if [[ " $* " == *" --e2e "* ]]; then
    echo "== end to end: bandwidths, kernel / resident / end to end, CPU backend"
    $B/e2e_bench || status=1
fi
if [[ " $* " == *" --cli "* ]]; then
    echo "== the whole rns process against FLINT (1 and all threads), same inputs, answers compared"
    python_wheels
    python3 scripts/cli_vs_flint.py $B/rns ${CLI_ARGS:-} || status=1
fi
if [[ " $* " == *" --compare "* ]]; then
    echo "== rns compare (full sizes; CSV, JSON and charts to \$OUT when set)"
    $B/rns compare --csv $SASS/compare.csv --json $SASS/compare.json --plots $SASS/plots || status=1
    tar czf $SASS/plots.tgz -C $SASS plots && rm -rf $SASS/plots
fi
if [[ " $* " == *" --flint "* ]]; then
    echo "== FLINT comparisons on this host (python-flint from the bundle)"
    python_wheels
    export RNS_BIN_DIR=$PWD/$B
    scripts/compare-flint-det.sh 200 100 || status=1
    REPS=1 scripts/compare-flint-det.sh 500 64 || status=1
    scripts/compare-flint-resultant.sh 200 500 $B/rns || status=1
    scripts/compare-flint-resultant.sh 500 1000 $B/rns || status=1
fi
if [[ " $* " == *" --linalg "* ]]; then
    echo "== matrix benchmarks (GPU and CPU backends), then FLINT on the same inputs"
    $B/linalg_bench /tmp/linalg || status=1
    python_wheels
    python3 scripts/flint_linalg.py /tmp/linalg || status=1
fi
if [[ " $* " == *" --resultant "* ]]; then
    echo "== bivariate resultants (the seed's shapes), FLINT baselines; univariate degree 500, 1000-bit"
    $B/resultant /tmp/res || status=1
    python_wheels
    python3 scripts/flint_resultant_xy.py /tmp/res/900-bit --primes 256 || status=1
    SKIP_CPU1=1 scripts/compare-flint-resultant.sh 500 1000 $B/rns || status=1
    python3 scripts/flint_resultant_xy.py /tmp/res/100-bit --mpoly || status=1
fi
if [[ " $* " == *" --imma "* ]]; then
    echo "== tensor cores: SASS of rns_matmul_imma and rns_matmul_ozaki, cuBLAS INT8 (torch._int_mm) at 4096^3 and 8192^3"
    ptxas -arch=sm_90 $B/rns_device.ptx -o /tmp/rns.cubin
    for k in imma ozaki; do
        cuobjdump -sass -fun rns_matmul_$k /tmp/rns.cubin > ${OUT:-/tmp}/sass_$k.txt || status=1
        f=${OUT:-/tmp}/sass_$k.txt
        echo "rns_matmul_$k SASS: $(grep -c IMMA $f) IMMA, $(grep -c LDSM $f) LDSM, $(grep -c LDGSTS $f) LDGSTS, $(grep -c IMAD $f) IMAD"
        grep -m2 IMMA $f || true
    done
    python3 scripts/int_mm.py || echo "no torch here"
fi
if [[ " $* " == *" --roofline "* ]]; then
    echo "== roofline: cuBLAS INT8 (torch._int_mm), then every hot kernel against the limit that binds it"
    python3 scripts/int_mm.py > /tmp/int_mm.txt || true
    cat /tmp/int_mm.txt
    int8=$(awk '/8192\^3/ {print $(NF-1)}' /tmp/int_mm.txt)
    ROOFLINE_INT8_TOPS=$int8 $B/roofline || status=1
fi
if [[ " $* " == *" --product "* ]]; then
    echo "== exact product 1024² with 1000-bit entries: GPU variants and CPU backend, then FLINT and the whole CLI"
    $B/product_bench /tmp/product 1024 1000 || status=1
    $B/det_bench 1000 2169 128,256 25 || status=1
    python_wheels
    python3 scripts/flint_product.py /tmp/product $B/rns || status=1
fi
if [[ " $* " == *" --univariate "* ]]; then
    echo "== univariate resultants: block vs thread kernels, CUDA C of the block kernel, whole CLI vs FLINT"
    mkdir -p /tmp/uni
    $B/univariate_bench --dump /tmp/uni || status=1
    nvcc -O3 -arch=sm_90 -o /tmp/resultant_cu $B/resultant.cu || status=1
    for f in /tmp/uni/*.bin; do for t in 64 128 256; do /tmp/resultant_cu "$f" $t || status=1; done; done
    python_wheels
    for shape in "100 100" "500 1000" "2000 64"; do
        SKIP_CPU1=1 scripts/compare-flint-resultant.sh $shape $B/rns || status=1
    done
fi
if [[ " $* " == *" --pytest "* ]]; then
    echo "== the Python package's tests (RNS_REQUIRE_GPU=1)"
    python_wheels
    python3 -m pytest -q -rs -p no:cacheprovider python/tests || status=1
fi
if [[ " $* " == *" --boundary "* ]]; then
    echo "== a Python call beside the library's own time (python/bench/boundary.py \$BOUNDARY_ARGS)"
    python_wheels
    python3 -u python/bench/boundary.py --backend gpu ${BOUNDARY_ARGS:-} || status=1
fi
if [[ " $* " == *" --python "* ]]; then
    echo "== the Python package: its tests (RNS_REQUIRE_GPU=1), then against python-flint"
    python_wheels
    python3 -m pytest -q -rs -p no:cacheprovider python/tests 2>&1 | tail -15 || status=1
    for be in gpu cpu; do python3 python/bench/vs_flint.py --backend $be || status=1; done
    python3 python/bench/vs_flint.py --backend gpu --only det1000,solve1000 || status=1
fi
if [[ " $* " == *" --multi "* ]]; then
    echo "== several GPUs against one (library calls, host in / host out; CSV to \$OUT)"
    $B/multi_gpu_bench --csv $SASS/multi_gpu.csv || status=1
    if command -v mpirun >/dev/null; then
        echo "== whole CLI: mpirun -np 2 (one GPU per rank) against one process on one GPU, det 1000² 64-bit"
        python3 -c "import random; random.seed(1); n=1000; print(n, n); [print(' '.join(str(random.randint(-2**63, 2**63-1)) for _ in range(n))) for _ in range(n)]" > /tmp/det1000.txt
        # --bind-to none: OpenMPI binds each of ≤ 2 ranks to one core, which would leave
        # each rank's parsing and reconstruction (rayon) a single core.
        one() { /usr/bin/time -f "%e s" $B/rns-mpi det /tmp/det1000.txt --backend gpu --devices 0 "$@" > /tmp/one.txt; }
        two() { /usr/bin/time -f "%e s" mpirun --allow-run-as-root --bind-to none -np 2 $B/rns-mpi det /tmp/det1000.txt --backend gpu "$@" > /tmp/two.txt; }
        for run in 1 2 3; do echo "one process, one GPU:"; one; echo "2 ranks, one GPU each:"; two; done
        echo "one process, one GPU, --stats:"; one --stats
        echo "2 ranks, one GPU each, --stats:"; two --stats
        echo "one process, 2 GPUs, --stats:"; /usr/bin/time -f "%e s" $B/rns-mpi det /tmp/det1000.txt --backend gpu --stats > /tmp/both.txt
        cmp /tmp/one.txt /tmp/both.txt || status=1
        cmp /tmp/one.txt /tmp/two.txt && echo "same determinant" || status=1
        echo "== the lifting split across 2 ranks (CUDA IPC) against one process on both GPUs: det and solve 4000² (digests compared)"
        $B/multi_gpu_bench-mpi --table --ops det4000,solve4000 | tee /tmp/table.txt
        mpirun --allow-run-as-root --bind-to none -np 2 $B/multi_gpu_bench-mpi --ranks --ops det4000,solve4000 | tee /tmp/ranks.txt
        for op in det4000 solve4000; do
            want=$(grep "^ *$op on 1 GPU" /tmp/table.txt | head -1 | sed 's/.*digest \([0-9a-f]*\).*/\1/')
            got=$(grep "^ *$op under 2 ranks" /tmp/ranks.txt | head -1 | sed 's/.*digest \([0-9a-f]*\).*/\1/')
            [ -n "$want" ] && [ "$want" = "$got" ] && echo "$op: same answer under 2 ranks" || { echo "$op: answers differ ($want, $got)"; status=1; }
        done
    else
        echo "no mpirun on this host: the MPI runs were not made"
    fi
fi
if [[ " $* " == *" --scale "* ]]; then
    echo "== the scaling table (library calls, the GPU backend; known determinants checked; FLINT where it takes under FLINT_CAP s)"
    # flint_bench (the newest FLINT) travels packed: FLINT_BENCH, else gpu-extra/flint_bench.xz.
    fb=${FLINT_BENCH:-}
    if [ -z "$fb" ] && [ -f gpu-extra/flint_bench.xz ]; then
        xz -dc gpu-extra/flint_bench.xz > /tmp/flint_bench && chmod +x /tmp/flint_bench && fb=/tmp/flint_bench
    fi
    $B/scale --limit "${SCALE_LIMIT:-60}" ${SCALE_OPS:+--ops "$SCALE_OPS"} ${SCALE_SIZES:+--sizes "$SCALE_SIZES"} \
        ${fb:+--flint "$fb"} --flint-cap "${FLINT_CAP:-120}" --csv "${OUT:-/tmp}/scale.csv" || status=1
fi
if [[ " $* " == *" --res-scale "* ]]; then
    echo "== univariate resultants by degree (whole CLI, FLINT where it takes under FLINT_CAP s): $RES_SHAPES"
    fb=${FLINT_BENCH:-}
    if [ -z "$fb" ] && [ -f gpu-extra/flint_bench.xz ]; then
        xz -dc gpu-extra/flint_bench.xz > /tmp/flint_bench && chmod +x /tmp/flint_bench && fb=/tmp/flint_bench
    fi
    scripts/resultant-scaling.sh $B/rns "${fb:--}" "${RES_SHAPES:-500:64 1000:64 2000:64 4000:64 8000:64}" \
        | tee "${OUT:-/tmp}/resultant_scaling.csv" || status=1
fi
if [[ " $* " == *" --res-ways "* ]]; then
    echo "== univariate resultants three ways (whole CLI, its compute stage, Python): ${RES_WAYS:-16000:64}"
    python_wheels
    python3 -u scripts/resultant_ways.py $B/rns ${RES_WAYS:-16000:64} || status=1
fi
if [[ " $* " == *" --xy-scale "* ]]; then
    echo "== bivariate resultants by degree (whole CLI, checked at points; FLINT's mpoly where under FLINT_CAP s): $XY_SHAPES"
    python_wheels
    python3 scripts/resultant_xy_scaling.py $B/rns "${XY_SHAPES:-10:64 20:64 40:64 80:64}" \
        | tee "${OUT:-/tmp}/resultant_xy_scaling.csv" || status=1
fi
if [[ " $* " == *" --figures "* ]]; then
    python_wheels
    scripts/issue54-figures.sh $B || status=1
fi
if [[ " $* " == *" --sweep "* ]]; then
    procs=${SWEEP_PROCS:-8}
    echo "== FLINT differential sweep, backend gpu: $procs processes for ${SWEEP_SECONDS:-450} s"
    python_wheels
    for i in $(seq 1 "$procs"); do
        python3 scripts/flint_sweep.py --backend gpu --cases 100000000 --seconds "${SWEEP_SECONDS:-450}" \
            --seed $((100000 * i)) > /tmp/sweep-$i.txt 2>&1 &
    done
    wait || true
    tail -qn 1 /tmp/sweep-*.txt
    grep -h MISMATCH /tmp/sweep-*.txt | head -20 && status=1
    tail -qn 1 /tmp/sweep-*.txt | python3 -c "import sys, re
lines = sys.stdin.read().splitlines()
n = sum(int(l.split()[0]) for l in lines if ' cases on backend ' in l)
bad = sum(int(re.search(r'(\d+) mismatches', l).group(1)) for l in lines if ' cases on backend ' in l)
print(f'sweep: {n} cases in {len(lines)} processes, {bad} mismatches')
sys.exit(1 if bad or len([l for l in lines if ' cases on backend ' in l]) < len(lines) else 0)" || status=1
fi
if [[ " $* " == *" --cpu-benches "* ]]; then
    echo "== CPU criterion benchmarks on this host"
    for b in $B/bench/*; do "$b" --bench --warm-up-time 1 --measurement-time 2 2>&1 | grep -E "^[a-z_0-9/]+ +time:|^[a-z_0-9/]+$|time:" ; done
fi
exit $status
