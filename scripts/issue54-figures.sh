#!/usr/bin/env bash
# Issue 54's call figures in one device call, on a GPU host (no toolchain there), printed
# as they come: the resultant kernel by degree, det over Z and solve over Q by the library
# (examples/scale), from Python (python/bench/boundary.py), as whole `rns` processes, and
# univariate resultants three ways (scripts/resultant_ways.py). The roofline table, the
# tensor-core product at 8192³ beside cuBLAS INT8, and the lifting step's row come from
# `scripts/gpu-check.sh --run --only --roofline`.
#
#   scripts/issue54-figures.sh BUNDLE_DIR     # BUNDLE_DIR holds rns, scale, univariate_bench
#
# PYTHONPATH must reach the rns package (gpu-check.sh's wheels); N (4000) is the order of the
# whole-process runs; RES_WAYS ("16000:64:2 32000:64:1") the resultants' DEG:BITS:REPS.
set -uo pipefail
B=${1:?usage: $0 BUNDLE_DIR}
T=${TMPDIR:-/tmp}/issue54
mkdir -p "$T"
status=0
echo "== resultant kernels, 1584 primes scaled to all (univariate_bench --kernels-only) at ${SECONDS} s"
"$B/univariate_bench" --kernels-only --shapes 16000:64,32000:64 --threads 128,256 --wide 0 --sample 1583 || status=1
echo "== det over Z and solve over Q, library calls (scale) at ${SECONDS} s"
"$B/scale" --backend gpu --ops det,solve --sizes 4000,8000 --limit 60 --csv "${OUT:-$T}/scale54.csv" || status=1
echo "== from Python, numpy and rns.Matrix in (boundary.py) at ${SECONDS} s"
python3 -u python/bench/boundary.py --backend gpu --sizes 4000 --ops det_z,solve_z \
    --inputs numpy,Matrix --reps 2 || status=1
n=${N:-4000}
echo "== whole rns processes, det and solve ${n}² 64-bit (random, seeded) at ${SECONDS} s"
python3 - "$T" "$n" <<'EOF'
import random, sys
t, n = sys.argv[1], int(sys.argv[2])
rng = random.Random(54)
with open(f"{t}/a.txt", "w") as f:
    f.write(f"{n} {n}\n")
    for _ in range(n):
        f.write(" ".join(str(rng.randrange(-2**63, 2**63)) for _ in range(n)) + "\n")
with open(f"{t}/b.txt", "w") as f:
    f.write(f"{n} 1\n" + "\n".join(str(rng.randrange(-2**63, 2**63)) for _ in range(n)) + "\n")
EOF
for run in 1 2; do
    for job in det solve; do
        case $job in
            det) args=(det "$T/a.txt") ;;
            solve) args=(solve "$T/a.txt" "$T/b.txt") ;;
        esac
        s=$(date +%s%N)
        "$B/rns" "${args[@]}" --backend gpu --stats > "$T/$job.$run.out" 2> "$T/$job.$run.err" || status=1
        e=$(date +%s%N)
        echo "rns $job ${n}², run $run: whole process $(( (e - s) / 1000000 )) ms; $(grep -E '^ *(compute|read)' "$T/$job.$run.err" | tr -s ' ' | tr '\n' ';')"
    done
done
for job in det solve; do echo "rns $job, run 1, --stats:"; cat "$T/$job.1.err"; done
for job in det solve; do cmp -s "$T/$job.1.out" "$T/$job.2.out" && echo "$job: the two runs agree" || { echo "$job: runs differ"; status=1; }; done
echo "== univariate resultants three ways (${RES_WAYS:-16000:64:2 32000:64:1}) at ${SECONDS} s"
# shellcheck disable=SC2086
python3 -u scripts/resultant_ways.py "$B/rns" ${RES_WAYS:-16000:64:2 32000:64:1} || status=1
echo "== done at ${SECONDS} s, status $status"
exit $status
