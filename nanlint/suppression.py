"""Suppression comments: `# noqa: NAN001`, `# nanlint: ignore[NAN001]`, `# nanlint: file-ignore[...]`.

A bare `# noqa` is common on unrelated long lines, so it silences nanlint only when the user opts in
with `blanket-noqa = true`; the namespaced `# nanlint: ignore` without codes silences every rule.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass, field
from typing import Iterable, Optional

from nanlint.rules import BY_CODE, BY_NAME
from nanlint.source_lines import split_lines

ALL = frozenset({"*"})

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Za-z0-9_\-]+(?:[\s,]+[A-Za-z0-9_\-]+)*))?", re.IGNORECASE)
_ANY_DIRECTIVE = re.compile(r"noqa|nanlint", re.IGNORECASE)
_NANLINT = re.compile(r"#\s*nanlint:\s*(?P<kind>ignore|file-ignore)(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)


@dataclass
class Suppressions:
    # line -> codes silenced by a comment on that line (ALL for every code)
    lines: dict[int, frozenset[str]] = field(default_factory=dict)
    # lines that hold nothing but a comment: they also cover the line below
    own_lines: set[int] = field(default_factory=set)
    file_codes: frozenset[str] = frozenset()

    def covers(self, code: str, lines: Iterable[int], above: Iterable[int] = ()) -> bool:
        if _matches(self.file_codes, code):
            return True
        if any(_matches(self.lines.get(line, frozenset()), code) for line in lines):
            return True
        return any(line - 1 in self.own_lines and _matches(self.lines.get(line - 1, frozenset()), code) for line in above)


def _matches(codes: frozenset[str], code: str) -> bool:
    return "*" in codes or code in codes


def parse_suppressions(source: str, *, blanket_noqa: bool) -> Suppressions:
    found = Suppressions()
    if not _ANY_DIRECTIVE.search(source):
        return found  # most files: no tokenizing needed
    file_codes: set[str] = set()
    for line, text, own_line in _comments(source):
        codes = _codes_in(text, blanket_noqa)
        if codes is None:
            continue
        kind, selected = codes
        if kind == "file-ignore":
            file_codes |= selected
            continue
        previous = found.lines.get(line, frozenset())
        found.lines[line] = previous | selected
        if own_line:
            found.own_lines.add(line)
    found.file_codes = frozenset(file_codes)
    return found


def _codes_in(comment: str, blanket_noqa: bool) -> Optional[tuple[str, frozenset[str]]]:
    match = _NANLINT.search(comment)
    if match:
        return match.group("kind").lower(), _parse_codes(match.group("codes"))
    match = _NOQA.search(comment)
    if match:
        if match.group("codes") is None:
            return ("ignore", ALL) if blanket_noqa else None
        return "ignore", _parse_codes(match.group("codes"))
    return None


def _parse_codes(text: Optional[str]) -> frozenset[str]:
    if text is None or not text.strip():
        return ALL
    codes = set()
    for item in re.split(r"[\s,]+", text.strip()):
        if item.upper() in BY_CODE:
            codes.add(item.upper())
        elif item in BY_NAME:
            codes.add(BY_NAME[item].CODE)
    return frozenset(codes)


def _comments(source: str) -> Iterable[tuple[int, str, bool]]:
    """(line, comment text, whether the line holds only the comment), from the tokenizer.

    Falls back to a line scan when the file does not tokenize (it is then reported as invalid anyway).
    """
    lines = split_lines(source)
    if "\r" in source:
        # The tokenizer's lines end at \n only: give it one per line break, so that rows and columns
        # stay the file's in CRLF and lone-CR (old Mac) files alike.
        source = "\n".join(lines)
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.COMMENT:
                row, col = token.start
                yield row, token.string, not lines[row - 1][:col].strip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        for row, text in enumerate(lines, start=1):
            if "#" in text:
                before, _, comment = text.partition("#")
                yield row, "#" + comment, not before.strip()
