"""Which framework function an expression names, through the file's imports and local bindings.

A light replacement for libcst's QualifiedNameProvider: one pass records every binding per scope
(imports, assignments, parameters, defs) with its position; `qualified_name` then resolves
`jnp.where` to `jax.numpy.where` unless something local shadows `jnp` at that point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional, Union

import libcst as cst
from libcst.metadata import CodeRange

Position = tuple[int, int]  # (line, column0): ordering of bindings and uses within a file


@dataclass
class Binding:
    name: str
    position: Position
    # The qualified name when the binding is an import, else None.
    imported: Optional[str] = None
    # The assigned expression for `name = value` / `name := value`, else None (parameters, loops, ...).
    value: Optional[cst.BaseExpression] = None


@dataclass
class Scope:
    node: cst.CSTNode
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


FunctionLike = Union[cst.FunctionDef, cst.Lambda]


class ScopeIndex(cst.CSTVisitor):
    """Collects every scope and binding of a module, and the scope each node of interest sits in."""

    def __init__(self, positions: dict[cst.CSTNode, CodeRange], interesting_call) -> None:
        self.positions = positions
        self.interesting_call = interesting_call
        self.calls: list[tuple[cst.Call, Scope]] = []
        # (outer call, interesting call it takes as an argument or receiver, scope): `sqrt(maximum(x, 0))`.
        self.wrapping: list[tuple[cst.Call, cst.Call, Scope]] = []
        # alias -> original name, for `from jax.numpy import where as w` (a call to `w` is a candidate).
        self.renamed: dict[str, str] = {}
        self.scope_of: dict[int, Scope] = {}
        self.module_scope: Optional[Scope] = None
        self._stack: list[Scope] = []

    # --- scopes -----------------------------------------------------------------------------
    def _push(self, node: cst.CSTNode, is_class: bool = False) -> Scope:
        scope = Scope(node, self._stack[-1] if self._stack else None, is_class)
        self._stack.append(scope)
        self.scope_of[id(node)] = scope
        return scope

    def _pos(self, node: cst.CSTNode) -> Position:
        start = self.positions[node].start
        return (start.line, start.column)

    @property
    def scope(self) -> Scope:
        return self._stack[-1]

    def visit_Module(self, node: cst.Module) -> None:
        self.module_scope = self._push(node)

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.scope.bind(Binding(node.name.value, self._pos(node)))
        scope = self._push(node)
        self._bind_params(node.params, scope)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._stack.pop()

    def visit_Lambda(self, node: cst.Lambda) -> None:
        scope = self._push(node)
        self._bind_params(node.params, scope)

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._stack.pop()

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.scope.bind(Binding(node.name.value, self._pos(node)))
        self._push(node, is_class=True)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self._stack.pop()

    def _bind_params(self, params: cst.Parameters, scope: Scope) -> None:
        everything = [*params.posonly_params, *params.params, *params.kwonly_params]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                everything.append(star)
        for param in everything:
            scope.bind(Binding(param.name.value, self._pos(param)))

    # --- bindings ---------------------------------------------------------------------------
    def visit_Import(self, node: cst.Import) -> None:
        for alias in node.names:
            dotted = _dotted(alias.name)
            if alias.asname is not None:
                self._bind_target(alias.asname.name, imported=dotted)
                self._note_rename(alias.asname.name, dotted)
            else:
                # `import jax.numpy` binds `jax`, through which `jax.numpy.where` resolves.
                top = dotted.split(".", 1)[0]
                self.scope.bind(Binding(top, self._pos(node), imported=top))

    def visit_ImportFrom(self, node: cst.ImportFrom) -> None:
        if node.relative or node.module is None or isinstance(node.names, cst.ImportStar):
            return
        module = _dotted(node.module)
        for alias in node.names:
            name = _dotted(alias.name)
            target = alias.asname.name if alias.asname is not None else alias.name
            self._bind_target(target, imported=f"{module}.{name}")
            self._note_rename(target, name)

    def _note_rename(self, target: cst.BaseExpression, original: str) -> None:
        if isinstance(target, cst.Name) and target.value != original:
            self.renamed[target.value] = original.rsplit(".", 1)[-1]

    # An assignment binds once its value is computed: `b = b.clip(0)` reads the previous `b`.
    def visit_Assign(self, node: cst.Assign) -> None:
        for target in node.targets:
            self._bind_target(target.target, value=node.value, after=node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        if node.value is not None:
            self._bind_target(node.target, value=node.value, after=node)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._bind_target(node.target, after=node)

    def visit_NamedExpr(self, node: cst.NamedExpr) -> None:
        self._bind_target(node.target, value=node.value, after=node)

    def visit_For(self, node: cst.For) -> None:
        self._bind_target(node.target)

    def visit_CompFor(self, node: cst.CompFor) -> None:
        self._bind_target(node.target)

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None:
            self._bind_target(node.asname.name)

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        if node.name is not None:
            self._bind_target(node.name.name)

    def _bind_target(self, target: cst.CSTNode, *, value=None, imported: Optional[str] = None, after=None) -> None:
        if isinstance(target, cst.Name):
            end = self.positions[after].end if after is not None else None
            position = (end.line, end.column) if end is not None else self._pos(target)
            self.scope.bind(Binding(target.value, position, imported=imported, value=value))
        elif isinstance(target, (cst.Tuple, cst.List)):
            # Unpacking: each name is bound, but to an unknown part of the value.
            for element in target.elements:
                self._bind_target(element.value, after=after)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(target.value, after=after)

    # --- uses ---------------------------------------------------------------------------------
    def visit_Call(self, node: cst.Call) -> None:
        if self.interesting_call(node):
            self.calls.append((node, self.scope))
        inner = [a.value for a in node.args] + ([node.func.value] if isinstance(node.func, cst.Attribute) else [])
        for value in inner:
            if isinstance(value, cst.Call) and self.interesting_call(value):
                self.wrapping.append((node, value, self.scope))


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    if isinstance(node, cst.Attribute):
        return f"{_dotted(node.value)}.{node.attr.value}"
    raise TypeError(f"not a dotted name: {node!r}")


def binding_at(scope: Scope, name: str, position: Position) -> Optional[Binding]:
    """The binding of `name` visible at `position`, following Python's scoping.

    A name bound anywhere in a function is local to all of it; the latest binding before the use
    wins, and a use before every binding (a loop, a closure) sees the last one.
    """
    for candidate in scope.lookup_chain():
        bindings = candidate.bindings.get(name)
        if not bindings:
            continue
        before = [b for b in bindings if b.position < position]
        return before[-1] if before else bindings[-1]
    return None


def qualified_name(node: cst.BaseExpression, scope: Scope, position: Position) -> Optional[str]:
    """`jnp.linalg.norm` -> `jax.numpy.linalg.norm` when `jnp` is an import visible here, else None."""
    attrs: list[str] = []
    while isinstance(node, cst.Attribute):
        attrs.append(node.attr.value)
        node = node.value
    if not isinstance(node, cst.Name):
        return None
    binding = binding_at(scope, node.value, position)
    if binding is None or binding.imported is None:
        return None
    return ".".join([binding.imported, *reversed(attrs)])


def leaf_name(func: cst.BaseExpression) -> Optional[str]:
    """The last name of a called expression: `where` for `jnp.where`, `w` for `w`."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None
