"""Rebuild a checked expression as a data tree the verification worker can evaluate.

Only what the tree language can say is translated: framework calls by qualified name, tensor
methods, arithmetic, comparisons, constants and free variables. A call of anything that does not
resolve to a framework (a user function, a builtin) makes the expression unverifiable: the harness
never runs user code, and never evaluates source text.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import ast

from nanlint.catalog.tables import framework_of
from nanlint.analysis.names import Scope, binding_at, qualified_name
from nanlint.analysis.syntax import is_number

Tree = list[Any]

_BINOPS = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
}
_UNARY = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}
_COMPARE = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


class Untranslatable(Exception):
    """The expression uses something the harness will not evaluate; the message says what."""


class Translator:
    """Translates expressions of one module, resolving names as seen from one scope and position.

    `inline` maps local names to the expressions they stand for (the local of an indirect leak, a
    condition the fix hoisted); every other local name is a free variable that gets probe values.
    """

    def __init__(self, code_for, scope: Scope, position, inline: Optional[dict[str, ast.expr]] = None) -> None:
        self.code_for = code_for
        self.scope = scope
        self.position = position
        self.inline = inline or {}
        self._depth = 0

    def tree(self, node: ast.expr) -> Tree:
        if is_number(node) or (isinstance(node, ast.Constant) and isinstance(node.value, bool)):
            return ["const", node.value]
        if isinstance(node, ast.Name):
            return self._name(node)
        if isinstance(node, ast.Attribute):
            return self._attribute(node)
        if isinstance(node, ast.Call):
            return self._call(node)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return ["binop", _BINOPS[type(node.op)], self.tree(node.left), self.tree(node.right)]
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            return ["unary", _UNARY[type(node.op)], self.tree(node.operand)]
        if isinstance(node, ast.Compare):
            return self._comparison(node)
        if isinstance(node, (ast.Tuple, ast.List)):
            kind = "tuple" if isinstance(node, ast.Tuple) else "list"
            return [kind, [self.tree(e) for e in node.elts]]
        if isinstance(node, ast.NamedExpr):
            raise Untranslatable("the condition is bound with `:=`; it calls something nanlint does not evaluate twice")
        raise Untranslatable(f"`{_short(self.code_for(node))}` is not something the harness evaluates")

    def _name(self, node: ast.Name) -> Tree:
        if node.id in self.inline:
            return self._inlined(node.id)
        binding = binding_at(self.scope, node.id, self.position)
        if binding is not None and binding.imported is not None:
            value = _constant(binding.imported)
            if value is None:
                raise Untranslatable(f"`{node.id}` names `{binding.imported}`, not a value")
            return ["const", value]
        return ["var", node.id]

    def _inlined(self, name: str) -> Tree:
        self._depth += 1
        try:
            if self._depth > 8:
                raise Untranslatable(f"`{name}` is defined in terms of itself")
            return self.tree(self.inline[name])
        finally:
            self._depth -= 1

    def _attribute(self, node: ast.Attribute) -> Tree:
        qualified = qualified_name(node, self.scope, self.position)
        if qualified is not None:
            value = _constant(qualified)
            if value is None:
                raise Untranslatable(f"`{qualified}` is not a value")
            return ["const", value]
        if _is_dotted_names(node):
            return ["var", self.code_for(node)]  # self.scale: data the probes stand in for
        raise Untranslatable(f"`{_short(self.code_for(node))}` is not something the harness evaluates")

    def _call(self, node: ast.Call) -> Tree:
        # What is called decides first: a user function is refused before its arguments are looked at.
        qualified = qualified_name(node.func, self.scope, self.position)
        if (qualified is None and not isinstance(node.func, ast.Attribute)) or (qualified is not None and framework_of(qualified) is None):
            raise Untranslatable(f"calls `{_short(self.code_for(node.func))}`, which is not a framework function; nanlint never runs user code")
        receiver = self.tree(node.func.value) if qualified is None else None
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise Untranslatable("a call with *args or **kwargs")
        args = [self.tree(a) for a in node.args]
        kwargs = {k.arg: self.tree(k.value) for k in node.keywords}
        if qualified is not None:
            return ["fn", qualified, args, kwargs]  # the worker resolves aliases against its allowlist
        return ["method", node.func.attr, receiver, args, kwargs]

    def _comparison(self, node: ast.Compare) -> Tree:
        parts: list[Tree] = []
        left = node.left
        for operator_node, comparator in zip(node.ops, node.comparators):
            operator = _COMPARE.get(type(operator_node))
            if operator is None:
                raise Untranslatable(f"the comparison `{_short(self.code_for(node))}`")
            parts.append(["compare", operator, self.tree(left), self.tree(comparator)])
            left = comparator
        tree = parts[0]
        for part in parts[1:]:
            tree = ["binop", "&", tree, part]  # a < b < c on arrays
        return tree


def walk(tree: Tree):
    """Every node of a tree, the tree first."""
    yield tree
    for part in tree[1:]:
        if isinstance(part, dict):
            children = list(part.values())
        elif isinstance(part, list) and part and isinstance(part[0], str):
            children = [part]  # a subtree
        elif isinstance(part, list):
            children = part  # a list of subtrees (call arguments, tuple items)
        else:
            continue
        for child in children:
            yield from walk(child)


def variables(tree: Tree) -> set[str]:
    """The free variables of a tree."""
    return {node[1] for node in walk(tree) if node[0] == "var"}


def functions(tree: Tree) -> set[str]:
    """The qualified names of the framework functions a tree calls."""
    return {node[1] for node in walk(tree) if node[0] == "fn"}


def _constant(qualified: str) -> Optional[float]:
    module, _, leaf = qualified.rpartition(".")
    if leaf in _CONSTANTS and module.split(".")[0] in ("math", "numpy", "jax", "tensorflow", "torch"):
        return _CONSTANTS[leaf]
    return None


def _is_dotted_names(node: ast.expr) -> bool:
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:49] + "…"
