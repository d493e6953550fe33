"""What a source text tells without parsing it: its imports and where its top-level statements start.

Everything here runs on every checked file, so it is plain `re` and `str` work at C speed; the
parsers only ever see the parts of a file this module points them to.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass, field
from typing import Iterator, Optional

from nanlint.catalog.tables import framework_of

# `import a.b as c, d` and `from m import (x as y, z)`: at any indentation, after `;` or `try:`,
# continued by a backslash. Text in strings that looks like an import only adds names: harmless.
_STATEMENT_START = r"(?:^|[;:])[ \t]*"
_NAMES = r"(?:\\\n|[^\n#;\\])+"
_IMPORT = re.compile(_STATEMENT_START + r"import[ \t]+(" + _NAMES + ")", re.M)
_FROM_IMPORT = re.compile(_STATEMENT_START + r"from[ \t]+(\.*[\w.]*(?:[ \t]*\.[ \t]*\w+)*)[ \t]+import[ \t]*(\((?:[^)#]|#[^\n]*)*\)|" + _NAMES + ")", re.M)
_COMMENT = re.compile(r"#[^\n]*")
_AS = re.compile(r"\bas\b")
_ALIAS = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")
_SPACED_DOT = re.compile(r"[ \t]*\.[ \t]*")  # `jax . numpy` is `jax.numpy`

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


@dataclass(frozen=True)
class Imports:
    """The names a file's import statements bind (anywhere in it) and the frameworks they come from."""

    frameworks: frozenset[str] = frozenset()
    # alias -> the imported name's last part, for `from jax.numpy import sqrt as s`.
    renamed: dict[str, str] = field(default_factory=dict)
    # name -> what it is bound to: `jnp` -> {"jax.numpy"}, `where` -> {"jax.numpy.where"}.
    targets: dict[str, frozenset[str]] = field(default_factory=dict)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.targets)


def scan_imports(source: str) -> Imports:
    frameworks: set[str] = set()
    renamed: dict[str, str] = {}
    targets: dict[str, set[str]] = {}
    for start, end in _import_statement_lines(source):
        for match in _IMPORT.finditer(source, start, end):
            for dotted, alias in _ALIAS.findall(_without_spaced_dots(match.group(1))):
                targets.setdefault(alias or dotted.split(".", 1)[0], set()).add(dotted if alias else dotted.split(".", 1)[0])
                _note_framework(dotted, frameworks)
                if alias and alias != dotted.rsplit(".", 1)[-1]:
                    renamed[alias] = dotted.rsplit(".", 1)[-1]
        for match in _FROM_IMPORT.finditer(source, start, end):
            module = _without_spaced_dots(match.group(1))
            if module.startswith("."):
                continue  # relative imports name the package itself, never a framework
            _note_framework(module, frameworks)
            names = match.group(2)
            for name, alias in _ALIAS.findall((_COMMENT.sub("", names) if "#" in names else names).strip("()")):
                targets.setdefault(alias or name, set()).add(f"{module}.{name}")
                if alias and alias != name:
                    renamed[alias] = name
    return Imports(frozenset(frameworks), renamed, {n: frozenset(t) for n, t in targets.items()})


def _without_spaced_dots(dotted: str) -> str:
    return _SPACED_DOT.sub(".", dotted) if " ." in dotted or ". " in dotted or "\t" in dotted else dotted


def imports_under_another_name(source: str, names: frozenset[str]) -> bool:
    """Whether an import line may bind one of `names` under another name (`where as w`): only then
    can a file that never calls a select by its own name call one."""
    for start, end in _import_statement_lines(source):
        line = source[start:end]
        if _AS.search(line) and any(name in line for name in names):
            return True
    return False


def _import_statement_lines(source: str) -> Iterator[tuple[int, int]]:
    """Spans of the lines that spell `import`, each with what continues it (a backslash, or the
    parentheses of a from-import): the only text the import patterns need to read."""
    position = source.find("import")
    done = -1
    while position >= 0:
        before, after = source[position - 1] if position else " ", source[position + 6 : position + 7]
        if before.isalnum() or before in "_." or after not in _AFTER_IMPORT:  # `important`, `importlib`
            position = source.find("import", position + 6)
            continue
        start = source.rfind("\n", 0, position) + 1
        end = _statement_end(source, position)
        if start > done:
            yield start, end
            done = start
        position = source.find("import", max(end, position + 6))


def _closing_parenthesis(source: str, opening: int) -> int:
    """The `)` that closes a from-import's names, past comments (`# see (x)`); -1 if none."""
    position = opening + 1
    while True:
        close, comment = source.find(")", position), source.find("#", position)
        if comment < 0 or close < comment:
            return close
        position = source.find("\n", comment)
        if position < 0:
            return -1


_AFTER_IMPORT = frozenset(" \t(\\")


def _statement_end(source: str, position: int) -> int:
    after = position + 6
    while after < len(source) and source[after] in " \t":
        after += 1
    if after < len(source) and source[after] == "(":
        close = _closing_parenthesis(source, after)
        if close >= 0:
            after = close
    end = source.find("\n", after)
    while end > 0 and source[end - 1] == "\\":
        end = source.find("\n", end + 1)
    return len(source) if end < 0 else end


def _note_framework(module: str, frameworks: set[str]) -> None:
    framework = framework_of(module)
    if framework is not None:
        frameworks.add(framework)


@dataclass(frozen=True)
class Call:
    """A name spelled as called: `where(` or `.where(`, at `offset` (where the name starts)."""

    offset: int
    name: str
    dotted: bool  # `jnp.where(`, `x.where(`: an attribute (or maybe one), not a bare name


def spelled_calls(source: str, names: frozenset[str]) -> list[Call]:
    """Every place one of `names` is called, by text.

    Each name is found with `str.find` on its shortest part (`max` for `maximum`), which runs at
    memory speed; only the hits are looked at in Python, and most (`max,`, `min)`) at one character.
    """
    calls: list[Call] = []
    for part in _search_parts(names):
        position = source.find(part)
        while position >= 0:
            end = position + len(part)
            if source[end : end + 1] not in _AFTER_A_CALLED_NAME:
                position = source.find(part, end)
                continue
            start = position
            while is_word_char(source, start - 1):
                start -= 1
            end = _WORD_TAIL.match(source, end).end()
            if source[start:end] in names:
                after = skip_space(source, end)
                while after < len(source) and source[after] == ")":  # `(jnp.where)(...)`
                    after = skip_space(source, after + 1)
                if after < len(source) and source[after] == "(":
                    calls.append(Call(start, source[start:end], _is_dotted(source, start)))
            position = source.find(part, end)
    return sorted(calls, key=lambda c: c.offset)


_WORD_TAIL = re.compile(r"\w*")
# What can follow the searched part of a called name: the call, space before it, or more of the name.
_AFTER_A_CALLED_NAME = frozenset("() \t\r\n\\#_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
SPACE = " \t\r\n\\\f"  # what may stand between the parts of one expression


@functools.lru_cache(maxsize=64)
def _search_parts(names: frozenset[str]) -> tuple[str, ...]:
    """The names that contain no other name: finding these finds all (`max` finds `maximum`)."""
    return tuple(sorted(n for n in names if not any(other != n and other in n for other in names)))


def word_offsets(text: str, word: str, whole: bool = True) -> list[int]:
    """Where `word` is spelled as a word of its own, or (not `whole`) as the end of one."""
    found = []
    position = text.find(word)
    while position >= 0:
        end = position + len(word)
        if not is_word_char(text, end) and (not whole or not is_word_char(text, position - 1)):
            found.append(position)
        position = text.find(word, end)
    return found


def is_word_char(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def skip_space(source: str, position: int) -> int:
    """Past spaces, line breaks and comments (a call may be split over lines inside brackets)."""
    while position < len(source):
        char = source[position]
        if char == "#":
            newline = source.find("\n", position)
            position = len(source) if newline < 0 else newline
        elif char in SPACE:
            position += 1
        else:
            break
    return position


def _is_dotted(source: str, start: int) -> bool:
    """`.where` before `(`: a `.` before the name, or a name that starts its line (after a `.` and a
    comment on the line above, maybe), so that a bare name is only ever a name on its own."""
    before = start - 1
    while before >= 0 and source[before] in " \t\f":
        before -= 1
    if before < 0 or source[before] in "\r\n":
        return True
    while before >= 0 and source[before] in SPACE:
        before -= 1
    return before >= 0 and source[before] == "."


@dataclass
class Unit:
    """A top-level statement (with its decorators) as a span of lines, 1-based, end inclusive."""

    first: int
    last: int
    start: int  # character offset of its first line
    end: int  # character offset just past its last line
    definition: Optional[str] = None  # the name a `def`/`class` binds; None for any other statement


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
        members.append(Unit(first, last, start, end))
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


def _inside(spans: list[int], offset: int) -> bool:
    return bisect.bisect_right(spans, offset) % 2 == 1


def unit_index(starts: list[int], offset: int) -> int:
    """The index of the unit holding the character at `offset`, given the units' start offsets."""
    return bisect.bisect_right(starts, offset) - 1
