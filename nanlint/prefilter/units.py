"""A file cut into units by its text: top-level statements, and the members of top-level classes.

Each unit is a span of lines the prefilter can parse on its own, and carries the facts the
prefilter asks of it, computed once: its words, the names it defines, its `ast`.
"""

from __future__ import annotations

import ast
import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from nanlint.prefilter.syntax import parsed

# A top-level statement starts at column 0 with a name or a decorator; `else:` and friends continue one.
# (Searched as a newline and the character after it: much faster than `^` in multiline mode.)
_TOP_LEVEL = re.compile(r"\n(?:[^\W\d]|@)")
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_DEFINITION = re.compile(r"(?:@|def\b|async[ \t]+def\b|class\b)")
_DEF_NAME = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")
_TRIPLE_QUOTE_OR_COMMENT = re.compile(r"\"\"\"|'''|#")
_TRIPLE_QUOTE = re.compile(r"\"\"\"|'''")
# A line inside a class that may start a member: indented `def`, `async def`, `class`, or a decorator.
_MEMBER_LINE = re.compile(r"\n([ \t]+)(?:@|def\b|async[ \t]+def\b|class\b)")


_WORD = re.compile(r"\w+")
# What makes a class member parse on its own: the member keeps its indentation under a stand-in class.
MEMBER_WRAPPER = "class _:\n"


@dataclass(eq=False)
class Unit:
    """A top-level statement (with its decorators), or a member of a top-level class, as a span of
    lines (1-based, end inclusive) and of characters."""

    first: int
    last: int
    start: int  # character offset of its first line
    end: int  # character offset just past its last line
    definition: Optional[str] = None  # the name a `def`/`class` binds; None for any other statement
    member: bool = False  # a class member: it parses under MEMBER_WRAPPER
    owner: Optional[int] = None  # a member: the offset of the class it belongs to
    _words: Optional[frozenset[str]] = field(default=None, repr=False)
    _tree: object = field(default=None, repr=False)
    _names: Optional[tuple[frozenset[str], frozenset[str]]] = field(default=None, repr=False)

    def text(self, source: str) -> str:
        return source[self.start : self.end]

    def words(self, source: str) -> frozenset[str]:
        """Every word the unit spells (names, keywords, and words in strings and comments)."""
        if self._words is None:
            self._words = frozenset(_WORD.findall(source, self.start, self.end))
        return self._words

    @property
    def base_line(self) -> int:
        """What to add to a line of `tree()` to get its line in the file."""
        return self.first - 2 if self.member else self.first - 1

    def tree(self, source: str) -> Optional[ast.Module]:
        """The unit parsed on its own (a member: under MEMBER_WRAPPER), its lines counted from its
        own first line (see `base_line`); None when it does not parse on its own."""
        if self._tree is None:
            text = self.text(source)
            self._tree = parsed(MEMBER_WRAPPER + text if self.member else text) or False
        return self._tree or None

    def names(self, source: str) -> frozenset[str]:
        """The names the unit's code spells (read or bound; not attribute names, not words in
        strings or comments); its words when it does not parse on its own."""
        return self._read_names(source)[0]

    def called(self, source: str) -> frozenset[str]:
        """The bare names the unit's code calls (`f(x)`; not a method, `x.f()`); its words when it
        does not parse on its own."""
        return self._read_names(source)[1]

    def _read_names(self, source: str) -> tuple[frozenset[str], frozenset[str]]:
        if self._names is None:
            tree = self.tree(source)
            if tree is None:
                self._names = (self.words(source), self.words(source))
                return self._names
            found, called = set(), set()
            for node in ast.walk(tree):
                kind = type(node)
                if kind is ast.Name:
                    found.add(node.id)
                elif kind is ast.Call and type(node.func) is ast.Name:
                    called.add(node.func.id)
                elif kind is ast.Global or kind is ast.Nonlocal:
                    found.update(node.names)
            self._names = (frozenset(found), frozenset(called))
        return self._names

    def statements(self, source: str) -> Optional[list[ast.stmt]]:
        """The unit's own statements (for a member: those under the stand-in class)."""
        tree = self.tree(source)
        if tree is None:
            return None
        return tree.body[0].body if self.member else tree.body


def top_level_units(source: str, strings: Optional[list[int]] = None) -> Optional[list[Unit]]:
    """The file cut into its top-level statements, or None when the text gives no safe cut.

    A line at column 0 that starts with a name or `@` begins a statement unless it sits inside a
    triple-quoted string (`strings`, from `triple_quoted_spans`). Brackets need no tracking: a `def`
    or `class` inside brackets is a syntax error, and a wrong cut through any other statement leaves
    text that fails to parse.
    """
    strings = triple_quoted_spans(source) if strings is None else strings
    if strings is None:
        return None
    starts = [0]
    decorated = False
    for match in _TOP_LEVEL.finditer(source):
        offset = match.start() + 1
        if _inside(strings, offset) or _CONTINUATION.match(source, offset) or _continued(source, match.start()):
            continue
        if not decorated:
            starts.append(offset)
        decorated = source.startswith("@", offset)
    units: list[Unit] = []
    line = 1
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(source)
        lines = source.count("\n", start, end)
        open_ended = end == len(source) and not source.endswith("\n")  # a last line with no newline
        last = line + lines if open_ended else line + lines - 1
        unit = Unit(line, max(line, last), start, end)
        if _DEFINITION.match(source, start):
            name = _DEF_NAME.search(source, start, end)
            unit.definition = name.group(1) if name else None
        units.append(unit)
        line += lines
    return units


def triple_quoted_spans(source: str) -> Optional[list[int]]:
    """Sorted [open, close, open, close, ...] offsets of the file's triple-quoted strings, skipping
    comments; None when the quotes do not pair up (a quote inside a one-line string, say)."""
    spans = _quotes_paired(source)
    if spans is not None and not any(_after_a_hash(source, offset) for offset in spans):
        found = spans
    else:
        found = _quotes_paired(source, skip_comments=True)  # a `#` before some quote: read comments too
    if found is not None and any(source[offset - 1 : offset] in ("'", '"') for offset in found[0::2]):
        return None  # `"'''"`: a triple quote inside a one-line string pairs with the wrong partner
    return found


def _quotes_paired(source: str, skip_comments: bool = False) -> Optional[list[int]]:
    pattern = _TRIPLE_QUOTE_OR_COMMENT if skip_comments else _TRIPLE_QUOTE
    spans: list[int] = []
    position = 0
    while True:
        match = pattern.search(source, position)
        if match is None:
            return spans
        token = match.group()
        if token == "#":
            newline = source.find("\n", match.end())
            position = len(source) if newline < 0 else newline
            continue
        close = source.find(token, match.end())
        while close > 0 and _escaped(source, close):
            close = source.find(token, close + 1)
        if close < 0:
            return None
        spans += [match.start(), close + 3]
        position = close + 3


def _after_a_hash(source: str, offset: int) -> bool:
    return "#" in source[source.rfind("\n", 0, offset) + 1 : offset]


def class_members(source: str, unit: Unit, strings: list[int]) -> Optional[list[Unit]]:
    """The members of a top-level class (its methods, nested classes, and the statements after
    each) as spans of lines; None when the text gives no clear cut.

    Members start at the class body's indentation with `def`, `async def`, `class` or a decorator,
    outside triple-quoted strings; the body's indentation is the smallest such line's.
    """
    found = [(m.start() + 1, m.group(1)) for m in _MEMBER_LINE.finditer(source, unit.start, unit.end)]
    found = [(offset, indent) for offset, indent in found if not _inside(strings, offset)]
    if not found:
        return None
    indent = min((i for _, i in found), key=len)
    if any(len(i) == len(indent) and i != indent for _, i in found):
        return None  # tabs and spaces mixed: no cut worth trusting
    starts: list[int] = []
    decorated = False
    for offset, member_indent in found:
        if member_indent != indent:
            continue  # nested deeper: part of a member
        if not decorated:
            starts.append(offset)
        decorated = source.startswith("@", offset + len(indent))
    members = []
    first = unit.first + source.count("\n", unit.start, starts[0])
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else unit.end
        last = unit.last if end == unit.end else first + source.count("\n", start, end) - 1
        members.append(Unit(first, last, start, end, member=True, owner=unit.start))
        first = last + 1
    return members


def _continued(source: str, newline: int) -> bool:
    """Whether the line that ends at `newline` ends with a backslash: the next one continues it."""
    before = newline - 1
    if before >= 0 and source[before] == "\r":
        before -= 1
    return before >= 0 and source[before] == "\\"


def _escaped(source: str, offset: int) -> bool:
    backslashes = 0
    while offset - backslashes - 1 >= 0 and source[offset - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


# The header of a compound statement on a line of its own (`    if c:`, `    for x in xs:  # ...`):
# a straight-line function's body has none (`match` and `case`, soft keywords, are left to the parse).
_COMPOUND_HEADER = re.compile(r"^[ \t]+(?:if|elif|else|for|while|with|try|except|finally|def|class|async)\b[^\n]*:[ \t]*(?:#[^\n]*)?$", re.M)


def holds_compound_statement(source: str, unit: Unit, strings: list[int]) -> bool:
    """Whether the unit's text shows an indented compound statement outside triple-quoted strings."""
    return any(not _inside(strings, m.start()) for m in _COMPOUND_HEADER.finditer(source, unit.start, unit.end))


def _inside(spans: list[int], offset: int) -> bool:
    return bisect.bisect_right(spans, offset) % 2 == 1


def unit_index(starts: list[int], offset: int) -> int:
    """The index of the unit holding the character at `offset`, given the units' start offsets."""
    return bisect.bisect_right(starts, offset) - 1
