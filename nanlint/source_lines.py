"""Lines of source text, broken where Python's parser breaks them (\r\n, \r, \n)."""

import re
from itertools import accumulate

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
