"""The verification harness end to end: real JAX and TensorFlow under XLA, in a separate process."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nanlint.fix.apply import fix_source
from nanlint.check import Checker
from nanlint.config.settings import Settings
from nanlint.fix.model import Applicability
from nanlint.verify.harness import FAILED, UNVERIFIABLE, VERIFIED, VERIFIED_SELECT_ONLY, verify

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "fix"


def nanlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "nanlint", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)


def verdicts_for(source: str, *, tamper=None) -> list:
    """Lint, fix in memory (optionally replacing the planned edit text), and verify."""
    linter = Checker(Settings(), keep_analysis=True)
    result = linter.check_source(source, "m.py")
    if tamper is not None:
        for d in result.diagnostics:
            d.fix.edits = [type(e)(tamper(e.content), e.location, e.end_location) for e in d.fix.edits]
    outcome = fix_source(linter, result, unsafe_fixes=True)
    found = verify([(result, outcome)])
    return [found[id(d)] for d in result.diagnostics]


def test_fixture_findings_verify_and_reproduce_their_leaks(tmp_path: Path) -> None:
    proc = nanlint("verify", "--isolated", "--output-format", "json", str(FIX / "jax_fixes.py"), str(FIX / "tensorflow_fixes.py"), cwd=tmp_path)
    findings = json.loads(proc.stdout)
    unverifiable = [f for f in findings if f["verification"]["status"] == UNVERIFIABLE]
    # Only the random conditions (hoisted) stay unverifiable: the harness does not run PRNG calls.
    assert len(unverifiable) == 2 and all(Path(f["filename"]).name == "jax_fixes.py" for f in unverifiable)
    verified = [f["verification"] for f in findings if f["verification"]["status"] == VERIFIED]
    assert len(verified) == len(findings) - 2
    assert all(v["leak_reproduced"] for v in verified)
    assert {v["backend"] for v in verified} == {"jax", "tensorflow"}
    probe = verified[0]["probes"][0]
    assert set(probe) >= {"point", "value", "grad_before", "grad_after"}
    assert proc.returncode == 1  # not everything verified


def test_tensorflow_eager_hiding_is_reported(tmp_path: Path) -> None:
    proc = nanlint("verify", "--isolated", "--output-format", "json", str(FIX / "tensorflow_fixes.py"), cwd=tmp_path)
    sqrt = next(f for f in json.loads(proc.stdout) if f["location"]["row"] == 8)
    assert sqrt["verification"]["status"] == VERIFIED
    assert any("eager mode hides" in note for note in sqrt["verification"]["notes"])


def test_text_report_shows_the_table(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n")
    proc = nanlint("verify", "m.py", cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "m.py:5:29: NAN001 verified (jax, XLA)" in proc.stdout
    assert "grad before" in proc.stdout and "leak fixed" in proc.stdout
    assert proc.stdout.rstrip().endswith("1 verified")


def test_a_safe_value_outside_the_domain_fails() -> None:
    # 1e-40 keeps the barrier for n, but d/dt = 1/1e-40 overflows float32: the numerator leaks.
    # (A safe value of 0.0 no longer gets this far: the linter reads it as no guard for `t` and
    # fixes the select again, point 92.)
    [verdict] = verdicts_for("import jax.numpy as jnp\ny = jnp.where(n != 0, t / n, 0.0)\n", tamper=lambda c: c.replace("1.0", "1e-40"))
    assert verdict.status == FAILED
    assert "d/dt is still" in verdict.reason


def test_no_differentiable_probe_proves_nothing() -> None:
    # Wherever it is selected the function is NaN or infinite (log of x and of -x): no probe shows
    # that the fix keeps a gradient, so the verdict is not "verified".
    [verdict] = verdicts_for("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.log(x) * jnp.log(-x), jnp.log(x))\n")
    assert verdict.status == UNVERIFIABLE
    assert "nothing was proven" in verdict.reason
    assert verdict.probes and not any(p["selected_differentiable"] for p in verdict.probes)


def test_a_fix_that_changes_a_value_fails() -> None:
    [verdict] = verdicts_for("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.sqrt(x), 0.0)\n", tamper=lambda c: c.replace("x, 1.0", "x + 1, 1.0"))
    assert verdict.status == FAILED
    assert "value changed" in verdict.reason


def test_a_leak_that_does_not_reproduce_is_said_so() -> None:
    # The pole of log(3x - 1) is at x = 1/3, between the probe points.
    [verdict] = verdicts_for("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.log(x * 3 - 1), 0.0)\n")
    assert verdict.status == VERIFIED and not verdict.leak_reproduced
    assert verdict.reason == "the leak did not reproduce at the probe points"


def test_hostile_files_never_execute_anything(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    hostile = f"""import os
import jax.numpy as jnp
open({str(marker)!r}, "w").write("module code ran")


def f(x):
    a = jnp.where(x > 0, jnp.sqrt(open({str(marker)!r}, "w").write("x") + x), 0.0)
    b = jnp.where(x > 0, jnp.log(__import__("os").system("touch {marker}") + x), 0.0)
    c = jnp.where(x > 0, jnp.sqrt(jnp.load(x) + x), 0.0)
    d = jnp.where(x > 0, jnp.sqrt(x.__class__.__init__(x) + x), 0.0)
    e = jnp.where(x > 0, jnp.log(os.system("touch {marker}") + x), 0.0)
    return a, b, c, d, e
"""
    (tmp_path / "hostile.py").write_text(hostile)
    proc = nanlint("verify", "--output-format", "json", "hostile.py", cwd=tmp_path)
    assert not marker.exists()
    findings = json.loads(proc.stdout)
    assert len(findings) == 5
    assert all(f["verification"]["status"] == UNVERIFIABLE for f in findings)
    reasons = " | ".join(f["verification"]["reason"] for f in findings)
    assert "nanlint never runs user code" in reasons and "`jax.numpy.load` is not a function the harness runs" in reasons


def test_fix_with_verify_applies_only_verified_fixes(tmp_path: Path) -> None:
    source = (
        "import jax\nimport jax.numpy as jnp\n\n\n"
        "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n\n\n"
        "def g(x):\n    return jnp.where(jax.random.uniform(jax.random.PRNGKey(0), x.shape) > 0.5, jnp.log(x), 0.0)\n"
    )
    target = tmp_path / "m.py"
    target.write_text(source)
    proc = nanlint("check", "--fix", "--unsafe-fixes", "--verify", "--output-format", "json", "m.py", cwd=tmp_path)
    text = target.read_text()
    assert "jnp.sqrt(jnp.where(x > 0, x, 1.0))" in text  # verified: applied
    assert "ok = " not in text and "jnp.log(x)" in text  # unverifiable: left alone, still reported
    left = json.loads(proc.stdout)
    assert len(left) == 1, proc.stdout + proc.stderr
    [left] = left
    assert left["location"]["row"] == 10 and left["verification"]["status"] == UNVERIFIABLE
    assert proc.returncode == 1


def test_a_missing_framework_leaves_the_others_verified(tmp_path: Path) -> None:
    """A tree of JAX and torch code where torch does not import: the JAX finding is verified, the torch
    one is unverifiable and says how to install torch, and the exit code follows the findings."""
    hidden = tmp_path / "hidden"
    (hidden / "torch").mkdir(parents=True)
    (hidden / "torch" / "__init__.py").write_text("raise ImportError('torch is hidden for this test')\n")
    (tmp_path / "j.py").write_text("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.sqrt(x), 0.0)\n")
    (tmp_path / "t.py").write_text("import torch\ny = torch.where(x > 0, torch.sqrt(x), 0.0)\n")
    env = {**os.environ, "PYTHONPATH": f"{hidden}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    proc = subprocess.run(
        [sys.executable, "-m", "nanlint", "verify", "--output-format", "json", "j.py", "t.py"],
        cwd=tmp_path, capture_output=True, text=True, env=env, timeout=600,
    )
    assert proc.stderr == "" and proc.returncode == 1, proc.stderr
    by_file = {f["filename"]: f["verification"] for f in json.loads(proc.stdout)}
    assert by_file["j.py"]["status"] == VERIFIED
    assert by_file["t.py"] == {**by_file["t.py"], "status": UNVERIFIABLE, "backend": "torch", "reason": "torch is not installed: pip install 'nanlint[torch]'"}


def _strict(text: str):
    """Parse as strict JSON: NaN and Infinity are not JSON (JSON.parse and Go's encoding/json refuse them)."""
    def refuse(constant: str):
        raise ValueError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("fmt", ["json", "json-lines", "sarif", "gitlab"])
def test_verification_output_is_strict_json(tmp_path: Path, fmt: str) -> None:
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.sqrt(x), 0.0)\n")
    proc = nanlint("verify", "--output-format", fmt, "m.py", cwd=tmp_path)
    documents = [_strict(line) for line in proc.stdout.splitlines()] if fmt == "json-lines" else [_strict(proc.stdout)]
    text = json.dumps(documents, allow_nan=False)  # nothing non-finite survived the parse as a number
    if fmt != "gitlab":  # GitLab's code-quality schema has no place for the verdict
        assert '"grad_before": {"x": "nan"}' in text  # the leak's gradient, written as a string


def test_the_whole_function_is_followed_down_to_its_parameters() -> None:
    # `y` is rebuilt from the function's own statements (an augmented assignment included), so the
    # probes vary the parameters, not a stand-in for `y`.
    source = "import jax.numpy as jnp\n\ndef shrink(x, scale):\n    y = x * scale\n    y += 1.0\n    return jnp.where(y > 0, jnp.log(y), 0.0)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED and verdict.leak_reproduced
    assert set(verdict.probes[0]["point"]) == {"x", "scale"}


def test_tuple_parts_are_followed() -> None:
    source = "import jax.numpy as jnp\n\ndef f(x, w):\n    a, b = x * 2.0, w\n    return jnp.where(a > 0, jnp.sqrt(a), b)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED and set(verdict.probes[0]["point"]) == {"x", "w"}


def test_a_call_the_harness_does_not_run_verifies_the_select_only() -> None:
    # `helper` is user code: the select is probed with `y` free, and the verdict says how far it goes.
    source = "import jax.numpy as jnp\nfrom mylib import helper\n\ndef f(x):\n    y = helper(x) * 2.0\n    return jnp.where(y > 0, jnp.sqrt(y), 0.0)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED_SELECT_ONLY and verdict.leak_reproduced
    assert "`helper`" in verdict.reason and set(verdict.probes[0]["point"]) == {"y"}


def test_a_mask_that_cannot_help_is_not_offered_and_says_why() -> None:
    # r = sqrt(x) is 0 where x = 0, and the condition reads r itself: masking r in `1 / r` leaves
    # sqrt's own derivative infinite there, so no double where on this select is verified.
    source = "import jax.numpy as jnp\n\ndef f(x):\n    r = jnp.sqrt(x)\n    return jnp.where(r > 0, 1.0 / r, 0.0)\n"
    linter = Checker(Settings(), keep_analysis=True)
    result = linter.check_source(source, "m.py")
    division = next(d for d in result.diagnostics if d.code == "NAN001")
    assert division.fix.applicability is Applicability.DISPLAY_ONLY and "a double where here is not enough" in division.fix.message
    verdicts = verdicts_for(source)
    assert verdicts and all(v.status == UNVERIFIABLE and "none can be" in v.reason for v in verdicts)


def test_a_closure_is_followed_into_its_enclosing_function() -> None:
    # The select sits in a lambda; `norm` is the enclosing function's local, computed by a call the
    # harness does not run, so the select is probed with `norm` free and the verdict names the call.
    source = (
        "import jax.numpy as jnp\nfrom jax import tree_util\nfrom mylib import l2_norm\n\n"
        "def clip(grads, max_norm):\n    norm = l2_norm(grads)\n"
        "    normalize = lambda g: jnp.where(norm < max_norm, g, g * (max_norm / norm))\n"
        "    return tree_util.tree_map(normalize, grads)\n"
    )
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED_SELECT_ONLY and "`l2_norm`" in verdict.reason
    assert {"norm", "max_norm"} <= set(verdict.probes[0]["point"])


def test_a_rebinding_cast_is_followed_and_its_dtype_rebuilt() -> None:
    # `x = tf.cast(x, x.dtype)` rebinds the parameter: the harness follows it, with the dtype read off
    # the tensor itself, and the probes vary the parameter.
    source = "import tensorflow as tf\n\ndef f(x):\n    x = tf.cast(x, x.dtype)\n    return tf.where(x > 0, tf.math.log(x), 0.0)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED and verdict.leak_reproduced
    assert set(verdict.probes[0]["point"]) == {"x"}


def test_an_unknown_dtype_is_probed_and_the_assumption_said() -> None:
    source = "import jax.numpy as jnp\n\ndef f(x, dtype):\n    y = jnp.asarray(x, dtype=dtype)\n    return jnp.where(y > 0, jnp.sqrt(y), 0.0)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED and verdict.leak_reproduced
    assert any("dtype" in note for note in verdict.notes)


def test_a_function_of_many_parameters_is_probed_without_every_combination() -> None:
    # 14 probe values for each of 12 parameters would be 14**12 points: the grid stays bounded.
    params = ", ".join(f"a{i}" for i in range(12))
    total = " + ".join(f"a{i}" for i in range(12))
    source = f"import jax.numpy as jnp\n\ndef f({params}):\n    y = {total}\n    return jnp.where(y > 0, jnp.log(y), 0.0)\n"
    [verdict] = verdicts_for(source)
    assert verdict.status in (VERIFIED, FAILED) and len(verdict.probes) > 0


def test_a_receiver_read_only_for_its_dtype_is_no_probe_variable() -> None:
    # `self.dtype` is the probes' dtype; `self` itself is no number to probe.
    source = (
        "import tensorflow as tf\n\nclass D:\n    def mode(self):\n        s = self.scale\n"
        "        return tf.where(s > 0., tf.math.log(s), tf.cast(0., dtype=self.dtype))\n"
    )
    [verdict] = verdicts_for(source)
    assert verdict.status == VERIFIED and verdict.leak_reproduced
    assert all(set(probe["point"]) == {"self.scale"} for probe in verdict.probes)
