"""Find the places where a where/select evaluates a singular op in a branch it may not select.

One walk indexes scopes and candidate calls (names.py); then, for every call that resolves to a
select in the catalog, each branch is searched for singular ops whose argument depends on data and
is not guarded (`_BranchSearch`, a libcst visitor). Locals assigned earlier in the same scope are
followed into their definitions. Every finding is a `LeakSite`: the libcst nodes and catalog facts
a fix or a verification needs.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Iterator, NamedTuple, Optional, TypeVar

import libcst as cst

from nanlint.analysis.attributes import AttributeStores
from nanlint.analysis.checks import Check, checks_before, entry_checks, helper_call, may_check
from nanlint.analysis.conditions import (
    affine_base,
    and_or,
    combined_truth,
    condition_local,
    decided_by_ranges,
    holds_at_nan,
    Region,
    region_of,
    selected_values,
)
from nanlint.analysis.inline import bound_arguments, free_names, inlined, reads, substituted
from nanlint.analysis.masking import finite_domain, mask_sites, masked_value, nan_masked_value, replaced_value
from nanlint.analysis.names import (
    Binding,
    Place,
    Scope,
    ScopeIndex,
    binding_at,
    bindings_reaching,
    leaf_name,
    qualified_name,
)
from nanlint.analysis.reach import is_primal_in_jvp_rule, may_receive_cotangent, nan_may_reach_result
from nanlint.analysis.sites import Branch, Evidence, GuardVerdict, LeakSite, OpUse, Site, SiteKind
from nanlint.analysis.slots import pole_only_at_empty_slots
from nanlint.analysis.syntax import (
    argument_at,
    arguments,
    is_none,
    is_string,
    is_number,
    keyword_value,
    number,
    positional,
    string_value,
)
from nanlint.analysis.tree import UnitTree, bare_code, children, code, loads, visit, walk
from nanlint.analysis.values import (
    assigned,
    can_reach,
    carried_value,
    carries_gradient,
    constant_value,
    cuts_gradient,
    depends_on_data,
    draws_at_random,
    is_configuration,
    is_random_draw,
    is_epsilon,
    is_epsilon_shifted,
    is_integer_cast,
    is_integer_valued,
    may_be_zero,
    reachable,
    value_key,
    value_range,
    zero_replaced,
)
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.catalog.lookup import Catalog
from nanlint.catalog.tables import (
    BARRIER_METHODS,
    CONDITION_RESHAPES,
    CONFIGURATION_KEYWORDS,
    GATHERS,
    LOWER_CLAMPS,
    LOWER_KEYWORDS,
    METADATA_ATTRS,
    NAN_NAMES,
    NONFINITE_NAMES,
    OPS,
    SHAPE_ARG,
    TENSOR_ONLY_FRAMEWORKS,
    UPPER_CLAMPS,
    UPPER_KEYWORDS,
    LeakKind,
    SelectFunction,
    SingularOp,
    is_finite_number,
    power_leak_domain,
)
from nanlint.confidence import Confidence
from nanlint.fix.model import Location
from nanlint.limits import BINDING_COST, CONDITION_HOPS, MAX_DEPTH, MAX_INDIRECTION, MAX_WAY
from nanlint.source_lines import LineIndex

# Receivers that every attribute in a method shares: they relate nothing.
_SHARED_RECEIVERS = frozenset({"self", "cls"})

_OPERATOR_OPS = {op.operator: op for op in OPS if op.operator}
# The binary operators with a singular derivative, by their libcst node and their spelling.
OPERATORS = {cst.Divide: "/", cst.Modulo: "%", cst.Power: "**", cst.Multiply: "*"}
_FILLS = frozenset({"full_like", "full", "fill", "constant", "broadcast_to", "convert_to_tensor", "asarray", "tensor"})


T = TypeVar("T")


class _Env:
    """Bindings and qualified names as seen from one place in one scope; and, where a question is
    asked about the elements an outer select does not take, the truth of its condition there."""

    __slots__ = ("detector", "scope", "place", "assumed", "regions", "pinned")

    def __init__(
        self,
        detector: "Detector",
        scope: Scope,
        place: Place,
        assumed: Optional[dict[tuple, bool]] = None,
        regions: tuple = (),
        pinned: tuple = (),
    ) -> None:
        self.detector = detector
        self.scope = scope
        self.place = place
        self.assumed = assumed or {}
        self.regions = regions  # (condition, truth) pairs: the value ranges of what they compare
        self.pinned = pinned  # (name, its bindings, values) triples: see values.Env

    def assuming(self, cond: cst.BaseExpression, truth: bool) -> "_Env":
        """This place, where `cond` is `truth` (by its keys and those of the conditions it decides:
        `_implied`, for the wheres they decide; and as a region, for the values it bounds)."""
        assumed = {**self.assumed, **_implied(cond, truth, self)}
        return _Env(self.detector, self.scope, self.place, assumed, (*self.regions, (cond, truth)), self.pinned)

    def remembered(self, key: tuple, compute: Callable[..., T], *args) -> T:
        memo = self.detector.remembered
        key = (*key, self.scope, self.place)
        if key not in memo:
            memo[key] = compute(*args)
        return memo[key]

    def unconditioned(self) -> "_Env":
        return _Env(self.detector, self.scope, self.place, self.assumed, (), self.pinned)

    def pinning(self, name: cst.Name, values: Interval, read_at: "_Env") -> "_Env":
        """This place, where the local `name`, as bound where `read_at` reads it, takes only `values`."""
        pin = (name.value, frozenset(map(id, read_at.bindings(name))), values)
        return _Env(self.detector, self.scope, self.place, self.assumed, self.regions, (*self.pinned, pin))

    def decided(self, cond: cst.BaseExpression) -> Optional[bool]:
        if not self.assumed:
            return None
        for key, negated in _keyed_condition(cond, self).items():
            if key in self.assumed:
                return self.assumed[key] != negated
        # `~big & finite` is false where `big` is true: an `and` (`or`) one side of which is false (true).
        for inner, here, negated in _condition_chain(cond, self):
            combined = and_or(inner, here)
            truth = combined_truth(combined[0], [here.decided(side) for side in combined[1]]) if combined is not None else None
            if truth is not None:
                return truth != negated
        return None

    def binding(self, name: cst.Name) -> Optional[Binding]:
        return binding_at(self.scope, name.value, self.place)

    def bindings(self, name: cst.Name) -> list[Binding]:
        return bindings_reaching(self.scope, name.value, self.place)

    def qualified(self, node: cst.CSTNode) -> Optional[str]:
        return qualified_name(node, self.scope, self.place)

    def code(self, node: cst.CSTNode) -> str:
        return self.detector.code(node)

    def at(self, place: Place) -> "_Env":
        return _Env(self.detector, self.scope, place, self.assumed, self.regions, self.pinned)

    def inlined(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        return self.detector.inlined(call, self)

    def differentiable(self, framework: str) -> bool:
        return framework in self.detector.catalog.frameworks

    def traces_python_numbers(self) -> bool:
        imported = self.detector.imported_frameworks
        return "torch" not in imported or not imported <= TENSOR_ONLY_FRAMEWORKS

    def indexes(self, name: cst.Name) -> bool:
        return name.value in self.detector.index_names(self.scope)

    def values_where(
        self, cond: cst.BaseExpression, subject: cst.BaseExpression, holds: bool, text: Optional[str] = None, partial: bool = False
    ) -> Optional[IntervalSet]:
        said = _region_as_bound(cond, subject, self, partial, text)
        return said.at_most(holds) if said is not None else None

    def checked(self, node: cst.CSTNode) -> tuple:
        return self.detector.checked(node, self.scope, self.place)

    def attribute_stores(self, node: cst.Attribute) -> Optional[list[tuple[cst.BaseExpression, "_Env"]]]:
        attributes = self.detector.attributes
        key = attributes.key(node, self.scope)  # None: no attribute of a method's receiver (`self.attr`)
        stores = attributes.stores(key) if key is not None else None
        if stores is None:
            return None
        # `self.p = self.p.to(device)` puts back a value the attribute already held: it adds none.
        kept = [(value, _Env(self.detector, scope, place)) for value, scope, place in stores]
        return [(value, here) for value, here in kept if attributes.key(_moved(value, here), here.scope) != key] or None


def _moved(value: cst.BaseExpression, env: _Env) -> cst.BaseExpression:
    """What a move, copy or reshape carries unchanged (`x.to(device)`, `x.clone()`): not an integer
    cast, which rounds it."""
    while isinstance(value, cst.Call) and not is_integer_cast(value, leaf_name(value.func) or "") and (inner := carried_value(value, env)) is not None:
        value = inner
    return value


class Detector:
    def __init__(
        self,
        source: str,
        trees: list[UnitTree],
        catalog: Catalog,
        frameworks: frozenset[str],
        defined: list[tuple[str, int]] = (),
        never_differentiated: list[tuple[int, int]] = (),
        jvp_rules: frozenset[str] = frozenset(),
        aliases: Optional[dict[str, str]] = None,
        helpers: Optional[dict[str, str]] = None,
        own_modules: frozenset[str] = frozenset(),
        namespace_uses: frozenset[str] = frozenset(),
    ) -> None:
        """`trees`: the kept units of the file `source`, in file order. `frameworks`: those the file imports
        (tensor methods count for them). `defined`: top-level definitions not read, by name.
        `never_differentiated`: spans (character offsets) where no site is reported. `jvp_rules`: the
        functions registered as a custom_jvp's rule, by name. `aliases`: the
        imported names that stand for an array module's (`mylib.backend.numpy` -> `jax.numpy`).
        `helpers`: the straight-line helpers the file imports, as source, by the name it binds.
        `own_modules`: the project's own modules imported that stand for nothing known (a backend).
        `namespace_uses`: the names the file calls as `name.where(` that no absolute import binds."""
        self.source = source
        self.lines = LineIndex(source)
        self.trees = trees
        self.catalog = catalog
        self.imported_frameworks = frameworks
        self.never_differentiated = never_differentiated
        self.jvp_rules = jvp_rules
        self._code_cache: dict[int, str] = {}
        self.remembered: dict[tuple, object] = {}  # _Env.remembered: answers by question and place
        self._inlined: dict[int, Optional[cst.BaseExpression]] = {}
        self._helper_sources = helpers or {}
        self._helpers: dict[str, Optional[cst.FunctionDef]] = {}
        self._variables_of: dict[tuple, set[str]] = {}
        self._unselected_reach: dict[tuple, IntervalSet] = {}
        self._index_names: dict[int, frozenset[str]] = {}
        self._excluded: dict[int, bool] = {}
        self._names_read: dict[int, dict[str, list[cst.Name]]] = {}
        self._may_check: dict[int, bool] = {}
        self._checks_by_call: dict[int, tuple[Check, ...]] = {}
        self._entry_checks: dict[int, tuple[tuple[Check, ...], Optional[cst.FunctionDef]]] = {}
        self.index = ScopeIndex(trees, self._may_select, list(defined), aliases or {}, own_modules, namespace_uses)
        self.attributes = AttributeStores(self.index)

    def index_names(self, scope: Scope) -> frozenset[str]:
        """The names a function uses as a whole array index (`a[k]`, `a[i, j]`)."""
        names = self._index_names.get(id(scope))
        if names is None:
            found = set()
            if scope.node is not None:
                for node in walk(scope.node):
                    if isinstance(node, cst.SubscriptElement) and isinstance(node.slice, cst.Index) and isinstance(node.slice.value, cst.Name):
                        found.add(node.slice.value.value)
            names = self._index_names[id(scope)] = frozenset(found)
        return names

    # --- helpers -----------------------------------------------------------------------------
    def _may_select(self, call: cst.Call, renamed: dict[str, str]) -> bool:
        leaf = leaf_name(call.func)
        names = self.catalog.select_leaf_names
        return leaf in names or renamed.get(leaf or "") in names

    def code(self, node: cst.CSTNode) -> str:
        """The node's source text, with its own parentheses."""
        key = id(node)
        text = self._code_cache.get(key)
        if text is None:
            text = self._code_cache[key] = code(node)
        return text

    def inlined(self, call: cst.Call, env: "_Env") -> Optional[cst.BaseExpression]:
        """What a call of a straight-line helper returns (inline.py): one defined in the file, or one
        the prefilter read from the module it is imported from. Remembered per call: the expression
        is built once, and stays alive for the caches keyed by its nodes."""
        key = id(call)
        if key not in self._inlined:
            binding = env.binding(call.func) if isinstance(call.func, cst.Name) else None
            function = binding.function if binding is not None else None
            if function is not None and not self._reads_alike(function, binding, env):
                function = None
            if function is None and isinstance(call.func, cst.Name) and (binding is None or binding.imported is not None):
                # An import (a relative one binds nothing here) of a helper the prefilter read.
                function = self._imported_helper(call.func.value)
            self._inlined[key] = inlined(function, call) if function is not None else None
        return self._inlined[key]

    def _reads_alike(self, function: cst.FunctionDef, binding: Binding, env: "_Env", body: Optional[frozenset[str]] = None) -> bool:
        """Whether the names a helper of this file reads of its own mean at the call what they mean
        to it: a name its body reads (`body`, or its straight-line steps'), what the scope it is
        defined in holds when the call runs (late binding: not a local of the caller's that shadows
        it); a name a default reads, what it held where the function was defined (early binding)."""
        defined_in = next((s for s in env.scope.lookup_chain() if any(b is binding for b in s.bindings.get(binding.name, ()))), None)
        if defined_in is None:
            return False
        steps, defaults = free_names(function)
        body = steps if body is None else body
        late = all(_alike(binding_at(defined_in, name, env.place), binding_at(env.scope, name, env.place)) for name in body)
        return late and all(_alike(binding_at(defined_in, name, binding.place), binding_at(env.scope, name, env.place)) for name in defaults)

    def own_helper(self, call: cst.Call, env: "_Env") -> Optional[cst.FunctionDef]:
        """The function this file defines that `call` calls by name, if one: at its top level (the
        prefilter knows those: `FileHelpers`), or in the function around the call (a closure, read
        in the same slice); and autodiff goes through its body: not one with a derivative of its
        own (`@custom_jvp`), nor one never differentiated."""
        binding = env.binding(call.func) if isinstance(call.func, cst.Name) else None
        function = binding.function if binding is not None else None
        return function if function is not None and not self._in_excluded_span(function.body) else None

    def _imported_helper(self, name: str) -> Optional[cst.FunctionDef]:
        """A helper imported from another module of the tree, read by libcst on first use."""
        if name not in self._helpers:
            text = self._helper_sources.get(name)
            try:
                body = cst.parse_module(text).body if text is not None else []
            except cst.ParserSyntaxError:
                body = []
            self._helpers[name] = body[0] if len(body) == 1 and isinstance(body[0], cst.FunctionDef) else None
        return self._helpers[name]

    def place(self, node: cst.CSTNode) -> Place:
        """Where the node is in source order, for ordering it against bindings."""
        return self.index.place[id(node)]

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Where the node lies in the file (character offsets, parentheses around it out)."""
        return self.index.tree_holding(node).span(node)

    def locations(self, node: cst.CSTNode) -> tuple[Location, Location]:
        """Where the node starts and ends in the file (1-based rows and character columns)."""
        start, end = self.span(node)
        return self.lines.location(start), self.lines.location(end)

    def rows(self, node: cst.CSTNode) -> range:
        """The file rows the node spans."""
        start, end = self.span(node)
        return range(self.lines.row(start), self.lines.row(end) + 1)

    def excluded(self, call: cst.Call) -> bool:
        """Whether the call sits in code that is never differentiated: the prefilter's contexts, a
        JVP rule's primal computation, or a value none of whose uses can receive a cotangent (reach.py)."""
        key = id(call)
        if key not in self._excluded:
            scope = self.index.scope_at(call)
            self._excluded[key] = (
                self._in_excluded_span(call)
                or self._primal_in_jvp_rule(call, scope)
                or not may_receive_cotangent(call, scope, self.index.parent, self._env_at, self._names_read)
            )
        return self._excluded[key]

    def checked(self, node: cst.CSTNode, scope: Scope, place: Place) -> tuple:
        """(condition, truth) pairs the function checked before `node` (checks.py), read at `place`:
        those whose names are bound there as they were at the check."""
        function = scope.node
        if not isinstance(function, cst.FunctionDef) or id(node) not in self.index.parent:
            return ()
        if id(function) not in self._may_check:
            self._may_check[id(function)] = may_check(function, lambda name: self._checking_helper_named(name, scope))
        if not self._may_check[id(function)] or self.index.scope_at(node) is not scope:
            return ()
        found = []
        for check in checks_before(node, self.index.parent, lambda statement: self._checks_made_by(statement, scope)):
            at = self.place(check.statement)
            names = {n.value for n in walk(check.condition) if isinstance(n, cst.Name)}
            held = check.returned_by
            bound_by_call = helper_call(check.statement)[1].value if held is not None else None
            if all(
                all(b.value is held for b in bindings_reaching(scope, name, place))
                if name == bound_by_call
                else bindings_reaching(scope, name, at) == bindings_reaching(scope, name, place)
                for name in names
            ):
                found.append((check.condition, check.truth))
        return tuple(found)

    def _checking_helper_named(self, name: str, scope: Scope) -> bool:
        """Whether `name`, seen from the function `scope` is, is a function of the file that checks
        its parameters on entry (checks.py)."""
        binding = binding_at(scope, name, self.place(scope.node))
        function = binding.function if binding is not None else None
        return function is not None and bool(self._entry_checks_of(function)[0])

    def _entry_checks_of(self, function: cst.FunctionDef) -> tuple[tuple[Check, ...], Optional[cst.FunctionDef]]:
        """The checks the function makes on entry, and the function less them (to read what it
        returns), remembered."""
        key = id(function)
        if key not in self._entry_checks:
            entries, rest = entry_checks(function)
            body = function.body.with_changes(body=rest) if entries and rest and isinstance(function.body, cst.IndentedBlock) else None
            self._entry_checks[key] = entries, (function.with_changes(body=body) if body is not None else None)
        return self._entry_checks[key]

    def _checks_made_by(self, statement: cst.CSTNode, scope: Scope) -> tuple[Check, ...]:
        """What `helper(x)` or `y = helper(x)` makes sure of, when the helper checks its parameters
        on entry: each check with the parameters replaced by what the call passes (names, items
        and numbers: a call's value may differ at the next call), and, where the helper returns a
        parameter unchanged (a cast, a copy), the checks on it said of `y` as well."""
        key = id(statement)
        if key not in self._checks_by_call:
            self._checks_by_call[key] = ()
            call, target = helper_call(statement)
            env = _Env(self, scope, self.place(statement))
            function, binding = self.own_helper(call, env), env.binding(call.func)
            entries, rest = self._entry_checks_of(function) if function is not None else ((), None)
            bound = bound_arguments(function.params, call) if entries else None
            if bound is not None:
                plain = {name: arg for name, arg in bound.items() if not any(isinstance(n, cst.Call) for n in walk(arg))}
                found: list[Check] = []
                returned = self._returned_parameter(rest, call, bound, env) if target is not None and rest is not None else None
                for entry in entries:
                    read = reads(entry.condition)
                    free = read - set(bound)
                    if not self._reads_alike(function, binding, env, frozenset(free)):
                        continue
                    if read & set(bound) <= set(plain):
                        found.append(Check(substituted(entry.condition, plain), entry.truth, statement))
                    if returned is not None and read & set(bound) <= {returned} | set(plain):
                        # A name of its own: the target node would be read where it is written, before it binds.
                        said = substituted(entry.condition, {**plain, returned: cst.Name(target.value)})
                        found.append(Check(said, entry.truth, statement, returned_by=call))
                self._checks_by_call[key] = tuple(found)
        return self._checks_by_call[key]

    def _returned_parameter(self, rest: cst.FunctionDef, call: cst.Call, bound: dict, env: "_Env") -> Optional[str]:
        """The parameter a helper (less its entry checks) returns unchanged for this call, through
        casts and copies (`return jnp.asarray(b, dtype=float)`), if one."""
        value = inlined(rest, call)
        for _ in range(MAX_DEPTH):  # a helper that returns a call of itself carries nothing
            if not isinstance(value, cst.Call):
                break
            value = carried_value(value, env)
        return next((name for name, arg in bound.items() if value is not None and arg is value), None)

    def _primal_in_jvp_rule(self, call: cst.Call, scope: Scope) -> bool:
        if not self.jvp_rules:
            return False
        for enclosing in scope.lookup_chain():
            if isinstance(enclosing.node, cst.FunctionDef) and enclosing.node.name.value in self.jvp_rules:
                return is_primal_in_jvp_rule(call, enclosing.node, self._env_at(call))
        return False

    def _env_at(self, node: cst.CSTNode) -> _Env:
        return _Env(self, self.index.scope_at(node), self.place(node))

    def _in_excluded_span(self, node: cst.CSTNode) -> bool:
        if not self.never_differentiated:
            return False
        unit = self.index.tree_holding(node).unit
        if not any(low < unit.end and unit.start < high for low, high in self.never_differentiated):
            return False  # no span reaches the unit: no need to place the node
        start = self.span(node)[0]
        return any(low <= start < high for low, high in self.never_differentiated)

    # --- the search ------------------------------------------------------------------------------
    def sites(self, kinds: frozenset[SiteKind]) -> list[Site]:
        """Every leak site of the given kinds."""
        found: list[Site] = []
        for call, scope in self.index.calls:
            env = _Env(self, scope, self.place(call))
            resolved = self._resolve_select(call, env)
            if resolved is None:
                continue
            select_fn, framework, method_form = resolved
            branches = self._branches(call, select_fn, method_form)
            masked = masked_value(self, call, env, resolved)  # a NaN mask's own value: NAN201's (masking.py)
            uses_of: dict[int, list[tuple[Optional[cst.Call], OpUse]]] = {}
            uncertain: set[int] = set()  # branches whose NaN a later select may have left out: MEDIUM
            for branch in branches:
                others = [b for b in branches if b is not branch]
                if branch.expr is masked:
                    continue
                if select_fn.kind == "where" and all(self._nonfinite_constant(b.expr, env, nan_only=True) for b in others):
                    # where(scale > 0, logpdf, nan): the output is NaN there anyway, if the NaN
                    # reaches it. An `inf` placeholder licenses nothing: it is usually reduced
                    # (`minimum`) to a finite value after.
                    reaches, undecided = self._nan_reaches_result(call, scope, others[0])
                    if reaches:
                        continue
                    if undecided:
                        uncertain.add(id(branch))
                search = self._search(branch.expr, env, scope)
                # An op the branch reaches through two of its locals is reported once, through the first.
                first = {id(use.node): use for use in reversed(search.uses)}
                uses = [use for use in search.uses if first[id(use.node)] is use]
                uses_of[id(branch)] = [(None, use) for use in uses] + self._nested_uses(search.selects, branch, scope)
            evaluated = _Evaluated(self, env, scope, uses_of)
            for branch in branches:
                others = [b for b in branches if b is not branch]
                for holder, use in uses_of.get(id(branch), ()):
                    if use.via is not None and any(use.via.value in self._value_reads(b.expr, env) for b in others):
                        continue  # the local feeds every branch: the where picks a regime, it guards nothing
                    if others and all(id(use.node) in evaluated.ops(b) for b in others):
                        continue  # so does the op itself (`where(c, u / d, d / v)` through locals): no branch hides it
                    if others and (holder is None or _names_only(use.arg)) and all(evaluated.meets(b, self._pole(use, env)) for b in others):
                        # Every branch meets the same pole (`where(c, a / m, b / m)`), or one that
                        # surely holds it (`where(c, 1 / m, sqrt(m))`: sqrt is singular wherever m
                        # is 0): the selected one is singular there too. An op a nested select holds
                        # may be read elsewhere: a store into `s.m` between the two is not in the key.
                        continue
                    # An op out of sight, in an inner select or in a helper the branch calls: only
                    # where this condition provably explains its pole, or, for a NaN factor's
                    # product, where the factor is provably NaN while the inner select takes it.
                    out_of_sight = holder is not None or use.helper is not None
                    nan_factor_beyond_nested = holder is not None and self._leaks_where_nested_takes_it(holder, branch, use, env)
                    if out_of_sight and not nan_factor_beyond_nested and self._guard_verdict(branch, use, env)[0] not in _PROVEN:
                        continue
                    if holder is not None and use.helper is not None and not nan_factor_beyond_nested and not self._taken_where_dropped(holder, branch, env):
                        continue  # a helper's select that drops the op there: the helper's own finding
                    site = self._classify(call, select_fn, framework, method_form, branch, use, env)
                    if site is None or site.kind not in kinds or self.excluded(call):
                        continue
                    if nan_factor_beyond_nested:
                        site.confidence, site.leaks_where_nested_takes_it = Confidence.HIGH, True
                    if out_of_sight and site.confidence is not Confidence.HIGH:
                        continue
                    if id(branch) in uncertain:
                        site.confidence, site.evidence = Confidence.MEDIUM, Evidence.NAN_OTHERWISE
                    site.nested_in, site.scope = (holder.call if holder is not None else None), scope
                    site.upstream = self._upstream(site, env)
                    site.pole_mask = self._pole_mask(site.use.arg, _where_computed(site.use, env), site.use.leak_domain)
                    found.append(site)
        found = _explained_once(found)
        for site in found:
            if site.confidence is Confidence.HIGH and not self._surely_at_pole(site):
                site.confidence, site.evidence = Confidence.MEDIUM, Evidence.EXPONENT_UNKNOWN
        if SiteKind.CLAMP_AT_POLE in kinds:
            found += self._clamps_at_poles()
        if SiteKind.NAN_MASK in kinds:
            found += mask_sites(self, _Env, found)  # NAN201: masking.py
        return found

    def _nan_reaches_result(self, call: cst.Call, scope: Scope, nan_side: Branch) -> tuple[bool, bool]:
        """Whether the NaN `call` puts in (`u = where(u_inf, nan, u)`) may reach the function's
        result, or a later select leaves it out where it was put in (`where(u_inf, 0.0, u * f)`):
        then the value is finite there and the zero cotangent meets the unselected branch's pole.
        Second: whether a select only may have left it out (undecided there). A NaN mask
        (`nan_to_num(u)`, `where(isnan(u), 0.0, u)`) leaves it out wherever it was put in."""

        def drops(later: cst.Call, value: cst.BaseExpression) -> Optional[bool]:
            env = self._env_at(later)
            if nan_masked_value(self, later, env) is value:
                return True
            for side in self._where_sides(later, env)[0]:
                if side.expr is value:
                    taken = env.assuming(nan_side.cond, nan_side.polarity).decided(side.cond)
                    return None if taken is None else taken != side.polarity
            return False

        return nan_may_reach_result(call, scope, self.index.parent, self._env_at, self._names_read, drops)

    def _pole(self, use: OpUse, env: "_Env") -> tuple[tuple, IntervalSet]:
        """Where an op is singular: its argument's text with the bindings of the names it reads
        (where it is computed: `x` rebound between two selects is another `x`), and the values that
        leak there."""
        return value_key(use.arg, _written(use.arg, _where_computed(use, env))), use.leak_domain

    def _value_reads(self, node: cst.BaseExpression, env: "_Env") -> set[str]:
        """The names whose values `node` reads: not `x` in `zeros_like(x)` or `x.dtype`, which read
        only its shape and type, so no cotangent goes back into `x` from there."""
        return {name.value for name in loads(node, self._metadata_reads(node, env))}

    def _metadata_reads(self, node: cst.CSTNode, env: "_Env") -> set[int]:
        """The parts of `node` read only for their shape or type (`x` in `x.dtype`, `tf.shape(x)`),
        or to configure a call (`device=self.device`, `axis=k`): no data flows from them."""
        metadata: set[int] = set()
        for part in walk(node):
            if isinstance(part, cst.Attribute) and part.attr.value in METADATA_ATTRS:
                metadata.add(id(part.value))
            elif isinstance(part, cst.Call):
                if (shape := self._shape_argument(part, env)) is not None:
                    metadata.add(id(shape))
                metadata.update(id(arg.value) for arg in part.args if _configures(arg))
        return metadata

    def _selectors(self, node: cst.CSTNode, env: "_Env") -> set[int]:
        """The conditions of the selects in `node`: they choose its value, it is not made of them."""
        chosen: set[int] = set()
        for part in walk(node):
            if isinstance(part, cst.Call) and (resolved := self._resolve_select(part, env)) is not None and resolved[0].kind != "clamp":
                chosen.update(id(b.cond) for b in self._branches(part, resolved[0], resolved[2]) if b.cond is not None)
        return chosen

    def _shape_argument(self, call: cst.Call, env: "_Env") -> Optional[cst.BaseExpression]:
        """The argument `zeros_like(x)` reads only for its shape and dtype, if `call` is such."""
        return argument_at(call, SHAPE_ARG) if self.catalog.is_shape_only(env.qualified(call.func)) else None

    def _nested_uses(self, selects: list["_Nested"], branch: Branch, scope: Scope) -> list[tuple["_Holder", OpUse]]:
        """The ops in the branches of the selects nested in `branch` (`where(a, 0, where(b, u, v))`),
        directly or through locals (`imp = clip(where(b, u, v), lo, hi)`, `where(a, 0, imp)`), each
        with its holder (the select and the branch of it the op is in): where the outer select leaves
        `branch` unselected, they are unselected too, whatever the inner conditions say. Each nested
        select is searched once for the branch (each of its branches on its own: an op reached from
        two of them is held by both)."""
        if branch.cond is None:
            return []
        found: list[tuple[_Holder, OpUse]] = []
        pending: list[tuple[_Nested, tuple[_Holder, ...]]] = [(nested, ()) for nested in selects]
        searched: set[int] = set()
        while pending:
            inner, path = pending.pop(0)
            if id(inner.call) in searched:
                continue
            searched.add(id(inner.call))
            resolved = self._resolve_select(inner.call, inner.env)
            for inner_branch in self._branches(inner.call, resolved[0], resolved[2]) if resolved is not None else []:
                search = self._search(inner_branch.expr, inner.env, scope, helpers=inner.helper is None)
                holder = _Holder(inner.call, inner_branch, inner.env, path)
                uses, nested_selects = search.uses, search.selects
                if inner.helper is not None:
                    # A helper's select holds what the helper writes: not what the call's
                    # arguments and locals bring in (the branch meets those itself), nor what the
                    # helpers it calls compute (not read, as for its ops outside selects).
                    uses = [use for use in uses if self._written_in_helper(use.node, use)]
                    nested_selects = [nested for nested in nested_selects if self._written_in_helper(nested.call, nested)]
                found += [(holder, inner.reached(use)) for use in uses]
                pending += [(inner.through(nested), (*path, holder)) for nested in nested_selects]
        return found

    def _written_in_helper(self, node: cst.CSTNode, reached: "OpUse | _Nested") -> bool:
        """Whether an op or a select met in an inlined helper's select is the helper's own: built
        by the inlining (not a node of the file), reached through no local and no helper."""
        return id(node) not in self.index.place and reached.via is None and reached.helper is None

    def _region_taking(self, holder: "_Holder", branch: Branch, env: _Env, surely: bool) -> Optional[_Env]:
        """Where the enclosing select does not take `branch` while the nested select, and every
        select between them, takes the branch that leads to the op: each condition assumed in
        turn. None when one is decided the other way there (by its key or by value ranges), or,
        with `surely`, when one is not decided to take it."""
        if branch.polarity is None:
            return None
        region = env.assuming(branch.cond, not branch.polarity)
        for select in (*holder.path, holder):
            taken = select.branch
            if taken.polarity is None:
                return None
            region = region.at(select.env.place)
            decided = (region.decided(taken.cond), decided_by_ranges(taken.cond, region))
            if (taken.polarity not in decided) if surely else (not taken.polarity) in decided:
                return None
            region = region.assuming(taken.cond, taken.polarity)
        return region

    def _taken_where_dropped(self, holder: "_Holder", branch: Branch, env: _Env) -> bool:
        """Whether, where the enclosing select does not take `branch`, the nested select and every
        select between them provably take the branch that holds the op: there the op's value is
        the branch's, and the enclosing select's zero cotangent meets its derivative, whatever the
        nested select's own finding masks."""
        return self._region_taking(holder, branch, env, surely=True) is not None

    def _leaks_where_nested_takes_it(self, holder: "_Holder", branch: Branch, use: OpUse, env: _Env) -> bool:
        """Whether a product with a NaN or infinite factor (`nan * s`, a placeholder times `s`), held
        by a nested select, provably (HIGH) has a non-finite derivative where the enclosing select
        does not take `branch` while the nested select, and every select between them, takes the
        branch the product is in: all those conditions assumed, none contradicting another (that
        region is empty, or an intermediate select already dropped the product there). Its
        derivative is the factor whatever `s` is, so the nested select's double where fixes nothing
        there: the enclosing zero cotangent is a leak of its own, reported there."""
        region = self._region_taking(holder, branch, env, surely=False) if use.leak_domain.is_everything() else None
        if region is None:
            return False
        leaking = self._nonfinite_factor(use, _where_computed(use, region), region, lambda candidate: self._masked_on_condition(branch, candidate, env))
        return leaking is not None and leaking[1] is Confidence.HIGH

    def _clamps_at_poles(self) -> list[LeakSite]:
        """`sqrt(maximum(x, 0.0))`, `x.clamp_min(0).sqrt()`, `arcsin(clip(x, -1, 1))`: the clamp is a
        select whose bound sits on the op's pole; where it is chosen, 0 * inf is NaN."""
        found = []
        for outer, inner, scope in self.index.wrapping:
            env = _Env(self, scope, self.place(outer))
            resolved = self._resolve_select(inner, env)
            if resolved is None or resolved[0].kind != "clamp" or self.excluded(outer):
                continue
            sel, framework, method_form = resolved
            use = self._op_applied(outer, env)
            if use is None or use.arg is not inner or use.op.kind is not LeakKind.POLE:
                continue
            operand = next((b for b in self._branches(inner, sel, method_form) if depends_on_data(b.expr, env)), None)
            if operand is None:
                continue
            method = inner.func.attr.value if method_form and isinstance(inner.func, cst.Attribute) else None
            selecting = self.catalog.clamp_gradient_selects(env.qualified(inner.func), method, framework)
            for bound in _clamp_bounds(inner, sel, method_form, env):
                if use.leak_domain.contains(bound):
                    display = self._display(inner, method_form)
                    site = LeakSite(SiteKind.CLAMP_AT_POLE, inner, sel, display, use.framework or framework, method_form, operand, use)
                    site.admitted, site.guard_var, site.scope = IntervalSet.point(bound), "the bound", scope
                    # Wherever a multiplying clamp binds, the gradient is NaN; a selecting one is
                    # NaN only for values exactly on the bound, which may or may not occur.
                    site.confidence = Confidence.MEDIUM if selecting else Confidence.HIGH
                    found.append(site)
                    break
        return found

    def _op_applied(self, call: cst.Call, env: _Env) -> Optional[OpUse]:
        """The singular op `call` applies (a function or a tensor method) and the argument a fix masks,
        whether or not that argument is guarded; None for anything else."""
        qualified = env.qualified(call.func)
        hit = self.catalog.op(qualified)
        if hit is not None:
            op, framework = hit
            arg, exponent = argument_at(call, op.arg), argument_at(call, op.exponent) if op.exponent else None
        elif (method := self._method(call, qualified, env)) is not None:
            hit = self.catalog.method_op(method, self.imported_frameworks)
            if hit is None:
                return None
            op, framework = hit
            receiver = call.func.value
            arg = argument_at(call, op.method_arg, receiver)
            exponent = argument_at(call, op.method_exponent, receiver) if op.method_exponent else None
        else:
            return None
        domain = _domain_for(op, exponent, env)
        return OpUse(op, framework, call, arg, domain, exponent) if arg is not None and domain is not None else None

    def _method(self, call: cst.Call, qualified: Optional[str], env: _Env) -> Optional[str]:
        """The method name when `call` is a tensor method on data (`x.sqrt()`), not a module function."""
        if qualified is None and isinstance(call.func, cst.Attribute) and env.qualified(call.func.value) is None:
            return call.func.attr.value
        return None

    def _display(self, call: cst.Call, method_form: bool) -> str:
        """How messages name a select: its source spelling, or `Tensor.where` for the method form."""
        return f"Tensor.{call.func.attr.value}" if method_form else self.code(call.func)

    def branches_of(self, call: cst.Call, scope: Scope) -> list[Branch]:
        """The branches of `call` if it is a select, else []."""
        resolved = self._resolve_select(call, _Env(self, scope, self.place(call)))
        return self._branches(call, resolved[0], resolved[2]) if resolved is not None else []

    def _nonfinite_constant(self, node: cst.BaseExpression, env: _Env, nan_only: bool = False, depth: int = 0) -> bool:
        """`jnp.nan`, `-np.inf`, `float("nan")`, `jnp.full_like(x, jnp.nan)`, `jnp.array(np.nan)`, a local bound to one;
        with `nan_only`, a NaN and not an infinity."""
        if isinstance(node, cst.UnaryOperation):
            return self._nonfinite_constant(node.expression, env, nan_only, depth)
        if isinstance(node, cst.Name) and depth < MAX_INDIRECTION and (value := assigned(node, env)) is not None:
            return self._nonfinite_constant(value[0], value[1], nan_only, depth + 1)
        if isinstance(node, (cst.Name, cst.Attribute)):
            name = env.qualified(node) or ""
            return name.rsplit(".", 1)[-1] in (NAN_NAMES if nan_only else NONFINITE_NAMES)
        if isinstance(node, cst.Call):
            carried = carried_value(node, env)
            if carried is not None and depth < MAX_INDIRECTION:  # `jnp.array(np.nan, dtype)`, `tf.cast(nan, t)`
                return self._nonfinite_constant(carried, env, nan_only, depth + 1)
            values = arguments(node)
            if isinstance(node.func, cst.Name) and node.func.value == "float" and values:
                text = string_value(values[0])
                return text is not None and text.strip().strip("+-").lower() in (("nan",) if nan_only else ("nan", "inf", "infinity"))
            leaf = leaf_name(node.func) or ""
            return leaf in _FILLS and any(self._nonfinite_constant(v, env, nan_only, depth) for v in values)
        return False

    def _nonfinite_literal(self, node: cst.BaseExpression, env: _Env) -> bool:
        """`jnp.nan`, `-np.inf`, `float("nan")` written in place, spelled so (what the prefilter's
        screen sees as one): not a local bound to one, nor another name imported for one."""
        if isinstance(node, cst.UnaryOperation):
            return self._nonfinite_literal(node.expression, env)
        if isinstance(node, cst.Call):
            spelled = leaf_name(node.func) == "float"
        elif isinstance(node, (cst.Name, cst.Attribute)):
            spelled = leaf_name(node) in NONFINITE_NAMES and not (isinstance(node, cst.Name) and assigned(node, env) is not None)
        else:
            return False
        return spelled and self._nonfinite_constant(node, env)

    def _placeholder(self, node: cst.BaseExpression, env: _Env) -> Optional[Branch]:
        """A local bound to a where with a NaN or infinite constant written on one side
        (`u = where(u_inf, nan, u)`): that side."""
        if not isinstance(node, cst.Name):
            return None
        branches, where_env = self._where_sides(node, env)
        sides = [b for b in branches if self._nonfinite_literal(b.expr, where_env)]
        return sides[0] if len(sides) == 1 and sides[0].polarity is not None else None

    def _where_sides(self, node: cst.BaseExpression, env: _Env) -> tuple[list[Branch], _Env]:
        """The branches of the where `node` is, or a local was assigned from, with the place they
        are read at; none for anything else."""
        if isinstance(node, cst.Name) and (value := assigned(node, env)) is not None:
            node, env = value
        resolved = self._resolve_select(node, env) if isinstance(node, cst.Call) else None
        if resolved is None or resolved[0].kind != "where":
            return [], env
        return self._branches(node, resolved[0], resolved[2]), env

    def _resolve_select(self, call: cst.Call, env: _Env) -> Optional[tuple[SelectFunction, str, bool]]:
        qualified = env.qualified(call.func)
        hit = self.catalog.select(qualified)
        if hit is not None:
            return hit[0], hit[1], False
        method = self._method(call, qualified, env)
        if method is not None:
            hit = self.catalog.method_select(method, self.imported_frameworks)
            if hit is not None and len(positional(call)) <= hit[0].method_arity:
                return hit[0], hit[1], True
        return None

    def _branches(self, call: cst.Call, sel: SelectFunction, method_form: bool) -> list[Branch]:
        receiver = call.func.value if method_form and isinstance(call.func, cst.Attribute) else None
        specs = sel.method_branches if method_form else sel.branches
        cond_spec = sel.method_cond if method_form else sel.cond
        if sel.kind == "where":
            cond = argument_at(call, cond_spec)
            true, false = (argument_at(call, spec, receiver) for spec in specs)
            if cond is None or true is None or false is None:
                return []  # where(c) returns indices: not a select
            return [Branch("true", 0, true, True, cond), Branch("false", 1, false, False, cond)]
        if sel.kind == "select_n":
            which = argument_at(call, cond_spec)
            cases = positional(call)[1:]
            if len(cases) < 2 or which is None:
                return []
            # Two cases: `which` is a predicate (case 1 where it holds); more: an index, no polarity.
            polarities = (False, True) if len(cases) == 2 else (None,) * len(cases)
            return [Branch(f"case {i}", i, case, polarities[i], which) for i, case in enumerate(cases)]
        if sel.kind == "select_list":
            return _select_list_branches(call, sel)
        return [Branch("clamped", 0, expr, None, None) for spec in specs if (expr := argument_at(call, spec, receiver)) is not None]

    def _uses(self, expr: cst.BaseExpression, env: _Env, scope: Scope, seen: Optional[dict] = None, depth: int = 0) -> list[OpUse]:
        return self._search(expr, env, scope, seen, depth).uses

    def _search(
        self,
        expr: cst.BaseExpression,
        env: _Env,
        scope: Scope,
        seen: Optional[dict] = None,
        depth: int = 0,
        limit: int = MAX_INDIRECTION,
        helpers: bool = True,
    ) -> "_BranchSearch":
        """The ops `expr` evaluates (`.uses`) and the selects nested in it (`.selects`). `seen`: the
        least depth each local was followed at, so that one reached first by a longer way, where
        the depth limit cut it short, is followed again by a shorter one (as the prefilter does)."""
        search = _BranchSearch(self, env, scope, {} if seen is None else seen, depth, limit, helpers)
        visit(expr, search)
        return search

    def _follow_local(self, name: cst.Name, env: _Env, scope: Scope, seen: dict, depth: int, limit: int) -> Optional["_BranchSearch"]:
        """`s = jnp.sqrt(x)` earlier in the same scope, then `where(c, s, 0)`: the op leaks through `s`
        (and so do the ops of the selects `s` was computed by). Each binding that may reach the read
        is followed: `s` bound in either arm of an `if` holds either value."""
        if depth >= limit:
            return None
        found: Optional[_BranchSearch] = None
        for binding in env.bindings(name):
            if (
                binding.value is None
                or binding.imported is not None
                or not any(b is binding for b in scope.bindings.get(binding.name, ()))
                or binding.place >= env.place
                or seen.get(id(binding), limit) <= depth
            ):
                continue
            seen[id(binding)] = depth
            search = self._search(binding.value, env.at(binding.place), scope, seen, depth + 1, limit)
            reached = _Nested(None, env, name, binding)
            search.uses = [reached.reached(use) for use in search.uses]
            search.selects = [reached.through(nested) for nested in search.selects]
            if found is None:
                found = search
            else:
                found.uses += search.uses
                found.selects += search.selects
        return found

    def _is_select_or_barrier(self, call: cst.Call, qualified: Optional[str], env: _Env) -> bool:
        return self._resolve_select(call, env) is not None or self._is_barrier_call(call, qualified, env)

    def _is_barrier_call(self, call: cst.Call, qualified: Optional[str], env: _Env) -> bool:
        return self.catalog.is_barrier(qualified) or self._method(call, qualified, env) in BARRIER_METHODS

    def _keeps_off_pole(self, call: cst.Call, qualified: Optional[str], env: _Env, domain: IntervalSet, sole_input: bool) -> bool:
        """A clamp, or a select with a branch no gradient flows through (a safe value), off the op's
        pole `domain` unless the masked value is the op's `sole_input` a gradient flows through."""
        resolved = self._resolve_select(call, env)
        if resolved is None:
            return False
        sel, _, method_form = resolved
        if sel.kind == "clamp":
            return True
        branches = self._branches(call, sel, method_form)
        carrying = [b for b in branches if carries_gradient(b.expr, env)]
        if len(carrying) == len(branches):
            return False  # no safe value
        if _safe_value_at_pole(branches, env, domain):
            # The safe value is the op's pole (`x / where(v != 0, v, 0.0)`): where the mask takes
            # it, the where sends the op's infinite cotangent to that value, not to `v`, but the
            # op's other inputs get 0 * inf (d/dx x/y = 1/y).
            return sole_input
        # Where the condition is read for the value it keeps, it keeps the op off its pole only if
        # none of those values is the pole: `where(d < 0, 1.0, d)` keeps d = 0, sqrt's pole (point 172).
        kept = _kept_values(carrying, env)
        if kept is not None:
            return kept.intersect(domain).is_empty()
        # Otherwise the safe value keeps the op off its pole where the where's condition tests the
        # value it masks (`where(v == 0, 1.0, v)`); a mask on other data (`where((x == 0) & (z ==
        # 0), 0.0, y)`) keeps nothing off where its condition does not hold, nor does a test of a
        # value since bound again (`ok = x > 0`, `x = x - 1`, `where(ok, x, 1.0)`).
        data = set().union(*(self._names_through(b.expr, env, 2, values=True) for b in carrying))
        tests = [b.cond for b in branches if b.cond is not None and self._names_through(*_condition_root(b.cond, env), 2) & data]
        return any(all(_tests_as_bound(cond, b.expr, env) for b in carrying) for cond in tests)

    def _pole_mask(self, arg: cst.BaseExpression, env: _Env, domain: IntervalSet, depth: int = 0) -> Optional[cst.Call]:
        """The where the op's argument is, through locals, indexing and casts (as `_guarded` reads a
        mask), when its safe value lies in the op's pole `domain` (`safe = where(v != 0, v, 0.0)` as
        a divisor), for the message."""
        if isinstance(arg, cst.Subscript) and depth <= MAX_INDIRECTION:
            return self._pole_mask(arg.value, env, domain, depth + 1)
        if isinstance(arg, cst.Call) and depth <= MAX_INDIRECTION and (inner := carried_value(arg, env)) is not None:
            return self._pole_mask(inner, env, domain, depth + 1)
        if isinstance(arg, cst.Name) and depth <= MAX_INDIRECTION and (value := assigned(arg, env)) is not None:
            return self._pole_mask(value[0], value[1], domain, depth + 1)
        resolved = self._resolve_select(arg, env) if isinstance(arg, cst.Call) else None
        if resolved is None or resolved[0].kind != "where":
            return None
        sides = self._branches(arg, resolved[0], resolved[2])
        masks = any(carries_gradient(b.expr, env) for b in sides)  # data on a side, a safe value on another
        return arg if masks and _safe_value_at_pole(sides, env, domain) else None

    def _names_through(self, node: cst.CSTNode, env: _Env, depth: int, values: bool = False) -> set[str]:
        """The names `node` reads and, up to `depth` levels, the ones its locals were computed from
        (`zero_width = dx == 0` reads `dx` as `where(zero_width, 1.0, dx)` does)."""
        return set().union(*(self._variables(node, env, level, values) for level in range(depth + 1)))

    def _masks(self, call: cst.Call, qualified: Optional[str], env: _Env, condition: Optional[frozenset[tuple]]) -> bool:
        """A where on the outer select's own `condition` (its `_condition_keys`; `where(c, x, 1.0)`, `where(c, x, fallback)`):
        the author put a value of their choosing where the outer select does not look. A where on
        another condition (`where(c, -q, q)`, or a mask of `x > 0` under a select on `x > 5`) keeps
        nothing off the pole there."""
        if condition is None:
            return False
        resolved = self._resolve_select(call, env)
        if resolved is None or resolved[0].kind == "clamp":
            return False
        sel, _, method_form = resolved
        return any(b.cond is not None and _condition_keys(b.cond, env) & condition for b in self._branches(call, sel, method_form))

    # --- singular ops ---------------------------------------------------------------------------
    def _call_use(self, call: cst.Call, env: _Env, value_only: bool = False) -> Optional[OpUse]:
        """The singular op `call` applies, if its argument can take the op to its pole here (with
        `value_only`, to where its value is not finite)."""
        use = self._op_applied(call, env)
        if use is None or keyword_value(call, use.op.guard_keywords) is not None:
            return None  # torch.logit(x, eps=...) clamps by itself
        return self._if_leaking(use, env, value_only)

    def _operator_use(self, node: cst.BinaryOperation, env: _Env, value_only: bool = False) -> Optional[OpUse]:
        operator = OPERATORS.get(type(node.operator))
        if operator is None:
            return None
        if operator == "%" and is_string(node.left):
            return None  # string formatting
        op = _OPERATOR_OPS[operator]
        if operator == "**":
            return self._use_if_leaking(op, node, node.left, node.right, env, value_only)
        if operator == "*":
            # Only a product with a NaN or infinite factor (`jnp.nan * s`, or `u * s` after
            # `u = where(c, nan, u)`): its partner's derivative is that factor.
            # Two placeholders (`s * xi`, each put in by a where) may leak either way: which one does
            # is decided where the branch is classified (`_nonfinite_where_unselected`).
            literal = [self._nonfinite_literal(side, env) for side in (node.left, node.right)]
            nonfinite = [lit or self._placeholder(side, env) is not None for lit, side in zip(literal, (node.left, node.right))]
            if not any(nonfinite) or all(literal):
                return None
            arg = node.left if not nonfinite[0] or literal[1] else node.right
            return self._use_if_leaking(op, node, arg, None, env, value_only)
        return self._use_if_leaking(op, node, node.right, None, env, value_only)

    def _use_if_leaking(self, op: SingularOp, node, arg, exponent, env: _Env, value_only: bool) -> Optional[OpUse]:
        domain = _domain_for(op, exponent, env)
        return self._if_leaking(OpUse(op, "", node, arg, domain, exponent), env, value_only) if domain is not None else None

    def _if_leaking(self, use: OpUse, env: _Env, value_only: bool = False) -> Optional[OpUse]:
        """The use, if it can leak: its argument varies, a gradient can flow through one of its inputs
        (`total / count` leaks through `total` when `count` is a count; `x % n` only through `n`), or
        through a factor whose derivative its value is (`value_of`), and `_leaks`. `value_only`: asked
        only where the op's value is not finite, what a NaN mask hides (sqrt below 0, not at 0)."""
        node, arg, op = use.node, use.arg, use.op
        if not depends_on_data(arg, env):
            return None
        if value_only and (nonfinite := _value_not_finite(use, env)) is not None:
            if nonfinite.is_empty():
                return None
            use = replace(use, leak_domain=nonfinite)
        if not carries_gradient(arg if op.only_through_arg else node, env):
            nonfinite = _value_not_finite(use, env)
            taker = self._factor_taking_value(node, env) if nonfinite is not None and not nonfinite.is_empty() else None
            if taker is None:
                return None
            use = replace(use, value_of=taker, leak_domain=nonfinite)
        return use if self._leaks(node, arg, use.leak_domain, op, env, through_value=use.value_of is not None) else None

    def _leaks(self, node: cst.CSTNode, arg: cst.BaseExpression, domain: IntervalSet, op: SingularOp, env: _Env, through_value: bool = False) -> bool:
        """Whether an op a gradient reaches can leak: no guard keeps it off its pole, and its values can
        reach the pole. `through_value`: the leak is through the factor its value multiplies, which a
        barrier on the argument does not stop."""
        divides = isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide)
        if divides and pole_only_at_empty_slots(node.left, arg, env) and self._masked_as_is(node, env):
            return False  # `where(n > 0, segment_sum(x, ids) / n, 0)`, `n` the count: no index reads the NaN back
        # A safe value keeps a pole away (`log(where(x > 0, x, 1.0))`), but not an overflow: the
        # mask is rarely about how large the values get (`expm1(where(z > 0, z, 1.0))`), so there
        # the values decide, or a mask on the select's own condition (`_classify`). Nor against a
        # non-finite factor, which leaks at every value: where it does is decided there too.
        sole_input = not through_value and not _other_input_carries(node, arg, env)
        if op.kind is LeakKind.POLE and not domain.is_everything() and self._guarded(arg, env, 0, domain, sole_input=sole_input):
            return False
        if op.kind is LeakKind.POLE and sole_input and self._gated(arg, domain, op, env):
            return False
        if not can_reach(arg, domain, env) or self._checked_off_pole(arg, domain, env):
            return False
        if op.kind is LeakKind.POLE and domain == IntervalSet.point(0.0) and zero_replaced(arg, env):
            return False  # `g / (n + eps * (n == 0))`: the divisor is never 0
        # `log(p + 1e-8)`: an explicit shift off a pole at or below zero is the author's guard.
        below_zero = IntervalSet.above(0.0, closed=False).intersect(domain).is_empty()
        return not (op.kind is LeakKind.POLE and below_zero and is_epsilon_shifted(arg, env))

    def _factor_taking_value(self, node: cst.CSTNode, env: _Env) -> Optional[cst.BaseExpression]:
        """The other side of a product the op is a factor of (or of a quotient it is the dividend of),
        when a gradient reaches that side: the op's value is its derivative (`log(u) * x` with `u` a
        random draw: d/dx = log(u), -inf at u = 0, and an unselected branch's zero cotangent makes
        it NaN)."""
        current = node
        for _ in range(MAX_INDIRECTION):
            parent = self.index.parent.get(id(current))
            if isinstance(parent, cst.UnaryOperation) and isinstance(parent.operator, (cst.Minus, cst.Plus)):
                current = parent
                continue
            if not isinstance(parent, cst.BinaryOperation):
                return None
            if isinstance(parent.operator, cst.Multiply):
                other = parent.right if parent.left is current else parent.left
            elif isinstance(parent.operator, cst.Divide) and parent.left is current:
                other = parent.right
            else:
                return None
            if carries_gradient(other, env):
                return other
            current = parent
        return None

    def _masked_as_is(self, node: cst.CSTNode, env: _Env) -> bool:
        """Whether `node` is itself a branch of a where or the value a NaN mask takes (`where(c, a / n,
        0)`, `nan_to_num(a / n)`): its non-finite values are masked before anything else reads them."""
        arg = self.index.parent.get(id(node))
        call = self.index.parent.get(id(arg)) if isinstance(arg, cst.Arg) else None
        if not isinstance(call, cst.Call):
            return False
        resolved = self._resolve_select(call, env)
        if resolved is not None:
            select_fn, _, method_form = resolved
            return select_fn.kind == "where" and any(branch.expr is node for branch in self._branches(call, select_fn, method_form))
        return replaced_value(self, call, env) is node

    def _guarded(
        self,
        arg: cst.BaseExpression,
        env: _Env,
        depth: int,
        domain: IntervalSet,
        computed: bool = False,
        condition: Optional[frozenset[tuple]] = None,
        sole_input: bool = True,
    ) -> bool:
        """The argument is masked on the outer select's own `condition` (`_masks`), or kept off the
        pole (`_keeps_off_pole`), or a local assigned from such; or (`computed`) it is made only of
        values masked on the condition and values no gradient flows through. A where between two
        data on another condition (`where(c, -q, q)`) guards nothing. A barrier, or a safe call that
        zeroes the cotangent coming back at its pole (`jax_md.space.distance`; not
        `torch.linalg.norm`), guards it only when it is the op's `sole_input` a gradient flows
        through: it stops what comes back into it, but not what another input gets (`x / distance(x)`:
        d/dx = 1 / distance, infinite at 0). `depth`: how far it has looked (limits.BINDING_COST)."""
        if depth > (MAX_INDIRECTION + 1) * BINDING_COST:
            return False
        if isinstance(arg, cst.Call):
            qualified = env.qualified(arg.func)
            if self._masks(arg, qualified, env, condition):
                return True
            # The op's own argument is guarded by a clamp (at the pole it is NAN102's), a where with
            # a safe value (`where(c, x, 1.0)`), or a barrier or a safe call that guards its result;
            # what is computed from them is not.
            if not computed and self._keeps_off_pole(arg, qualified, env, domain, sole_input):
                return True
            barrier = self._is_barrier_call(arg, qualified, env)
            if not computed and sole_input and (barrier or self.catalog.guards_its_result(qualified)):
                return True
            if barrier and _operands(arg):
                # `x.detach()` has the value of `x`: kept off the pole if `x` is.
                return self._guarded(_operands(arg)[0], env, depth + 1, domain, computed, condition, sole_input)
            inner = carried_value(arg, env)
            if inner is not None:
                return self._guarded(inner, env, depth + 1, domain, computed, condition, sole_input)
            if qualified is None and leaf_name(arg.func) == "masked_fill":
                return True  # torch: a where spelled as a method
        if isinstance(arg, cst.Subscript):  # `safe[..., None, :]`: some of the guarded values
            return self._guarded(arg.value, env, depth + 1, domain, computed, condition, sole_input)
        if isinstance(arg, cst.IfExp):
            sides = (arg.body, arg.orelse)
            return all(
                self._guarded(side, env, depth + 1, domain, computed, condition, sole_input) or not depends_on_data(side, env) for side in sides
            )
        if isinstance(arg, cst.Name):
            value = assigned(arg, env)
            return value is not None and self._guarded(value[0], value[1], depth + BINDING_COST, domain, computed, condition, sole_input)
        # `0.5 * safe_theta`, `mean(abs_sq(x))` after `x = where(c, ones_like(x), x)`: every operand
        # that carries a gradient is masked. (A where between two data, `where(c, -q, q)`, is not.)
        operands = [o for o in _operands(arg) if carries_gradient(o, env) and not is_epsilon(o, env)]
        return bool(operands) and all(self._guarded(o, env, depth + 1, domain, True, condition) for o in operands)

    def _gated(self, arg: cst.BaseExpression, domain: IntervalSet, op: SingularOp, env: _Env, depth: int = 0) -> bool:
        """`sqrt(relu(x))`: the argument is a function whose gradient selects 0 wherever its value
        can lie on the op's pole (`GRADIENT_GATES`), so the NaN made there goes no further."""
        if isinstance(arg, cst.Name) and depth < MAX_INDIRECTION and (value := assigned(arg, env)) is not None:
            return self._gated(value[0], domain, op, value[1], depth + 1)
        if not isinstance(arg, cst.Call):
            return False
        qualified = env.qualified(arg.func)
        gate = self.catalog.gradient_gate(qualified, self._method(arg, qualified, env), self.imported_frameworks)
        if gate is None or (gate[1] and not op.tf_eager_hides):
            return False
        return domain.intersect(IntervalSet.of(gate[0])).is_empty()

    def _checked_off_pole(self, arg: cst.BaseExpression, domain: IntervalSet, env: _Env) -> bool:
        """The function made sure before that the argument's variable is off the pole: after `if
        rate == 1.0: return ...`, `1.0 - rate` is never 0 (a range would span the point it misses)."""
        for var, to_var in affine_base(arg, env):
            pole = to_var(domain)
            for cond, truth in env.checked(var):
                allowed = env.values_where(cond, var, truth)
                if allowed is not None and allowed.intersect(pole).is_empty():
                    return True
        return False

    # --- classification --------------------------------------------------------------------------
    def _classify(self, call, sel, framework, method_form, branch: Branch, use: OpUse, env: _Env) -> Optional[LeakSite]:
        def site(kind: SiteKind, admitted: Optional[tuple[IntervalSet, str]] = None, confidence: Confidence = Confidence.MEDIUM) -> LeakSite:
            found = LeakSite(kind, call, sel, self._display(call, method_form), use.framework or framework, method_form, branch, use)
            if admitted is not None:
                found.admitted, found.guard_var = admitted
            found.confidence = confidence
            return found

        if sel.kind == "clamp":
            side = _clamp_side(call, sel, method_form)
            if "both" not in (side, use.op.clamp_side) and side != use.op.clamp_side:
                return None  # e.g. minimum(sqrt(x), 10): sqrt is selected near its pole
            return site(SiteKind.CLAMP)
        if self._configuration_pole(branch, use, env):
            return None
        if use.leak_domain.is_everything():
            # `where(c, 0.0, jnp.nan * s)`: every value of `s` leaks wherever the branch is not
            # selected (the NaN where it is selected is the placeholder's meaning, not a pole); a
            # placeholder put in by a where, where that where takes its non-finite side there.
            if branch.cond is None or branch.polarity is None:
                return None
            leaking = self._nonfinite_where_unselected(branch, use, env)
            if leaking is None:
                return None
            use, confidence = leaking
            return site(SiteKind.SINGULAR_LOCAL if use.via is not None else SiteKind.SINGULAR_OP, confidence=confidence)
        if branch.cond is not None and self._masked_on_condition(branch, use, env):
            return None  # masked before, on this select's own condition
        verdict, values = self._guard_verdict(branch, use, env)
        if verdict is GuardVerdict.NO_LEAK:
            return None
        if verdict is GuardVerdict.ADMITS and use.op.kind is LeakKind.POLE:
            return site(SiteKind.POLE_ADMITTED, values, Confidence.HIGH)
        if self._selected_at_pole(branch, use, env):
            return None
        if verdict is GuardVerdict.UNKNOWN and not self._condition_guards(branch, use, env):
            # The condition is about something else: a leak only if the argument can reach the pole there.
            return site(SiteKind.UNRELATED_CONDITION) if use.via is None else None
        if branch.polarity is not None and self._kept_off_by_condition(branch, use, env):
            return None
        if branch.polarity is not None and self._reached_through_unrelated_factor(branch, use, env):
            return site(SiteKind.UNRELATED_CONDITION) if use.via is None else None
        # Compared as values, the condition leaves the pole unselected: provably reachable there (a
        # power's leak domain, for an exponent not known, is its widest case: `_surely_at_pole`).
        pinned = verdict is GuardVerdict.UNKNOWN and use.op.exponent is None and self._pinned_at_pole(branch, use, env)
        confidence = Confidence.HIGH if verdict is not GuardVerdict.UNKNOWN or pinned else Confidence.MEDIUM
        if use.via is not None:
            found = site(SiteKind.SINGULAR_LOCAL, confidence=confidence)
        else:
            found = site(SiteKind.OVERFLOW if use.op.kind is LeakKind.OVERFLOW else SiteKind.SINGULAR_OP, confidence=confidence)
        if verdict is GuardVerdict.LEAK:
            found.evidence, found.reached = Evidence.REACHED, values
        elif pinned:
            found.evidence = Evidence.PINNED
        return found

    def _selected_at_pole(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """Wherever the op's argument is at its pole, the condition selects this branch, as the value
        ranges of what it compares say with the argument pinned there (`where(omq2 == 0, 0.0, c / q)`
        after `omq2 = 1 - q * q`: at `q == 0`, `omq2` is 1). The select then hides no pole: the
        branch's own value and derivative are what the output gets there."""
        if branch.polarity is None or not isinstance(use.arg, cst.Name) or use.leak_domain.is_empty():
            return False
        at_pole = env.pinning(use.arg, use.leak_domain.hull(), read_at=_where_computed(use, env))
        return decided_by_ranges(branch.cond, at_pole) is branch.polarity

    def _masked_on_condition(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The argument is masked before, on this select's own condition, by a mask whose own values
        do not put the op back at its pole where the select does not take the branch."""
        arg_env = _where_computed(use, env)
        masked = self._guarded(use.arg, arg_env, 0, use.leak_domain, computed=True, condition=_condition_keys(branch.cond, env))
        return masked and not self._masked_at_pole(branch, use, arg_env)

    def _nonfinite_where_unselected(self, branch: Branch, use: OpUse, env: _Env) -> Optional[tuple[OpUse, Confidence]]:
        """Whether the product's other factor is NaN or infinite where the branch is not selected,
        while a gradient reaches this one: a constant factor always is (HIGH); a placeholder local
        as its where's condition is decided there (HIGH when it takes the non-finite side, no leak
        when the other, MEDIUM when undecided). A factor that is itself a placeholder passes a
        gradient only where its where takes its value. Of two placeholders, either may leak."""
        unselected = env.assuming(branch.cond, not branch.polarity)
        return self._nonfinite_factor(use, _where_computed(use, env), unselected, lambda candidate: self._masked_on_condition(branch, candidate, env))

    def _nonfinite_factor(
        self, use: OpUse, computed: _Env, region: _Env, masked: Callable[[OpUse], bool]
    ) -> Optional[tuple[OpUse, Confidence]]:
        """`_nonfinite_where_unselected` in a region given by its assumptions; `masked`: whether a
        candidate's operand is masked on the select's condition before the product."""
        node = use.inside if use.inside is not None else use.node
        other = node.left if use.arg is node.right else node.right
        orientations = [use]
        if self._placeholder(use.arg, computed) is not None and self._placeholder(other, computed) is not None:
            orientations.append(replace(use, arg=other))
        found: Optional[tuple[OpUse, Confidence]] = None
        for candidate in orientations:
            factor = node.left if candidate.arg is node.right else node.right
            nonfinite = self._takes_nonfinite(factor, computed, region, default=True)
            cut = self._takes_nonfinite(candidate.arg, computed, region, default=False)  # no gradient back
            if nonfinite is False or cut is True or masked(candidate):
                continue
            confidence = Confidence.HIGH if nonfinite and cut is False else Confidence.MEDIUM
            if found is None or (confidence is Confidence.HIGH and found[1] is Confidence.MEDIUM):
                found = (candidate, confidence)
        return found

    def _takes_nonfinite(self, node: cst.BaseExpression, computed: _Env, unselected: _Env, default: bool) -> Optional[bool]:
        """Whether a placeholder local holds its NaN or infinite side where the branch is not
        selected (None: undecided there); `default` for anything else (a constant, a plain value)."""
        side = self._placeholder(node, computed)
        if side is None:
            return default
        taken = unselected.decided(side.cond)
        return None if taken is None else taken == side.polarity

    def _kept_off_by_condition(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """Where the branch is not selected, the condition bounds the argument off the pole, and
        inside the op's domain: a NaN value there (`log` of a negative) would still leak through a
        product with another operand, so it keeps the finding. Or it keeps the op's partner off
        the pole (`arctan2(sqrt(where(c, u, 1.0)), x)` under a select on `c`: y is 1 there)."""
        arg_env = _where_computed(use, env)
        unselected = arg_env.assuming(branch.cond, not branch.polarity)
        partner = argument_at(use.node, use.op.partner) if isinstance(use.node, cst.Call) else None
        if partner is not None and not may_be_zero(partner, unselected):
            return True
        if self._result_bounded_where_unselected(branch, use, env):
            return True
        if not self._variables(*_condition_root(branch.cond, env), 4) & self._variables(use.arg, arg_env, 4):
            return False  # the condition names nothing the argument is made of
        reach = self._reach_where_unselected(branch, use, env)
        if not reach.intersect(use.leak_domain).is_empty():
            return False
        return use.op.domain is None or reach.intersect(use.op.domain.complement()).is_empty()

    def _reached_through_unrelated_factor(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The argument is a product, and each factor the condition is made of keeps one sign, off 0,
        where the branch is not selected (`where(omq2 == 0, 0.0, y / (eta * omq2_safe))`). A pole at
        0, or a domain that ends there, is then reached or not by the other factors' signs alone,
        and the condition says nothing of them: NAN401's question, not a guard this where misses."""
        if not _decided_by_sign(use.leak_domain):
            return False
        arg_env = _where_computed(use, env)
        unselected = arg_env.assuming(branch.cond, not branch.polarity)
        condition_names = self._variables(*_condition_root(branch.cond, env), 4)
        related = unrelated = 0
        for factor, here in _factors_through_locals(use.arg, unselected):
            if not self._variables(factor, here, 4) & condition_names:
                unrelated += 1
                continue
            related += 1
            if IntervalSet.of(value_range(factor, here)).contains(0.0):
                return False  # a hull without 0 keeps one sign
        return related > 0 and unrelated > 0

    def _result_bounded_where_unselected(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The condition bounds the op's own result where the branch is not selected (`q = a / d`,
        then `where(q != 0, q, 1.0)`), or a local that is +-inf or NaN wherever that result is
        (`omq2 = 1 - q * q`, then `where(omq2 == 0, ...)`): at its pole the op's value is +-inf or
        NaN, which such bounds leave out, so the pole is where the branch is selected. Not for ops
        finite at their pole (sqrt(0) = 0). An overflow's value is +inf where it leaks, never NaN:
        a bound on it, or on a local that is +-inf wherever it is (`div = 1 - e`, then `where(div * div
        > 0, ...)`), leaves it out too."""
        op = use.op
        overflow = op.kind is LeakKind.OVERFLOW
        if not overflow and (op.kind is not LeakKind.POLE or op.domain is None or not use.leak_domain.intersect(op.domain).is_empty()):
            return False
        truth = not branch.polarity  # what the condition is where the branch is not selected
        subjects = [use.node] + [
            name for name, here in self._compared_names(branch.cond, env) if self._nonfinite_with(name, use.node, here, 0, never_nan=overflow)
        ]
        unique: dict[str, cst.BaseExpression] = {}
        for node in subjects:
            unique.setdefault(env.code(node), node)
        for subject, node in unique.items():
            region = env.values_where(branch.cond, node, truth)
            if region is None:
                continue
            bounded = not region.is_empty() and -INF < region.parts[0].lo and region.parts[-1].hi < INF
            if bounded and (overflow or holds_at_nan(branch.cond, subject, env) is (not truth)):
                return True
        return False

    def _compared_names(self, cond: cst.BaseExpression, env: _Env) -> list[tuple[cst.Name, _Env]]:
        """The names a condition reads, and those the locals it reads were made of (`small = omq2
        == 0`), a few levels deep, each with the place to read it from: the values it may bound."""
        names, pending = [], [(cond, env, 0)]
        while pending:
            node, here, hops = pending.pop()
            for name in loads(node):
                names.append((name, here))
                made_of = assigned(name, here) if hops < MAX_INDIRECTION else None
                if made_of is not None:
                    pending.append((*made_of, hops + 1))
        return names

    def _nonfinite_with(self, node: cst.BaseExpression, target: cst.CSTNode, env: _Env, depth: int, never_nan: bool = False) -> bool:
        """Whether `node` is +-inf or NaN wherever `target` is: `target` itself, or a sum, a
        difference or a product with it, its quotient by anything, a positive power or the negation
        of it, or a local assigned such (inf * 0 and inf - inf are NaN; inf / x is not finite). With
        `never_nan`, only what stays +-inf, never NaN, where `target` is +-inf (an overflow's value):
        its negation, a sum with a finite constant, a product with a nonzero one."""
        if node is target:
            return True
        if depth > MAX_INDIRECTION * BINDING_COST:
            return False
        if isinstance(node, cst.Name):
            made_of = assigned(node, env)  # every binding that may reach must be: the one that does
            return made_of is not None and self._nonfinite_with(made_of[0], target, made_of[1], depth + BINDING_COST, never_nan)
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.Minus, cst.Plus)):
            return self._nonfinite_with(node.expression, target, env, depth + 1, never_nan)
        if isinstance(node, cst.BinaryOperation):
            op = node.operator
            if isinstance(op, (cst.Add, cst.Subtract, cst.Multiply)):
                return any(
                    self._nonfinite_with(side, target, env, depth + 1, never_nan)
                    for side, other in ((node.left, node.right), (node.right, node.left))
                    if not never_nan or _finite_constant(other, env, nonzero=isinstance(op, cst.Multiply))
                )
            if never_nan:
                return False
            if isinstance(op, cst.Divide):
                return self._nonfinite_with(node.left, target, env, depth + 1)
            if isinstance(op, cst.Power):
                exponent = constant_value(node.right, env)
                return exponent is not None and exponent > 0 and self._nonfinite_with(node.left, target, env, depth + 1)
        return False

    def _configuration_pole(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The op's argument is configuration (`1.0 / radius` with `radius: float`): at its pole for
        every element or for none. The where does not decide where the pole is reached (if it is, the
        branch is infinite wherever it is selected), unless its condition tests the configuration
        itself (`where(r > 0, x / r, 0.0)` selects nothing when `r == 0`: a leak), or is drawn with
        it (`where(bernoulli(key, q), x / q, 0.0)` selects nothing when `q == 0`: a leak)."""
        arg_env = _where_computed(use, env)
        if branch.cond is None or not is_configuration(use.arg, arg_env):
            return False
        if self._drawn(branch.cond, env, MAX_INDIRECTION, self._variables(use.arg, arg_env, 4)):
            return False
        return not self._tests_configuration(branch.cond, env)

    def _drawn(self, cond: cst.BaseExpression, env: _Env, hops: int, names: Optional[set[str]] = None) -> bool:
        """Whether the condition, or a local it reads up to `hops` locals deep, holds a random draw
        (one that reads one of `names`, when given: `keep = broadcast_to(keep, shape)` after
        `keep = bernoulli(key, q, shape)` is drawn with `q`)."""
        pending = [(cond, env)]
        for _ in range(hops + 1):
            for part, here in pending:
                for node in walk(part):
                    if is_random_draw(node, here) and (names is None or self._variables(node, here, 4) & names):
                        return True
            pending = [value for part, here in pending for name in loads(part) if (value := assigned(name, here)) is not None]
        return False

    def _tests_configuration(self, cond: cst.BaseExpression, env: _Env) -> bool:
        """Whether the condition is configuration (`where(flag, ...)`), or a comparison in it, read
        with the locals it reads in place, is of configuration only (`r > 0`, `ok = r > 0`). A
        comparison of data with a bound made of configuration (`pixels < n - ncap`) is a test of the
        data, whether the bound is written in place or held by a local."""
        if is_configuration(cond, env):
            return True
        parts = [cond]
        for name in loads(cond):
            binding = env.binding(name)
            if binding is not None and binding.value is not None and binding.imported is None:
                parts.append(binding.value)
        for part in parts:
            for node in walk(part):
                if isinstance(node, cst.Comparison) and all(
                    is_configuration(side, env) for side in (node.left, *(c.comparator for c in node.comparisons))
                ):
                    return True
        return False

    def _masked_at_pole(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The masks' own values put the op at its pole where the select does not take the branch
        (`log(m / maximum(sum(m), 1.0))` after `m = where(c, x, 0.0)`, under a select on `c`): they
        are no guard. The sum sends the NaN cotangent to every element; an elementwise chain
        (`log(-expm1(where(c, x, 0.0)))`) would not, but which ops mix elements is not known here.
        (A mask that is the op's own argument is `_keeps_off_pole`'s.) Against a
        non-finite factor, which leaks at every value, a mask guards only where it takes a side no
        gradient flows through (`where(c, 1.0, s)` under `c`), not where it takes the data."""
        if branch.polarity is None:
            return False
        unselected = env.assuming(branch.cond, not branch.polarity)
        if use.leak_domain.is_everything():
            return not self._constant_there(use.arg, env, unselected)
        return _at_pole(use.arg, unselected, use.leak_domain)

    def _constant_there(self, node: cst.BaseExpression, env: _Env, unselected: _Env) -> bool:
        """A where (or a local bound to one) whose condition the unselected region decides, on a
        side made of no data there."""
        branches, where_env = self._where_sides(node, env)
        for side in branches:
            if unselected.decided(side.cond) == side.polarity:
                return not depends_on_data(side.expr, where_env)
        return False

    def _condition_guards(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """Whether the condition mentions what the op's argument is made of: `where(x > 0, log(x), 0)`.

        That is the pattern of a where meant as a guard; a condition about other data (a mask, a
        parameter's sign) leaves the leak possible but unproven, reported by the opt-in NAN401.
        """
        if branch.cond is None:
            return True
        arg_env = _where_computed(use, env)
        cond_vars = self._variables(*_condition_root(branch.cond, env), 4)
        shared = cond_vars & self._variables(use.arg, arg_env, 4)
        if not shared:
            return self._random_draw(branch.cond, env)
        # A bound on one input of an argument whose value is also made of other data
        # (`where(b < 8, lgamma(a + b), ...)`) switches regimes; it is not aimed at the op's pole.
        # A mask's condition chooses the value and is no other data (`where(m, 0.0, y)` is `y`).
        other_data = self._variables(use.arg, arg_env, 4, values=True) - cond_vars
        regime = other_data and any(selected_values(branch.cond, name, env) is not None for name in shared)
        return not regime or self._tests_a_factor_at_its_zero(branch, use, env) or self._pinned_at_pole(branch, use, env)

    def _surely_at_pole(self, site: LeakSite) -> bool:
        """Whether the op's leak domain is its own pole, for the confidence a finding states: a power
        by an exponent not known (`x ** p`) is given the widest domain, which may hold no pole (not
        for p = 2). Its condition still explains where the pole would be, so it is reported."""
        env = _Env(self, site.scope, self.place(site.select))
        return _exponent_known(site.use, _where_computed(site.use, env))

    def _pinned_at_pole(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """Where the branch is not selected, the condition puts the argument at the pole whatever
        the other data (`k2 = dot(2 * pi * k / box, ...)` under `all(k == 0)`): aimed at the pole."""
        if branch.polarity is None:
            return False
        return _within(self._reach_where_unselected(branch, use, env), use.leak_domain)

    def _reach_where_unselected(self, branch: Branch, use: OpUse, env: _Env) -> IntervalSet:
        """The values the op's argument takes where the branch is not selected. Remembered: the
        range question over a long expression is costly, and both the guard and the confidence ask."""
        key = (id(use.node), id(use.arg), id(branch.cond), branch.polarity)
        if key not in self._unselected_reach:
            unselected = _where_computed(use, env).assuming(branch.cond, not branch.polarity)
            self._unselected_reach[key] = IntervalSet.of(value_range(use.arg, unselected))
        return self._unselected_reach[key]

    def _random_draw(self, cond: cst.BaseExpression, env: _Env) -> bool:
        """A condition drawn at random (`uniform(key, x.shape) > 0.5`, or a local so drawn): it is
        independent of the data, so where it leaves a branch unselected the argument takes every
        value it takes at all, its pole included if it reaches it."""
        return self._drawn(cond, env, hops=1)

    def _tests_a_factor_at_its_zero(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """The condition splits a factor of the argument at 0 (`where(x == 0, c, 1 / (x * tau))`): a
        product is 0 where a factor is, so this is aimed at the op's pole, whatever the other factors."""
        if not use.leak_domain.contains(0.0):
            return False
        for factor in _factors(use.arg):
            region = selected_values(branch.cond, factor.value, env) if isinstance(factor, cst.Name) else None
            if region is not None and any(0.0 in (part.lo, part.hi) for part in region.parts):
                return True
        return False

    def _variables(self, node: cst.CSTNode, env: _Env, depth: int, values: bool = False) -> set[str]:
        """The root data names an expression is made of: locals are replaced by what they were
        computed from, `depth` levels deep (`pi_x = x * pi` stands for `x`). With `values`, only
        what its value is made of: a select's condition chooses the value of an op's argument
        (`y_ = where((x == 0) & (z == 0), 0.0, y)` is `y` or 0), though it is what an indicator
        (`case = where(t <= eps, 1, 0)`) says. Remembered: a local's definition is expanded again
        for every site that reads it."""
        key = (id(node), id(env.scope), env.place, depth, values)
        if key not in self._variables_of:
            self._variables_of[key] = self._expand_variables(node, env, depth, values)
        return self._variables_of[key]

    def _expand_variables(self, node: cst.CSTNode, env: _Env, depth: int, values: bool) -> set[str]:
        found: set[str] = set()
        skipped = self._metadata_reads(node, env) | (self._selectors(node, env) if values else set())
        for name, attribute in _data_names(node, skipped):
            binding = env.binding(name)
            if binding is not None and binding.imported is not None:
                continue
            if attribute is not None:
                found.add(attribute)  # self.low: a field is a variable of its own
            elif depth > 0 and binding is not None and binding.value is not None and binding.place < env.place:
                there = env.at(binding.place)
                made_of = self._variables(binding.value, there, depth - 1, values)
                # A random draw is made of no data, and is a variable of its own: a condition on
                # `u = rand_like(x)` bounds `2 * u`.
                found |= made_of or ({name.value} if draws_at_random(binding.value, there) else set())
            elif depth > 0 and binding is not None and binding.element_store is not None and binding.place < env.place:
                # `d[m] = v`: made of `v`, where it was stored, and of what `d` held before.
                there, store = env.at(binding.place), binding.element_store
                found |= self._variables(store.value, there, depth - 1, values) | self._variables(store.name, there, depth - 1, values)
            else:
                found.add(name.value)
        return found

    def _upstream(self, site: LeakSite, env: _Env) -> Optional[OpUse]:
        """The singular op that computes the masked local, when it is singular exactly where the
        local takes the value this site's op is singular at, and the condition is written on the
        local itself (`g = norm(u)`, `where(g < c, u, u / g * c)`): then no mask of `g` helps, and
        the condition cannot move to the op's argument either, since it reads the op's value."""
        arg, cond = site.use.arg, site.branch.cond
        if not isinstance(arg, cst.Name) or cond is None or arg.value not in {n.value for n in loads(cond)}:
            return None
        arg_env = _where_computed(site.use, env)
        binding = arg_env.binding(arg)
        if binding is None or not isinstance(binding.value, cst.Call):
            return None
        source = self._op_applied(binding.value, arg_env.at(binding.place))
        if source is None or source.op.value_at_pole is None or not site.use.leak_domain.contains(source.op.value_at_pole):
            return None
        return source if depends_on_data(source.arg, arg_env.at(binding.place)) else None

    def _guard_verdict(self, branch: Branch, use: OpUse, env: _Env) -> tuple[GuardVerdict, Optional[tuple[IntervalSet, str]]]:
        """Compare what the guard selects with the op's leak domain, when the guard names the argument;
        for ADMITS the pole values it selects, for LEAK those it surely leaves unselected, with the
        variable (source text) they are values of."""
        if branch.cond is None or branch.polarity is None:
            return GuardVerdict.UNKNOWN, None
        for var, to_var in affine_base(use.arg, env) if use.op.elementwise else ():
            said = _region_as_bound(branch.cond, var, env, partial=True)
            if said is None:
                continue
            # Of the pole, only what the variable can take: `zq < 0` admits none of `log`'s pole
            # when `zq = self.z` and the class stores `exp(...)` into `z`.
            domain = to_var(use.leak_domain).intersect(reachable(var, _where_computed(use, env)))
            selected = said.at_least(branch.polarity)  # values at which the branch is surely taken
            admitted = selected.intersect(domain) if selected is not None else None
            # A pole on the guard's own boundary (`x >= 0` for sqrt) is a guard aimed at it that let it in.
            if admitted is not None and not admitted.is_empty() and _on_boundary(admitted, selected) and _holds_a_pole(admitted, domain):
                return GuardVerdict.ADMITS, (admitted, self.code(var))
            # Where the branch is not taken: no pole, if all of it is known (an `or` with an unknown
            # side knows only part of where it holds); the pole, if part of it is known to hold one.
            within, surely = said.at_most(not branch.polarity), said.at_least(not branch.polarity)
            if within is not None and within.intersect(domain).is_empty():
                return GuardVerdict.NO_LEAK, None
            if surely is not None and not (reached := surely.intersect(domain)).is_empty():
                return GuardVerdict.LEAK, (reached, bare_code(var, self.code))
            if within is not None and _within(within, domain):
                # `(n == 0) & (d == 0)` leaves the branch unselected only at d = 0, whatever `n` is:
                # wherever the select does take the other branch, the op is at its pole.
                return GuardVerdict.LEAK, (within, bare_code(var, self.code))
            return GuardVerdict.UNKNOWN, None
        return self._value_tested_at_pole(branch, use, env)

    def _value_tested_at_pole(self, branch: Branch, use: OpUse, env: _Env) -> tuple[GuardVerdict, Optional[tuple[IntervalSet, str]]]:
        """A condition written on the op's own value, the local the branch reads (`n = norm(v)`, then
        `where(n == 0, 1.0, n * c)`), read at the value the op takes only at its pole (||v|| = 0
        only at v = 0, sqrt(u) = 0 only at u = 0): LEAK where it surely leaves the branch unselected
        at that value (with the value and the local, for the message); NO_LEAK where all of where it
        does lies away from it, and not where the local is NaN (sqrt's value below its domain), which
        the condition must then select. The local must hold the op itself (or a helper's call that
        returns it), bound as the condition reads it."""
        value, local = use.op.value_at_pole, use.via
        if value is None or local is None or use.definition is None or use.definition.value is not use.node:
            return GuardVerdict.UNKNOWN, None
        if use.helper is not None and use.inside is not env.inlined(use.node):
            return GuardVerdict.UNKNOWN, None  # the helper returns more than the op (`log(x) + 1`)
        if env.binding(local) is not use.definition:
            return GuardVerdict.UNKNOWN, None
        said = _region_as_bound(branch.cond, local, env, partial=True)
        if said is None:
            return GuardVerdict.UNKNOWN, None
        pole = IntervalSet.point(value)
        within, surely = said.at_most(not branch.polarity), said.at_least(not branch.polarity)
        if surely is not None and not surely.intersect(pole).is_empty():
            return GuardVerdict.LEAK, (pole, local.value)
        if within is not None and within.intersect(pole).is_empty() and holds_at_nan(branch.cond, local.value, env) is branch.polarity:
            return GuardVerdict.NO_LEAK, None
        return GuardVerdict.UNKNOWN, None


# What the condition says of the op's argument when it provably explains the pole (HIGH confidence).
_PROVEN = frozenset({GuardVerdict.LEAK, GuardVerdict.ADMITS})


class _BranchSearch(cst.CSTVisitor):
    """The singular ops a branch evaluates: calls and operators, and through locals, their
    definitions. A nested select is checked on its own, a barrier stops all gradient, and a
    lambda runs later (or never) with names of its own."""

    def __init__(self, detector: Detector, env: _Env, scope: Scope, seen: dict, depth: int, limit: int, helpers: bool = True) -> None:
        super().__init__()
        self.helpers = helpers  # whether the helpers the branch calls are read
        self.detector = detector
        self.env = env
        self.scope = scope
        self.seen = seen
        self.depth = depth
        self.limit = limit  # how many locals deep it follows
        self.uses: list[OpUse] = []
        self.selects: list[_Nested] = []

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Call(self, node: cst.Call) -> bool:
        detector, env = self.detector, self.env
        qualified = env.qualified(node.func)
        if detector._is_select_or_barrier(node, qualified, env):
            if not detector._is_barrier_call(node, qualified, env):
                # A nested select: its ops are the outer select's too (`_nested_uses`).
                self.selects.append(_Nested(node, env, None, None))
            return False
        leaf = leaf_name(node.func)
        if cuts_gradient(node, leaf, qualified, env):
            return False  # argmax(x), x.long(), jnp.floor(x): no gradient flows back through them
        if leaf in GATHERS:
            # gather(x, 1, idx), x.take(idx): the indices receive no gradient.
            values = positional(node)
            operand = node.func.value if qualified is None and isinstance(node.func, cst.Attribute) else (values[0] if values else None)
            if operand is not None:
                visit(operand, self)
            return False
        use = detector._call_use(node, env)
        if use is not None:
            self.uses.append(use)
        elif self.helpers and self.depth < self.limit and (helper := detector.own_helper(node, env)) is not None and (body := env.inlined(node)) is not None:
            # A straight-line helper of this file computes its ops on the call's arguments:
            # `_f(x, x2)` divides by `x2` if `_f` does. The helpers it calls are not read.
            search = _BranchSearch(detector, env, self.scope, self.seen, self.depth + 1, self.limit)
            visit(body, search)
            called = (node, helper)
            self.uses += [_in_helper(found, called) for found in search.uses if found.helper is None and found.via is None]
            # Its own selects are nested selects of the branch, their ops reported at the call (a
            # select it reaches through the call's arguments is the branch's own, met below).
            self.selects += [nested._replace(helper=called) for nested in search.selects if detector._written_in_helper(nested.call, nested)]
        # What a call reads: its arguments, and a method's receiver (not a called name: `f(x)` reads
        # `x`); not the argument of `zeros_like(x)`, whose values no gradient reaches.
        shape = detector._shape_argument(node, env)
        for arg in node.args:
            if arg.value is not shape:
                visit(arg.value, self)
        if isinstance(node.func, cst.Attribute):
            visit(node.func.value, self)
        return False

    def visit_BinaryOperation(self, node: cst.BinaryOperation) -> bool:
        use = self.detector._operator_use(node, self.env)
        if use is not None:
            self.uses.append(use)
        return True

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if node.attr.value not in METADATA_ATTRS:  # `x.dtype`, `x.shape`: no value of `x` flows on
            visit(node.value, self)  # `x.real` reads `x`; `real` is no name of data
        return False

    def visit_Subscript(self, node: cst.Subscript) -> bool:
        visit(node.value, self)  # `x[i % n]`: no gradient flows back into an index
        return False

    def visit_Comparison(self, node: cst.Comparison) -> bool:
        return False  # a truth value carries no gradient

    def visit_BooleanOperation(self, node: cst.BooleanOperation) -> bool:
        return False

    def visit_Arg(self, node: cst.Arg) -> bool:
        visit(node.value, self)  # a keyword is a label, not a name of data
        return False

    def visit_Name(self, node: cst.Name) -> bool:
        local = self.detector._follow_local(node, self.env, self.scope, self.seen, self.depth, self.limit)
        if local is not None:
            self.uses += local.uses
            self.selects += local.selects
        return False


class _Evaluated:
    """The ops each searched branch of a select evaluates outside any select of its own, and their
    poles, through as many locals as it takes (not only as many as a finding is reported through):
    selected, the branch uses them. Searched on first ask: most selects never ask."""

    def __init__(self, detector: Detector, env: _Env, scope: Scope, searched: dict) -> None:
        self.detector, self.env, self.scope, self.searched = detector, env, scope, searched
        self._found: dict[int, tuple[set[int], set]] = {}

    def _reached(self, branch: Branch) -> tuple[set[int], set, set]:
        key = id(branch)
        if key not in self.searched:
            return set(), set(), set()
        if key not in self._found:
            uses = self.detector._search(branch.expr, self.env, self.scope, limit=MAX_WAY).uses
            poles = [(use, self.detector._pole(use, self.env)) for use in uses]
            # A power by an exponent not known may hold no pole at all (`x ** p` at p = 2).
            sure = {pole for use, pole in poles if _exponent_known(use, _where_computed(use, self.env))}
            self._found[key] = {id(use.node) for use in uses}, {pole for _, pole in poles}, sure
        return self._found[key]

    def ops(self, branch: Branch) -> set[int]:
        return self._reached(branch)[0]

    def meets(self, branch: Branch, pole: tuple) -> bool:
        """Whether the branch is singular wherever an op of `pole` is: an op of the same argument
        (with the same bindings) with the same leaking values, or, surely singular there, with
        leaking values that hold all of `pole`'s."""
        _, poles, sure = self._reached(branch)
        key, domain = pole
        return pole in poles or any(k == key and domain.intersect(other.complement()).is_empty() for k, other in sure)


class _Holder(NamedTuple):
    """The select nested in a branch that holds an op, the branch of it the op is in, where it is
    written, and the selects it is nested in below the enclosing branch (outermost first, each
    with the branch that leads to it)."""

    call: cst.Call
    branch: Branch
    env: "_Env"
    path: tuple["_Holder", ...] = ()


class _Nested(NamedTuple):
    """A select met in a branch (`call`), read where it is written (`env`); when that is in the
    definition of a local, `via` is the local the branch names and `definition` the binding that
    holds the select. (`call` is None for a local's own reach, which `_follow_local` applies.)"""

    call: Optional[cst.Call]
    env: "_Env"
    via: Optional[cst.Name]
    definition: Optional[Binding]
    helper: Optional[tuple[cst.Call, cst.FunctionDef]] = None  # the call of the helper it is written in

    def reached(self, use: OpUse) -> OpUse:
        """`use`, found in this select's branches, as the outer branch reaches it: at the call of
        the helper it is in, if one; through the branch's own local first (what a user reads), held
        by the innermost definition."""
        if self.helper is not None and use.helper is None:
            use = _in_helper(use, self.helper)
        if self.via is None:
            return use
        return replace(use, via=self.via, definition=use.definition or self.definition)

    def through(self, nested: "_Nested") -> "_Nested":
        """A select nested in this one's branches, as the outer branch reaches it."""
        helper = nested.helper or self.helper
        if self.via is None:
            return nested._replace(helper=helper)
        return _Nested(nested.call, nested.env, self.via, nested.definition or self.definition, helper)


def _alike(there: Optional[Binding], here: Optional[Binding]) -> bool:
    """Whether two bindings of a name mean the same: one binding, or imports of one thing (`import
    jax.numpy as jnp` in the module and again in the caller)."""
    return there is here or (there is not None and here is not None and there.imported is not None and there.imported == here.imported)


def _names_only(node: cst.BaseExpression) -> bool:
    """Whether an expression reads nothing but names (no attribute, item or call): its value is
    fixed by the bindings of those names."""
    return not any(isinstance(part, (cst.Attribute, cst.Subscript, cst.Call)) for part in walk(node))


def _in_helper(use: OpUse, called: tuple[cst.Call, cst.FunctionDef]) -> OpUse:
    """An op a straight-line helper evaluates, as its call reaches it (reported at the call)."""
    call, function = called
    return replace(use, node=call, inside=use.node, helper=function)


def _explained_once(sites: list[LeakSite]) -> list[LeakSite]:
    """One finding per op in a select: the select's own, unless only an enclosing select's condition
    provably explains the pole (then the outermost such, whose condition is the guard to write)."""
    groups: dict[tuple, list[LeakSite]] = {}
    for site in sites:
        holder = site.nested_in if site.nested_in is not None else site.select
        key = (id(site.use.node), id(holder))  # the same op, whichever local each select reads it through
        groups.setdefault(key, []).append(site)
    dropped: set[int] = set()
    for group in groups.values():
        # A product with a NaN factor leaks at each select that drops it where the nested one takes
        # it: each is a leak of its own, explained by no other condition.
        enclosing = [s for s in group if s.nested_in is not None and not s.leaks_where_nested_takes_it]
        if not enclosing:
            continue
        own = [s for s in group if s.nested_in is None]
        if any(s.confidence is Confidence.HIGH for s in own):
            dropped.update(id(s) for s in enclosing)  # the inner select's condition explains it
        else:
            dropped.update(id(s) for s in own + enclosing[1:])  # the outermost enclosing one's does
    return [s for s in sites if id(s) not in dropped]


def _finite_constant(node: cst.BaseExpression, env: "_Env", nonzero: bool) -> bool:
    constant = constant_value(node, env)
    return constant is not None and is_finite_number(constant) and (constant != 0 or not nonzero)


def _on_boundary(admitted: IntervalSet, selected: IntervalSet) -> bool:
    ends = {v for p in selected.parts for v in (p.lo, p.hi) if is_finite_number(v)}
    return any(p.lo in ends or p.hi in ends for p in admitted.parts)


def _domain_for(op: SingularOp, exponent: Optional[cst.BaseExpression], env) -> Optional[IntervalSet]:
    """The op's leak domain; for a power, narrowed by its exponent (None: no leak, or unknown)."""
    if op.exponent is None:
        return op.leak_domain
    if exponent is None:
        return None
    p = constant_value(exponent, env)
    if p is not None:
        return power_leak_domain(p)
    if not depends_on_data(exponent, env):
        return None  # an imported object we cannot read (`x ** ω`, equinox's tree operator)
    lowest = value_range(exponent, env).lo
    if is_integer_valued(exponent, env):
        # A varying integer (`x ** i` in `for i in range(n)`): smooth, but for a pole at 0 below 0.
        return None if lowest >= 0 else IntervalSet.point(0.0)
    # A varying exponent: NaN below 0 where it is not an integer, infinite at 0 where it is below 1.
    return IntervalSet.below(0.0, closed=lowest < 1)


def _clamp_bounds(call: cst.Call, sel: SelectFunction, method_form: bool, env) -> list[float]:
    """The constant bounds a clamp-like call applies, whichever argument carries them."""
    values = positional(call)
    keywords = [a.value for a in call.args if a.keyword is not None and a.keyword.value in LOWER_KEYWORDS | UPPER_KEYWORDS]
    if method_form:
        candidates = values  # x.clamp(0, 1), x.clamp_min(0), x.maximum(y)
    else:
        # clip(x, lo, hi) and lax.clamp(lo, x, hi) have one operand; in maximum(a, b) either may be the bound.
        operand = sel.branches[0].position if len(sel.branches) == 1 else None
        candidates = [v for i, v in enumerate(values) if i != operand]
    return [v for v in (constant_value(c, env) for c in candidates + keywords) if v is not None]


def _exponent_known(use: OpUse, env: "_Env") -> bool:
    """The op's leak domain is its own: not a power, or a power by a constant exponent (`x ** 0.5`).
    A power by an exponent not known (`x ** p`) is given the widest domain, which may hold no pole."""
    return use.op.exponent is None or (use.exponent is not None and constant_value(use.exponent, env) is not None)


def _at_pole(node: cst.BaseExpression, env: "_Env", domain: IntervalSet) -> bool:
    """Every value `node` can take in `env` lies in the op's pole `domain`."""
    return _within(IntervalSet.of(value_range(node, env)), domain)


def _within(reach: IntervalSet, domain: IntervalSet) -> bool:
    """Some values, each of which lies in `domain`."""
    return not reach.is_empty() and reach.intersect(domain) == reach


def _kept_values(carrying: list[Branch], env: "_Env") -> Optional[IntervalSet]:
    """The values a mask's data sides may keep: each where its condition may take it, as the
    condition says of that side itself (`where(d < 0, 1.0, d)` keeps d >= 0; `where((d >= 0) & m,
    d, 1.0)` keeps no more); None when a condition does not say."""
    kept = IntervalSet()
    for branch in carrying:
        known = branch.cond is not None and branch.polarity is not None
        values = env.values_where(branch.cond, branch.expr, branch.polarity, partial=True) if known else None
        if values is None:
            return None
        kept = kept.union(values)
    return kept


def _safe_value_at_pole(branches: list[Branch], env: "_Env", domain: IntervalSet) -> bool:
    """A where's safe value (a branch no gradient flows through) lies in the op's pole `domain`."""
    return any(_at_pole(b.expr, env, domain) for b in branches if not carries_gradient(b.expr, env))


def _holds_a_pole(admitted: IntervalSet, domain: IntervalSet) -> bool:
    """The guard selects the pole itself (an edge of the leak domain), not only where the op is NaN."""
    edges = {v for p in domain.parts for v in (p.lo, p.hi) if is_finite_number(v)}
    return any(admitted.contains(edge) for edge in edges)


def _decided_by_sign(domain: IntervalSet) -> bool:
    """A leak domain that only 0 and the infinities bound (`{0}`, `(-inf, 0]`): a product is in it
    or not by its factors' signs and zeros."""
    return not domain.is_empty() and all(end in (-INF, 0.0, INF) for part in domain.parts for end in (part.lo, part.hi))


def _factors_through_locals(node: cst.BaseExpression, env: "_Env", depth: int = 0) -> list[tuple[cst.BaseExpression, "_Env"]]:
    """`_factors`, with a local factor replaced by the factors of the product it was assigned, each
    with the place to read it from."""
    found = []
    for factor in _factors(node):
        made_of = assigned(factor, env) if isinstance(factor, cst.Name) and depth < MAX_INDIRECTION else None
        if made_of is not None and len(_factors(made_of[0])) > 1:
            found += _factors_through_locals(made_of[0], made_of[1], depth + 1)
        else:
            found.append((factor, env))
    return found


def _where_computed(use: OpUse, env: "_Env") -> "_Env":
    """Where the op's argument is read: at the definition of the local it reaches the branch through."""
    return env.at(use.definition.place) if use.definition is not None else env


def _condition_keys(node: cst.BaseExpression, env: "_Env") -> frozenset[tuple]:
    """What a condition selects, as text, up to negation: two conditions with a key in common
    select the same elements, or each the other's complement."""
    return frozenset(_keyed_condition(node, env))


def _implied(cond: cst.BaseExpression, truth: bool, env: "_Env", depth: int = 0) -> dict[tuple, bool]:
    """The truth of each condition `cond` being `truth` decides, by its key (`_keyed_condition`):
    itself; each side of a true `and` or a false `or`; and what every side of a true `or` (a false
    `and`) decides alike (`(a & x) | (b & x)` true makes `x` true)."""
    decided: dict[tuple, bool] = {}
    found: Optional[dict[tuple, bool]] = None  # from the first `and` or `or` of the chain
    for inner, here, negated in _condition_chain(cond, env):
        holds = truth != negated  # the truth of `inner`
        decided.setdefault(value_key(inner, here), holds)
        combined = and_or(inner, here) if found is None and depth < MAX_INDIRECTION else None
        if combined is None:
            continue
        conjunction, sides = combined
        each = [_implied(side, holds, here, depth + 1) for side in sides]
        if conjunction == holds:  # every side takes it
            found = {key: value for side in each for key, value in side.items()}
        else:  # one side does, which: only what they all decide alike is known
            found = {key: value for key, value in each[0].items() if all(side.get(key) == value for side in each[1:])}
    return {**(found or {}), **decided}


def _keyed_condition(node: cst.BaseExpression, env: "_Env") -> dict[tuple, bool]:
    """What a condition selects, as text with the bindings of the names it reads, up to negation
    and broadcasting (`bad`, `~bad`, `bad[..., None, None]`, `bad.unsqueeze(-1)`), and, for a
    local, as the expression it was assigned (`small` for `small = t < eps`), through locals that
    name each other; each key with whether `node` negates it (`big` in `small` after `small =
    ~big`). A name rebound in between (`a = x > 0`, `c = a & b`, `a = x < -1`) is another key."""
    keys: dict[tuple, bool] = {}
    for inner, here, negated in _condition_chain(node, env):
        keys.setdefault(value_key(inner, here), negated)
    return keys


def _region_as_bound(
    cond: cst.BaseExpression, subject: cst.BaseExpression, env: "_Env", partial: bool = False, text: Optional[str] = None
) -> Optional[Region]:
    """What `cond` says of `subject` (region_of, by `text` or its source), when the condition reads
    the subject's names with the subject's bindings (`_tests_as_bound`)."""
    said = region_of(cond, text if text is not None else env.code(subject), env, partial=partial)
    return said if said is not None and _tests_as_bound(cond, subject, env) else None


def _tests_as_bound(cond: cst.BaseExpression, var: cst.BaseExpression, env: "_Env") -> bool:
    """Whether the condition reads the names of `var` with the bindings `var` reads them with: a
    test of `r` says nothing of an `r` bound again after it (`c = r < cut`, `r = where(c, r, 0)`,
    `1 / (r - cut)`). Each name is looked up where it is written: in the select, or in a local the
    condition is followed through (`c`), which region_of reads there too. A walrus's target in the
    condition is the value it binds, not a read of an earlier binding."""
    wanted = {name.value: {id(b) for b in _written(name, env).bindings(name)} for name in loads(var)}
    pending: list[cst.BaseExpression] = [cond]
    for _ in range(CONDITION_HOPS + 1):
        followed = []
        for part in pending:
            targets = {id(node.target) for node in walk(part) if isinstance(node, cst.NamedExpr)}
            for name in loads(part, targets):
                here = _written(name, env)
                if name.value in wanted:
                    if {id(b) for b in here.bindings(name)} != wanted[name.value]:
                        return False
                elif (value := condition_local(name, here)) is not None:
                    followed.append(value[0])  # a local region_of reads the condition through
        pending = followed
    return True


def _written(node: cst.BaseExpression, env: "_Env") -> "_Env":
    """Where a condition is written, to read its names there (not where it is asked about: a
    placeholder's `far` is the `far` bound before it); `env` for a node built by nanlint."""
    index = env.detector.index
    place = index.place.get(id(node))
    return env if place is None else _Env(env.detector, index.scope_at(node), place, env.assumed, env.regions, env.pinned)


def _condition_chain(node: cst.BaseExpression, env: "_Env") -> Iterator[tuple[cst.BaseExpression, "_Env", bool]]:
    """A condition without its negations and reshapes (`_strip`), then what the local it names was
    assigned, and so on through locals that name each other (`c = small`, `small = t < eps`): each
    with the place it is read at and whether `node` negates it."""
    env = _written(node, env)
    inner, negated = _strip(node, env)
    yield inner, env, negated
    for _ in range(MAX_INDIRECTION):
        binding = env.binding(inner) if isinstance(inner, cst.Name) else None
        if binding is None or binding.value is None or binding.imported is not None:
            return
        env = env.at(binding.place)
        inner, inverted = _strip(binding.value, env)
        negated = negated != inverted
        yield inner, env, negated


def _strip(node: cst.BaseExpression, env: "_Env") -> tuple[cst.BaseExpression, bool]:
    """A condition without its negations, indexing, reshapes and walrus (`~bad[..., None]` and
    `(~bad).unsqueeze(-1)` are `bad`), and whether the negations taken off are an odd number."""
    negated = False
    while True:
        if isinstance(node, cst.Subscript):
            node = node.value
        elif isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Not)):
            node, negated = node.expression, not negated
        elif isinstance(node, cst.Call) and leaf_name(node.func) == "logical_not" and len(node.args) == 1:
            node, negated = node.args[0].value, not negated
        elif isinstance(node, cst.Call) and leaf_name(node.func) in CONDITION_RESHAPES and (reshaped := _reshaped(node, env)) is not None:
            node = reshaped
        elif isinstance(node, cst.NamedExpr):  # `(ok := u > 0.5)` selects what `u > 0.5` does
            node = node.value
        else:
            return node, negated


def _condition_root(cond: cst.BaseExpression, env: "_Env") -> tuple[cst.BaseExpression, "_Env"]:
    """A condition as written where its locals name it (`small = t < eps`, then `c = small`), without
    negations and reshapes (`_strip`): what it is made of is read from there, whether it is written
    in place or held by locals."""
    chain = _condition_chain(cond, env)
    root, root_env, _ = next(chain)
    for value, here, _ in chain:
        if not _names_a_truth(value):
            break
        root, root_env = value, here
    return root, root_env


def _names_a_truth(node: cst.BaseExpression) -> bool:
    """A comparison, or a negation, `&`, `|` or alias of truth values: what a condition local holds."""
    if isinstance(node, (cst.Comparison, cst.Name)):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, (cst.BitInvert, cst.Not)):
        return True
    return isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.BitAnd, cst.BitOr))


def _reshaped(call: cst.Call, env: "_Env") -> Optional[cst.BaseExpression]:
    """What a reshape reshapes: a function's first argument, or a method's receiver."""
    if env.qualified(call.func) is not None:
        return call.args[0].value if call.args else None
    return call.func.value if isinstance(call.func, cst.Attribute) else None


def _value_not_finite(use: OpUse, env: "_Env") -> Optional[IntervalSet]:
    """Where, of the values the op's derivative leaks at, its value is not finite too (an overflow:
    all of them; sqrt: below 0, not at 0; empty: nowhere); None when not known."""
    if use.op.kind is LeakKind.OVERFLOW:
        return use.leak_domain
    finite = finite_domain(use, env)
    return use.leak_domain.intersect(finite.complement()) if finite is not None else None


def _other_input_carries(node: cst.CSTNode, arg: cst.BaseExpression, env: "_Env") -> bool:
    """Whether a gradient flows into the op at `node` through an input other than `arg`."""
    return any(operand is not arg and carries_gradient(operand, env) for operand in _operands(node))


def _operands(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """What an expression computes its value from: operands, a call's arguments and a method's receiver."""
    if isinstance(node, cst.BinaryOperation):
        return [node.left, node.right]
    if isinstance(node, cst.UnaryOperation):
        return [node.expression]
    if isinstance(node, cst.Call):
        receiver = [node.func.value] if isinstance(node.func, cst.Attribute) else []
        return receiver + [arg.value for arg in node.args if not _configures(arg)]
    if isinstance(node, (cst.Subscript, cst.Attribute)):
        return [node.value]
    return []


def _configures(arg: cst.Arg) -> bool:
    """A keyword that configures the call (`axis=`, `dtype=`, `device=`): no data flows from it."""
    return arg.keyword is not None and arg.keyword.value in CONFIGURATION_KEYWORDS


def _factors(node: cst.BaseExpression) -> list[cst.BaseExpression]:
    """The factors of a product (`x * tau**2` has `x` and `tau**2`; a power with a positive
    exponent is a factor's power: `x**2` has `x`)."""
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Multiply):
        return _factors(node.left) + _factors(node.right)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Power) and is_number(node.right) and number(node.right) > 0:
        return _factors(node.left)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _factors(node.expression)
    return [node]


def _data_names(node: cst.CSTNode, skipped: set[int]) -> list[tuple[cst.Name, Optional[str]]]:
    """Like tree.loads (without the `skipped` nodes), with a field read as one variable (its text) rather
    than its holder: `self.x` / `cls.x`, and an entry of a mapping under a string key (`p["mass"]`):
    a condition on one entry says nothing about another."""
    fields: list[tuple[cst.Name, str]] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if id(n) in skipped:
            continue
        if isinstance(n, cst.Attribute) and isinstance(n.value, cst.Name) and n.value.value in _SHARED_RECEIVERS:
            fields.append((n.value, f"{n.value.value}.{n.attr.value}"))
        elif isinstance(n, cst.Subscript) and isinstance(n.value, cst.Name) and (key := _string_key(n)) is not None:
            fields.append((n.value, f"{n.value.value}[{key}]"))
        stack.extend(children(n))
    holders = {id(name) for name, _ in fields}
    return [(n, None) for n in loads(node, skipped) if id(n) not in holders] + list(fields)


def _string_key(subscript: cst.Subscript) -> Optional[str]:
    """The key of `p["mass"]`, in its source spelling; None for any other subscript."""
    if len(subscript.slice) != 1 or not isinstance(subscript.slice[0].slice, cst.Index):
        return None
    key = subscript.slice[0].slice.value
    return key.value if isinstance(key, cst.SimpleString) else None


def _select_list_branches(call: cst.Call, sel: SelectFunction) -> list[Branch]:
    conds_node = argument_at(call, sel.cond)
    choices_node = argument_at(call, sel.branches[0])
    if not isinstance(choices_node, (cst.List, cst.Tuple)):
        return []
    conds = [e.value for e in conds_node.elements] if isinstance(conds_node, (cst.List, cst.Tuple)) else []
    branches = [
        Branch(f"choice {i}", i, element.value, True if i < len(conds) else None, conds[i] if i < len(conds) else None)
        for i, element in enumerate(choices_node.elements)
    ]
    default = argument_at(call, sel.branches[1])
    if default is not None:
        branches.append(Branch("default", len(branches), default, None, None))
    return branches


def _clamp_side(call: cst.Call, sel: SelectFunction, method_form: bool) -> str:
    leaf = leaf_name(call.func) or ""
    if leaf in LOWER_CLAMPS:
        return "low"
    if leaf in UPPER_CLAMPS:
        return "high"
    if not method_form and sel.branches[0].position != 0:
        return "both"  # lax.clamp(min, x, max) always bounds both sides
    first_bound = 0 if method_form else 1
    lower = upper = False
    for i, arg in enumerate(positional(call)[first_bound:]):
        given = not is_none(arg)
        lower |= i == 0 and given
        upper |= i == 1 and given
    for arg in call.args:
        if arg.keyword is not None and not is_none(arg.value):
            lower |= arg.keyword.value in LOWER_KEYWORDS
            upper |= arg.keyword.value in UPPER_KEYWORDS
    if lower and not upper:
        return "low"
    if upper and not lower:
        return "high"
    return "both"
