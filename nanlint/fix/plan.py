"""Plan the double-where fix for one finding: a libcst rewrite of the code around it, and how safe it is.

The singular op's argument is masked with an inner where, built as libcst nodes: the same condition,
the file's own spelling of `where`, the argument where the branch is selected and a safe value from
the catalog elsewhere. Conditions that are not pure are evaluated once (hoisted into a new statement,
or bound with `:=`), which makes the fix unsafe; what cannot be fixed mechanically is display-only.

The rewrite is a `CSTTransformer` run on the smallest node that holds every change; the edit is the
transformed node's code over that node's text, trimmed to what differs, so everything else in the
file stays byte for byte as it was.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field
from typing import Callable, Optional, Union

import libcst as cst

from nanlint.analysis.detector import Detector
from nanlint.analysis.names import Binding, binding_at, qualified_name
from nanlint.analysis.masking import domain_condition
from nanlint.analysis.sites import LeakSite, MaskSite, Site, SiteKind
from nanlint.analysis.syntax import number_literal
from nanlint.analysis.tree import UnitTree, children, generated
from nanlint.catalog.tables import RANDOM_NAME, SingularOp
from nanlint.fix.model import Applicability, Edit, Fix
from nanlint.rules import BY_KIND

_TF_MODULES = ("tensorflow", "tensorflow.compat.v1", "tensorflow.compat.v2", "tensorflow.experimental.numpy")
_WORD = re.compile(r"\w+")
# Code inside these runs later, or once per item: no statement can be placed before it.
_NO_STATEMENT_BEFORE = (cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
_LITERALS = (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString, cst.Ellipsis)

Node = cst.BaseExpression
# A node's replacement: a new node, or a function of the node with its own changes made.
Replacement = Union[cst.CSTNode, Callable[[cst.CSTNode], Union[cst.CSTNode, cst.FlattenSentinel]]]


@dataclass
class _Changes:
    """The nodes a fix replaces (by identity), and what replaces each."""

    nodes: dict[int, cst.CSTNode] = field(default_factory=dict)
    replacements: dict[int, Replacement] = field(default_factory=dict)

    def replace(self, node: cst.CSTNode, replacement: Replacement) -> None:
        self.nodes[id(node)] = node
        self.replacements[id(node)] = replacement


@dataclass
class _Spelling:
    """How to build the inner select that keeps `arg` where the branch is selected."""

    mask: Callable[[Node, Node, Node], Node]  # (cond, arg, safe value) -> the masked argument
    safe_value: Callable[[Node], Node]  # (arg) -> the safe value
    duplicates_arg: bool  # the safe value repeats the argument (ones_like(x)): it must be pure to copy
    arg_as_receiver: bool = False  # `arg.where(...)`: a compound argument needs parentheses


class FixPlanner:
    """Plans fixes for the sites of one file; remembers the names it hoists so that they stay unique."""

    def __init__(self, detector: Detector, source: str) -> None:
        self.detector = detector
        self.index = detector.index
        self.source = source
        self._taken: set[str] = set()
        self._all_names: Optional[set[str]] = None
        self._planned: dict[int, Optional[Fix]] = {}  # by site: a NaN mask defers to its producer's fix

    def plan(self, site: Site, title: str) -> Optional[Fix]:
        fix = self._plan(site, title)
        self._planned[id(site)] = fix
        return fix

    def _plan(self, site: Site, title: str) -> Optional[Fix]:
        if not BY_KIND[site.kind].FIXABLE:
            return None
        if isinstance(site, MaskSite):
            return self._fix_producer(site, title)
        if site.upstream is not None:
            source, local = site.upstream, site.use.arg.value
            return Fix(
                Applicability.DISPLAY_ONLY,
                f"{title}: a double where here is not enough: `{local}` is `{_snippet(self.detector.code(source.node))}`, whose own derivative is "
                f"not finite at {source.op.domain_text}, where `{local}` = {source.op.value_at_pole:g} and this branch is not "
                f"selected; masking `{local}` leaves it NaN. Write the condition without it: {source.op.without_it}",
            )
        if site.use.helper is not None:
            return Fix(
                Applicability.DISPLAY_ONLY,
                f"{title}: the op is inside `{site.use.helper.name.value}`; mask what this call passes it (double where), or mask inside the helper",
            )
        if not site.use.op.elementwise:
            return Fix(
                Applicability.DISPLAY_ONLY,
                f"{title}: `{site.use.op.key}` reduces over its argument, so mask at the reduction's granularity "
                "(e.g. `ok = any(v != 0, axis=-1, keepdims=True)` and `norm(where(ok, v, 1.0))`), not elementwise",
            )
        spelling = self._spelling(site)
        if spelling is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: this select has no spelling nanlint can reuse for the inner mask")
        if site.kind is SiteKind.SINGULAR_LOCAL:
            return self._fix_definition(site, spelling, title)
        return self._fix_in_place(site, spelling, title)

    # --- the two shapes of fix ----------------------------------------------------------------
    def _fix_in_place(self, site: LeakSite, spelling: _Spelling, title: str) -> Fix:
        cond, arg = site.branch.cond, site.use.arg
        applicability = Applicability.SAFE
        if spelling.duplicates_arg and not self.is_pure(arg):
            applicability = Applicability.UNSAFE
        changes = _Changes()
        if cond is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: this branch is chosen by no single condition")
        if self.is_pure(cond):
            cond_value = cond.deep_clone()
        else:
            hoisted = self._hoist(site, cond, changes)
            if hoisted is None:
                return Fix(Applicability.DISPLAY_ONLY, f"{title}: the condition must be evaluated once, and there is no place to bind it")
            cond_value = hoisted
            applicability = Applicability.UNSAFE
        changes.replace(arg, self._masked(arg, cond_value, spelling))
        edits = self._edit(changes)
        if edits is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: nanlint could not place the rewrite in the file")
        return Fix(applicability, title, edits)

    def _fix_definition(self, site: LeakSite, spelling: _Spelling, title: str) -> Fix:
        """`s = jnp.sqrt(x)` ... `where(c, s, 0)`: mask inside the definition, if every use of `s` is under `c`."""
        cond = site.branch.cond
        definition = site.use.definition
        local = site.use.via.value
        if cond is None or definition is None or not self.is_pure(cond) or not self._same_bindings(cond, site, definition):
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: the condition cannot be evaluated where `{local}` is defined")
        if not self._uses_all_under(site):
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: `{local}` is also used outside this condition; mask it in a new variable")
        arg = site.use.arg
        changes = _Changes()
        changes.replace(arg, self._masked(arg, cond.deep_clone(), spelling))
        edits = self._edit(changes)
        if edits is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: nanlint could not place the rewrite in the file")
        return Fix(Applicability.UNSAFE, title, edits)

    def _fix_producer(self, site: MaskSite, title: str) -> Fix:
        """NAN201: no fix masks a value after the fact. When its producer is a singular op on an argument
        nanlint can see, offer that op's double where (unsafe), keeping the argument where the op's value
        is finite; when another rule's finding on the op (planned before) has a fix, that is the one."""
        use = site.use
        linked = self._planned.get(id(site.linked)) if site.linked is not None else None
        if linked is not None and linked.applicability is not Applicability.DISPLAY_ONLY:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: apply the {BY_KIND[site.linked.kind].CODE} fix of this op")
        if use is None or not use.op.elementwise:
            return Fix(Applicability.DISPLAY_ONLY, title)
        if site.others:
            other = self.detector.code(site.others[0])
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: `{other}` can make the value non-finite too; mask the inputs of each")
        cond = domain_condition(use.arg, site.domain)
        if cond is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: no simple condition states where `{use.op.key}` is finite")
        if not self.is_pure(use.arg):
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: the argument must be evaluated once; bind it to a local first")
        spelling = self._producer_spelling(site)
        if spelling is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: no `where` in this file's spelling fits the argument")
        changes = _Changes()
        changes.replace(use.arg, self._masked(use.arg, cond, spelling))
        edits = self._edit(changes)
        if edits is None:
            return Fix(Applicability.DISPLAY_ONLY, f"{title}: nanlint could not place the rewrite in the file")
        return Fix(Applicability.UNSAFE, title, edits)

    def _producer_spelling(self, site: MaskSite) -> Optional[_Spelling]:
        """The inner where for a producer's argument: the tensor method where the op is one
        (`p.where(p > 0, 1.0).log()`), else the first where that resolves here among the mask's own,
        and the `where` of the op's module or of the mask's (`jnp.where` for `jnp.nan_to_num`)."""
        use = site.use
        node = use.node
        if isinstance(node, cst.Call) and isinstance(node.func, cst.Attribute) and use.arg is node.func.value:
            return _method_where(False, use.op) if self.detector.catalog.method_select("where", self.detector.imported_frameworks) else None
        place = self.detector.place(node)
        mask_func = None if site.method_form else site.select.func
        candidates = [mask_func] if mask_func is not None else []
        for func in (node.func if isinstance(node, cst.Call) else None, mask_func):
            while isinstance(func, cst.Attribute):  # `tf.math.log`: `tf.math.where`, then `tf.where`
                func = func.value
                candidates.append(cst.Attribute(func.deep_clone(), cst.Name("where")))
        for func in candidates:
            qualified = qualified_name(func, site.scope, place)
            hit = self.detector.catalog.select(qualified)
            if hit is not None and hit[0].kind == "where" and not (hit[0].equal_shapes or hit[0].no_broadcast):
                return _plain_where(func, qualified, True, use.op)
        return None

    def _masked(self, arg: Node, cond: Node, spelling: _Spelling) -> Node:
        kept = _prepared(arg, spelling.arg_as_receiver)
        return spelling.mask(cond, kept, spelling.safe_value(arg.deep_clone()))

    # --- spelling of the inner select --------------------------------------------------------------
    def _spelling(self, site: LeakSite) -> Optional[_Spelling]:
        sel, func = site.select_fn, site.select.func
        prefix = func.value if isinstance(func, cst.Attribute) else None
        literal = _safe_literal(site.use.op)
        index = site.branch.index

        def constant(_: Node) -> Node:
            return literal

        if site.method_form:
            return None if site.branch.polarity is None else _method_where(not site.branch.polarity, site.use.op)
        if sel.kind == "where":
            qualified = self._qualified(func, site)
            if sel.no_broadcast:  # lax.select: the safe value must have x's shape and dtype
                mask = _where_mask(func, site.branch.polarity)
                return None if prefix is None else _Spelling(mask, lambda a: _call(_member(prefix, "full_like"), a, literal), True)
            spelling = _plain_where(func, qualified, site.branch.polarity, site.use.op)
            # tf.compat.v1.where needs equal shapes: only a safe value built from x (ones_like) has them.
            return None if sel.equal_shapes and not spelling.duplicates_arg else spelling
        if sel.kind == "select_n" and prefix is not None:
            count = len([a for a in site.select.args[1:] if a.keyword is None and not a.star])
            return _Spelling(
                lambda c, a, s: _call(func.deep_clone(), c, *(a if i == index else s for i in range(count))),
                lambda a: _call(_member(prefix, "full_like"), a, literal),
                True,
            )
        if sel.kind == "select_list" and index == 0 and prefix is not None:
            # jnp.select takes the first true condition: choice 0 is selected exactly where condlist[0] holds.
            return _Spelling(_where_mask(_member(prefix, "where"), True), constant, False)
        return None

    def _qualified(self, func: cst.BaseExpression, site: LeakSite) -> Optional[str]:
        return qualified_name(func, site.scope, self.detector.place(site.select))

    # --- purity and hoisting -------------------------------------------------------------------------
    def is_pure(self, node: cst.CSTNode) -> bool:
        """Cheap to evaluate twice and without side effects: names, constants, arithmetic, comparisons,
        and calls of framework functions that are not random."""
        if isinstance(node, (cst.Name, *_LITERALS)):
            return True
        if isinstance(node, cst.Attribute):
            return self.is_pure(node.value)
        if isinstance(node, cst.UnaryOperation):
            return self.is_pure(node.expression)
        if isinstance(node, (cst.BinaryOperation, cst.BooleanOperation)):
            return self.is_pure(node.left) and self.is_pure(node.right)
        if isinstance(node, cst.Comparison):
            return self.is_pure(node.left) and all(self.is_pure(c.comparator) for c in node.comparisons)
        if isinstance(node, (cst.Tuple, cst.List)):
            return all(not isinstance(e, cst.StarredElement) and self.is_pure(e.value) for e in node.elements)
        if isinstance(node, cst.Subscript):
            return self.is_pure(node.value) and all(isinstance(e.slice, cst.Index) and self.is_pure(e.slice.value) for e in node.slice)
        if isinstance(node, cst.Call):
            name = qualified_name(node.func, self.index.scope_at(node), self.detector.place(node))
            return (
                name is not None
                and not RANDOM_NAME.search(name)
                and not any(a.star for a in node.args)
                and all(self.is_pure(a.value) for a in node.args)
            )
        return False

    def _hoist(self, site: LeakSite, cond: Node, changes: _Changes) -> Optional[Node]:
        """Evaluate the condition once: in a new statement before the select's, or bound with `:=`.
        Records the rewrites in `changes`; returns what the mask reads for the condition."""
        name = self._fresh_name()
        statement = self._statement_for(site.select)
        if statement is not None:
            assignment = cst.SimpleStatementLine([cst.Assign([cst.AssignTarget(cst.Name(name))], cond.deep_clone())])

            default_newline = self.index.tree_holding(statement).module.default_newline

            def insert(updated: cst.SimpleStatementLine) -> cst.FlattenSentinel:
                # Comments above the statement stay above the new line, which ends as the statement's does.
                newline = updated.trailing_whitespace.newline.value or default_newline
                first = assignment.with_changes(
                    leading_lines=updated.leading_lines, trailing_whitespace=cst.TrailingWhitespace(newline=cst.Newline(newline))
                )
                return cst.FlattenSentinel([first, updated.with_changes(leading_lines=[])])

            changes.replace(cond, cst.Name(name))
            changes.replace(statement, insert)
            return cst.Name(name)
        if site.method_form or self._in_comprehension_iterable(site.select):
            return None  # the receiver is evaluated before the condition, and `:=` is not allowed in an iterable
        changes.replace(cond, cst.NamedExpr(cst.Name(name), cond.deep_clone(), lpar=[cst.LeftParen()], rpar=[cst.RightParen()]))
        return cst.Name(name)

    def _in_comprehension_iterable(self, node: cst.CSTNode) -> bool:
        child = node
        for current in self.index.ancestors(node):
            if isinstance(current, cst.CompFor) and child is current.iter:
                return True
            child = current
        return False

    def _statement_for(self, node: cst.CSTNode) -> Optional[cst.SimpleStatementLine]:
        """The line of statements holding `node`, if a new statement can go right before it: not
        inside a lambda or comprehension, not a compound statement's header, and `node` in the
        line's first statement (a statement after `a;` may read what `a` binds)."""
        child = node
        for current in self.index.ancestors(node):
            if isinstance(current, _NO_STATEMENT_BEFORE):
                return None
            if isinstance(current, cst.SimpleStatementLine):
                return current if current.body and current.body[0] is child else None
            if isinstance(current, (cst.BaseCompoundStatement, cst.SimpleStatementSuite)):
                return None  # an `if`/`while` test, a decorator, `if c: x = f()`: no line of its own
            child = current
        return None

    def _fresh_name(self) -> str:
        if self._all_names is None:
            # Every word of the file, not just of the units the analysis read: a new name must
            # clash with nothing, and must be the same name whichever part of the file was read.
            self._all_names = set(_WORD.findall(self.source))
        for i in range(1000):
            candidate = "ok" if i == 0 else f"ok_{i}"
            if candidate not in self._all_names and candidate not in self._taken:
                self._taken.add(candidate)
                return candidate
        raise RuntimeError("no free name")

    # --- indirect leaks ------------------------------------------------------------------------------
    def _same_bindings(self, cond: Node, site: LeakSite, definition: Binding) -> bool:
        """Every name in the condition means the same at the definition as at the select."""
        at_select = self.detector.place(site.select)
        for name in _names_in(cond):
            if binding_at(site.scope, name.value, definition.place) is not binding_at(site.scope, name.value, at_select):
                return False
        return True

    def _uses_all_under(self, site: LeakSite) -> bool:
        local = site.use.via.value
        definition = site.use.definition
        scope = site.scope
        cond_text = self.detector.code(site.branch.cond)
        covered: set[int] = set()
        for call, call_scope in self.index.calls:
            if call_scope is not scope:
                continue
            for branch in self.detector.branches_of(call, scope):
                if branch.cond is not None and branch.polarity == site.branch.polarity and self.detector.code(branch.cond) == cond_text:
                    covered.update(id(n) for n in _names_in(branch.expr) if n.value == local)
        roots = [scope.node] if scope.node is not None else [tree.module for tree in self.detector.trees]
        uses = [n for root in roots for n in _names_in(root) if n.value == local and self._is_use_of(n, definition, scope)]
        return bool(uses) and all(id(n) in covered for n in uses)

    def _is_use_of(self, name: cst.Name, definition: Binding, scope) -> bool:
        place = self.index.place.get(id(name))
        return place is not None and place > definition.place and binding_at(scope, name.value, place) is definition

    # --- the edit -------------------------------------------------------------------------------------
    def _edit(self, changes: _Changes) -> Optional[list[Edit]]:
        """The transformed code of the smallest node holding every change, over that node's text,
        trimmed to what differs."""
        cover = self._cover(list(changes.nodes.values()))
        tree = self.index.tree_holding(cover)
        indents = self._indents(cover, tree)
        start, end = tree.extent(cover)
        if start < tree.unit.start:
            return None  # the change reaches the stand-in the unit was parsed under
        old = self.source[start:end]
        if generated(cover, tree.module, indents) != old:
            return None  # the indentation around the node is not what nanlint thinks: never guess
        rewritten = cover.visit(_Rewrite(changes.replacements))
        # A statement that becomes two is written as two, in its place (not its whole block, which
        # a sliced unit may hold only in part).
        nodes = rewritten.nodes if isinstance(rewritten, cst.FlattenSentinel) else [rewritten]
        new = "".join(generated(node, tree.module, indents) for node in nodes)
        if isinstance(cover, cst.BaseExpression):
            # An expression is replaced whole: `(x)` becomes `where(c, (x), 1.0)`, not a piece of it.
            location = self.detector.lines.location
            return [Edit(new, location(start), location(end))]
        return self._differences(old, new, start) or None

    def _cover(self, nodes: list[cst.CSTNode]) -> cst.CSTNode:
        """The lowest node that holds every replaced node."""
        paths = [[node, *self.index.ancestors(node)][::-1] for node in nodes]
        common = paths[0]
        for path in paths[1:]:
            depth = 0
            while depth < min(len(common), len(path)) and common[depth] is path[depth]:
                depth += 1
            common = common[:depth]
        return common[-1]

    def _indents(self, node: cst.CSTNode, tree: UnitTree) -> list[str]:
        """The indentation libcst writes before the node's lines: that of each block around it."""
        indents = [
            block.indent if block.indent is not None else tree.module.default_indent
            for block in self.index.ancestors(node)
            if isinstance(block, cst.IndentedBlock)
        ]
        return indents[::-1]

    def _differences(self, old: str, new: str, start: int) -> list[Edit]:
        """The edits that turn `old` (at `start` in the file) into `new`: lines added, and within
        changed lines only what changed, never cut inside a name. A statement put before another is
        an insertion of its line; the select after it keeps its place for what maps places through
        the fix (the verification harness finds the select there)."""
        old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
        offsets = [0, *itertools.accumulate(len(line) for line in old_lines)]
        location = self.detector.lines.location
        edits = []
        for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False).get_opcodes():
            if tag == "equal":
                continue
            replaced, content = "".join(old_lines[i1:i2]), "".join(new_lines[j1:j2])
            head, tail = _shared_ends(replaced, content) if tag == "replace" else (0, 0)
            at = start + offsets[i1]
            edits.append(Edit(content[head : len(content) - tail], location(at + head), location(at + len(replaced) - tail)))
        return edits

class _Rewrite(cst.CSTTransformer):
    """Put each replacement in place of the node it replaces (by identity)."""

    def __init__(self, replacements: dict[int, Replacement]) -> None:
        super().__init__()
        self.replacements = replacements

    def on_leave(self, original_node, updated_node):
        replacement = self.replacements.get(id(original_node))
        if replacement is None:
            return updated_node
        return replacement if isinstance(replacement, cst.CSTNode) else replacement(updated_node)


# --- building nodes --------------------------------------------------------------------------------
def _call(func: Node, *args: Node) -> cst.Call:
    return cst.Call(func, [cst.Arg(a) for a in args])


def _member(prefix: Node, name: str) -> cst.Attribute:
    return cst.Attribute(prefix.deep_clone(), cst.Name(name))


def _plain_where(func: Node, qualified: Optional[str], polarity: Optional[bool], op: SingularOp) -> _Spelling:
    """A where that broadcasts, with a literal safe value; TensorFlow's does not promote dtypes, so
    there the safe value is built from the argument itself (`tf.ones_like(x)`)."""
    prefix = func.value if isinstance(func, cst.Attribute) else None
    mask = _where_mask(func, polarity)
    module = qualified.rsplit(".", 1)[0] if qualified else ""
    if module in _TF_MODULES and prefix is not None:
        return _Spelling(mask, _tf_like(prefix, op.safe_value), True)
    literal = _safe_literal(op)
    return _Spelling(mask, lambda _: literal, False)


def _method_where(negate: bool, op: SingularOp) -> _Spelling:
    """`x.where(c, safe)` (torch): keeps x where c holds; the argument is the receiver."""
    literal = _safe_literal(op)
    return _Spelling(lambda c, a, s: _call(cst.Attribute(a, cst.Name("where")), _negated(c) if negate else c, s), lambda _: literal, False, arg_as_receiver=True)


def _safe_literal(op: SingularOp) -> Node:
    return number_literal(op.safe_value, integral=op.key == "remainder")


def _where_mask(func: Node, polarity: Optional[bool]) -> Callable[[Node, Node, Node], Node]:
    if polarity is False:
        return lambda c, a, s: _call(func.deep_clone(), c, s, a)
    return lambda c, a, s: _call(func.deep_clone(), c, a, s)


def _tf_like(prefix: Node, value: float) -> Callable[[Node], Node]:
    if value in (0.0, 1.0):
        name = "ones_like" if value == 1.0 else "zeros_like"
        return lambda a: _call(_member(prefix, name), a)
    return lambda a: cst.BinaryOperation(number_literal(value, False), cst.Multiply(), _call(_member(prefix, "ones_like"), a))


def _negated(cond: Node) -> Node:
    inner = cond if cond.lpar else cond.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return cst.UnaryOperation(cst.BitInvert(), inner)


def _prepared(arg: Node, as_receiver: bool) -> Node:
    """The argument where the mask puts it: as a call argument, or as a method's receiver."""
    atom = isinstance(arg, (cst.Name, cst.Attribute, cst.Call, cst.Subscript)) or bool(arg.lpar)
    if (as_receiver and not atom) or (isinstance(arg, (cst.NamedExpr, cst.GeneratorExp)) and not arg.lpar):
        return arg.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return arg


def _snippet(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def _shared_ends(old: str, new: str) -> tuple[int, int]:
    """How many characters `old` and `new` share at the start and at the end, not cutting a name or
    a number in two."""
    limit = min(len(old), len(new))
    head = 0
    while head < limit and old[head] == new[head]:
        head += 1
    while head > 0 and _in_word(old, head):
        head -= 1
    tail = 0
    while tail < limit - head and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]:
        tail += 1
    while tail > 0 and _in_word(old, len(old) - tail):
        tail -= 1
    return head, tail


def _in_word(text: str, boundary: int) -> bool:
    """Whether a cut at `boundary` falls inside a name or number (`jnp.sq|rt`, `1|.0`)."""
    word = lambda c: c.isalnum() or c in "_."  # noqa: E731
    return 0 < boundary < len(text) and word(text[boundary - 1]) and word(text[boundary])


def _names_in(node: cst.CSTNode) -> list[cst.Name]:
    """Names read or bound under `node`: not attribute names, keyword labels, or the names of
    definitions, parameters and imports."""
    found = []
    stack = [node]
    while stack:
        current = stack.pop()
        kind = type(current)
        if kind is cst.Name:
            found.append(current)
        elif kind is cst.Attribute:
            stack.append(current.value)
        elif kind is cst.Arg:
            stack.append(current.value)
        elif kind in (cst.FunctionDef, cst.ClassDef, cst.Param):
            stack.extend(child for child in children(current) if child is not current.name)
        elif kind is cst.ExceptHandler:
            stack.extend(child for child in children(current) if child is not current.name)
        elif kind not in (cst.Import, cst.ImportFrom):
            stack.extend(children(current))
    return found
