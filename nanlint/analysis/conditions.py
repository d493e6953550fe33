"""What a where-condition selects, as a set of values of the guarded variable.

`x >= 0` selects [0, inf); against sqrt's leak domain (-inf, 0] that admits the pole at 0, which no
double where can fix. A condition held in a local (`small = x < eps`) selects what its expression
does. Conditions that say nothing certain about the variable give None.
"""

from __future__ import annotations

import functools
import math
from typing import Callable, NamedTuple, Optional

import libcst as cst

from nanlint.analysis.syntax import COMPARISON_SYMBOLS, arguments
from nanlint.analysis.tree import bare_code, walk
from nanlint.analysis.values import Env, assigned, constant_value, is_builtin, pinned_values, quotient_key, value_range
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.catalog.tables import ABSOLUTE_VALUES, COMPARISON_FUNCTIONS, NAN_TEST_LEAVES, TRUTH_REDUCTIONS
from nanlint.limits import CONDITION_HOPS

Selector = Callable[[float], IntervalSet]

_COMPARE: dict[type, Selector] = {
    cst.GreaterThan: lambda c: IntervalSet.above(c, closed=False),
    cst.GreaterThanEqual: lambda c: IntervalSet.above(c, closed=True),
    cst.LessThan: lambda c: IntervalSet.below(c, closed=False),
    cst.LessThanEqual: lambda c: IntervalSet.below(c, closed=True),
    cst.Equal: IntervalSet.point,
    cst.NotEqual: lambda c: IntervalSet.point(c).complement(),
}
# The same comparisons spelled as functions (jnp.greater, tf.math.less_equal, torch.gt, x.ge(0),
# MXNet's F.broadcast_lesser: the catalog's COMPARISON_FUNCTIONS), as the operators they compute.
_OPERATORS: dict[str, type] = {symbol: operator for operator, symbol in COMPARISON_SYMBOLS.items()}
_COMPARE_FUNCTIONS: dict[str, type] = {name: _OPERATORS[symbol] for name, symbol in COMPARISON_FUNCTIONS.items()}
_ORDERINGS = (cst.LessThan, cst.LessThanEqual, cst.GreaterThan, cst.GreaterThanEqual)
_MIRROR = {
    cst.GreaterThan: cst.LessThan,
    cst.GreaterThanEqual: cst.LessThanEqual,
    cst.LessThan: cst.GreaterThan,
    cst.LessThanEqual: cst.GreaterThanEqual,
    cst.Equal: cst.Equal,
    cst.NotEqual: cst.NotEqual,
}


class Region(NamedTuple):
    """What a condition says of one variable: `values`, the values for which it holds, as far as
    known; and whether all of where it holds lies in them (`if_true`), and all of where it does not
    outside them (`if_false`). An `or` with an unknown side (`(x < 1) | c`) knows only part of
    where it holds; its negation, only part of where it does not."""

    values: IntervalSet
    if_true: bool
    if_false: bool

    def negated(self) -> "Region":
        return Region(self.values.complement(), self.if_false, self.if_true)

    def at_most(self, holds: bool) -> Optional[IntervalSet]:
        """Values that hold every value of where the condition is `holds`, if certain."""
        if not (self.if_true if holds else self.if_false):
            return None
        return self.values if holds else self.values.complement()

    def at_least(self, holds: bool) -> Optional[IntervalSet]:
        """Values each of which makes the condition `holds`, if certain: where it does not hold, all
        of it lies outside `values`, so every value in them makes it hold (and the other way round)."""
        if not (self.if_false if holds else self.if_true):
            return None
        return self.values if holds else self.values.complement()


def selected_values(cond: cst.BaseExpression, var: str, env: Env) -> Optional[IntervalSet]:
    """The values of the expression whose source is `var` for which `cond` is true, as far as known
    (part of them, for an `or` with an unknown side: `region` says which way it is certain)."""
    found = region_of(cond, var, env)
    return found.values if found is not None else None


def region_of(cond: cst.BaseExpression, var: str, env: Env, hops: int = 0, partial: bool = False) -> Optional[Region]:
    """What `cond` says of the values of the expression whose source is `var`. With `partial`, also
    what an `and` with a side about something else says (`(n == 0) & (d == 0)` holds only at
    d = 0); without it, such an `and` says nothing: it is no bound on `var` alone (a regime)."""
    if isinstance(cond, cst.Name):
        value = condition_local(cond, env) if hops < CONDITION_HOPS else None
        return region_of(value[0], var, value[1], hops + 1, partial) if value is not None else None
    if isinstance(cond, cst.Comparison):
        return _comparison(cond, var, env)
    combined = and_or(cond, env)
    if combined is not None:
        # `&`, `|`, `logical_and` of truth arrays; `and`, `or` of Python truths (`assert p == 1 or p == 2`).
        conjunction, sides = combined
        left, right = (region_of(side, var, env, hops, partial) for side in sides)
        return _both(left, right, partial) if conjunction else _either(left, right)
    if isinstance(cond, cst.UnaryOperation) and isinstance(cond.operator, (cst.BitInvert, cst.Not)):
        inner = region_of(cond.expression, var, env, hops, partial)
        return inner.negated() if inner is not None else None
    if isinstance(cond, cst.Call):
        return _call(cond, var, env, hops, partial)
    return None


def _both(left: Optional[Region], right: Optional[Region], partial: bool) -> Optional[Region]:
    """`a & b`: known when both sides are; with `partial`, where it holds, a known side holds
    whatever the other says, but where it does not, the unknown side may be what fails (as
    `_either`, the other way round)."""
    if left is None or right is None:
        known = left or right
        return Region(known.values, known.if_true, False) if known is not None and partial else None
    return Region(left.values.intersect(right.values), left.if_true and right.if_true, left.if_false and right.if_false)


def _either(left: Optional[Region], right: Optional[Region]) -> Optional[Region]:
    """`a | b`: a known side is selected whatever the other says, but where the `or` holds the
    unknown side may be what holds."""
    if left is None or right is None:
        known = left or right
        return Region(known.values, False, known.if_false) if known is not None else None
    return Region(left.values.union(right.values), left.if_true and right.if_true, left.if_false and right.if_false)


def holds_at_nan(cond: cst.BaseExpression, var: str, env: Env) -> Optional[bool]:
    """Whether `cond` is true where the expression `var` is NaN, if certain: a comparison with NaN is
    false, except `!=`, which is true (`q != 0` holds where `q` is NaN; `q > 0` does not)."""
    return _truth(cond, env, lambda left, operator, right, here: _compared_at_nan(left, operator, right, var, here))


def decided_by_ranges(cond: cst.BaseExpression, env: Env) -> Optional[bool]:
    """Whether `cond` holds at every element (True) or at none (False), as the value ranges of what
    it compares say here: with an op's argument pinned at its pole (`Env.pinned`), `omq2 == 0` after
    `omq2 = 1 - q * q` is false where `q` is 0. None when the ranges do not tell."""
    return _truth(cond, env, _compared_by_ranges)


def _truth(cond: cst.BaseExpression, env: Env, compared: Callable, hops: int = 0) -> Optional[bool]:
    """A condition's truth, if certain, from what `compared(left, operator, right, env)` says of each
    comparison in it: through locals, `&`, `|`, `and`, `or`, negations, and their functions
    (`jnp.greater(x, 0)`, `logical_and(a, b)`)."""
    if isinstance(cond, cst.Name):
        value = condition_local(cond, env) if hops < CONDITION_HOPS else None
        return _truth(*value, compared, hops + 1) if value is not None else None
    if isinstance(cond, cst.Comparison):
        links = zip((cond.left, *(t.comparator for t in cond.comparisons)), cond.comparisons)
        return _all([compared(left, type(t.operator), t.comparator, env) for left, t in links])
    combined = and_or(cond, env)
    if combined is not None:
        conjunction, sides = combined
        return combined_truth(conjunction, [_truth(side, env, compared, hops) for side in sides])
    if isinstance(cond, cst.UnaryOperation) and isinstance(cond.operator, (cst.BitInvert, cst.Not)):
        inner = _truth(cond.expression, env, compared, hops)
        return None if inner is None else not inner
    if isinstance(cond, cst.Call) and (call := _operator_call(cond, env)) is not None:
        leaf, args = call
        if leaf in _COMPARE_FUNCTIONS and len(args) == 2:
            return compared(args[0], _COMPARE_FUNCTIONS[leaf], args[1], env)
        if leaf == "logical_not" and len(args) == 1 and (inner := _truth(args[0], env, compared, hops)) is not None:
            return not inner
    return None


def and_or(node: cst.BaseExpression, env: Env) -> Optional[tuple[bool, list[cst.BaseExpression]]]:
    """An `and` (True) or an `or` (False) of truth values, and its sides: `a & b`, `a and b`,
    `jnp.logical_and(a, b)`, torch's `a.logical_or(b)`; asked of a condition, whose sides are truth
    arrays, also `a * b` and `a + b`."""
    if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)) and isinstance(node.operator, _AND_OR):
        return isinstance(node.operator, (cst.BitAnd, cst.And, cst.Multiply)), [node.left, node.right]
    call = _operator_call(node, env) if isinstance(node, cst.Call) else None
    if call is not None and call[0] in ("logical_and", "logical_or") and len(call[1]) == 2:
        return call[0] == "logical_and", call[1]
    return None


def combined_truth(conjunction: bool, truths: list[Optional[bool]]) -> Optional[bool]:
    """An `and` is false if a side is, true if all are; an `or` the other way round."""
    return _all(truths) if conjunction else _any(truths)


# Truth arrays: `+` is an `or` and `*` an `and` (`mask + diag`, as a condition, is bool + bool).
_AND_OR = (cst.BitAnd, cst.BitOr, cst.And, cst.Or, cst.Add, cst.Multiply)
_NEGATED = {
    cst.LessThan: cst.GreaterThanEqual,
    cst.LessThanEqual: cst.GreaterThan,
    cst.GreaterThan: cst.LessThanEqual,
    cst.GreaterThanEqual: cst.LessThan,
    cst.Equal: cst.NotEqual,
    cst.NotEqual: cst.Equal,
}


def _compared_by_ranges(left, operator: type, right, env: Env) -> Optional[bool]:
    if operator not in _NEGATED or not (_arithmetic(left, env) and _arithmetic(right, env)):
        return None
    a, b = _closed(value_range(left, env)), _closed(value_range(right, env))
    if _always(a, operator, b):
        return True
    return False if _always(a, _NEGATED[operator], b) else None


def _arithmetic(node: cst.BaseExpression, env: Env, hops: int = 0) -> bool:
    """Numbers and names, and sums, differences, products and integer powers of them, through
    locals: finite where their inputs are. Anything else (`x2 / x1`, `exp(-q)`) may be inf or NaN
    at a pole, where ranges, which hold real numbers, would decide a comparison wrongly."""
    if isinstance(node, (cst.Integer, cst.Float)):
        return True
    if isinstance(node, cst.Name):
        if pinned_values(node, env) is not None:
            return True
        bindings = env.bindings(node)
        if all(b.parameter or b.imported is not None for b in bindings):
            return True  # an input (or a global): data, which ranges take as finite
        value = assigned(node, env) if hops < CONDITION_HOPS else None
        return value is not None and _arithmetic(value[0], value[1], hops + 1)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
        return _arithmetic(node.expression, env, hops)
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Power):
            exponent = constant_value(node.right, env)
            return exponent is not None and exponent >= 0 and float(exponent).is_integer() and _arithmetic(node.left, env, hops)
        return isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply)) and _arithmetic(node.left, env, hops) and _arithmetic(node.right, env, hops)
    return False


def _closed(reach: Interval) -> Interval:
    """Floats round: a bound approached is a bound reached."""
    return Interval(reach.lo, reach.hi)


def _always(a: Interval, operator: type, b: Interval) -> bool:
    """Whether `x <operator> y` for every `x` in `a` and `y` in `b`."""
    if operator is cst.GreaterThan:
        return _always(b, cst.LessThan, a)
    if operator is cst.GreaterThanEqual:
        return _always(b, cst.LessThanEqual, a)
    if operator is cst.LessThan:
        return a.hi < b.lo or (a.hi == b.lo and not (a.hi_closed and b.lo_closed))
    if operator is cst.LessThanEqual:
        return a.hi <= b.lo
    if operator is cst.Equal:
        return a.lo == a.hi == b.lo == b.hi and not a.is_empty() and not b.is_empty()
    return IntervalSet.of(a).intersect(IntervalSet.of(b)).is_empty()  # `!=`


def _compared_at_nan(left, operator: type, right, var: str, env: Env) -> Optional[bool]:
    """`var` (or `|var|`, or its square) against a constant, where `var` is NaN."""
    for subject, other in ((left, right), (right, left)):
        about = _is_variable(subject, var, env) or _is_abs_of(subject, var, env) or _is_square_of(subject, var, env)
        if about and operator in _COMPARE and constant_value(other, env) is not None:
            return operator is cst.NotEqual
    return None


def _membership(left, inside: bool, right, var: str, env: Env) -> Optional[IntervalSet]:
    """`p in (1, 2)`: a Python value among listed constants (a check's `assert p in (1, 2)`)."""
    if not _is_variable(left, var, env) or not isinstance(right, (cst.Tuple, cst.List, cst.Set)):
        return None
    values = [constant_value(element.value, env) for element in right.elements]
    if not values or None in values or any(isinstance(element, cst.StarredElement) for element in right.elements):
        return None
    listed = IntervalSet.points(*values)
    return listed if inside else listed.complement()


def _all(truths: list[Optional[bool]]) -> Optional[bool]:
    if False in truths:
        return False
    return None if None in truths else True


def _any(truths: list[Optional[bool]]) -> Optional[bool]:
    if True in truths:
        return True
    return None if None in truths else False


def condition_local(name: cst.Name, env: Env) -> Optional[tuple[cst.BaseExpression, Env]]:
    """What a local (a condition, or a variable it is about) was assigned, and the place to read it
    from: its names mean there what they meant when it was computed (`t = -1.0; ok = x > t; t =
    0.0`: `ok` is `x > -1`). Not a rebinding of itself (`m = m & c`), whose earlier value is not the
    one seen from here."""
    value = assigned(name, env)
    if value is None or any(isinstance(n, cst.Name) and n.value == name.value for n in walk(value[0])):
        return None
    return value


def _comparison(node: cst.Comparison, var: str, env: Env) -> Optional[Region]:
    result: Optional[Region] = None
    left = node.left
    for target in node.comparisons:
        comparator = target.comparator
        part = _compare(left, type(target.operator), comparator, var, env)
        if part is None:
            return None  # a chain is an `and`: an unknown link makes it unknown
        result = part if result is None else _both(result, part, False)
        left = comparator
    return result


def _compare(left, operator: type, right, var: str, env: Env) -> Optional[Region]:
    if operator in (cst.In, cst.NotIn):
        return _certain(_membership(left, operator is cst.In, right, var, env))
    if operator not in _COMPARE:
        return None
    constant = constant_value(right, env)
    subject, mirrored = left, operator
    if constant is None:
        constant = constant_value(left, env)
        subject = right
        mirrored = _MIRROR[operator]
    if constant is None:
        # `a < b` is `a - b < 0`: about the difference, when that is the variable (`(a - b)` too).
        difference = _unwrapped(var) if " - " in var else None
        if difference is not None:
            left_text, right_text = bare_code(left, env.code), bare_code(right, env.code)
            if difference == f"{right_text} - {left_text}":
                return _certain(_COMPARE[mirrored](0.0))
            if difference == f"{left_text} - {right_text}":
                return _certain(_COMPARE[_MIRROR[mirrored]](0.0))
        ratio = _ratio(left, operator, right, var, env)
        if ratio is not None:
            return ratio
        return _against_range(left, operator, right, var, env)
    return _certain(_compared_values(subject, mirrored, constant, var, env))


def _is_variable(node: cst.BaseExpression, var: str, env: Env) -> bool:
    """Whether `node` is the variable a condition is asked about, parentheses aside on both: `a + b
    > 0` is about `(a + b)`, and `isnan((x))` about `x`."""
    return bare_code(node, env.code) == _unwrapped(var)


@functools.lru_cache(maxsize=4096)
def _unwrapped(text: str) -> str:
    """An expression's source without the parentheses around all of it: `(a - b)` is `a - b`, `(a) -
    (b)` stays (read from its tree, remembered: the variable's text is asked of every comparison)."""
    try:
        return bare_code(cst.parse_expression(text))
    except cst.ParserSyntaxError:
        return text


def _ratio(left, operator: type, right, var: str, env: Env) -> Optional[Region]:
    """`a > b` says `a / b > 1` where `b` is never negative: for `b > 0` it is the comparison
    divided by `b`, and at `b == 0` it makes `a` positive and `a / b` +inf. A side that admits
    `a == b` may hold at `0 / 0`, NaN, unless `b` is above 0: there it says nothing for certain."""
    for numerator, denominator, op in ((left, right, operator), (right, left, _MIRROR[operator])):
        if op not in _ORDERINGS or var != quotient_key(numerator, denominator, env):
            continue
        below = value_range(denominator, env.unconditioned())
        if below.lo < 0:
            return None
        positive = below.lo > 0 or not below.lo_closed
        admits_equal = op in (cst.LessThanEqual, cst.GreaterThanEqual)
        return Region(_COMPARE[op](1.0), positive or not admits_equal, positive or admits_equal)
    return None


def _certain(values: Optional[IntervalSet]) -> Optional[Region]:
    """Exactly where the condition holds."""
    return Region(values, True, True) if values is not None else None


def _against_range(left, operator: type, right, var: str, env: Env) -> Optional[Region]:
    """`v < eps`, `|v| <= tol`: the variable (or its absolute value) against a side that is no one
    number but lies in a range (an epsilon is above 0). Where `v < e` fails, `v` is at least the
    range's low end; where it holds, below its high end."""
    for subject, other, op in ((left, right, operator), (right, left, _MIRROR[operator])):
        about = _is_variable(subject, var, env)
        if not (about or _is_abs_of(subject, var, env)):
            continue
        # Its range anywhere: under the conditions assumed here it would be read through this one again.
        reach = value_range(other, env.unconditioned())
        if reach.lo == -INF and reach.hi == INF:
            return None
        holds, fails = _sides(op, reach)
        if not about:  # |v| in S  <=>  v in S or -v in S
            holds, fails = _either_sign(holds), _either_sign(fails)
        if fails.is_everything():
            return Region(holds, True, holds.intersect(fails).is_empty())
        return Region(fails.complement(), holds.intersect(fails).is_empty(), True)
    return None


def _sides(operator: type, reach: Interval) -> tuple[IntervalSet, IntervalSet]:
    """Values of `v` that may make `v <operator> e` hold, and that may make it fail, for `e` in `reach`."""
    lo, hi = reach.lo, reach.hi
    reach = Interval(lo, hi, reach.lo_closed and lo > -INF, reach.hi_closed and hi < INF)  # no infinite value
    if operator in (cst.LessThan, cst.LessThanEqual):
        holds = IntervalSet.below(hi, closed=operator is cst.LessThanEqual and reach.hi_closed)
        return holds, IntervalSet.above(lo, closed=operator is cst.LessThan and reach.lo_closed)
    if operator in (cst.GreaterThan, cst.GreaterThanEqual):
        holds = IntervalSet.above(lo, closed=operator is cst.GreaterThanEqual and reach.lo_closed)
        return holds, IntervalSet.below(hi, closed=operator is cst.GreaterThan and reach.hi_closed)
    equal = IntervalSet.of(reach)
    if operator is cst.Equal:
        return equal, IntervalSet.everything() if reach.lo != reach.hi else equal.complement()
    return IntervalSet.everything() if reach.lo != reach.hi else equal.complement(), equal


def _either_sign(values: IntervalSet) -> IntervalSet:
    nonnegative = values.intersect(IntervalSet.above(0.0, closed=True))
    return nonnegative.union(nonnegative.negated())


def _compared_values(subject, operator: type, constant: float, var: str, env: Env) -> Optional[IntervalSet]:
    """The values of `var` for which `subject <operator> constant`."""
    selected = _COMPARE[operator](constant)
    if _is_variable(subject, var, env):
        return selected
    if _is_abs_of(subject, var, env):
        return _either_sign(selected)  # |v| in S  <=>  v in S or -v in S
    if _is_square_of(subject, var, env):
        # v * v in S  <=>  v in S rooted, or -v is.
        rooted = IntervalSet.of(
            *(Interval(math.sqrt(p.lo), math.sqrt(p.hi), p.lo_closed, p.hi_closed) for p in selected.intersect(IntervalSet.above(0.0, closed=True)).parts)
        )
        return _either_sign(rooted)
    if _is_root_of(subject, var, env):
        # sqrt(v) in S  <=>  v >= 0 and v in S squared; below 0 the root is NaN, which only `!=` holds for.
        squared = IntervalSet.of(
            *(Interval(p.lo * p.lo, p.hi * p.hi, p.lo_closed, p.hi_closed) for p in selected.intersect(IntervalSet.above(0.0, closed=True)).parts)
        )
        return squared.union(IntervalSet.below(0.0, closed=False)) if operator is cst.NotEqual else squared
    return None


def _is_root_of(node, var: str, env: Env) -> bool:
    """`sqrt(v)`, `v.sqrt()`, or a local assigned one (`s = sqrt(v)`), where `v` is `var`."""
    return _is_unary_of(node, _ROOTS, var, env)


def _is_square_of(node, var: str, env: Env) -> bool:
    """`v * v`, `v ** 2`, `square(v)`, `v.square()`, or a local assigned one, where `v` is `var`."""
    if isinstance(node, cst.Name):
        value = condition_local(node, env)
        return value is not None and not isinstance(value[0], cst.Name) and _is_square_of(value[0], var, value[1])
    if isinstance(node, cst.BinaryOperation):
        if isinstance(node.operator, cst.Multiply):
            return _is_variable(node.left, var, env) and _is_variable(node.right, var, env)
        return isinstance(node.operator, cst.Power) and constant_value(node.right, env) == 2 and _is_variable(node.left, var, env)
    return _is_unary_of(node, _SQUARES, var, env)


def _is_abs_of(node, var: str, env: Env) -> bool:
    """`abs(v)` (Python's too), `jnp.absolute(v)`, `v.abs()`, or a local assigned one."""
    return _is_unary_of(node, ABSOLUTE_VALUES, var, env)


_ROOTS = frozenset({"sqrt"})
_SQUARES = frozenset({"square"})
_PYTHON_ABS = frozenset({"abs"})


def _is_unary_of(node, leaves: frozenset[str], var: str, env: Env) -> bool:
    """A call of a function or method named in `leaves` on `var` alone, or a local assigned one. A
    bare name counts only as Python's own `abs` (a function of the user's named `sqrt` may be
    anything)."""
    if isinstance(node, cst.Name):
        value = condition_local(node, env)
        return value is not None and not isinstance(value[0], cst.Name) and _is_unary_of(value[0], leaves, var, value[1])
    if not isinstance(node, cst.Call):
        return False
    func = node.func
    values = arguments(node)
    if isinstance(func, cst.Attribute) and func.attr.value in leaves and not values:
        return _is_variable(func.value, var, env)  # x.sqrt(), x.abs()
    name = env.qualified(func) or ("abs" if is_builtin(func, _PYTHON_ABS, env) else None)
    return name is not None and name.rsplit(".", 1)[-1] in leaves and len(values) == 1 and _is_variable(values[0], var, env)


def _operator_call(node: cst.Call, env: Env) -> Optional[tuple[str, list[cst.BaseExpression]]]:
    """A function's last name and its operands (`jnp.greater(x, 0)`), or a method's, its receiver
    first (torch: `x.gt(0)`, `mask.logical_and(other)`); None for a call of a bare name."""
    func = node.func
    qualified = env.qualified(func)
    if qualified is not None:
        return qualified.rsplit(".", 1)[-1], arguments(node)
    if isinstance(func, cst.Attribute):
        return func.attr.value, [func.value, *arguments(node)]
    return None


def _call(node: cst.Call, var: str, env: Env, hops: int, partial: bool) -> Optional[Region]:
    call = _operator_call(node, env)
    if call is None:
        return None
    leaf, args = call
    if leaf in _COMPARE_FUNCTIONS and len(args) == 2:
        return _compare(args[0], _COMPARE_FUNCTIONS[leaf], args[1], var, env)
    if leaf in NAN_TEST_LEAVES and len(args) == 1 and _is_variable(args[0], var, env):
        # `isnan(v)` holds at no finite value of `v`, `isfinite(v)` at every one.
        return Region(IntervalSet.everything() if NAN_TEST_LEAVES[leaf] else IntervalSet(), True, True)
    if leaf == "logical_not" and len(args) == 1 and (inner := region_of(args[0], var, env, hops, partial)) is not None:
        return inner.negated()
    if leaf in TRUTH_REDUCTIONS and len(args) == 1 and (inner := region_of(args[0], var, env, hops, partial)) is not None:
        # `all(k == 0)`: where it holds, every element of `k` is 0; where it fails, one is not.
        if TRUTH_REDUCTIONS[leaf]:
            return Region(inner.values, inner.if_true, False)
        return Region(inner.values, False, inner.if_false)
    return None


def affine_base(
    arg: cst.BaseExpression, env: Env, hops: int = 0
) -> list[tuple[cst.BaseExpression, Callable[[IntervalSet], IntervalSet]]]:
    """Ways to read `arg` as a shifted variable, or an integer power of one: each (variable, map from
    arg-space to variable-space, the values of the variable at which `arg` takes those values).

    For `log(x - 1)` the leak domain {0} of the argument is {1} for x; `-x - 1` reads through both steps,
    and a local through what it was assigned (`d = hi - lo`, then `x / d`). The divisor `theta**2` is 0
    only at theta = 0, and `x**3 <= 0` wherever x is.
    """
    out = [(arg, lambda d: d)]
    if isinstance(arg, cst.Name):
        value = condition_local(arg, env) if hops < CONDITION_HOPS else None
        return out + (affine_base(*value, hops + 1) if value is not None else [])
    for var, to_var in _one_step(arg, env):
        out += [(inner, lambda d, f=to_var, g=to_inner: g(f(d))) for inner, to_inner in affine_base(var, env, hops)]
    return out


def _one_step(arg: cst.BaseExpression, env: Env) -> list[tuple[cst.BaseExpression, Callable[[IntervalSet], IntervalSet]]]:
    out: list = []
    if isinstance(arg, cst.UnaryOperation) and isinstance(arg.operator, cst.Minus):
        out.append((arg.expression, lambda d: d.negated()))
    if isinstance(arg, cst.BinaryOperation) and isinstance(arg.operator, (cst.Add, cst.Subtract)):
        right = constant_value(arg.right, env)
        left = constant_value(arg.left, env)
        if right is not None:
            shift = -right if isinstance(arg.operator, cst.Add) else right
            out.append((arg.left, lambda d, s=shift: d.shifted(s)))
        elif left is not None and isinstance(arg.operator, cst.Add):
            out.append((arg.right, lambda d, s=left: d.shifted(-s)))
        elif left is not None:
            out.append((arg.right, lambda d, c=left: d.negated().shifted(c)))  # c - v
    if isinstance(arg, cst.BinaryOperation) and isinstance(arg.operator, cst.Power):
        p = constant_value(arg.right, env)
        if p is not None and float(p).is_integer() and p >= 1:
            out.append((arg.left, lambda d, n=int(p): d.power_preimage(n)))
    if isinstance(arg, cst.Call) and (call := _operator_call(arg, env)) is not None and call[0] in _SQUARES and len(call[1]) == 1:
        out.append((call[1][0], lambda d: d.power_preimage(2)))  # `jnp.square(v)`, `v.square()`
    return out
