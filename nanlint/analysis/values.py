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

import ast

from nanlint.catalog.tables import BOUNDED_BELOW_FUNCTIONS, BOUNDED_BELOW_METHODS, CONSTANT_NAME, METADATA_ATTRS
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.limits import MAX_DEPTH
from nanlint.analysis.names import Binding, leaf_name
from nanlint.analysis.syntax import call_arguments, is_number, is_string

_CONSTANT_ATTRS = {"pi": math.pi, "e": math.e, "inf": INF, "tau": math.tau}
# Names that say "a small positive number added to keep away from the pole".
EPSILON_NAME = re.compile(r"(?i)^_?(\w+_)?(eps|epsilon|tiny|tol|jitter|smooth(ing)?|stabili[sz]er|min_\w+|\w+_min)$")


class Env(Protocol):
    """What the value questions need from the detector: bindings and qualified names here."""

    def binding(self, name: ast.Name) -> Optional[Binding]: ...

    def qualified(self, node: ast.AST) -> Optional[str]: ...

    def code(self, node: ast.AST) -> str: ...


def constant_value(node: ast.expr, env: Env, depth: int = 0) -> Optional[float]:
    if depth > MAX_DEPTH:
        return None
    if is_number(node):
        return float(node.value)
    if isinstance(node, ast.UnaryOp):
        inner = constant_value(node.operand, env, depth + 1)
        if inner is None:
            return None
        if isinstance(node.op, ast.USub):
            return -inner
        return inner if isinstance(node.op, ast.UAdd) else None
    if isinstance(node, ast.BinOp):
        left = constant_value(node.left, env, depth + 1)
        right = constant_value(node.right, env, depth + 1)
        if left is None or right is None:
            return None
        try:
            return _ARITHMETIC[type(node.op)](left, right)
        except (KeyError, ZeroDivisionError, OverflowError, ValueError):
            return None
    if isinstance(node, ast.Name):
        binding = env.binding(node)
        if binding is not None and binding.value is not None and binding.imported is None:
            return constant_value(binding.value, env, depth + 1)
        return None
    if isinstance(node, ast.Attribute) and env.qualified(node) is not None:
        return _CONSTANT_ATTRS.get(node.attr)
    return None


_ARITHMETIC = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: float(a**b),
}


def depends_on_data(node: ast.expr, env: Env, depth: int = 0) -> bool:
    """False only when the value is the same on every run: literals, constants, calls on them."""
    if depth > MAX_DEPTH:
        return True
    if isinstance(node, ast.Constant):
        return node.value is Ellipsis  # a literal never depends on data; `...` is no literal value
    if is_string(node):
        return False
    if isinstance(node, ast.Name):
        binding = env.binding(node)
        if binding is None:
            return not CONSTANT_NAME.match(node.id)
        if binding.imported is not None:
            return False
        if binding.value is not None:
            return depends_on_data(binding.value, env, depth + 1)
        return not CONSTANT_NAME.match(node.id)
    if isinstance(node, ast.Attribute):
        if env.qualified(node) is not None or CONSTANT_NAME.match(node.attr) or node.attr in METADATA_ATTRS:
            return False
        return True
    if isinstance(node, ast.Call):
        args_depend = any(depends_on_data(arg, env, depth + 1) for arg in call_arguments(node))
        if env.qualified(node.func) is not None:
            return args_depend
        if isinstance(node.func, ast.Attribute):
            # A method: its receiver carries the data (`x.sum()`).
            return args_depend or depends_on_data(node.func.value, env, depth + 1)
        return True
    if isinstance(node, ast.UnaryOp):
        return depends_on_data(node.operand, env, depth + 1)
    if isinstance(node, ast.BinOp):
        return depends_on_data(node.left, env, depth + 1) or depends_on_data(node.right, env, depth + 1)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(depends_on_data(el, env, depth + 1) for el in node.elts)
    if isinstance(node, ast.Subscript):
        return depends_on_data(node.value, env, depth + 1)
    return True


def value_range(node: ast.expr, env: Env, depth: int = 0) -> Interval:
    """A hull of the values `node` can take; (-inf, inf) when nothing is known."""
    unknown = Interval(-INF, INF, False, False)
    if depth > MAX_DEPTH:
        return unknown
    value = constant_value(node, env, depth)
    if value is not None:
        return Interval(value, value)
    if isinstance(node, ast.Name):
        binding = env.binding(node)
        if binding is not None and binding.value is not None and binding.imported is None:
            return value_range(binding.value, env, depth + 1)
        return unknown
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = value_range(node.operand, env, depth + 1)
        return Interval(-inner.hi, -inner.lo, inner.hi_closed, inner.lo_closed)
    if isinstance(node, ast.BinOp):
        return _binary_range(node, env, depth)
    if isinstance(node, ast.Call):
        bound = _bounded_below_call(node, env)
        if bound is not None:
            return Interval(bound[0], INF, bound[1], False)
        name = env.qualified(node.func) or ""
        arguments = call_arguments(node)
        if name.rsplit(".", 1)[-1] in ("power", "pow") and len(arguments) >= 2:
            return _power_range(arguments[0], arguments[1], env, depth)
    return unknown


def _bounded_below_call(node: ast.Call, env: Env) -> Optional[tuple[float, bool]]:
    qualified = env.qualified(node.func)
    if qualified is not None:
        return BOUNDED_BELOW_FUNCTIONS.get(qualified)
    if isinstance(node.func, ast.Attribute) and not node.args and not node.keywords:
        return BOUNDED_BELOW_METHODS.get(node.func.attr)
    return None


def _binary_range(node: ast.BinOp, env: Env, depth: int) -> Interval:
    unknown = Interval(-INF, INF, False, False)
    op = node.op
    if isinstance(op, ast.Pow):
        return _power_range(node.left, node.right, env, depth)
    if isinstance(op, ast.Mult) and env.code(node.left) == env.code(node.right):
        return Interval(0.0, INF, True, False)  # x * x
    left = value_range(node.left, env, depth + 1)
    right = value_range(node.right, env, depth + 1)
    if isinstance(op, ast.Add):
        return _add(left, right)
    if isinstance(op, ast.Sub):
        return _add(left, Interval(-right.hi, -right.lo, right.hi_closed, right.lo_closed))
    if isinstance(op, ast.Mult) and left.lo >= 0 and right.lo >= 0:
        return Interval(left.lo * right.lo, _mul(left.hi, right.hi), left.lo_closed and right.lo_closed, False)
    return unknown


def _power_range(base: ast.expr, exponent: ast.expr, env: Env, depth: int) -> Interval:
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


def can_reach(node: ast.expr, domain: IntervalSet, env: Env) -> bool:
    """Whether the argument's values can fall in an op's leak domain."""
    reach = value_range(node, env)
    if math.isnan(reach.lo) or math.isnan(reach.hi):
        return True
    return not IntervalSet.of(reach).intersect(domain).is_empty()


def is_epsilon_shifted(node: ast.expr, env: Env) -> bool:
    """`x + 1e-8`, `x + eps`: the author moved the argument off the pole on purpose."""
    if not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add)):
        return False
    return _is_epsilon(node.left, env) or _is_epsilon(node.right, env)


def _is_epsilon(node: ast.expr, env: Env) -> bool:
    value = constant_value(node, env)
    if value is not None:
        return value > 0
    if isinstance(node, ast.Name):
        return bool(EPSILON_NAME.match(node.id))
    if isinstance(node, ast.Attribute):
        return bool(EPSILON_NAME.match(node.attr))
    if isinstance(node, ast.Call) and not node.args and not node.keywords:
        return bool(EPSILON_NAME.match(leaf_name(node.func) or ""))  # backend.epsilon()
    return False
