"""The part of a file the detector must see, as one `ast` module whose nodes sit at their lines in
the file (so messages, suppressions and fix edits need nothing special). What is kept:
- every top-level statement that is not a `def` or `class` (imports, `if`/`try` blocks: what names
  resolve to), except a plain `NAME = value` whose NAME the kept code never uses;
- each function, and each class member with its class's header and the statements before its first
  member, that the screen says may hold a finding;
- what those depend on: a stand-in `class name: pass` for each top-level definition whose name they
  use (name resolution needs the binding, not the body), and, in files that give functions custom
  derivatives, every statement that could make a kept function a custom primal or a helper of one.

`slice_source` says NOTHING when no finding is possible, FULL when the text gives no safe cut (the
caller then parses the whole file), INVALID with Python's error for a file that does not parse, else
SLICED with the module.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import Optional

from nanlint.catalog.lookup import CatalogView
from nanlint.prefilter.screen import Screen
from nanlint.analysis.syntax import parse
from nanlint.analysis.contexts import AUTOGRAD_BASE_ENDING, PRIMAL_WORDS
from nanlint.prefilter.textscan import (
    Call,
    Imports,
    Unit,
    class_members,
    spelled_calls,
    top_level_units,
    triple_quoted_spans,
    unit_index,
    word_offsets,
)

NOTHING, FULL, SLICED, INVALID = "nothing", "full", "sliced", "invalid"

_DEF_NAMES = re.compile(r"\bdef[ \t]+(\w+)")
_WORD = re.compile(r"\w+")
_ASSIGNMENT = re.compile(r"([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)")
_CHAINED = re.compile(r"\w+[ \t]*=[ \t]*[\w.]+[ \t]*=(?!=)")
# A later line at column 0 that does not close a bracket: maybe a second statement (`(a, b) = f()`).
_ANOTHER_STATEMENT = re.compile(r"\n[^\s#)\]}]")
# The same after a `def` or `class`, for a statement that can bind names: `(a, b) = f()`, `[c] = g()`.
_BINDING_AFTER_DEFINITION = re.compile(r"\n[(\[*]")
_CLASS = re.compile(r"(?:@[^\n]*\n)*class\b")
# The dotted name before a called name on its line (`jnp.` in `jnp.where(`), and what, just before
# it, would make it part of a longer expression (`f(x).`, `a[0].`, `"s".`, `b.c` cut short).
_CHAIN = re.compile(r"([A-Za-z_]\w*(?:[ \t]*\.[ \t]*[A-Za-z_]\w*)*)[ \t]*\.[ \t]*$")
_CHAIN_CONTINUES = re.compile(r"[\w.)\]}'\"]")

@dataclass
class Slice:
    kind: str
    tree: Optional[ast.Module] = None  # for SLICED: the kept statements, at their lines in the file
    error: Optional[SyntaxError] = None  # for INVALID: Python's own message and position


def slice_source(source: str, catalog: CatalogView, imports: Imports, calls: list[Call]) -> Slice:
    """`calls`: where the text calls a select name (`spelled_calls`)."""
    screen = Screen(catalog, imports)
    offsets = _select_calls(source, catalog, imports, calls, screen)
    if not offsets:
        return Slice(NOTHING)
    strings = triple_quoted_spans(source) if source.count("\r") == source.count("\r\n") else None
    units = top_level_units(source, strings) if strings is not None else None
    if units is None:
        return Slice(FULL)  # no safe cut: strings that do not pair up, or lines ended by a lone CR
    starts = [u.start for u in units]
    by_unit: dict[int, list[int]] = {}
    for offset in offsets:
        by_unit.setdefault(unit_index(starts, offset), []).append(offset)
    plan = _Plan(source, units)
    for index, unit_offsets in sorted(by_unit.items()):
        if not plan.screen(index, unit_offsets, screen, strings):
            return _whole_file_verdict(source)
    if not plan.flagged:
        return Slice(NOTHING)
    plan.close_over_dependencies()
    tree = plan.assemble()
    return Slice(SLICED, tree) if tree is not None else _whole_file_verdict(source)


def _select_calls(source: str, catalog: CatalogView, imports: Imports, calls: list[Call], screen: Screen) -> list[int]:
    """Where a select can be called, resolved from the text as the screen resolves the tree: a
    tensor method (`x.where(`), or a name that an import binds to a select (`jnp.where(`,
    `from jax.numpy import where`), also under another name (`where as w`)."""
    names = catalog.select_leaf_names
    aliases = frozenset(alias for alias, name in imports.renamed.items() if name in names and alias not in names)
    if aliases:
        calls = calls + spelled_calls(source, aliases)
    return sorted(c.offset for c in calls if screen.may_call_a_select(_dotted_name(source, c), c.name))


def _dotted_name(source: str, call: Call) -> Optional[list[str]]:
    """`["jnp", "where"]` for `jnp.where(`; None when the text before the name does not show the
    whole of what is called (`f(x).where(`, a name split over lines)."""
    if not call.dotted:
        return [call.name]
    line_start = source.rfind("\n", 0, call.offset) + 1
    chain = _CHAIN.search(source, line_start, call.offset)
    if chain is None or _CHAIN_CONTINUES.match(source[line_start : chain.start()][-1:] or " "):
        return None
    return [*(part.strip() for part in chain.group(1).split(".")), call.name]


def _parse_at(text: str, first_line: int) -> Optional[ast.Module]:
    """Parse a piece of the file so that its nodes carry their lines in the file (the blank lines
    before it cost the tokenizer next to nothing); None when it does not parse on its own."""
    try:
        return parse("\n" * (first_line - 1) + text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _whole_file_verdict(source: str) -> Slice:
    """A statement failed to parse: either the file has a syntax error, or the cut was wrong."""
    try:
        parse(source)
    except SyntaxError as error:
        return Slice(INVALID, error=error)
    except (ValueError, RecursionError, MemoryError):
        pass
    return Slice(FULL)


def _single_name_assigned(text: str) -> Optional[str]:
    """NAME for a statement that binds exactly NAME (`NAME = value`, `NAME: T = value`), else None."""
    match = _ASSIGNMENT.match(text)
    if match is None or ":=" in text or ";" in text or _CHAINED.match(text) or _ANOTHER_STATEMENT.search(text):
        return None
    return match.group(1)


class _Plan:
    """Which units, and which lines inside class units, the slice keeps."""

    def __init__(self, source: str, units: list[Unit]) -> None:
        self.source = source
        self.units = units
        self.flagged = False
        # unit index -> None (the whole unit) or the line spans of class members to leave out.
        self.kept: dict[int, Optional[list[tuple[int, int]]]] = {}
        # `NAME = value` at top level: kept only when kept code uses NAME (a constant, an alias).
        self.assignments: dict[int, str] = {}
        for index, unit in enumerate(units):
            if unit.definition is not None and _BINDING_AFTER_DEFINITION.search(source, unit.start, unit.end):
                self.kept[index] = None  # what follows the definition may bind names the text does not tell
            elif unit.definition is None:
                name = _single_name_assigned(source[unit.start : unit.end])
                if name is None:
                    self.kept[index] = None  # imports, and statements whose bindings the text does not tell
                else:
                    self.assignments[index] = name
        self.stubs: set[int] = set()
        # Trees the screen parsed, to be reused: whole units, and the statements of class members.
        self._trees: dict[int, ast.Module] = {}
        self._members: dict[int, tuple[list[Unit], dict[int, list[ast.stmt]]]] = {}
        self._words: dict[int, set[str]] = {}
        self._defs: dict[int, set[str]] = {}
        self._contexts: Optional[list[int]] = None

    def screen(self, index: int, offsets: list[int], screen: Screen, strings: list[int]) -> bool:
        """Screen the unit that holds select calls at `offsets`; False when its text does not parse."""
        unit = self.units[index]
        if unit.definition is not None and _CLASS.match(self.source, unit.start):
            members = class_members(self.source, unit, strings)
            if members is not None and all(members[0].start <= o for o in offsets):
                verdict = self._screen_members(index, members, offsets, screen)
                if verdict is not None:
                    return verdict
        text = self.source[unit.start : unit.end]
        tree = _parse_at(text, unit.first)
        if tree is None:
            return False
        self._trees[index] = tree
        at, walrus = self._positions(unit, offsets), ":=" in text
        definition = tree.body[0] if unit.definition and len(tree.body) == 1 else None
        if isinstance(definition, ast.ClassDef):
            hit = self._screen_class(index, definition, screen, at, walrus)
        elif definition is not None:
            hit = screen.may_hold_finding(definition, at=at, walrus=walrus)
        else:
            hit = any(screen.may_hold_finding(s, module_level=True, at=at, walrus=walrus) for s in tree.body)
        self._note(index, hit)
        return True

    def _positions(self, unit: Unit, offsets: list[int]) -> list[tuple[int, int]]:
        """Offsets in `unit` as `ast` places them: line in the file, and column in UTF-8 bytes."""
        out = []
        for offset in offsets:
            line_start = self.source.rfind("\n", 0, offset) + 1
            before = self.source[line_start:offset]
            line = unit.first + self.source.count("\n", unit.start, line_start)
            out.append((line, len(before) if before.isascii() else len(before.encode("utf-8"))))
        return out

    def _screen_members(self, index: int, members: list[Unit], offsets: list[int], screen: Screen) -> Optional[bool]:
        """Parse and screen only the members of a class that call a select; None when a member does
        not parse on its own (the caller then parses the whole class)."""
        dropped, hit = [], False
        flagged: dict[int, list[ast.stmt]] = {}
        for member in members:
            inside = [o for o in offsets if member.start <= o < member.end]
            if inside:
                text = self.source[member.start : member.end]
                tree = _parse_at("class _:\n" + text, member.first - 1)
                if tree is None:
                    return None
                if self._screen_body(tree.body[0].body, screen, self._positions(member, inside), ":=" in text):
                    hit = True
                    flagged[member.first] = tree.body[0].body
                    continue
            dropped.append((member.first, member.last))
        if hit:
            self.kept[index] = dropped
            self._members[index] = (members, flagged)
        self._note(index, hit)
        return True

    def _screen_class(self, index: int, node: ast.ClassDef, screen: Screen, at: list[tuple[int, int]], walrus: bool) -> bool:
        """Keep the methods that may hold a finding; class-level statements are kept with them."""
        dropped, hit = [], False
        for member in node.body:
            if self._screen_body([member], screen, at, walrus):
                hit = True
            elif isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([member.lineno] + [d.lineno for d in member.decorator_list])
                dropped.append((first, member.end_lineno))
        if hit:
            self.kept[index] = dropped
        return hit

    @staticmethod
    def _screen_body(statements: list[ast.stmt], screen: Screen, at: list[tuple[int, int]], walrus: bool) -> bool:
        return any(
            screen.may_hold_finding(s, module_level=not isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)), at=at, walrus=walrus)
            for s in statements
        )

    def _note(self, index: int, hit: bool) -> None:
        if hit and index not in self.kept:
            self.kept[index] = None
        self.flagged |= hit

    def close_over_dependencies(self) -> None:
        """Add what the kept code needs: custom-derivative context and the assignments of the names
        it uses, until nothing more is needed; then a stand-in for each definition it names."""
        contexts = bool(self._context_offsets())
        while True:
            if contexts:
                self._close_over_contexts()
            used = set().union(*(self._unit_words(i) for i in self.kept))
            wanted = [i for i, name in self.assignments.items() if i not in self.kept and name in used]
            if not wanted:
                break
            for index in wanted:
                self.kept[index] = None
        for index, unit in enumerate(self.units):
            if index not in self.kept and unit.definition in used:
                self.stubs.add(index)

    def _close_over_contexts(self) -> None:
        """contexts.py decides by name whether a function is a custom primal, and whether a private
        top-level helper is used only by such primals; keep every statement those answers read."""
        starts = [u.start for u in self.units]
        with_context = {unit_index(starts, offset) for offset in self._context_offsets()}
        while True:
            defined = set().union(*(self._def_names(i) for i in self.kept))
            helpers = {self.units[i].definition for i in self.kept if (self.units[i].definition or "").startswith("_")}
            wanted = {i for name in helpers for i in self._units_naming(name, starts)}
            wanted |= {i for i in with_context if self._unit_words(i) & defined}
            wanted = {i for i in wanted if not (i in self.kept and self.kept[i] is None)}
            if not wanted:
                return
            for index in wanted:
                self.kept[index] = None

    def _context_offsets(self) -> list[int]:
        """Where the file spells a context word (found with `str.find`: this runs on every file)."""
        if self._contexts is None:
            found = [offset for word in PRIMAL_WORDS for offset in word_offsets(self.source, word)]
            self._contexts = found + word_offsets(self.source, AUTOGRAD_BASE_ENDING, whole=False)
        return self._contexts

    def _units_naming(self, name: str, starts: list[int]) -> set[int]:
        """The units whose text spells `name` as a word."""
        return {unit_index(starts, offset) for offset in word_offsets(self.source, name)}

    def _def_names(self, index: int) -> set[str]:
        if index not in self._defs:
            unit = self.units[index]
            self._defs[index] = set(_DEF_NAMES.findall(self.source, unit.start, unit.end))
        return self._defs[index]

    def _unit_words(self, index: int) -> set[str]:
        if index not in self._words:
            unit = self.units[index]
            self._words[index] = set(_WORD.findall(self.source, unit.start, unit.end))
        return self._words[index]

    def assemble(self) -> Optional[ast.Module]:
        """The kept statements as one module, each at its line in the file, reusing what the screen
        parsed; None when a piece does not parse on its own (the caller then reads the whole file)."""
        body: list[ast.stmt] = []
        run: list[Unit] = []  # consecutive whole units the screen did not parse: parsed in one go
        for index, unit in enumerate(self.units):
            whole = index in self.kept and not self.kept[index]
            if whole and index not in self._trees:
                run.append(unit)
                continue
            if run and not _extend(body, _parse_units(self.source, run)):
                return None
            run = []
            if whole:
                body += self._trees[index].body
            elif index in self.kept:
                if not _extend(body, self._partial_class(index, self.kept[index])):
                    return None
            elif index in self.stubs:
                body.append(_stand_in(unit))
        if run and not _extend(body, _parse_units(self.source, run)):
            return None
        return ast.Module(body=body, type_ignores=[])

    def _whole(self, index: int) -> Optional[list[ast.stmt]]:
        return self._trees[index].body if index in self._trees else _parse_units(self.source, [self.units[index]])

    def _partial_class(self, index: int, dropped: list[tuple[int, int]]) -> Optional[list[ast.stmt]]:
        """A class with the members the screen cleared left out."""
        if index in self._members:
            members, flagged = self._members[index]
            head = self._class_head(index, members[0])
            if head is not None:
                head.body += [statement for member in members for statement in flagged.get(member.first, [])]
                return [head]
        statements = self._whole(index)
        if statements is None or len(statements) != 1 or not isinstance(statements[0], ast.ClassDef):
            return statements
        starts = {first for first, _ in dropped}
        node = statements[0]
        node.body = [m for m in node.body if _first_line(m) not in starts] or node.body
        return statements

    def _class_head(self, index: int, first_member: Unit) -> Optional[ast.ClassDef]:
        """The class statement with what precedes its first member (docstring, class-level
        statements), parsed on its own."""
        unit = self.units[index]
        line = self.source[first_member.start : self.source.find("\n", first_member.start) + 1 or None]
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        tree = _parse_at(self.source[unit.start : first_member.start] + f"{indent}pass\n", unit.first)
        if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], ast.ClassDef):
            return None
        head = tree.body[0]
        head.body.pop()  # the `pass` that closed the head
        return head


def _parse_units(source: str, units: list[Unit]) -> Optional[list[ast.stmt]]:
    """The statements of consecutive units, parsed together at their lines in the file."""
    tree = _parse_at(source[units[0].start : units[-1].end], units[0].first)
    return tree.body if tree is not None else None


def _extend(body: list[ast.stmt], statements: Optional[list[ast.stmt]]) -> bool:
    if statements is None:
        return False
    body += statements
    return True


def _first_line(statement: ast.stmt) -> int:
    decorators = getattr(statement, "decorator_list", None) or []
    return min([statement.lineno] + [d.lineno for d in decorators])


def _stand_in(unit: Unit) -> ast.ClassDef:
    """`class name: pass` at the definition's first line: the binding kept code needs, without the body."""
    stand_in = parse(f"class {unit.definition}: pass").body[0]
    return ast.increment_lineno(stand_in, unit.first - 1)
