#!/usr/bin/env bash
# Fuzzes every file parser with cargo-fuzz (libFuzzer, AddressSanitizer) for SECONDS each
# (default 60), from the committed seed corpus (fuzz/corpus/<target>, copied: the run's
# finds stay out of the tree); then, as target `python`, the Python package's argument
# conversion with atheris (python/fuzz/fuzz_args.py, in .venv: scripts/python-env.sh). Inputs up to 4 KiB, 4 GiB of memory at most: an
# allocation driven by an unchecked size fails the run (the bivariate format's own cap,
# 2^24 dense coefficients, peaks near 1.6 GB). FUZZ_SEED (default 1, as in CI) fixes the
# fuzzer's choices; FUZZ_SEED=0 picks a new seed each run. Installs cargo-fuzz if missing.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(matrix poly bipoly compare_csv cli python)
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked --version 0.13.2 >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo fuzz build
for t in "${targets[@]}"; do
    if [ "$t" = python ]; then
        [ -x .venv/bin/python ] || { echo "fuzz python: no .venv (scripts/python-env.sh)" >&2; exit 1; }
        .venv/bin/python -c "import atheris" 2>/dev/null || .venv/bin/pip install -q "atheris==3.0.0"
        mkdir "$work/python"
        echo "== fuzz python for ${seconds} s"
        if ! .venv/bin/python python/fuzz/fuzz_args.py "$work/python" -artifact_prefix="$work/" \
            -max_total_time="$seconds" -max_len=4096 -seed="${FUZZ_SEED:-1}" >"$work/python.log" 2>&1; then
            tail -40 "$work/python.log" >&2
            echo "fuzz python: failed" >&2
            exit 1
        fi
        grep -E "DONE|Done [0-9]+ runs" "$work/python.log"
        continue
    fi
    cp -r "fuzz/corpus/$t" "$work/$t"
    echo "== fuzz $t for ${seconds} s"
    cargo fuzz run "$t" "$work/$t" -- \
        -max_total_time="$seconds" -max_len=4096 -rss_limit_mb=4096 -seed="${FUZZ_SEED:-1}" \
        -print_final_stats=1 2>&1 \
        | grep -E "^#[0-9]+.*DONE|stat::number_of_executed_units|stat::peak_rss_mb|ERROR|panicked|SUMMARY|Done [0-9]+ runs"
done
echo "fuzz: ${#targets[@]} passed, 0 failed"
