"""Inputs nobody plans for, one row each (issue #16): the exit code, a one-line message and no
traceback; then `--fix --unsafe-fixes` on the same input changes nothing it should not.

A row's `message` is a regular expression matched against one line of stderr (`err`) or of stdout
(`out`). A row's `fixed` is what the fix run must leave in `x.py` (or print, for stdin); without it,
every file must stay byte-identical.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from cli_run import Run, assert_one_line_errors, nanlint
from nanlint.files import MAX_FILE_BYTES

LEAK = b"import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
LEAK_FIXED = LEAK.replace(b"jnp.sqrt(x)", b"jnp.sqrt(jnp.where(x > 0, x, 1.0))")
LATIN1 = b"# -*- coding: latin-1 -*-\n" + LEAK.replace(b"(x):", b"(x):  # caf\xe9")
LATIN1_FIXED = b"# -*- coding: latin-1 -*-\n" + LEAK_FIXED.replace(b"(x):", b"(x):  # caf\xe9")
MIXED_INDENT = LEAK + LEAK[LEAK.index(b"\n\n\n") :].replace(b"def f", b"def g").replace(b"    return", b"\treturn")
NON_UTF8_NAME = os.fsdecode(b"caf\xe9.py")
BINARY = r"^nanlint: x\.py: binary file, not checked$"
TOO_DEEP = r"^nanlint: x\.py: too deeply nested to analyse$"


def local_sum(terms: int) -> bytes:
    """A leak whose argument is a local that sums `terms` terms, and a mask computed from it."""
    total = " + ".join(["x"] * terms)
    return (
        "import jax.numpy as jnp\ndef f(x, m):\n    y = " + total + "\n    z = jnp.where(m, y, 1.0)\n"
        "    return jnp.where(y > 0, jnp.log(y) + jnp.exp(-jnp.abs(y)) / z, 0.0)\n"
    ).encode()


def in_where(expression: str) -> bytes:
    """A leak whose op's argument is `expression`: the detector has to read it."""
    return f"import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.sqrt({expression}), 0.0)\n".encode()


@dataclass
class Input:
    args: list[str]
    stdin: Optional[bytes] = None


def file(data: bytes, name: str = "x.py") -> Callable[[Path], Input]:
    def make(tmp: Path) -> Input:
        (tmp / name).write_bytes(data)
        return Input([name])

    return make


def huge(tmp: Path) -> Input:
    """A genuine Python file of 50 MB, every line of it a leak."""
    with open(tmp / "x.py", "wb") as out:
        out.write(b"import jax.numpy as jnp\n")
        body = LEAK[LEAK.index(b"def") :]
        out.write(body * (50_000_000 // len(body) + 1))
    assert (tmp / "x.py").stat().st_size > MAX_FILE_BYTES
    return Input(["x.py"])


def symlink_loop(tmp: Path) -> Input:
    os.symlink("x.py", tmp / "x.py")
    return Input(["x.py"])


def unreadable(tmp: Path) -> Input:
    target = tmp / "x.py"
    target.write_bytes(LEAK)
    target.chmod(0)
    if os.access(target, os.R_OK):  # root reads anything: give it a file whose read fails anyway
        if not os.path.exists("/proc/self/mem"):
            pytest.skip("running as root, with no file that root cannot read")
        target.unlink()
        os.symlink("/proc/self/mem", target)  # a regular file whose first bytes fail to read (EIO)
    return Input(["x.py"])


def directory(tmp: Path) -> Input:
    (tmp / "x.py").mkdir()
    return Input(["x.py"])


def fifo(tmp: Path) -> Input:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    os.mkfifo(tmp / "x.py")
    return Input(["x.py"])


def stdin(data: bytes) -> Callable[[Path], Input]:
    return lambda tmp: Input(["-", "--stdin-filename", "x.py"], stdin=data)


ROWS = [
    # id, input, exit code, stream, message, what --fix leaves
    ("empty file", file(b""), 0, "out", r"^All checks passed!$", None),
    ("BOM only", file(b"\xef\xbb\xbf"), 0, "out", r"^All checks passed!$", None),
    ("UTF-16", file(LEAK.decode().encode("utf-16")), 2, "err", BINARY, None),
    ("latin-1 with a coding cookie", file(LATIN1), 1, "out", r"^x\.py:6:29: NAN001 ", LATIN1_FIXED),
    ("NUL bytes", file(LEAK + b"x = '\x00'\n"), 2, "err", BINARY, None),
    ("NUL after the first 8 KiB", file(LEAK + b"#" * 9000 + b"\n\x00\n"), 2, "err", BINARY, None),
    ("undecodable bytes", file(LEAK + b"s = '\xff'\n"), 2, "err", r"^nanlint: x\.py: cannot decode: .*0xff", None),
    ("syntax error", file(LEAK.replace(b"(x):", b"(x:")), 1, "out", r"^x\.py:4:\d+: NAN900 SyntaxError: ", None),
    ("lone-CR line endings", file(LEAK.replace(b"\n", b"\r")), 1, "out", r"^x\.py:5:29: NAN001 ", LEAK_FIXED.replace(b"\n", b"\r")),
    ("CRLF line endings", file(LEAK.replace(b"\n", b"\r\n")), 1, "out", r"^x\.py:5:29: NAN001 ", LEAK_FIXED.replace(b"\n", b"\r\n")),
    ("mixed tabs and spaces", file(MIXED_INDENT), 1, "out", r"^x\.py:10:26: NAN001 ", MIXED_INDENT.replace(b"jnp.sqrt(x)", b"jnp.sqrt(jnp.where(x > 0, x, 1.0))")),
    ("inconsistent tabs and spaces", file(LEAK.replace(b"    return", b"\tif x:\n        return")), 1, "out", r"^x\.py:6:\d+: NAN900 SyntaxError: inconsistent use of tabs", None),
    ("a 50 MB file", huge, 2, "err", r"^nanlint: x\.py: too large to analyse \(over the 16 MiB limit for one file\), not checked$", None),
    ("10,000-deep nesting", file(in_where("[" * 10_000 + "x" + "]" * 10_000)), 1, "out", r"^x\.py:2:\d+: NAN900 SyntaxError: too many nested parentheses", None),
    ("10,000-deep expression", file(in_where("-" * 10_000 + "x")), 2, "err", TOO_DEEP, None),
    ("one giant expression", file(in_where(" + ".join(["x"] * 100_000))), 2, "err", TOO_DEEP, None),
    # A long sum behind a local is too deep, never an internal error (tests/test_reliability.py: a
    # 400-term one is analysed).
    ("a 2,000-term sum behind a local", file(local_sum(2000)), 2, "err", TOO_DEEP, None),
    ("a symlink loop", symlink_loop, 2, "err", r"^nanlint: symlink loop: x\.py$", None),
    ("an unreadable file", unreadable, 2, "err", r"^nanlint: cannot read x\.py: (Permission denied|Input/output error)$", None),
    ("a directory named x.py", directory, 0, "err", r"^nanlint: warning: no Python files found under the given path\(s\)$", None),
    ("a FIFO named x.py", fifo, 2, "err", r"^nanlint: x\.py: not a regular file, not checked$", None),
    ("a missing path", lambda tmp: Input(["x.py"]), 2, "err", r"^nanlint: path does not exist: x\.py$", None),
    ("stdin with --stdin-filename", stdin(LATIN1), 1, "out", r"^x\.py:6:29: NAN001 ", LATIN1_FIXED),
    ("undecodable stdin", stdin(LEAK + b"s = '\xff'\n"), 2, "err", r"^nanlint: x\.py: cannot decode: ", None),
    ("a non-UTF-8 file name", file(LEAK, NON_UTF8_NAME), 1, "out", r"^caf\udce9\.py:5:29: NAN001 ", LEAK_FIXED),
]


def check(tmp: Path, made: Input, *extra: str) -> Run:
    # A FIFO must not hang the run: the timeout turns a hang into a failure.
    return nanlint("check", "--no-cache", "--output-format", "concise", *extra, *made.args, cwd=tmp, stdin=made.stdin, timeout=60)


@pytest.mark.parametrize("make, code, stream, message, fixed", [pytest.param(*row[1:], id=row[0]) for row in ROWS])
def test_bad_input(tmp_path: Path, make, code: int, stream: str, message: str, fixed: Optional[bytes]) -> None:
    made = make(tmp_path)
    run = check(tmp_path, made)
    assert run.returncode == code, run.err
    assert_one_line_errors(run, 1 if stream == "err" else 0)
    assert re.search(message, run.err if stream == "err" else run.out, re.MULTILINE), (run.out, run.err)

    before = snapshot(tmp_path)
    fixing = check(tmp_path, made, "--fix", "--unsafe-fixes")
    assert fixing.returncode == (0 if fixed is not None else code), fixing.err
    assert "Traceback" not in fixing.err
    if made.stdin is not None:
        assert fixing.stdout == (fixed if fixed is not None else made.stdin)  # stdin: the source goes to stdout
    elif fixed is not None:
        before[made.args[0]] = fixed
    assert snapshot(tmp_path) == before


def snapshot(root: Path) -> dict[str, bytes]:
    """Every regular file under `root` and its bytes (links are not followed, FIFOs not read)."""
    out = {}
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if stat.S_ISREG(os.lstat(path).st_mode) and os.access(path, os.R_OK):
                with open(path, "rb") as handle:
                    out[os.path.relpath(path, root)] = handle.read()
    return out


def test_a_path_that_could_not_be_checked_is_no_check_passed(tmp_path: Path) -> None:
    """With an error, the summary does not say "All checks passed!": it says an error kept something
    from being checked, with findings or without."""
    (tmp_path / "clean.py").write_text("import jax.numpy as jnp\n", encoding="utf-8")
    (tmp_path / "leak.py").write_text("import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.log(x), 0.0)\n", encoding="utf-8")
    clean = nanlint("check", "--no-cache", "missing.py", "clean.py", cwd=tmp_path)
    assert clean.returncode == 2
    assert clean.out.splitlines()[-1] == "No findings, but 1 error above: not everything was checked."
    assert_one_line_errors(clean)
    leaky = nanlint("check", "--no-cache", "missing.py", "leak.py", cwd=tmp_path)
    assert leaky.returncode == 2
    assert leaky.out.splitlines()[-1] == "1 error above: not everything was checked."
    assert "Found 1 finding" in leaky.out
