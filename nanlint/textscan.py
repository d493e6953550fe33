"""What a source text tells without parsing it: its imports and where its top-level statements start.

Everything here runs on every checked file, so it is plain `re` and `str` work at C speed; the
parsers only ever see the parts of a file this module points them to.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Optional

from nanlint.catalog import framework_of

# `import a.b as c, d` and `from m import (x as y, z)`: at any indentation, after `;` or `try:`,
# continued by a backslash. Text in strings that looks like an import only adds names: harmless.
_STATEMENT_START = r"(?:^|[;:])[ \t]*"
_NAMES = r"(?:\\\n|[^\n#;\\])+"
_IMPORT = re.compile(_STATEMENT_START + r"import[ \t]+(" + _NAMES + ")", re.M)
_FROM_IMPORT = re.compile(_STATEMENT_START + r"from[ \t]+(\.*[\w.]*)[ \t]+import[ \t]*(\([^)]*\)|" + _NAMES + ")", re.M)
_ALIAS = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")

# A top-level statement starts at column 0 with a name or a decorator; `else:` and friends continue one.
_TOP_LEVEL = re.compile(r"^(?:[A-Za-z_@])", re.M)
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
_DEFINITION = re.compile(r"(?:@|def\b|async[ \t]+def\b|class\b)")
_DEF_NAME = re.compile(r"(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)")
_TRIPLE_QUOTE_OR_COMMENT = re.compile(r"\"\"\"|'''|#")


@dataclass(frozen=True)
class Imports:
    """The names a file's import statements bind (anywhere in it) and the frameworks they come from."""

    names: frozenset[str] = frozenset()
    frameworks: frozenset[str] = frozenset()
    # alias -> the imported name's last part, for `from jax.numpy import sqrt as s`.
    renamed: dict[str, str] = field(default_factory=dict)


def scan_imports(source: str) -> Imports:
    names: set[str] = set()
    frameworks: set[str] = set()
    renamed: dict[str, str] = {}
    for match in _IMPORT.finditer(source):
        for dotted, alias in _ALIAS.findall(match.group(1)):
            names.add(alias or dotted.split(".", 1)[0])
            _note_framework(dotted, frameworks)
            if alias and alias != dotted.rsplit(".", 1)[-1]:
                renamed[alias] = dotted.rsplit(".", 1)[-1]
    for match in _FROM_IMPORT.finditer(source):
        module = match.group(1)
        if module.startswith("."):
            continue  # relative imports name the package itself, never a framework
        _note_framework(module, frameworks)
        for name, alias in _ALIAS.findall(match.group(2).strip("()")):
            names.add(alias or name)
            if alias and alias != name:
                renamed[alias] = name
    return Imports(frozenset(names), frozenset(frameworks), renamed)


def _note_framework(module: str, frameworks: set[str]) -> None:
    framework = framework_of(module)
    if framework is not None:
        frameworks.add(framework)


@dataclass
class Unit:
    """A top-level statement (with its decorators) as a span of lines, 1-based, end inclusive."""

    first: int
    last: int
    start: int  # character offset of its first line
    end: int  # character offset just past its last line
    definition: Optional[str] = None  # the name a `def`/`class` binds; None for any other statement


def top_level_units(source: str) -> Optional[list[Unit]]:
    """The file cut into its top-level statements, or None when the text gives no safe cut.

    A line at column 0 that starts with a name or `@` begins a statement unless it sits inside a
    triple-quoted string. Brackets need no tracking: a `def` or `class` inside brackets is a syntax
    error, and a wrong cut through any other statement leaves text that fails to parse.
    """
    strings = _triple_quoted_spans(source)
    if strings is None:
        return None
    starts = [0]
    decorated = False
    for match in _TOP_LEVEL.finditer(source):
        offset = match.start()
        if offset == 0 or _inside(strings, offset) or _CONTINUATION.match(source, offset):
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


def _triple_quoted_spans(source: str) -> Optional[list[int]]:
    """Sorted [open, close, open, close, ...] offsets of the file's triple-quoted strings, skipping
    comments; None when the quotes do not pair up (a quote inside a one-line string, say)."""
    spans: list[int] = []
    position = 0
    while True:
        match = _TRIPLE_QUOTE_OR_COMMENT.search(source, position)
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
