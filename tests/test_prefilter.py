"""The fast path (the prefilter's kept units, then the detector on them) reports exactly what the
detector reports on whole files; and what the prefilter keeps of a file is what this says."""

import textwrap
from pathlib import Path

import pytest

from nanlint.catalog.lookup import Catalog
from nanlint.check import Checker
from nanlint.config.settings import Settings
from nanlint.fix.model import Applicability
from nanlint.limits import MAX_HELPER_STEPS
from nanlint.prefilter import Reported, Verdict, prefilter
from nanlint.prefilter.stores import may_store
from nanlint.prefilter.textscan import scan_imports, spelled_calls
from nanlint.prefilter.units import top_level_units

NOTHING, UNITS, WHOLE = Verdict.NOTHING, Verdict.UNITS, Verdict.WHOLE
EVERY_RULE = Reported(clamp_branches=True, clamp_in_op=True, nan_masks=True)

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ALL_FIXTURES = sorted(FIXTURES.glob("**/*.py"))


def findings(source: str, whole: bool, select=("ALL",)) -> list[tuple]:
    linter = Checker(Settings(select=list(select), parse_whole_files=whole))
    result = linter.check_source(source, "m.py")
    assert result.error is None
    return [
        (d.code, d.location, d.end_location, d.message, d.fix.applicability if d.fix else None, [(e.content, e.location, e.end_location) for e in (d.fix.edits if d.fix else [])])
        for d in result.diagnostics
        if d.code != "NAN900"  # reported only for code nanlint reads, and the fast path reads less
    ]


def assert_same(source: str) -> list[tuple]:
    sliced, whole = findings(source, whole=False), findings(source, whole=True)
    assert sliced == whole
    return sliced


@pytest.mark.parametrize("path", ALL_FIXTURES, ids=lambda p: str(p.relative_to(FIXTURES)))
def test_every_fixture_reports_the_same_sliced_and_whole(path: Path) -> None:
    assert_same(path.read_text(encoding="utf-8"))


def kept(source: str):
    return prefilter(source, Catalog(Settings()), EVERY_RULE)


def kind(source: str) -> Verdict:
    return kept(source).verdict


def kept_text(source: str) -> str:
    return "".join(unit.text(source) for unit in kept(source).units)


def src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def test_a_file_whose_selects_see_no_op_is_never_parsed() -> None:
    assert kind(src("""
        import jax.numpy as jnp

        def relu(x):
            return jnp.where(x > 0, x, 0.0)
    """)) == NOTHING


def test_builtin_max_and_array_reductions_are_not_selects() -> None:
    assert kind(src("""
        import numpy as np

        def f(x, n):
            return max(n, x.sum() / n), x.max() / n
    """)) == NOTHING


def test_a_leak_is_sliced_and_reported_at_its_place_in_the_file() -> None:
    source = src('''
        import jax.numpy as jnp

        class Model:
            """Many methods; one leaks."""

            def a(self, x):
                return x + 1

            @property
            def b(self):
                return 2

            def leaky(self, x):
                return jnp.where(x > 0, jnp.sqrt(x), 0.0)

            def c(self, x):
                return jnp.where(x > 0, x, 0.0)
    ''')
    assert kind(source) == UNITS
    assert "def leaky" in kept_text(source) and "def c" not in kept_text(source)
    (finding,) = assert_same(source)
    assert finding[0] == "NAN001" and finding[1].row == 14


def test_code_in_a_string_at_column_zero_is_not_code() -> None:
    source = src('''
        import jax.numpy as jnp

        TEMPLATE = """
        def f(x):
            return jnp.where(x > 0, jnp.sqrt(x), 0.0)
        def g(x):
            return x
        """
    ''')
    assert assert_same(source) == []


def test_a_primal_registered_elsewhere_is_skipped_as_in_the_whole_file() -> None:
    source = src("""
        import jax
        import jax.numpy as jnp

        def _norm(x):
            return jnp.where(x > 0, jnp.sqrt(x), 0.0)

        def norm(x):
            return _norm(x)

        norm = jax.custom_jvp(norm)

        def also_used(x):
            return _norm(x) + 1
    """)
    # `_norm` is called by a function with an ordinary gradient too, so it is differentiated.
    assert [f[0] for f in assert_same(source)] == ["NAN001"]
    only_primal = source.replace("return _norm(x) + 1", "return x + 1")
    assert assert_same(only_primal) == []


@pytest.mark.parametrize(
    "registration",
    [
        "mlir.register_lowering(p, mlir.lower_fun(_broadcasting(_impl), multiple_results=False))",
        "mlir.register_lowering(p, mlir.lower_fun(partial(_impl, exact=True), multiple_results=False))",
        "f = jax.custom_jvp(partial(_impl, exact=True))",
    ],
)
def test_a_function_wrapped_before_it_is_lowered_is_never_differentiated(registration: str) -> None:
    # Point 107: `lower_fun(_broadcasting(f))` and `custom_jvp(partial(f, n))` run `f` where
    # autodiff does not look: the primitive's (or the custom function's) own rule differentiates it.
    source = src(f"""
        from functools import partial
        import jax
        import jax.numpy as jnp
        from jax._src.interpreters import mlir

        def _broadcasting(f):
            return f

        def _impl(x, exact=False):
            return jnp.where(x > 0, jnp.log(x), 0.0)

        {registration}
    """)
    assert assert_same(source) == []
    assert {f[0] for f in assert_same(source.replace(registration, ""))} == {"NAN001"}


def test_a_jvp_rule_registered_elsewhere_is_known_as_one() -> None:
    source = src("""
        import jax
        import jax.numpy as jnp

        @jax.custom_jvp
        def f(x):
            return jnp.arcsin(x)

        def square(x):
            return x * x

        def _f_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            d = jnp.where(x * x < 1.0, 1.0 / jnp.sqrt(1.0 - square(x)), 0.0)
            return f(x), d * t

        f.defjvp(_f_jvp)
    """)
    # `d` is computed from the primals alone (`square`, which the slice does not read, is a module's
    # function): a constant of the linearized rule.
    assert assert_same(source) == []
    # Unregistered, `_f_jvp` is an ordinary function, differentiated through `d`.
    assert {f[0] for f in assert_same(source.replace("f.defjvp(_f_jvp)", ""))} == {"NAN001"}


@pytest.mark.parametrize(
    ("rule", "flagged"),
    [
        ("lambda g, out, x, y: _der(x, y) * g", False),
        ("lambda g, out, x, y: _der(x, y * g)", True),  # the tangent is an argument: transposed
    ],
)
def test_a_helper_a_jvps_rule_calls_with_the_primals_is_not_differentiated(rule: str, flagged: bool) -> None:
    # Point 125: reverse mode linearizes `rule(tangent, primal_out, *primals)`; a call that does not
    # read the tangent is a constant of the linear map, its body not differentiated (to first order).
    source = src(f"""
        import jax
        import jax.numpy as jnp

        @jax.custom_jvp
        def f(x, y):
            return jnp.where(x < y, 1.0, 0.0)

        def _der(x, y):
            return jnp.where(x < y, 0.0, 1.0 / (x - y))

        def der(x, y):
            return jnp.where(x < y, 0.0, 1.0 / (x - y))

        f.defjvps(None, {rule})
    """)
    # `der`, public, is reported whoever calls it; `_der` only when the rule differentiates it.
    assert [f[1].row for f in assert_same(source)] == ([9, 12] if flagged else [12])


@pytest.mark.parametrize(
    "stores",
    [
        # A library call's store: its range is read too (point 128).
        "    def __init__(self, z):\n        self._z = jnp.exp(z)\n",
        # A store that reads another attribute: that one's stores are kept as well.
        "    def __init__(self, z):\n        self._b = jnp.exp(z)\n\n    def setup(self):\n        self._z = 2.0 * self._b\n",
    ],
)
def test_every_store_of_an_attribute_a_kept_method_reads_is_kept(stores: str) -> None:
    # `1 / self._z` is no pole when every store into `_z` is positive: the sliced path must read the
    # stores the whole file shows, or the two paths differ.
    method = "\n    def f(self, m):\n        return jnp.where(m > self._z, 1.0 / self._z, 0.0)\n"
    source = "import jax.numpy as jnp\n\nclass E:\n" + stores + method
    assert assert_same(source) == []
    assert [f[0] for f in assert_same(source.replace("jnp.exp(z)", "jnp.sin(z)"))] == ["NAN001"]


def test_a_function_defined_in_a_body_is_private_to_it() -> None:
    # A nested function is invisible outside its body: used there only by a JVP rule's primal
    # computation, it is never differentiated, whatever its name.
    source = src("""
        import jax
        import jax.numpy as jnp

        def waveform(f, fm):
            @jax.custom_jvp
            def taper(x, y):
                return jnp.where(x < y, 1.0, 0.0)

            def taper_der(x, y):
                return jnp.where(x < y, 0.0, jnp.exp(1.0 / (x - y)))

            taper.defjvps(None, lambda y_dot, out, x, y: taper_der(x, y) * y_dot)
            return taper(f, fm)

        def taper_der(x, y):
            return jnp.where(x < y, 0.0, jnp.exp(1.0 / (x - y)))
    """)
    # The module's own `taper_der` is another function, and public: still reported (twice).
    assert [f[1].row for f in assert_same(source)] == [16, 16]

    source = src("""
        from jax.numpy import sqrt, where

        def sqrt(x):
            return x

        def f(x):
            return where(x > 0, sqrt(x), 0.0)
    """)
    assert assert_same(source) == []


def test_module_level_constants_feed_the_value_range() -> None:
    source = src("""
        import jax.numpy as jnp

        EPS = 1e-6

        def unrelated():
            return 3

        def f(x):
            return jnp.where(x > 0, jnp.log(x * x + EPS), 0.0)
    """)
    assert assert_same(source) == []


def test_text_with_no_safe_cut_falls_back_to_the_whole_file() -> None:
    unpaired = 'import jax.numpy as jnp\nX = \'"""\'\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n'
    assert kind(unpaired) == WHOLE
    assert [f[0] for f in assert_same(unpaired)] == ["NAN001"]
    old_mac = "import jax.numpy as jnp\rdef f(x):\r    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\r"
    assert kind(old_mac) == WHOLE


def test_units_are_top_level_statements_with_their_decorators() -> None:
    source = src('''
        import os
        @decorator(
            1)
        def f():
            pass
        if x:
            pass
        else:
            pass
        S = """
        def not_a_unit(): pass
        """
        class C: pass
    ''')
    units = top_level_units(source)
    assert [(u.first, u.last, u.definition) for u in units] == [(1, 1, None), (2, 5, "f"), (6, 9, None), (10, 12, None), (13, 13, "C")]


def test_imports_are_read_wherever_they_are() -> None:
    imports = scan_imports("import os; import jax.numpy as jnp\ntry: from torch import where as w\nexcept ImportError: pass\nfrom m import (a,\n    b as c)\n")
    assert imports.names >= {"os", "jnp", "w", "a", "c"}
    assert imports.frameworks == {"jax", "torch"}
    assert imports.renamed["w"] == "where" and imports.renamed["c"] == "b"


def test_a_local_bound_to_an_array_api_namespace_names_its_module() -> None:
    imports = scan_imports(
        "from array_api_compat import array_namespace\nimport array_api_compat as aac\n"
        "def f(x):\n    xp = array_namespace(x)\n    ns = aac.get_namespace(x)\n    yp = x.__array_namespace__()\n"
        "    zp = namespace_of(x)\n"
    )
    assert {name: imports.targets[name] for name in ("xp", "ns", "yp")} == dict.fromkeys(("xp", "ns", "yp"), {"jax.numpy"})
    assert "zp" not in imports.targets and "jax" in imports.frameworks


def test_a_name_called_as_a_namespace_where_may_name_an_array_module() -> None:
    # `B.where(` on a name no import binds: a superset, which names.py narrows to three arguments.
    imports = scan_imports("import numpy as np\ndef f(x, B):\n    y = np.where(x > 0, x, 0)\n    return B.where(x > 0, B.log(x), y)\n")
    assert imports.targets["B"] == {"jax.numpy"} and imports.targets["np"] == {"numpy"}
    assert "jax" in imports.frameworks
    assert "x" not in imports.targets and "df" not in scan_imports("def f(df):\n    return df.wherever(1)\n").targets


def test_a_relative_import_used_as_a_namespace_is_read_the_same_sliced_and_whole() -> None:
    # `backend = Backend()` in the package's own module: only its use says it is an array namespace.
    source = src(
        """
        from ..backend_obj import backend
        from .utils import helper

        def f(y):
            return backend.where(y > 0, backend.log(y), helper(y))

        def g(y):
            return helper.where(y > 0)
        """
    )
    (finding,) = assert_same(source)
    assert finding[0] == "NAN001" and "backend.log(y)" in finding[3]
    fallback = "try:\n    from .backend import B\nexcept ImportError:\n    B = None\ndef f(y):\n    return B.where(y > 0, B.log(y), 0.0)\n"
    assert assert_same(fallback) == []


def test_a_syntax_error_in_a_statement_with_a_select_is_reported_by_python() -> None:
    linter = Checker(Settings())
    result = linter.check_source("import jax.numpy as jnp\n\ndef f(x:\n    return jnp.where(x > 0, x, 0)\n", "m.py")
    (diagnostic,) = result.diagnostics
    assert diagnostic.code == "NAN900" and diagnostic.location.row == 3
    assert "never closed" in diagnostic.message


def test_a_syntax_error_far_from_the_findings_is_the_only_thing_reported() -> None:
    # The fast path reads only the leaking function; the file does not parse: say so, offer no fix.
    source = "import jax.numpy as jnp\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n\ndef g(:\n    pass\n"
    for whole in (False, True):
        (diagnostic,) = Checker(Settings(parse_whole_files=whole)).check_source(source, "m.py").diagnostics
        assert diagnostic.code == "NAN900" and diagnostic.location.row == 6 and diagnostic.fix is None


def test_a_file_without_any_select_is_not_parsed_at_all() -> None:
    # Documented in NAN900: syntax errors there are left to the tools whose job that is.
    assert Checker(Settings()).check_source("def f(:\n", "m.py").diagnostics == []


def test_an_unused_assignment_is_left_out_and_a_used_one_kept() -> None:
    source = src("""
        import jax.numpy as jnp

        BIG = {"a": 1}
        FLOOR = 0.5
        (a, b) = (FLOOR, 2)

        def f(x):
            return jnp.where(x > 0, jnp.log(x + FLOOR), 0.0)

        def g(x):
            return jnp.where(x > 0, jnp.log(x + a), 0.0)
    """)
    text = kept_text(source)
    assert "BIG" not in text and "FLOOR = 0.5" in text and "(a, b) = (FLOOR, 2)" in text
    # FLOOR keeps log's argument off its pole, and so does `a`, its part of the literal tuple.
    assert [f[0] for f in assert_same(source)] == []


def test_a_straight_line_helper_the_kept_code_calls_is_kept_for_what_it_returns() -> None:
    source = src("""
        import jax.numpy as jnp

        def _safe(r2):
            \"\"\"A double where's inner half.\"\"\"
            return jnp.where(r2 > 0, r2, jnp.ones_like(r2))

        def _clipped_exp(x, top=20.0):
            x = jnp.minimum(x, top)
            return jnp.exp(x)

        def _branchy(x):
            if x is None:
                return 1.0
            return x

        def unrelated(x):
            return x + 1

        def kernel(r2):
            return jnp.where(r2 > 0, -jnp.sqrt(_safe(r2)), 0.0)

        def softplus(x):
            return jnp.where(x > 30.0, x, jnp.log1p(_clipped_exp(x)))

        def other(x):
            return jnp.where(x > 0, jnp.sqrt(_branchy(x)), 0.0)
    """)
    text = kept_text(source)
    assert "def _safe" in text and "def _clipped_exp" in text
    assert "def _branchy" not in text and "def unrelated" not in text  # not straight-line; not called
    # The helpers' values guard `sqrt` and keep `log1p` off its pole; `_branchy`'s is unknown.
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN001", 26)]


def test_a_helper_that_checks_its_parameters_is_kept_for_what_its_calls_make_sure_of() -> None:
    # Point 164: after `bandwidth = _check_bandwidth(bandwidth)`, the bandwidth is positive, which
    # the detector reads from the helper's body: the sliced path keeps it, as the whole file has it.
    source = src("""
        import jax.numpy as jnp

        def _check_bandwidth(bandwidth):
            \"\"\"Raise unless the bandwidth is positive.\"\"\"
            if jnp.any(bandwidth <= 0):
                raise ValueError("The bandwidth should be positive.")
            bandwidth = jnp.asarray(bandwidth, dtype=float)
            return bandwidth

        def _late_check(bandwidth):
            bandwidth = jnp.asarray(bandwidth)
            assert jnp.all(bandwidth > 0)
            return bandwidth

        def triangular(distance, bandwidth=1.0):
            bandwidth = _check_bandwidth(bandwidth)
            scaled = distance / bandwidth
            return jnp.where(scaled < 1, 1 - scaled, 0.0)

        def other(distance, bandwidth=1.0):
            bandwidth = _late_check(bandwidth)
            scaled = distance / bandwidth
            return jnp.where(scaled < 1, 1 - scaled, 0.0)
    """)
    text = kept_text(source)
    assert "def _check_bandwidth" in text and "def _late_check" not in text  # its check comes after a statement
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN002", 23)]


def test_a_branch_that_calls_a_helper_holding_an_op_is_kept_and_read_as_the_whole_file_is() -> None:
    # Point 112: `_pade` divides by `x2`, which is 0 at `x == 0`, where its branch is not selected.
    # `_smooth` has a derivative of its own (`custom_jvp`): autodiff never enters its body.
    source = src("""
        import jax
        import jax.numpy as jnp

        @jax.custom_jvp
        def _smooth(x):
            return jnp.sqrt(x)

        @_smooth.defjvp
        def _smooth_jvp(primals, tangents):
            (x,), (t,) = primals, tangents
            return _smooth(x), t * 0.5

        def _pade(x, x2):
            y = 1.0 / x2
            return y * (1.0 + y)

        def si(x):
            x2 = x * x
            return jnp.where(x2 > 16.0, jnp.cos(x) * _pade(x, x2), x)

        def rounded(x):
            return jnp.where(x > 0, _smooth(x), 0.0)
    """)
    assert "def _pade" in kept_text(source)
    assert [(f[0], f[1].row, f[4]) for f in assert_same(source)] == [("NAN001", 19, Applicability.DISPLAY_ONLY)]


def test_a_helper_is_told_by_its_statements_not_by_its_docstring() -> None:
    # The screen rules out a helper with an indented `if ...:` line before parsing it, but not for
    # such a line inside a triple-quoted string.
    source = src("""
        import jax.numpy as jnp

        def _inverse(x2):
            \"\"\"The reciprocal,
            if x2 is nonzero:
                1 / x2
            \"\"\"
            return 1.0 / x2

        def _branchy(x2):
            if x2 is None:
                return 0.0
            return 1.0 / x2

        def f(x):
            x2 = x * x
            return jnp.where(x2 > 1.0, _inverse(x2), 0.0)

        def g(x):
            x2 = x * x
            return jnp.where(x2 > 1.0, _branchy(x2), 0.0)
    """)
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN001", 17)]


def test_a_statement_glued_to_a_definition_keeps_its_bindings() -> None:
    # `(a, b) = ...` starts with a bracket, so the cut leaves it in the unit of the `def` above it.
    source = src("""
        import jax.numpy as jnp

        def helper(x):
            return x
        (EPS, _) = (1e-6, None)

        def f(x):
            return jnp.where(x > 0, jnp.log(x * x + EPS), 0.0)
    """)
    assert assert_same(source) == []


def test_a_helper_called_only_by_an_autograd_forward_is_skipped_as_in_the_whole_file() -> None:
    # contexts.py reads a class whose base's name ends in `Function` as a torch.autograd.Function:
    # its `forward` is a custom primal, and so is a private helper only that `forward` calls.
    source = src("""
        import torch

        class Scaled(SomeFunction):
            def forward(self, u):
                return _helper(u) + 1

            def other(self, x):
                return x

        def _helper(u):
            return torch.where(u > 0, u.log(), u)
    """)
    assert assert_same(source) == []
    used_elsewhere = source + "\ndef g(u):\n    return _helper(u)\n"
    assert [f[0] for f in assert_same(used_elsewhere)] == ["NAN001"]


def test_a_helper_used_only_under_no_grad_is_skipped_as_in_the_whole_file() -> None:
    # No gradient is recorded under no_grad: a private helper used only there is never differentiated
    # (issue #12, class 6: "a function whose every caller in the file runs it under no_grad").
    source = src("""
        import torch

        def _ratio(u, n):
            return torch.where(n > 0, u / n, 0.0)

        def evaluate(u, n):
            with torch.no_grad():
                return _ratio(u, n)

        @torch.no_grad()
        def report(u, n):
            return _ratio(u, n).sum()
    """)
    assert assert_same(source) == []
    # One use outside no_grad, or in a function merely defined under it, and it is checked.
    for extra in ("\ndef loss(u, n):\n    return _ratio(u, n).sum()\n", "\nwith torch.no_grad():\n    def later(u, n):\n        return _ratio(u, n)\n"):
        assert [f[0] for f in assert_same(source + extra)] == ["NAN001"]


def test_code_where_recording_is_back_on_is_checked_inside_no_grad_and_custom_derivatives() -> None:
    # `torch.enable_grad()` turns recording back on inside no_grad: an optimizer's closure, or the
    # vjp an adjoint method's backward computes with torch.autograd.grad, is differentiated there.
    # So is a helper used only there, and one decorated with it that only no_grad code calls.
    source = src("""
        import torch

        @torch.no_grad()
        def step(closure, x):
            with torch.enable_grad():
                loss = closure(torch.where(x > 0, torch.log(x), 0.0))
            return loss

        class Adjoint(torch.autograd.Function):
            @staticmethod
            def backward(ctx, g):
                with torch.enable_grad():
                    y = _value(ctx.x)
                    return torch.autograd.grad(y, ctx.x, g)

        def _value(x):
            return torch.where(x > 0, x.sqrt(), 0.0)

        @torch.enable_grad()
        def _closure(u):
            return torch.where(u > 0, 1 / u, 0.0)

        def run(u):
            with torch.no_grad():
                return _closure(u)
    """)
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN001", 6), ("NAN001", 17), ("NAN001", 21)]
    # Without them, all three are never differentiated (the helper only through its callers).
    plain = source.replace("with torch.enable_grad():", "if True:").replace("@torch.enable_grad()\n", "")
    assert plain.count("enable_grad") == 0
    assert assert_same(plain) == []


@pytest.mark.parametrize(
    "context, skipped",
    [
        ("torch.set_grad_enabled(False)", True),
        ("torch.autograd.set_grad_enabled(mode=False)", True),
        ("torch.set_grad_enabled(self.training)", False),
        ("torch.inference_mode()", True),
        ("torch.inference_mode(False)", False),  # inference mode off: recording as around it
        ("torch.inference_mode(mode=False)", False),
        ("mx.autograd.pause()", True),
        ("autograd.pause()", True),
        ("self.pause()", False),  # not MXNet's
        ("tape.stop_recording()", True),
        ("torch.no_grad() if frozen else contextlib.nullcontext()", False),  # either may run
        ("torch.no_grad(), torch.enable_grad()", False),  # entered in order: the last one holds
        ("torch.enable_grad(), torch.no_grad()", True),
    ],
)
def test_a_grad_mode_context_is_read_from_its_call(context: str, skipped: bool) -> None:
    source = src(f"""
        import contextlib
        import torch
        from mxnet import autograd
        import mxnet as mx

        class Model:
            def forward(self, x, frozen, tape):
                with {context}:
                    return torch.where(x > 0, torch.log(x), 0.0)
    """)
    assert [f[0] for f in assert_same(source)] == ([] if skipped else ["NAN001"])


def test_a_private_method_used_only_under_no_grad_is_skipped_as_in_the_whole_file() -> None:
    # The same for a method: an optimizer's `_step` called only by its `@torch.no_grad()` `step`.
    # The sliced path keeps `_step` alone, so it must read the class that names it (it did not).
    source = src("""
        import torch

        class Opt:
            def _step(self, p, d):
                return torch.where(d > 0.0, p / d, 1.0)

            @torch.no_grad()
            def step(self, p, d):
                return self._step(p, d)
    """)
    assert assert_same(source) == []
    called_with_grad = source.replace("        return self._step(p, d)\n", "        return self._step(p, d)\n\n    def loss(self, p, d):\n        return self._step(p, d).sum()\n")
    assert called_with_grad != source
    assert [f[0] for f in assert_same(called_with_grad)] == ["NAN001"]


def test_a_class_derived_from_a_never_differentiated_framework_class_is_skipped_as_in_the_whole_file() -> None:
    # A dataset makes examples of stored data, a Keras metric assigns its state (no gradient), a
    # schedule is a function of the step counter: nothing in them is differentiated (issue #12,
    # class 6). The base is read through the imports, or through a base class the file defines, and a
    # private helper only such methods use is skipped with them.
    source = src("""
        import tensorflow as tf
        import torch
        from keras import metrics
        from torch.utils import data
        from torch.utils.data import Dataset

        class Points(data.Dataset):
            def __getitem__(self, i):
                return torch.where(self.d[i] > 0, torch.log(self.d[i]), 0.0)

        class Base(Dataset):
            pass

        class Shell(Base):
            def norm(self, d):
                return _helper(d)

        class Ratio(metrics.Mean):
            def result(self):
                return tf.where(self.n > 0, self.total / self.n, 0.0)

        class Warmup(tf.keras.optimizers.schedules.LearningRateSchedule):
            def __call__(self, step):
                return tf.where(step > 0, 1.0 / tf.sqrt(step), 0.0)

        def _helper(d):
            return torch.where(d > 0, torch.sqrt(d), 0.0)
    """)
    assert assert_same(source) == []
    # Not an optimizer (meta-gradients go through one), not torchmetrics (its metrics are losses too),
    # not a class that is only named like a dataset, and not the helper once other code uses it.
    for extra in (
        "\nclass Opt(torch.optim.Optimizer):\n    def step(self, d):\n        return torch.where(d > 0, torch.log(d), 0.0)\n",
        "\nimport torchmetrics\nclass M(torchmetrics.Metric):\n    def compute(self, d):\n        return torch.where(d > 0, torch.log(d), 0.0)\n",
        "\nclass MyDataset:\n    def get(self, d):\n        return torch.where(d > 0, torch.log(d), 0.0)\n",
        "\ndef loss(d):\n    return _helper(d).sum()\n",
    ):
        assert [f[0] for f in assert_same(source + extra)] == ["NAN001"], extra


def test_a_local_bound_by_unpacking_is_followed_as_the_detector_follows_it() -> None:
    # `a, b = x / d, 2 * x` binds `a` to `x / d` for the detector; the screen must see the same, or
    # the sliced path drops a function the whole file reports (pgx's `xs, ys = ..., xy % size`).
    source = src("""
        import jax.numpy as jnp

        def f(x, d):
            a, b = x / d, 2 * x
            return jnp.where(d > 0, a + b, 0.0)
    """)
    assert [f[0] for f in assert_same(source)] == ["NAN002"]
    # Unpacking a call's result binds values the detector does not follow: nothing on either path.
    assert assert_same(source.replace("a, b = x / d, 2 * x", "a, b = divmod(x, d)")) == []


def test_a_local_reached_first_by_a_longer_way_is_followed_again_from_a_shorter_one() -> None:
    # `frac` is read through `h` (three locals from the select) before the else arm reads it
    # through `y` (two): the screen must go on from the shorter way, as the detector does.
    source = src("""
        import jax.numpy as jnp

        def f(time, d, y0, y1, n, mode):
            idx = time / d
            frac = idx - jnp.floor(idx)
            valid = (idx >= 0) & (idx < n)
            if mode:
                h = frac < 0.5
                y = jnp.where(h, y0, y1)
            else:
                y = (1.0 - frac) * y0 + frac * y1
            return jnp.where(valid, y, 0.0)
    """)
    assert [f[0] for f in assert_same(source)] == ["NAN002"]


def test_only_a_jax_while_loop_body_is_skipped() -> None:
    # JAX cannot differentiate `lax.while_loop` in reverse mode; TensorFlow differentiates
    # `tf.while_loop` (each iteration is kept for the gradient), so a leak in its body is real.
    jax_loop = src("""
        import jax.numpy as jnp
        from jax import lax

        def body(state):
            i, x = state
            return i + 1, jnp.where(x > 0, jnp.sqrt(x), 0.0)

        def run(x):
            return lax.while_loop(lambda s: s[0] < 3, body, (0, x))
    """)
    assert assert_same(jax_loop) == []
    tf_loop = src("""
        import tensorflow as tf

        def body(i, x):
            return i + 1, tf.where(x > 0, tf.sqrt(x), 0.0)

        def run(x):
            return tf.while_loop(lambda i, x: i < 3, body, (0, x))
    """)
    assert [f[0] for f in assert_same(tf_loop)] == ["NAN001"]
    bare = jax_loop.replace("from jax import lax", "from jax.lax import while_loop").replace("lax.while_loop", "while_loop")
    assert assert_same(bare) == []


def test_a_tensorflow_loop_told_not_to_back_propagate_has_a_body_nobody_differentiates() -> None:
    # `back_prop=False` (point 135): TensorFlow records no gradient through the loop, and TensorFlow
    # 2 stops the gradient of its outputs, so its body, named where the loop is, never leaks.
    loops = src("""
        import tensorflow as tf

        def attack(x, n):
            def body(i, best):
                return i + 1, tf.where(best > 0, tf.math.log(best), 0.0)
            return tf.while_loop(lambda i, b: i < n, body, [0, x], back_prop=False)

        def per_row(rows):
            def fn(r):
                return tf.where(r > 0, tf.math.log(r), 0.0)
            return tf.map_fn(fn, rows, back_prop=False)
    """)
    assert assert_same(loops) == []
    assert [f[0] for f in assert_same(loops.replace(", back_prop=False", ""))] == ["NAN001", "NAN001"]
    assert [f[0] for f in assert_same(loops.replace("back_prop=False", "back_prop=True"))] == ["NAN001", "NAN001"]


def test_a_loop_body_defined_in_a_function_is_that_function_s_own() -> None:
    # Another function's `body`, given to `lax.scan` (which JAX differentiates), is another function.
    source = src("""
        import jax.numpy as jnp
        from jax import lax

        def solve(x):
            def body(state):
                i, y = state
                return i + 1, jnp.where(y > 0, jnp.sqrt(y), 0.0)
            return lax.while_loop(lambda s: s[0] < 3, body, (0, x))

        def accumulate(xs):
            def body(carry, y):
                return carry + jnp.where(y > 0, jnp.sqrt(y), 0.0), None
            return lax.scan(body, 0.0, xs)
    """)
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN001", 12)]


def test_the_methods_that_register_or_change_a_buffer_in_place_are_kept_with_its_reader() -> None:
    # A buffer of a constant grid carries no gradient, unless another method makes it a leaf or
    # changes it in place: every such method is read with the one that reads the buffer (point 143).
    source = src('''
        import torch
        from torch import nn

        class Basis(nn.Module):
            def __init__(self, n: int):
                super().__init__()
                self.register_buffer("grid", torch.linspace(0.0, 1.0, n))

            def tune(self):
                self.grid.requires_grad_()

            def log(self):
                print(self.width)

            def forward(self, x):
                return x * torch.where(self.grid > 0, torch.sin(self.grid) / self.grid, 1.0)
    ''')
    text = kept_text(source)
    assert "def __init__" in text and "def tune" in text and "def forward" in text
    assert "def log" not in text
    assert [(f[0], f[1].row) for f in assert_same(source)] == [("NAN001", 16)]  # a leaf after `tune`
    assert assert_same(source.replace("self.grid.requires_grad_()", "pass")) == []


def test_the_methods_that_store_an_attribute_a_kept_method_reads_are_kept_with_it() -> None:
    # `self.radius` is one Python number if every store of the class says so: the stores are read.
    source = src('''
        import jax.numpy as jnp

        class Cutoff:
            def __init__(self, radius: float, width: float):
                self.radius = radius
                self.width = width

            def reset(self):
                self.count = 0

            def resize(self, radius: float):
                self.radius = radius

            def __call__(self, r):
                return jnp.where(r < self.radius, 1.0 - r / self.radius, 0.0)
    ''')
    text = kept_text(source)
    assert "def __init__" in text and "def resize" in text and "def __call__" in text
    assert "def reset" not in text  # it stores nothing `__call__` reads
    assert assert_same(source) == []  # `r / self.radius`: no pole the where decides


@pytest.mark.parametrize(
    ("line", "stores"),
    [
        ("self.a = 1", True),
        ("self.a += 1", True),
        ("self.a, self.b = f()", True),
        ("self.a: float = 1", True),
        ("for self.a in r:", True),
        ("with f() as self.a:", True),
        ("f(self.a, k=1)", True),  # no store, but the screen cannot tell
        ("y = self.a", False),
        ("x = self.a == 2", False),
        ("if self.a <= 2:", False),
        ("self.ab = 1", False),
        # torch's other stores (point 143): a registration by name, `setattr`, an in-place method.
        ("self.register_buffer('a', t)", True),
        ('self.register_parameter("a", p)', True),
        ("setattr(self, name, v)", True),
        ("self.a.mul_(0.9).add_(x)", True),
        ("self.register_buffer('ab', t)", False),
        ("y = self.a.sum()", False),
    ],
)
def test_the_text_of_a_method_tells_whether_it_may_store_an_attribute(line: str, stores: bool) -> None:
    assert may_store(line, {"a"}) is stores


def test_an_attribute_some_store_makes_an_array_is_read_from_all_its_stores_or_none() -> None:
    # `setup` stores an array into `threshold`: it is no Python number, whatever `__init__` stores.
    # `__init__` is kept for `gain`; it stores `threshold` too, so `setup` is kept as well: the
    # analysis must not see `threshold = None` alone.
    source = src('''
        import torch
        from torch import nn

        class Loudness(nn.Module):
            def __init__(self):
                super().__init__()
                self.gain = 0.5
                self.threshold = None

            def setup(self, values):
                self.threshold = nn.Parameter(torch.tensor(values))

            def forward(self, x):
                a = torch.pow(self.threshold / 0.5, 0.23)
                return torch.where(x < self.threshold, 0.0, self.gain * a * x)
    ''')
    text = kept_text(source)
    assert "def __init__" in text and "def setup" in text
    (finding,) = assert_same(source)
    assert finding[0] == "NAN002"


def test_only_the_class_members_that_call_a_select_are_parsed_and_kept() -> None:
    source = src('''
        import jax.numpy as jnp

        class Model:
            """A docstring with
        def text_at_column_zero(): pass
            """
            scale = 2.0

            @staticmethod
            def unrelated(x):
                def inner():
                    return x
                return inner

            class Nested:
                def method(self):
                    return 1

            async def leaky(self, x):
                return jnp.where(x > 0, jnp.log(x), 0.0)

            limit = 3
    ''')
    found = kept(source)
    assert found.verdict == UNITS
    text = kept_text(source)
    assert "async def leaky" in text
    assert "unrelated" not in text and "Nested" not in text and "docstring" not in text
    # The member is kept as the lines of the file it spans, and read under a stand-in class.
    (member,) = [unit for unit in found.units if unit.member]
    assert member.first == 19 and source.splitlines()[member.first - 1].strip().startswith("async def leaky")
    (finding,) = assert_same(source)
    assert finding[0] == "NAN001" and finding[1].row == 20


def test_a_select_is_called_through_an_attribute_or_an_imported_name() -> None:
    local = src("""
        import jax.numpy as jnp

        def where(c, a, b):
            return a

        def f(x):
            return where(x > 0, jnp.log(x), 0.0)
    """)
    assert kind(local) == NOTHING  # a bare `where` that no import binds is not jnp.where
    renamed = src("""
        from jax.numpy import log, where as pick

        def f(x):
            return pick(x > 0, log(x), 0.0)
    """)
    assert kind(renamed) == UNITS
    assert [f[0] for f in assert_same(renamed)] == ["NAN001"]


def test_calls_resolve_through_the_imports_as_in_the_detector() -> None:
    # Plain numpy is not differentiable, so it is off by default: its where guards nothing.
    numpy_only = src("""
        import numpy as np

        def f(x):
            return np.where(x > 0, np.log(x), 0.0)
    """)
    assert kind(numpy_only) == NOTHING
    # A name an import binds can be rebound: then `np.where(c, y)` is a tensor method, as the detector
    # reads it (its receiver is the value where `c` holds, `y` the other) ...
    rebound = src("""
        import torch
        try:
            import numpy as np
        except ImportError:
            np = None

        def f(x):
            return np.where(x > 0, torch.log(x))
    """)
    assert [f[0] for f in assert_same(rebound)] == ["NAN003"]
    # ... but not with three arguments, which `Tensor.where(condition, other)` does not take.
    assert assert_same(rebound.replace("torch.log(x))", "torch.log(x), 0.0)")) == []


def test_called_names_are_found_by_text_across_lines_and_comments() -> None:
    text = "x = jnp.where(a, b)\nmaximum (1)\nz = (y.  # note\n  clip(3))\nminimize(3)\nw = (where  # c\n (1))\nclip_value = 3\n"
    calls = spelled_calls(text, frozenset({"where", "maximum", "clip"}))
    assert [(c.name, c.dotted) for c in calls] == [("where", True), ("maximum", True), ("clip", True), ("where", False)]
    assert spelled_calls("no selects here", frozenset({"where"})) == []
    assert spelled_calls("somewhere(1); where_x(2); jnp.where", frozenset({"where"})) == []


def test_a_call_the_text_resolves_to_no_select_is_not_parsed() -> None:
    # numpy is off by default, and no framework with tensor methods is imported: nothing to read.
    assert kind(src("""
        import numpy as np

        def f(x):
            return np.where(x > 0, np.log(x), 0.0), self.clip(x, 0, 1)
    """)) == NOTHING
    # What the text cannot place is read: `f(x).where(` may be a tensor's method.
    assert kind(src("""
        import torch

        def f(x):
            return g(x).where(x > 0, torch.log(x))
    """)) == UNITS


# Each is a way the text could mislead the cut, the screen or the import scan; found in review.
TRICKY_SOURCES = {
    "a select in a nested decorator": "import jax.numpy as jnp\ndef outer(x):\n    @dec(jnp.where(x > 0, jnp.sqrt(x), 0.0))\n    def inner(): pass\n    return inner\n",
    "a select in an f-string": 'import jax.numpy as jnp\ndef f(x):\n    print(f"v={jnp.where(x > 0, jnp.sqrt(x), 0.0)}")\n',
    "a parenthesized callee": "import jax.numpy as jnp\ndef f(x):\n    return (jnp.where)(x > 0, jnp.sqrt(x), 0.0)\n",
    "a rename after a tab": "from jax.numpy import where\tas w, sqrt\ndef f(x):\n    return w(x > 0, sqrt(x), 0.0)\n",
    "a rename across lines": "from jax.numpy import (where as\n    w, sqrt)\ndef f(x):\n    return w(x > 0, sqrt(x), 0.0)\n",
    "a comment in an import's parentheses": "from jax.numpy import (\n    where,  # select (guarded)\n    sqrt,\n)\ndef f(x):\n    return where(x > 0, sqrt(x), 0.0)\n",
    "spaces around an import's dots": "from jax . numpy import where, sqrt\ndef f(x):\n    return where(x > 0, sqrt(x), 0.0)\n",
    "a statement after a semicolon": "DEBUG = False; import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n",
    "a constant after a semicolon": "import jax.numpy as jnp\nA = 1; LIMIT = 1.0\ndef f(x):\n    return jnp.where(x < LIMIT, jnp.sqrt(x + LIMIT), 0.0)\n",
    "a statement that starts with a Greek letter": "import jax.numpy as jnp\ndef g():\n    pass\nε = 1.0\ndef f(x):\n    return jnp.where(x > 0, jnp.log(x + ε), 0.0)\n",
    "triple quotes inside a one-line string": "import jax.numpy as jnp\ndef fake1(): return \"'''\"\nB = '''\ndef g(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n''' ; C = '''\ndef junk(): pass\n'''\ndef fake2(): return \"'''\"\n",
    "code in a backslash-continued string": 'import jax.numpy as jnp\ns = "\\\ndef g(x): return jnp.where(x > 0, jnp.sqrt(x), 0.0)  #\\\n"[0:0]\n',
    "a module-level local used everywhere": "import jax.numpy as jnp\ns = jnp.sqrt(x)\ndef f(x):\n    return jnp.where(x > 0, s, 0.0)\ny = jnp.where(x > 0, s, 0.0)\n",
    # Found by the fuzzer: `EPS = max(` alone does not parse, so the kept code's constant is read from the whole file.
    "a used constant whose continuation line starts at column 0": "import jax.numpy as jnp\nEPS = max(\nTINY, 1e-6)\ndef f(x):\n    return jnp.where(x > 0, jnp.log(x), 0.0) + EPS\n",
    "a module-level name the fix must not reuse": "import jax.numpy as jnp\nok = 1\ndef f(x):\n    y = jnp.where(jnp.rand(x) > 0, jnp.sqrt(x), 0.0)\n    return y\n",
}


# What each reports (the same, sliced or whole): a guard the slice must keep, or a leak it must see.
TRICKY_CODES = {
    "a constant after a semicolon": [],
    "a statement that starts with a Greek letter": [],
    "triple quotes inside a one-line string": [],
    "code in a backslash-continued string": [],
    "a module-level local used everywhere": ["NAN002"],
}


@pytest.mark.parametrize("name", TRICKY_SOURCES)
def test_text_that_could_mislead_the_slice_reports_as_the_whole_file(name: str) -> None:
    assert [f[0] for f in assert_same(TRICKY_SOURCES[name])] == TRICKY_CODES.get(name, ["NAN001"])


def test_a_fix_never_reuses_a_name_the_file_spells() -> None:
    (finding,) = assert_same(TRICKY_SOURCES["a module-level name the fix must not reuse"])
    assert finding[5][0][0].strip().startswith("ok_1 = ")


def test_a_unit_that_calls_a_closure_holding_an_op_is_kept_and_read_as_the_whole_file_is() -> None:
    source = "import jax.numpy as jnp\ndef g(x):\n    def _f(t):\n        return 1.0 / t\n    return jnp.where(x > 0.5, _f(x), 0.0)\n"
    (finding,) = assert_same(source)
    assert finding[0] == "NAN001" and finding[1].row == 5


def test_a_helper_is_read_alike_sliced_and_whole() -> None:
    # The detector reads a helper's value only where the prefilter would keep it: a long body, an
    # `async def` and a bytes "docstring" are no straight-line helpers on either path.
    last = MAX_HELPER_STEPS + 1
    steps = "".join(f"    y{i} = y{i - 1} + 1.0\n" for i in range(1, last + 1))
    source = (
        "import jax.numpy as jnp\n\n"
        f"def _long(y0):\n{steps}    return jnp.abs(y{last}) + 1.0\n\n"
        "async def _later(x):\n    return jnp.abs(x) + 1.0\n\n"
        'def _bytes(x):\n    b"not a docstring"\n    return jnp.abs(x) + 1.0\n\n'
        'def _short(x):\n    "A docstring."\n    return jnp.abs(x) + 1.0\n\n'
        "def f(x, y):\n    return jnp.where(y > 0, x / _long(y) + x / _later(y) + x / _bytes(y) + x / _short(y), 0.0)\n"
    )
    flagged = [f[3].split("`")[1] for f in assert_same(source)]
    assert flagged == ["x / _long(y)", "x / _later(y)", "x / _bytes(y)"]
