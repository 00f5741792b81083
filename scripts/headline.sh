#!/usr/bin/env bash
# The headline figures in one run, on a GPU host (no toolchain needed there): the exact
# product 1024² with 1000-bit entries and the exact determinant 1000² with 64-bit entries
# (library calls, `examples/product_bench.rs`), univariate resultants up to degree 2000
# (`examples/univariate_bench.rs`), and the whole `rns` process for det 1000² and the
# resultant of degree 2000 (64-bit coefficients), each run twice, `--stats` on stderr.
#
#   scripts/headline.sh DIR    # DIR holds rns, product_bench and univariate_bench
#
# Used to compare two builds of the same code (before and after a change that should
# not alter speed): run it on each bundle on the same machine, in the same call.
set -euo pipefail
B=${1:?a directory with rns, product_bench and univariate_bench}
T=${TMPDIR:-/tmp}/headline
mkdir -p "$T"
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
echo "== library: exact product 1024² 1000-bit, exact det 1000² 64-bit (product_bench)"
"$B/product_bench" "$T/product" 1024 1000
echo "== library: univariate resultants (univariate_bench)"
"$B/univariate_bench"
for run in 1 2; do
    echo "== whole process, run $run: rns det 1000² 64-bit --backend gpu"
    /usr/bin/time -f "%e s whole process" "$B/rns" det "$T/det1000.txt" --backend gpu --stats > "$T/det.out"
    echo "== whole process, run $run: rns resultant deg 2000 64-bit --backend gpu"
    /usr/bin/time -f "%e s whole process" "$B/rns" resultant "$T/f2000.txt" "$T/g2000.txt" --backend gpu --stats > "$T/res.out"
done
md5sum "$T/det.out" "$T/res.out"
