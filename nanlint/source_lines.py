"""Lines of source text, broken where Python's parser breaks them (\r\n, \r, \n)."""

import re
from bisect import bisect_right
from itertools import accumulate
from typing import Optional

from nanlint.fix.model import Location

# str.splitlines() would also split on \f, \v and \x1c-\x1e, shifting every row after them away from
# the rows the parser reports.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(source: str) -> list[str]:
    return LINE_BREAK.split(source)


def line_starts(source: str) -> list[int]:
    """Offsets where each line begins."""
    if "\r" not in source:  # the common case, several times faster than the pattern
        return [0, *accumulate(len(line) + 1 for line in source.split("\n")[:-1])]
    return [0] + [m.end() for m in LINE_BREAK.finditer(source)]


class LineIndex:
    """Character offsets of a text as 1-based rows and columns (its line starts found on first use)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: Optional[list[int]] = None

    @property
    def starts(self) -> list[int]:
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def location(self, offset: int) -> Location:
        row = bisect_right(self.starts, offset)
        return Location(row, offset - self.starts[row - 1] + 1)

    def row(self, offset: int) -> int:
        return bisect_right(self.starts, offset)
