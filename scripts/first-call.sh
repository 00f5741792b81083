#!/usr/bin/env bash
# On a GPU host: the first GPU call of a process with the driver's JIT cache off (as on
# a fresh machine) and on, for each rns binary given, and `rns batch` of 100 det 200²
# jobs against the sum of their library times. Inputs are made here (python3).
#   scripts/first-call.sh BIN [BIN...]
set -uo pipefail
W=${TMPDIR:-/tmp}/first-call
mkdir -p $W
python3 - "$W" <<'PY'
import random, sys, os
w = sys.argv[1]
random.seed(7)
def mat(n, bits):
    return f"{n} {n}\n" + "\n".join(" ".join(str(random.randint(-2**(bits-1), 2**(bits-1)-1)) for _ in range(n)) for _ in range(n)) + "\n"
open(f"{w}/m500.txt", "w").write(mat(500, 64))
open(f"{w}/f.txt", "w").write(" ".join(str(random.randint(-2**999, 2**999)) for _ in range(1001)))
open(f"{w}/g.txt", "w").write(" ".join(str(random.randint(-2**999, 2**999)) for _ in range(1001)))
with open(f"{w}/jobs.txt", "w") as j:
    for k in range(100):
        open(f"{w}/d{k}.txt", "w").write(mat(200, 64))
        j.write(f"det {w}/d{k}.txt\n")
PY
for bin in "$@"; do
    echo "== $bin"
    for cache in 1 0; do
        for cmd in "det $W/m500.txt" "resultant $W/f.txt $W/g.txt"; do
            s=$EPOCHREALTIME
            CUDA_CACHE_DISABLE=$cache $bin $cmd --backend gpu --stats 2>$W/err >/dev/null
            e=$EPOCHREALTIME
            printf "cache off=%s %-10s whole process %.3f s; %s\n" $cache "${cmd%% *}" "$(awk "BEGIN{print $e - $s}")" \
                "$(grep -E 'device 0 start|CUDA start' $W/err | tr '\n' ' ')"
        done
    done
done
bin=$1
for be in gpu auto; do
    s=$EPOCHREALTIME
    $bin batch $W/jobs.txt --backend $be --stats 2>$W/berr >$W/bout
    e=$EPOCHREALTIME
    lib=$(awk '/^ +compute: +[0-9.]+ ms/{c+=$2} END{printf "%.1f", c}' $W/berr)
    printf "batch of 100 det 200² (--backend %s): whole process %.3f s; sum of library (compute) times %s ms\n" \
        $be "$(awk "BEGIN{print $e - $s}")" "$lib"
done
