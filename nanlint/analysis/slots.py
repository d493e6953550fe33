"""A division by how many values a scatter put in each slot: its pole is only at empty slots.

`segment_sum(data, ids) / segment_sum(ones_like(data), ids)`: the count is 0 only at a slot no
index names, and there the NaN cotangent (`0 * (1 / 0)`) lands on the numerator's slot. The
numerator's transpose gathers by the same `ids`, so it reads only slots some index names: the NaN
never reaches `data`, and the count carries no gradient. So is a root of the count, or any
increasing function of it that is 0 at 0 (`segment_sum(x, ids) / sqrt(count)`). The two scatters
must be alike but for their values (the same indices, read from names, and the same number of
segments, mode, dimension), and the quotient must go straight into a where or a NaN mask: its
value is NaN at an empty slot, and a factor computed from it (`(total / count) * scale`) would get
that NaN back. A weighted count (`segment_sum(w, ids)`) may be 0 at a slot that holds values, and
is not read so.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from nanlint.analysis.syntax import argument_at
from nanlint.analysis.tree import walk
from nanlint.analysis.values import Env, assigned, call_parts, carries_gradient, value_key, value_range
from nanlint.catalog.tables import INCREASING_FUNCTIONS, scatter_sum
from nanlint.limits import MAX_INDIRECTION

# (the scatter-sum's call, its values, where it is read)
_Scatter = tuple[cst.Call, cst.BaseExpression, Env]


def pole_only_at_empty_slots(numerator: cst.BaseExpression, divisor: cst.BaseExpression, env: Env) -> bool:
    """Whether `numerator / divisor` divides a scatter-sum by the count of values an alike scatter
    puts in each slot (each value a positive constant that carries no gradient)."""
    counted, summed = _scattered(divisor, env, zero_at_zero=True), _scattered(numerator, env)
    if counted is None or summed is None:
        return False
    (count_call, ones, there), (sum_call, values, summed_there) = counted, summed
    if carries_gradient(ones, there) or value_range(ones, there).lo <= 0:
        return False
    return _settings(count_call, ones, there) == _settings(sum_call, values, summed_there)


def _settings(call: cst.Call, values: cst.BaseExpression, env: Env) -> Optional[tuple]:
    """Every argument of the scatter but its values, by keyword or position, as the value it holds;
    None when one may differ from call to call (a call, such as a random draw)."""
    settings = []
    for position, arg in enumerate(call.args):
        if arg.value is values:
            continue
        if any(isinstance(node, cst.Call) for node in walk(arg.value)):
            return None
        settings.append((arg.keyword.value if arg.keyword is not None else position, value_key(arg.value, env)))
    return tuple(settings)


def _scattered(node: cst.BaseExpression, env: Env, depth: int = 0, zero_at_zero: bool = False) -> Optional[_Scatter]:
    """The scatter-sum `node` is, or a local assigned one; with `zero_at_zero`, also an increasing
    function of one that is 0 at 0."""
    if isinstance(node, cst.Name) and depth < MAX_INDIRECTION and (held := assigned(node, env)) is not None:
        return _scattered(held[0], held[1], depth + 1, zero_at_zero)
    if not isinstance(node, cst.Call) or (qualified := env.qualified(node.func)) is None:
        return None
    _, _, leaf, operand, extra = call_parts(node, env)
    if zero_at_zero and leaf in _ZERO_AT_ZERO and operand is not None and not extra:
        return _scattered(operand, env, depth + 1, zero_at_zero)
    spec = scatter_sum(qualified)
    values = argument_at(node, spec[0]) if spec is not None else None
    return (node, values, env) if values is not None and argument_at(node, spec[1]) is not None else None


def _is_zero_at_zero(function) -> bool:
    try:
        return function(0.0) == 0.0
    except ValueError:  # `log` has no value at 0
        return False


# Increasing functions that are 0 at 0 (`sqrt`, `tanh`, `expm1`): 0 exactly where their argument is.
_ZERO_AT_ZERO = frozenset(name for name, function in INCREASING_FUNCTIONS.items() if _is_zero_at_zero(function))
