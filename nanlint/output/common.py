"""Small helpers every output format shares."""

from __future__ import annotations

from pathlib import PurePath

from nanlint.diagnostics import Diagnostic
from nanlint.source_lines import split_lines  # noqa: F401  (re-exported for the formats)



def is_fixable(diagnostic: Diagnostic) -> bool:
    """Whether this run can apply the fix: a display-only fix is advice for a human, and an unsafe
    one counts only with --unsafe-fixes (the command sets `available`)."""
    fix = diagnostic.fix
    return fix is not None and fix.applicability != "display-only" and getattr(fix, "available", True)


def posix_path(filename: str) -> str:
    """The path with forward slashes, as GitHub annotations and SARIF URIs want on every OS."""
    return PurePath(filename).as_posix()


