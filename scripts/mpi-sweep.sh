#!/usr/bin/env bash
# Simulates the scaling of docs/scaling.md with CPU ranks on one machine: the same
# determinant, product and bivariate resultant under `mpirun -np N` for N = 1, 2, 4, 8
# (oversubscribed), each answer compared with one process's, with the primes, the bytes
# each rank received (input broadcast, gathered shares) and the wall time.
#   scripts/mpi-sweep.sh [RNS_BINARY_BUILT_WITH_MPI]   (default: target/release/rns)
set -euo pipefail
cd "$(dirname "$0")/.."
RNS=${1:-target/release/rns}
D=$(mktemp -d)
python3 - "$D" <<'PY'
import random, sys
d = sys.argv[1]
random.seed(7)
def mat(path, r, c, bits):
    with open(path, "w") as f:
        f.write(f"{r} {c}\n")
        for _ in range(r):
            f.write(" ".join(str(random.randint(-2**bits + 1, 2**bits - 1)) for _ in range(c)) + "\n")
mat(f"{d}/det.txt", 200, 200, 64)
mat(f"{d}/a.txt", 60, 60, 500)
mat(f"{d}/b.txt", 60, 60, 500)
for name, dy, dx in (("f", 12, 8), ("g", 10, 7)):
    with open(f"{d}/{name}.txt", "w") as f:
        for j in range(dy + 1):
            for i in range(dx + 1):
                f.write(f"{random.randint(-2**200, 2**200)} {i} {j}\n")
PY
printf "%-32s %5s %9s %14s %14s %s\n" command ranks wall_s input_bytes gathered_bytes same
for cmd in "det $D/det.txt" "matmul $D/a.txt $D/b.txt" "resultant-xy $D/f.txt $D/g.txt"; do
    $RNS $cmd --backend cpu > "$D/one.out"
    for np in 1 2 4 8; do
        start=$(date +%s.%N)
        mpirun --allow-run-as-root --oversubscribe --bind-to none -np $np $RNS $cmd --backend cpu --stats \
            > "$D/n.out" 2> "$D/n.err"
        end=$(date +%s.%N)
        traffic=$(grep -o "received [0-9]* bytes of input by broadcast and [0-9]*" "$D/n.err" \
            | awk '{print $2, $9}' || true)
        same=$(cmp -s "$D/one.out" "$D/n.out" && echo yes || echo NO)
        printf "%-32s %5d %9.2f %14s %14s %s\n" "${cmd%% *}" $np "$(echo "$end - $start" | bc)" \
            ${traffic:-0 0} $same
    done
    grep -h "primes" "$D/n.err" | head -1 || true
done
rm -rf "$D"
