#!/usr/bin/env bash
# The scaling table of univariate resultants (issue 36): two random polynomials of degree
# DEG with BITS-bit coefficients, the whole `rns resultant --backend gpu` process (and its
# compute stage from --stats) against FLINT's fmpz_poly resultant (the newest FLINT in
# ../shared/tools/flint_bench) on 1 and all threads, same inputs, one run each, answers
# compared digit for digit. FLINT runs only where the previous degree's time predicts
# under FLINT_CAP seconds (default 120; time × (degree ratio)³), and is stopped at two
# minutes; FLINT_BENCH `-` skips FLINT. BACKEND=cpu
# runs rns on the CPU instead.
#   scripts/resultant-scaling.sh RNS_BINARY FLINT_BENCH "DEG:BITS ..." > table.csv
set -euo pipefail
RNS=${1:?rns binary}; FLINT=${2:?flint_bench binary}; SHAPES=${3:?"DEG:BITS ..."}
THREADS=$(nproc)
D=$(mktemp -d /tmp/rns-scale-XXXX)
declare -A last_t last_d
echo "deg,bits,primes,rns_whole_s,rns_compute_s,flint1_s,flint${THREADS}_s,same"
for shape in $SHAPES; do
    deg=${shape%:*}; bits=${shape#*:}
    python3 "$(dirname "$0")/resultant_ways.py" --write "$deg" "$bits" "$D"
    s=$EPOCHREALTIME
    "$RNS" resultant "$D/f" "$D/g" --backend "${BACKEND:-gpu}" --stats > "$D/ours" 2> "$D/stats"
    e=$EPOCHREALTIME
    whole=$(awk "BEGIN { printf \"%.3f\", $e - $s }")
    compute=$(awk '$1 == "compute:" && $3 == "ms" { printf "%.3f", $2 / 1000 }' "$D/stats")
    primes=$(grep -o '[0-9]* primes' "$D/stats" | head -1 | cut -d' ' -f1)
    same=-
    cols=()
    for t in 1 "$THREADS"; do
        key="$bits-$t"
        if [ "$FLINT" = - ]; then
            cols+=("skipped"); continue
        fi
        if [ -n "${last_t[$key]:-}" ] && awk "BEGIN { exit !(${last_t[$key]} * ($deg / ${last_d[$key]})^3 > ${FLINT_CAP:-120}) }"; then
            cols+=("skipped"); continue
        fi
        if out=$(timeout 120 "$FLINT" resultant "$t" "$D/f" "$D/g" 2> "$D/flint_err"); then
            ft=$(grep -o 'compute_s=[0-9.e+-]*' "$D/flint_err" | cut -d= -f2)
            cols+=("$ft"); last_t[$key]=$ft; last_d[$key]=$deg
            if [ "$out" = "$(cat "$D/ours")" ]; then [ "$same" = NO ] || same=yes; else same=NO; fi
        else
            cols+=(">120"); last_t[$key]=1000; last_d[$key]=$deg
        fi
    done
    echo "$deg,$bits,$primes,$whole,$compute,${cols[0]},${cols[1]},$same"
done
rm -rf "$D"
