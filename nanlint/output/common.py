"""Small helpers every output format shares."""

from __future__ import annotations

import re
from pathlib import PurePath

from nanlint.diagnostics import Diagnostic

# Python's own line breaks. str.splitlines() would also split on \f, \v and \x1c-\x1e, which
# would shift every row after them away from the rows the checker reported.
LINE_BREAK = re.compile(r"\r\n|\r|\n")


def is_fixable(diagnostic: Diagnostic) -> bool:
    """Whether this run can apply the fix: a display-only fix is advice for a human, and an unsafe
    one counts only with --unsafe-fixes (the command sets `available`)."""
    fix = diagnostic.fix
    return fix is not None and fix.applicability != "display-only" and getattr(fix, "available", True)


def posix_path(filename: str) -> str:
    """The path with forward slashes, as GitHub annotations and SARIF URIs want on every OS."""
    return PurePath(filename).as_posix()


def split_lines(source: str) -> list[str]:
    return LINE_BREAK.split(source)
