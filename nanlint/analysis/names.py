"""Which framework function an expression names, through the file's imports and local bindings.

A light scope analysis of its own, measured against libcst's ScopeProvider and
QualifiedNameProvider (docs/performance.md): one walk over the kept units records every binding
per scope (imports, assignments, parameters, defs) with its place in source order; `qualified_name`
then resolves `jnp.where` to `jax.numpy.where` unless something local shadows `jnp` at that point.

Places are numbers in source order, counted over the units in file order: a binding by assignment
takes effect after the whole statement (`b = b.clip(0)` reads the previous `b`). Source order is not
the only way in: a binding in an `if`'s body never reaches its `else` (outside a loop), nor one in
an arm that returns the code after it (`Scope.never_reaches`).
"""

from __future__ import annotations

import builtins
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional

import libcst as cst

from nanlint.analysis.tree import UnitTree, children, walk
from nanlint.analysis.syntax import keyword_value, positional, string_value
from nanlint.catalog.tables import ARRAY_API_MODULE, NAMESPACE_GETTERS, NAMESPACE_METHOD, NAMESPACE_SELECT, PARTIAL_APPLICATION, STATIC_ARGUMENTS

Place = int


@dataclass(frozen=True)
class ElementStore:
    """`name[i] = value` (`replaces`) or `name[i] += value`: some elements of the array bound before
    changed, the rest are as they were. `name` is the target's own name, read where the store is."""

    name: cst.Name
    value: cst.BaseExpression
    replaces: bool


@dataclass(eq=False)
class Binding:
    name: str
    place: Place
    # The qualified name when the binding is an import, else None.
    imported: Optional[str] = None
    # The assigned expression for `name = value` / `name := value`, else None (parameters, loops, ...).
    value: Optional[cst.BaseExpression] = None
    # `name += value`: the statement (its operator and value apply to the binding before it).
    augmented: Optional[cst.AugAssign] = None
    # A parameter's annotation, its last name (`int` for `n: int`, `Array` for `x: jax.Array`).
    annotation: Optional[str] = None
    # `def name(...)`: the definition (what a call of it returns is read from it: inline.py).
    function: Optional[cst.FunctionDef] = None
    # A parameter: data, whatever its name's case (`M1`, a mass, is not a module constant).
    parameter: bool = False
    # A module's `def` or `class` (read or not): it reads no function's locals.
    module_definition: bool = False
    # `a, b = value` with a value that is not a literal tuple: the value `name` is a part of.
    part_of: Optional[cst.BaseExpression] = None
    # `for name in values`: what the loop takes `name` from, one element at a time.
    iterated: Optional[cst.BaseExpression] = None
    # A method's first parameter (`self`): its methods are the class's own, never a namespace's.
    receiver: bool = False
    # Called as an array namespace is, `name.where(condition, x, y)`: a backend object standing for
    # an array module (`B = backends[name]`), read as an array API namespace.
    namespace: bool = False
    # An imported module's functions that stand for an array module's: `where` -> `jax.numpy.where`.
    members: Optional[dict[str, str]] = None
    # A parameter the function's `jax.jit` decorator takes as static: a Python value, never a tracer.
    static: bool = False
    # `name[i] = value`: a store into some elements of the array bound before (torch, NumPy).
    element_store: Optional[ElementStore] = None


@dataclass(eq=False)
class Scope:
    node: Optional[cst.CSTNode]  # the function, lambda or class; None for the module
    parent: Optional["Scope"]
    is_class: bool = False
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    # The places each `if`, loop, `try` and `match` statement spans: a binding inside one may not
    # have run when a place after it is reached.
    spans: list[tuple[Place, Place]] = field(default_factory=list)
    # Each `if` with an `else`: where it starts, where its body and its `else` start, where it ends.
    forks: list[tuple[Place, Place, Place, Place]] = field(default_factory=list)
    # The places each `for` and `while` statement spans: its body may run again after any of it.
    loops: list[tuple[Place, Place]] = field(default_factory=list)
    # The places each arm of an `if` spans that ends in `return` or `raise`, outside any `try` (or,
    # for a `raise`, any `with`, which may suppress it): no binding there reaches the code after it.
    exits: list[tuple[Place, Place]] = field(default_factory=list)
    # Names declared `global` or `nonlocal` here: another call's binding, from any arm, may be seen.
    shared: set[str] = field(default_factory=set)
    # Names a relative import binds here (`from ..backend import backend`), and where: they bind
    # nothing nanlint can resolve, unless used as an array namespace is.
    relative_imports: dict[str, Place] = field(default_factory=dict)
    # (name, place) -> bindings_reaching's answer: asked again by every value question about a use,
    # and fixed once the index is built (only binding_at is asked while it is).
    reaching: dict[tuple[str, Place], list[Binding]] = field(default_factory=dict)

    def bind(self, binding: Binding) -> None:
        self.bindings.setdefault(binding.name, []).append(binding)

    def maybe_skipped(self, place: Place, at: Place) -> bool:
        """Whether code at `place` sits in a branch, loop or `try` that `at` is outside of, or in the
        other arm of an `if` that holds `at` (run in a loop's turn before, if at all)."""
        return any(start <= place <= end and not start <= at <= end for start, end in self.spans) or bool(self._arms_apart(place, at))

    def never_reaches(self, name: str, place: Place, at: Place) -> bool:
        """Whether a binding of `name` at `place` is never seen at `at`: it is in the body of an `if`
        whose `else` holds `at`, and no loop of this scope holds that `if`; or in an arm that returns.
        Not for a `global` or `nonlocal` name, which a call before may have bound anywhere."""
        if (not self.forks and not self.exits) or name in self.shared:
            return False  # most scopes: asked at every lookup, answered at once
        return any(not any(s <= start and end <= e for s, e in self.loops) for start, end in self._arms_apart(place, at)) or any(
            start <= place <= end and not start <= at <= end for start, end in self.exits
        )

    def _arms_apart(self, place: Place, at: Place) -> list[tuple[Place, Place]]:
        """The spans of the `if`s whose body holds `place` and whose `else` holds `at`."""
        return [(start, end) for start, body, middle, end in self.forks if body <= place < middle <= at <= end]

    def _innermost(self, place: Place, at: Place) -> Optional[tuple[Place, Place]]:
        """The smallest span holding `place` and not `at`."""
        holding = [(start, end) for start, end in self.spans if start <= place <= end and not start <= at <= end]
        return max(holding, default=None)

    def unreachable_before(self, found: list[Binding], at: Place) -> tuple[Place, Place]:
        """The places whose bindings an `if`/`else` that binds the name in both arms (among `found`,
        directly in each arm) replaces on every way to `at`: none, when no such `if`."""
        low, high = 0, 0
        for start, _, middle, end in self.forks:
            if start <= at <= end:
                continue
            arms = {place < middle for b in found if start < (place := b.place) <= end and self._innermost(place, at) == (start, end)}
            if arms == {True, False} and start > high:
                # What it replaces: the bindings before it in the innermost statement or arm
                # that holds it and not `at` (which may not run), or in the whole function.
                regions = self.spans + [arm for s, _, m, e in self.forks for arm in ((s, m - 1), (m, e))]
                enclosing = [r for r in regions if r[0] <= start and end <= r[1] and r != (start, end) and not r[0] <= at <= r[1]]
                low, high = max((r[0] for r in enclosing), default=0), start
        return low, high

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, (cst.FunctionDef, cst.Lambda))

    def lookup_chain(self) -> Iterator["Scope"]:
        """This scope, then the enclosing ones; class bodies are invisible from nested functions."""
        scope: Optional[Scope] = self
        first = True
        while scope is not None:
            if first or not scope.is_class:
                yield scope
            first = False
            scope = scope.parent


class _Leave:
    """On the walk's stack: a node's children are done."""

    __slots__ = ("node", "scope")

    def __init__(self, node: cst.CSTNode, scope: Scope) -> None:
        self.node = node
        self.scope = scope


class ScopeIndex:
    """Every scope and binding of the kept units, each node's place, parent and scope, the
    candidate calls, and the calls that take a candidate as an argument or receiver."""

    def __init__(
        self,
        trees: list[UnitTree],
        interesting_call: Callable[[cst.Call, dict[str, str]], bool],
        defined: list[tuple[str, int]] = (),
        aliases: Optional[dict[str, str]] = None,
        own_modules: frozenset[str] = frozenset(),
        namespace_uses: frozenset[str] = frozenset(),
    ) -> None:
        """`interesting_call(call, renamed)`: whether a call is a candidate, given the renames seen
        so far. `defined`: top-level names bound by definitions that are not read (name, offset).
        `aliases`: imported names that stand for another (`mylib.backend.numpy` -> `jax.numpy`).
        `own_modules`: the project's own imported names that stand for nothing known and whose
        `where` the file calls (a backend object): imported so, a name is an array namespace.
        `namespace_uses`: the names the whole file calls as `name.where(` (text scan): a relative
        import of one, not bound otherwise, is an array namespace, in every unit alike."""
        self.interesting_call = interesting_call
        self.aliases = aliases or {}
        self.own_modules = own_modules
        # module -> {function: what it stands for}, from the aliases of single functions.
        members: dict[str, dict[str, str]] = defaultdict(dict)
        for dotted, target in self.aliases.items():
            module, _, member = dotted.rpartition(".")
            members[module][member] = target
        self.members = dict(members)
        self.calls: list[tuple[cst.Call, Scope]] = []
        self.wrapping: list[tuple[cst.Call, cst.Call, Scope]] = []
        # alias -> original name, for `from jax.numpy import where as w` (a call to `w` is a candidate).
        self.renamed: dict[str, str] = {}
        self.place: dict[int, Place] = {}
        self.parent: dict[int, cst.CSTNode] = {}
        self.scope_of: dict[int, Scope] = {}  # function, lambda and class nodes -> their scope
        self.tree_of: dict[int, UnitTree] = {}  # each unit's root module -> its tree
        self.module_scope = Scope(None, None)
        self._count = 0
        pending = sorted(defined, key=lambda d: d[1])
        for tree in trees:
            while pending and pending[0][1] < tree.unit.start:
                self.module_scope.bind(Binding(pending.pop(0)[0], self._next(), module_definition=True))
            self.tree_of[id(tree.module)] = tree
            self._index(tree)
        for name, _ in pending:
            self.module_scope.bind(Binding(name, self._next(), module_definition=True))
        for scope in (self.module_scope, *self.scope_of.values()):
            for name, at in scope.relative_imports.items():
                if name in namespace_uses and name not in scope.bindings:
                    scope.bindings[name] = [Binding(name, at, namespace=True)]

    def _next(self) -> Place:
        self._count += 1
        return self._count

    def _index(self, tree: UnitTree) -> None:
        # Depth first in source order; each node is visited in the scope it belongs to. A def's
        # decorators, defaults and annotations are read in its own scope, as its body is.
        root = tree.module
        if tree.unit.member:  # the stand-in class binds nothing: its body is read in a class scope
            wrapper = root.body[0]
            self.parent[id(wrapper)] = root
            self.parent[id(wrapper.body)] = wrapper
            self.place[id(wrapper)] = self._next()
            inner = self.scope_of[id(wrapper)] = Scope(wrapper, self.module_scope, is_class=True)
            stack: list = [(child, inner, wrapper.body) for child in reversed(children(wrapper.body))]
        else:
            stack = [(child, self.module_scope, root) for child in reversed(children(root))]
        place, parent = self.place, self.parent
        while stack:
            item = stack.pop()
            if type(item) is _Leave:
                self._leave(item.node, item.scope)
                continue
            node, scope, above = item
            place[id(node)] = self._next()
            parent[id(node)] = above
            inner = self._visit(node, scope)
            kind = type(node)
            if kind in _BIND_ON_LEAVE or kind in _MAYBE_SKIPPED:
                stack.append(_Leave(node, scope))
            stack.extend((child, inner, node) for child in reversed(children(node)))

    def _visit(self, node: cst.CSTNode, scope: Scope) -> Scope:
        """Record what `node` binds or calls; returns the scope its children are in."""
        kind = type(node)
        if kind is cst.Call:
            self._visit_call(node, scope)
        elif kind is cst.Name or kind in _PLAIN:
            pass
        elif kind is cst.FunctionDef:
            scope.bind(Binding(node.name.value, self.place[id(node)], function=node, module_definition=scope is self.module_scope))
            inner = self.scope_of[id(node)] = Scope(node, scope)
            self._bind_params(node.params, inner, method=scope.is_class, static=self._static_parameters(node, scope))
            return inner
        elif kind is cst.Lambda:
            inner = self.scope_of[id(node)] = Scope(node, scope)
            self._bind_params(node.params, inner)
            return inner
        elif kind is cst.ClassDef:
            scope.bind(Binding(node.name.value, self.place[id(node)], module_definition=scope is self.module_scope))
            inner = self.scope_of[id(node)] = Scope(node, scope, is_class=True)
            return inner
        elif kind in (cst.For, cst.CompFor):
            if isinstance(node.target, cst.Name):
                scope.bind(Binding(node.target.value, self.place[id(node)], iterated=node.iter))
            else:
                self._bind_target(scope, node.target, self.place[id(node)])
        elif kind is cst.WithItem:
            if node.asname is not None:
                self._bind_target(scope, node.asname.name, self.place[id(node)])
        elif kind is cst.ExceptHandler or kind is cst.ExceptStarHandler:
            if node.name is not None and isinstance(node.name.name, cst.Name):
                scope.bind(Binding(node.name.name.value, self.place[id(node)]))
        elif kind is cst.Import:
            self._visit_import(node, scope)
        elif kind is cst.ImportFrom:
            self._visit_import_from(node, scope)
        elif kind is cst.Global or kind is cst.Nonlocal:
            scope.shared.update(item.name.value for item in node.names)
        return scope

    def _leave(self, node: cst.CSTNode, scope: Scope) -> None:
        """An assignment binds once its value is computed."""
        after = self._next()
        kind = type(node)
        if kind is cst.Assign:
            for target in node.targets:
                self._bind_target(scope, target.target, after, value=node.value)
                self._bind_element_store(scope, target.target, after, node.value, replaces=True)
        elif kind is cst.AnnAssign:
            if node.value is not None:
                self._bind_target(scope, node.target, after, value=node.value)
        elif kind is cst.AugAssign:
            if isinstance(node.target, cst.Name):
                scope.bind(Binding(node.target.value, after, augmented=node))
            self._bind_element_store(scope, node.target, after, node.value, replaces=False)
        elif kind is cst.NamedExpr:
            self._bind_target(scope, node.target, after, value=node.value)
        elif kind in _MAYBE_SKIPPED:
            scope.spans.append((self.place[id(node)], after))
            if kind is cst.If and node.orelse is not None:
                scope.forks.append((self.place[id(node)], self.place[id(node.body)], self.place[id(node.orelse)], after))
            if kind is cst.For or kind is cst.While:
                scope.loops.append((self.place[id(node)], after))
            if kind is cst.If:
                held = self._held_by(node, scope)
                ends = self.place[id(node.orelse)] - 1 if node.orelse is not None else after
                if _leaves_function(node.body, held):
                    scope.exits.append((self.place[id(node.body)], ends))
                if isinstance(node.orelse, cst.Else) and _leaves_function(node.orelse.body, held):
                    scope.exits.append((self.place[id(node.orelse)], after))

    def _held_by(self, node: cst.CSTNode, scope: Scope) -> set[type]:
        """The kinds of the `try` and `with` statements of the scope that hold the statement: a
        `try`'s handlers and `finally` run after a `raise` or `return` in it, and a `with` may
        suppress a `raise`."""
        kinds: set[type] = set()
        above = self.parent.get(id(node))
        while above is not None and above is not scope.node:
            if isinstance(above, (cst.Try, cst.TryStar, cst.With)):
                kinds.add(cst.With if isinstance(above, cst.With) else cst.Try)
            above = self.parent.get(id(above))
        return kinds

    def _bind_params(self, params: cst.Parameters, scope: Scope, method: bool = False, static: frozenset[str] = frozenset()) -> None:
        everything = [*params.posonly_params, *params.params, *params.kwonly_params]
        for star in (params.star_arg, params.star_kwarg):
            if isinstance(star, cst.Param):
                everything.append(star)
        for index, param in enumerate(everything):
            name = param.name.value
            annotation = leaf_name(param.annotation.annotation) if param.annotation is not None else None
            scope.bind(Binding(name, self._next(), annotation=annotation, parameter=True, receiver=method and index == 0, static=name in static))

    def _static_parameters(self, function: cst.FunctionDef, scope: Scope) -> frozenset[str]:
        """The parameters a decorator of `jax.jit`'s kind takes as static (`@partial(jax.jit,
        static_argnums=(1,))`, `@partial(jit, static_argnames="n")`): catalog.STATIC_ARGUMENTS."""
        ordered = [param.name.value for param in (*function.params.posonly_params, *function.params.params)]
        at = self.place[id(function)]
        static: set[str] = set()
        for decorator in function.decorators:
            call = decorator.decorator
            if not isinstance(call, cst.Call):
                continue
            transform = qualified_name(call.func, scope, at)
            given = positional(call)
            if transform == PARTIAL_APPLICATION and given:
                transform = qualified_name(given[0], scope, at)
            positions, names = STATIC_ARGUMENTS.get(transform, (None, None))
            for item in _literal_items(keyword_value(call, (positions,))) if positions else ():
                if isinstance(item, int) and 0 <= item < len(ordered):
                    static.add(ordered[item])
            static.update(item for item in (_literal_items(keyword_value(call, (names,))) if names else ()) if isinstance(item, str))
        return frozenset(static)

    def _visit_import(self, node: cst.Import, scope: Scope) -> None:
        for alias in node.names:
            dotted = _dotted_text(alias.name)
            if alias.asname is not None and isinstance(alias.asname.name, cst.Name):
                target = alias.asname.name.value
                self._bind_import(scope, target, dotted, dotted)
            else:
                # `import jax.numpy` binds `jax`, through which `jax.numpy.where` resolves.
                top = dotted.split(".", 1)[0]
                scope.bind(Binding(top, self._next(), imported=top))

    def _visit_import_from(self, node: cst.ImportFrom, scope: Scope) -> None:
        if isinstance(node.names, cst.ImportStar):
            return
        if node.relative:  # the project's own module
            for alias in node.names:
                target = alias.asname.name if alias.asname is not None else alias.name
                if isinstance(target, cst.Name):
                    scope.relative_imports[target.value] = self._next()
            return
        if node.module is None:
            return
        module = _dotted_text(node.module)
        for alias in node.names:
            name = _dotted_text(alias.name)
            target = alias.asname.name.value if alias.asname is not None and isinstance(alias.asname.name, cst.Name) else name
            self._bind_import(scope, target, f"{module}.{name}", name)

    def _bind_import(self, scope: Scope, target: str, dotted: str, original: str) -> None:
        """`target`, bound by an import of `dotted` (`original` as the import spells it): what that
        stands for, or, for a backend module of the project's own, an array namespace."""
        if dotted in self.own_modules:
            scope.bind(Binding(target, self._next(), namespace=True))
            return
        scope.bind(Binding(target, self._next(), imported=self.aliases.get(dotted, dotted), members=self.members.get(dotted)))
        self._note_rename(target, original)

    def _note_rename(self, target: str, original: str) -> None:
        if target != original:
            self.renamed[target] = original.rsplit(".", 1)[-1]

    def _bind_target(self, scope: Scope, target: cst.CSTNode, place: Place, *, value=None, part_of=None) -> None:
        if isinstance(target, cst.Name):
            scope.bind(Binding(target.value, place, value=value, part_of=part_of))
        elif isinstance(target, (cst.Tuple, cst.List)):
            # Unpacking: each name is bound to its part of a literal tuple (`a, b = x, 2 * x`), else
            # to an unknown part of the value.
            parts = _literal_parts(value, len(target.elements))
            for element, part in zip(target.elements, parts):
                whole = part_of if part is None and value is None else (value if part is None else None)
                self._bind_target(scope, element.value, place, value=part, part_of=whole)
        elif isinstance(target, cst.StarredElement):
            self._bind_target(scope, target.value, place, part_of=value if value is not None else part_of)

    def _bind_element_store(self, scope: Scope, target: cst.CSTNode, place: Place, value: cst.BaseExpression, replaces: bool) -> None:
        """`d[m] = v`, `d[..., 0] += v`: the array `d` holds changes in place, so what `d` is read as
        after it is a binding of its own. Only a name the scope binds: the store does not make a
        module's or an enclosing function's name local."""
        root = target
        while isinstance(root, cst.Subscript):
            root = root.value
        if root is not target and isinstance(root, cst.Name) and root.value in scope.bindings:
            scope.bind(Binding(root.value, place, element_store=ElementStore(root, value, replaces)))

    def _visit_call(self, node: cst.Call, scope: Scope) -> None:
        if self.interesting_call(node, self.renamed):
            self.calls.append((node, scope))
        self._note_namespace_use(node, scope)
        inner = [a.value for a in node.args]
        if isinstance(node.func, cst.Attribute):
            inner.append(node.func.value)
        for value in inner:
            if isinstance(value, cst.Call) and self.interesting_call(value, self.renamed):
                self.wrapping.append((node, value, scope))

    def _note_namespace_use(self, node: cst.Call, scope: Scope) -> None:
        """`B.where(condition, x, y)` on a function's parameter or local: `B` is used as an array
        namespace is (a tensor's own `where` takes two arguments, pandas' a condition and one other)."""
        func = node.func
        if not (isinstance(func, cst.Attribute) and func.attr.value == NAMESPACE_SELECT and isinstance(func.value, cst.Name)):
            return
        if len(node.args) != 3 or any(arg.keyword is not None or arg.star for arg in node.args):
            return
        name = func.value.value
        holder = next((candidate for candidate in scope.lookup_chain() if name in candidate.bindings or name in candidate.relative_imports), None)
        if holder is None:
            return
        if name not in holder.bindings:
            return  # only a relative import binds it: the file's text decides (ScopeIndex.__init__)
        if not holder.is_function:
            return  # a module's name may be an import's fallback (`except ImportError: tf = None`)
        binding = binding_at(holder, name, self.place[id(node)])
        if binding is None or binding.imported is not None or binding.receiver or binding.function is not None:
            return
        if binding.value is not None and _built_here(binding.value, holder, self.place[id(node)]):
            return  # `jnp = object()`, `B = None`: a value the function makes is not a backend's module
        binding.namespace = True

    # --- questions about places ---------------------------------------------------------------------
    def scope_at(self, node: cst.CSTNode) -> Scope:
        """The scope `node` is read in."""
        current = self.parent.get(id(node))
        while current is not None:
            scope = self.scope_of.get(id(current))
            if scope is not None:
                return scope
            current = self.parent.get(id(current))
        return self.module_scope

    def tree_holding(self, node: cst.CSTNode) -> UnitTree:
        current = node
        while id(current) in self.parent:
            current = self.parent[id(current)]
        return self.tree_of[id(current)]

    def ancestors(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        current = self.parent.get(id(node))
        while current is not None:
            yield current
            current = self.parent.get(id(current))


# Nodes that bind nothing and call nothing themselves (their children may).
_PLAIN = frozenset(
    {
        cst.Attribute, cst.BinaryOperation, cst.Subscript, cst.Comparison, cst.Arg, cst.Expr, cst.Return,
        cst.Tuple, cst.List, cst.Element, cst.SimpleStatementLine, cst.IndentedBlock, cst.Integer, cst.Float,
        cst.SimpleString, cst.UnaryOperation, cst.SubscriptElement, cst.Index, cst.ComparisonTarget,
    }
)
_BIND_ON_LEAVE = frozenset({cst.Assign, cst.AnnAssign, cst.AugAssign, cst.NamedExpr})
# Statements whose body may not run, or not to its end.
_MAYBE_SKIPPED = frozenset({cst.If, cst.For, cst.While, cst.Try, cst.TryStar, cst.Match})


def _leaves_function(block: cst.BaseSuite, held: set[type]) -> bool:
    """Whether a block ends in `return` or `raise` that nothing around it (`held`: the kinds of the
    `try` and `with` statements holding it) catches, with no `break` or `continue` that could leave
    it before."""
    last = block.body[-1] if block.body else None
    if isinstance(last, cst.SimpleStatementLine):
        last = last.body[-1] if last.body else None
    if cst.Try in held or not isinstance(last, (cst.Return, cst.Raise)) or (cst.With in held and isinstance(last, cst.Raise)):
        return False
    return not any(isinstance(n, (cst.Break, cst.Continue)) for n in walk(block))


def _literal_items(node: Optional[cst.BaseExpression]) -> list[object]:
    """The integers and strings a literal gives, alone or in a tuple or list (`(1, 2)`, `"n"`)."""
    if isinstance(node, (cst.Tuple, cst.List)):
        return [item for element in node.elements for item in _literal_items(element.value)]
    if isinstance(node, cst.Integer):
        return [int(node.evaluated_value)]
    value = string_value(node) if node is not None else None
    return [value] if value is not None else []


def _literal_parts(value: Optional[cst.BaseExpression], count: int) -> list[Optional[cst.BaseExpression]]:
    """The elements of a literal tuple or list of `count` plain elements, else unknowns."""
    if isinstance(value, (cst.Tuple, cst.List)) and len(value.elements) == count:
        if all(isinstance(element, cst.Element) for element in value.elements):
            return [element.value for element in value.elements]
    return [None] * count


def binding_at(scope: Scope, name: str, at: Place) -> Optional[Binding]:
    """The binding of `name` visible at `at`, following Python's scoping.

    A name bound anywhere in a function is local to all of it; the latest binding before the use
    wins (not one that never reaches the use: `Scope.never_reaches`), and a use before every
    binding (a loop, a closure) sees the last one.
    """
    for candidate in scope.lookup_chain():
        bindings = candidate.bindings.get(name)
        if not bindings:
            continue
        for binding in reversed(bindings):
            if binding.place < at and not candidate.never_reaches(name, binding.place, at):
                return binding  # the last one bound before `at`
        return bindings[-1]
    return None


def bindings_reaching(scope: Scope, name: str, at: Place) -> list[Binding]:
    """Every binding of `name` that may be the one seen at `at`: the latest before it (as
    `binding_at` finds it), and, while that one sits in a branch, loop or `try` that `at` is outside
    of (`if not backprop: h = stop_gradient(h)`), the ones before it, up to one that always runs."""
    known = scope.reaching.get((name, at))
    if known is None:
        known = scope.reaching[(name, at)] = _bindings_reaching(scope, name, at)
    return known


def _bindings_reaching(scope: Scope, name: str, at: Place) -> list[Binding]:
    for candidate in scope.lookup_chain():
        bindings = candidate.bindings.get(name)
        if not bindings:
            continue
        found: list[Binding] = []
        for binding in reversed(bindings):
            if binding.place < at and not candidate.never_reaches(name, binding.place, at):
                found.append(binding)
                if not candidate.maybe_skipped(binding.place, at):
                    break
        if len(found) > 1 and candidate.forks:
            low, high = candidate.unreachable_before(found, at)
            found = [b for b in found if not low <= b.place < high]
        return found or [bindings[-1]]
    return []


def qualified_name(node: cst.CSTNode, scope: Scope, at: Place, namespaces: bool = True) -> Optional[str]:
    """`jnp.linalg.norm` -> `jax.numpy.linalg.norm` when `jnp` is an import visible here, or (with
    `namespaces`) a local bound to an array API namespace (`xp = array_namespace(x)`:
    catalog.tables), else None."""
    attrs, root = _dotted_parts(node)
    binding = binding_at(scope, root.value, at) if root is not None else None
    if binding is None:
        return None
    module = binding.imported
    if attrs and binding.members and attrs[0] in binding.members:
        return ".".join([binding.members[attrs[0]], *attrs[1:]])
    if module is None and namespaces and (binding.namespace or isinstance(binding.value, cst.Call) and _gets_namespace(binding.value, scope, binding.place)):
        module = ARRAY_API_MODULE
    return ".".join([module, *attrs]) if module is not None else None


_GETTER_LEAVES = frozenset(getter.rsplit(".", 1)[-1] for getter in NAMESPACE_GETTERS)


def _gets_namespace(call: cst.Call, scope: Scope, at: Place) -> bool:
    """`array_namespace(x)`, `x.__array_namespace__()`: the call returns an array API namespace. The
    getter is resolved through imports alone, so `f = f(x)` never asks about itself; and only a call
    named like one is resolved at all (most locals are bound to calls)."""
    func = call.func
    leaf = leaf_name(func)
    if leaf == NAMESPACE_METHOD and isinstance(func, cst.Attribute):
        return True
    return leaf in _GETTER_LEAVES and qualified_name(func, scope, at, namespaces=False) in NAMESPACE_GETTERS


def _built_here(value: cst.BaseExpression, scope: Scope, at: Place) -> bool:
    """A literal, or a call of one of Python's builtins (`object()`, `dict(...)`)."""
    if isinstance(value, cst.Call):
        func = value.func
        return isinstance(func, cst.Name) and func.value in _BUILTINS and binding_at(scope, func.value, at) is None
    return isinstance(value, (cst.BaseNumber, cst.BaseString, cst.BaseDict, cst.BaseSet, cst.List, cst.Tuple)) or (
        isinstance(value, cst.Name) and value.value in ("None", "True", "False")
    )


_BUILTINS = frozenset(dir(builtins))


def _dotted_parts(node: cst.CSTNode) -> tuple[list[str], Optional[cst.Name]]:
    """The attributes after the first name, and that name (None when it is not names and dots)."""
    attrs: list[str] = []
    while isinstance(node, cst.Attribute):
        attrs.append(node.attr.value)
        node = node.value
    return attrs[::-1], node if isinstance(node, cst.Name) else None


def leaf_name(func: cst.CSTNode) -> Optional[str]:
    """The last name of a called expression: `where` for `jnp.where`, `w` for `w`."""
    if isinstance(func, cst.Name):
        return func.value
    if isinstance(func, cst.Attribute):
        return func.attr.value
    return None


def _dotted_text(node: cst.CSTNode) -> str:
    """`jax.numpy` for the names and dots of an import."""
    parts = []
    while isinstance(node, cst.Attribute):
        parts.append(node.attr.value)
        node = node.value
    parts.append(node.value if isinstance(node, cst.Name) else "")
    return ".".join(reversed(parts))
