#!/usr/bin/env bash
# Exact determinant of one random N×N matrix with BITS-bit entries: rns on 1 and on all
# cores against FLINT's fmpz_mat_det (python-flint, one core), in one run on one host.
#   scripts/compare-flint-det.sh [N] [BITS]      (pip install python-flint)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-200}; BITS=${2:-100}
M=$(mktemp /tmp/rns-det-XXXX.txt)
cargo build --release --bins --examples >/dev/null 2>&1
target/release/examples/determinant "$N" "$BITS" "$M" >/dev/null
t() { local s e; s=$(date +%s.%N); "$@" >/dev/null; e=$(date +%s.%N); echo "$e - $s" | bc; }
best() { local b=999; for _ in 1 2 3; do x=$(t "$@"); b=$(echo "if ($x < $b) $x else $b" | bc); done; echo "$b"; }
one=$(RAYON_NUM_THREADS=1 best target/release/rns det "$M" --backend cpu)
all=$(best target/release/rns det "$M" --backend cpu)
echo "rns det ${N}x${N} ${BITS}-bit, cpu backend: 1 thread ${one} s, $(nproc) threads ${all} s (best of 3, whole process)"
python3 scripts/flint_det.py "$M" 3
[ "$(target/release/rns det "$M" --backend cpu | tail -c 21)" = "$(python3 -c "
import flint,sys
f=open('$M'); r,c=map(int,f.readline().split()); a=flint.fmpz_mat([[int(t) for t in f.readline().split()] for _ in range(r)])
print(str(a.det())[-20:])")" ] && echo "same determinant (last 20 digits)" || { echo "DETERMINANTS DIFFER"; exit 1; }
rm -f "$M"
