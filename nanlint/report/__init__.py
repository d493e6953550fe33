"""Turn sorted diagnostics into text for people, CI annotations and machines.

`render` picks the format; each format lives in its own module. Nothing here sorts, filters or
prints: the caller hands diagnostics in the order it wants and writes the string where it wants.
"""

from __future__ import annotations

import importlib

from nanlint.diagnostics import Diagnostic
from nanlint.report.common import is_fixable
from nanlint.report.statistics import render_statistics

# In ruff's order, for the names both have.
FORMATS = ("full", "concise", "json", "json-lines", "junit", "github", "gitlab", "sarif")
DEFAULT_FORMAT = "full"
# The module that renders each format, imported only when it is used (the text formats need rich).
_MODULES = {
    "full": "text",
    "concise": "text",
    "json": "json_formats",
    "json-lines": "json_formats",
    "junit": "junit",
    "github": "github",
    "gitlab": "gitlab",
    "sarif": "sarif",
}


def prepare(fmt: str) -> None:
    """Import what rendering `fmt` needs; the command does this while the workers check."""
    if fmt in _MODULES:
        importlib.import_module(f"nanlint.report.{_MODULES[fmt]}")


def render(
    diagnostics: list[Diagnostic],
    fmt: str,
    *,
    sources: dict,
    color: bool,
    width: int = 100,
) -> str:
    """The whole output for `diagnostics` in `fmt`; `sources` (`Diagnostic.source_key` -> text) feeds
    `full`'s code frames, `gitlab`'s fingerprints and, for notebooks, the lines of their JSON that
    the CI formats point at.

    `color` and `width` only matter to the human formats; the others are never coloured.
    """
    if fmt not in _MODULES:
        raise ValueError(f"unknown output format `{fmt}` (expected one of: {', '.join(FORMATS)})")
    module = importlib.import_module(f"nanlint.report.{_MODULES[fmt]}")
    if fmt == "full":
        return module.render_full(diagnostics, sources=sources, color=color, width=width)
    if fmt == "concise":
        return module.render_concise(diagnostics, color=color, width=width)
    if fmt == "json":
        return module.render_json(diagnostics)
    if fmt == "json-lines":
        return module.render_json_lines(diagnostics)
    if fmt == "gitlab":
        return module.render_gitlab(diagnostics, sources=sources)
    if fmt == "junit":
        return module.render_junit(diagnostics, sources=sources)
    if fmt == "github":
        return module.render_github(diagnostics, sources=sources)
    return module.render_sarif(diagnostics, sources=sources)


__all__ = ["FORMATS", "DEFAULT_FORMAT", "prepare", "render", "render_statistics", "is_fixable"]
