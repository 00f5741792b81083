#!/usr/bin/env bash
# Mutation testing with cargo-mutants (issue 15; results in docs/mutation.md).
#   scripts/mutants.sh core          # rns-core against its own tests (unit tests and
#                                    # rns-core/tests/arith.rs): about 25 minutes on 2 cores
#   scripts/mutants.sh host [K/N]    # the host's reconstruction (crt.rs, basis.rs), the
#                                    # determinant (det.rs) and the bounds (bound_bits*),
#                                    # against tests/{det,dixon,vector,resultant,linalg}.rs (the
#                                    # rns-suite tests that exercise them; cargo-mutants
#                                    # cannot pick test targets across two packages);
#                                    # K/N runs one shard of N
# Builds with the `mutants` profile (opt-level 1, incremental). Output in target/mutants/.
# MUTANTS_ARGS adds cargo-mutants options (for example --iterate: only what survived the
# last run, and mutants it has not seen).
# The host run skips cargo-mutants' baseline, which would test the mutated package (rns)
# instead of --test-package (cargo-mutants 27.1.0); scripts/test.sh is the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v cargo-mutants >/dev/null || cargo install cargo-mutants --locked --version 27.1.0 >/dev/null
out=${MUTANTS_OUT:-target/mutants}
mkdir -p "$out"
case "${1:-core}" in
core)
    cargo mutants -p rns-core -j 2 --timeout 20 -o "$out/core" ${MUTANTS_ARGS:-}
    ;;
host)
    tests=()
    for t in det dixon vector resultant linalg; do tests+=(--cargo-test-arg="--test=$t"); done
    cargo mutants --workspace --profile mutants -j 2 --timeout 60 --baseline=skip \
        -f host/src/crt.rs -f host/src/basis.rs -f host/src/det.rs -f host/src/resultant.rs \
        --re 'host/src/(crt|basis|det)\.rs|bound_bits' \
        --test-package rns-suite "${tests[@]}" \
        ${2:+--shard "$2" --sharding round-robin} -o "$out/host" ${MUTANTS_ARGS:-}
    ;;
*)
    echo "usage: scripts/mutants.sh core | host [K/N]" >&2
    exit 2
    ;;
esac
