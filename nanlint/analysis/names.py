"""Which framework function an expression names, through the file's imports and local bindings.

A light replacement for a full scope analysis: one pass records every binding per scope (imports,
assignments, parameters, defs) with its position; `qualified_name` then resolves `jnp.where` to
`jax.numpy.where` unless something local shadows `jnp` at that point.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

from nanlint.analysis.syntax import call_arguments, children

Position = tuple[int, int]  # (line, byte column): ordering of bindings and uses within a file


@dataclass
class Binding:
    name: str
    position: Position
    # The qualified name when the binding is an import, else None.
    imported: Optional[str] = None
    # The assigned expression for `name = value` / `name := value`, else None (parameters, loops, ...).
    value: Optional[ast.expr] = None


@dataclass
class Scope:
    node: ast.AST
    parent: Optional["Scope"]
    is_class: bool = False
    bindings: dict[str, list[Binding]] = field(default_factory=dict)

    def bind(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    def lookup_chain(self) -> Iterator["Scope"]:
        """This scope, then the enclosing ones; class bodies are invisible from nested functions."""
        scope: Optional[Scope] = self
        first = True
        while scope is not None:
            if first or not scope.is_class:
                yield scope
            first = False
            scope = scope.parent


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Nodes that bind and call nothing themselves (their children may): the index passes them by,
# and it never visits the ones that have no children (a name read, a constant).
_PLAIN = frozenset({ast.Attribute, ast.BinOp, ast.Subscript, ast.Compare, ast.keyword, ast.Expr, ast.Return, ast.Tuple, ast.List})
_CHILDLESS = frozenset({ast.Name, ast.Constant})


def position(node: ast.AST) -> Position:
    """Where a node starts; a decorated definition starts at its first decorator."""
    if isinstance(node, (*_FUNCTIONS, ast.ClassDef)) and node.decorator_list:
        first = node.decorator_list[0]
        return (first.lineno, first.col_offset - 1)  # the `@`
    return (node.lineno, node.col_offset)


def end_position(node: ast.AST) -> Position:
    return (node.end_lineno, node.end_col_offset)


class ScopeIndex:
    """Every scope and binding of a module, the scope each candidate call sits in, and the calls
    that take a candidate as an argument or receiver (`sqrt(maximum(x, 0))`)."""

    def __init__(self, tree: ast.Module, interesting_call: Callable[[ast.Call, dict[str, str]], bool]) -> None:
        """`interesting_call(call, renamed)`: whether a call is a candidate, given the renames seen so far."""
        self.interesting_call = interesting_call
        self.calls: list[tuple[ast.Call, Scope]] = []
        self.wrapping: list[tuple[ast.Call, ast.Call, Scope]] = []
        # alias -> original name, for `from jax.numpy import where as w` (a call to `w` is a candidate).
        self.renamed: dict[str, str] = {}
        self.scope_of: dict[int, Scope] = {}
        self.module_scope = self._new_scope(tree, None)
        self._index(tree)

    def _new_scope(self, node: ast.AST, parent: Optional[Scope], is_class: bool = False) -> Scope:
        scope = Scope(node, parent, is_class)
        self.scope_of[id(node)] = scope
        return scope

    def _index(self, tree: ast.Module) -> None:
        # Depth first in source order; each node is visited in the scope it belongs to. A def's
        # decorators, defaults and annotations are read in its own scope, as its body is.
        stack: list[tuple[ast.AST, Scope]] = [(tree, self.module_scope)]
        while stack:
            node, scope = stack.pop()
            inner = self._visit(node, scope) if type(node) not in _PLAIN else scope
            stack.extend((child, inner) for child in reversed(children(node)) if type(child) not in _CHILDLESS)

    def _visit(self, node: ast.AST, scope: Scope) -> Scope:
        """Record what `node` binds or calls; returns the scope its children are in."""
        kind = type(node)
        if kind in _FUNCTIONS:
            scope.bind(Binding(node.name, position(node)))
            inner = self._new_scope(node, scope)
            self._bind_params(node.args, inner)
            return inner
        if kind is ast.Lambda:
            inner = self._new_scope(node, scope)
            self._bind_params(node.args, inner)
            return inner
        if kind is ast.ClassDef:
            scope.bind(Binding(node.name, position(node)))
            return self._new_scope(node, scope, is_class=True)
        if kind is ast.Call:
            self._visit_call(node, scope)
        elif kind is ast.Assign:
            for target in node.targets:
                self._bind_target(scope, target, value=node.value, after=node)
        elif kind is ast.AnnAssign:
            if node.value is not None:
                self._bind_target(scope, node.target, value=node.value, after=node)
        elif kind is ast.AugAssign:
            self._bind_target(scope, node.target, after=node)
        elif kind is ast.NamedExpr:
            self._bind_target(scope, node.target, value=node.value, after=node)
        elif kind in (ast.For, ast.AsyncFor, ast.comprehension):
            self._bind_target(scope, node.target)
        elif kind is ast.withitem:
            if node.optional_vars is not None:
                self._bind_target(scope, node.optional_vars)
        elif kind is ast.ExceptHandler:
            if node.name is not None:
                scope.bind(Binding(node.name, position(node)))
        elif kind is ast.Import:
            self._visit_import(node, scope)
        elif kind is ast.ImportFrom:
            self._visit_import_from(node, scope)
        return scope

    def _bind_params(self, params: ast.arguments, scope: Scope) -> None:
        everything = [*params.posonlyargs, *params.args, *params.kwonlyargs]
        for star in (params.vararg, params.kwarg):
            if star is not None:
                everything.append(star)
        for param in everything:
            scope.bind(Binding(param.arg, position(param)))

    def _visit_import(self, node: ast.Import, scope: Scope) -> None:
        for alias in node.names:
            if alias.asname is not None:
                scope.bind(Binding(alias.asname, position(alias), imported=alias.name))
                self._note_rename(alias.asname, alias.name)
            else:
                # `import jax.numpy` binds `jax`, through which `jax.numpy.where` resolves.
                top = alias.name.split(".", 1)[0]
                scope.bind(Binding(top, position(node), imported=top))

    def _visit_import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        if node.level or node.module is None:
            return
        for alias in node.names:
            if alias.name == "*":
                return
            target = alias.asname or alias.name
            scope.bind(Binding(target, position(alias), imported=f"{node.module}.{alias.name}"))
            self._note_rename(target, alias.name)

    def _note_rename(self, target: str, original: str) -> None:
        if target != original:
            self.renamed[target] = original.rsplit(".", 1)[-1]

    # An assignment binds once its value is computed: `b = b.clip(0)` reads the previous `b`.
    def _bind_target(self, scope: Scope, target: ast.AST, *, value=None, after=None) -> None:
        if isinstance(target, ast.Name):
            where = end_position(after) if after is not None else position(target)
            scope.bind(Binding(target.id, where, value=value))
        elif isinstance(target, (ast.Tuple, ast.List)):
            # Unpacking: each name is bound, but to an unknown part of the value.
            for element in target.elts:
                self._bind_target(scope, element, after=after)
        elif isinstance(target, ast.Starred):
            self._bind_target(scope, target.value, after=after)

    def _visit_call(self, node: ast.Call, scope: Scope) -> None:
        if self.interesting_call(node, self.renamed):
            self.calls.append((node, scope))
        inner = call_arguments(node)
        if isinstance(node.func, ast.Attribute):
            inner.append(node.func.value)
        for value in inner:
            if isinstance(value, ast.Call) and self.interesting_call(value, self.renamed):
                self.wrapping.append((node, value, scope))


def binding_at(scope: Scope, name: str, at: Position) -> Optional[Binding]:
    """The binding of `name` visible at `at`, following Python's scoping.

    A name bound anywhere in a function is local to all of it; the latest binding before the use
    wins, and a use before every binding (a loop, a closure) sees the last one.
    """
    for candidate in scope.lookup_chain():
        bindings = candidate.bindings.get(name)
        if not bindings:
            continue
        for binding in reversed(bindings):
            if binding.position < at:
                return binding  # the last one bound before `at`
        return bindings[-1]
    return None


def qualified_name(node: ast.AST, scope: Scope, at: Position) -> Optional[str]:
    """`jnp.linalg.norm` -> `jax.numpy.linalg.norm` when `jnp` is an import visible here, else None."""
    attrs: list[str] = []
    while isinstance(node, ast.Attribute):
        attrs.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    binding = binding_at(scope, node.id, at)
    if binding is None or binding.imported is None:
        return None
    return ".".join([binding.imported, *reversed(attrs)])


def leaf_name(func: ast.AST) -> Optional[str]:
    """The last name of a called expression: `where` for `jnp.where`, `w` for `w`."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
