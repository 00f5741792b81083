#!/usr/bin/env bash
# Builds the Python package as one abi3 wheel (CPython >= 3.9) for manylinux into dist/:
# maturin checks the extension's symbols against the manylinux policies and tags the
# wheel with the oldest glibc it runs on (GMP is linked statically; libc is the only
# system library it needs). Prints the wheel's path.
#
#   scripts/wheel.sh             # build dist/rns-*.whl
#   scripts/wheel.sh --test      # and install it into a fresh virtual environment for
#                                # each CPython 3.9 ... 3.13 found here, with no Rust
#                                # toolchain on the PATH, and run python/tests against it
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/maturin ] || scripts/python-env.sh >/dev/null
rm -rf dist
RNS_PTXAS=${RNS_PTXAS:-$(scripts/ptxas.sh 2>/dev/null || true)} PATH="$PWD/.venv/bin:$PATH" \
    .venv/bin/maturin build -q --release --strip -m python/Cargo.toml -o dist >&2
wheel=$(ls dist/rns-*.whl)
case "$wheel" in
    *abi3-manylinux*) ;;
    *) echo "wheel.sh: $wheel is not an abi3 manylinux wheel" >&2; exit 1 ;;
esac
echo "$wheel"
[ "${1:-}" = "--test" ] || exit 0
# CPython 3.X: pyenv's build when there is one (its shims refuse versions not selected),
# else python3.X on the PATH if it runs.
find_python() {
    local c
    for c in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$1".*/bin/python"$1"; do
        [ -x "$c" ] && { echo "$c"; return; }
    done
    c=$(command -v "python$1") && "$c" -c '' 2>/dev/null && echo "$c"
    return 0
}
# No Rust toolchain on the PATH: the wheel must need none.
run() {
    env -i HOME="$HOME" PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 \
        RNS_BIN="${RNS_BIN:-$PWD/target/release/rns}" "$@"
}
tested=0
versions=()
for v in 3.9 3.10 3.11 3.12 3.13; do
    py=$(find_python "$v")
    [ -n "$py" ] || continue
    env_dir=$(mktemp -d)/venv
    "$py" -m venv "$env_dir"
    "$env_dir/bin/pip" install -q --upgrade pip
    "$env_dir/bin/pip" install -q "$wheel" pytest numpy
    run "$env_dir/bin/python" -c 'import rns, sys; print("wheel.sh: python", sys.version.split()[0], "imports", rns.__file__)'
    # Ints across the boundary through this version's converters and the limited API.
    run "$env_dir/bin/python" scripts/int_roundtrip.py
    # The tests check every answer against python-flint 0.9 (FLINT 3.6), whose wheels
    # start at CPython 3.10: older versions run the package's own examples instead.
    if "$env_dir/bin/pip" install -q --only-binary=:all: "python-flint>=0.9"; then
        run "$env_dir/bin/python" -m pytest -q -p no:cacheprovider python/tests
    else
        echo "wheel.sh: no python-flint 0.9 for Python $v: its doctests only" >&2
        run "$env_dir/bin/python" -c 'import doctest, rns
r = doctest.testmod(rns)
for name in ("Engine", "Matrix", "backends"):
    for t in doctest.DocTestFinder().find(getattr(rns, name), name):
        r = r._replace(failed=r.failed + doctest.DocTestRunner().run(t).failed)
print("wheel.sh: doctests", r)
assert r.failed == 0 and r.attempted >= 10'
    fi
    tested=$((tested + 1))
    versions+=("$v")
done
if [ "$tested" = 0 ]; then
    echo "wheel.sh: no CPython 3.9 ... 3.13 found to test the wheel with" >&2
    exit 1
fi
echo "wheel.sh: $wheel ($(du -h "$wheel" | cut -f1)) tested with Python ${versions[*]}"
