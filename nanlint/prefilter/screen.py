"""A fast, sound screen on Python's `ast`: can this function hold a finding at all?

The detector is exact and walks every scope; this screen is cheap and only ever errs towards "maybe".
It answers no when no select call in the code can see a singular op in a branch: not in a branch
argument, not through a local of the same function assigned (before the call, at most as many
locals deep as the detector follows) from one; and, for NAN102, no clamp sits directly inside an op.
Conditions are not branches: the detector never looks for ops there. Guards, conditions and
contexts only ever remove findings, so the screen ignores them.

A call counts as a select or an op when its dotted name resolves, through the file's imports, to a
function the catalog knows (as the detector resolves it), or when it may be a tensor method of a
framework the file imports (`x.where`, or an imported name that a local may rebind). Clamps
(`maximum`, `clip`) are selects only for the rules that report them.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Optional, Sequence

from nanlint.catalog.lookup import Catalog
from nanlint.catalog.tables import CONSTANT_NAME, METADATA_ATTRS, NONFINITE_NAMES, Arg, SelectFunction
from nanlint.limits import MAX_DEPTH, MAX_INDIRECTION
from nanlint.prefilter.helpers import step_values, straight_line_def
from nanlint.prefilter.syntax import Position, call_arguments, children, is_string, leaf_name, start_position
from nanlint.prefilter.textscan import Imports

if TYPE_CHECKING:
    from nanlint.prefilter.helpers import FileHelpers

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


@dataclass(frozen=True)
class Reported:
    """Which select kinds matter to the selected rules."""

    clamp_branches: bool  # NAN101: a clamp's own operand
    clamp_in_op: bool  # NAN102: a clamp as the argument of an op
    nan_masks: bool = False  # NAN201: a where that tests for NaN, and a replacement (`nan_to_num`), are kept


@dataclass
class _SelectCall:
    call: ast.Call
    select: Optional[SelectFunction]  # None: a name that may be a select (an alias, a rebound import)
    method_form: bool
    taker: Optional[ast.Call]  # the call that takes this one as an argument or receiver
    scope: Optional[ast.AST]  # the innermost function, lambda or class holding it
    replacement: bool = False  # a NaN replacement (`nan_to_num`), not a select


class Screen:
    def __init__(self, catalog: Catalog, imports: Imports, reported: Reported) -> None:
        self.catalog = catalog
        self.frameworks = imports.frameworks
        self.imports = imports
        self.targets = imports.targets
        self.reported = reported
        self.select_methods, self.op_methods = catalog.method_names(imports.frameworks)
        self._selects = _Lookup(catalog.select, catalog.select_function_leaves, imports)
        self._ops = _Lookup(catalog.op, catalog.op_function_leaves, imports)
        self._masks = _NanMasks(catalog, imports) if reported.nan_masks else None
        # The file's helpers that apply an op: a branch that calls one does (the detector reads a
        # helper's ops at its call). Set once the file's units are known.
        self.helpers: Optional[FileHelpers] = None
        self._op_text: Optional[re.Pattern] = None
        # The unit being screened, and the functions defined inside it (read on first ask).
        self._unit: Optional[ast.AST] = None
        self._closures: Optional[dict[str, list[ast.FunctionDef]]] = None
        self._closure_ops: dict[str, bool] = {}

    def may_hold_finding(self, node: ast.AST, module_level: bool = False, at: Optional[Sequence[Position]] = None, walrus: bool = True) -> bool:
        """Whether the detector could report anything in `node` (a function, class member or statement).

        At module level a name may be bound by any other statement of the file, so every name a
        branch reads counts as one that could hold an op. `at`: where the text calls a select (the
        start of its name, as a line and a byte column), when known; then only those calls are
        looked at, reached by their position instead of a walk of everything. `walrus`: whether
        `:=` may bind a local.
        """
        self._unit, self._closures = node, None
        assignments: dict[int, dict[str, list[tuple[Position, ast.expr]]]] = {}
        masks = []  # NAN201's, looked at last: most units are kept, or not, without them
        for found in self._select_calls(node, at):
            if self._masks is not None:
                masks.append(found)
            kind = found.select.kind if found.select is not None else None
            if kind == "clamp" or kind is None:
                if self.reported.clamp_in_op and found.taker is not None and self._is_op_call(found.taker):
                    return True  # sqrt(maximum(x, 0)): NAN102
                if kind == "clamp" and not self.reported.clamp_branches:
                    continue
            read: set[str] = set()
            for value in _branch_values(found):
                direct, names = self._scan(value)
                if direct:
                    return True
                read |= names
            if not read:
                continue
            if module_level or not isinstance(found.scope, _FUNCTIONS):
                return True
            if id(found.scope) not in assignments:
                assignments[id(found.scope)] = _own_assignments(found.scope, walrus)
            if self._reaches_through_locals(read, start_position(found.call), assignments[id(found.scope)]):
                return True
        # NAN201: what a mask's value comes from is the detector's to follow.
        return any(self._may_mask(found, assignments, walrus) for found in masks)

    def _select_calls(self, node: ast.AST, at: Optional[Sequence[Position]]) -> Iterator[_SelectCall]:
        if at is None:
            yield from self._walk_for_selects(node, _scope_of_node(node))
            return
        lost = False
        for position in at:
            if not _holds(node, position):
                continue  # a call in another statement
            path = _path_to(node, position)
            for depth in range(len(path) - 2, -1, -1):
                call = path[depth]
                if type(call) is ast.Call and call.func is path[depth + 1]:
                    found = self._as_select(call, _taker(path[:depth], call), _innermost_scope(path[:depth]))
                    if found is not None:
                        yield found
                    break
            else:
                lost = True  # the tree places it elsewhere (inside an f-string, on Python 3.11)
        if lost:
            yield from self._walk_for_selects(node, _scope_of_node(node))

    def _walk_for_selects(self, node: ast.AST, scope: Optional[ast.AST]) -> Iterator[_SelectCall]:
        """Every select call under `node`, with its taker and scope."""
        stack: list[tuple[ast.AST, Optional[ast.AST], Optional[ast.Call]]] = [(node, scope, None)]
        while stack:
            current, current_scope, taker = stack.pop()
            if type(current) is ast.Call:
                found = self._as_select(current, taker, current_scope)
                if found is not None:
                    yield found
                stack.extend((value, current_scope, current) for value in _inputs(current))
                if type(current.func) is not ast.Attribute:
                    stack.append((current.func, current_scope, None))
                continue
            inner_scope = current if isinstance(current, _SCOPES) and current is not node else current_scope
            stack.extend((child, inner_scope, None) for child in children(current))

    def _as_select(self, call: ast.Call, taker: Optional[ast.Call], scope: Optional[ast.AST]) -> Optional[_SelectCall]:
        func = call.func
        dotted = _dotted(func)
        if dotted is not None:
            select = self._selects.entry(self._qualified_candidates(dotted, self._selects))
            if select is not None:
                return _SelectCall(call, select, False, taker, scope)
        if type(func) is ast.Attribute and func.attr in self.select_methods:
            hit = self.catalog.method_select(func.attr, self.frameworks)
            return _SelectCall(call, hit[0] if hit else None, True, taker, scope)
        if dotted is not None and dotted[-1] in self._selects.leaves and dotted[0] in self.targets:
            return _SelectCall(call, None, False, taker, scope)  # an alias the catalog may know: maybe
        if self._masks is not None and self._replaces(dotted, func.attr if type(func) is ast.Attribute else None):
            return _SelectCall(call, None, False, taker, scope, replacement=True)
        return None

    def _reaches_through_locals(self, read: set[str], at: Position, assigned: dict[str, list[tuple[Position, ast.expr]]], scan=None) -> bool:
        """Whether a local the branches read was assigned before `at` in the same function, maybe
        through other locals, from an expression that holds an op (or what `scan` looks for, in the
        same shape: found, and the names read): a superset of the locals the detector follows (it
        takes only the latest assignment, and as deep as MAX_INDIRECTION)."""
        scan = scan or self._scan
        frontier = [(name, at, 1) for name in read]
        # The least depth each binding was reached at: one reached first by a longer way must be
        # looked at again from a shorter one, which may go further.
        seen: dict[tuple[str, Position], int] = {}
        while frontier:
            name, use, depth = frontier.pop()
            for bound_at, value in assigned.get(name, ()):
                if bound_at >= use or seen.get((name, bound_at), MAX_INDIRECTION + 1) <= depth:
                    continue
                seen[(name, bound_at)] = depth
                direct, names = scan(value)
                if direct:
                    return True
                if depth < MAX_INDIRECTION:
                    frontier += [(inner, bound_at, depth + 1) for inner in names]
        return False

    def _scan(self, node: ast.AST) -> tuple[bool, set[str]]:
        """Whether the expression applies an op (a call or a leaking operator) outside any lambda,
        and the names it reads."""
        return _scan_for([node], self._applies_op)

    def applies_op_in(self, nodes: list[ast.AST]) -> bool:
        return _scan_for(list(nodes), self._applies_op)[0]

    def may_apply_op_in_text(self, text: str) -> bool:
        """Whether `text` can hold what `_applies_op` looks for, told before parsing it: an op's
        name or an alias of one, an operator that may leak, a non-finite name, or `float`."""
        if self._op_text is None:
            leaves = self.catalog.op_function_leaves
            words = {*leaves, *self.op_methods, *NONFINITE_NAMES, "float"}
            words |= {alias for alias, name in self.imports.renamed.items() if name in leaves}
            self._op_text = re.compile(r"[/%]|\*\*|\b(?:" + "|".join(sorted(map(re.escape, words))) + r")\b")
        return self._op_text.search(text) is not None

    def _applies_op(self, node: ast.AST) -> bool:
        kind = type(node)
        return (kind is ast.Call and (self._is_op_call(node) or self._puts_placeholder(node))) or (kind is ast.BinOp and _operator_may_leak(node))

    def _puts_placeholder(self, call: ast.Call) -> bool:
        """A where with a NaN or an infinity written as a branch (`where(c, nan, u)`): a product
        with its value leaks into the other factor (the detector's `_placeholder`)."""
        name = leaf_name(call.func)
        return (name in self._selects.leaves or name in self.select_methods) and any(_nonfinite_literal(arg) for arg in call.args)

    # --- what a call is ------------------------------------------------------------------------
    def _is_op_call(self, call: ast.Call) -> bool:
        dotted = _dotted(call.func)
        if dotted is None:
            return type(call.func) is ast.Attribute and call.func.attr in self.op_methods
        if type(call.func) is ast.Name and self.helpers is not None and self.helpers.holds_op(call.func.id, self):
            return True
        if type(call.func) is ast.Name and self._closure_applies_op(call.func.id):
            return True
        if len(dotted) > 1 and dotted[-1] in self.op_methods:
            return True  # a method of data (`x.sqrt()`), or of an import that a local may shadow
        return self._ops.entry(self._qualified_candidates(dotted, self._ops)) is not None

    def _closure_applies_op(self, name: str) -> bool:
        """Whether a straight-line function of that name defined inside the unit being screened
        applies an op: the detector reads a closure's ops where a branch calls it, as a helper's."""
        if self._unit is None:
            return False  # no unit screened yet: a helper's body asked about on its own
        if self._closures is None:
            self._closures, self._closure_ops = {}, {}
            for inner in ast.walk(self._unit):
                if inner is not self._unit and type(inner) is ast.FunctionDef:
                    self._closures.setdefault(inner.name, []).append(inner)
        if name not in self._closure_ops:
            self._closure_ops[name] = False  # while it is read: a closure calling itself adds nothing
            functions = [f for f in map(straight_line_def, self._closures.get(name, ())) if f is not None]
            self._closure_ops[name] = any(self.applies_op_in(step_values(f)) for f in functions)
        return self._closure_ops[name]

    def may_call_a_select(self, dotted: Optional[list[str]], name: str) -> bool:
        """The same question asked of the text of a call: `dotted` is its whole dotted name
        (`["jnp", "where"]`), or None when the text does not show where it starts."""
        if self._masks is not None and (self._replaces(dotted, name) if dotted is not None else name in self._masks.replacements.leaves):
            return True
        if dotted is None:
            return name in self.select_methods or name in self._selects.leaves
        if len(dotted) > 1 and dotted[-1] in self.select_methods:
            return True
        return self._selects.entry(self._qualified_candidates(dotted, self._selects)) is not None

    def _may_mask(self, found: _SelectCall, assignments: dict, walrus: bool) -> bool:
        """NAN201: a replacement; or a select whose arguments, or the locals they read (assigned before it
        in the same function, as deep as the detector follows a condition), call a NaN test or compare
        a value with itself."""
        if found.replacement:
            return True
        tests, names = self._masks.scan(*_condition(found))
        if tests or not names or not isinstance(found.scope, _FUNCTIONS):
            return tests  # elsewhere a branch that reads a name is kept anyway
        if id(found.scope) not in assignments:
            assignments[id(found.scope)] = _own_assignments(found.scope, walrus)
        return self._reaches_through_locals(names, start_position(found.call), assignments[id(found.scope)], self._masks.scan)

    def _replaces(self, dotted: Optional[list[str]], method: Optional[str]) -> bool:
        """NAN201: a NaN replacement, through the imports (`jnp.nan_to_num`) or as a tensor method (`x.nan_to_num()`)."""
        masks = self._masks
        if method in masks.methods:
            return True
        return dotted is not None and masks.replacements.entry(self._qualified_candidates(dotted, masks.replacements)) is not None

    def _qualified_candidates(self, dotted: list[str], lookup: "_Lookup") -> list[str]:
        """The qualified names a dotted call may stand for, through the file's imports."""
        return self.imports.qualified(dotted) if dotted[-1] in lookup.leaves else []


class _Lookup:
    """One catalog lookup (selects or ops), remembered per qualified name, with the last names
    (aliases included) a call must end in to be worth looking up."""

    def __init__(self, lookup, leaves: frozenset[str], imports: Imports) -> None:
        self._lookup = lookup
        self.leaves = leaves | {alias for alias, name in imports.renamed.items() if name in leaves}
        self._known: dict[str, object] = {}

    def entry(self, qualified_names: list[str]):
        """The catalog entry of the first name that resolves, else None."""
        for qualified in qualified_names:
            if qualified not in self._known:
                hit = self._lookup(qualified)
                self._known[qualified] = hit[0] if hit is not None else None
            if self._known[qualified] is not None:
                return self._known[qualified]
        return None


class _NanMasks:
    """What NAN201 needs of the screen: the NaN replacements (`nan_to_num`) a call may be, and the
    NaN tests (by last name, aliases included) an expression may call."""

    def __init__(self, catalog: Catalog, imports: Imports) -> None:
        self.replacements = _Lookup(catalog.replacement, catalog.replacement_leaves, imports)
        self.methods = catalog.replacement_methods(imports.frameworks)
        self.tests = catalog.nan_test_leaves | {alias for alias, name in imports.renamed.items() if name in catalog.nan_test_leaves}

    def scan(self, *nodes: ast.AST) -> tuple[bool, set[str]]:
        """Whether the expressions call a NaN test or compare a value with itself (`v != v`), and the
        names they read (outside lambdas)."""
        return _scan_for(list(nodes), self._is_test)

    def _is_test(self, node: ast.AST) -> bool:
        kind = type(node)
        if kind is ast.Call:
            return leaf_name(node.func) in self.tests
        return kind is ast.Compare and len(node.ops) == 1 and ast.dump(node.left) == ast.dump(node.comparators[0])


def _scan_for(nodes: list[ast.AST], wanted) -> tuple[bool, set[str]]:
    """Whether a node under `nodes` outside any lambda is `wanted`, and the names they read (all of
    them, when none is)."""
    names: set[str] = set()
    stack = nodes
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.Name:
            names.add(node.id)
            continue
        if kind is ast.Lambda:
            continue  # its body runs elsewhere: the detector does not look inside
        if wanted(node):
            return True, names
        stack.extend(children(node))
    return False, names


# --- the branches of a select ---------------------------------------------------------------------
def _branch_values(found: _SelectCall) -> list[ast.expr]:
    """What the select may select: the branch arguments as the catalog places them; everything it
    reads when the call's shape or its select is not known for sure."""
    call, select = found.call, found.select
    if select is None or any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return _inputs(call)
    if found.method_form:
        receiver = call.func.value
        return [v for spec in select.method_branches if (v := _arg(call, spec, receiver)) is not None]
    if select.kind == "select_n":
        return list(call.args[1:])
    return [v for spec in select.branches if (v := _arg(call, spec)) is not None]


def _condition(found: _SelectCall) -> list[ast.expr]:
    """Where a where's NaN test can be: its condition; everything it reads when its shape or its
    select is not known for sure; nowhere for the other selects (NAN201 reads only wheres)."""
    call, select = found.call, found.select
    if select is None or any(type(a) is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return _inputs(call)
    spec = select.method_cond if found.method_form else select.cond
    value = _arg(call, spec) if select.kind == "where" and spec is not None else None
    return [value] if value is not None else []


def _arg(call: ast.Call, spec: Arg, receiver: Optional[ast.expr] = None) -> Optional[ast.expr]:
    if spec.position == -1:
        return receiver
    for item in call.keywords:
        if item.arg in spec.keywords:
            return item.value
    return call.args[spec.position] if spec.position < len(call.args) else None


def _inputs(call: ast.Call) -> list[ast.expr]:
    """Everything a call reads: its arguments and, for a method, its receiver."""
    values = call_arguments(call)
    if isinstance(call.func, ast.Attribute):
        values.append(call.func.value)
    return values


def _dotted(func: ast.expr) -> Optional[list[str]]:
    """`["jnp", "linalg", "norm"]` for `jnp.linalg.norm`; None when it is not names and dots."""
    names = []
    while type(func) is ast.Attribute:
        names.append(func.attr)
        func = func.value
    if type(func) is not ast.Name:
        return None
    names.append(func.id)
    return names[::-1]


# --- locals ------------------------------------------------------------------------------------------
def _own_assignments(function: ast.AST, walrus: bool) -> dict[str, list[tuple[Position, ast.expr]]]:
    """NAME -> (where the binding takes effect, value) for each `NAME = value` in the function's own
    scope (not in nested functions, lambdas or classes); `:=` too when it may occur."""
    assigned: dict[str, list[tuple[Position, ast.expr]]] = {}
    stack = list(children(function))
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda):
            continue
        if kind is ast.Assign:
            for target in current.targets:
                for name, value in _unpacked(target, current.value):
                    assigned.setdefault(name, []).append(((current.end_lineno, current.end_col_offset), value))
        elif (kind is ast.AnnAssign or (walrus and kind is ast.NamedExpr)) and current.value is not None and type(current.target) is ast.Name:
            assigned.setdefault(current.target.id, []).append(((current.end_lineno, current.end_col_offset), current.value))
        if walrus or isinstance(current, ast.stmt) or kind in _STATEMENT_PARTS:
            stack.extend(children(current))
    return assigned


def _unpacked(target: ast.expr, value: Optional[ast.expr]) -> Iterator[tuple[str, ast.expr]]:
    """`a = v`, and `a, b = x, 2 * x` element by element (a literal of as many plain elements), as
    the detector binds them (analysis/names.py); other unpackings bind values it does not follow."""
    if type(target) is ast.Name and value is not None:
        yield target.id, value
    elif type(target) in (ast.Tuple, ast.List) and type(value) in (ast.Tuple, ast.List):
        elements, parts = target.elts, value.elts
        if len(elements) == len(parts) and not any(type(part) is ast.Starred for part in parts):
            for element, part in zip(elements, parts):
                yield from _unpacked(element, part)


# Nodes between statements that hold statements (without `:=` no expression needs a visit).
_STATEMENT_PARTS = (ast.ExceptHandler, ast.match_case)


def _scope_of_node(node: ast.AST) -> Optional[ast.AST]:
    return node if isinstance(node, _SCOPES) else None


def _innermost_scope(ancestors: list[ast.AST]) -> Optional[ast.AST]:
    for node in reversed(ancestors):
        if isinstance(node, _SCOPES):
            return node
    return None


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
    return start_position(node) <= position < (node.end_lineno, node.end_col_offset)


def _taker(ancestors: list[ast.AST], call: ast.Call) -> Optional[ast.Call]:
    """The call that takes `call` as an argument or a receiver, given the nodes above it."""
    for node in reversed(ancestors):
        if type(node) is ast.Call:
            return node if any(value is call for value in _inputs(node)) else None
        if type(node) not in (ast.keyword, ast.Starred, ast.Attribute):
            return None
    return None


def _operator_may_leak(node: ast.BinOp) -> bool:
    """`a / b`, `a % b`, `a ** p` unless the detector is sure to pass them by: a denominator that
    never depends on data, string formatting, or an exponent with a finite derivative everywhere;
    and `a * b` with a factor spelled as a NaN or an infinity."""
    if isinstance(node.op, (ast.Div, ast.Mod)):
        if isinstance(node.op, ast.Mod) and is_string(node.left):
            return False
        return not _never_data(node.right, 0)
    if isinstance(node.op, ast.Pow):
        exponent = _literal_number(node.right)
        return exponent is None or not (float(exponent).is_integer() and exponent >= 0)
    if isinstance(node.op, ast.Mult):
        return _nonfinite_literal(node.left) or _nonfinite_literal(node.right)
    return False


def _nonfinite_literal(node: ast.AST) -> bool:
    """`jnp.nan`, `-inf`, `float("nan")`: a product's factor whose value makes its partner's
    derivative non-finite (a superset of the detector's: any name so spelled)."""
    if isinstance(node, ast.UnaryOp):
        return _nonfinite_literal(node.operand)
    if isinstance(node, ast.Attribute):
        return node.attr in NONFINITE_NAMES
    if isinstance(node, ast.Name):
        return node.id in NONFINITE_NAMES
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "float"


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
