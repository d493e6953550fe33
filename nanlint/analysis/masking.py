"""NaN masks after the fact (NAN201): `where(isnan(v), 0, v)`, `nan_to_num(v)`, `multiply_no_nan(v, m)`.

A mask makes the value finite, not its gradient: reverse-mode autodiff sends the masked elements a zero
cotangent, and that zero flows back into the computation that made them non-finite, whose derivative
there is infinite or NaN; 0 * inf is NaN. So a mask is reported when the value it hides comes, in the
same function (directly or through locals), from computation that can turn finite inputs non-finite
(the producer):
- a singular op of the catalog that nothing keeps from where its value is not finite (`log(p)` at
  p = 0, `a / b` at b = 0, `sqrt(x)` below 0 but not at 0, where its value is finite: a mask hides
  values, and an op whose value is always finite, `cbrt`, makes none to hide);
- a framework function nanlint cannot see into (`F.cross_entropy(logits, y)`), unless the catalog
  knows it only passes a NaN through (`mean`, `reshape`, `tanh`; `NAN_PRESERVING`).
The way back from the mask follows locals, arithmetic, subscripts, selects and framework calls, and
ends at the function's inputs (parameters, attributes, module names), at calls of user code, and at
what carries no gradient: a barrier (`stop_gradient`, `.detach()`), a comparison, an index or integer
result, a constant shaped like its input (`NON_DIFFERENTIABLE`), a cast to an integer dtype. A mask
of a value that only comes from inputs masks data: that is the remedy, not the bug.

The detector calls `mask_sites` with itself; this module reads it through its methods only (the
detector imports this module).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Iterator, Optional

import libcst as cst

from nanlint.analysis.sites import GuardVerdict, LeakSite, MaskSite, OpUse, SiteKind
from nanlint.analysis.syntax import argument_at, arguments, keyword_value, number_literal, positional
from nanlint.analysis.tree import bare_code
from nanlint.analysis.values import carries_gradient, constant_value, is_gradient_leaf, is_integer_cast
from nanlint.catalog.intervals import INF, IntervalSet
from nanlint.catalog.tables import (
    BARRIER_METHODS,
    CASTS,
    CONFIGURATION_KEYWORDS,
    NAN_PRESERVING,
    NON_DIFFERENTIABLE,
    framework_of,
    power_domain,
)
from nanlint.limits import MAX_INDIRECTION, MAX_WAY

if TYPE_CHECKING:
    from nanlint.analysis.detector import Detector, _Env
    from nanlint.analysis.names import Scope

# How NaN tests combine in a condition: negations flip what a test selects, the others keep it.
_NEGATIONS = frozenset({"logical_not"})
_COMBINATIONS = frozenset({"logical_and", "logical_or", "any", "all", "reduce_any", "reduce_all"})
# What can be compared without parentheses: `x - 1 > 0` reads as meant.
_OPERANDS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BinaryOperation, cst.Integer, cst.Float)
# Calls that make a tensor of their first argument; the others are its dtype or its shape.
_CONSTRUCTORS = frozenset({"convert_to_tensor", "asarray", "as_tensor", "array", "constant"})


def mask_sites(detector: "Detector", make_env: Callable[["Detector", "Scope", int], "_Env"], found: list[LeakSite]) -> list[MaskSite]:
    """Every NaN mask after the fact among the calls the detector indexed; `found`: the other rules'
    sites, to link a mask to the finding on its producer."""
    sites = []
    reader = _Masks(detector)
    for call, scope in detector.index.calls:
        env = make_env(detector, scope, detector.place(call))
        mask = reader.read(call, env)
        if mask is None or detector.excluded(call):
            continue
        display, framework, method_form, test, value, removed = mask
        producers = _Way(detector, scope).producers(value, env)
        if not producers:
            continue
        node, use, domain = next((p for p in producers if p[1] is not None), producers[0])
        linked = next((s for s in found if use is not None and s.use.node is node), None)
        others = tuple(p[0] for p in producers if p[0] is not node)
        sites.append(
            MaskSite(
                SiteKind.NAN_MASK, call, display, (use.framework if use else "") or framework, method_form, test, value, node,
                use=use, domain=domain, others=others, removed_test=removed, linked=linked, scope=scope,
            )
        )
    return sites


def masked_value(detector: "Detector", call: cst.Call, env: "_Env", resolved) -> Optional[cst.BaseExpression]:
    """The branch a where keeps where its own value is finite, when the where is a NaN mask
    (`where(isnan(v), 0, v)`): that branch's leaks are NAN201's, not a branch rule's."""
    found = _Masks(detector).where_mask(call, env, resolved)
    return found[4] if found is not None else None


def nan_masked_value(detector: "Detector", call: cst.Call, env: "_Env") -> Optional[cst.BaseExpression]:
    """The value a NaN mask of either kind makes finite (`v` in `nan_to_num(v)` or in
    `where(isnan(v), 0, v)`), when the call is one."""
    found = _Masks(detector).read(call, env)
    return found[4] if found is not None else None


def replaced_value(detector: "Detector", call: cst.Call, env: "_Env") -> Optional[cst.BaseExpression]:
    """The value a NaN replacement makes finite (`v` in `nan_to_num(v)`), when the call is one."""
    found = _Masks(detector).replacement(call, env)
    return found[4] if found is not None else None


class _Masks:
    """What a call masks, if it is a NaN mask: (display, framework, method form, test, value, the
    test's removed TensorFlow spelling)."""

    def __init__(self, detector: "Detector") -> None:
        self.detector = detector
        self.catalog = detector.catalog

    def read(self, call: cst.Call, env: "_Env"):
        resolved = self.detector._resolve_select(call, env)
        return self.where_mask(call, env, resolved) if resolved is not None else self.replacement(call, env)

    def where_mask(self, call: cst.Call, env: "_Env", resolved):
        detector = self.detector
        select_fn, framework, method_form = resolved
        branches = detector._branches(call, select_fn, method_form) if select_fn.kind == "where" else []
        if not branches:
            return None
        true, false = branches
        for tested, test, finite_where_true, removed in self._tests(true.cond, env, True):
            kept, other = (true, false) if finite_where_true else (false, true)
            if bare_code(tested, detector.code) == bare_code(kept.expr, detector.code) and not self._nonfinite(other.expr, env):
                if not any(node is call for node in detector.index.ancestors(test)):
                    test = true.cond  # the test is a local's value (`bad = isnan(loss)`): report the where's condition
                return detector._display(call, method_form), framework, method_form, test, kept.expr, removed
        return None

    def _nonfinite(self, node: cst.BaseExpression, env: "_Env") -> bool:
        """A replacement that is not finite either (`jnp.nan`, `-np.inf`, `dtype(-np.inf)`): no mask of
        the kind users trust, which makes a value finite."""
        if isinstance(node, cst.Call) and len(node.args) == 1:
            node = node.args[0].value  # a cast of the constant
        return self.detector._nonfinite_constant(node, env)

    def _entry(self, call: cst.Call, env: "_Env", function, method_entry):
        """The catalog entry a call is, as a function (`jnp.isnan(v)`) or a tensor method (`v.isnan()`):
        (entry and framework, or None; the method's name, or None; the qualified name)."""
        qualified = env.qualified(call.func)
        hit, method = function(qualified), None
        if hit is None and (method := self.detector._method(call, qualified, env)) is not None:
            hit = method_entry(method, self.detector.imported_frameworks)
        return hit, method, qualified

    def replacement(self, call: cst.Call, env: "_Env"):
        detector = self.detector
        hit, method, _ = self._entry(call, env, self.catalog.replacement, self.catalog.method_replacement)
        if hit is None:
            return None
        replacement, framework = hit
        receiver = call.func.value if method is not None else None
        value = argument_at(call, replacement.method_value if method is not None else replacement.value, receiver)
        fill = keyword_value(call, (replacement.fill,)) if replacement.fill else None
        if value is None or (fill is not None and self._nonfinite(fill, env)):
            return None
        display = f"Tensor.{method}" if method is not None else detector.code(call.func)
        return display, framework, method is not None, call, value, None

    def _tests(self, cond: cst.BaseExpression, env: "_Env", holds: bool, depth: int = 0) -> Iterator[tuple]:
        """The NaN tests in a condition: (tested value, test, whether the condition holds where the
        value is finite, the test's removed TensorFlow spelling). `holds`: the condition's polarity here."""
        if isinstance(cond, cst.UnaryOperation) and isinstance(cond.operator, (cst.BitInvert, cst.Not)):
            yield from self._tests(cond.expression, env, not holds, depth)
        elif isinstance(cond, (cst.BinaryOperation, cst.BooleanOperation)) and isinstance(cond.operator, (cst.BitAnd, cst.BitOr, cst.And, cst.Or)):
            yield from self._tests(cond.left, env, holds, depth)
            yield from self._tests(cond.right, env, holds, depth)
        elif isinstance(cond, cst.Comparison) and len(cond.comparisons) == 1:
            # `v != v` holds where v is NaN, `v == v` where it is not.
            target = cond.comparisons[0]
            if isinstance(target.operator, (cst.NotEqual, cst.Equal)) and bare_code(cond.left, self.detector.code) == bare_code(target.comparator, self.detector.code):
                yield cond.left, cond, isinstance(target.operator, cst.Equal) == holds, None
        elif isinstance(cond, cst.Call):
            yield from self._call_tests(cond, env, holds, depth)
        elif isinstance(cond, cst.Name) and depth < MAX_INDIRECTION:
            # `bad = tf.math.is_nan(loss)`, then `tf.where(bad, tf.zeros_like(loss), loss)`
            binding = env.binding(cond)
            if binding is not None and binding.value is not None and binding.imported is None and binding.place < env.place:
                yield from self._tests(binding.value, env.at(binding.place), holds, depth + 1)

    def _call_tests(self, call: cst.Call, env: "_Env", holds: bool, depth: int) -> Iterator[tuple]:
        detector = self.detector
        hit, method, qualified = self._entry(call, env, self.catalog.nan_test, self.catalog.method_nan_test)
        if hit is not None:
            values = positional(call)
            tested = call.func.value if method is not None else (values[0] if values else keyword_value(call, ("x", "input")))
            if tested is not None:
                removed = detector.code(call.func) if self.catalog.removed_in_tf2(qualified) else None
                yield tested, call, hit[0].true_where_finite == holds, removed
            return
        leaf = qualified.rsplit(".", 1)[-1] if qualified is not None else method
        inputs = arguments(call) + ([call.func.value] if method is not None else [])
        if leaf in _NEGATIONS or leaf in _COMBINATIONS:
            for value in inputs:
                yield from self._tests(value, env, holds != (leaf in _NEGATIONS), depth)


class _Way:
    """The way a value takes to its mask, walked back to the function's inputs. Each step answers
    whether the value may carry a gradient (some way from it reaches an input without a cut), and
    records the producers on the way whose inputs may: (node, its singular-op use or None for a
    framework function, the domain where its value is finite)."""

    def __init__(self, detector: "Detector", scope: "Scope") -> None:
        self.detector = detector
        self.catalog = detector.catalog
        self.scope = scope
        self.walked: dict[int, tuple[bool, list]] = {}  # binding -> whether its value may carry a gradient, its producers
        # (the order the walk reached it in: nearest the mask first, node, use, domain)
        self.found: list[tuple[int, cst.BaseExpression, Optional[OpUse], Optional[IntervalSet]]] = []
        self.steps = 0

    def producers(self, value: cst.BaseExpression, env: "_Env"):
        self._walk(value, env, 0)
        return [found[1:] for found in sorted(self.found, key=lambda f: f[0])]

    def _walk(self, node: cst.BaseExpression, env: "_Env", depth: int) -> bool:
        self.steps += 1
        if isinstance(node, cst.Name):
            return self._local(node, env, depth)
        if isinstance(node, cst.Subscript):
            return self._walk(node.value, env, depth)
        if isinstance(node, cst.UnaryOperation):
            return isinstance(node.operator, (cst.Minus, cst.Plus)) and self._walk(node.expression, env, depth)
        if isinstance(node, cst.BinaryOperation):
            return self._operator(node, env, depth)
        if isinstance(node, cst.IfExp):
            return self._any([node.body, node.orelse], env, depth)
        if isinstance(node, (cst.Tuple, cst.List)):
            return self._any([element.value for element in node.elements], env, depth)
        if isinstance(node, cst.Call):
            return self._call(node, env, depth)
        if isinstance(node, (cst.Comparison, cst.BooleanOperation, cst.Lambda)):
            return False
        return carries_gradient(node, env)  # an attribute is an input; a literal, a constant or a size is not

    def _any(self, nodes: list[cst.BaseExpression], env: "_Env", depth: int) -> bool:
        return any([self._walk(node, env, depth) for node in nodes])  # every one walked: each may hold a producer

    def _local(self, name: cst.Name, env: "_Env", depth: int) -> bool:
        """A local of this function assigned before: its value is on the way; any other name is an
        input (a parameter, a loop variable), unless it is a constant."""
        binding = env.binding(name)
        if (
            binding is None
            or binding.value is None
            or binding.imported is not None
            or binding.place >= env.place
            or not any(b is binding for b in self.scope.bindings.get(binding.name, ()))
            or depth >= MAX_WAY
        ):
            return carries_gradient(name, env)
        if id(binding) in self.walked:
            carries, found = self.walked[id(binding)]
            for entry in found:  # reached again, maybe by a way no guard is on
                self._add(*entry)
            return carries
        self.walked[id(binding)] = (True, [])  # while it is walked (a loop): it may
        before = len(self.found)
        carries = self._walk(binding.value, env.at(binding.place), depth + 1)
        self.walked[id(binding)] = (carries, self.found[before:])
        return carries

    def _operator(self, node: cst.BinaryOperation, env: "_Env", depth: int) -> bool:
        if isinstance(node.operator, (cst.BitAnd, cst.BitOr, cst.BitXor, cst.FloorDivide)):
            return False  # booleans and integer results carry no gradient
        reached = self.steps
        carries = self._any([node.left, node.right], env, depth)
        use = self.detector._operator_use(node, env, value_only=True)
        if use is not None and carries:
            self._produced_by(reached, node, use, env)
        return carries

    def _call(self, call: cst.Call, env: "_Env", depth: int) -> bool:
        detector, catalog = self.detector, self.catalog
        qualified = env.qualified(call.func)
        method = detector._method(call, qualified, env)
        leaf = method if method is not None else (qualified or "").rsplit(".", 1)[-1]
        if catalog.is_barrier(qualified) or method in BARRIER_METHODS or is_integer_cast(call, leaf):
            return False
        resolved = detector._resolve_select(call, env)
        if resolved is not None:
            return self._select(call, resolved, env, depth)
        if qualified is None and method is None:
            return True  # a call of user code: an input, as far as this function shows
        if (leaf in NON_DIFFERENTIABLE or ".random." in (qualified or "")) and not is_gradient_leaf(call, method):
            return False
        known = detector._op_applied(call, env) is not None or leaf in NAN_PRESERVING or catalog.replacement(qualified) is not None
        if method is not None and not (known or catalog.method_replacement(leaf, detector.imported_frameworks)):
            return True  # a method nanlint does not know: of user code, as far as it can tell
        if qualified is not None and framework_of(qualified) not in catalog.frameworks:
            return False  # plain NumPy, or a framework that is off: not differentiated
        reached = self.steps
        carries = self._any(_data(call, leaf, method is not None), env, depth)
        use = detector._call_use(call, env, value_only=True)
        if use is not None and carries:
            self._produced_by(reached, call, use, env)
        elif carries and qualified is not None and not (known or catalog.is_safe(qualified)):
            self._add(reached, call, None, None)  # a framework function nanlint cannot see into
        return carries

    def _select(self, call: cst.Call, resolved, env: "_Env", depth: int) -> bool:
        """Each branch; a branch whose condition keeps an op's pole unselected (the guard NAN001 and
        NAN002 judge) keeps that op's non-finite values out of the select's value."""
        carries = False
        for branch in self.detector._branches(call, resolved[0], resolved[2]):
            before = len(self.found)
            carries |= self._walk(branch.expr, env, depth)
            self.found[before:] = [f for f in self.found[before:] if f[2] is None or not self._guards(branch, f[2], env)]
        return carries

    def _guards(self, branch, use: OpUse, env: "_Env") -> bool:
        return branch.cond is not None and self.detector._guard_verdict(branch, use, env)[0] is GuardVerdict.LEAK

    def _produced_by(self, reached: int, node: cst.BaseExpression, use: OpUse, env: "_Env") -> None:
        self._add(reached, node, use, finite_domain(use, env))

    def _add(self, reached: int, node, use, domain) -> None:
        if all(node is not found[1] for found in self.found):
            self.found.append((reached, node, use, domain))


def _data(call: cst.Call, leaf: str, method: bool) -> list[cst.BaseExpression]:
    """What a call computes from: its arguments and a method's receiver, not its configuration
    (`dtype=`, `axis=`) and not the dtype a cast is given."""
    receiver = [call.func.value] if method else []
    if leaf in CASTS or leaf in _CONSTRUCTORS:
        return receiver or positional(call)[:1] or [v for v in (keyword_value(call, ("x", "value", "input", "a")),) if v is not None]
    return receiver + [arg.value for arg in call.args if arg.keyword is None or arg.keyword.value not in CONFIGURATION_KEYWORDS]


def domain_condition(arg: cst.BaseExpression, domain: Optional[IntervalSet]) -> Optional[cst.BaseExpression]:
    """A new condition that holds where `arg` lies in `domain`: `p > 0`, `n != 0`, `(x > -1) & (x < 1)`;
    None when one or two comparisons cannot say it (or `domain` is everything, or not stated)."""
    if domain is None or domain.is_empty():
        return None
    subject = arg if isinstance(arg, _OPERANDS) or arg.lpar else arg.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    gap = domain.complement()
    if len(gap.parts) == 1 and gap.parts[0].lo == gap.parts[0].hi:
        return _compare(subject, cst.NotEqual(), gap.parts[0].lo)
    if len(domain.parts) != 1:
        return None
    part = domain.parts[0]
    bounds = []
    if part.lo != -INF:
        bounds.append(_compare(subject, cst.GreaterThanEqual() if part.lo_closed else cst.GreaterThan(), part.lo))
    if part.hi != INF:
        bounds.append(_compare(subject, cst.LessThanEqual() if part.hi_closed else cst.LessThan(), part.hi))
    if len(bounds) == 2:
        left, right = (b.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()]) for b in bounds)
        return cst.BinaryOperation(left, cst.BitAnd(), right)
    return bounds[0] if bounds else None


def _compare(subject: cst.BaseExpression, operator, value: float) -> cst.Comparison:
    return cst.Comparison(subject.deep_clone(), [cst.ComparisonTarget(operator, number_literal(value, integral=True))])


def finite_domain(use: OpUse, env: "_Env") -> Optional[IntervalSet]:
    """Where the op's value is finite (a power's, by its constant exponent); None when not stated."""
    if use.op.exponent is None:
        return use.op.domain
    p = constant_value(use.exponent, env) if use.exponent is not None else None
    return power_domain(p) if p is not None else None
