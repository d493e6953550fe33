"""What a function makes sure of before it goes on: `if x <= 0: raise ...`, `assert x > 0`.

The statements after `if test: raise` (or `return`, or in a loop `continue` and `break`) in the same
block run only where `test` is false; those after `assert test`, only where it is true. So a value
read there takes only the values that condition leaves (`1 / center_freq` after `if center_freq <= 0:
raise ValueError(...)` has no pole). `any`/`all` say so of every element: after `if jnp.any(v <= 0):
raise`, every element of `v` is positive; after `if jnp.all(v <= 0): raise`, nothing is known of one.

Only a check in a block around the value's own statement counts, in the same function: a check in
another branch, or in a caller, does not run on the way there. The detector keeps a check only where
what it compares is bound the same at the check and at the value (a rebinding in between voids it).

A helper of the file that checks its parameters on entry (`def _check_bandwidth(b): if any(b <= 0):
raise ...`) checks them at each call: after `_check_bandwidth(bw)` returns, `bw` is positive; after
`bw = _check_bandwidth(bw)`, so is the new `bw` where the helper returns the parameter unchanged (a
cast or a copy of it). The detector finds the helper and writes its checks in the call's terms.
"""

from __future__ import annotations

from typing import Callable, NamedTuple, Optional

import libcst as cst

from nanlint.analysis.inline import is_docstring
from nanlint.analysis.names import leaf_name
from nanlint.analysis.syntax import positional

# Statements after which the rest of the block does not run.
_EXITS = (cst.Raise, cst.Return, cst.Continue, cst.Break)
# Reductions of truth values: `any(c)` false says `c` is false at every element, `all(c)` true that
# it is true at every one.
_ANY = frozenset({"any", "reduce_any"})
_ALL = frozenset({"all", "reduce_all"})
_SCOPES = (cst.FunctionDef, cst.Lambda, cst.ClassDef, cst.Module)


class Check(NamedTuple):
    """`condition` is `truth` at every element wherever the code after `statement` runs. With
    `returned_by`, the condition speaks of that call's result, held by the name `statement` binds."""

    condition: cst.BaseExpression
    truth: bool
    statement: cst.CSTNode
    returned_by: Optional[cst.Call] = None


# The checks a statement makes by calling a checking helper (the detector finds the helper).
ChecksByCall = Callable[[cst.CSTNode], tuple[Check, ...]]


def checks_before(node: cst.CSTNode, parent: dict[int, cst.CSTNode], by_call: Optional[ChecksByCall] = None) -> list[Check]:
    """The checks made in the blocks around `node`, before its statement, in its own function."""
    found: list[Check] = []
    current, up = node, parent.get(id(node))
    while up is not None and not isinstance(up, _SCOPES):
        if isinstance(up, cst.IndentedBlock):
            for statement in up.body:
                if statement is current:
                    break
                check = check_of(statement)
                if check is not None:
                    found.append(check)
                elif by_call is not None and helper_call(statement) is not None:
                    found += by_call(statement)
        current, up = up, parent.get(id(up))
    return found


def may_check(function: cst.FunctionDef, checking_helper: Callable[[str], bool] = lambda name: False) -> bool:
    """Whether the function holds any check at all (most hold none: the detector asks once), its
    own or a call of a checking helper (`checking_helper(name)`). Only its statements are read, not
    their expressions, nor the functions and classes it defines."""
    blocks: list[cst.BaseSuite] = [function.body]
    while blocks:
        block = blocks.pop()
        if not isinstance(block, cst.IndentedBlock):
            continue
        for statement in block.body:
            if check_of(statement) is not None:
                return True
            call = helper_call(statement)
            if call is not None and checking_helper(call[0].func.value):
                return True
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                continue
            blocks += _suites(statement)
    return False


def helper_call(statement: cst.CSTNode) -> Optional[tuple[cst.Call, Optional[cst.Name]]]:
    """`f(...)` or `name = f(...)` as a statement of its own, with `f` a plain name: the call, and the
    name its result is bound to, if one."""
    if not (isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1):
        return None
    small = statement.body[0]
    target = None
    if isinstance(small, cst.Assign) and len(small.targets) == 1 and isinstance(small.targets[0].target, cst.Name):
        value, target = small.value, small.targets[0].target
    elif isinstance(small, cst.Expr):
        value = small.value
    else:
        return None
    return (value, target) if isinstance(value, cst.Call) and isinstance(value.func, cst.Name) else None


def entry_checks(function: cst.FunctionDef) -> tuple[tuple[Check, ...], list[cst.BaseStatement]]:
    """The checks a function makes before anything else, after its docstring (`if test: raise ...`,
    `assert test`), which hold after every call that returns; and the statements after them. An
    `if test: return ...` is none: the call may return early, having made sure of nothing; nor is a
    check of an `async def`, whose call runs nothing until it is awaited."""
    plain = function.asynchronous is None and isinstance(function.body, cst.IndentedBlock)
    body = list(function.body.body) if plain else []
    if body and isinstance(body[0], cst.SimpleStatementLine) and len(body[0].body) == 1 and is_docstring(body[0].body[0]):
        body = body[1:]
    found: list[Check] = []
    while body and _raises_or_asserts(body[0]):
        check = check_of(body[0])
        if check is not None:
            found.append(check)
        body = body[1:]
    return tuple(found), body


def _raises_or_asserts(statement: cst.CSTNode) -> bool:
    """`if test: ... raise X` with no `else`, or `assert test`: a check that lets the code go on
    only where it holds (the prefilter's `helpers.checking_def` is the same test, on `ast`)."""
    if isinstance(statement, cst.If):
        lines = statement.body.body if isinstance(statement.body, cst.IndentedBlock) else [statement.body]
        last = getattr(lines[-1], "body", None) if lines else None
        return statement.orelse is None and isinstance(last, (list, tuple)) and bool(last) and isinstance(last[-1], cst.Raise)
    return isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assert)


def _suites(statement: cst.CSTNode) -> list[cst.BaseSuite]:
    """The blocks a compound statement holds (`if`/`elif`/`else`, loops, `with`, `try`)."""
    found = []
    for part in (statement, getattr(statement, "orelse", None), getattr(statement, "finalbody", None), *getattr(statement, "handlers", ())):
        while part is not None:
            body = getattr(part, "body", None)
            if isinstance(body, cst.BaseSuite):
                found.append(body)
            part = part.orelse if isinstance(part, cst.If) and part is not statement else None
    return found


def check_of(statement: cst.CSTNode) -> Optional[Check]:
    """What the statement makes sure of for the statements after it in its block, if anything."""
    if isinstance(statement, cst.If) and statement.orelse is None and _exits(statement.body):
        return _elementwise(statement.test, False, statement)
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1 and isinstance(statement.body[0], cst.Assert):
        return _elementwise(statement.body[0].test, True, statement)
    return None


def _exits(block: cst.BaseSuite) -> bool:
    """The block ends in a `return`, `raise`, `continue` or `break`, or in an `if` each of whose
    branches does (`if mask: return a, m` / `else: return a`)."""
    lines = block.body if isinstance(block, cst.IndentedBlock) else [block]
    if not lines:
        return False
    last = lines[-1]
    if isinstance(last, cst.If):
        return _every_branch_exits(last)
    small = getattr(last, "body", None)
    return isinstance(small, (list, tuple)) and bool(small) and isinstance(small[-1], _EXITS)


def _every_branch_exits(statement: cst.If) -> bool:
    other = statement.orelse
    if other is None or not _exits(statement.body):
        return False
    return _every_branch_exits(other) if isinstance(other, cst.If) else _exits(other.body)


def _elementwise(test: cst.BaseExpression, truth: bool, statement: cst.CSTNode) -> Optional[Check]:
    """The check `test` is `truth` as said of every element: `not` swaps it, `any`/`all` unwrap."""
    while isinstance(test, cst.UnaryOperation) and isinstance(test.operator, cst.Not):
        test, truth = test.expression, not truth
    if isinstance(test, cst.Call):
        func = test.func
        leaf = leaf_name(func)
        if leaf in _ANY or leaf in _ALL:
            if (leaf in _ANY) == truth:
                return None  # some element is (or is not): nothing said of any one
            operands = positional(test)
            if isinstance(func, cst.Attribute) and not operands:
                return Check(func.value, truth, statement)  # `(v <= 0).any()`
            if len(operands) == 1 and not isinstance(operands[0], cst.GeneratorExp):
                return Check(operands[0], truth, statement)
            return None
    return Check(test, truth, statement)
