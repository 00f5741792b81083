#!/usr/bin/env bash
# Exact determinant of one random N×N matrix with BITS-bit entries: rns on 1 and on all
# cores against FLINT's fmpz_mat_det (python-flint, one core), in one run on one host.
#   scripts/compare-flint-det.sh [N] [BITS]      (pip install python-flint)
# RNS_BIN_DIR names a folder with `rns` and `determinant` already built (a GPU host has
# no toolchain); by default they are built into target/release.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}; BITS=${2:-100}
M=$(mktemp /tmp/rns-det-XXXX.txt)
if [ -n "${RNS_BIN_DIR:-}" ]; then
    RNS=$RNS_BIN_DIR/rns; DETEX=$RNS_BIN_DIR/determinant
else
    cargo build --release -p rns --bins --examples >/dev/null 2>&1
    cargo build --release --examples >/dev/null 2>&1
    RNS=target/release/rns; DETEX=target/release/examples/determinant
fi
"$DETEX" "$N" "$BITS" "$M" >/dev/null
t() { local s e; s=$EPOCHREALTIME; "$@" >/dev/null || return 1; e=$EPOCHREALTIME; awk "BEGIN { print $e - $s }"; }
best() { local b=999 x; for _ in $(seq "${REPS:-3}"); do x=$(t "$@") || return 1; b=$(awk "BEGIN { print ($x < $b) ? $x : $b }"); done; echo "$b"; }
one=$(RAYON_NUM_THREADS=1 best "$RNS" det "$M" --backend cpu)
all=$(best "$RNS" det "$M" --backend cpu)
line="rns det ${N}x${N} ${BITS}-bit: cpu 1 thread ${one} s, $(nproc) threads ${all} s"
if gpu=$(best "$RNS" det "$M" --backend gpu 2>/dev/null); then line="$line, gpu ${gpu} s"; fi
echo "$line (best of ${REPS:-3}, whole process)"
python3 scripts/flint_det.py "$M" 3
[ "$("$RNS" det "$M" --backend cpu | tail -c 21)" = "$(python3 -c "
import flint,sys
f=open('$M'); r,c=map(int,f.readline().split()); a=flint.fmpz_mat([[int(t) for t in f.readline().split()] for _ in range(r)])
print(str(a.det())[-20:])")" ] && echo "same determinant (last 20 digits)" || { echo "DETERMINANTS DIFFER"; exit 1; }
rm -f "$M"
