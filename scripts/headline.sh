#!/usr/bin/env bash
# The headline figures in one run, on a GPU host (no toolchain needed there): the exact
# product 1024² with 1000-bit entries and the exact determinant 1000² with 64-bit entries
# (library calls, `examples/product_bench.rs`), univariate resultants up to degree 2000
# (`examples/univariate_bench.rs`), and the whole `rns` process for det 1000² and the
# resultant of degree 2000 (64-bit coefficients), `--stats` on stderr.
#
#   scripts/headline.sh DIR            # DIR holds rns, product_bench and univariate_bench
#   scripts/headline.sh DIR_A DIR_B    # two builds of the same code, interleaved on one
#                                      # machine: each library benchmark once per build,
#                                      # the CLI runs in ROUNDS (5) alternating rounds,
#                                      # then the medians side by side
#
# The answers of every build are compared (md5 of the outputs).
set -euo pipefail
dirs=("$@")
[ ${#dirs[@]} -ge 1 ] || { echo "usage: $0 DIR [DIR_B]" >&2; exit 2; }
T=${TMPDIR:-/tmp}/headline
mkdir -p "$T"
rm -f "$T/times"
python3 - "$T" <<'EOF'
import random, sys
t = sys.argv[1]
random.seed(1)
n = 1000
with open(f"{t}/det1000.txt", "w") as f:
    f.write(f"{n} {n}\n")
    for _ in range(n):
        f.write(" ".join(str(random.randint(-2**63, 2**63 - 1)) for _ in range(n)) + "\n")
for name in "fg":
    with open(f"{t}/{name}2000.txt", "w") as f:
        f.write(" ".join(str(random.randint(-2**63, 2**63 - 1)) for _ in range(2001)) + "\n")
EOF
for d in "${dirs[@]}"; do
    echo "== $d: library: exact product 1024² 1000-bit, exact det 1000² 64-bit (product_bench)"
    "$d/product_bench" "$T/product" 1024 1000
done
for d in "${dirs[@]}"; do
    echo "== $d: library: univariate resultants (univariate_bench)"
    "$d/univariate_bench"
done
rounds=${ROUNDS:-$(( ${#dirs[@]} > 1 ? 5 : 2 ))}
for run in $(seq 1 "$rounds"); do
    for i in "${!dirs[@]}"; do
        d=${dirs[$i]}
        for job in det res; do
            case $job in
                det) args=(det "$T/det1000.txt") ;;
                res) args=(resultant "$T/f2000.txt" "$T/g2000.txt") ;;
            esac
            s=$(date +%s%N)
            "$d/rns" "${args[@]}" --backend gpu --stats > "$T/$job.$i.out" 2> "$T/$job.$i.$run.err"
            e=$(date +%s%N)
            echo "$job $i $(grep -E '^ +compute: +[0-9.]+ ms' "$T/$job.$i.$run.err" | awk '{print $2}') $(( (e - s) / 1000000 ))" >> "$T/times"
            [ "$run" = 1 ] && { echo "== $d: rns ${args[0]} --stats, run 1"; cat "$T/$job.$i.$run.err"; }
        done
    done
done
echo "== whole rns process, --backend gpu, medians of $rounds runs (compute stage ms, whole process s)"
python3 - "$T/times" "${dirs[@]}" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
for i, d in enumerate(sys.argv[2:]):
    for job, what in (("det", "det 1000² 64-bit"), ("res", "resultant deg 2000 64-bit")):
        r = [x for x in rows if x[0] == job and int(x[1]) == i]
        c = statistics.median(float(x[2]) for x in r)
        w = statistics.median(float(x[3]) for x in r) / 1e3
        print(f"{d:>14}  {what:<26} compute {c:8.1f} ms   whole {w:6.3f} s")
EOF
rm -f "$T/times"
md5sum "$T"/*.out
