"""Small helpers every output format shares."""

from __future__ import annotations

from pathlib import Path, PurePath

from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Applicability, Location



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


def in_file(filename: str, location: Location, cell: int | None, sources: dict) -> Location:
    """Where a place is in the file itself, for the formats whose locations are lines of a file (CI
    annotations, code scanning): for a place in a notebook's cell, the line and column of the
    notebook's JSON that hold it (the file's JSON is `sources[filename]`)."""
    if cell is None or filename not in sources:
        return location
    from nanlint.notebook import file_location

    return file_location(sources[filename], cell, location)


def cell_prefix(d: Diagnostic) -> str:
    """`cell 4:12:9: ` before the message of a finding in a notebook, for the formats whose location is
    a line of the notebook's JSON; nothing for a finding in a `.py` file."""
    return "" if d.cell is None else f"cell {d.cell}:{d.location.row}:{d.location.column}: "
