"""What can be known about an expression's value without running it.

Three questions the detector asks about a singular op's argument:
- `constant_value`: is it a literal number (the exponent of `x ** 0.5`)?
- `depends_on_data`: can it change with the program's inputs (`jnp.log(2.0)` cannot)?
- `value_range`: which values can it take (`x**2 + 1e-6` never reaches sqrt's pole)?
"""

from __future__ import annotations

import math
import re
from typing import Optional, Protocol

import libcst as cst

from nanlint.analysis.names import Binding, leaf_name
from nanlint.analysis.syntax import arguments, is_number, is_string, number
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.catalog.tables import BOUNDED_BELOW_FUNCTIONS, BOUNDED_BELOW_METHODS, CONSTANT_NAME, METADATA_ATTRS
from nanlint.limits import MAX_DEPTH

_CONSTANT_ATTRS = {"pi": math.pi, "e": math.e, "inf": INF, "tau": math.tau}
# Python's own constants: libcst reads them as names.
_LITERAL_NAMES = frozenset({"True", "False", "None"})
# Names that say "a small positive number added to keep away from the pole".
EPSILON_NAME = re.compile(r"(?i)^_?(\w+_)?(eps|epsilon|tiny|tol|jitter|smooth(ing)?|stabili[sz]er|min_\w+|\w+_min)$")


class Env(Protocol):
    """What the value questions need from the detector: bindings and qualified names here."""

    def binding(self, name: cst.Name) -> Optional[Binding]: ...

    def qualified(self, node: cst.CSTNode) -> Optional[str]: ...

    def code(self, node: cst.CSTNode) -> str: ...


def constant_value(node: cst.BaseExpression, env: Env, depth: int = 0) -> Optional[float]:
    if depth > MAX_DEPTH:
        return None
    if is_number(node):
        return number(node)
    if isinstance(node, cst.UnaryOperation):
        inner = constant_value(node.expression, env, depth + 1)
        if inner is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -inner
        return inner if isinstance(node.operator, cst.Plus) else None
    if isinstance(node, cst.BinaryOperation):
        left = constant_value(node.left, env, depth + 1)
        right = constant_value(node.right, env, depth + 1)
        if left is None or right is None:
            return None
        try:
            return _ARITHMETIC[type(node.operator)](left, right)
        except (KeyError, ZeroDivisionError, OverflowError, ValueError):
            return None
    if isinstance(node, cst.Name):
        binding = env.binding(node)
        if binding is not None and binding.value is not None and binding.imported is None:
            return constant_value(binding.value, env, depth + 1)
        return None
    if isinstance(node, cst.Attribute) and env.qualified(node) is not None:
        return _CONSTANT_ATTRS.get(node.attr.value)
    return None


_ARITHMETIC = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b,
    cst.Power: lambda a, b: float(a**b),
}


def depends_on_data(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """False only when the value is the same on every run: literals, constants, calls on them."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)) or is_string(node):
        return False
    if isinstance(node, cst.Ellipsis):
        return True  # `...` is no literal value
    if isinstance(node, cst.Name):
        if node.value in _LITERAL_NAMES:
            return False
        binding = env.binding(node)
        if binding is None:
            return not CONSTANT_NAME.match(node.value)
        if binding.imported is not None:
            return False
        if binding.value is not None:
            return depends_on_data(binding.value, env, depth + 1)
        return not CONSTANT_NAME.match(node.value)
    if isinstance(node, cst.Attribute):
        attr = node.attr.value
        return not (env.qualified(node) is not None or CONSTANT_NAME.match(attr) or attr in METADATA_ATTRS)
    if isinstance(node, cst.Call):
        args_depend = any(depends_on_data(arg, env, depth + 1) for arg in arguments(node))
        if env.qualified(node.func) is not None:
            return args_depend
        if isinstance(node.func, cst.Attribute):
            # A method: its receiver carries the data (`x.sum()`).
            return args_depend or depends_on_data(node.func.value, env, depth + 1)
        return True
    if isinstance(node, cst.UnaryOperation):
        return depends_on_data(node.expression, env, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return depends_on_data(node.left, env, depth + 1) or depends_on_data(node.right, env, depth + 1)
    if isinstance(node, (cst.Tuple, cst.List)):
        return any(depends_on_data(element.value, env, depth + 1) for element in node.elements)
    if isinstance(node, cst.Subscript):
        return depends_on_data(node.value, env, depth + 1)
    return True


def value_range(node: cst.BaseExpression, env: Env, depth: int = 0) -> Interval:
    """A hull of the values `node` can take; (-inf, inf) when nothing is known."""
    unknown = Interval(-INF, INF, False, False)
    if depth > MAX_DEPTH:
        return unknown
    value = constant_value(node, env, depth)
    if value is not None:
        return Interval(value, value)
    if isinstance(node, cst.Name):
        binding = env.binding(node)
        if binding is not None and binding.value is not None and binding.imported is None:
            return value_range(binding.value, env, depth + 1)
        return unknown
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        inner = value_range(node.expression, env, depth + 1)
        return Interval(-inner.hi, -inner.lo, inner.hi_closed, inner.lo_closed)
    if isinstance(node, cst.BinaryOperation):
        return _binary_range(node, env, depth)
    if isinstance(node, cst.Call):
        bound = _bounded_below_call(node, env)
        if bound is not None:
            return Interval(bound[0], INF, bound[1], False)
        name = env.qualified(node.func) or ""
        values = arguments(node)
        if name.rsplit(".", 1)[-1] in ("power", "pow") and len(values) >= 2:
            return _power_range(values[0], values[1], env, depth)
    return unknown


def _bounded_below_call(node: cst.Call, env: Env) -> Optional[tuple[float, bool]]:
    qualified = env.qualified(node.func)
    if qualified is not None:
        return BOUNDED_BELOW_FUNCTIONS.get(qualified)
    if isinstance(node.func, cst.Attribute) and not node.args:
        return BOUNDED_BELOW_METHODS.get(node.func.attr.value)
    return None


def _binary_range(node: cst.BinaryOperation, env: Env, depth: int) -> Interval:
    unknown = Interval(-INF, INF, False, False)
    op = node.operator
    if isinstance(op, cst.Power):
        return _power_range(node.left, node.right, env, depth)
    if isinstance(op, cst.Multiply) and env.code(node.left) == env.code(node.right):
        return Interval(0.0, INF, True, False)  # x * x
    left = value_range(node.left, env, depth + 1)
    right = value_range(node.right, env, depth + 1)
    if isinstance(op, cst.Add):
        return _add(left, right)
    if isinstance(op, cst.Subtract):
        return _add(left, Interval(-right.hi, -right.lo, right.hi_closed, right.lo_closed))
    if isinstance(op, cst.Multiply) and left.lo >= 0 and right.lo >= 0:
        return Interval(left.lo * right.lo, _mul(left.hi, right.hi), left.lo_closed and right.lo_closed, False)
    return unknown


def _power_range(base: cst.BaseExpression, exponent: cst.BaseExpression, env: Env, depth: int) -> Interval:
    p = constant_value(exponent, env, depth + 1)
    if p is not None and float(p).is_integer() and p % 2 == 0 and p > 0:
        return Interval(0.0, INF, True, False)  # x**2
    base_range = value_range(base, env, depth + 1)
    if p is not None and p > 0 and base_range.lo > 0:
        return Interval(0.0, INF, False, False)
    return Interval(-INF, INF, False, False)


def _add(a: Interval, b: Interval) -> Interval:
    return Interval(a.lo + b.lo, a.hi + b.hi, a.lo_closed and b.lo_closed, a.hi_closed and b.hi_closed)


def _mul(a: float, b: float) -> float:
    return INF if INF in (a, b) else a * b


def can_reach(node: cst.BaseExpression, domain: IntervalSet, env: Env) -> bool:
    """Whether the argument's values can fall in an op's leak domain."""
    reach = value_range(node, env)
    if math.isnan(reach.lo) or math.isnan(reach.hi):
        return True
    return not IntervalSet.of(reach).intersect(domain).is_empty()


def is_epsilon_shifted(node: cst.BaseExpression, env: Env) -> bool:
    """`x + 1e-8`, `x + eps`: the author moved the argument off the pole on purpose."""
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return False
    return _is_epsilon(node.left, env) or _is_epsilon(node.right, env)


def _is_epsilon(node: cst.BaseExpression, env: Env) -> bool:
    value = constant_value(node, env)
    if value is not None:
        return value > 0
    if isinstance(node, cst.Name):
        return bool(EPSILON_NAME.match(node.value))
    if isinstance(node, cst.Attribute):
        return bool(EPSILON_NAME.match(node.attr.value))
    if isinstance(node, cst.Call) and not node.args:
        return bool(EPSILON_NAME.match(leaf_name(node.func) or ""))  # backend.epsilon()
    return False
