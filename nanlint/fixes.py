"""Fixes as data: text edits with ruff's applicability levels, and how to apply them to a source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from nanlint.diagnostics import Location
from nanlint.source_lines import line_starts

SAFE, UNSAFE, DISPLAY_ONLY = "safe", "unsafe", "display-only"


@dataclass(frozen=True)
class Edit:
    """Replace the text from `location` to `end_location` (1-based, end exclusive) with `content`."""

    content: str
    location: Location
    end_location: Location

    def to_json(self) -> dict[str, Any]:
        return {"content": self.content, "location": self.location.to_json(), "end_location": self.end_location.to_json()}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Edit":
        return cls(data["content"], Location.from_json(data["location"]), Location.from_json(data["end_location"]))


@dataclass
class Fix:
    applicability: str  # SAFE: applied by --fix; UNSAFE: needs --unsafe-fixes; DISPLAY_ONLY: never applied
    message: str
    edits: list[Edit] = field(default_factory=list)
    # Whether this run may apply it (set by the command from --unsafe-fixes); drives the `[*]` marker.
    available: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"applicability": self.applicability, "message": self.message, "edits": [e.to_json() for e in self.edits]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fix":
        return cls(data["applicability"], data["message"], [Edit.from_json(e) for e in data["edits"]])

    def applies(self, unsafe_fixes: bool) -> bool:
        if not self.edits or self.applicability == DISPLAY_ONLY:
            return False
        return self.applicability == SAFE or unsafe_fixes


def offset_of(location: Location, starts: list[int]) -> int:
    return starts[location.row - 1] + location.column - 1


def overlaps(a: Iterable[Edit], b: Iterable[Edit]) -> bool:
    """Whether two groups of edits touch the same text; edits that only abut do not."""
    return any(_touch(x, y) for x in a for y in b)


def _touch(x: Edit, y: Edit) -> bool:
    if x.location == y.location:
        return True  # same start: two insertions there would race
    if max(x.location, y.location) < min(x.end_location, y.end_location):
        return True  # the ranges share text
    # An insertion strictly inside the other edit's range.
    return any(p.location == p.end_location and q.location < p.location < q.end_location for p, q in ((x, y), (y, x)))


def apply_edits(source: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits, last first so earlier offsets stay valid."""
    starts = line_starts(source)
    spans = sorted(((offset_of(e.location, starts), offset_of(e.end_location, starts), e.content) for e in edits), reverse=True)
    out = source
    for start, end, content in spans:
        out = out[:start] + content + out[end:]
    return out
