"""Small questions about libcst nodes that the analysis asks everywhere: a call's arguments, literals."""

from __future__ import annotations

from typing import Optional

import libcst as cst


# libcst's comparison operators and the Python they spell.
COMPARISON_SYMBOLS: dict[type, str] = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}


def arguments(call: cst.Call) -> list[cst.BaseExpression]:
    """Every value a call passes, in source order: positional (`*xs` as `xs`) and keyword (`**kw` as `kw`)."""
    return [arg.value for arg in call.args]


def positional(call: cst.Call) -> list[cst.BaseExpression]:
    """The plain positional arguments (not `*xs`, not keywords)."""
    return [arg.value for arg in call.args if arg.keyword is None and not arg.star]


def keyword_value(call: cst.Call, names) -> Optional[cst.BaseExpression]:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in names:
            return arg.value
    return None


def argument_at(call: cst.Call, spec, receiver: Optional[cst.BaseExpression] = None) -> Optional[cst.BaseExpression]:
    """The argument a catalog `Arg` names (its `position` and `keywords`): by keyword, else by position
    among the positional arguments; position -1 is a method's `receiver`. None for no `spec`."""
    if spec is None:
        return None
    if spec.position == -1:
        return receiver
    by_keyword = keyword_value(call, spec.keywords)
    if by_keyword is not None:
        return by_keyword
    values = positional(call)
    return values[spec.position] if 0 <= spec.position < len(values) else None


def has_unpacking(call: cst.Call) -> bool:
    """`f(*xs)` or `f(**kw)`: where each value lands is not known."""
    return any(arg.star for arg in call.args)


def is_none(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Name) and node.value == "None"


def is_number(node: cst.CSTNode) -> bool:
    """An int or float literal."""
    return isinstance(node, (cst.Integer, cst.Float))


def number(node: cst.CSTNode) -> float:
    return float(node.evaluated_value)


def is_string(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString))


def string_value(node: cst.CSTNode) -> Optional[str]:
    """The value of a plain string literal (`"nan"`), else None."""
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else None
    return None


def number_literal(value: float, integral: bool) -> cst.BaseExpression:
    """A new literal node for `value`: `1` when `integral` and the value is a whole number, else `1.0`."""
    if integral and float(value).is_integer():
        literal: cst.BaseExpression = cst.Integer(str(abs(int(value))))
    else:
        literal = cst.Float(repr(abs(float(value))))
    return cst.UnaryOperation(cst.Minus(), literal) if value < 0 else literal
