"""Verification on real code, end to end: the pinned JAX and Keras of the test extra are copied, the
verdicts are read off `nanlint verify`, the copy is fixed with `nanlint check --fix --verify`, and the
public functions are run on both trees (tests/real_code/probe.py) at the points where their selects
leak. A verdict must mean what it says there:

- `verified`: the fixed function's real gradient is finite and its values unchanged;
- `verified-select-only`: the fix is applied, values unchanged; whether the real gradient is finite
  depends on code nanlint did not run, which the verdict names;
- `failed`: the fix is not applied, and the verdict names the point where it fails.

Plain `verified` verdicts (the whole function rebuilt) are pinned by tests/test_verify.py; on these
files every select reaches code the harness does not run.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import nanlint

PINNED = {"jax": "0.10.2", "keras": "3.15.1"}  # as in pyproject.toml's test extra
PROBE = Path(__file__).resolve().parent / "real_code" / "probe.py"
FILES = [
    "jax/_src/scipy/stats/laplace.py",
    "jax/_src/scipy/stats/expon.py",
    "jax/_src/scipy/special.py",
    "jax/example_libraries/optimizers.py",
    "jax/_src/scipy/sparse/linalg.py",
    "keras/src/backend/tensorflow/numpy.py",
]


def _package_dir(name: str) -> Path:
    if importlib.util.find_spec(name) is None:
        pytest.skip(f"{name} is not installed (pip install -e '.[test]')")
    installed = importlib.metadata.version(name)
    if installed != PINNED[name]:
        pytest.skip(f"these lines are {name} {PINNED[name]}'s; {installed} is installed")
    return Path(importlib.util.find_spec(name).submodule_search_locations[0])


def _copy(root: Path) -> None:
    for name in PINNED:
        shutil.copytree(_package_dir(name), root / name, ignore=shutil.ignore_patterns("__pycache__"))


def _probe(tree: Path, which: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree), "KERAS_BACKEND": "tensorflow", "JAX_PLATFORMS": "cpu"}
    proc = subprocess.run([sys.executable, str(PROBE), which], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory) -> dict:
    original, fixed = tmp_path_factory.mktemp("original"), tmp_path_factory.mktemp("fixed")
    _copy(original)
    _copy(fixed)
    verify = nanlint("verify", "--isolated", "--output-format", "json", *FILES, cwd=original, timeout=600)
    assert verify.returncode == 1, verify.err  # findings that are not all verified
    verdicts: dict = {}
    for finding in json.loads(verify.out):
        verdicts.setdefault((finding["filename"], finding["location"]["row"]), []).append(finding["verification"])
    fix = nanlint("check", "--isolated", "--fix", "--unsafe-fixes", "--verify", *FILES, cwd=fixed, timeout=600)
    assert "Traceback" not in fix.err + fix.out
    runs = {name: {which: _probe(tree, which) for which in ("jax", "tensorflow")} for name, tree in (("original", original), ("fixed", fixed))}
    return {"original": original, "fixed": fixed, "verdicts": verdicts, "runs": runs}


def _line(tree: Path, file: str, row: int) -> str:
    return (tree / file).read_text().splitlines()[row - 1]


def _case(trees: dict, which: str, name: str) -> tuple[dict, dict]:
    return trees["runs"]["original"][which][name], trees["runs"]["fixed"][which][name]


def _nan(values: list) -> bool:
    return any(v == "nan" for v in values)


def test_the_probes_run_the_copies(trees: dict) -> None:
    for name in ("original", "fixed"):
        runs = trees["runs"][name]
        assert runs["jax"]["jax_file"].startswith(str(trees[name]))
        assert runs["tensorflow"]["keras_file"].startswith(str(trees[name]))


@pytest.mark.parametrize(
    ("which", "name", "file", "rows"),
    [
        ("jax", "laplace.cdf", "jax/_src/scipy/stats/laplace.py", (108, 109)),  # `x, loc, scale = promote_args_inexact(...)`
        ("tensorflow", "sinc", "keras/src/backend/tensorflow/numpy.py", (2942,)),  # `x = convert_to_tensor(x)`
    ],
)
def test_select_only_fixes_that_heal_the_real_gradient(trees: dict, which: str, name: str, file: str, rows: tuple) -> None:
    for row in rows:
        for verdict in trees["verdicts"][(file, row)]:
            assert verdict["status"] == "verified-select-only" and verdict["leak_reproduced"], verdict
        assert _line(trees["fixed"], file, row) != _line(trees["original"], file, row)
    before, after = _case(trees, which, name)
    for point in before:
        assert _nan(before[point]["grad"]), f"{name} at {point} no longer leaks: the probe is stale"
        assert after[point]["value"] == before[point]["value"]
        assert not _nan(after[point]["grad"]), f"{name} at {point}: the fixed gradient is {after[point]['grad']}"


@pytest.mark.parametrize(
    ("name", "file", "row", "upstream"),
    [
        ("clip_grads", "jax/example_libraries/optimizers.py", 572, "l2_norm"),
        ("_safe_normalize", "jax/_src/scipy/sparse/linalg.py", 307, "_norm"),
    ],
)
def test_select_only_names_the_code_that_still_leaks(trees: dict, name: str, file: str, row: int, upstream: str) -> None:
    # The denominator is a norm computed by a helper nanlint does not run: the double where fixes the
    # select, and the helper's own sqrt at the zero vector still leaks. The verdict says whose code
    # it did not run, and the fix changes no value.
    [verdict] = trees["verdicts"][(file, row)]
    assert verdict["status"] == "verified-select-only" and f"`{upstream}`" in verdict["reason"]
    assert _line(trees["fixed"], file, row) != _line(trees["original"], file, row)
    before, after = _case(trees, "jax", name)
    assert after["zeros"]["value"] == before["zeros"]["value"]
    assert _nan(before["zeros"]["grad"]) and _nan(after["zeros"]["grad"])


@pytest.mark.parametrize(
    ("name", "file", "row", "where"),
    [
        ("expon.cdf", "jax/_src/scipy/stats/expon.py", 131, "scale=0"),  # a second pole, in the argument
        ("factorial", "jax/_src/scipy/special.py", 361, "n="),  # lgamma's own pole, under exp
    ],
)
def test_failed_fixes_are_not_applied_and_say_where(trees: dict, name: str, file: str, row: int, where: str) -> None:
    [verdict] = trees["verdicts"][(file, row)]
    assert verdict["status"] == "failed" and "still nan" in verdict["reason"] and where in verdict["reason"]
    assert _line(trees["fixed"], file, row) == _line(trees["original"], file, row)
    before, after = _case(trees, "jax", name)
    assert before == after and all(_nan(p["grad"]) for p in before.values())


def test_a_false_finding_is_gone_and_the_function_untouched(trees: dict) -> None:
    # logaddexp2 divides by `log2 = tf.cast(tf.math.log(2.0), dtype)`, a constant, and takes exp of
    # `-abs(delta) * log2`, never positive: nothing there can leak, and nanlint reports nothing.
    assert not any(file.endswith("tensorflow/numpy.py") and 2120 <= row <= 2130 for file, row in trees["verdicts"])
    before, after = _case(trees, "tensorflow", "logaddexp2")
    assert before == after and not any(_nan(p["grad"]) for p in after.values())


def test_every_verdict_on_these_files_is_honest(trees: dict) -> None:
    # A line is changed only where some select on it was proven; every verdict that is not gives
    # its reason. (An applied fix leaves the module importable: the probes ran on it.)
    proven = ("verified", "verified-select-only")
    for (file, row), verdicts in trees["verdicts"].items():
        assert all(v["reason"] for v in verdicts if v["status"] not in proven), (file, row, verdicts)
        if not any(v["status"] in proven for v in verdicts):
            assert _line(trees["fixed"], file, row) == _line(trees["original"], file, row), (file, row)
