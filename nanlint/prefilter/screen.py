"""A fast, sound screen on Python's `ast`: can this function hold a finding at all?

The detector is exact and walks every scope; this screen is cheap and only ever errs towards "maybe".
It answers no when no select call in the code can see a singular op: not in its arguments, not
through a local assigned from one, and no clamp sits directly inside an op (NAN102). Guards,
conditions and contexts only ever remove findings, so the screen ignores them.

A call counts as a select or an op when its dotted name resolves, through the file's imports, to a
function the catalog knows (as the detector resolves it), or when it may be a tensor method of a
framework the file imports (`x.where`, or an imported name that a local may rebind).
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional, Sequence

from nanlint.catalog.tables import CONSTANT_NAME, METADATA_ATTRS
from nanlint.catalog.lookup import CatalogView
from nanlint.limits import MAX_DEPTH
from nanlint.analysis.names import Position
from nanlint.analysis.names import position as start_position
from nanlint.analysis.syntax import call_arguments, children, is_string
from nanlint.prefilter.textscan import Imports



class Screen:
    def __init__(self, catalog: CatalogView, imports: Imports) -> None:
        self.targets = imports.targets
        self.select_methods, self.op_methods = catalog.method_names(imports.frameworks)
        self._selects = _Lookup(catalog.select, catalog.select_function_leaves, imports)
        self._ops = _Lookup(catalog.op, catalog.op_function_leaves, imports)

    def may_hold_finding(self, node: ast.AST, module_level: bool = False, at: Optional[Sequence[Position]] = None, walrus: bool = True) -> bool:
        """Whether the detector could report anything in `node` (a function, class member or statement).

        At module level a name may be bound by any other statement of the file, so every name counts
        as one that could hold an op. `at`: where the text calls a select (the start of its name,
        as a line and a byte column), when known; then only those calls are looked at, reached
        by their position instead of a walk of everything. `walrus`: whether `:=` may bind a local.
        """
        read: set[str] = set()  # names the selects read: they may hold an op through a local
        for call, outer in self._select_calls(node, at):
            for value in _inputs(call):
                direct, names = self._scan(value)
                if direct:
                    return True
                read |= names
            if outer is not None and self._is_op_call(outer):
                return True  # sqrt(maximum(x, 0)): NAN102
        if module_level or not read:
            return bool(read)
        return self._reaches_through_locals(read, _assignments(node, walrus))

    def _select_calls(self, node: ast.AST, at: Optional[Sequence[Position]]) -> Iterator[tuple[ast.Call, Optional[ast.Call]]]:
        """Each select call, with the call that takes it as an argument or receiver (or None)."""
        if at is None:
            for sub in _descendants(node):
                if type(sub) is ast.Call:
                    for value in _inputs(sub):
                        if type(value) is ast.Call and self._is_select(value):
                            yield value, sub
                    if self._is_select(sub):
                        yield sub, None
            return
        lost = False
        for position in at:
            if not _holds(node, position):
                continue  # a call in another statement
            path = _path_to(node, position)
            for depth in range(len(path) - 2, -1, -1):
                call = path[depth]
                if type(call) is ast.Call and call.func is path[depth + 1]:
                    if self._is_select(call):
                        yield call, _taker(path[:depth], call)
                    break
            else:
                lost = True  # the tree places it elsewhere (inside an f-string, on Python 3.11)
        if lost:
            yield from self._select_calls(node, None)

    def _reaches_through_locals(self, read: set[str], assigned: dict[str, list[ast.expr]]) -> bool:
        """Whether a local the selects read was assigned, maybe through other locals, from an
        expression that holds an op: a superset of the locals the detector follows."""
        frontier = [name for name in read if name in assigned]
        seen = set(frontier)
        while frontier:
            for value in assigned[frontier.pop()]:
                direct, names = self._scan(value)
                if direct:
                    return True
                for name in names:
                    if name in assigned and name not in seen:
                        seen.add(name)
                        frontier.append(name)
        return False

    def _scan(self, node: ast.AST) -> tuple[bool, set[str]]:
        """Whether the expression applies an op (a call or a leaking operator), and the names it reads."""
        names: set[str] = set()
        for sub in _descendants(node):
            kind = type(sub)
            if kind is ast.Name:
                names.add(sub.id)
            elif (kind is ast.Call and self._is_op_call(sub)) or (kind is ast.BinOp and _operator_may_leak(sub)):
                return True, names
        return False, names

    # --- what a call is ------------------------------------------------------------------------
    def _is_select(self, call: ast.Call) -> bool:
        return self._calls_one_of(call.func, self._selects, self.select_methods)

    def _is_op_call(self, call: ast.Call) -> bool:
        return self._calls_one_of(call.func, self._ops, self.op_methods)

    def _calls_one_of(self, func: ast.expr, lookup: "_Lookup", methods: frozenset[str]) -> bool:
        """Whether `func` names a catalog function through the file's imports, or is a tensor
        method; as the detector resolves it, or more (a local may rebind an imported name)."""
        if type(func) is ast.Name:
            return self._dotted_resolves([func.id], lookup, methods)
        if type(func) is not ast.Attribute:
            return False
        names = [func.attr]
        root = func.value
        while type(root) is ast.Attribute:
            names.append(root.attr)
            root = root.value
        if type(root) is not ast.Name:
            return func.attr in methods  # `f(x).where(...)`: a method of whatever f returns
        names.append(root.id)
        return self._dotted_resolves(names[::-1], lookup, methods)

    def may_call_a_select(self, dotted: Optional[list[str]], name: str) -> bool:
        """The same question asked of the text of a call: `dotted` is its whole dotted name
        (`["jnp", "where"]`), or None when the text does not show where it starts."""
        if dotted is None:
            return name in self.select_methods or name in self._selects.leaves
        return self._dotted_resolves(dotted, self._selects, self.select_methods)

    def _dotted_resolves(self, dotted: list[str], lookup: "_Lookup", methods: frozenset[str]) -> bool:
        leaf = dotted[-1]
        if len(dotted) > 1 and leaf in methods:
            return True  # a method of data (`x.where(...)`), or of an import that a local may shadow
        if leaf not in lookup.leaves or dotted[0] not in self.targets:
            return False
        suffix = "".join(f".{attr}" for attr in dotted[1:])
        return any(lookup.resolves(target + suffix) for target in self.targets[dotted[0]])


class _Lookup:
    """One catalog lookup (selects or ops), remembered per qualified name, with the last names
    (aliases included) a call must end in to be worth looking up."""

    def __init__(self, lookup, leaves: frozenset[str], imports: Imports) -> None:
        self._lookup = lookup
        self.leaves = leaves | {alias for alias, name in imports.renamed.items() if name in leaves}
        self._known: dict[str, bool] = {}

    def resolves(self, qualified: str) -> bool:
        known = self._known.get(qualified)
        if known is None:
            known = self._known[qualified] = self._lookup(qualified) is not None
        return known


def _path_to(node: ast.AST, position: Position) -> list[ast.AST]:
    """The nodes from `node` down to the innermost one whose source holds `position`."""
    path = [node]
    while True:
        for child in children(path[-1]):
            if _holds(child, position):
                path.append(child)
                break
        else:
            return path


def _holds(node: ast.AST, position: Position) -> bool:
    if not hasattr(node, "lineno"):  # `arguments`, a comprehension's `for`: only their parts have places
        return any(_holds(child, position) for child in children(node))
    start = start_position(node) if getattr(node, "decorator_list", None) else (node.lineno, node.col_offset)
    return start <= position < (node.end_lineno, node.end_col_offset)


def _taker(ancestors: list[ast.AST], call: ast.Call) -> Optional[ast.Call]:
    """The call that takes `call` as an argument or a receiver, given the nodes above it."""
    for node in reversed(ancestors):
        if type(node) is ast.Call:
            return node if any(value is call for value in _inputs(node)) else None
        if type(node) not in (ast.keyword, ast.Starred, ast.Attribute):
            return None
    return None


def _assignments(node: ast.AST, walrus: bool) -> dict[str, list[ast.expr]]:
    """NAME -> the values assigned to it anywhere in `node`; statements only, unless `:=` may bind."""
    assigned: dict[str, list[ast.expr]] = {}
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is ast.Assign:
            for target in current.targets:
                if type(target) is ast.Name:
                    assigned.setdefault(target.id, []).append(current.value)
        elif (kind is ast.AnnAssign or kind is ast.NamedExpr) and current.value is not None and type(current.target) is ast.Name:
            assigned.setdefault(current.target.id, []).append(current.value)
        if walrus:
            stack.extend(children(current))
        else:
            for field in _BODIES:
                statements = getattr(current, field, None)
                if type(statements) is list:
                    stack.extend(statements)
    return assigned


# Where statements hold statements: the walk for assignments needs no expression.
_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")
def _descendants(node: ast.AST) -> Iterator[ast.AST]:
    """The node and every node under it, in no particular order (cheaper than `syntax.walk`)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(children(current))


def _inputs(call: ast.Call) -> list[ast.expr]:
    """Everything a call reads: its arguments and, for a method, its receiver."""
    values = call_arguments(call)
    if isinstance(call.func, ast.Attribute):
        values.append(call.func.value)
    return values


def _operator_may_leak(node: ast.BinOp) -> bool:
    """`a / b`, `a % b`, `a ** p` unless the detector is sure to pass them by: a denominator that
    never depends on data, string formatting, or an exponent with a finite derivative everywhere."""
    if isinstance(node.op, (ast.Div, ast.Mod)):
        if isinstance(node.op, ast.Mod) and is_string(node.left):
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
