"""Rebuild a checked expression as a data tree the verification worker can evaluate.

Only what the tree language can say is translated: framework calls by qualified name, tensor
methods, arithmetic, comparisons, constants and free variables. A call of anything that does not
resolve to a framework (a user function, a builtin) makes the expression unverifiable: the harness
never runs user code, and never evaluates source text.
"""

from __future__ import annotations

import math
from typing import Any, Callable, Optional

import libcst as cst

from nanlint.analysis.names import Place, Scope, binding_at, qualified_name
from nanlint.analysis.syntax import COMPARISON_SYMBOLS, is_number
from nanlint.catalog.tables import DTYPE_ARGUMENT_OF_FUNCTION, DTYPE_ARGUMENT_OF_METHOD, DTYPE_NAMES, RANDOM_NAME, framework_of
from nanlint.limits import MAX_WAY

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
_BOOLEANS = {"True": True, "False": False}
_AUGMENTED = {
    cst.AddAssign: "+",
    cst.SubtractAssign: "-",
    cst.MultiplyAssign: "*",
    cst.DivideAssign: "/",
    cst.FloorDivideAssign: "//",
    cst.ModuloAssign: "%",
    cst.PowerAssign: "**",
}
_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan}


class Untranslatable(Exception):
    """The expression uses something the harness will not evaluate; the message says what."""


class Translator:
    """Translates expressions of one scope, resolving names as seen from one place in it.

    A local of the scope is translated from its own statement (an assignment, a part of a literal
    tuple, `name op= value`), at that statement's place, so `x = f(x)` reads the `x` before it: the
    trees are the function's own computation, down to its parameters. What it cannot follow stays a
    free variable that the probes stand in for, and `unmodeled` says why (a value from a call the
    harness does not run, a name a loop binds): the gradient is then proven for the select only.
    A closure's name is followed into the enclosing function; a module-level name bound to a
    constant expression is that constant.
    """

    def __init__(
        self,
        code_for,
        scope: Scope,
        place: Place,
        follow: int = MAX_WAY,
        unmodeled: Optional[list[str]] = None,
        runs: Callable[[str], bool] = lambda name: True,
        assumed: Optional[list[str]] = None,
    ) -> None:
        """`runs(qualified_name)`: whether the worker can call that function."""
        self.code_for = code_for
        self.scope = scope
        self.place = place
        self.follow = follow
        self.unmodeled: list[str] = [] if unmodeled is None else unmodeled
        self.runs = runs
        self.assumed: list[str] = [] if assumed is None else assumed  # what the verdict's notes must say

    def at(self, place: Place) -> "Translator":
        """The same translation, one statement deeper, from an earlier place."""
        return Translator(self.code_for, self.scope, place, self.follow - 1, self.unmodeled, self.runs, self.assumed)

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
        binding = binding_at(self.scope, name, self.place)
        if binding is None:
            return ["var", name]  # a global the module never binds: an input, as far as nanlint can see
        if binding.imported is not None:
            value = _constant(binding.imported)
            if value is None:
                raise Untranslatable(f"`{name}` names `{binding.imported}`, not a value")
            return ["const", value]
        if not any(b is binding for b in self.scope.bindings.get(name, ())):
            owner = _owner(self.scope, binding)
            if isinstance(owner.node, (cst.FunctionDef, cst.Lambda)):
                # A closure reads the enclosing function's local: that function's statements compute it.
                return Translator(self.code_for, owner, self.place, self.follow, self.unmodeled, self.runs, self.assumed)._local(name, binding)
            return self._outer(name, binding)
        if binding.place >= self.place:
            return ["var", name]  # bound only later (a loop, a closure): what the probes stand in for
        return self._local(name, binding)

    def _local(self, name: str, binding) -> Tree:
        """A name of this scope, from the statement that binds it."""
        if binding is self.scope.bindings[name][0] and binding.value is None and binding.augmented is None and self._is_parameter(name):
            return ["var", name]
        if self.follow <= 0:
            self.unmodeled.append(f"`{name}` is defined more than {MAX_WAY} statements away")
            return ["var", name]
        if binding.augmented is not None:
            return self._augmented(name, binding)
        if binding.value is None:
            self.unmodeled.append(f"`{name}` is bound by a loop, an unpacking or a `with`, which nanlint does not follow")
            return ["var", name]
        try:
            return self.at(binding.place).tree(binding.value)
        except Untranslatable as error:
            # `g = optax.tree.norm(u)`: from here on, `g` is what the probes stand in for.
            self.unmodeled.append(f"`{name}` comes from `{_short(self.code_for(binding.value))}` ({error})")
            return ["var", name]

    def _augmented(self, name: str, binding) -> Tree:
        statement = binding.augmented
        operator = _AUGMENTED.get(type(statement.operator))
        if operator is None:
            self.unmodeled.append(f"`{name}` is updated by `{_short(self.code_for(statement))}`")
            return ["var", name]
        inner = self.at(binding.place)
        return ["binop", operator, inner._name(statement.target), inner.tree(statement.value)]

    def _outer(self, name: str, binding) -> Tree:
        """A module-level name: a constant expression (`EPS = 1e-6`), else an input."""
        if binding.value is not None and self.follow > 0:
            try:
                tree = Translator(self.code_for, _owner(self.scope, binding), binding.place, self.follow - 1, [], self.runs).tree(binding.value)
            except Untranslatable:
                tree = None
            if tree is not None and not variables(tree) and not functions(tree) and tree[0] in ("const", "binop", "unary"):
                return tree
        return ["var", name]

    def _is_parameter(self, name: str) -> bool:
        node = self.scope.node
        if not isinstance(node, (cst.FunctionDef, cst.Lambda)):
            return False
        params = node.params
        every = [*params.posonly_params, *params.params, *params.kwonly_params]
        every += [p for p in (params.star_arg, params.star_kwarg) if isinstance(p, cst.Param)]
        return any(p.name.value == name for p in every)

    def _attribute(self, node: cst.Attribute) -> Tree:
        if node.attr.value == "dtype":
            # A probe variable's dtype is the probes' own: `self.dtype` makes no variable of `self`.
            inner = Translator(self.code_for, self.scope, self.place, self.follow, [], self.runs, [])
            try:
                if inner.tree(node.value)[0] == "var":
                    return ["dtype", "probe"]
            except Untranslatable:
                pass
            return ["dtype_of", self.tree(node.value)]
        qualified = qualified_name(node, self.scope, self.place)
        if qualified is not None and qualified.rpartition(".")[2] in DTYPE_NAMES:
            return ["dtype", qualified.rpartition(".")[2]]  # jnp.float32, tf.float32, torch.float32
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
        positional = [a.value for a in node.args if a.keyword is None]
        at = (DTYPE_ARGUMENT_OF_FUNCTION if qualified is not None else DTYPE_ARGUMENT_OF_METHOD).get(name.rpartition(".")[2])
        args = [self._dtype(a) if i == at else self.tree(a) for i, a in enumerate(positional)]
        kwargs = {
            a.keyword.value: self._dtype(a.value) if a.keyword.value == "dtype" else self.tree(a.value) for a in node.args if a.keyword is not None
        }
        if qualified is not None:
            if not self.runs(qualified):
                raise Untranslatable(f"`{qualified}` is not a function the harness runs")
            return ["fn", qualified, args, kwargs]  # the worker resolves aliases against its allowlist
        return ["method", node.func.attr.value, receiver, args, kwargs]

    def _dtype(self, node: cst.BaseExpression) -> Tree:
        """An argument that is a dtype: by name, or a tensor's own (`x.dtype`). One nanlint cannot
        know (`dtype = result_type(...)`) is taken as the probes' dtype, and the verdict says so."""
        if isinstance(node, cst.SimpleString) and node.evaluated_value in DTYPE_NAMES:
            return ["dtype", node.evaluated_value]
        inner = Translator(self.code_for, self.scope, self.place, self.follow, [], self.runs, self.assumed)
        try:
            tree = inner.tree(node)
        except Untranslatable:
            tree = None
        if tree is None or tree[0] not in ("dtype", "dtype_of"):
            self.assumed.append(f"the dtype `{_short(self.code_for(node))}` is taken to be the probes' dtype")
            return ["dtype", "probe"]
        self.unmodeled.extend(inner.unmodeled)
        return tree

    def _comparison(self, node: cst.Comparison) -> Tree:
        parts: list[Tree] = []
        left = node.left
        for target in node.comparisons:
            comparator = target.comparator
            operator = COMPARISON_SYMBOLS.get(type(target.operator))
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


def _owner(scope: Scope, binding) -> Scope:
    """The scope around `scope` that holds `binding`."""
    for candidate in scope.lookup_chain():
        if any(b is binding for b in candidate.bindings.get(binding.name, ())):
            return candidate
    return scope


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
