"""The rules' own contract: codes, names, docs, and their embedded VALID/INVALID examples."""

import re

import libcst as cst
import pytest

from nanlint.check import Checker
from nanlint.fix.apply import fix_source
from nanlint.rules import BY_CODE, RULES, UnknownSelector, expand_selector, select_codes
from nanlint.config.settings import Settings

CASES_VALID = [(rule, case) for rule in RULES for case in rule.VALID]
CASES_INVALID = [(rule, case) for rule in RULES for case in rule.INVALID]


def codes_by_line(source: str) -> list[tuple[int, str]]:
    result = Checker(Settings(select=["ALL"])).check_source(source, "example.py")
    return [(d.location.row, d.code) for d in result.diagnostics]


@pytest.mark.parametrize(("rule", "case"), CASES_VALID, ids=lambda x: getattr(x, "CODE", ""))
def test_valid_examples_are_not_flagged(rule, case) -> None:
    assert [c for _, c in codes_by_line(rule.example_source(case)) if c == rule.CODE] == []


@pytest.mark.parametrize(("rule", "case"), CASES_INVALID, ids=lambda x: getattr(x, "CODE", ""))
def test_invalid_examples_are_flagged_on_their_line(rule, case) -> None:
    found = codes_by_line(rule.example_source(case))
    assert (case.line, rule.CODE) in found, found


CASES_FIXED = [(rule, case) for rule, case in CASES_INVALID if case.fixed is not None]


@pytest.mark.parametrize(("rule", "case"), CASES_FIXED, ids=lambda x: getattr(x, "CODE", ""))
def test_invalid_examples_are_fixed_as_written(rule, case) -> None:
    checker = Checker(Settings(select=["ALL"]))
    source = rule.example_source(case)
    outcome = fix_source(checker, checker.check_source(source, "example.py"), unsafe_fixes=True)
    assert outcome.source == case.fixed
    # The fixed form is a VALID case of its own: fixing twice changes nothing.
    assert rule.CODE not in [d.code for d in checker.check_source(outcome.source, "example.py").diagnostics]


def test_an_op_whose_pole_the_other_branch_meets_too_is_no_leak_of_its_own() -> None:
    # Point 165: where `x < 1` leaves `1.0 / x` unselected at `x == 0`, its pole, the selected
    # `sqrt(x)` is singular too (it leaks at every `x <= 0`): no select hides the division's pole.
    # Point 47 asked the other branch for the very same leaking values.
    source = "import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x < 1, jnp.sqrt(x), 1.0 / x)\n"
    assert Checker(Settings()).check_source(source, "example.py").diagnostics == []
    # A power by an exponent not known may hold no pole (`x ** p` at p = 2): the division is reported.
    source = "import jax.numpy as jnp\ndef f(x, p):\n    return jnp.where(x < 1, x ** p, 1.0 / x)\n"
    result = Checker(Settings()).check_source(source, "example.py")
    assert ("NAN001", "divide") in [(d.code, d.op) for d in result.diagnostics]
    # The other way round, `sqrt` leaks at `x < 0` too, where the division is finite: reported.
    source = "import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x < 1, 1.0 / x, jnp.sqrt(x))\n"
    result = Checker(Settings()).check_source(source, "example.py")
    assert [(d.code, d.op) for d in result.diagnostics] == [("NAN001", "sqrt")]


def test_a_nested_op_is_reported_again_only_where_the_nested_fix_leaves_a_leak() -> None:
    # `1 / dx` is masked by the nested select's fix wherever the enclosing one drops it: one finding.
    guarded_by_nested = (
        "import jax.numpy as jnp\ndef f(x0, x1, f0, f1, xq):\n    dx = x1 - x0\n    dxi = jnp.where(dx == 0, 0.0, 1 / dx)\n"
        "    return jnp.where(dx == 0, f1, f0 + (xq - x0) * dxi)\n"
    )
    assert codes_by_line(guarded_by_nested) == [(4, "NAN001")]
    # `nan * s` has a NaN derivative wherever it is dropped: each select is a leak of its own.
    nan_factor = (
        "import jax.numpy as jnp\ndef cdf(s, xi):\n    res = jnp.nan * s\n    res = jnp.where(xi == 0, -s, res)\n"
        "    res = jnp.where(xi > 0, 0.0, res)\n    return jnp.where(xi < 0, 1.0, res)\n"
    )
    assert codes_by_line(nan_factor) == [(4, "NAN002"), (5, "NAN002"), (6, "NAN002")]
    # Where `far` drops `out`, `k` is NaN; `x` carries its gradient where the nested select takes
    # `k * x` (`pos`): a leak only both conditions together show.
    placeholders = (
        "import jax.numpy as jnp\ndef f(x, k, far):\n    pos = x >= 0\n    x = jnp.where(pos, x, jnp.nan)\n"
        "    k = jnp.where(far, jnp.nan, k)\n    out = jnp.where(pos, 1 - k * x, 0.0)\n    return jnp.where(far, 1.0, out)\n"
    )
    assert (7, "NAN002") in codes_by_line(placeholders)
    # ... not where the two regions cannot meet: the nested select takes `res` only where `xi <= 0`,
    # and an intermediate select already drops it wherever the outermost one does.
    disjoint = "import jax.numpy as jnp\ndef f(s, xi):\n    res = jnp.nan * s\n    res = jnp.where(xi > 0, -s, res)\n    return jnp.where(xi > 0, 0.0, res)\n"
    assert codes_by_line(disjoint) == [(4, "NAN002")]
    between = (
        "import jax.numpy as jnp\ndef f(s, xi):\n    res = jnp.nan * s\n    r1 = jnp.where(xi == 0, -s, res)\n"
        "    r2 = jnp.where(xi > 0, 2 * s, r1)\n    return jnp.where(xi > 1, 0.0, r2)\n"
    )
    assert codes_by_line(between) == [(4, "NAN002"), (5, "NAN002")]
    # ... nor where a placeholder is undecided by both conditions, or decided by a name since rebound.
    undecided = (
        "import jax.numpy as jnp\ndef f(x, k, far, other):\n    k = jnp.where(other, jnp.nan, k)\n"
        "    out = jnp.where(x >= 0, k * x, 0.0)\n    return jnp.where(far, 1.0, out)\n"
    )
    assert (5, "NAN002") not in codes_by_line(undecided)
    rebound = (
        "import jax.numpy as jnp\ndef f(x, k, y):\n    far = y > 1\n    k = jnp.where(far, jnp.nan, k)\n    far = y < -1\n"
        "    out = jnp.where(x >= 0, k * x, 0.0)\n    return jnp.where(far, 1.0, out)\n"
    )
    assert (7, "NAN002") not in codes_by_line(rebound)


def test_a_helpers_own_selects_are_nested_selects_of_the_branch_that_calls_it() -> None:
    # A closure whose select chain keeps `nan * s` where `xi` is the NaN placeholder: the enclosing
    # select drops the call's value there, and the helper's own findings mask nothing for it.
    nan_factor = (
        "import jax.numpy as jnp\ndef gev(obs, shape):\n    def _adjust(s, xi):\n        res = jnp.nan * s\n"
        "        return jnp.where(xi > 0, 2 * s, jnp.where(xi < 0, -s, res))\n"
        "    zero = shape == 0.0\n    shape = jnp.where(~zero, shape, jnp.nan)\n    g = _adjust(obs, shape)\n"
        "    return jnp.where(zero, -obs, obs - g)\n"
    )
    assert (9, "NAN002") in codes_by_line(nan_factor)
    # Where the enclosing select drops the call, the helper's select takes `1 / x`, at its pole.
    taken = "import jax.numpy as jnp\ndef _f(x):\n    return jnp.where(x < 1.0, 1.0 / x, 1.0)\ndef g(x):\n    return jnp.where(x > 0.5, _f(x), 0.0)\n"
    assert codes_by_line(taken) == [(5, "NAN001")]
    # ... not where the helper's select drops it itself: its own finding (the double where inside
    # the helper) masks the op there, for every caller.
    dropped = (
        "import jax.numpy as jnp\ndef _f(p, k):\n    return jnp.where(jnp.abs(k) < 1e-10, -p, jnp.expm1(-k * p) / k)\n"
        "def g(p, k):\n    return jnp.where(k >= 1.0 / 3.0, _f(p, k), p)\n"
    )
    assert (3, "NAN001") in codes_by_line(dropped) and all(row != 5 for row, _ in codes_by_line(dropped))
    # ... nor where the selected branch meets the same pole.
    same_pole = "import jax.numpy as jnp\ndef _f(x):\n    return jnp.where(x < 1.0, 1.0 / x, 1.0)\ndef g(x):\n    return jnp.where(x > 0.5, _f(x), 2.0 / x)\n"
    assert codes_by_line(same_pole) == []


def test_a_helpers_select_holds_only_what_the_helper_writes() -> None:
    # The helpers a helper calls are not read, in its selects as outside them; nor is a helper's
    # select read again through a call of its own name (the chain would never end).
    calls_a_helper = (
        "import jax.numpy as jnp\ndef h0(x):\n    return 1.0 / x\ndef h1(x):\n    return jnp.where(x < 1.0, h0(x), x / 2.0)\n"
        "def g(x):\n    return jnp.where(x > 0.5, h1(x), 0.0)\n"
    )
    assert codes_by_line(calls_a_helper) == []
    calls_itself = (
        "import jax.numpy as jnp\ndef f(t):\n    return jnp.where(t < 1.0, 1.0 / t, t)\ndef f(t, f=f):\n    return jnp.where(t > 0.0, f(t), 0.0)\n"
        "def g(x):\n    return jnp.where(x > 0.5, f(x), 0.0)\n"
    )
    assert codes_by_line(calls_itself) == []  # and it ends: it did not, each inlining a new select


def test_the_same_pole_is_the_same_argument_as_bound_not_as_written() -> None:
    # `2.0 / x` divides by the `x` rebound after `a`: at the new `x == 0` the old one is 3, and
    # `a`'s `1.0 / x` leaks alone where the select takes `2.0 / x` (finite value, NaN gradient).
    source = (
        "import jax.numpy as jnp\ndef g(x):\n    a = 1.0 / x\n    near = jnp.abs(x) < 0.5\n    x = x - 3.0\n"
        "    return jnp.where(near, 2.0 / x, a)\n"
    )
    assert (6, "NAN002") in codes_by_line(source)
    # Without the rebinding both branches divide by the same `x`: no select hides the pole.
    assert codes_by_line(source.replace("    x = x - 3.0\n", "")) == []


@pytest.mark.parametrize(
    "body, confidence",
    [
        # Point 168: `c` tests the `r` the function was given; the divisor reads the `r` masked after
        # it, 0 wherever `c` is false, so `r - cutoff` is `-cutoff` there, not 0. Read as the same
        # `r`, the condition "proved" the pole reached (high); it proves nothing.
        ("    c = r < cutoff\n    r = jnp.where(c, r, 0.0)\n    return jnp.where(c, sigma / (r - cutoff), 0.0)\n", "medium"),
        # Point 171: `m = m & (t > 0)` names itself, so the guard is not read through it (its earlier
        # `m` is not the one seen here), and its test of the old `r` is no reason to doubt `r > 0`,
        # which reads the `r` the log does. Where `r > 0` fails the `and` fails: at r = 0, proven.
        ("    m = r > 1.0\n    r = r * t\n    m = m & (t > 0)\n    return jnp.where((r > 0) & m, jnp.log(r), 0.0)\n", "high"),
    ],
)
def test_a_condition_reads_a_name_as_bound_where_the_condition_is_read(body: str, confidence: str) -> None:
    source = f"import jax.numpy as jnp\ndef f(r, t, cutoff, sigma):\n{body}"
    (finding,) = Checker(Settings()).check_source(source, "m.py").diagnostics
    assert finding.confidence.value == confidence


@pytest.mark.parametrize(
    "after, confidence",
    [
        ("return s", None),  # the NaN is the result's: the value is invalid there anyway
        ("return jnp.nan_to_num(s)", "high"),  # replaced wherever it was put in (point 174)
        ("return jnp.where(jnp.isnan(s), 0.0, s)", "high"),
        ("return jnp.nan_to_num(s * 2.0)", "high"),  # through arithmetic first
        ("return jnp.where(m, 0.0, s)", "medium"),  # a select that may have left it out
    ],
)
def test_a_nan_placeholder_licenses_nothing_once_masked_after(after: str, confidence) -> None:
    source = f"import jax.numpy as jnp\ndef f(x, m):\n    s = jnp.where(x > 0, jnp.log(x), jnp.nan)\n    {after}\n"
    found = [d for d in Checker(Settings()).check_source(source, "m.py").diagnostics if d.code == "NAN001"]
    assert [d.confidence.value for d in found] == ([] if confidence is None else [confidence])


def test_the_same_pole_of_a_nested_select_reads_names_only() -> None:
    # `s.m` is stored again between the two selects: the same text, the same binding of `s`, not
    # the same value (a leak at the new `s.m == 0`, run).
    source = (
        "import jax.numpy as jnp\nclass S:\n    pass\ndef g(x):\n    s = S()\n    s.m = x\n"
        "    a = jnp.where(x < 1.0, 1.0 / s.m, 1.0)\n    s.m = x - 3.0\n"
        "    return jnp.where((s.m > -3.5) & (s.m < 0.5), 2.0 / s.m, a)\n"
    )
    assert (9, "NAN002") in codes_by_line(source)


def test_a_helper_whose_names_the_caller_imports_alike_is_read() -> None:
    source = (
        "import jax.numpy as jnp\ndef _f(t):\n    return jnp.log(t)\n"
        "def g(x):\n    import jax.numpy as jnp\n    return jnp.where(x > 0.5, _f(x), 0.0)\n"
    )
    assert codes_by_line(source) == [(6, "NAN001")]


def test_a_chain_of_helpers_with_selects_is_read_as_deep_as_locals() -> None:
    # Each helper's value reads both sides of its selects and calls the one before twice: read
    # without a bound, six of them took minutes.
    helpers = "".join(
        f"def f{i}(t):\n    u = jnp.where(t < 1.0, f{i - 1}(t) / t, t)\n    return jnp.where(u < 2.0, u / t + f{i - 1}(u), u)\n"
        for i in range(1, 7)
    )
    source = f"import jax.numpy as jnp\ndef f0(t):\n    return jnp.where(t < 1.0, 1.0 / t, t)\n{helpers}def g(x):\n    return jnp.where(x > 0.5, f6(x), 0.0)\n"
    assert [row for row, _ in codes_by_line(source)] == [6, 9, 12, 15, 18, 21]  # each `u / t` under `u < 2.0`


@pytest.mark.parametrize(
    "source",
    [
        # A default is read where the function is defined: `p` is 5, not the 0 bound after it.
        "import jax.numpy as jnp\ndef g(x):\n    k = 5.0\n    def _f(t, p=k):\n        return jnp.where(t < 10.0, 1.0 / (t - p), 1.0)\n"
        "    k = 0.0\n    return jnp.where(x > 0.5, _f(x), k)\n",
        # The caller's own `k` is not the closure's.
        "import jax.numpy as jnp\ndef g(x):\n    k = 5.0\n    def _f(t):\n        return jnp.where(t < 10.0, 1.0 / (t - k), 1.0)\n"
        "    def h(y):\n        k = 0.0\n        return jnp.where(y > 0.5, _f(y), k)\n    return h(x)\n",
        # ... nor is it the module's, which a helper of the module reads.
        "import jax.numpy as jnp\nk = 5.0\ndef _f(x):\n    return jnp.where(x < 10.0, 1.0 / (x - k), 1.0)\n"
        "def g(x):\n    k = 0.0\n    return jnp.where(x > 0.5, _f(x), k)\n",
    ],
)
def test_a_helper_reads_its_own_names_where_python_does(source: str) -> None:
    # At `x == 0` the divisor is -5, far from its pole: no finding at the call (the last line).
    last = source.count("\n")
    assert all(row != last for row, _ in codes_by_line(source))


def test_a_bound_a_class_stores_once_decides_the_unselected_region() -> None:
    # `self.join` is 0.018 wherever it is read (its class's one store): under `f >= 0.018`, where
    # the log's branch is dropped, `f` is far from its pole (point 121).
    source = (
        "import jax.numpy as jnp\nclass Phase:\n    def __init__(self):\n        self.join = {}\n"
        "    def __call__(self, f, x):\n        return jnp.where(f < self.join, jnp.log(f) * x, x)\n"
    )
    assert codes_by_line(source.format("0.018")) == []
    # At a bound of 0 the dropped region `f >= 0` holds the pole; an unknown store bounds nothing.
    assert codes_by_line(source.format("0.0")) == [(6, "NAN001")]
    unknown = source.replace("def __init__(self):", "def __init__(self, join):").format("join")
    assert codes_by_line(unknown) == [(6, "NAN001")]


def test_a_float_parameter_is_a_python_number_in_torch_code_only() -> None:
    # torch's autograd records tensors: `rolloff: float` is a Python number, so the kernel built
    # from `arange` and it carries no gradient (point 123). Under JAX a float may be a tracer.
    torch_kernel = (
        "import torch\ndef kernel(n: int, rolloff: float):\n    t = torch.arange(n) * rolloff\n"
        "    return torch.where(t == 0, 1.0, t.sin() / t)\n"
    )
    assert codes_by_line(torch_kernel) == []
    jax_kernel = torch_kernel.replace("import torch", "import jax.numpy as jnp").replace("torch.arange", "jnp.arange")
    jax_kernel = jax_kernel.replace("torch.where", "jnp.where").replace("t.sin()", "jnp.sin(t)")
    assert codes_by_line(jax_kernel) == [(4, "NAN001")]
    # A tensor parameter is data whatever the framework.
    assert codes_by_line(torch_kernel.replace("rolloff: float", "rolloff")) == [(4, "NAN001")]


def test_a_condition_decides_a_placeholder_by_a_conjunct() -> None:
    # Where `u_inf & (m == 0)` leaves the product out, `u_inf` holds: `u` is the NaN placeholder there.
    source = (
        "import jax.numpy as jnp\ndef f(u, m):\n    u_inf = u == jnp.inf\n    u = jnp.where(u_inf, jnp.nan, u)\n"
        "    return jnp.where(u_inf & (m == 0), 0.0, u * m**2)\n"
    )
    found = Checker(Settings(select=["ALL"])).check_source(source, "example.py").diagnostics
    assert [(d.location.row, d.code, d.confidence.value) for d in found] == [(5, "NAN001", "high")]


def test_every_fixable_rule_shows_a_fix() -> None:
    assert all(any(case.fixed for case in rule.INVALID) for rule in RULES if rule.FIXABLE)


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_rule_metadata(rule) -> None:
    assert re.fullmatch(r"NAN\d{3}", rule.CODE)
    assert re.fullmatch(r"[a-z]+(-[a-z]+)*", rule.NAME)
    assert rule.missing_sections() == []
    assert rule.VALID and rule.INVALID
    assert rule.SUMMARY and not rule.SUMMARY.endswith(".")


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.CODE)
def test_doc_examples_behave_as_documented(rule) -> None:
    """The `## Example` block is flagged and the `Use instead:` block is clean."""
    doc = rule.doc()
    blocks = re.findall(r"```python\n(.*?)```", doc, re.S)
    example, fixed = blocks[0], blocks[1]
    if rule.CODE == "NAN900":
        assert ("NAN900" in [c for _, c in codes_by_line(example)]) and codes_by_line(fixed) == []
        return
    assert rule.CODE in [c for _, c in codes_by_line(example)]
    assert codes_by_line(fixed) == []


def test_codes_and_names_are_unique() -> None:
    assert len({r.CODE for r in RULES}) == len(RULES)
    assert len({r.NAME for r in RULES}) == len(RULES)


def test_selectors() -> None:
    assert expand_selector("NAN0") == {"NAN001", "NAN002", "NAN003", "NAN004"}
    assert expand_selector("nan101") == {"NAN101"}
    assert expand_selector("where-guard-admits-pole") == {"NAN003"}
    assert expand_selector("ALL") == set(BY_CODE)
    for bad in ("NAN5", "E501", "where"):
        with pytest.raises(UnknownSelector):
            expand_selector(bad)


def test_selection_precedence() -> None:
    assert select_codes(["NAN"], ["NAN0"], ["NAN001"]) == {"NAN001", "NAN101", "NAN102", "NAN201", "NAN401", "NAN900"}
    assert "NAN201" in select_codes(None, [], [])  # on by default
    assert "NAN401" not in select_codes(None, [], [])  # off by default
    assert "NAN001" not in select_codes(None, ["NAN001"], [])
    # invalid-syntax is always reported: a file that does not parse was not checked.
    assert "NAN900" in select_codes(["NAN001"], [], [])


class _HoistCondition(cst.CSTTransformer):
    """Moves the condition of the `which`-th select call (`where(c, a, b)`) into a local assigned
    on the line before the statement that holds it."""

    def __init__(self, which: int) -> None:
        self.which, self.seen, self.cond, self.placed = which, 0, None, False

    @property
    def done(self) -> bool:
        return self.cond is not None

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = updated.func
        name = func.attr.value if isinstance(func, cst.Attribute) else getattr(func, "value", None)
        if name in ("where", "select") and len(updated.args) == 3 and updated.args[0].keyword is None:
            self.seen += 1
            if self.seen - 1 == self.which:
                self.cond = updated.args[0].value
                return updated.with_changes(args=[updated.args[0].with_changes(value=cst.Name("hoisted")), *updated.args[1:]])
        return updated

    def leave_SimpleStatementLine(self, original, updated):
        if self.cond is None or self.placed:
            return updated
        self.placed = True
        assign = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name("hoisted"))], self.cond)])
        return cst.FlattenSentinel([assign, updated])


def _variants(source: str, rewrite):
    """The source with its first, second, ... select rewritten by `rewrite(which)`, a transformer
    whose `done` says it found that select; none for NAN900's examples, which do not parse."""
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError:
        return
    for which in range(4):
        transformer = rewrite(which)
        rewritten = module.visit(transformer)
        if not transformer.done:
            return
        yield rewritten.code


@pytest.mark.parametrize(("rule", "case"), CASES_VALID + CASES_INVALID, ids=lambda x: getattr(x, "CODE", ""))
def test_a_condition_held_by_a_local_changes_no_verdict(rule, case) -> None:
    """`m = x < 1.0; where(m, ...)` selects what `where(x < 1.0, ...)` does (points 19, 93, 94)."""
    flagged = rule.CODE in [c for _, c in codes_by_line(rule.example_source(case))]
    for variant in _variants(rule.example_source(case), _HoistCondition):
        assert (rule.CODE in [c for _, c in codes_by_line(variant)]) == flagged, variant


class _NegateAndSwap(cst.CSTTransformer):
    """Rewrites the `which`-th `xp.where(c, a, b)` as `xp.where(~(c), b, a)`, which selects the same."""

    def __init__(self, which: int) -> None:
        self.which, self.seen, self.done = which, 0, False

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.Call:
        func = updated.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == "where" and len(updated.args) == 3):
            return updated
        if any(arg.keyword is not None for arg in updated.args):
            return updated
        self.seen += 1
        if self.seen - 1 != self.which:
            return updated
        self.done = True
        cond, first, second = updated.args
        negated = cst.UnaryOperation(cst.BitInvert(), cond.value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        return updated.with_changes(args=[cond.with_changes(value=negated), second.with_changes(comma=first.comma), first.with_changes(comma=second.comma)])


LEAK_RULES = ("NAN001", "NAN002", "NAN003", "NAN004")


@pytest.mark.parametrize(("rule", "case"), CASES_VALID + CASES_INVALID, ids=lambda x: getattr(x, "CODE", ""))
def test_a_negated_condition_with_its_branches_swapped_changes_no_verdict(rule, case) -> None:
    """`where(~(c), b, a)` selects what `where(c, a, b)` does: it leaks exactly when that does, as
    often (point 95: a negation swaps what is certain of where a condition holds and where it does
    not; point 102: what a branch reaches does not hang on the order of the branches)."""

    def leaks(source: str) -> int:
        return sum(code in LEAK_RULES for _, code in codes_by_line(source))

    expected = leaks(rule.example_source(case))
    for variant in _variants(rule.example_source(case), _NegateAndSwap):
        assert leaks(variant) == expected, variant


def test_swapped_branches_report_a_shared_chain_as_often() -> None:
    """`call` and `put` both read `d1` and `d2`. A local first reached by the longer way (`put`
    reads `d2`, then `d1` through it, where the depth limit stops) is followed again by the shorter
    one (`put` reads `d1` itself): else which ops a branch reaches, and so how many findings the
    select gets, hangs on the order of its branches."""
    source = (
        "import tensorflow as tf\ndef f(v, c, a):\n    s = tf.math.sqrt(v)\n    d1 = tf.math.divide_no_nan(a, s)\n"
        "    d2 = d1 - tf.math.sqrt(v)\n    call = tf.exp(d1) - tf.exp(d2)\n    put = tf.exp(-d2) - tf.exp(-d1)\n"
        "    return tf.where(s > 0.0, tf.where(c, call, put), a)\n"
    )
    swapped = source.replace("tf.where(c, call, put)", "tf.where(~c, put, call)")
    assert codes_by_line(source) == codes_by_line(swapped) == [(8, "NAN002")]


@pytest.mark.parametrize("divisor", ["safe", "safe.to(a.dtype)", "safe[0]"])
def test_a_mask_whose_safe_value_is_the_pole_is_named_in_the_finding(divisor) -> None:
    """Point 92: the finding says which mask keeps the divisor at its pole, and why it guards nothing;
    through a cast or an index too, as the guard is read."""
    source = f"import torch\ndef t(a, v):\n    safe = torch.where(v != 0, v, 0.0)\n    return torch.where(v != 0, a / {divisor}, 0.0)\n"
    (finding,) = Checker(Settings()).check_source(source, "m.py").diagnostics
    assert [(r.location.row, r.message) for r in finding.related] == [
        (3, "`torch.where(v != 0, v, 0.0)` puts the op at its pole where it takes its safe value: it keeps the cotangent from the value it masks there, not from the op's other inputs"),
        (4, f"where `v != 0` leaves the true branch unselected, {divisor} = 0 holds: the op's pole"),
    ]


# Issue #12, Messages: each where-branch finding says why its condition does not keep the op off its
# pole, or that nanlint cannot tell (its confidence, in words), in a note at the condition.
EVIDENCE_NOTES = [
    # The condition, read as values of the argument, leaves the pole unselected: a point ...
    ("jnp.where(x > 1, jnp.log(x), 0.0)", "high", "`x > 1` leaves the true branch unselected at x = 0, where the derivative of `jnp.log` is not finite"),
    # ... a range, in the variable the argument is affine in ...
    ("jnp.where(x > 2, jnp.sqrt(x - 1), 0.0)", "high", "`x > 2` leaves the true branch unselected for x <= 1, where the derivative of `jnp.sqrt` is not finite"),
    # ... an overflow's range.
    ("jnp.where(x < 0, jnp.exp(x), x)", "high", "`x < 0` leaves the true branch unselected for 88.72 < x, where the derivative of `jnp.exp` is not finite"),
    # Wherever the branch is not selected the argument is at the pole, whatever the other data.
    ("jnp.where(jnp.all(k == 0), 0.0, 1.0 / jnp.sum(k * k))", "high", "where `jnp.all(k == 0)` leaves the false branch unselected, jnp.sum(k * k) = 0 holds: the op's pole"),
    # A comparison of two values is one of their difference, parenthesized or not.
    ("jnp.where(k != n, t / (k - n), 0.0)", "high", "`k != n` leaves the true branch unselected at k - n = 0, where the derivative of `/` is not finite"),
    # An integer power of the compared value is 0 only where the value is (point 166).
    ("jnp.where(x > 1e-6, (1.0 - jnp.cos(x)) / x**2, 0.5)", "high", "`x > 1e-6` leaves the true branch unselected at x = 0, where the derivative of `/` is not finite"),
    ("jnp.where(jnp.abs(x) > 1e-6, 1.0 / jnp.square(x), 0.0)", "high", "`jnp.abs(x) > 1e-6` leaves the true branch unselected at x = 0, where the derivative of `/` is not finite"),
    # The absolute value of a difference is compared with the divisor's parentheses aside (point 170).
    ("jnp.where(jnp.abs(x - n) < 1e-6, 0.0, 1.0 / (x - n))", "high", "`jnp.abs(x - n) < 1e-6` leaves the false branch unselected at x - n = 0, where the derivative of `/` is not finite"),
    # A chained comparison is an `and` of its links.
    ("jnp.where(0 < x < 1, jnp.log(x), 0.0)", "high", "`0 < x < 1` leaves the true branch unselected at x = 0, where the derivative of `jnp.log` is not finite"),
    # Where an `and` holds, each side holds, whatever the other is about (point 167).
    ("jnp.where((n == 0) & (x == 0), 0.0, n / x)", "high", "`(n == 0) & (x == 0)` leaves the false branch unselected at x = 0, where the derivative of `/` is not finite"),
    ("jnp.where(jnp.logical_and(t > 0, x == 0), 0.0, n / x)", "high", "`jnp.logical_and(t > 0, x == 0)` leaves the false branch unselected at x = 0, where the derivative of `/` is not finite"),
    # ... but an `and` that may also leave it unselected off the pole, with the pole only where the
    # other side holds too, proves nothing.
    ("jnp.where(jnp.logical_and(t > 0, x < 1e-6), 0.0, n / x)", "medium", "nanlint cannot tell whether x = 0 can hold where `jnp.logical_and(t > 0, x < 1e-6)` leaves the false branch unselected (medium confidence)"),
    # A power by an exponent not read: the condition leaves 0 unselected, the exponent decides the pole.
    ("jnp.where(x > 1, x ** p, 0.0)", "medium", "where `x > 1` leaves the true branch unselected, `**` would be at its pole, but whether it has one depends on an exponent nanlint cannot read (medium confidence)"),
    # The condition is about something the argument is computed from, not the argument's values.
    ("jnp.where(n * t > 0, jnp.log(n), 0.0)", "medium", "nanlint cannot tell whether n = 0 can hold where `n * t > 0` leaves the true branch unselected (medium confidence)"),
]


# A condition on the op's own value, held by the local the branch reads: ||v|| = 0 only at v = 0, so
# `n == 0` (or `n > 1e-6`) leaves the norm unselected at its pole. Through a helper that returns the
# op too (an op out of sight is reported only so); not one that returns more than it, nor a
# threshold nanlint cannot read.
VALUE_TESTS = [
    ("n = jnp.linalg.norm(v, axis=-1)", "jnp.where(n == 0.0, 1.0, jnp.sin(n) * c)", "high", "`n == 0.0` leaves the false branch unselected at n = 0, where the derivative of `jnp.linalg.norm` is not finite"),
    ("n = _norm(v)", "jnp.where(n > 1e-6, n * c, 0.0)", "high", "`n > 1e-6` leaves the true branch unselected at n = 0, where the derivative of `_norm` is not finite"),
    ("n = jnp.linalg.norm(v, axis=-1)", "jnp.where(n > c, n * 2.0, 0.0)", "medium", None),
    ("n = jnp.linalg.norm(v, axis=-1) + 1.0", "jnp.where(n > 1.0, n * 2.0, 0.0)", "medium", None),
    ("n = _norm_plus_one(v)", "jnp.where(n > 1.0, n * 2.0, 0.0)", None, None),
    # Where the branch is not selected, n > 1: away from the norm's pole (and from sqrt's, whose
    # value is NaN below its domain, where `r > 1` is false and takes the branch).
    ("n = jnp.linalg.norm(v, axis=-1)", "jnp.where(n > 1.0, 0.0, n * 2.0)", None, None),
    ("n = jnp.sqrt(jnp.sum(v * v) + c)", "jnp.where(n > 1.0, 0.0, n * 2.0)", None, None),
]


@pytest.mark.parametrize(("local", "select", "confidence", "note"), VALUE_TESTS)
def test_a_condition_on_the_ops_own_value_is_read_at_the_value_of_its_pole(local, select, confidence, note) -> None:
    helpers = "def _norm(v):\n    return jnp.linalg.norm(v, axis=-1)\ndef _norm_plus_one(v):\n    return jnp.linalg.norm(v, axis=-1) + 1.0\n"
    source = f"import jax.numpy as jnp\n{helpers}def f(v, c):\n    {local}\n    return {select}\n"
    found = [d for d in Checker(Settings()).check_source(source, "m.py").diagnostics]
    assert [d.confidence.value for d in found] == ([confidence] if confidence else [])
    if note is not None:
        assert note in [r.message for r in found[0].related]


@pytest.mark.parametrize(("select", "confidence", "note"), EVIDENCE_NOTES)
def test_a_where_finding_says_why_its_condition_leaves_the_pole_unselected(select, confidence, note) -> None:
    source = f"import jax.numpy as jnp\ndef f(x, k, n, p, t):\n    return {select}\n"
    (finding,) = Checker(Settings()).check_source(source, "m.py").diagnostics
    assert finding.confidence.value == confidence
    assert [(r.location.row, r.location.column, r.message) for r in finding.related] == [(3, 22, note)]


@pytest.mark.parametrize(
    "select",
    [
        # Where `x > 1` leaves the branch unselected, x**3 > 1: no pole.
        "jnp.where(x > 1, 0.0, 1.0 / x**3)",
        # The `and` holds only where x > 1, whatever `t` is: the division is selected at x = 0.
        "jnp.where((t > 0) & (x > 1), 0.0, n / x)",
    ],
)
def test_a_condition_that_leaves_the_branch_unselected_only_away_from_the_pole_is_a_guard(select) -> None:
    source = f"import jax.numpy as jnp\ndef f(x, n, t):\n    return {select}\n"
    assert Checker(Settings()).check_source(source, "m.py").diagnostics == []


def test_an_op_no_gradient_reaches_says_its_value_is_the_derivative_of_its_factor() -> None:
    # `u` is a random draw: log(u) receives no cotangent, but it is the derivative of `w` (point 159).
    source = "import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = jax.random.uniform(key, w.shape)\n    return jnp.where(u > 0.5, jnp.log(u) * w, 0.0)\n"
    (finding,) = Checker(Settings()).check_source(source, "m.py").diagnostics
    assert finding.code == "NAN001" and finding.confidence.value == "high"
    assert finding.message.endswith("no gradient reaches `u`, but the logarithm is not finite at u = 0, and the derivative of `w` is made of its value")
    assert [r.message for r in finding.related] == ["`u > 0.5` leaves the true branch unselected at u = 0, where the value of `jnp.log` is not finite"]


def test_a_nan_placeholder_a_later_select_may_drop_is_said_to_be_uncertain() -> None:
    source = "import jax.numpy as jnp\ndef f(x, d):\n    u = jnp.where(x <= 0, jnp.nan, jnp.log(x))\n    return jnp.where(d, 0.0, u)\n"
    (finding,) = Checker(Settings()).check_source(source, "m.py").diagnostics
    assert finding.confidence.value == "medium"
    assert [r.message for r in finding.related] == [
        "the other branch is NaN; nanlint cannot tell whether a later select leaves that NaN out of the result (medium confidence)"
    ]


def test_a_medium_finding_without_a_condition_or_with_an_undecided_factor_says_it_cannot_tell() -> None:
    default = "import jax.numpy as jnp\ndef f(nu, v):\n    return jnp.select([nu == 1, v > 0], [1.0, 2.0], default=jnp.log(nu))\n"
    (finding,) = Checker(Settings()).check_source(default, "m.py").diagnostics
    assert finding.confidence.value == "medium"
    assert [(r.location.row, r.location.column, r.message) for r in finding.related] == [
        (3, 12, "nanlint cannot tell whether nu = 0 can hold where the default branch is not selected (medium confidence)")
    ]
    undecided = (
        "import jax.numpy as jnp\ndef f(x, c, d, s):\n    y = jnp.where(c, x, jnp.nan)\n"
        "    return jnp.where(d, 0.0, s * y)\n"
    )
    notes = [r.message for f in Checker(Settings()).check_source(undecided, "m.py").diagnostics if f.confidence.value == "medium" for r in f.related]
    assert "nanlint cannot tell whether the factor is NaN or infinite where `d` leaves the false branch unselected (medium confidence)" in notes


def test_a_nested_select_or_a_nonfinite_factor_gets_no_second_explanation() -> None:
    """The nested select's note already says where the enclosing condition leaves the op at its pole;
    a NaN factor's derivative is non-finite at every value, as the message says."""
    nested = "import jax.numpy as jnp\ndef f(x, c):\n    return jnp.where(x > 0, jnp.where(c, jnp.log(x), 1.0), 0.0)\n"
    factor = "import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, 0.0, jnp.nan * x)\n"
    (inner,) = Checker(Settings()).check_source(nested, "m.py").diagnostics
    assert [r.message for r in inner.related] == [
        "the `jnp.where` on line 3 encloses the select that holds it; where `x > 0` leaves its true branch unselected, the op is at its pole"
    ]
    (product,) = Checker(Settings()).check_source(factor, "m.py").diagnostics
    assert product.confidence.value == "high" and product.related == []


def test_a_comparison_with_an_empty_tuple_is_read_without_error() -> None:
    """Reading `s == ()` as a difference once stripped the tuple's parentheses, which libcst refuses:
    the file's findings were lost to an internal error."""
    source = "import torch\ndef f(x, s):\n    assert s == ()\n    return torch.where(x > 0, torch.log(x), 0.0)\n"
    result = Checker(Settings()).check_source(source, "m.py")
    assert result.error is None
    assert [(d.location.row, d.code) for d in result.diagnostics] == [(4, "NAN001")]
