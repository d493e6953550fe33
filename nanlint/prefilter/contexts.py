"""Code that reverse-mode autodiff never differentiates, so a where there cannot leak NaN gradients.

Which code that is follows from relations across the whole file (a `f.defjvp(...)` far from `f`, a
private helper and every function that calls it), so the prefilter decides it, on the `ast` of the
statements that can tell, before libcst reads anything: a function that is never differentiated
cannot hold a finding. The answer is a list of spans; the detector drops a site inside one.

- the primal of a function with a hand-written derivative: decorated with `custom_jvp`, `custom_vjp`,
  `custom_gradient` (JAX, TensorFlow, TFP), registered with `f.defjvp(...)`/`f.defvjp(...)`, wrapped by
  `custom_jvp(f)`, lowered with `lower_fun(f)` as a primitive's implementation, or the `forward` of a
  `torch.autograd.Function`;
- the `fwd` and `bwd` of `f.defvjp(fwd, bwd)` and a `torch.autograd.Function`'s `backward`, `vjp`
  and `jvp`: they compute a derivative, and are not differentiated themselves;
- the methods of a class derived from a framework class that is never differentiated (a dataset, a
  Keras metric, a learning-rate schedule: catalog.tables), through the file's imports;
- private helpers (`_name`, or a function defined in a function's body, which nothing outside it can
  call) that only such functions call, or that are used only under `no_grad`, or only called with
  the primals by a `defjvps` rule (`lambda g, ans, x: _der(x) * g`: in reverse mode the call is a
  constant of the linearized rule, not differentiated to first order);
- `torch.no_grad()` / `torch.inference_mode()` / `torch.set_grad_enabled(False)` blocks (MXNet's
  `autograd.pause()`, TensorFlow's `tape.stop_recording()`) and functions decorated with them, less
  what they hold under `torch.enable_grad()` (or `set_grad_enabled` of anything but `False`, MXNet's
  `autograd.record()`): recording is back on there, as in the backward of an adjoint method or an
  optimizer's closure, so that code is differentiated even inside a custom primal or derivative;
- the body of a `lax.while_loop`, which JAX cannot differentiate in reverse mode (a `tf.while_loop`
  or `torch.while_loop` can be, and is checked), and of a TensorFlow loop told `back_prop=False`
  (`tf.while_loop`, `tf.map_fn`, `tf.scan`, `tf.foldl`, `tf.foldr`).

It also names the JVP rules (`@f.defjvp`, `f.defjvp(rule)`): reverse mode linearizes a rule, so only
what it computes from the tangents is differentiated (reach.py asks which values those are).
"""

from __future__ import annotations

import enum
from collections import defaultdict
from typing import Callable, Iterable, Optional

import ast

from nanlint.catalog.tables import NEVER_DIFFERENTIATED_BASE_WORDS, NEVER_DIFFERENTIATED_BASES
from nanlint.prefilter.syntax import Position, call_arguments, children, keyword_value, leaf_name, positional, start_position

_CUSTOM_DECORATORS = ("custom_jvp", "custom_vjp", "custom_gradient", "custom_derivative")
# Grad-mode contexts (a `with` item or a decorator), by the leaf name of the call: recording off
# (`torch.no_grad()`, `tape.stop_recording()`, MXNet's `autograd.pause()`) or back on
# (`torch.enable_grad()`, MXNet's `autograd.record()`). `set_grad_enabled(mode)` turns it off only
# for a literal False; `inference_mode(False)` changes nothing. MXNet's two need their module named:
# `pause` and `record` alone say nothing.
_NO_GRAD = ("no_grad", "inference_mode", "stop_recording")
_SET_GRAD = "set_grad_enabled"
_INFERENCE = "inference_mode"
_GRAD_ON = ("enable_grad",)
_MXNET_OFF, _MXNET_ON = "autograd.pause", "autograd.record"
_GRAD_WORDS = (*_NO_GRAD, _SET_GRAD, *_GRAD_ON, _MXNET_OFF, _MXNET_ON)
_REGISTRATIONS = frozenset({"defjvp", "defvjp", "defjvps"})
# `f.defjvp(rule)`: rule(*nondiff_args, primals, tangents).
_JVP_RULE = "defjvp"
# A torch.autograd.Function's forward runs under no_grad; its backward (alias `vjp`) and its
# forward-mode rule `jvp` compute derivatives, and are not differentiated themselves (unless a
# higher-order derivative is asked for).
_AUTOGRAD_METHODS = frozenset({"forward", "backward", "vjp", "jvp"})
# Who uses a name that is read under no_grad: no gradient is recorded there.
_NO_GRAD_USER = "<no_grad>"
# Who uses a name read where recording is back on (`torch.enable_grad()` inside no_grad or a custom
# derivative): never a custom user, so a helper used there is differentiated.
_GRAD_USER = "<enable_grad>"
# Who calls a function from a JVP rule with the primals alone: in reverse mode the call's value is a
# constant of the linear map, and is not differentiated (a second derivative would).
_PRIMAL_USER = "<jvp rule primal>"
# `f.defjvps(rule, ...)`: each rule is `rule(tangent, primal_out, *primals)`.
_JVP_RULES_PER_ARGUMENT = "defjvps"
_WRAPPERS = frozenset({"custom_jvp", "custom_vjp", "custom_gradient", "lower_fun"})
# lax.while_loop(cond_fun, body_fun, init): JAX cannot differentiate a while loop in reverse mode.
# TensorFlow and torch can (`tf.while_loop` keeps each iteration for its gradient), and so can a
# checkpointed loop (`eqxi.while_loop`): only a body given to `lax.while_loop`, or to a bare
# `while_loop` (imported so from JAX and the libraries that wrap it), is never differentiated.
_LOOP_BODIES = {"while_loop": 1}
_REVERSE_MODE_LESS_LOOPS = frozenset({"lax", "lax_control_flow"})
# `tf.while_loop(cond, body, loop_vars, back_prop=False)`, `tf.map_fn(fn, elems, back_prop=False)`:
# TensorFlow records no gradient through the loop (TensorFlow 2 stops the gradient of its outputs),
# so its body, the argument at this position, is never differentiated.
_BACK_PROP = "back_prop"
_BACK_PROP_LOOP_BODIES = {"while_loop": 1, "map_fn": 0, "scan": 0, "foldl": 0, "foldr": 0}
# What, written in one statement, can make a function elsewhere a custom primal: its decorator, a
# registration, a wrapper, a loop that takes it as its body; or a class base whose name ends so, as
# `torch.autograd.Function` does, for its `forward`. The prefilter reads the statements that spell
# these whole (`_Plan.contexts`).
PRIMAL_WORDS = tuple(dict.fromkeys((*_CUSTOM_DECORATORS, *sorted(_REGISTRATIONS), *sorted(_WRAPPERS), *_LOOP_BODIES, _BACK_PROP)))
AUTOGRAD_BASE_ENDING = "Function"
# The ends of the words a class statement whose base decides its methods spells.
BASE_WORD_ENDINGS = (AUTOGRAD_BASE_ENDING, *NEVER_DIFFERENTIATED_BASE_WORDS)
# Every word the pass below reacts to; a text that spells none of them has no such code.
_SIGNS = (*PRIMAL_WORDS, *BASE_WORD_ENDINGS, *_GRAD_WORDS)


# Who uses a name: the names of the function it is read in and of those around it, a marker
# (`_NO_GRAD_USER`, `_PRIMAL_USER`), or None at the module's top level.
_User = Optional[tuple[str, ...] | str]


class GradMode(enum.Enum):
    """What a grad-mode context or decorator does to recording in the code it holds."""

    OFF = "off"  # nothing there is recorded: never differentiated
    ON = "on"  # recorded again, whatever holds it


def grad_mode(node: ast.AST, code_for: Callable[[ast.AST], str]) -> Optional[GradMode]:
    """The grad mode a `with` item's expression or a decorator sets, if it is one (None otherwise,
    also for a conditional `no_grad() if frozen else nullcontext()`: either may run)."""
    call = node if isinstance(node, ast.Call) else None
    func = call.func if call is not None else node
    leaf = leaf_name(func)
    given = (positional(call) or [keyword_value(call, ("mode",))]) if call is not None else []
    first = given[0] if given else None
    if leaf == _SET_GRAD:
        return GradMode.OFF if isinstance(first, ast.Constant) and first.value is False else GradMode.ON
    if leaf == _INFERENCE and isinstance(first, ast.Constant) and first.value is False:
        return None
    if leaf in _NO_GRAD:
        return GradMode.OFF
    if leaf in _GRAD_ON:
        return GradMode.ON
    if isinstance(func, ast.Attribute) and leaf in ("pause", "record"):
        dotted = code_for(func)
        if dotted == _MXNET_OFF or dotted.endswith("." + _MXNET_OFF):
            return GradMode.OFF
        if dotted == _MXNET_ON or dotted.endswith("." + _MXNET_ON):
            return GradMode.ON
    return None


def _without(spans: list[tuple[Position, Position]], holes: list[tuple[Position, Position]]) -> list[tuple[Position, Position]]:
    """The spans, less the holes cut in them."""
    for low, high in holes:
        cut = []
        for start, end in spans:
            if high <= start or end <= low:
                cut.append((start, end))
                continue
            if start < low:
                cut.append((start, low))
            if high < end:
                cut.append((high, end))
        spans = cut
    return spans


class ClassKind(enum.Enum):
    """What a class's base says of its methods."""

    PLAIN = "plain"
    AUTOGRAD_FUNCTION = "autograd.Function"  # its forward is a custom primal, its backward a derivative
    NEVER_DIFFERENTIATED = "never differentiated"  # a dataset, a Keras metric, a schedule: none of it


def _never_differentiated_base(qualified: str) -> bool:
    """`torch.utils.data.Dataset`, or a class of a module listed whole (`keras.metrics.Mean`)."""
    parts = qualified.split(".")
    return any(".".join(parts[:end]) in NEVER_DIFFERENTIATED_BASES for end in range(1, len(parts) + 1))


def _reverse_mode_less(func: ast.AST) -> bool:
    """`lax.while_loop` or a bare `while_loop`, not `tf.while_loop` or `torch.while_loop`."""
    return isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and leaf_name(func.value) in _REVERSE_MODE_LESS_LOOPS)


def _without_back_prop(call: ast.Call) -> bool:
    """The call is told `back_prop=False`."""
    return any(k.arg == _BACK_PROP and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords)


def may_have_contexts(text: str) -> bool:
    """Whether any code in `text` can be one that is never differentiated (substring tests only)."""
    return any(sign in text for sign in _SIGNS)


class _Leave:
    """On the walk's stack: undo what entering a node pushed, once its children are done."""

    __slots__ = ("leave",)

    def __init__(self, leave) -> None:
        self.leave = leave


class Contexts:
    """One pass over a module; then `excluded(call)` says whether a select call is never differentiated."""

    def __init__(self, code_for: Callable[[ast.AST], str], qualify: Callable[[str], Iterable[str]]) -> None:
        """`code_for`: an expression's text; `qualify`: what a dotted name may stand for, through the
        file's imports (`data.Dataset` -> `torch.utils.data.Dataset`)."""
        self.code_for = code_for
        self.qualify = qualify
        self._functions: list[str] = []  # enclosing function names, innermost last
        self._classes: list[ClassKind] = []  # enclosing classes
        self._never_classes: set[str] = set()  # classes of this file derived from a never-differentiated one
        # Per enclosing function or grad-mode `with`: the mode its code runs under (None: its caller's).
        self._grad_modes: list[Optional[GradMode]] = []
        # Each function as (its name and those of the functions around it, start, end); no_grad regions.
        self._function_spans: list[tuple[tuple[str, ...], Position, Position]] = []
        self._no_grad_spans: list[tuple[Position, Position]] = []
        self._grad_on_spans: list[tuple[Position, Position]] = []  # recording back on: cut out of the others
        self._custom: set[str] = set()
        # Functions defined in a function's body that are never differentiated, by (the enclosing
        # functions' names, the name).
        self._custom_local: set[tuple[tuple[str, ...], str]] = set()
        self._jvp_rules: set[str] = set()
        self._defined: set[str] = set()
        # A user is the names of the function the use is in and of those around it, or a marker.
        self._uses: dict[str, set[_User]] = defaultdict(set)
        # Per enclosing function, the functions defined in its body: invisible outside it, so private
        # whatever their names. Their uses, by (the enclosing functions' names, the name).
        self._local_defs: list[frozenset[str]] = []
        self._local_names: list[frozenset[str]] = []  # the union of `_local_defs` so far, per depth
        self._local_uses: dict[tuple[tuple[str, ...], str], set[_User]] = defaultdict(set)
        # The callees (`ast.Name` ids) of calls a JVP rule makes with the primals alone.
        self._primal_callees: set[int] = set()
        self._resolved: Optional[set[str]] = None
        self._base_line = 0

    # --- collection ------------------------------------------------------------------------------
    def visit(self, tree: ast.AST, base_line: int = 0) -> None:
        """Walk the tree once, depth first; entering a class, a function or a `with` pushes what
        it says, and a marker on the stack pops it again after its children."""
        self._base_line = base_line
        stack: list = [tree]
        while stack:
            node = stack.pop()
            if type(node) is _Leave:
                node.leave()
                continue
            kind = type(node)
            if kind is ast.ClassDef:
                self._note_use(node.name)
                self._classes.append(self._class_kind(node))
                stack.append(_Leave(self._classes.pop))
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
                stack.append(self._enter_function(node))
            elif kind is ast.With or kind is ast.AsyncWith:
                modes = [m for item in node.items if (m := grad_mode(item.context_expr, self.code_for))]
                if modes:
                    # Items are entered left to right: the last one's mode holds the body.
                    self._note_grad_mode(modes[-1], self._span((node.lineno, node.col_offset), node))
                    stack.append(_Leave(self._grad_modes.pop))
            elif kind is ast.Call:
                self._visit_call(node)
            else:
                self._note_names(node)
            for child in reversed(children(node)):
                child_kind = type(child)
                if child_kind is ast.Name:
                    self._note_use(child.id, id(child) in self._primal_callees)  # a leaf: noted here rather than visited
                elif child_kind is not ast.Constant:
                    stack.append(child)

    def _enter_function(self, node) -> "_Leave":
        name = node.name
        decorators = [self.code_for(d) for d in node.decorator_list]
        if any(word in text for text in decorators for word in _CUSTOM_DECORATORS):
            self._custom.add(name)
        if any(text.endswith(f".{_JVP_RULE}") for text in decorators):
            self._jvp_rules.add(name)  # @f.defjvp
        in_class = self._classes[-1] if self._classes else ClassKind.PLAIN
        if (in_class is ClassKind.AUTOGRAD_FUNCTION and name in _AUTOGRAD_METHODS) or in_class is ClassKind.NEVER_DIFFERENTIATED:
            self._custom.add(self._qualify(name, in_class))
        if not self._functions:
            self._defined.add(name)
        span = self._span(start_position(node), node)
        # A body runs when the function is called, not where it is defined: only its decorators count,
        # and the innermost (the last written) sets the mode last, just before the body runs.
        modes = [m for d in node.decorator_list if (m := grad_mode(d, self.code_for))]
        if modes:
            self._note_grad_mode(modes[-1], span)
        else:
            self._grad_modes.append(None)
        self._functions.append(name if in_class is ClassKind.PLAIN else self._qualify(name, in_class))
        self._function_spans.append((tuple(self._functions), *span))
        defined = _defined_in(node)
        self._local_defs.append(defined)
        around = self._local_names[-1] if self._local_names else frozenset()
        self._local_names.append(around | defined if defined else around)
        return _Leave(self._leave_function)

    def _note_grad_mode(self, mode: GradMode, span: tuple[Position, Position]) -> None:
        (self._no_grad_spans if mode is GradMode.OFF else self._grad_on_spans).append(span)
        self._grad_modes.append(mode)

    def _leave_function(self) -> None:
        self._functions.pop()
        self._grad_modes.pop()
        self._local_defs.pop()
        self._local_names.pop()

    def _span(self, start: Position, node: ast.AST) -> tuple[Position, Position]:
        """A place in the tree, with its lines counted in the file."""
        return (start[0] + self._base_line, start[1]), (node.end_lineno + self._base_line, node.end_col_offset)

    def _qualify(self, name: str, kind: ClassKind) -> str:
        return f"<{kind.value}>.{name}"

    def _class_kind(self, node: ast.ClassDef) -> ClassKind:
        bases = [self.code_for(base) for base in node.bases]
        if any(base.endswith(AUTOGRAD_BASE_ENDING) for base in bases):
            return ClassKind.AUTOGRAD_FUNCTION
        if any(base in self._never_classes or any(_never_differentiated_base(q) for q in self.qualify(base)) for base in bases):
            self._never_classes.add(node.name)
            return ClassKind.NEVER_DIFFERENTIATED
        return ClassKind.PLAIN

    def _visit_call(self, node: ast.Call) -> None:
        func = node.func
        arguments = call_arguments(node)
        first = arguments[0] if arguments else None
        if isinstance(func, ast.Attribute) and func.attr in _REGISTRATIONS and isinstance(func.value, ast.Name):
            self._custom.add(func.value.id)  # f.defjvp(f_jvp): f's body is never differentiated
            if func.attr == _JVP_RULES_PER_ARGUMENT:
                self._primal_callees.update(id(callee) for rule in arguments for callee in _primal_callees(rule))
            if func.attr == _JVP_RULE and isinstance(first, ast.Name):
                self._jvp_rules.add(first.id)
            if func.attr == "defvjp":
                # f.defvjp(fwd, bwd): JAX runs both, differentiates neither. (A defjvp rule is
                # transposed in reverse mode: its selects of the tangents can leak, so it stays read.)
                self._custom.update(a.id for a in arguments if isinstance(a, ast.Name))
        leaf = leaf_name(func) or (leaf_name(func.func) if isinstance(func, ast.Call) else None)
        wrapped = _wrapped_function(first)
        if leaf in _WRAPPERS and wrapped is not None:
            # custom_jvp(f), custom_gradient(...)(f), lower_fun(f), lower_fun(_broadcasting(f)),
            # custom_jvp(partial(f, n)): f runs only inside a function autodiff does not look into.
            self._custom.add(wrapped)
        if leaf in _LOOP_BODIES and _reverse_mode_less(func) and len(arguments) > _LOOP_BODIES[leaf]:
            self._note_loop_body(arguments[_LOOP_BODIES[leaf]])
        if leaf in _BACK_PROP_LOOP_BODIES and _without_back_prop(node) and len(node.args) > _BACK_PROP_LOOP_BODIES[leaf]:
            self._note_loop_body(node.args[_BACK_PROP_LOOP_BODIES[leaf]])

    def _note_loop_body(self, body: ast.AST) -> None:
        """A loop's body that is never differentiated: the function defined in an enclosing
        function's body under that name (another function's `body` is another function), else the
        module's."""
        if not isinstance(body, ast.Name):
            return
        depth = self._defining_depth(body.id)
        if depth is None:
            self._custom.add(body.id)
        else:
            self._custom_local.add((tuple(self._functions[: depth + 1]), body.id))

    def _defining_depth(self, name: str) -> Optional[int]:
        """The innermost enclosing function whose body defines `name`, by depth; None when none does."""
        return next((d for d in range(len(self._local_defs) - 1, -1, -1) if name in self._local_defs[d]), None)

    def _note_names(self, node: ast.AST) -> None:
        """Every spelling of a name counts as a use of it: a read, an attribute, a keyword, an import."""
        kind = type(node)
        if kind is ast.Name:
            self._note_use(node.id)
        elif kind is ast.Attribute:
            self._note_use(node.attr)
        elif kind is ast.keyword and node.arg is not None:
            self._note_use(node.arg)
        elif kind is ast.arg:
            self._note_use(node.arg)
        elif kind is ast.alias:
            self._note_use(node.name.rsplit(".", 1)[-1])
            if node.asname:
                self._note_use(node.asname)
        elif kind is ast.ExceptHandler and node.name:
            self._note_use(node.name)
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in node.names:
                self._note_use(name)

    def _note_use(self, name: str, primal: bool = False) -> None:
        """A use of a private helper (`_name`, or a function defined in an enclosing function's body:
        only those are ever read as part of a primal), by whom: the function it is in, or no_grad, or
        a JVP rule's primal computation."""
        local = bool(self._local_names) and name in self._local_names[-1]
        if not local and not name.startswith("_"):
            return
        if primal:
            user: _User = _PRIMAL_USER
        elif self._grad_modes and self._grad_modes[-1] is GradMode.OFF:
            user = _NO_GRAD_USER
        elif self._grad_modes and self._grad_modes[-1] is GradMode.ON:
            user = _GRAD_USER
        else:
            user = tuple(self._functions) if self._functions else None
        if local:
            depth = self._defining_depth(name)
            self._local_uses[(tuple(self._functions[: depth + 1]), name)].add(user)
        else:
            self._uses[name].add(user)

    # --- queries ---------------------------------------------------------------------------------
    def never_differentiated(self) -> list[tuple[Position, Position]]:
        """The spans of code that is never differentiated: functions that are (or are nested in) a
        custom primal or a helper only such primals use, and no_grad regions, less the regions where
        recording is back on."""
        custom = self._custom_closure()
        local = {(around, name) for (around, name), users in self._local_uses.items() if all(self._in(user, custom) for user in users)}
        local |= self._custom_local
        spans = [(start, end) for names, start, end in self._function_spans if names[-1] in custom or (names[:-1], names[-1]) in local]
        return _without(spans + self._no_grad_spans, self._grad_on_spans)

    def jvp_rules(self) -> frozenset[str]:
        """The names of the functions registered as a custom_jvp's rule."""
        return frozenset(self._jvp_rules)

    def _in(self, user: "_User", custom: set[str]) -> bool:
        """Whether the user is a marker in `custom`, or a function of it: by its name, or, defined in
        a function's body, as that function's own."""
        if isinstance(user, tuple):
            return user[-1] in custom or (user[:-1], user[-1]) in self._custom_local
        return user in custom

    def _custom_closure(self) -> set[str]:
        """Custom-derivative functions, and the private helpers used only inside them or under no_grad."""
        if self._resolved is None:
            custom = set(self._custom) | {_NO_GRAD_USER, _PRIMAL_USER}
            changed = True
            while changed:
                changed = False
                for name in self._defined - custom:
                    users = self._uses.get(name, set())
                    if name.startswith("_") and users and all(self._in(user, custom) for user in users):
                        custom.add(name)
                        changed = True
            self._resolved = custom
        return self._resolved


def _defined_in(function: ast.AST) -> frozenset[str]:
    """The names of the functions a function's body defines, in its blocks but not in its nested
    functions or classes."""
    names = []
    stack = list(function.body)
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            names.append(node.name)
        elif kind is not ast.ClassDef:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                stack.extend(getattr(node, field, ()))
    return frozenset(names)


def _primal_callees(rule: ast.AST) -> list[ast.Name]:
    """In `lambda g, ans, *primals: ...`, a rule given to `defjvps`, the called names of the calls
    whose arguments do not read the tangent `g`."""
    if not isinstance(rule, ast.Lambda) or not rule.args.args:
        return []
    tangent = rule.args.args[0].arg
    found = []
    for node in ast.walk(rule.body):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if not any(isinstance(n, ast.Name) and n.id == tangent for a in arguments for n in ast.walk(a)):
                found.append(node.func)
    return found


def _wrapped_function(node: Optional[ast.AST], depth: int = 0) -> Optional[str]:
    """The function a wrapper is given: `f`, or the `f` of `partial(f, n)` or `_broadcasting(f)`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Call) and node.args and depth < _MAX_WRAPPING:
        return _wrapped_function(node.args[0], depth + 1)
    return None


_MAX_WRAPPING = 2
