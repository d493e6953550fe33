"""`github`: GitHub Actions workflow commands, which the runner turns into annotations on the diff."""

from __future__ import annotations

from nanlint.diagnostics import Diagnostic
from nanlint.files import posix_path
from nanlint.report.common import cell_prefix, in_file


def render_github(diagnostics: list[Diagnostic], *, sources: dict) -> str:
    return "".join(_annotation(d, sources) + "\n" for d in diagnostics)


def _annotation(d: Diagnostic, sources: dict) -> str:
    # In a notebook: the lines of its JSON (what the pull request's diff shows), and the cell in the message.
    start, end = (in_file(d.filename, place, d.cell, sources) for place in (d.location, d.end_location))
    properties = {
        "title": f"nanlint ({d.code})",
        "file": posix_path(d.filename),
        "line": start.row,
        "col": start.column,
        "endLine": end.row,
        "endColumn": end.column,
    }
    joined = ",".join(f"{key}={escape_property(str(value))}" for key, value in properties.items())
    return f"::error {joined}::{escape_data(f'{cell_prefix(d)}{d.code} {d.message}')}"


def escape_data(text: str) -> str:
    """The runner reads a raw newline as the end of the command and `%XX` as an escape."""
    # `%` first, or the escapes added below would be escaped again.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """Properties are split on `,` and `::` ends them, so those are escaped too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")
