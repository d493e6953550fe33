"""A notebook's JSON as text: where each cell's `source` sits in the file, and new sources spliced in.

nbformat's writer re-serialises the whole notebook: its indentation (1), key order (sorted) and
line splitting, not the file's. Notebooks written by VS Code, Colab or older tools differ from that,
so writing through nbformat would rewrite every line of them. Instead, the file's own text is parsed
once more by the standard library's JSON scanner (no hand-written parser), with hooks that record
where each string and array value starts and ends; a fix then replaces only the changed cells'
`source` values, written in the style of the array it replaces. Everything else stays byte for byte.
"""

from __future__ import annotations

import json
import json.decoder
import json.scanner
import re
from bisect import bisect_right
from functools import lru_cache
from typing import Any

from nanlint.fix.model import Location
from nanlint.source_lines import line_starts

_LINE = re.compile(r"[^\n]*\n|[^\n]+")  # Jupyter's split of a source into lines: after each \n


class _Str(str):
    """A string value and its span in the file (from the opening quote to after the closing one)."""

    start: int
    end: int


class _List(list):
    """An array value and its span in the file (from `[` to after `]`)."""

    start: int
    end: int


class NotebookText:
    """The file's text with the spans of its values, parsed once per text."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        self.data: dict[str, Any] = _decoder().decode(raw)
        self._starts = line_starts(raw)
        self._ascii = raw.isascii()  # a file written with \u escapes gets them in new text too

    def source_value(self, cell_index: int) -> Any:
        return self.data["cells"][cell_index]["source"]

    def locate(self, cell_index: int, text_offset: int) -> Location:
        """Where the character at `text_offset` of a cell's source is written in the file; the
        opening quote of its string when the string's escapes are not the ones `json` writes."""
        value = self.source_value(cell_index)
        pieces = value if isinstance(value, list) else [value]
        position = value.start
        for piece in pieces:
            position = piece.start
            if text_offset < len(piece) or piece is pieces[-1]:
                encoded = self._encode(piece[:text_offset])[1:-1]
                if self.raw.startswith(encoded, piece.start + 1):
                    position = piece.start + 1 + len(encoded)
                break
            text_offset -= len(piece)
        row = bisect_right(self._starts, position)
        return Location(row, position - self._starts[row - 1] + 1)

    def with_sources(self, sources: dict[int, str]) -> str:
        """The file with the `source` of each cell in `sources` (cell index -> text) replaced."""
        out = self.raw
        for index in sorted(sources, reverse=True):
            value = self.source_value(index)
            out = out[: value.start] + self._value(value, sources[index]) + out[value.end :]
        expected = json.loads(self.raw)
        for index, text in sources.items():
            cell = expected["cells"][index]
            cell["source"] = _LINE.findall(text) if isinstance(cell["source"], list) else text
        if json.loads(out) != expected:  # only those sources may change, whatever the file holds
            raise ValueError("the new cell sources did not splice into the notebook's JSON")
        return out

    def _value(self, old: Any, text: str) -> str:
        """`text` as a JSON value shaped like `old`: one string, or an array of lines laid out as it."""
        if not isinstance(old, list):
            return self._encode(text)
        lines = [self._encode(line) for line in _LINE.findall(text)]
        if not old or not lines:
            return "[" + ", ".join(lines) + "]"
        opening = self.raw[old.start + 1 : old[0].start]
        closing = self.raw[old[-1].end : old.end - 1]
        separator = self.raw[old[0].end : old[1].start] if len(old) > 1 else "," + opening
        return "[" + opening + separator.join(lines) + closing + "]"

    def _encode(self, text: str) -> str:
        return json.dumps(text, ensure_ascii=self._ascii)


@lru_cache(maxsize=4)
def notebook_text(raw: str) -> NotebookText:
    return NotebookText(raw)


def _decoder() -> json.JSONDecoder:
    """The standard decoder, in its pure-Python scanner, recording the span of each string and array."""
    decoder = json.JSONDecoder()

    def parse_string(text: str, end: int, strict: bool) -> tuple[str, int]:
        value, after = json.decoder.scanstring(text, end, strict)
        found = _Str(value)
        found.start, found.end = end - 1, after
        return found, after

    def parse_array(text_and_end: tuple[str, int], scan_once) -> tuple[list, int]:
        values, after = json.decoder.JSONArray(text_and_end, scan_once)
        found = _List(values)
        found.start, found.end = text_and_end[1] - 1, after
        return found, after

    decoder.parse_string = parse_string
    decoder.parse_array = parse_array
    decoder.scan_once = json.scanner.py_make_scanner(decoder)
    return decoder
