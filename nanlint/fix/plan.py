"""Plan the double-where fix for one finding: which text to insert where, and how safe it is.

The singular op's argument is masked with an inner where that uses the same condition and the
file's own spelling of `where`, keeping the argument where the branch is selected and a safe value
from the catalog elsewhere. Conditions that are not pure are evaluated once (hoisted into a local,
or bound with `:=`), which makes the fix unsafe; what cannot be fixed mechanically is display-only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Optional

import ast

from nanlint.analysis.detector import DIRECT, INDIRECT, OVERFLOW, UNRELATED_CONDITION, Detector, LeakSite
from nanlint.fix.model import Location
from nanlint.fix.model import Applicability, Edit, Fix
from nanlint.analysis.names import binding_at, position, qualified_name
from nanlint.source_lines import split_lines
from nanlint.analysis.syntax import call_arguments, children, positional, walk

FIXABLE_CODES = frozenset({DIRECT, INDIRECT, OVERFLOW, UNRELATED_CONDITION})
# A statement cannot be inserted before code inside these: it runs later, or per item.
_NO_STATEMENT_BEFORE = (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_COMPOUND_STATEMENTS = (
    ast.If, ast.While, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.Try, ast.FunctionDef,
    ast.AsyncFunctionDef, ast.ClassDef, ast.Match,
) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
# Calls into these look random or stateful: duplicating one changes the program's values.
_WORD = re.compile(r"\w+")
_IMPURE_NAME = re.compile(r"(^|\.)(random|rand\w*|dropout|uniform|normal|bernoulli|multinomial|shuffle|sample\w*|choice|permutation)(\.|$)")
_TF_MODULES = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2", "tensorflow.experimental.numpy")


@dataclass
class _Spelling:
    """How to write the inner select so that it keeps `arg` where the branch is selected."""

    mask: Callable[[str, str, str], str]  # (cond_text, arg_text, safe_text) -> text
    safe_text: Callable[[str], str]  # (arg_text) -> text of the safe value
    duplicates_arg: bool  # the safe value repeats the argument (ones_like(x)): it must be pure to copy
    arg_as_receiver: bool = False  # `arg.where(...)`: a compound argument needs parentheses


class FixPlanner:
    """Plans fixes for the sites of one file; remembers the names it hoists so that they stay unique."""

    def __init__(self, detector: Detector, source: str) -> None:
        self.detector = detector
        self.source = source
        self._lines: Optional[list[str]] = None
        self.newline = "\r\n" if "\r\n" in source else "\n"
        self._parents: Optional[dict[int, ast.AST]] = None
        self._taken: set[str] = set()
        self._all_names: Optional[set[str]] = None

    def plan(self, site: LeakSite, title: str) -> Optional[Fix]:
        if site.code not in FIXABLE_CODES:
            return None
        if not site.use.op.elementwise:
            return Fix(
                Applicability.DISPLAY_ONLY,
                f"{title}: `{site.use.op.key}` reduces over its argument, so mask at the reduction's granularity "
                "(e.g. `ok = any(v != 0, axis=-1, keepdims=True)` and `norm(where(ok, v, 1.0))`), not elementwise",
            )
        spelling = self._spelling(site)
        if spelling is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: this select has no spelling nanlint can reuse for the inner mask")
        if site.code == INDIRECT:
            return self._fix_definition(site, spelling, title)
        return self._fix_in_place(site, spelling, title)

    # --- the two shapes of fix ----------------------------------------------------------------
    def _fix_in_place(self, site: LeakSite, spelling: _Spelling, title: str) -> Fix:
        cond = site.branch.cond
        arg_text = self._code(site.use.arg)
        applicability = Applicability.SAFE
        if spelling.duplicates_arg and not self.is_pure(site.use.arg):
            applicability = Applicability.UNSAFE
        safe_text = spelling.safe_text(arg_text)
        edits: list[Edit] = []
        if cond is None or self.is_pure(cond):
            cond_text = self._code(cond) if cond is not None else ""
        else:
            hoisted = self._hoist(site, cond)
            if hoisted is None:
                return Fix(Applicability.DISPLAY_ONLY, f"{title}: the condition must be evaluated once, and there is no place to bind it")
            cond_text, edits = hoisted
            applicability = Applicability.UNSAFE
        edits.append(self._replace(site.use.arg, spelling.mask(cond_text, self._prepared(site.use.arg, arg_text, spelling), safe_text)))
        return Fix(applicability, title, edits)

    def _fix_definition(self, site: LeakSite, spelling: _Spelling, title: str) -> Fix:
        """`s = jnp.sqrt(x)` ... `where(c, s, 0)`: mask inside the definition, if every use of `s` is under `c`."""
        cond = site.branch.cond
        definition = site.use.definition
        if cond is None or definition is None or not self.is_pure(cond) or not self._same_bindings(cond, site, definition):
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: the condition cannot be evaluated where `{site.use.via.id}` is defined")
        if not self._uses_all_under(site):
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: `{site.use.via.id}` is also used outside this condition; mask it in a new variable")
        arg_text = self._code(site.use.arg)
        mask = spelling.mask(self._code(cond), self._prepared(site.use.arg, arg_text, spelling), spelling.safe_text(arg_text))
        return Fix(Applicability.UNSAFE, title, [self._replace(site.use.arg, mask)])

    # --- spelling of the inner select --------------------------------------------------------------
    def _spelling(self, site: LeakSite) -> Optional[_Spelling]:
        sel = site.select_fn
        func = site.select.func
        func_text = self._code(func)
        prefix = self._code(func.value) if isinstance(func, ast.Attribute) else None
        literal = _literal(site.use.op.safe_value, integral=site.use.op.key == "remainder")

        def constant(_: str) -> str:
            return literal

        if site.method_form:
            if site.branch.polarity is None:
                return None
            negate = "" if site.branch.polarity else "~"
            return _Spelling(lambda c, a, s: f"{a}.where({negate}{_wrap(c, negate)}, {s})", constant, False, arg_as_receiver=True)
        if sel.kind == "where":
            qualified = self._qualified(func, site)
            if sel.no_broadcast:  # lax.select: the safe value must have x's shape and dtype
                if prefix is None:
                    return None
                return _Spelling(_where_mask(func_text, site.branch.polarity), lambda a: f"{prefix}.full_like({a}, {literal})", True)
            module = qualified.rsplit(".", 1)[0] if qualified else ""
            if module in _TF_MODULES and prefix is not None:
                # TensorFlow does not promote dtypes in where: build the safe value from x itself.
                return _Spelling(_where_mask(func_text, site.branch.polarity), _tf_like(prefix, site.use.op.safe_value), True)
            if sel.equal_shapes:
                return None
            return _Spelling(_where_mask(func_text, site.branch.polarity), constant, False)
        if sel.kind == "select_n" and prefix is not None:
            index, count = int(site.branch.label.split()[1]), _case_count(site.select)
            return _Spelling(
                lambda c, a, s: f"{func_text}({c}, {', '.join(a if i == index else s for i in range(count))})",
                lambda a: f"{prefix}.full_like({a}, {literal})",
                True,
            )
        if sel.kind == "select_list" and site.branch.label == "choice 0" and prefix is not None:
            # jnp.select takes the first true condition: choice 0 is selected exactly where condlist[0] holds.
            return _Spelling(_where_mask(f"{prefix}.where", True), constant, False)
        return None

    def _qualified(self, func: ast.expr, site: LeakSite) -> Optional[str]:
        return qualified_name(func, site.scope, self.detector.position(site.select))

    # --- purity and hoisting -------------------------------------------------------------------------
    def is_pure(self, node: ast.AST) -> bool:
        """Cheap to evaluate twice and without side effects: names, constants, arithmetic, comparisons,
        and calls of framework functions that are not random."""
        if isinstance(node, (ast.Name, ast.Constant)):
            return True
        if isinstance(node, ast.Attribute):
            return self.is_pure(node.value)
        if isinstance(node, ast.UnaryOp):
            return self.is_pure(node.operand)
        if isinstance(node, ast.BinOp):
            return self.is_pure(node.left) and self.is_pure(node.right)
        if isinstance(node, ast.BoolOp):
            return all(self.is_pure(v) for v in node.values)
        if isinstance(node, ast.Compare):
            return self.is_pure(node.left) and all(self.is_pure(c) for c in node.comparators)
        if isinstance(node, (ast.Tuple, ast.List)):
            return all(self.is_pure(e) for e in node.elts)
        if isinstance(node, ast.Subscript):
            index = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return self.is_pure(node.value) and all(not isinstance(i, ast.Slice) and self.is_pure(i) for i in index)
        if isinstance(node, ast.Call):
            name = self._call_name(node)
            return (
                name is not None
                and not _IMPURE_NAME.search(name)
                and not any(isinstance(a, ast.Starred) for a in node.args)
                and all(k.arg is not None for k in node.keywords)
                and all(self.is_pure(a) for a in call_arguments(node))
            )
        return False

    def _call_name(self, call: ast.Call) -> Optional[str]:
        scope = self._scope_of(call)
        return qualified_name(call.func, scope, position(call)) if scope is not None else None

    def _scope_of(self, node: ast.AST):
        parents = self._parent_map()
        current: Optional[ast.AST] = node
        while current is not None:
            scope = self.detector.index.scope_of.get(id(current))
            if scope is not None:
                return scope
            current = parents.get(id(current))
        return None

    def _hoist(self, site: LeakSite, cond: ast.expr) -> Optional[tuple[str, list[Edit]]]:
        name = self._fresh_name()
        cond_text = self._code(cond)
        statement = self._statement_for(site.select)
        if statement is not None:
            row = statement.lineno
            if self._lines is None:
                self._lines = split_lines(self.source)
            indent = re.match(r"[ \t]*", self._lines[row - 1]).group(0)
            insert = Edit(f"{indent}{name} = {cond_text}{self.newline}", Location(row, 1), Location(row, 1))
            return name, [insert, self._replace(cond, name)]
        if site.method_form or self._in_comprehension_iterable(site.select):
            # The receiver is evaluated before the condition, and `:=` is not allowed in an iterable.
            return None
        return name, [self._replace(cond, f"({name} := {cond_text})")]

    def _in_comprehension_iterable(self, node: ast.AST) -> bool:
        parents = self._parent_map()
        child, current = node, parents.get(id(node))
        while current is not None:
            if isinstance(current, ast.comprehension) and child is current.iter:
                return True
            child, current = current, parents.get(id(current))
        return False

    def _statement_for(self, node: ast.AST) -> Optional[ast.stmt]:
        """The statement holding `node`, if a new statement can go on its own line right before it."""
        parents = self._parent_map()
        current = parents.get(id(node))
        while current is not None:
            if isinstance(current, _NO_STATEMENT_BEFORE):
                return None
            if isinstance(current, ast.stmt):
                if isinstance(current, _COMPOUND_STATEMENTS):
                    return None  # an `if`/`while` test, a decorator: no statement fits before it safely
                return current if self._starts_a_line(current) else None
            current = parents.get(id(current))
        return None

    def _starts_a_line(self, statement: ast.stmt) -> bool:
        """`x = f()` alone at the start of its line: not the body of `if c: x = f()`, not after
        `a;` (the new line would run before `a`), not on a line a backslash continues."""
        source = self.detector.source
        row = statement.lineno
        line_start = source.starts[row - 1]
        if source.text[line_start : source.offset(row, statement.col_offset)].strip():
            return False
        previous = split_lines(source.text[source.starts[row - 2] : line_start])[0] if row > 1 else ""
        return not previous.endswith("\\")

    def _fresh_name(self) -> str:
        if self._all_names is None:
            # Every word of the file, not just of the slice the detector read: a new name must
            # clash with nothing, and must be the same name whichever part of the file was read.
            self._all_names = set(_WORD.findall(self.source))
        for i in range(1000):
            candidate = "ok" if i == 0 else f"ok_{i}"
            if candidate not in self._all_names and candidate not in self._taken:
                self._taken.add(candidate)
                return candidate
        raise RuntimeError("no free name")

    # --- indirect leaks ------------------------------------------------------------------------------
    def _same_bindings(self, cond: ast.expr, site: LeakSite, definition) -> bool:
        """Every name in the condition means the same at the definition as at the select."""
        scope = site.scope
        at_select = position(site.select)
        for name in _names_in(cond):
            if binding_at(scope, name.id, definition.position) is not binding_at(scope, name.id, at_select):
                return False
        return True

    def _uses_all_under(self, site: LeakSite) -> bool:
        local = site.use.via.id
        definition = site.use.definition
        scope = site.scope
        covered: set[int] = set()
        cond_text = self._code(site.branch.cond)
        for call, call_scope in self.detector.index.calls:
            if call_scope is not scope:
                continue
            for branch in self.detector.branches_of(call, scope):
                if branch.cond is not None and branch.polarity == site.branch.polarity and self._code(branch.cond) == cond_text:
                    covered.update(id(n) for n in _names_in(branch.expr) if n.id == local)
        uses = [n for n in _names_in(scope.node) if n.id == local and self._is_use_of(n, definition, scope)]
        return bool(uses) and all(id(n) in covered for n in uses)

    def _is_use_of(self, name: ast.Name, definition, scope) -> bool:
        at = position(name)
        return at > definition.position and binding_at(scope, name.id, at) is definition

    # --- small helpers ---------------------------------------------------------------------------------
    def _parent_map(self) -> dict[int, ast.AST]:
        if self._parents is None:
            self._parents = {id(child): node for node in walk(self.detector.tree) for child in children(node)}
        return self._parents

    def _code(self, node: ast.AST) -> str:
        return self.detector.code(node)

    def _replace(self, node: ast.AST, text: str) -> Edit:
        """Replace `node` with `text`; the node's own parentheses are part of it (its code includes them)."""
        return Edit(text, *self.detector.locations(node, with_parentheses=True))

    def _prepared(self, node: ast.expr, text: str, spelling: _Spelling) -> str:
        """The argument's text where the mask puts it: as a call argument, or as a method's receiver."""
        parenthesized = self.detector.source.outer_span(node) != self.detector.source.span(node)
        atom = isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript)) or parenthesized
        if spelling.arg_as_receiver and not atom:
            return f"({text})"
        if isinstance(node, (ast.NamedExpr, ast.GeneratorExp)) and not parenthesized:
            return f"({text})"
        return text


def _where_mask(func_text: str, polarity: Optional[bool]):
    if polarity is False:
        return lambda c, a, s: f"{func_text}({c}, {s}, {a})"
    return lambda c, a, s: f"{func_text}({c}, {a}, {s})"


def _tf_like(prefix: str, value: float):
    if value == 1.0:
        return lambda a: f"{prefix}.ones_like({a})"
    if value == 0.0:
        return lambda a: f"{prefix}.zeros_like({a})"
    return lambda a: f"{_literal(value, False)} * {prefix}.ones_like({a})"


def _literal(value: float, integral: bool) -> str:
    if integral and float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _wrap(cond_text: str, negate: str) -> str:
    return f"({cond_text})" if negate else cond_text


def _case_count(call: ast.Call) -> int:
    return len(positional(call)[1:])


def _names_in(node: ast.AST) -> list[ast.Name]:
    """Names read or bound in `node` (not attribute names or keyword labels)."""
    return [n for n in walk(node) if isinstance(n, ast.Name)]
