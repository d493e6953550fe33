"""What a call of a straight-line helper returns, written with the call's own arguments.

`def _safe_r2(r2): return jnp.where(r2 > 0, r2, jnp.ones_like(r2))`, then `jnp.sqrt(_safe_r2(r2))`:
the argument of `sqrt` is the helper's return expression with `r2` in place of its parameter, and
the value questions (ranges, guards) read that. Only a helper whose body is assignments to names
then one `return` (after a docstring) is read, each local replaced by what it was assigned:
anything else (a branch, a loop, `*args`) and the call's value stays unknown, as it does when
written out it would be too large (each read of a local is a copy).
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from nanlint.analysis.tree import walk
from nanlint.limits import MAX_HELPER_STEPS, MAX_INLINED_NODES


def inlined(function: cst.FunctionDef, call: cst.Call) -> Optional[cst.BaseExpression]:
    """The helper's return expression with each parameter replaced by what the call passes (or its
    default) and each local by its value; None when the helper is not straight-line or the call
    does not match it plainly."""
    steps = _straight_line(function)
    if steps is None or any(_binds_names(value) for _, value in steps):
        return None
    bound = bound_arguments(function.params, call)
    if bound is None:
        return None
    sizes = {name: _size(value, {}) for name, value in bound.items()}
    for name, value in steps:
        # A local read twice is copied twice: a chain of such steps doubles at each one.
        size = _size(value, sizes)
        if size > MAX_INLINED_NODES:
            return None
        substituted = value.visit(_Substitute(bound))
        if name is None:
            return substituted
        bound, sizes = {**bound, name: substituted}, {**sizes, name: size}
    return None


def substituted(expression: cst.BaseExpression, bound: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """`expression` with each name it reads that `bound` holds replaced by what it is bound to."""
    return expression.visit(_Substitute(bound))


def _size(expression: cst.BaseExpression, sizes: dict[str, int]) -> int:
    """How many nodes `expression` has once each name in `sizes` is replaced by what it stands for
    (at most: a name that is an attribute's label is counted as a read)."""
    return sum(sizes.get(node.value, 1) if isinstance(node, cst.Name) else 1 for node in walk(expression))


def free_names(function: cst.FunctionDef) -> tuple[frozenset[str], frozenset[str]]:
    """The names a straight-line helper reads of its own, which its call reads where it is made:
    those its body reads that are neither parameters nor its locals, and those its defaults read."""
    steps = _straight_line(function) or []
    params = function.params
    every = [*params.posonly_params, *params.params, *params.kwonly_params]
    bound = {p.name.value for p in every} | {name for name, _ in steps if name is not None}
    body = {name for _, value in steps for name in reads(value)} - bound
    defaults = {name for p in every if p.default is not None for name in reads(p.default)}
    return frozenset(body), frozenset(defaults)


def reads(expression: cst.BaseExpression) -> set[str]:
    """The names an expression reads, as `_Substitute` replaces them: not an attribute's name, nor a
    keyword."""
    found: set[str] = set()

    class _Reader(cst.CSTVisitor):
        def visit_Attribute(self, node: cst.Attribute) -> bool:
            node.value.visit(self)
            return False

        def visit_Arg(self, node: cst.Arg) -> bool:
            node.value.visit(self)
            return False

        def visit_Name(self, node: cst.Name) -> None:
            found.add(node.value)

    expression.visit(_Reader())
    return found


def _straight_line(function: cst.FunctionDef) -> Optional[list[tuple[Optional[str], cst.BaseExpression]]]:
    """`name = value` steps, then the returned value (with name None); None for any other body. The
    same helpers as the prefilter keeps (`prefilter.helpers.straight_line_function`), so that a
    file read whole and a file read in slices give the same findings."""
    if function.asynchronous is not None:
        return None
    body = function.body
    statements = []
    for line in list(body.body) if isinstance(body, cst.IndentedBlock) else [body]:
        if not isinstance(line, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            return None
        statements += line.body
    if statements and is_docstring(statements[0]):
        statements = statements[1:]
    if len(statements) > MAX_HELPER_STEPS + 1:
        return None
    steps: list[tuple[Optional[str], cst.BaseExpression]] = []
    for statement in statements[:-1]:
        if not (isinstance(statement, cst.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0].target, cst.Name)):
            return None
        steps.append((statement.targets[0].target.value, statement.value))
    last = statements[-1] if statements else None
    if not isinstance(last, cst.Return) or last.value is None:
        return None
    return [*steps, (None, last.value)]


def is_docstring(statement: cst.BaseSmallStatement) -> bool:
    return (
        isinstance(statement, cst.Expr)
        and isinstance(statement.value, (cst.SimpleString, cst.ConcatenatedString))
        and isinstance(statement.value.evaluated_value, str)  # not bytes, as `ast` reads it
    )


def _binds_names(expression: cst.BaseExpression) -> bool:
    """A lambda or a comprehension binds names of its own, which a plain substitution would confuse."""
    found = []

    class _Finder(cst.CSTVisitor):
        def visit_Lambda(self, node: cst.Lambda) -> bool:
            found.append(node)
            return False

        def visit_CompFor(self, node: cst.CompFor) -> bool:
            found.append(node)
            return False

        def visit_NamedExpr(self, node: cst.NamedExpr) -> bool:
            found.append(node)
            return False

    expression.visit(_Finder())
    return bool(found)


def bound_arguments(params: cst.Parameters, call: cst.Call) -> Optional[dict[str, cst.BaseExpression]]:
    """Parameter name -> the expression the call gives it, as Python binds them."""
    if isinstance(params.star_arg, cst.Param) or params.star_kwarg is not None:
        return None  # *args, **kwargs
    positional_params = [*params.posonly_params, *params.params]
    bound: dict[str, cst.BaseExpression] = {}
    position = 0
    for arg in call.args:
        if arg.star:
            return None
        if arg.keyword is None:
            if position >= len(positional_params):
                return None
            bound[positional_params[position].name.value] = arg.value
            position += 1
        else:
            bound[arg.keyword.value] = arg.value
    for param in [*positional_params, *params.kwonly_params]:
        name = param.name.value
        if name not in bound:
            if param.default is None:
                return None
            bound[name] = param.default
    known = {p.name.value for p in [*positional_params, *params.kwonly_params]}
    return bound if set(bound) <= known else None


class _Substitute(cst.CSTTransformer):
    """Each name read that is a parameter becomes the argument (parenthesized, so the tree reads as
    the call meant it); an attribute's name and a keyword are labels, not reads."""

    def __init__(self, bound: dict[str, cst.BaseExpression]) -> None:
        super().__init__()
        self.bound = bound

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        return False

    def leave_Attribute(self, original: cst.Attribute, updated: cst.Attribute) -> cst.BaseExpression:
        return updated.with_changes(value=original.value.visit(self))

    def visit_Arg(self, node: cst.Arg) -> bool:
        return False

    def leave_Arg(self, original: cst.Arg, updated: cst.Arg) -> cst.Arg:
        return updated.with_changes(value=original.value.visit(self))

    def leave_Name(self, original: cst.Name, updated: cst.Name) -> cst.BaseExpression:
        value = self.bound.get(original.value)
        if value is None:
            return updated
        if isinstance(value, (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.BaseNumber, cst.BaseString)) or getattr(value, "lpar", True):
            return value
        return value.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
