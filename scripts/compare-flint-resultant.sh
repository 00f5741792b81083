#!/usr/bin/env bash
# Univariate resultant of two random polynomials of degree DEG with BITS-bit coefficients:
# rns (CPU backend on 1 and all threads, and --backend gpu when one is usable) against
# FLINT's fmpz_poly resultant (python-flint, one core), same inputs, one run, one host.
#   scripts/compare-flint-resultant.sh [DEG] [BITS] [RNS_BINARY]
# SKIP_CPU1=1 skips the one-thread CPU run (minutes at degree 500, 1000 bits), SKIP_CPU=1
# every CPU run. The answers are compared digit for digit.
set -euo pipefail
cd "$(dirname "$0")/.."
DEG=${1:-100}; BITS=${2:-200}; RNS=${3:-target/release/rns}
[ -x "$RNS" ] || cargo build --release -p rns >/dev/null 2>&1
D=$(mktemp -d /tmp/rns-res-XXXX)
python3 - "$DEG" "$BITS" "$D" <<'PY'
import random, sys
deg, bits, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rng = random.Random(2026)
for name in "fg":
    c = [rng.randrange(-2**bits + 1, 2**bits) for _ in range(deg + 1)]
    c[-1] = c[-1] or 1
    open(f"{d}/{name}", "w").write(" ".join(map(str, c)) + "\n")
PY
run() { local s e; s=$EPOCHREALTIME; "$@" > "$D/out" || return 1; e=$EPOCHREALTIME; awk "BEGIN { print $e - $s }"; }
line="rns resultant deg $DEG, $BITS-bit:"
if [ "${SKIP_CPU1:-0}" != 1 ]; then
    line="$line cpu 1 thread $(RAYON_NUM_THREADS=1 run "$RNS" resultant "$D/f" "$D/g" --backend cpu) s,"
fi
if [ "${SKIP_CPU:-0}" != 1 ]; then
    ta=$(run "$RNS" resultant "$D/f" "$D/g" --backend cpu)
    cp "$D/out" "$D/ours"
    line="$line cpu $(nproc) threads ${ta} s"
fi
if tg=$(run "$RNS" resultant "$D/f" "$D/g" --backend gpu 2>/dev/null); then
    line="$line, gpu ${tg} s"
    if [ -f "$D/ours" ]; then cmp -s "$D/out" "$D/ours" || { echo "GPU AND CPU DIFFER"; exit 1; }; fi
    cp "$D/out" "$D/ours"
    # Where the GPU run's time goes (a second run, with --stats on standard error).
    "$RNS" resultant "$D/f" "$D/g" --backend gpu --stats 2>&1 >/dev/null | sed 's/^/    /'
fi
echo "$line (whole process)"
python3 - "$D" <<'PY'
import sys, time, flint
d = sys.argv[1]
f, g = (flint.fmpz_poly([int(t) for t in open(f"{d}/{n}").read().split()]) for n in "fg")
t = time.perf_counter(); r = f.resultant(g); t = time.perf_counter() - t
s, ours = str(r), open(f"{d}/ours").read().strip()
print(f"flint fmpz_poly resultant: {t:.3f} s; {len(s.lstrip('-'))} digits; {'same' if s == ours else 'DIFFERENT'} answer (all digits)")
sys.exit(0 if s == ours else 1)
PY
rm -rf "$D"
