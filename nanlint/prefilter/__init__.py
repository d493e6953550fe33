"""The prefilter: which parts of a file can hold a finding, decided before libcst reads anything.

One pass per file: text -> units -> screen -> kept units.
1. Text tests (textscan.py): a file that calls no select, by any name, is done.
2. The text is cut into units (units.py): top-level statements, and the members of top-level classes.
3. The units that call a select are parsed with `ast` and screened (screen.py): kept are those where
   a select's branch can see a singular op.
4. Contexts (contexts.py): kept code that is never differentiated (a custom-derivative primal, a
   helper only primals use, a no_grad region) is dropped; what is left of it is a list of spans.
5. What the kept units need to be read correctly is kept too: the top-level statements that bind a
   name they use (imports, constants), the straight-line helpers they call (those imported from
   another module of the tree are read from there by text: helpers.py), and the names of the
   definitions they use (as bare names).

The answer is `Prefiltered`: the units libcst must read, or the whole file when the text gives no
safe cut (or when asked: the reference path), or Python's own error for a file that does not parse.
"""

from __future__ import annotations

import ast
import dataclasses
import enum
import re
from dataclasses import dataclass, field
from typing import Optional

from nanlint.catalog.lookup import Catalog
from nanlint.catalog.tables import NAMESPACE_SELECT
from nanlint.prefilter.contexts import BASE_WORD_ENDINGS, PRIMAL_WORDS, Contexts, may_have_contexts
from nanlint.prefilter.helpers import DEFINITION, FileHelpers, Helper, HelperFinder, checking_def, imported_helpers, straight_line_function
from nanlint.prefilter.reexports import TreeResolver, resolve_imports
from nanlint.prefilter.screen import Reported, Screen
from nanlint.prefilter.syntax import Position, parse
from nanlint.prefilter.stores import may_store, receiver_attributes, receiver_stores
from nanlint.prefilter.textscan import Call, Imports, imports_under_another_name, scan_imports, spelled_calls, word_offsets
from nanlint.prefilter.units import MEMBER_WRAPPER, Unit, class_members, top_level_units, triple_quoted_spans, unit_index

__all__ = ["MEMBER_WRAPPER", "Prefiltered", "Reported", "Unit", "Verdict", "prefilter"]

_CLASS = re.compile(r"(?:@[^\n]*\n)*class\b")
# A later line at column 0 after a `def` or `class` that can bind names: `(a, b) = f()`, `[c] = g()`.
_BINDING_AFTER_DEFINITION = re.compile(r"\n[(\[*]")
# The dotted name before a called name on its line (`jnp.` in `jnp.where(`), and what, just before
# it, would make it part of a longer expression (`f(x).`, `a[0].`, `"s".`, `b.c` cut short).
_CHAIN = re.compile(r"([A-Za-z_]\w*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*\.[ \t]*$")
_CHAIN_CONTINUES = re.compile(r"[\w.)\]}'\"]")
_DEF_NAMES = re.compile(r"\bdef[ \t]+(\w+)")
_CLASS_NAMES = re.compile(r"^[ \t]*class[ \t]+(\w+)", re.MULTILINE)  # a statement, not a word in prose


class Verdict(enum.Enum):
    NOTHING = "nothing"  # no finding is possible
    UNITS = "units"  # every finding lies in the kept units
    WHOLE = "whole"  # read the whole file
    INVALID = "invalid"  # the file does not parse
    TOO_DEEP = "too-deep"  # Python's own parser gives up on it: nothing else is asked to read it


@dataclass
class Prefiltered:
    verdict: Verdict
    imports: Imports = field(default_factory=Imports)
    # What libcst reads, in file order: kept units (UNITS), or one unit that is the whole file (WHOLE).
    units: list[Unit] = field(default_factory=list)
    # Top-level definitions that kept code names but that are not kept: (name, where it starts).
    defined: list[tuple[str, int]] = field(default_factory=list)
    # Character spans of code that is never differentiated.
    never_differentiated: list[tuple[int, int]] = field(default_factory=list)
    # The functions registered as a custom_jvp's rule, by name.
    jvp_rules: frozenset[str] = frozenset()
    error: Optional[SyntaxError] = None  # INVALID: Python's own message and place
    # Straight-line helpers imported from other modules of the tree, by the name the file binds.
    helpers: dict[str, Helper] = field(default_factory=dict)
    # UNITS: every top-level unit of the file, the ones `ast` already read holding their trees.
    cut: list[Unit] = field(default_factory=list, repr=False)

    def syntax_error(self, source: str) -> Optional[SyntaxError]:
        """Python's error when the file does not parse, reading only what the prefilter has not:
        each other unit on its own, and the whole file only when one of them fails (a cut through
        brackets reads as an error that the whole file does not have)."""
        if self.verdict is not Verdict.UNITS:
            return self.error
        if all(unit.tree(source) is not None for unit in self.cut):
            return None
        try:
            parse(source)
        except SyntaxError as error:
            return error
        except (ValueError, RecursionError, MemoryError):
            pass
        return None


def prefilter(
    source: str,
    catalog: Catalog,
    reported: Reported,
    whole: bool = False,
    resolve: Optional[TreeResolver] = None,
    find_helper: Optional[HelperFinder] = None,
) -> Prefiltered:
    """`whole`: skip the screen and read every unit (the reference the fast path is checked against).
    `resolve`: what a project's module stands for (`mylib.backend.numpy` -> `jax.numpy`), if anything.
    `find_helper`: a straight-line helper another module of the tree defines, if one (helpers.py)."""
    names = catalog.select_leaf_names
    if whole or _lone_carriage_returns(source):
        # Lone CRs (old Mac line ends): the text scans find lines by `\n`, so only the plainest test holds.
        if not any(name in source for name in names):
            return Prefiltered(Verdict.NOTHING)
        text = source.replace("\r", "\n")
        return whole_file(source, _imports(text, spelled_calls(text, names), resolve, names, {}), find_helper)
    calls = spelled_calls(source, names)
    if not calls and not imports_under_another_name(source, names):
        return Prefiltered(Verdict.NOTHING)  # cheap text tests first: no select is called here, by any name
    chains: dict[int, Optional[list[str]]] = {}  # each call's dotted name, read once
    imports = _imports(source, calls, resolve, names, chains)
    screen = Screen(catalog, imports, reported)
    offsets = _select_calls(source, catalog, imports, calls, screen, chains)
    if not offsets:
        return Prefiltered(Verdict.NOTHING, imports)
    strings = triple_quoted_spans(source)
    units = top_level_units(source, strings) if strings is not None else None
    if units is None:
        return whole_file(source, imports, find_helper)  # no safe cut: triple quotes that do not pair up
    starts = [u.start for u in units]
    by_unit: dict[int, list[int]] = {}
    for offset in offsets:
        by_unit.setdefault(unit_index(starts, offset), []).append(offset)
    plan = _Plan(source, units, screen, strings)
    screen.helpers = FileHelpers(source, units, strings)
    for index, unit_offsets in sorted(by_unit.items()):
        if not plan.screen(index, unit_offsets):
            return whole_file(source, imports, find_helper)
    if not plan.kept:
        return Prefiltered(Verdict.NOTHING, imports)
    contexts = plan.contexts(imports) if may_have_contexts(source) else ([], frozenset())
    if contexts is None:
        return whole_file(source, imports, find_helper)
    never, jvp_rules = contexts
    plan.drop_never_differentiated(never, by_unit)
    if not plan.kept:
        return Prefiltered(Verdict.NOTHING, imports)
    plan.keep_attribute_stores()
    if not plan.close_over_bindings():
        return whole_file(source, imports, find_helper)
    helpers, read = plan.imported_helpers(imports, find_helper) if find_helper is not None else ({}, set())
    return Prefiltered(Verdict.UNITS, _depending_on(imports, read), plan.kept_units(), plan.defined(), never, jvp_rules, cut=units, helpers=helpers)


def whole_file(source: str, imports: Imports, find_helper: Optional[HelperFinder] = None) -> Prefiltered:
    """The whole file as one unit, with its contexts and the helpers it imports; Python's error when
    it does not parse."""
    try:
        tree = parse(source)
    except SyntaxError as error:
        return Prefiltered(Verdict.INVALID, imports, error=error)
    except (ValueError, RecursionError, MemoryError):
        # libcst's native parser can overflow its stack on such nesting: never hand it what Python refuses.
        return Prefiltered(Verdict.TOO_DEEP, imports)
    contexts = _contexts_of([(tree, 0)], imports) if may_have_contexts(source) else None
    never = _spans(source, contexts.never_differentiated()) if contexts is not None else []
    jvp_rules = contexts.jvp_rules() if contexts is not None else frozenset()
    last = source.count("\n") + (0 if source.endswith("\n") else 1)
    helpers, read = imported_helpers([tree], None, imports, find_helper) if find_helper is not None else ({}, set())
    return Prefiltered(Verdict.WHOLE, _depending_on(imports, read), [Unit(1, max(last, 1), 0, len(source))], [], never, jvp_rules, helpers=helpers)


def _depending_on(imports: Imports, files: set[str]) -> Imports:
    """The imports, with the modules read for helpers among what findings depend on."""
    if files <= set(imports.depends_on):
        return imports
    return dataclasses.replace(imports, depends_on=tuple(sorted(files | set(imports.depends_on))))


def _lone_carriage_returns(source: str) -> bool:
    return "\r" in source and source.count("\r") != source.count("\r\n")


def _imports(source: str, calls: list[Call], resolve: Optional[TreeResolver], names: frozenset[str], chains: dict) -> Imports:
    """The file's imports; those that selects are called through resolved when they name a project's
    module that stands for an array module."""
    imports = scan_imports(source)
    if resolve is None or not imports.targets:
        return imports
    dotted = [chain for call in calls if (chain := _dotted_name(source, call, chains)) is not None]
    wanted = {chain[0] for chain in dotted}
    wanted |= {alias for alias, name in imports.renamed.items() if name in names}  # `where as w`
    namespaces = frozenset(chain[0] for chain in dotted if chain[1:] == [NAMESPACE_SELECT])
    return resolve_imports(imports, wanted, resolve, namespaces)


def _select_calls(source: str, catalog: Catalog, imports: Imports, calls: list[Call], screen: Screen, chains: dict) -> list[int]:
    """Where a select can be called, resolved from the text as the screen resolves the tree: a
    tensor method (`x.where(`), or a name that an import binds to a select (`jnp.where(`,
    `from jax.numpy import where`), also under another name (`where as w`)."""
    names = catalog.select_leaf_names
    aliases = frozenset(alias for alias, name in imports.renamed.items() if name in names and alias not in names)
    if aliases:
        calls = calls + spelled_calls(source, aliases)
    return sorted(c.offset for c in calls if screen.may_call_a_select(_dotted_name(source, c, chains), c.name))


def _dotted_name(source: str, call: Call, chains: dict) -> Optional[list[str]]:
    """`["jnp", "where"]` for `jnp.where(`; None when the text before the name does not show the
    whole of what is called (`f(x).where(`, a name split over lines). Remembered in `chains`."""
    if call.offset not in chains:
        chains[call.offset] = _read_dotted_name(source, call)
    return chains[call.offset]


def _read_dotted_name(source: str, call: Call) -> Optional[list[str]]:
    if not call.dotted:
        return [call.name]
    line_start = source.rfind("\n", 0, call.offset) + 1
    chain = _CHAIN.search(source, line_start, call.offset)
    if chain is None or _CHAIN_CONTINUES.match(source[line_start : chain.start()][-1:] or " "):
        return None
    return [*(part.strip() for part in chain.group(1).split(".")), call.name]


class _Plan:
    """Which units (or which members of class units) the prefilter keeps, and why."""

    def __init__(self, source: str, units: list[Unit], screen: Screen, strings: list[int]) -> None:
        self.source = source
        self.units = units
        self.screen_ = screen
        self.strings = strings
        # unit index -> the kept units it contributes: itself, or some of its members.
        self.kept: dict[int, list[Unit]] = {}
        self._context_offsets: Optional[list[int]] = None

    # --- the screen ---------------------------------------------------------------------------
    def screen(self, index: int, offsets: list[int]) -> bool:
        """Screen the unit that holds select calls at `offsets`; False when its text does not parse."""
        unit = self.units[index]
        if unit.definition is not None and _CLASS.match(self.source, unit.start):
            members = class_members(self.source, unit, self.strings)
            if members is not None and all(members[0].start <= o for o in offsets):
                verdict = self._screen_members(index, members, offsets)
                if verdict is not None:
                    return verdict
        tree = unit.tree(self.source)
        if tree is None:
            return False
        at, walrus = self._positions(unit, offsets), ":=" in unit.text(self.source)
        definition = tree.body[0] if unit.definition and len(tree.body) == 1 else None
        if isinstance(definition, ast.ClassDef):
            kept = self._screen_class(unit, definition, at, walrus)
        elif definition is not None:
            kept = [unit] if self.screen_.may_hold_finding(definition, at=at, walrus=walrus) else []
        else:
            kept = [unit] if any(self.screen_.may_hold_finding(s, module_level=True, at=at, walrus=walrus) for s in tree.body) else []
        if kept:
            self.kept[index] = kept
        return True

    def _positions(self, unit: Unit, offsets: list[int]) -> list[Position]:
        """Offsets in `unit` as `ast` places them: line in the file, and column in UTF-8 bytes."""
        out = []
        for offset in offsets:
            line_start = self.source.rfind("\n", 0, offset) + 1
            before = self.source[line_start:offset]
            line = unit.first - unit.base_line + self.source.count("\n", unit.start, line_start)
            out.append((line, len(before) if before.isascii() else len(before.encode("utf-8"))))
        return out

    def _screen_members(self, index: int, members: list[Unit], offsets: list[int]) -> Optional[bool]:
        """Parse and screen only the members of a class that call a select; None when a member does
        not parse on its own (the caller then parses the whole class)."""
        kept = []
        for member in members:
            inside = [o for o in offsets if member.start <= o < member.end]
            if not inside:
                continue
            statements = member.statements(self.source)
            if statements is None:
                return None
            at, walrus = self._positions(member, inside), ":=" in member.text(self.source)
            flagged = [s for s in statements if self._screen_body([s], at, walrus)]
            if any(not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) for s in flagged):
                kept = [self.units[index]]  # a select at class level: the class is read whole
                break
            if flagged:
                kept.append(member)
        if kept:
            self.kept[index] = kept
        return True

    def _screen_class(self, unit: Unit, node: ast.ClassDef, at: list[Position], walrus: bool) -> list[Unit]:
        """The methods that may hold a finding, each as a member unit; the whole class when a
        statement at class level may."""
        kept = []
        for member in node.body:
            if not self._screen_body([member], at, walrus):
                continue
            if not isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return [unit]
            kept.append(self._member_unit(member, unit))
        return kept

    def _member_unit(self, node: ast.stmt, owner: Unit) -> Unit:
        """A method of a class parsed whole, as a unit of its own lines."""
        first = min([node.lineno] + [d.lineno for d in node.decorator_list]) + owner.base_line
        last = node.end_lineno + owner.base_line
        line_starts = self._line_starts()
        end = line_starts[last] if last < len(line_starts) else len(self.source)
        return Unit(first, last, line_starts[first - 1], end, node.name, member=True, owner=owner.start)

    def _line_starts(self) -> list[int]:
        starts = [0]
        position = self.source.find("\n")
        while position >= 0:
            starts.append(position + 1)
            position = self.source.find("\n", position + 1)
        return starts

    def _screen_body(self, statements: list[ast.stmt], at: list[Position], walrus: bool) -> bool:
        return any(
            self.screen_.may_hold_finding(s, module_level=not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)), at=at, walrus=walrus)
            for s in statements
        )

    # --- contexts -----------------------------------------------------------------------------
    def contexts(self, imports: Imports) -> Optional[tuple[list[tuple[int, int]], frozenset[str]]]:
        """Spans of kept code that is never differentiated, and the JVP rules' names, from the kept
        units and every unit whose text can tell (contexts.py decides by name, so these are found by
        their words); None when one of those does not parse on its own."""
        starts = [u.start for u in self.units]
        with_context = {unit_index(starts, offset) for offset in self._context_word_offsets()}
        # A class may derive from one defined here (`class Points(Base)` after `class Base(Dataset)`):
        # the units that spell a name such a unit defines can tell too.
        grown = with_context
        while grown:
            names = set().union(*(self._class_names(i) for i in grown))
            grown = {i for name in names for i in self._units_naming(name, starts)} - with_context
            with_context |= grown
        # A private method kept alone is used by its class's other methods (`self._step(...)` under a
        # no_grad `step`): the units that name it are read whole, its class included.
        members = {self._member_name(m) for pieces in self.kept.values() for m in pieces if m.member}
        naming_members = {i for name in members if (name or "").startswith("_") for i in self._units_naming(name, starts)}
        visited = set(self.kept) | naming_members
        while True:
            defined = set().union(*(self._def_names(i) for i in visited))
            helpers = {self.units[i].definition for i in visited if (self.units[i].definition or "").startswith("_")}
            wanted = {i for name in helpers for i in self._units_naming(name, starts)}
            wanted |= {i for i in with_context if self.units[i].words(self.source) & defined}
            # A helper they call, which the detector reads at the call unless it is never differentiated.
            called = set().union(*(self.units[i].called(self.source) for i in visited))
            wanted |= {i for i in with_context if self.units[i].definition in called}
            # The base classes defined here that they name.
            spelled = set().union(*(self.units[i].words(self.source) for i in visited))
            wanted |= {i for i in with_context if self._class_names(i) & spelled}
            wanted -= visited
            if not wanted:
                break
            visited |= wanted
        pieces = []
        for index in sorted(visited):
            whole = index not in self.kept or self.kept[index] == [self.units[index]] or index in with_context or index in naming_members
            pieces += [self.units[index]] if whole else self.kept[index]
        trees = [(piece.tree(self.source), piece.base_line) for piece in pieces]
        if any(tree is None for tree, _ in trees):
            return None
        contexts = _contexts_of(trees, imports)
        return _spans(self.source, contexts.never_differentiated()), contexts.jvp_rules()

    def _member_name(self, member: Unit) -> Optional[str]:
        """The name a kept method binds (a member cut by text has no `definition`: it may be a statement)."""
        if member.definition is not None:
            return member.definition
        found = _DEF_NAMES.search(self.source, member.start, member.end)
        return found.group(1) if found else None

    def _context_word_offsets(self) -> list[int]:
        if self._context_offsets is None:
            found = [offset for word in PRIMAL_WORDS for offset in word_offsets(self.source, word)]
            self._context_offsets = found + [offset for ending in BASE_WORD_ENDINGS for offset in word_offsets(self.source, ending, whole=False)]
        return self._context_offsets

    def _units_naming(self, name: str, starts: list[int]) -> set[int]:
        return {unit_index(starts, offset) for offset in word_offsets(self.source, name)}

    def _def_names(self, index: int) -> set[str]:
        unit = self.units[index]
        return set(_DEF_NAMES.findall(self.source, unit.start, unit.end))

    def _class_names(self, index: int) -> set[str]:
        unit = self.units[index]
        return set(_CLASS_NAMES.findall(self.source, unit.start, unit.end))

    def drop_never_differentiated(self, spans: list[tuple[int, int]], by_unit: dict[int, list[int]]) -> None:
        """Drop the kept units (and members) whose every select call is never differentiated."""
        if not spans:
            return
        for index in list(self.kept):
            pieces = [
                piece
                for piece in self.kept[index]
                if not _all_inside([o for o in by_unit[index] if piece.start <= o < piece.end], spans)
            ]
            if pieces:
                self.kept[index] = pieces
            else:
                del self.kept[index]

    # --- what the kept units need -----------------------------------------------------------------
    def keep_attribute_stores(self) -> None:
        """Keep the methods that store into an attribute a kept method reads (`self.radius = radius`
        in `__init__`, for `forward`): what the attribute holds is read from every store of its
        class (analysis/attributes.py), its range too, a library call's included (`self.scale =
        jnp.exp(s)` is positive); the analysis must not see some of its stores only."""
        for index, pieces in list(self.kept.items()):
            unit = self.units[index]
            if pieces == [unit]:
                continue  # the class is read whole
            added = pieces
            read: set[str] = set()
            while added:  # a store kept may read another attribute (`self.a = 2 * self.b`)
                read |= receiver_attributes([s for piece in added for s in piece.statements(self.source) or []])
                kept = {piece.start for piece in pieces}
                added = [
                    member
                    for member in self._members(unit)
                    if member.start not in kept
                    and read
                    and may_store(member.text(self.source), read)
                    and receiver_stores(member.statements(self.source) or [], read)
                ]
                pieces += added
            pieces.sort(key=lambda piece: piece.start)

    def _members(self, unit: Unit) -> list[Unit]:
        """A class's members, cut by text, or (where the text gives no clear cut) its methods."""
        members = class_members(self.source, unit, self.strings)
        if members is not None:
            return members
        tree = unit.tree(self.source)
        body = tree.body[0].body if tree is not None and tree.body and isinstance(tree.body[0], ast.ClassDef) else []
        return [self._member_unit(node, unit) for node in body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]

    def close_over_bindings(self) -> bool:
        """Keep every top-level statement that binds a name kept code uses (imports, constants), every
        straight-line helper it calls (what it returns is read: analysis/inline.py) and every helper
        that checks its parameters on entry (what a call makes sure of is read: analysis/checks.py),
        until nothing more is needed; False when such a statement does not parse on its own."""
        pieces = [piece for pieces in self.kept.values() for piece in pieces]
        used: set[str] = set().union(*(piece.names(self.source) for piece in pieces))
        called: set[str] = set().union(*(piece.called(self.source) for piece in pieces))
        self._binders: dict[int, frozenset[str]] = {}
        changed = True
        while changed:
            changed = False
            for index, unit in enumerate(self.units):
                if index in self.kept or not (unit.words(self.source) & used):
                    continue
                if unit.definition in called and (self._straight_line_helper(unit) or self._checking_helper(unit)):
                    self.kept[index] = [unit]
                    used |= unit.names(self.source)
                    called |= unit.called(self.source)
                    changed = True
                    continue
                if not self._may_bind(unit):
                    continue
                bound = self._bound_names(index)
                if bound is None:
                    return False
                if bound & used or "*" in bound:
                    self.kept[index] = [unit]
                    used |= unit.names(self.source)
                    changed = True
        self._used, self._called = used, called
        return True

    def _straight_line_helper(self, unit: Unit) -> bool:
        """`def _safe(x): return ...`, `def save_exp(x): x = minimum(x, 20.0); return exp(x)`."""
        return bool(DEFINITION.match(self.source, unit.start)) and straight_line_function(unit.tree(self.source)) is not None

    def _checking_helper(self, unit: Unit) -> bool:
        """`def _check(b): if b <= 0: raise ValueError(...)` ..."""
        tree = unit.tree(self.source) if DEFINITION.match(self.source, unit.start) else None
        return tree is not None and len(tree.body) == 1 and checking_def(tree.body[0])

    def imported_helpers(self, imports: Imports, find: HelperFinder) -> tuple[dict[str, Helper], set[str]]:
        """The helpers the kept imports bring in from other modules of the tree, and the files read."""
        statements = [unit for index in sorted(self.kept) for unit in self.kept[index] if unit.definition is None]
        return imported_helpers([unit.tree(self.source) for unit in statements], self._called, imports, find)

    def _may_bind(self, unit: Unit) -> bool:
        """A statement; or a definition followed, in its unit, by a statement that may bind."""
        return unit.definition is None or bool(_BINDING_AFTER_DEFINITION.search(self.source, unit.start, unit.end))

    def _bound_names(self, index: int) -> Optional[frozenset[str]]:
        """The names a top-level statement binds at module level ("*" for `from m import *`)."""
        if index not in self._binders:
            statements = self.units[index].statements(self.source)
            self._binders[index] = None if statements is None else frozenset(_module_bindings(statements))
        return self._binders[index]

    def kept_units(self) -> list[Unit]:
        """The kept units in file order; top-level units that follow each other are joined, so
        that libcst parses them in one go."""
        out: list[Unit] = []
        for piece in (piece for index in sorted(self.kept) for piece in self.kept[index]):
            last = out[-1] if out else None
            if last is not None and not last.member and not piece.member and last.end == piece.start:
                out[-1] = Unit(last.first, piece.last, last.start, piece.end)
            else:
                out.append(piece)
        return out

    def defined(self) -> list[tuple[str, int]]:
        """The top-level definitions kept code names whose own unit is not read whole."""
        out = []
        for index, unit in enumerate(self.units):
            whole = self.kept.get(index) == [unit]
            if unit.definition is not None and not whole and unit.definition in self._used:
                out.append((unit.definition, unit.start))
        return out


def _all_inside(offsets: list[int], spans: list[tuple[int, int]]) -> bool:
    return bool(offsets) and all(any(start <= o < end for start, end in spans) for o in offsets)


def _module_bindings(statements: list[ast.stmt]) -> set[str]:
    """Names that module-level statements bind, including inside `if`/`try`/`for`/`with` blocks; not
    the names bound inside functions or classes they define."""
    bound: set[str] = set()
    stack: list[ast.AST] = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add("*" if node.name == "*" else (node.asname or node.name.split(".", 1)[0]))
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        stack.extend(ast.iter_child_nodes(node))
    return bound


def _contexts_of(trees: list[tuple[ast.Module, int]], imports: Imports) -> Contexts:
    """What contexts.py finds in these trees, each given with what to add to its lines; dotted names
    are read through the file's imports."""
    contexts = Contexts(ast.unparse, lambda dotted: imports.qualified(dotted.split(".")))
    for tree, base_line in trees:
        contexts.visit(tree, base_line)
    return contexts


def _spans(source: str, places: list[tuple[Position, Position]]) -> list[tuple[int, int]]:
    """`ast` places (line, UTF-8 byte column) as character offsets in `source`."""
    if not places:
        return []
    starts = [0] + [m.end() for m in re.finditer(r"\n", source)]

    def offset(place: Position) -> int:
        line, column = place
        start = starts[line - 1] if line - 1 < len(starts) else len(source)
        text = source[start : start + column]
        if not text.isascii():
            text = source[start:].encode("utf-8")[:column].decode("utf-8", errors="ignore")
        return start + len(text)

    return sorted((offset(start), offset(end)) for start, end in places)

