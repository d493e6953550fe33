"""What a function makes sure of before it goes on: `if x <= 0: raise ...`, `assert x > 0`.

The statements after `if test: raise` (or `return`, or in a loop `continue` and `break`) in the same
block run only where `test` is false; those after `assert test`, only where it is true. So a value
read there takes only the values that condition leaves (`1 / center_freq` after `if center_freq <= 0:
raise ValueError(...)` has no pole). `any`/`all` say so of every element: after `if jnp.any(v <= 0):
raise`, every element of `v` is positive; after `if jnp.all(v <= 0): raise`, nothing is known of one.

Only a check in a block around the value's own statement counts, in the same function: a check in
another branch, or in a caller, does not run on the way there. The detector keeps a check only where
what it compares is bound the same at the check and at the value (a rebinding in between voids it).
"""

from __future__ import annotations

from typing import NamedTuple, Optional

import libcst as cst

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
    """`condition` is `truth` at every element wherever the code after `statement` runs."""

    condition: cst.BaseExpression
    truth: bool
    statement: cst.CSTNode


def checks_before(node: cst.CSTNode, parent: dict[int, cst.CSTNode]) -> list[Check]:
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
        current, up = up, parent.get(id(up))
    return found


def may_check(function: cst.FunctionDef) -> bool:
    """Whether the function holds any check at all (most hold none: the detector asks once). Only
    its statements are read, not their expressions, nor the functions and classes it defines."""
    blocks: list[cst.BaseSuite] = [function.body]
    while blocks:
        block = blocks.pop()
        if not isinstance(block, cst.IndentedBlock):
            continue
        for statement in block.body:
            if check_of(statement) is not None:
                return True
            if isinstance(statement, (cst.FunctionDef, cst.ClassDef)):
                continue
            blocks += _suites(statement)
    return False


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
