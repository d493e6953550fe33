"""Turn sorted diagnostics into text for people, CI annotations and machines.

`render` picks the format; each format lives in its own module. Nothing here sorts, filters or
prints: the caller hands diagnostics in the order it wants and writes the string where it wants.
"""

from __future__ import annotations

from nanlint.diagnostics import Diagnostic
from nanlint.output.common import is_fixable
from nanlint.output.github import render_github
from nanlint.output.gitlab import render_gitlab
from nanlint.output.json_formats import render_json, render_json_lines
from nanlint.output.junit import render_junit
from nanlint.output.sarif import render_sarif
from nanlint.output.statistics import render_statistics
from nanlint.output.text import render_concise, render_full

# In ruff's order, for the names both have.
FORMATS = ("full", "concise", "json", "json-lines", "junit", "github", "gitlab", "sarif")
DEFAULT_FORMAT = "full"


def render(
    diagnostics: list[Diagnostic],
    fmt: str,
    *,
    sources: dict[str, str],
    color: bool,
    width: int = 100,
) -> str:
    """The whole output for `diagnostics` in `fmt`; `sources` (filename -> text) feeds `full`'s code
    frames and `gitlab`'s fingerprints.

    `color` and `width` only matter to the human formats; the others are never coloured.
    """
    if fmt == "full":
        return render_full(diagnostics, sources=sources, color=color, width=width)
    if fmt == "concise":
        return render_concise(diagnostics, color=color, width=width)
    if fmt == "json":
        return render_json(diagnostics)
    if fmt == "json-lines":
        return render_json_lines(diagnostics)
    if fmt == "junit":
        return render_junit(diagnostics)
    if fmt == "github":
        return render_github(diagnostics)
    if fmt == "gitlab":
        return render_gitlab(diagnostics, sources=sources)
    if fmt == "sarif":
        return render_sarif(diagnostics)
    raise ValueError(f"unknown output format `{fmt}` (expected one of: {', '.join(FORMATS)})")


__all__ = ["FORMATS", "DEFAULT_FORMAT", "render", "render_statistics", "is_fixable"]
