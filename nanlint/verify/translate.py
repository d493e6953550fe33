"""Rebuild a checked expression as a data tree the verification worker can evaluate.

Only what the tree language can say is translated: framework calls by qualified name, tensor
methods, arithmetic, comparisons, constants and free variables. A call of anything that does not
resolve to a framework (a user function, a builtin) makes the expression unverifiable: the harness
never runs user code, and never evaluates source text.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import libcst as cst

from nanlint.analysis.names import Place, Scope, binding_at, qualified_name
from nanlint.analysis.syntax import is_number
from nanlint.catalog.tables import RANDOM_NAME, framework_of

Tree = list[Any]

_BINOPS = {
    cst.Add: "+",
    cst.Subtract: "-",
    cst.Multiply: "*",
    cst.Divide: "/",
    cst.FloorDivide: "//",
    cst.Modulo: "%",
    cst.Power: "**",
    cst.BitAnd: "&",
    cst.BitOr: "|",
    cst.BitXor: "^",
}
_UNARY = {cst.Minus: "-", cst.Plus: "+", cst.BitInvert: "~"}
_COMPARE = {
    cst.LessThan: "<",
    cst.LessThanEqual: "<=",
    cst.GreaterThan: ">",
    cst.GreaterThanEqual: ">=",
    cst.Equal: "==",
    cst.NotEqual: "!=",
}
_BOOLEANS = {"True": True, "False": False}
_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


class Untranslatable(Exception):
    """The expression uses something the harness will not evaluate; the message says what."""


class Translator:
    """Translates expressions of one module, resolving names as seen from one scope and position.

    `inline` maps local names to the expressions they stand for (the local of an indirect leak, a
    condition the fix hoisted); every other local name is a free variable that gets probe values.
    With `follow`, a local of the scope assigned before is translated from its definition (at the
    definition's place, so `x = f(x)` reads the `x` before it), as deep as `follow` says; a local
    whose definition the harness would not evaluate stays a free variable.
    """

    def __init__(
        self, code_for, scope: Scope, place: Place, inline: Optional[dict[str, cst.BaseExpression]] = None, follow: int = 0
    ) -> None:
        self.code_for = code_for
        self.scope = scope
        self.place = place
        self.inline = inline or {}
        self.follow = follow
        self._depth = 0

    def tree(self, node: cst.BaseExpression) -> Tree:
        if is_number(node):
            return ["const", node.evaluated_value]
        if isinstance(node, cst.Name) and node.value in _BOOLEANS:
            return ["const", _BOOLEANS[node.value]]
        if isinstance(node, cst.Name):
            return self._name(node)
        if isinstance(node, cst.Attribute):
            return self._attribute(node)
        if isinstance(node, cst.Call):
            return self._call(node)
        if isinstance(node, cst.BinaryOperation) and type(node.operator) in _BINOPS:
            return ["binop", _BINOPS[type(node.operator)], self.tree(node.left), self.tree(node.right)]
        if isinstance(node, cst.UnaryOperation) and type(node.operator) in _UNARY:
            return ["unary", _UNARY[type(node.operator)], self.tree(node.expression)]
        if isinstance(node, cst.Comparison):
            return self._comparison(node)
        if isinstance(node, (cst.Tuple, cst.List)) and not any(isinstance(e, cst.StarredElement) for e in node.elements):
            kind = "tuple" if isinstance(node, cst.Tuple) else "list"
            return [kind, [self.tree(e.value) for e in node.elements]]
        if isinstance(node, cst.NamedExpr):
            raise Untranslatable("the condition is bound with `:=`; it calls something nanlint does not evaluate twice")
        raise Untranslatable(f"`{_short(self.code_for(node))}` is not something the harness evaluates")

    def _name(self, node: cst.Name) -> Tree:
        name = node.value
        if name in self.inline:
            return self._inlined(name)
        binding = binding_at(self.scope, name, self.place)
        if binding is not None and binding.imported is not None:
            value = _constant(binding.imported)
            if value is None:
                raise Untranslatable(f"`{name}` names `{binding.imported}`, not a value")
            return ["const", value]
        if self.follow and binding is not None and binding.value is not None and binding.place < self.place:
            if any(b is binding for b in self.scope.bindings.get(name, ())):
                try:
                    return Translator(self.code_for, self.scope, binding.place, self.inline, self.follow - 1).tree(binding.value)
                except Untranslatable:
                    pass  # `logits = model(x)`: from here on, `logits` is what the probes stand in for
        return ["var", name]

    def _inlined(self, name: str) -> Tree:
        self._depth += 1
        try:
            if self._depth > 8:
                raise Untranslatable(f"`{name}` is defined in terms of itself")
            return self.tree(self.inline[name])
        finally:
            self._depth -= 1

    def _attribute(self, node: cst.Attribute) -> Tree:
        qualified = qualified_name(node, self.scope, self.place)
        if qualified is not None:
            value = _constant(qualified)
            if value is None:
                raise Untranslatable(f"`{qualified}` is not a value")
            return ["const", value]
        if _is_dotted_names(node):
            return ["var", self.code_for(node)]  # self.scale: data the probes stand in for
        raise Untranslatable(f"`{_short(self.code_for(node))}` is not something the harness evaluates")

    def _call(self, node: cst.Call) -> Tree:
        # What is called decides first: a user function is refused before its arguments are looked at.
        qualified = qualified_name(node.func, self.scope, self.place)
        if (qualified is None and not isinstance(node.func, cst.Attribute)) or (qualified is not None and framework_of(qualified) is None):
            raise Untranslatable(f"calls `{_short(self.code_for(node.func))}`, which is not a framework function; nanlint never runs user code")
        name = qualified or node.func.attr.value
        if RANDOM_NAME.search(name):
            raise Untranslatable(f"calls `{_short(self.code_for(node.func))}`, whose values are random: the fixed code cannot be compared with the original")
        receiver = self.tree(node.func.value) if qualified is None else None
        if any(a.star for a in node.args):
            raise Untranslatable("a call with *args or **kwargs")
        args = [self.tree(a.value) for a in node.args if a.keyword is None]
        kwargs = {a.keyword.value: self.tree(a.value) for a in node.args if a.keyword is not None}
        if qualified is not None:
            return ["fn", qualified, args, kwargs]  # the worker resolves aliases against its allowlist
        return ["method", node.func.attr.value, receiver, args, kwargs]

    def _comparison(self, node: cst.Comparison) -> Tree:
        parts: list[Tree] = []
        left = node.left
        for target in node.comparisons:
            comparator = target.comparator
            operator = _COMPARE.get(type(target.operator))
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


def _is_dotted_names(node: cst.BaseExpression) -> bool:
    while isinstance(node, cst.Attribute):
        node = node.value
    return isinstance(node, cst.Name)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 50 else text[:49] + "…"
