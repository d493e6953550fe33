"""Find the places where a where/select evaluates a singular op in a branch it may not select.

One pass indexes scopes and candidate calls (names.py); then, for every call that resolves to a
select in the catalog, each branch is searched for singular ops whose argument depends on data and
is not guarded. Locals assigned earlier in the same scope are followed into their definitions.
Every finding is a `LeakSite`: the syntax nodes and catalog facts a fix or a verification needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator, Optional

import ast

from nanlint.catalog.tables import OPS, Arg, SelectFunction, SingularOp, is_finite_number, power_leak_domain
from nanlint.catalog.lookup import BARRIER_METHODS, CatalogView
from nanlint.analysis.conditions import affine_base, selected_values
from nanlint.analysis.contexts import Contexts, may_have_contexts
from nanlint.catalog.intervals import IntervalSet
from nanlint.limits import MAX_INDIRECTION
from nanlint.fix.model import Location
from nanlint.analysis.names import Binding, Position, Scope, ScopeIndex, binding_at, leaf_name, position, qualified_name
from nanlint.analysis.syntax import SourceText, call_arguments, children, is_string, keyword_value, positional
from nanlint.prefilter.textscan import scan_imports
from nanlint.analysis.values import can_reach, constant_value, depends_on_data, is_epsilon_shifted

# Which side a clamp-like call bounds, by its name; clip/clamp depend on the bounds given.
_LOWER_CLAMPS = frozenset({"maximum", "fmax", "max", "clamp_min"})
_UPPER_CLAMPS = frozenset({"minimum", "fmin", "min", "clamp_max"})
_LOWER_KEYWORDS = frozenset({"min", "a_min", "clip_value_min", "x_min", "min_value"})
_UPPER_KEYWORDS = frozenset({"max", "a_max", "clip_value_max", "x_max", "max_value"})

# Rule codes, by the kind of site (the rules themselves live in nanlint/rules/).
DIRECT = "NAN001"
INDIRECT = "NAN002"
POLE_ADMITTED = "NAN003"
OVERFLOW = "NAN004"
CLAMP = "NAN101"
CLAMP_AT_POLE = "NAN102"
UNRELATED_CONDITION = "NAN401"
# Receivers that every attribute in a method shares: they relate nothing.
_SHARED_RECEIVERS = frozenset({"self", "cls"})

_OPERATOR_OPS = tuple(op for op in OPS if op.operator)
OPERATORS = {ast.Div: "/", ast.Mod: "%", ast.Pow: "**"}  # the binary operators with a singular derivative
# What a walk for data does not enter: code there runs later, or never, with its own names.
_NEW_SCOPES = (ast.Lambda, ast.FunctionDef, ast.AsyncFunctionDef)
_NONFINITE_NAMES = frozenset({"nan", "NaN", "NAN", "inf", "Inf", "infty", "NINF", "PINF"})
_FILLS = frozenset({"full_like", "full", "fill", "constant", "broadcast_to", "convert_to_tensor", "asarray", "tensor"})
# Casts and copies keep a guard: `where(c, x, 1.0).astype(dtype)` is still a guarded value.
_PASS_THROUGH_METHODS = frozenset({"astype", "to", "float", "double", "half", "type", "type_as", "reshape", "squeeze"})
_PASS_THROUGH_FUNCTIONS = frozenset({"cast", "asarray", "convert_to_tensor", "reshape", "squeeze", "expand_dims", "broadcast_to"})


@dataclass
class Branch:
    label: str  # "true", "false", "case 1", "choice 0", "default", "clamped"
    expr: ast.expr
    # True: selected where the condition holds; False: where it does not; None: not a simple condition.
    polarity: Optional[bool]
    cond: Optional[ast.expr]


@dataclass
class OpUse:
    op: SingularOp
    framework: str
    node: ast.expr  # the call or binary operation
    arg: ast.expr  # the argument a fix masks
    leak_domain: IntervalSet  # narrowed for powers by their exponent
    via: Optional[ast.Name] = None  # indirect: the local name in the branch
    definition: Optional[Binding] = None  # indirect: the binding whose value holds the op


@dataclass
class LeakSite:
    code: str
    select: ast.Call
    select_fn: SelectFunction
    select_display: str
    framework: str
    method_form: bool
    branch: Branch
    use: OpUse
    admitted: Optional[IntervalSet] = None  # NAN003: the pole values the guard selects
    guard_var: Optional[str] = None  # NAN003: the variable (source text) the guard constrains
    scope: Optional[Scope] = field(default=None, repr=False)


class _Env:
    """Bindings and qualified names as seen from one position in one scope."""

    def __init__(self, detector: "Detector", scope: Scope, position: Position) -> None:
        self.detector = detector
        self.scope = scope
        self.position = position

    def binding(self, name: ast.Name) -> Optional[Binding]:
        return binding_at(self.scope, name.id, self.position)

    def qualified(self, node: ast.AST) -> Optional[str]:
        return qualified_name(node, self.scope, self.position)

    def code(self, node: ast.AST) -> str:
        return self.detector.code(node)

    def at(self, position: Position) -> "_Env":
        return _Env(self.detector, self.scope, position)


class Detector:
    def __init__(
        self,
        tree: ast.Module,
        text: str,
        catalog: CatalogView,
        frameworks: Optional[frozenset[str]] = None,
    ) -> None:
        """`tree` holds statements of the file `text` (all of them, or the slice that can hold
        findings), each at its line in the file."""
        self.tree = tree
        self.source = SourceText(text)
        self.catalog = catalog
        self._code_cache: dict[int, str] = {}
        self.index = ScopeIndex(tree, self._may_select)
        self._contexts: Optional[Contexts] = None
        self._variables_of: dict[tuple, set[str]] = {}
        # Tensor methods (`x.sqrt()`) count for the frameworks the file imports anywhere.
        self.imported_frameworks = frameworks if frameworks is not None else scan_imports(text).frameworks

    # --- helpers -----------------------------------------------------------------------------
    def _may_select(self, call: ast.Call, renamed: dict[str, str]) -> bool:
        leaf = leaf_name(call.func)
        names = self.catalog.select_leaf_names
        return leaf in names or renamed.get(leaf or "") in names

    def code(self, node: ast.AST) -> str:
        """The node's source text, with its own parentheses."""
        key = id(node)
        if key not in self._code_cache:
            self._code_cache[key] = self.source.code(node)
        return self._code_cache[key]

    def position(self, node: ast.AST) -> Position:
        """Where the node starts, for ordering it against bindings (not a location to report)."""
        return position(node)

    def excluded(self, call: ast.Call) -> bool:
        """Whether the call sits in code that is never differentiated (contexts.py); the pass that
        tells runs only once a site needs the answer."""
        if self._contexts is None:
            self._contexts = Contexts(self.code)
            if may_have_contexts(self.source.text):
                self._contexts.visit(self.tree)
        return self._contexts.excluded(call)

    def locations(self, node: ast.AST, *, with_parentheses: bool = False) -> tuple[Location, Location]:
        """Where the node starts and ends in the file (1-based rows and character columns)."""
        source = self.source
        if with_parentheses:
            start, end = (source.position_of(offset) for offset in source.outer_span(node))
        else:
            start = (node.lineno, source.column(node.lineno, node.col_offset))
            end = (node.end_lineno, source.column(node.end_lineno, node.end_col_offset))
        return Location(start[0], start[1] + 1), Location(end[0], end[1] + 1)

    def rows(self, node: ast.AST) -> range:
        """The file rows the node spans."""
        return range(node.lineno, node.end_lineno + 1)

    # --- the search ------------------------------------------------------------------------------
    def sites(self, codes: Optional[frozenset[str]] = None) -> list[LeakSite]:
        """Every leak site; with `codes`, only sites of those rules (the others are never checked
        against the contexts, which is a pass over the whole tree)."""
        found: list[LeakSite] = []
        for call, scope in self.index.calls:
            env = _Env(self, scope, self.position(call))
            resolved = self._resolve_select(call, env)
            if resolved is None:
                continue
            select_fn, framework, method_form = resolved
            branches = self._branches(call, select_fn, method_form)
            for branch in branches:
                others = [b for b in branches if b is not branch]
                if select_fn.kind == "where" and all(self._nonfinite_constant(b.expr, env) for b in others):
                    continue  # where(scale > 0, logpdf, nan): the output is not finite there anyway
                for use in self._uses(branch.expr, env, scope):
                    if use.via is not None and any(use.via.id in {n.id for n in _loads(b.expr)} for b in others):
                        continue  # the local feeds every branch: the where picks a regime, it guards nothing
                    site = self._classify(call, select_fn, framework, method_form, branch, use, env)
                    if site is not None and (codes is None or site.code in codes) and not self.excluded(call):
                        site.scope = scope
                        found.append(site)
        if codes is None or CLAMP_AT_POLE in codes:
            found += self._clamps_at_poles()
        return found

    def _clamps_at_poles(self) -> list[LeakSite]:
        """`sqrt(maximum(x, 0.0))`, `x.clamp_min(0).sqrt()`, `arcsin(clip(x, -1, 1))`: the clamp is a
        select whose bound sits on the op's pole; where it is chosen, 0 * inf is NaN."""
        found = []
        for outer, inner, scope in self.index.wrapping:
            env = _Env(self, scope, self.position(outer))
            resolved = self._resolve_select(inner, env)
            if resolved is None or resolved[0].kind != "clamp" or self.excluded(outer):
                continue
            sel, framework, method_form = resolved
            use = self._op_applied(outer, env)
            if use is None or use.arg is not inner or use.op.kind != "pole":
                continue
            operand = next((b for b in self._branches(inner, sel, method_form) if depends_on_data(b.expr, env)), None)
            if operand is None:
                continue
            for bound in _clamp_bounds(inner, sel, method_form, env):
                if use.leak_domain.contains(bound):
                    display = self._display(inner, method_form)
                    site = LeakSite(CLAMP_AT_POLE, inner, sel, display, use.framework or framework, method_form, operand, use)
                    site.admitted, site.guard_var, site.scope = IntervalSet.point(bound), "the bound", scope
                    found.append(site)
                    break
        return found

    def _op_applied(self, call: ast.Call, env: _Env) -> Optional[OpUse]:
        """The singular op `call` applies (a function or a tensor method) and the argument a fix masks,
        whether or not that argument is guarded; None for anything else."""
        qualified = env.qualified(call.func)
        hit = self.catalog.op(qualified)
        if hit is not None:
            op, framework = hit
            arg, exponent = _arg(call, op.arg), _arg(call, op.exponent) if op.exponent else None
        elif (method := self._method(call, qualified, env)) is not None:
            hit = self.catalog.method_op(method, self.imported_frameworks)
            if hit is None:
                return None
            op, framework = hit
            receiver = call.func.value
            arg = _arg(call, op.method_arg, receiver)
            exponent = _arg(call, op.method_exponent, receiver) if op.method_exponent else None
        else:
            return None
        domain = _domain_for(op, exponent, env)
        return OpUse(op, framework, call, arg, domain) if arg is not None and domain is not None else None

    def _method(self, call: ast.Call, qualified: Optional[str], env: _Env) -> Optional[str]:
        """The method name when `call` is a tensor method on data (`x.sqrt()`), not a module function."""
        if qualified is None and isinstance(call.func, ast.Attribute) and env.qualified(call.func.value) is None:
            return call.func.attr
        return None

    def _display(self, call: ast.Call, method_form: bool) -> str:
        """How messages name a select: its source spelling, or `Tensor.where` for the method form."""
        return f"Tensor.{call.func.attr}" if method_form else self.code(call.func)

    def branches_of(self, call: ast.Call, scope: Scope) -> list[Branch]:
        """The branches of `call` if it is a select, else []."""
        resolved = self._resolve_select(call, _Env(self, scope, self.position(call)))
        return self._branches(call, resolved[0], resolved[2]) if resolved is not None else []

    def _nonfinite_constant(self, node: ast.expr, env: _Env) -> bool:
        """`jnp.nan`, `-np.inf`, `float("nan")`, `jnp.full_like(x, jnp.nan)`."""
        if isinstance(node, ast.UnaryOp):
            return self._nonfinite_constant(node.operand, env)
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = env.qualified(node) or ""
            return name.rsplit(".", 1)[-1] in _NONFINITE_NAMES
        if isinstance(node, ast.Call):
            arguments = call_arguments(node)
            if isinstance(node.func, ast.Name) and node.func.id == "float" and arguments:
                first = arguments[0]
                return isinstance(first, ast.Constant) and isinstance(first.value, str) and first.value.strip("+-").lower() in ("nan", "inf", "infinity")
            leaf = leaf_name(node.func) or ""
            return leaf in _FILLS and any(self._nonfinite_constant(a, env) for a in arguments)
        return False

    def _resolve_select(self, call: ast.Call, env: _Env) -> Optional[tuple[SelectFunction, str, bool]]:
        qualified = env.qualified(call.func)
        hit = self.catalog.select(qualified)
        if hit is not None:
            return hit[0], hit[1], False
        method = self._method(call, qualified, env)
        if method is not None:
            hit = self.catalog.method_select(method, self.imported_frameworks)
            if hit is not None:
                return hit[0], hit[1], True
        return None

    def _branches(self, call: ast.Call, sel: SelectFunction, method_form: bool) -> list[Branch]:
        receiver = call.func.value if method_form and isinstance(call.func, ast.Attribute) else None
        specs = sel.method_branches if method_form else sel.branches
        cond_spec = sel.method_cond if method_form else sel.cond
        if sel.kind == "where":
            cond = _arg(call, cond_spec)
            true, false = (_arg(call, spec, receiver) for spec in specs)
            if cond is None or true is None or false is None:
                return []  # where(c) returns indices: not a select
            return [Branch("true", true, True, cond), Branch("false", false, False, cond)]
        if sel.kind == "select_n":
            which = _arg(call, cond_spec)
            cases = [a for a in call.args[1:] if not isinstance(a, ast.Starred)]
            if len(cases) < 2 or which is None:
                return []
            # Two cases: `which` is a predicate (case 1 where it holds); more: an index, no polarity.
            polarities = (False, True) if len(cases) == 2 else (None,) * len(cases)
            return [Branch(f"case {i}", case, polarities[i], which) for i, case in enumerate(cases)]
        if sel.kind == "select_list":
            return _select_list_branches(call, sel)
        return [Branch("clamped", expr, None, None) for spec in specs if (expr := _arg(call, spec, receiver)) is not None]

    def _uses(self, expr: ast.expr, env: _Env, scope: Scope) -> Iterator[OpUse]:
        yield from self._walk(expr, env, scope, via=None, definition=None, seen=set(), depth=0)

    def _walk(self, node, env: _Env, scope: Scope, via, definition, seen: set, depth: int) -> Iterator[OpUse]:
        if isinstance(node, _NEW_SCOPES):
            return
        if isinstance(node, ast.Call):
            qualified = env.qualified(node.func)
            if self._is_select_or_barrier(node, qualified, env):
                return  # a nested select is checked on its own; a barrier stops all gradient
            use = self._call_use(node, env)
            if use is not None:
                yield _indirect(use, via, definition)
            inner = call_arguments(node)
            if isinstance(node.func, ast.Attribute):
                inner.append(node.func.value)
        elif isinstance(node, ast.BinOp):
            use = self._operator_use(node, env)
            if use is not None:
                yield _indirect(use, via, definition)
            inner = [node.left, node.right]
        elif isinstance(node, ast.Attribute):
            inner = [node.value]
        elif isinstance(node, ast.Name):
            yield from self._follow_local(node, env, scope, seen, depth)
            return
        else:
            inner = children(node)
        for child in inner:
            yield from self._walk(child, env, scope, via, definition, seen, depth)

    def _follow_local(self, name: ast.Name, env: _Env, scope: Scope, seen: set, depth: int) -> Iterator[OpUse]:
        """`s = jnp.sqrt(x)` earlier in the same scope, then `where(c, s, 0)`: the op leaks through `s`."""
        if depth >= MAX_INDIRECTION:
            return
        binding = env.binding(name)
        if (
            binding is None
            or binding.value is None
            or binding.imported is not None
            or binding.name not in scope.bindings
            or binding not in scope.bindings[binding.name]
            or binding.position >= env.position
            or id(binding) in seen
        ):
            return
        seen.add(id(binding))
        for use in self._walk(binding.value, env.at(binding.position), scope, None, None, seen, depth + 1):
            # The chain's first name and the definition that holds the op are what a user needs to see.
            yield OpUse(use.op, use.framework, use.node, use.arg, use.leak_domain, via=name, definition=use.definition or binding)

    def _is_select_or_barrier(self, call: ast.Call, qualified: Optional[str], env: _Env) -> bool:
        if self.catalog.select(qualified) is not None or self.catalog.is_barrier(qualified):
            return True
        method = self._method(call, qualified, env)
        if method is not None:
            return method in BARRIER_METHODS or self.catalog.method_select(method, self.imported_frameworks) is not None
        return False

    # --- singular ops ---------------------------------------------------------------------------
    def _call_use(self, call: ast.Call, env: _Env) -> Optional[OpUse]:
        """The singular op `call` applies, if its argument can take the op to its pole here."""
        use = self._op_applied(call, env)
        if use is None or keyword_value(call, use.op.guard_keywords) is not None:
            return None  # torch.logit(x, eps=...) clamps by itself
        return use if self._leaks(use.arg, use.leak_domain, use.op, env) else None

    def _operator_use(self, node: ast.BinOp, env: _Env) -> Optional[OpUse]:
        operator = OPERATORS.get(type(node.op))
        if operator is None:
            return None
        if operator == "%" and is_string(node.left):
            return None  # string formatting
        op = next(o for o in _OPERATOR_OPS if o.operator == operator)
        if operator == "**":
            return self._use_if_leaking(op, "", node, node.left, node.right, env)
        return self._use_if_leaking(op, "", node, node.right, None, env)

    def _use_if_leaking(self, op: SingularOp, framework: str, node, arg, exponent, env: _Env) -> Optional[OpUse]:
        domain = _domain_for(op, exponent, env)
        if domain is None or not self._leaks(arg, domain, op, env):
            return None
        return OpUse(op, framework, node, arg, domain)

    def _leaks(self, arg: ast.expr, domain: IntervalSet, op: SingularOp, env: _Env) -> bool:
        if not depends_on_data(arg, env) or self._guarded(arg, env, 0):
            return False
        if not can_reach(arg, domain, env):
            return False
        # `log(p + 1e-8)`: an explicit shift off a pole at or below zero is the author's guard.
        below_zero = IntervalSet.above(0.0, closed=False).intersect(domain).is_empty()
        return not (op.kind == "pole" and below_zero and is_epsilon_shifted(arg, env))

    def _guarded(self, arg: ast.expr, env: _Env, depth: int) -> bool:
        """The argument is a where/select/clamp, a gradient-safe call, or a local assigned from one."""
        if isinstance(arg, ast.Call):
            qualified = env.qualified(arg.func)
            if self._is_select_or_barrier(arg, qualified, env) or self.catalog.is_safe(qualified):
                return True
            inner = _passed_through(arg, qualified)
            if inner is not None:
                return self._guarded(inner, env, depth + 1)
            return qualified is None and leaf_name(arg.func) == "masked_fill"  # torch: a where spelled as a method
        if isinstance(arg, ast.IfExp):
            return all(self._guarded(side, env, depth + 1) or not depends_on_data(side, env) for side in (arg.body, arg.orelse))
        # `safe_x`, `z_safe`: the author says it is guarded, and a guard nanlint does not see is still a guard.
        names = [n for n in _loads(arg) if (b := env.binding(n)) is None or b.imported is None]
        if names and all("safe" in n.id.lower() for n in names):
            return True
        if isinstance(arg, ast.Name) and depth < MAX_INDIRECTION:
            binding = env.binding(arg)
            if binding is not None and binding.value is not None and binding.imported is None:
                return self._guarded(binding.value, env.at(binding.position), depth + 1)
        return False

    # --- classification --------------------------------------------------------------------------
    def _classify(self, call, sel, framework, method_form, branch: Branch, use: OpUse, env: _Env) -> Optional[LeakSite]:
        def site(code: str, admitted: Optional[tuple[IntervalSet, str]] = None) -> LeakSite:
            found = LeakSite(code, call, sel, self._display(call, method_form), use.framework or framework, method_form, branch, use)
            if admitted is not None:
                found.admitted, found.guard_var = admitted
            return found

        if sel.kind == "clamp":
            side = _clamp_side(call, sel, method_form)
            if "both" not in (side, use.op.clamp_side) and side != use.op.clamp_side:
                return None  # e.g. minimum(sqrt(x), 10): sqrt is selected near its pole
            return site(CLAMP)
        verdict, admitted = self._guard_verdict(branch, use, env)
        if verdict == "no-leak":
            return None
        if verdict == "admits" and use.op.kind == "pole":
            return site(POLE_ADMITTED, admitted)
        if verdict == "unknown" and not self._condition_guards(branch, use, env):
            # The condition is about something else: a leak only if the argument can reach the pole there.
            return site(UNRELATED_CONDITION) if use.via is None else None
        if use.via is not None:
            return site(INDIRECT)
        return site(OVERFLOW if use.op.kind == "overflow" else DIRECT)

    def _condition_guards(self, branch: Branch, use: OpUse, env: _Env) -> bool:
        """Whether the condition mentions what the op's argument is made of: `where(x > 0, log(x), 0)`.

        That is the pattern of a where meant as a guard; a condition about other data (a mask, a
        parameter's sign) leaves the leak possible but unproven, reported by the opt-in NAN401.
        """
        if branch.cond is None:
            return True
        arg_env = env.at(use.definition.position) if use.definition is not None else env
        cond_vars = self._variables(branch.cond, env, 4)
        arg_vars = self._variables(use.arg, arg_env, 4)
        shared = cond_vars & arg_vars
        if not shared:
            return False
        # A bound on one input of an argument that also depends on other data
        # (`where(b < 8, lgamma(a + b), ...)`) switches regimes; it is not aimed at the op's pole.
        regime = arg_vars - cond_vars and any(selected_values(branch.cond, name, env) is not None for name in shared)
        return not regime

    def _variables(self, node: ast.AST, env: _Env, depth: int) -> set[str]:
        """The root data names an expression is made of: locals are replaced by what they were
        computed from, `depth` levels deep (`pi_x = x * pi` stands for `x`). Remembered: a local's
        definition is expanded again for every site that reads it."""
        key = (id(node), id(env.scope), env.position, depth)
        if key not in self._variables_of:
            self._variables_of[key] = self._expand_variables(node, env, depth)
        return self._variables_of[key]

    def _expand_variables(self, node: ast.AST, env: _Env, depth: int) -> set[str]:
        found: set[str] = set()
        for name, attribute in _data_names(node):
            binding = env.binding(name)
            if binding is not None and binding.imported is not None:
                continue
            if attribute is not None:
                found.add(attribute)  # self.low: a field is a variable of its own
            elif depth > 0 and binding is not None and binding.value is not None and binding.position < env.position:
                found |= self._variables(binding.value, env.at(binding.position), depth - 1)
            else:
                found.add(name.id)
        return found

    def _guard_verdict(self, branch: Branch, use: OpUse, env: _Env) -> tuple[str, Optional[tuple[IntervalSet, str]]]:
        """Compare what the guard selects with the op's leak domain, when the guard names the argument."""
        if branch.cond is None or branch.polarity is None or not use.op.elementwise:
            return "unknown", None
        for var, to_var in affine_base(use.arg, env):
            chosen = selected_values(branch.cond, self.code(var), env)
            if chosen is None:
                continue
            selected = chosen if branch.polarity else chosen.complement()
            domain = to_var(use.leak_domain)
            admitted = selected.intersect(domain)
            # A pole on the guard's own boundary (`x >= 0` for sqrt) is a guard aimed at it that let it in.
            if not admitted.is_empty() and _on_boundary(admitted, selected) and _holds_a_pole(admitted, domain):
                return "admits", (admitted, self.code(var))
            if selected.complement().intersect(domain).is_empty():
                return "no-leak", None  # unselected only where the op is harmless
            return "leak", None  # the condition is about the argument, and leaves the pole unselected
        return "unknown", None


def _on_boundary(admitted: IntervalSet, selected: IntervalSet) -> bool:
    ends = {v for p in selected.parts for v in (p.lo, p.hi) if is_finite_number(v)}
    return any(p.lo in ends or p.hi in ends for p in admitted.parts)


def _domain_for(op: SingularOp, exponent: Optional[ast.expr], env) -> Optional[IntervalSet]:
    """The op's leak domain; for a power, narrowed by its constant exponent (None: no leak, or unknown)."""
    if op.exponent is None:
        return op.leak_domain
    p = constant_value(exponent, env) if exponent is not None else None
    return power_leak_domain(p) if p is not None else None


def _clamp_bounds(call: ast.Call, sel: SelectFunction, method_form: bool, env) -> list[float]:
    """The constant bounds a clamp-like call applies, whichever argument carries them."""
    values = positional(call)
    keywords = [k.value for k in call.keywords if k.arg in _LOWER_KEYWORDS | _UPPER_KEYWORDS]
    if method_form:
        candidates = values  # x.clamp(0, 1), x.clamp_min(0), x.maximum(y)
    else:
        # clip(x, lo, hi) and lax.clamp(lo, x, hi) have one operand; in maximum(a, b) either may be the bound.
        operand = sel.branches[0].position if len(sel.branches) == 1 else None
        candidates = [v for i, v in enumerate(values) if i != operand]
    return [v for v in (constant_value(c, env) for c in candidates + keywords) if v is not None]


def _holds_a_pole(admitted: IntervalSet, domain: IntervalSet) -> bool:
    """The guard selects the pole itself (an edge of the leak domain), not only where the op is NaN."""
    edges = {v for p in domain.parts for v in (p.lo, p.hi) if is_finite_number(v)}
    return any(admitted.contains(edge) for edge in edges)


def _passed_through(call: ast.Call, qualified: Optional[str]) -> Optional[ast.expr]:
    """The value a cast or reshape carries through (`x.astype(t)`, `tf.cast(x, t)`), else None."""
    if qualified is None and isinstance(call.func, ast.Attribute) and call.func.attr in _PASS_THROUGH_METHODS:
        return call.func.value
    arguments = call_arguments(call) if qualified is not None else []
    if arguments and qualified.rsplit(".", 1)[-1] in _PASS_THROUGH_FUNCTIONS:
        return arguments[0]
    return None


def _loads(node: ast.AST) -> list[ast.Name]:
    """Names of data read in an expression: not attribute names, keyword labels, called functions
    (`open(...)` is not data, `x.sum()` reads `x`), or anything inside a lambda."""
    found: list[ast.Name] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Name):
            found.append(current)
        elif isinstance(current, ast.Attribute):
            stack.append(current.value)
        elif isinstance(current, ast.Call):
            stack.extend(call_arguments(current))
            if not isinstance(current.func, ast.Name):
                stack.append(current.func)
        elif not isinstance(current, _NEW_SCOPES):
            stack.extend(children(current))
    return found


def _data_names(node: ast.AST) -> list[tuple[ast.Name, Optional[str]]]:
    """Like _loads, with `self.x` / `cls.x` read as one variable (its text) rather than `self`."""
    fields = []
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, ast.Attribute) and isinstance(current.value, ast.Name) and current.value.id in _SHARED_RECEIVERS:
            fields.append(current)
        elif not isinstance(current, _NEW_SCOPES):
            stack.extend(children(current))
    receivers = {id(f.value) for f in fields}
    names = [(n, None) for n in _loads(node) if id(n) not in receivers]
    return names + [(f.value, f"{f.value.id}.{f.attr}") for f in fields]


def _indirect(use: OpUse, via, definition) -> OpUse:
    if via is None:
        return use
    return OpUse(use.op, use.framework, use.node, use.arg, use.leak_domain, via=via, definition=definition)


def _arg(call: ast.Call, spec: Optional[Arg], receiver: Optional[ast.expr] = None) -> Optional[ast.expr]:
    """The argument at `spec`: by keyword, else by position among the positional arguments."""
    if spec is None:
        return None
    if spec.position == -1:
        return receiver
    by_keyword = keyword_value(call, spec.keywords)
    if by_keyword is not None:
        return by_keyword
    values = positional(call)
    return values[spec.position] if spec.position < len(values) else None


def _select_list_branches(call: ast.Call, sel: SelectFunction) -> list[Branch]:
    conds_node = _arg(call, sel.cond)
    choices_node = _arg(call, sel.branches[0])
    if not isinstance(choices_node, (ast.List, ast.Tuple)):
        return []
    conds = list(conds_node.elts) if isinstance(conds_node, (ast.List, ast.Tuple)) else []
    branches = [
        Branch(f"choice {i}", element, True if i < len(conds) else None, conds[i] if i < len(conds) else None)
        for i, element in enumerate(choices_node.elts)
    ]
    default = _arg(call, sel.branches[1])
    if default is not None:
        branches.append(Branch("default", default, None, None))
    return branches


def _clamp_side(call: ast.Call, sel: SelectFunction, method_form: bool) -> str:
    leaf = leaf_name(call.func) or ""
    if leaf in _LOWER_CLAMPS:
        return "low"
    if leaf in _UPPER_CLAMPS:
        return "high"
    if not method_form and sel.branches[0].position != 0:
        return "both"  # lax.clamp(min, x, max) always bounds both sides
    first_bound = 0 if method_form else 1
    lower = upper = False
    for i, arg in enumerate(positional(call)[first_bound:]):
        given = not _is_none(arg)
        lower |= i == 0 and given
        upper |= i == 1 and given
    for item in call.keywords:
        if item.arg is not None and not _is_none(item.value):
            lower |= item.arg in _LOWER_KEYWORDS
            upper |= item.arg in _UPPER_KEYWORDS
    if lower and not upper:
        return "low"
    if upper and not lower:
        return "high"
    return "both"



def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None
