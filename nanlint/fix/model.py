"""Fixes as data, apart from everything else: a place in a file, a text edit, and a fix with ruff's
applicability levels. This module imports nothing from nanlint, so every stage can use it."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, Iterable, Optional


@dataclass(frozen=True, order=True)
class Location:
    """A 1-based row and column, as ruff prints them."""

    row: int
    column: int

    def to_json(self) -> dict[str, int]:
        return {"row": self.row, "column": self.column}

    @classmethod
    def from_json(cls, data: dict[str, int]) -> "Location":
        return cls(data["row"], data["column"])


class Applicability(str, enum.Enum):
    """ruff's levels: SAFE is applied by --fix, UNSAFE needs --unsafe-fixes, DISPLAY_ONLY never is."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True)
class Edit:
    """Replace the text from `location` to `end_location` (1-based, end exclusive) with `content`."""

    content: str
    location: Location
    end_location: Location
    cell: Optional[int] = None  # in a notebook, as the report shows it: the cell its rows count in

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"content": self.content}
        if self.cell is not None:
            data["cell"] = self.cell
        data.update(location=self.location.to_json(), end_location=self.end_location.to_json())
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Edit":
        return cls(data["content"], Location.from_json(data["location"]), Location.from_json(data["end_location"]), data.get("cell"))


@dataclass
class Fix:
    applicability: Applicability
    message: str
    edits: list[Edit] = field(default_factory=list)
    # Whether this run may apply it (set by the command from --unsafe-fixes); drives the `[*]` marker.
    available: bool = True

    def to_json(self) -> dict[str, Any]:
        return {"applicability": self.applicability.value, "message": self.message, "edits": [e.to_json() for e in self.edits]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Fix":
        return cls(Applicability(data["applicability"]), data["message"], [Edit.from_json(e) for e in data["edits"]])

    def applies(self, unsafe_fixes: bool) -> bool:
        if not self.edits or self.applicability is Applicability.DISPLAY_ONLY:
            return False
        return self.applicability is Applicability.SAFE or unsafe_fixes


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
