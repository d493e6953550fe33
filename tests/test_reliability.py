"""Regression tests for the defects issue #16 lists (the bad-input table covers more rows), and for
every failure the fuzzer has found."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from cli_run import assert_one_line_errors, nanlint
from nanlint.check import Checker
from nanlint.files import MAX_FILE_BYTES
from nanlint.config.settings import Settings
from nanlint.fix.apply import fix_source

LEAK = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
NON_UTF8_NAME = os.fsdecode(b"caf\xe9.py")
MACHINE_FORMATS = ("json", "json-lines", "junit", "github", "gitlab", "sarif")


def fixed(source: str):
    """`source` fixed with unsafe fixes, by the default rules."""
    linter = Checker(Settings())
    return fix_source(linter, linter.check_source(source, "m.py"), unsafe_fixes=True)


def findings(source: str, *, whole: bool) -> list[tuple]:
    result = Checker(Settings(parse_whole_files=whole)).check_source(source, "m.py")
    assert result.error is None
    return [(d.code, d.location.row, d.location.column) for d in result.diagnostics]


# --- FIFOs: never read --------------------------------------------------------------------------
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_given_by_path_is_refused_without_hanging_even_with_the_cache(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.py")
    (tmp_path / "leak.py").write_text(LEAK)
    run = nanlint("check", "--output-format", "concise", "x.py", "leak.py", cwd=tmp_path, timeout=60)
    assert run.returncode == 2
    assert_one_line_errors(run)
    assert run.err == "nanlint: x.py: not a regular file, not checked\n"
    assert "leak.py:5:29: NAN001" in run.out  # the rest of the run goes on


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_inside_a_directory_is_skipped(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.py")
    run = nanlint("check", ".", cwd=tmp_path, timeout=60)
    assert run.returncode == 0 and "no Python files found" in run.err


# --- file names that are not UTF-8 ----------------------------------------------------------------
@pytest.mark.parametrize("fmt", MACHINE_FORMATS)
def test_a_non_utf8_file_name_gives_a_valid_utf8_report(tmp_path: Path, fmt: str) -> None:
    (tmp_path / NON_UTF8_NAME).write_text(LEAK)
    # A strict error handler on stdout, as a UTF-8 locale other than C.UTF-8 gives.
    run = nanlint("check", "--no-cache", "--output-format", fmt, NON_UTF8_NAME, cwd=tmp_path, env={"PYTHONIOENCODING": "utf-8:strict"})
    assert run.returncode == 1, run.err
    assert_one_line_errors(run, 0)
    text = run.stdout.decode("utf-8")  # strict: the report is valid UTF-8
    assert re.search(r"caf(\\{1,2}xe9|%E9)\.py", text)  # the undecodable byte, escaped (twice inside a JSON string)
    if fmt in ("json", "gitlab", "sarif"):
        json.loads(text)


def test_a_non_utf8_file_name_in_text_output_files_and_baselines(tmp_path: Path) -> None:
    (tmp_path / NON_UTF8_NAME).write_text(LEAK)
    strict = {"PYTHONIOENCODING": "utf-8:strict"}
    shown = nanlint("check", "--no-cache", "--output-format", "concise", NON_UTF8_NAME, cwd=tmp_path, env=strict)
    assert shown.returncode == 1 and shown.stdout.startswith(b"caf\xe9.py:5:29: NAN001")  # the name's own bytes, as ls shows it
    written = nanlint("check", "--no-cache", "--output-format", "concise", "-o", "report.txt", NON_UTF8_NAME, cwd=tmp_path, env=strict)
    assert written.returncode == 1 and written.err == ""
    assert (tmp_path / "report.txt").read_bytes() == shown.stdout
    recorded = nanlint("check", "--no-cache", "--write-baseline", "base.json", NON_UTF8_NAME, cwd=tmp_path, env=strict)
    assert recorded.returncode == 0, recorded.err
    assert json.loads((tmp_path / "base.json").read_text(encoding="utf-8"))["findings"][0]["filename"] == "caf\\xe9.py"
    known = nanlint("check", "--no-cache", "--baseline", "base.json", NON_UTF8_NAME, cwd=tmp_path, env=strict)
    assert known.returncode == 0, known.err


# --- stdin: decoded as a file's bytes, whatever the locale ------------------------------------------
LATIN1 = b"# -*- coding: latin-1 -*-\ns = '\xe9'\n" + LEAK.encode()


@pytest.mark.parametrize(
    "env",
    [
        {"LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""},  # ASCII stdin
        {"PYTHONIOENCODING": "utf-8:strict"},
    ],
    ids=["ascii-locale", "strict-utf8"],
)
def test_stdin_with_a_coding_cookie_is_decoded_as_a_file_is(tmp_path: Path, env: dict) -> None:
    args = ("check", "--output-format", "concise", "-", "--stdin-filename", "m.py")
    run = nanlint(*args, cwd=tmp_path, stdin=LATIN1, env=env)
    assert run.returncode == 1, run.err
    assert run.out.startswith("m.py:7:29: NAN001")
    fixed = nanlint("check", "--fix", "-", "--stdin-filename", "m.py", cwd=tmp_path, stdin=LATIN1, env=env)
    assert fixed.returncode == 0, fixed.err
    assert fixed.stdout == LATIN1.replace(b"jnp.sqrt(x)", b"jnp.sqrt(jnp.where(x > 0, x, 1.0))")  # still latin-1


def test_stdin_keeps_its_bom_through_a_fix(tmp_path: Path) -> None:
    source = b"\xef\xbb\xbf" + LEAK.encode()
    fixed = nanlint("check", "--fix", "-", cwd=tmp_path, stdin=source)
    assert fixed.returncode == 0 and fixed.stdout.startswith(b"\xef\xbb\xbfimport jax")


# --- lone-CR (old Mac) line endings ----------------------------------------------------------------
CR_SUPPRESSED = (
    "import jax.numpy as jnp\r\r\r"
    "def f(x):\r    return jnp.where(x > 0, jnp.sqrt(x), 0.0)  # noqa: NAN001\r\r\r"
    "def g(x):\r    # nanlint: ignore[NAN001]\r    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\r\r\r"
    "def h(x):\r    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\r"
)


@pytest.mark.parametrize("whole", [False, True], ids=["sliced", "whole"])
def test_suppression_comments_are_seen_in_a_lone_cr_file(whole: bool) -> None:
    assert findings(CR_SUPPRESSED, whole=whole) == [("NAN001", 14, 29)]


def test_the_fast_path_reads_imports_after_the_first_line_of_a_lone_cr_file() -> None:
    source = '"""Doc."""\rimport jax.numpy as jnp\r\r\rdef f(x):\r    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\r'
    assert findings(source, whole=False) == findings(source, whole=True) == [("NAN001", 6, 29)]


def test_a_hoisted_condition_keeps_the_lone_cr_line_ending() -> None:
    outcome = fixed("import torch\r\r\rdef f(x):\r    return torch.where(torch.rand_like(x) > 0.5, torch.sqrt(x), 0.0)\r")
    assert outcome.changed and "\n" not in outcome.source


def test_a_hoisted_line_ends_as_the_statement_it_goes_before_in_a_file_of_mixed_line_ends() -> None:
    # Found by the fuzzer: the first line ends in \n, the rest in \r\n. The fast path and the whole
    # file read different default line ends; the new line must follow its statement's either way.
    source = "# header\nimport torch\r\n\r\ndef f(x):\r\n    return torch.where(torch.rand_like(x) > 0.5, torch.sqrt(x), 0.0)\r\n"
    edits = []
    for whole in (False, True):
        (diagnostic,) = Checker(Settings(parse_whole_files=whole)).check_source(source, "m.py").diagnostics
        edits.append([e.content for e in diagnostic.fix.edits])
    assert edits[0] == edits[1] and "ok = torch.rand_like(x) > 0.5\r\n" in edits[0][0]
    assert fixed(source).source.count("\r\n") == source.count("\r\n") + 1


# --- fixes dropped on code that compiles (found by the fuzzer in the benchmark corpus) --------------
def dropped_once(source: str, reason: str, name: str):
    """A fix the fix loop once dropped, and why."""
    return pytest.param(source, id=name)


DROPPED_FIXES = [
    dropped_once(
        "import jax.numpy as jnp\n"
        "def f(k, i, j):\n"
        "    k_f = k.astype(jnp.float32)\n"
        "    denom = jnp.sqrt(k_f * (k_f + 1))\n"
        "    return jnp.where(j <= i, 1.0 / denom, jnp.where(j == k, -k_f / denom, jnp.zeros_like(denom)))\n",
        "the inner where shows the leak of `denom`'s own sqrt, which the outer where hid (both branches read it)",
        "a local whose leak the mask brings to light (jax.scipy.linalg's helmert)",
    ),
    dropped_once(
        "import jax.numpy as jnp\ndef f(x):\n    y = jnp.log(jnp.sqrt(x))\n    return jnp.where(x > 0, y, 0.0)\n",
        "the NAN002 fix masks the outer op's argument, `jnp.sqrt(x)`, which then leaks in the new inner where (a new NAN001)",
        "a chain of singular ops",
    ),
    dropped_once(
        "from jax import numpy as jp\n"
        "def f(pos, width, mid, power, imp_a):\n"
        "  imp_x = jp.abs(pos) / width\n"
        "  imp_b = 1 - (1.0 / jp.power(1 - mid, power - 1)) * jp.power(1 - imp_x, power)\n"
        "  return jp.where(imp_x < mid, imp_a, imp_b)\n",
        "the NAN002 fix masks an op whose argument the condition does not guard (brax's _imp_aref)",
        "ops on several values",
    ),
    dropped_once(
        "import tensorflow as tf\ndef f(c, scale):\n    var = tf.square(scale) / tf.square(c - 1.) / (c - 2.)\n    return tf.where(c > 2., var, 0.0)\n",
        "the NAN002 fix masks one divisor of a chain of divisions, the other still leaks (tfp's InverseGamma variance)",
        "a chain of divisions",
    ),
    dropped_once(
        "import tensorflow as tf\n"
        "def f(z, conc, equal_zero):\n"
        "    safe_conc = tf.where(equal_zero, tf.ones_like(conc), conc)\n"
        "    return tf.where(equal_zero, tf.math.exp(-z), tf.math.exp(-tf.math.log1p(z * safe_conc) / safe_conc))\n",
        "the NAN004 fix copies the op's argument into `tf.zeros_like(...)`, which doubles the NAN001 inside it (tfp's GEV CDF)",
        "nested leaks in a TF branch",
    ),
]


@pytest.mark.parametrize("source", DROPPED_FIXES)
def test_fixes_on_code_that_compiles_are_applied_not_dropped(source: str) -> None:
    outcome = fixed(source)
    assert outcome.changed and not outcome.dropped


# --- a syntax error elsewhere in the file ----------------------------------------------------------
def test_a_file_with_a_syntax_error_elsewhere_reports_it_and_offers_no_fix(tmp_path: Path) -> None:
    source = LEAK + "\n\ndef g(:\n    pass\n"
    (tmp_path / "m.py").write_text(source)
    run = nanlint("check", "--no-cache", "--fix", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert (tmp_path / "m.py").read_text() == source
    assert run.returncode == 1 and "m.py:8:7: NAN900" in run.out and run.err == ""


# --- big files ------------------------------------------------------------------------------------
def test_a_file_over_the_size_limit_is_not_read_and_the_run_goes_on(tmp_path: Path) -> None:
    with open(tmp_path / "huge.py", "wb") as out:
        out.truncate(64 * 1024 * 1024)  # sparse: costs no disk, and is never read
    (tmp_path / "leak.py").write_text(LEAK)
    started = time.perf_counter()
    run = nanlint("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert time.perf_counter() - started < 30
    assert run.returncode == 2
    assert run.err == "nanlint: huge.py: too large to analyse (over the 16 MiB limit for one file), not checked\n"
    assert "leak.py:5:29: NAN001" in run.out


def test_stdin_over_the_size_limit_is_printed_back_whole_by_fix(tmp_path: Path) -> None:
    source = b"x = 1\n" * (MAX_FILE_BYTES // 6 + 1)
    run = nanlint("check", "--fix", "-", cwd=tmp_path, stdin=source)
    assert run.returncode == 2 and "nanlint: -: too large to analyse" in run.err
    assert run.stdout == source


def test_the_fast_path_is_linear_in_the_size_of_the_file() -> None:
    # 400 leaking functions, 2,000 comment lines apart (1.6 MB): the whole file parses in a fraction
    # of a second, and a linear fast path takes no longer; the quadratic one takes seconds.
    unit = "def f{i}(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n" + "#\n" * 2000
    source = "import jax.numpy as jnp\n" + "".join(unit.format(i=i) for i in range(400))
    timings = {}
    for whole in (True, False):
        started = time.perf_counter()
        assert len(findings(source, whole=whole)) == 400
        timings[whole] = time.perf_counter() - started
    assert timings[False] < 3 * timings[True] + 1.0, timings


def test_a_long_sum_behind_a_local_is_analysed_within_the_recursion_limit(tmp_path: Path) -> None:
    # The value questions and the guard search count an expression's levels as well as the bindings
    # they follow: a 400-term sum (400 levels of `+`) is read, and its leak reported.
    from test_bad_input import local_sum

    (tmp_path / "x.py").write_bytes(local_sum(400))
    run = nanlint("check", "--isolated", "--no-cache", "x.py", cwd=tmp_path)
    assert run.returncode == 1 and "x.py:5:" in run.out and "NAN001" in run.out, run.err


def test_an_internal_error_in_one_file_loses_that_file_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in the analysis (a fault injected here: nothing in nanlint raises one on purpose) is
    that file's one-line error, with the exit code's error, and the next file is still checked."""
    import nanlint.analysis.analyse as analysis

    real = analysis.analyse

    def faulty(source, *rest):
        if "boom" in source:
            raise ValueError("math domain error")
        return real(source, *rest)

    monkeypatch.setattr(analysis, "analyse", faulty)
    monkeypatch.delenv("NANLINT_DEBUG", raising=False)
    leak = "import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
    checker = Checker(Settings(), digests=False)
    broken = checker.check_source(leak + "# boom\n", "a.py")
    assert broken.error == "nanlint: a.py: internal error: ValueError: math domain error (set NANLINT_DEBUG=1 for a traceback)"
    assert broken.diagnostics == []
    assert [d.code for d in checker.check_source(leak, "b.py").diagnostics] == ["NAN001"]
    monkeypatch.setenv("NANLINT_DEBUG", "1")
    with pytest.raises(ValueError):
        checker.check_source(leak + "# boom\n", "a.py")
