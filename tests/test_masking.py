"""NAN201, a NaN mask after the fact: what counts as a mask and as its producer, the fast path's
soundness for it, its fix, its notes, and `nanlint verify` showing the NaN gradient (real JAX and
TensorFlow under XLA, torch autograd when installed); and the framework facts the catalog states."""

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from nanlint.catalog.lookup import Catalog
from nanlint.catalog.tables import NAN_REPLACEMENTS, NAN_TESTS, OPS
from nanlint.check import Checker
from nanlint.config.settings import Settings
from nanlint.fix.apply import fix_source
from nanlint.fix.model import Applicability
from nanlint.prefilter import Reported, Verdict, prefilter
from nanlint.verify.harness import UNVERIFIABLE, VERIFIED

CHECK = Path(__file__).resolve().parent.parent / "fixtures" / "check"


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def check(source: str, select=("ALL",), whole: bool = False):
    result = Checker(Settings(select=list(select), parse_whole_files=whole)).check_source(source, "m.py")
    assert result.error is None
    return result.diagnostics


def masks(source: str, whole: bool = False):
    return [d for d in check(source, whole=whole) if d.code == "NAN201"]


def same_sliced_and_whole(source: str) -> list:
    def key(d):
        return (d.code, d.location, d.message, d.fix.applicability if d.fix else None, [e.content for e in d.fix.edits] if d.fix else [])

    sliced, whole = [key(d) for d in check(source)], [key(d) for d in check(source, whole=True)]
    assert sliced == whole
    return [k[0] for k in sliced]


# --- what a mask is, and its producer ------------------------------------------------------------
@pytest.mark.parametrize(
    "mask",
    [
        "jnp.where(jnp.isnan(v), 0.0, v)",
        "jnp.where(~jnp.isfinite(v), 0.0, v)",
        "jnp.where(jnp.isfinite(v), v, 0.0)",
        "jnp.where(jnp.logical_not(jnp.isfinite(v)), 0.0, v)",
        "jnp.where(jnp.isnan(v) | jnp.isinf(v), 0.0, v)",
        "jnp.where(jnp.any(jnp.isnan(v)), 0.0, v)",
        "jnp.where(v != v, 0.0, v)",
        "jnp.where(v == v, v, 0.0)",
        "jnp.where((jnp.isnan(v)), jnp.zeros_like(v), (v))",
        "jnp.nan_to_num(v)",
        "jnp.nan_to_num(v, nan=0.0, posinf=1e6)",
    ],
)
def test_every_spelling_of_a_mask_is_one(mask: str) -> None:
    source = f"import jax.numpy as jnp\ndef f(x):\n    v = jnp.sqrt(x)\n    return {mask}\n"
    assert [d.location.row for d in masks(source)] == [4]


@pytest.mark.parametrize(
    "mask",
    [
        "jnp.where(jnp.isnan(v), v, 0.0)",  # keeps the NaN, masks the rest
        "jnp.where(jnp.isnan(w), 0.0, v)",  # tests another value
        "jnp.where(jnp.isnan(v), jnp.nan, v)",  # a replacement that is not finite either
        "jnp.where(jnp.isfinite(v), v, -jnp.inf)",
        "jnp.nan_to_num(v, nan=jnp.nan)",
        "jnp.where(v > 0, v, 0.0)",
    ],
)
def test_what_is_no_mask(mask: str) -> None:
    source = f"import jax.numpy as jnp\ndef f(x, w):\n    v = jnp.sqrt(x)\n    return {mask}\n"
    assert masks(source) == []


@pytest.mark.parametrize(
    ("body", "producer"),
    [
        ("v = -jnp.mean(y * jnp.log(p))", "jnp.log(p)"),  # through arithmetic and a reduction
        ("a = p / y\n    b = a.reshape(-1)\n    v = jnp.tanh(b) * 2.0", "p / y"),  # locals, a method, an activation
        ("w = (p - y) ** 0.5\n    v = jnp.where(p > 0, w, y)", "(p - y) ** 0.5"),  # through a select, a power
        ("v = jnp.linalg.cholesky(p)", "jnp.linalg.cholesky(p)"),  # a framework function nanlint cannot see into
        ("v = jnp.exp(p)", "jnp.exp(p)"),  # overflow
    ],
)
def test_the_producer_is_found_through_the_computation(body: str, producer: str) -> None:
    source = f"import jax.numpy as jnp\ndef f(p, y):\n    {body}\n    return jnp.nan_to_num(v)\n"
    (finding,) = masks(source)
    assert f"where `{producer}`" in finding.message


@pytest.mark.parametrize(
    "body",
    [
        "v = p",  # an input: masking it is the remedy
        "v = p * y + 1.0",  # arithmetic that cannot make a NaN
        "v = jnp.mean(p) - jnp.sum(y ** 2)",  # reductions and integer powers pass a NaN through
        "v = model(p)",  # user code: out of sight
        "v = lax.stop_gradient(jnp.log(p))",  # a barrier
        "v = jnp.log(p).astype(jnp.int32)",  # no gradient through an integer
        "v = jnp.log(jnp.argmax(p, axis=-1) + 1)",  # an index carries no gradient
        "v = jnp.log(jnp.maximum(p, 1e-6))",  # a guarded op
        "v = jnp.log(p + 1e-8)",  # an explicit shift off the pole
        "v = jnp.cbrt(p)",  # an op whose value is always finite makes no NaN to mask
        "v = jnp.where(p > 0, jnp.log(p), 0.0)",  # the where keeps the pole out of v (NAN001's finding)
        # A mask hides only non-finite values: sqrt is NaN below 0, finite at 0 (its infinite
        # derivative there is NAN003's finding, or no one's).
        "v = jnp.where(p >= 0, jnp.sqrt(p), 0.0)",
        "v = jnp.sqrt(jnp.where(p >= 0, p, 1.0))",
        "v = jnp.arcsin(jnp.where(jnp.abs(p) <= 1, p, 0.0))",
        "v = np.log(p)",  # plain NumPy is not differentiated
    ],
)
def test_no_producer_in_sight(body: str) -> None:
    source = f"import numpy as np\nimport jax.numpy as jnp\nfrom jax import lax\ndef f(p, y):\n    {body}\n    return jnp.where(jnp.isnan(v), 0.0, v)\n"
    assert masks(source) == []


def test_a_nan_mask_is_no_branch_leak_of_its_own() -> None:
    # The where's own value is NAN201's; the branch rules report it neither with nor without NAN201.
    source = "import jax.numpy as jnp\ndef f(p):\n    v = jnp.log(p)\n    return jnp.where(jnp.isnan(v), 0.0, v)\n"
    assert [d.code for d in check(source)] == ["NAN201"]
    assert check(source, select=["NAN0"]) == []


def test_masks_in_code_that_is_never_differentiated_are_not_reported() -> None:
    source = src("""
        import torch

        def f(p):
            with torch.no_grad():
                return torch.nan_to_num(torch.log(p))
    """)
    assert masks(source) == []


# --- the fast path stays sound ---------------------------------------------------------------------
SOUNDNESS_SOURCES = {
    "a replacement over a framework function": "import tensorflow as tf\ndef f(y, x):\n    return tf.math.multiply_no_nan(tf.linalg.logdet(x), y)\n",
    "a where whose branches see no op": "import tensorflow as tf\ndef f(y, l):\n    loss = tf.nn.softmax_cross_entropy_with_logits(y, l)\n    return tf.where(tf.math.is_nan(loss), tf.zeros_like(loss), loss)\n",
    "the test in a local": "import jax.numpy as jnp\ndef f(y, l):\n    loss = jnp.linalg.slogdet(l)[1]\n    bad = jnp.isnan(loss)\n    return jnp.where(bad, 0.0, loss)\n",
    "an aliased test and replacement": "from jax.numpy import isnan as bad, nan_to_num as fix, where, linalg\ndef f(x):\n    v = linalg.inv(x)\n    return where(bad(v), 0.0, v), fix(linalg.det(x))\n",
    "a method": "import torch\ndef f(x):\n    return torch.special.erfcx(x).nan_to_num()\n",
    "module level": "import jax.numpy as jnp\nloss = jnp.linalg.det(x)\nloss = jnp.where(jnp.isnan(loss), 0.0, loss)\n",
    "a class member": "import torch\nclass M:\n    def f(self, x):\n        v = torch.lgamma(x)\n        return v.where(~v.isinf(), 0.0)\n",
}


@pytest.mark.parametrize("name", SOUNDNESS_SOURCES)
def test_the_fast_path_keeps_every_mask(name: str) -> None:
    assert same_sliced_and_whole(SOUNDNESS_SOURCES[name]).count("NAN201") == (2 if name == "an aliased test and replacement" else 1)


def test_the_screen_reads_replacements_only_for_nan201() -> None:
    source = "import jax.numpy as jnp\ndef f(x):\n    return jnp.nan_to_num(jnp.linalg.det(x))\n"
    catalog = Catalog(Settings())
    assert prefilter(source, catalog, Reported(False, False, nan_masks=True)).verdict is Verdict.UNITS
    assert prefilter(source, catalog, Reported(False, False, nan_masks=False)).verdict is Verdict.NOTHING


# --- the finding's words, notes and fix ------------------------------------------------------------
def test_the_message_names_the_producer_and_its_pole() -> None:
    source = "import jax.numpy as jnp\ndef f(p, y):\n    loss = -jnp.mean(y * jnp.log(p))\n    return jnp.where(jnp.isnan(loss), 0.0, loss)\n"
    (finding,) = masks(source)
    assert finding.message.startswith("`loss` is masked by `jnp.where` after the fact: where `jnp.log(p)` has p = 0 the gradient stays NaN")
    assert "keep it where `p > 0`" in finding.fix_title
    assert [(r.location.row, r.message) for r in finding.related] == [(3, "`loss` is made non-finite by `jnp.log(p)` here")]
    assert (finding.location.row, finding.location.column, finding.end_location.column) == (4, 22, 37)  # the NaN test


@pytest.mark.parametrize(
    ("op", "where"),
    [("jnp.sqrt(p)", "p < 0"), ("jnp.arcsin(p)", "p < -1 or 1 < p"), ("jnp.log(p)", "p = 0"), ("p ** -0.5", "p <= 0")],
)
def test_the_pole_named_is_where_the_value_is_not_finite(op: str, where: str) -> None:
    # What the mask hides: sqrt's derivative is infinite at 0 too, but its value is finite there.
    source = f"import jax.numpy as jnp\ndef f(p):\n    v = {op}\n    return jnp.nan_to_num(v)\n"
    (finding,) = masks(source)
    assert f"where `{op}` has {where} the gradient stays NaN" in finding.message


def test_another_rules_finding_on_the_producer_is_linked_both_ways() -> None:
    source = "import jax.numpy as jnp\ndef f(p, mask):\n    lp = jnp.where(mask, jnp.log(p), 0.0)\n    return jnp.nan_to_num(lp)\n"
    other, mask = check(source)
    assert (other.code, mask.code) == ("NAN401", "NAN201")
    assert any(r.message == "`jnp.log(p)` is also reported here, as NAN401" and r.location == other.location for r in mask.related)
    assert any("masked after the fact here (NAN201)" in r.message and r.location == mask.location for r in other.related)
    # Its fix is the one: the mask's own is display-only, and pointing at it.
    assert other.fix.applicability is Applicability.SAFE
    assert mask.fix.applicability is Applicability.DISPLAY_ONLY and mask.fix.message.endswith("apply the NAN401 fix of this op")
    # With NAN401 off (its default), the mask offers the fix itself.
    (alone,) = check(source, select=["NAN201"])
    assert alone.fix.applicability is Applicability.UNSAFE and not alone.related[1:]


def test_tensorflow_1_spellings_get_a_note_of_their_own() -> None:
    source = "import tensorflow as tf\ndef f(p):\n    v = tf.math.log(p)\n    return tf.where(tf.debugging.is_nan(v), tf.zeros_like(v), v)\n"
    (finding,) = masks(source)
    assert "`tf.debugging.is_nan` does not exist in TensorFlow 2: calling it raises AttributeError; use `tf.math.is_nan`" in [r.message for r in finding.related]
    # Spelled through compat.v1 it exists: no note.
    (compat,) = masks(source.replace("tf.debugging.is_nan", "tf.compat.v1.debugging.is_nan"))
    assert not any("does not exist" in r.message for r in compat.related)


@pytest.mark.parametrize(
    ("source", "fixed"),
    [
        # The argument is kept where the op's value is finite: `>= 0` for sqrt leaves sqrt(0) = 0 as it was.
        ("import jax.numpy as jnp\ndef f(x):\n    return jnp.nan_to_num(jnp.sqrt(x))\n", "jnp.nan_to_num(jnp.sqrt(jnp.where(x >= 0, x, 1.0)))"),
        ("import jax.numpy as jnp\ndef f(x):\n    return jnp.nan_to_num(jnp.arcsin(x))\n", "jnp.arcsin(jnp.where((x >= -1) & (x <= 1), x, 0.0))"),
        ("import jax.numpy as jnp\ndef f(x):\n    return jnp.nan_to_num(x ** -0.5)\n", "jnp.where(x > 0, x, 1.0) ** -0.5"),
        ("import jax.numpy as jnp\ndef f(x):\n    return jnp.nan_to_num(jnp.log1p(x - 1))\n", "jnp.where(x - 1 > -1, x - 1, 0.0)"),
        # TensorFlow's where does not promote dtypes; `tf.math.where` does not exist, `tf.where` does.
        ("import tensorflow as tf\ndef f(p, m):\n    return tf.math.multiply_no_nan(tf.math.log(p), m)\n", "tf.math.log(tf.where(p > 0, p, tf.ones_like(p)))"),
        ("import torch\ndef f(p):\n    return torch.log(p).nan_to_num()\n", "torch.log(torch.where(p > 0, p, 1.0)).nan_to_num()"),
    ],
)
def test_the_producer_fix_masks_its_argument_where_its_value_is_finite(source: str, fixed: str) -> None:
    checker = Checker(Settings())
    result = checker.check_source(source, "m.py")
    (finding,) = result.diagnostics
    assert finding.fix.applicability is Applicability.UNSAFE
    assert fix_source(checker, result, unsafe_fixes=False).source == source  # never applied by --fix alone
    outcome = fix_source(checker, result, unsafe_fixes=True)
    assert fixed in outcome.source and outcome.result.diagnostics == []


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ("jnp.nan_to_num(jnp.exp(x))", "no simple condition states where `exp` is finite"),
        ("jnp.nan_to_num(jnp.log(model(x)))", "the argument must be evaluated once"),
        ("jnp.nan_to_num(jnp.linalg.slogdet(x)[1])", "masking its output cannot fix the gradient"),
        ("jnp.nan_to_num(jnp.log(x) + jnp.sqrt(x))", "`jnp.sqrt(x)` can make the value non-finite too"),
    ],
)
def test_otherwise_the_fix_is_display_only(body: str, why: str) -> None:
    (finding,) = masks(f"import jax.numpy as jnp\ndef f(x):\n    return {body}\n")
    assert finding.fix.applicability is Applicability.DISPLAY_ONLY and why in finding.fix.message


# --- nanlint verify shows the NaN gradient -----------------------------------------------------------
def verify_json(*paths: Path, cwd: Path) -> list[dict]:
    env = {**os.environ, "NO_COLOR": "1"}
    proc = subprocess.run([sys.executable, "-m", "nanlint", "verify", "--isolated", "--output-format", "json", *map(str, paths)], cwd=cwd, capture_output=True, text=True, env=env, timeout=600)
    assert "Traceback" not in proc.stderr, proc.stderr
    return json.loads(proc.stdout)


def test_verify_shows_a_finite_value_with_a_nan_gradient_on_the_fixtures(tmp_path: Path) -> None:
    paths = [CHECK / "nan_masks_jax.py", CHECK / "nan_masks_tensorflow.py"]
    findings = [f for f in verify_json(*paths, cwd=tmp_path) if f["code"] == "NAN201"]
    verdicts = {(Path(f["filename"]).name, f["location"]["row"]): f["verification"] for f in findings}
    unverifiable = {key: v["reason"] for key, v in verdicts.items() if v["status"] != VERIFIED}
    assert unverifiable == {
        ("nan_masks_tensorflow.py", 11): "`tensorflow.nn.softmax_cross_entropy_with_logits` is not a function the harness runs: the computation the value comes from cannot be rebuilt",
        ("nan_masks_tensorflow.py", 31): "`tf.debugging.is_nan` does not exist in TensorFlow 2: this code raises AttributeError before any gradient",
    }
    shown = [v for v in verdicts.values() if v["status"] == VERIFIED]
    assert len(shown) == len(findings) - 2 and all(v["leak_reproduced"] for v in shown)
    assert all("the masked value is finite" in v["reason"] and "is nan" in v["reason"] for v in shown)
    assert verdicts[("nan_masks_jax.py", 11)]["reason"].startswith("at p=0, y=-2 the masked value is finite (0) but d/dp is nan")
    # With the offered fix, the harness checks the fix too.
    assert any("after the offered fix" in note for note in verdicts[("nan_masks_jax.py", 11)]["notes"])
    for v in shown:  # the probes show it too
        # (strict JSON: a non-finite number is written as a string, "nan")
        assert any(isinstance(p["value"], (int, float)) and "nan" in p["grad_before"].values() for p in v["probes"])


def test_verify_on_torch(tmp_path: Path) -> None:
    pytest.importorskip("torch")
    findings = verify_json(CHECK / "nan_masks_torch.py", cwd=tmp_path)
    assert [f["verification"]["status"] for f in findings] == [VERIFIED] * 4
    assert all(f["verification"]["backend"] == "torch" for f in findings)


def test_a_mask_that_makes_no_nan_gradient_is_unverifiable_not_verified(tmp_path: Path) -> None:
    # log(x) is -inf at 0, which isnan keeps (and its gradient is a true inf); where it is NaN (x < 0)
    # its derivative 1/x is finite: this mask hides no NaN gradient, and verify says so.
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\ndef f(x):\n    v = jnp.log(x)\n    return jnp.where(jnp.isnan(v), 0.0, v)\n")
    (finding,) = verify_json(tmp_path / "m.py", cwd=tmp_path)
    assert finding["verification"]["status"] == UNVERIFIABLE
    assert finding["verification"]["reason"].startswith("the NaN gradient did not reproduce")


# --- the framework facts the catalog states ----------------------------------------------------------
def _jax_probe_agrees(op, fn) -> None:
    import jax.numpy as jnp

    for x in op.probes:
        if 0 < abs(x) < 1e-30:
            continue  # XLA on CPU flushes denormals to zero
        value = float(fn(jnp.float32(x)))
        assert math.isfinite(value) == op.domain.contains(x), (op.key, x, value)


def test_each_ops_domain_is_where_its_value_is_finite_in_jax() -> None:
    pytest.importorskip("jax")
    import jax.numpy as jnp

    unary = {"sqrt": jnp.sqrt, "cbrt": jnp.cbrt, "log": jnp.log, "log1p": jnp.log1p, "reciprocal": jnp.reciprocal, "arcsin": jnp.arcsin, "arccos": jnp.arccos, "arctanh": jnp.arctanh, "arccosh": jnp.arccosh}
    for op in OPS:
        if op.key in unary:
            _jax_probe_agrees(op, unary[op.key])
    divide = next(op for op in OPS if op.key == "divide")
    _jax_probe_agrees(divide, lambda y: jnp.float32(1.0) / y)


def test_the_nan_tests_and_replacements_exist_where_the_catalog_says() -> None:
    import importlib

    def resolves(name: str) -> bool:
        root, *path = name.split(".")
        for depth in range(len(path), 0, -1):
            try:
                obj = importlib.import_module(".".join([root, *path[: depth - 1]]))
            except ImportError:
                continue
            try:
                for part in path[depth - 1 :]:
                    obj = getattr(obj, part)
            except AttributeError:
                return False
            return True
        return False

    installed = {fw for fw in ("jax", "tensorflow", "torch") if importlib.util.find_spec(fw) is not None}
    for entry in (*NAN_TESTS, *NAN_REPLACEMENTS):
        for fw, names in entry.names.items():
            if fw in installed:
                assert all(resolves(name) for name in names), (fw, names)
    # The tutorials' spellings: gone from TensorFlow 2, where calling them raises AttributeError.
    if "tensorflow" in installed:
        import tensorflow as tf

        for test in NAN_TESTS:
            assert all(not resolves(name) for name in test.removed_in_tf2), test.removed_in_tf2
        with pytest.raises(AttributeError):
            tf.debugging.is_nan(tf.constant(1.0))
