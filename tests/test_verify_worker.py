"""The verification worker, against the real frameworks on the CPU (no mocks of framework behaviour)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import pytest

from nanlint.verify import allowlist, worker
from nanlint.verify.worker import run_request

ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent


# Tree builders, so tests read like the expressions they encode.
def var(name):
    return ["var", name]


def const(value):
    return ["const", value]


def fn(name, *args, **kw):
    return ["fn", name, list(args), kw]


def method(name, receiver, *args, **kw):
    return ["method", name, receiver, list(args), kw]


def gt(left, right):
    return ["compare", ">", left, right]


X, Y = var("x"), var("y")
PROBE = {"x": [0.0, -1.0, 4.0]}


def guarded_sqrt(where, sqrt, safe=1.0):
    """where(x > 0, sqrt(x), 0) and its double-where fix where(x > 0, sqrt(where(x > 0, x, safe)), 0)."""
    cond = gt(X, const(0.0))
    original = fn(where, cond, fn(sqrt, X), const(0.0))
    fixed = fn(where, cond, fn(sqrt, fn(where, cond, X, const(safe))), const(0.0))
    return {"original": original, "fixed": fixed, "cond": cond}


def run_one(backend, trees, variables=PROBE, **request):
    response = run_request({"backend": backend, "jobs": [{"id": "j", "variables": variables, "trees": trees}], **request})
    assert "error" not in response, response
    (result,) = response["results"]
    return result


def same(actual, expected):
    """Elementwise equality where NaN equals NaN."""
    assert len(actual) == len(expected), (actual, expected)
    for a, e in zip(actual, expected):
        assert (math.isnan(a) and math.isnan(e)) or a == pytest.approx(e, rel=1e-5, abs=1e-6), (actual, expected)


NAN = float("nan")


# --- the allowlist ---------------------------------------------------------------------------------


def test_allowlist_is_built_from_the_catalog_and_helpers():
    assert {"jax.numpy.sqrt", "jax.numpy.where", "jax.lax.select", "jax.scipy.special.xlogy", "jax.lax.stop_gradient"} <= allowlist.FUNCTIONS["jax"]
    assert {"tensorflow.math.log", "tensorflow.where", "tensorflow.compat.v1.where", "tensorflow.experimental.numpy.sqrt"} <= allowlist.FUNCTIONS["tensorflow"]
    assert {"torch.where", "torch.special.xlog1py", "torch.zeros_like", "torch.nn.functional.normalize"} <= allowlist.FUNCTIONS["torch"]
    assert {"sqrt", "where", "clamp", "pow", "detach"} <= allowlist.METHODS
    every = set().union(*allowlist.FUNCTIONS.values())
    # Non-executable frameworks and third-party helpers from the catalog never make it in.
    assert not {n for n in every if n.split(".")[0] not in ("jax", "tensorflow", "torch")}
    assert not any(part.startswith("_") for n in every for part in n.split("."))


def test_names_are_allowed_per_backend_and_by_canonical_alias():
    assert allowlist.allowed_name("jax._src.numpy.ufuncs.sqrt", "jax") == "jax.numpy.sqrt"
    with pytest.raises(allowlist.NotAllowed, match="not allowed: torch.sqrt"):
        allowlist.allowed_name("torch.sqrt", "jax")
    for name in ("builtins.open", "os.system", "jax.numpy.load", "numpy.save", "torch.save", "jax.numpy.sqrt.__globals__"):
        with pytest.raises(allowlist.NotAllowed):
            allowlist.allowed_name(name, "jax")
    for name in ("__class__", "__init__", "numpy", "tolist", "register_hook", "backward"):
        with pytest.raises(allowlist.NotAllowed):
            allowlist.check_method(name)


# --- JAX ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def jax_ok():
    pytest.importorskip("jax")


def test_jax_where_sqrt_leaks_and_double_where_fixes(jax_ok):
    result = run_one("jax", guarded_sqrt("jax.numpy.where", "jax.numpy.sqrt"))
    trees = result["trees"]
    same(trees["original"]["value"], [0.0, 0.0, 2.0])
    assert trees["fixed"]["value"] == trees["original"]["value"]
    same(trees["original"]["grad"]["x"], [NAN, NAN, 0.25])
    same(trees["fixed"]["grad"]["x"], [0.0, 0.0, 0.25])
    assert trees["cond"] == {"value": [False, False, True]}  # no gradient for a bool tree
    assert "eager" not in result


def test_jax_methods_binops_compare_unary(jax_ok):
    trees = {
        "clip": fn("jax.numpy.sqrt", method("clip", X, min=const(1e-6))),  # clamp-inside: finite
        "arith": ["binop", "+", ["unary", "-", ["binop", "**", X, const(2)]], ["binop", "%", X, const(3.0)]],
        "div": ["binop", "/", const(1.0), ["binop", "-", X, ["unary", "+", X]]],
        "mask": ["binop", "&", ["compare", ">=", X, const(0.0)], ["unary", "~", ["compare", "==", X, const(4.0)]]],
        "total": method("sum", X),  # a scalar is broadcast to N, its gradient is not
    }
    result = run_one("jax", trees, {"x": [0.0, -1.5, 4.0]})["trees"]
    same(result["clip"]["grad"]["x"], [0.0, 0.0, 0.25])
    same(result["arith"]["value"], [0.0, -2.25 + 1.5, -16.0 + 1.0])
    same(result["arith"]["grad"]["x"], [1.0, 4.0, -7.0])
    same(result["div"]["value"], [math.inf] * 3)
    assert result["mask"]["value"] == [True, False, False]
    same(result["total"]["value"], [2.5] * 3)
    same(result["total"]["grad"]["x"], [1.0] * 3)


def test_jax_select_lax_select_and_xlogy(jax_ok):
    cond = gt(X, const(0.0))
    trees = {
        "select": fn("jax.numpy.select", ["list", [cond]], ["list", [fn("jax.numpy.sqrt", X)]], const(0.0)),
        "lax": fn("jax.lax.select", cond, fn("jax.numpy.sqrt", X), fn("jax.numpy.zeros_like", X)),
        "xlogy": fn("jax.scipy.special.xlogy", X, Y),
    }
    result = run_one("jax", trees, {"x": [0.0, 1.0, 4.0], "y": [0.0, 1.0, 1.0]})["trees"]
    same(result["select"]["grad"]["x"], [NAN, 0.5, 0.25])
    same(result["lax"]["grad"]["x"], [NAN, 0.5, 0.25])
    same(result["lax"]["grad"]["y"], [0.0, 0.0, 0.0])  # the tree does not use y: zeros
    # jss.xlogy is not gradient-safe: d/dy = x/y = 0/0 at x = y = 0.
    same(result["xlogy"]["value"], [0.0, 0.0, 0.0])
    same(result["xlogy"]["grad"]["y"], [NAN, 1.0, 4.0])


def test_jax_jobs_are_isolated_and_compiled_functions_reused(jax_ok):
    good = guarded_sqrt("jax.numpy.where", "jax.numpy.sqrt")
    jobs = [
        {"id": "a", "variables": PROBE, "trees": good},
        {"id": "b", "variables": PROBE, "trees": {"original": method("sqrt", X)}},  # no such method on jax arrays
        {"id": "c", "variables": PROBE, "trees": {"original": ["var", "nope"]}},
        {"id": "d", "variables": {"x": [1.0], "y": [1.0, 2.0]}, "trees": {"original": X}},
        {"id": "e", "variables": PROBE, "trees": {"original": ["binop", "**", const(3), const(10**12)]}},
        {"id": "f", "variables": {"x": [2.0]}, "trees": good},
    ]
    before = len(worker._LOADED["jax", "float32"].cache)
    response = run_request({"backend": "jax", "jobs": jobs})
    results = {r["id"]: r for r in response["results"]}
    assert results["a"]["trees"]["original"]["value"] == [0.0, 0.0, 2.0]
    assert results["b"]["error"] == "jax tensors have no method sqrt"
    assert results["c"]["error"] == "unknown variable: nope"
    assert "different lengths" in results["d"]["error"]
    assert "Overflow" in results["e"]["error"]
    same(results["f"]["trees"]["fixed"]["grad"]["x"], [1 / (2 * math.sqrt(2.0))])
    # The same trees as the earlier test: no new compiled function (and another N just retraces).
    assert len(worker._LOADED["jax", "float32"].cache) == before
    assert response["versions"]["jax"]


def test_jax_float64(jax_ok):
    result = run_one("jax", {"original": fn("jax.numpy.sqrt", X)}, {"x": [2.0]}, dtype="float64")
    assert result["trees"]["original"]["value"] == [math.sqrt(2.0)]  # exact in float64 only


# --- refusing names ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tree, name",
    [
        (fn("builtins.open", const(1), const(1)), "builtins.open"),
        (fn("os.system", const(0)), "os.system"),
        (fn("jax.numpy.load", const(0)), "jax.numpy.load"),
        (fn("torch.sqrt", X), "torch.sqrt"),  # another framework's function
        (method("__class__", X), "__class__"),
        (method("__reduce_ex__", X, const(2)), "__reduce_ex__"),
    ],
)
def test_disallowed_names_are_refused(jax_ok, tree, name):
    response = run_request({"backend": "jax", "jobs": [{"id": "j", "variables": PROBE, "trees": {"original": tree}}]})
    assert response["results"] == [{"id": "j", "error": f"not allowed: {name}"}]


def test_refused_before_anything_runs(jax_ok, tmp_path, monkeypatch):
    # Were these executed, each would create a file in the working directory; consts cannot even be
    # strings, and the name is refused before its arguments are evaluated.
    monkeypatch.chdir(tmp_path)
    writers = [
        fn("numpy.save", const("pwned.npy"), X),
        fn("jax.numpy.save", const("pwned.npy"), X),
        fn("torch.save", X, const("pwned.pt")),
        fn("tensorflow.io.write_file", const("pwned.txt"), const("x")),
        fn("jax.numpy.where", gt(X, const(0.0)), fn("numpy.save", const("inner.npy"), X), X),
    ]
    jobs = [{"id": str(i), "variables": PROBE, "trees": {"original": t}} for i, t in enumerate(writers)]
    response = run_request({"backend": "jax", "jobs": jobs})
    assert all(r["error"].startswith("not allowed: ") for r in response["results"]), response
    assert list(tmp_path.iterdir()) == []


def test_malformed_requests_and_trees(jax_ok):
    assert run_request([1, 2])["error"].startswith("malformed request")
    assert run_request({"backend": "numpy", "jobs": []})["error"] == "unknown backend: 'numpy'"
    assert run_request({"backend": "jax", "dtype": "int8", "jobs": []})["error"] == "unsupported dtype: 'int8'"
    bad_trees = ["x", ["eval", "1"], ["const", "text"], ["fn", "jax.numpy.sqrt", "x"], ["binop", "@", X, X]]
    jobs = [{"id": i, "variables": PROBE, "trees": {"original": t}} for i, t in enumerate(bad_trees)] + ["not a job"]
    results = run_request({"backend": "jax", "jobs": jobs})["results"]
    assert len(results) == len(jobs) and all("error" in r and "\n" not in r["error"] for r in results)


def test_jobs_past_the_deadline_are_not_run(jax_ok):
    jobs = [{"id": i, "variables": PROBE, "trees": {"original": X}} for i in range(2)]
    results = run_request({"backend": "jax", "timeout_s": 0, "jobs": jobs})["results"]
    assert [r["error"] for r in results] == ["not run: the request ran past timeout_s=0"] * 2


def test_missing_backend(monkeypatch):
    class Missing(worker._Backend):
        def __init__(self, dtype):
            raise ImportError("No module named 'torch'")

    monkeypatch.setitem(worker._BACKENDS, "torch", Missing)
    monkeypatch.setattr(worker, "_LOADED", {})
    assert run_request({"backend": "torch", "jobs": []})["error"] == "backend not installed: torch"


# --- TensorFlow ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tf_ok():
    pytest.importorskip("tensorflow")


def test_tf_sqrt_leaks_under_xla_only(tf_ok):
    result = run_one("tensorflow", guarded_sqrt("tensorflow.where", "tensorflow.sqrt"))
    trees, eager = result["trees"], result["eager"]
    same(trees["original"]["value"], [0.0, 0.0, 2.0])
    same(trees["original"]["grad"]["x"], [NAN, NAN, 0.25])  # XLA shows the leak
    same(eager["original"]["grad"]["x"], [0.0, 0.0, 0.25])  # eager SqrtGrad short-circuits a zero cotangent
    same(trees["fixed"]["grad"]["x"], [0.0, 0.0, 0.25])
    same(eager["fixed"]["grad"]["x"], [0.0, 0.0, 0.25])
    assert trees["cond"] == {"value": [False, False, True]} and "cond" not in eager


def test_tf_log_leaks_in_both_modes_and_spellings_resolve(tf_ok):
    cond = gt(X, const(0.0))
    trees = {
        "original": fn("tensorflow.where", cond, fn("tensorflow.math.log", X), const(0.0)),
        "fixed": fn("tensorflow.compat.v1.where", cond, fn("tensorflow.log", X), fn("tensorflow.zeros_like", X)),
        "tnp": fn("tensorflow.experimental.numpy.where", cond, fn("tensorflow.experimental.numpy.sqrt", X), const(0.0)),
        "xlogy": fn("tensorflow.math.xlogy", X, X),  # gradient-safe in TF
    }
    result = run_one("tensorflow", trees, {"x": [0.0, 1.0]})
    for section in ("trees", "eager"):
        same(result[section]["original"]["grad"]["x"], [NAN, 1.0])
        # tf.log does not exist in TF 2: it resolves to tf.math.log.
        same(result[section]["fixed"]["grad"]["x"], [NAN, 1.0])
    same(result["trees"]["tnp"]["grad"]["x"], [NAN, 0.5])
    same(result["trees"]["xlogy"]["grad"]["x"], [0.0, 1.0])


# --- torch ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def torch_ok():
    pytest.importorskip("torch")


def test_torch_where_and_methods(torch_ok):
    cond = gt(X, const(0.0))
    trees = {
        "original": fn("torch.where", cond, method("sqrt", X), const(0.0)),
        "fixed": method("where", method("sqrt", method("where", X, cond, const(1.0))), cond, const(0.0)),
        "clamp": method("sqrt", method("clamp", X, min=const(1e-6))),
        "pow": fn("torch.where", cond, method("pow", X, const(0.5)), const(0.0)),
        "xlog1py": fn("torch.special.xlog1py", X, Y),
        "inplace": method("sqrt_", method("abs", X)),  # in place on an intermediate: allowed
    }
    result = run_one("torch", trees, {"x": [0.0, -1.0, 4.0], "y": [-1.0, -1.0, 0.0]})["trees"]
    same(result["original"]["value"], [0.0, 0.0, 2.0])
    same(result["original"]["grad"]["x"], [NAN, NAN, 0.25])
    same(result["fixed"]["grad"]["x"], [0.0, 0.0, 0.25])
    same(result["clamp"]["grad"]["x"], [0.0, 0.0, 0.25])
    same(result["pow"]["grad"]["x"], [NAN, NAN, 0.25])
    same(result["xlog1py"]["grad"]["y"], [NAN, -math.inf, 4.0])
    same(result["inplace"]["value"], [0.0, 1.0, 2.0])


def test_torch_inplace_on_an_input_is_a_job_error(torch_ok):
    response = run_request({"backend": "torch", "jobs": [{"id": "j", "variables": PROBE, "trees": {"original": method("sqrt_", X)}}]})
    assert "in-place" in response["results"][0]["error"]


# --- the real subprocess -------------------------------------------------------------------------------


def _worker(stdin: str) -> dict:
    proc = subprocess.run([sys.executable, "-m", "nanlint.verify.worker"], input=stdin, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)  # the whole of stdout is one JSON document: no log lines


def test_subprocess_round_trip(jax_ok):
    request = {"backend": "jax", "dtype": "float32", "timeout_s": 60, "jobs": [{"id": "j1", "variables": PROBE, "trees": guarded_sqrt("jax.numpy.where", "jax.numpy.sqrt")}]}
    response = _worker(json.dumps(request))
    trees = response["results"][0]["trees"]
    same(trees["original"]["grad"]["x"], [NAN, NAN, 0.25])  # NaN survives JSON
    same(trees["fixed"]["grad"]["x"], [0.0, 0.0, 0.25])


def test_subprocess_malformed_request_gives_json_error():
    assert _worker("{not json")["error"].startswith("malformed request")
    assert _worker("")["error"].startswith("malformed request")
