"""Small helpers every output format shares."""

from __future__ import annotations

import os
from pathlib import Path, PurePath

from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Applicability



def is_fixable(diagnostic: Diagnostic) -> bool:
    """Whether this run can apply the fix: a display-only fix is advice for a human, and an unsafe
    one counts only with --unsafe-fixes (the command sets `available`)."""
    fix = diagnostic.fix
    return fix is not None and fix.applicability is not Applicability.DISPLAY_ONLY and getattr(fix, "available", True)


def cwd_relative(filename: str) -> tuple[PurePath, bool]:
    """The path relative to the working directory when it lies inside it; and whether it does (or was
    relative already). CI reports link files relative to the checkout."""
    path = PurePath(filename)
    if not path.is_absolute():
        return path, True
    try:
        return Path(path).relative_to(Path.cwd()), True
    except ValueError:
        return path, False


def posix_path(filename: str) -> str:
    """The path with forward slashes, as GitHub annotations want on every OS; printable."""
    return printable_path(PurePath(filename).as_posix())


def printable_path(filename: str) -> str:
    """The name as valid Unicode, for reports that must be UTF-8 (JSON, XML, annotations): the bytes
    of a file name that are not UTF-8, which Python keeps as lone surrogates, are written `\\xNN`."""
    return os.fsencode(filename).decode("utf-8", "backslashreplace")
