"""A fast, sound screen on Python's `ast`: can this function hold a finding at all?

The detector is exact and walks every scope; this screen is cheap and only ever errs towards "maybe".
It answers no when no select call in the code can see a singular op: not in its arguments, not
through a local assigned from one, and no clamp sits directly inside an op (NAN102). Guards,
conditions and contexts only ever remove findings, so the screen ignores them.

A call counts as a select or an op when its last name is one the catalog knows and either its root
name is imported somewhere in the file (the detector resolves functions only through imports) or it
is a tensor method of a framework the file imports.
"""

from __future__ import annotations

import ast
from typing import Iterable, Optional, Union

from nanlint.catalog import CONSTANT_NAME, METADATA_ATTRS
from nanlint.catalog_view import CatalogView
from nanlint.limits import MAX_DEPTH
from nanlint.textscan import Imports

Function = Union[ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda]


class Screen:
    def __init__(self, catalog: CatalogView, imports: Imports) -> None:
        self.imported = imports.names
        self.renamed = imports.renamed
        self.select_leaves = catalog.select_function_leaves
        self.op_leaves = catalog.op_function_leaves
        self.select_methods, self.op_methods = catalog.method_names(imports.frameworks)

    def may_hold_finding(self, node: ast.AST, module_level: bool = False) -> bool:
        """Whether the detector could report anything in `node` (a function, class member or statement).

        At module level a name may be bound by any other statement of the file, so every name counts
        as one that could hold an op.
        """
        tainted = _AnyName() if module_level else self._tainted_names(node)
        for sub in ast.walk(node):
            if not isinstance(sub, ast.Call):
                continue
            inputs = _inputs(sub)
            if self._is_select(sub) and any(self._reaches_op(value, tainted) for value in inputs):
                return True
            if self._is_op_call(sub) and any(isinstance(v, ast.Call) and self._is_select(v) for v in inputs):
                return True  # sqrt(maximum(x, 0)): NAN102
        return False

    # --- what a call is ------------------------------------------------------------------------
    def _is_select(self, call: ast.Call) -> bool:
        return self._names_one_of(call.func, self.select_leaves, self.select_methods)

    def _is_op_call(self, call: ast.Call) -> bool:
        return self._names_one_of(call.func, self.op_leaves, self.op_methods)

    def _names_one_of(self, func: ast.expr, function_leaves: frozenset[str], methods: frozenset[str]) -> bool:
        leaf = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        if leaf is None:
            return False
        if isinstance(func, ast.Attribute) and leaf in methods:
            return True
        if leaf not in function_leaves and self.renamed.get(leaf) not in function_leaves:
            return False
        root = func
        while isinstance(root, ast.Attribute):
            root = root.value
        return isinstance(root, ast.Name) and root.id in self.imported

    # --- what can reach an op ------------------------------------------------------------------
    def _reaches_op(self, node: ast.AST, tainted) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call) and self._is_op_call(sub):
                return True
            if isinstance(sub, ast.BinOp) and _operator_may_leak(sub):
                return True
            if isinstance(sub, ast.Name) and sub.id in tainted:
                return True
        return False

    def _tainted_names(self, node: ast.AST) -> set[str]:
        """Names assigned, anywhere in `node`, from an expression that reaches an op: a superset of
        the locals the detector follows from a branch to an op."""
        assigned: dict[str, list[ast.expr]] = {}
        for sub in ast.walk(node):
            for target, value in _assignments(sub):
                assigned.setdefault(target, []).append(value)
        tainted: set[str] = set()
        changed = True
        while changed:
            changed = False
            for name, values in assigned.items():
                if name not in tainted and any(self._reaches_op(v, tainted) for v in values):
                    tainted.add(name)
                    changed = True
        return tainted


class _AnyName:
    def __contains__(self, name: object) -> bool:
        return True


def _inputs(call: ast.Call) -> list[ast.expr]:
    """Everything a call reads: its arguments and, for a method, its receiver."""
    values = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    if isinstance(call.func, ast.Attribute):
        values.append(call.func.value)
    return values


def _assignments(node: ast.AST) -> Iterable[tuple[str, ast.expr]]:
    if isinstance(node, ast.Assign):
        return [(t.id, node.value) for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None and isinstance(node.target, ast.Name):
        return [(node.target.id, node.value)]
    return []


def _operator_may_leak(node: ast.BinOp) -> bool:
    """`a / b`, `a % b`, `a ** p` unless the detector is sure to pass them by: a denominator that
    never depends on data, string formatting, or an exponent with a finite derivative everywhere."""
    if isinstance(node.op, (ast.Div, ast.Mod)):
        if isinstance(node.op, ast.Mod) and isinstance(node.left, (ast.JoinedStr, ast.Constant)) and isinstance(getattr(node.left, "value", ""), str):
            return False
        return not _never_data(node.right, 0)
    if isinstance(node.op, ast.Pow):
        exponent = _literal_number(node.right)
        return exponent is None or not (float(exponent).is_integer() and exponent >= 0)
    return False


def _never_data(node: ast.AST, depth: int) -> bool:
    """True only where `values.depends_on_data` is false whatever the bindings: literals, PEP 8
    constants and array metadata, and expressions of nothing else."""
    if depth > MAX_DEPTH:
        return False
    if isinstance(node, ast.Constant):
        return node.value is not Ellipsis
    if isinstance(node, ast.Name):
        return node.id in ("True", "False", "None")
    if isinstance(node, ast.Attribute):
        return bool(CONSTANT_NAME.match(node.attr)) or node.attr in METADATA_ATTRS
    if isinstance(node, ast.UnaryOp):
        return _never_data(node.operand, depth + 1)
    if isinstance(node, ast.BinOp):
        return _never_data(node.left, depth + 1) and _never_data(node.right, depth + 1)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_never_data(e, depth + 1) for e in node.elts)
    if isinstance(node, ast.Subscript):
        return _never_data(node.value, depth + 1)
    return False


def _literal_number(node: ast.AST) -> Optional[float]:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None
