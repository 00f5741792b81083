"""The README's first examples run and print what their comments show: the Python block
here, the CLI block through the `rns` binary (`RNS_BIN`, or `target/release/rns`), and
the Rust block as a doctest of the `rns` crate (`host/src/lib.rs`)."""

import contextlib
import io
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()


def block(lang, holding=""):
    """The first fenced block of `lang` in the README that holds `holding`."""
    for m in re.finditer(rf"```{lang}\n(.*?)```", README, re.S):
        if holding in m.group(1):
            return m.group(1)
    raise AssertionError(f"no {lang} block holding {holding!r} in the README")


def test_the_python_example_prints_what_it_shows():
    code = block("python")
    want = [line.split("# ", 1)[1].strip() for line in code.splitlines() if line.startswith("print(")]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue().splitlines() == want


def test_the_cli_example_prints_what_it_shows(tmp_path):
    binary = os.environ.get("RNS_BIN") or str(ROOT / "target" / "release" / "rns")
    if not os.path.exists(binary):
        pytest.skip("the rns binary is not built (cargo build --release); set RNS_BIN")
    lines = block("sh", "printf").splitlines()
    ran = 0
    for line in lines:
        command, _, comment = line.partition("#")
        words = shlex.split(command)
        if not words:
            continue
        if words[0] != "rns":
            subprocess.run(command, shell=True, cwd=tmp_path, check=True)
            continue
        out = subprocess.run([binary, *words[1:]], cwd=tmp_path, capture_output=True, text=True)
        assert out.returncode == 0, f"{line}: {out.stderr}"
        shown = comment.split(",")[0].split(":")[0].strip()
        if shown.isdigit():
            assert out.stdout.strip() == shown, line
        elif words[1] == "solve":
            assert out.stdout.splitlines() == ["3 3", "1 0 0", "0 1 0", "0 0 1"], line
        ran += 1
    assert ran == 3
