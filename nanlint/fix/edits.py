"""Edits applied to a text: offsets from 1-based locations, and non-overlapping edits applied at once."""

from __future__ import annotations

from nanlint.fix.model import Edit, Location
from nanlint.source_lines import line_starts


def offset_of(location: Location, starts: list[int]) -> int:
    return starts[location.row - 1] + location.column - 1


def apply_edits(source: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits, last first so earlier offsets stay valid."""
    starts = line_starts(source)
    spans = sorted(((offset_of(e.location, starts), offset_of(e.end_location, starts), e.content) for e in edits), reverse=True)
    out = source
    for start, end, content in spans:
        out = out[:start] + content + out[end:]
    return out
