"""What a check produces: diagnostics with 1-based positions, ready for every output format."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from nanlint.confidence import Confidence
from nanlint.fix.model import Fix, Location

if TYPE_CHECKING:
    from nanlint.analysis.detector import LeakSite
    from nanlint.verify.harness import Verification

DOCS_URL = "https://nanlint.dev/rules/{code}"


def source_key(filename: str, cell: Optional[int]) -> Any:
    """The key of the text that rows count in, in the `sources` a report gets: the file's name, or for a
    place in a notebook's cell, (file name, cell)."""
    return filename if cell is None else (filename, cell)


@dataclass(frozen=True)
class Related:
    """A secondary place that explains a finding (the definition of a leaking local, the select call)."""

    message: str
    location: Location
    end_location: Location
    cell: Optional[int] = None  # in a notebook: the cell its rows count in

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": self.message}
        if self.cell is not None:
            data["cell"] = self.cell
        data.update(location=self.location.to_json(), end_location=self.end_location.to_json())
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Related":
        return cls(data["message"], Location.from_json(data["location"]), Location.from_json(data["end_location"]), data.get("cell"))


@dataclass
class Diagnostic:
    """One finding in one file.

    `site` carries the analysed syntax (select call, branch, singular op, catalog entry) that the
    fixer and the verification harness work from; it is never serialised.
    """

    code: str
    name: str
    message: str
    filename: str
    location: Location
    end_location: Location
    fix_title: Optional[str] = None
    noqa_row: Optional[int] = None
    framework: Optional[str] = None
    op: Optional[str] = None
    branch: Optional[str] = None
    related: list[Related] = field(default_factory=list)
    # Where the select (or clamp, or NaN mask) the finding is about starts: the primary location is
    # the op, or the local a branch names, which may sit in a select nested in it.
    select: Optional[Location] = None
    site: Optional["LeakSite"] = field(default=None, repr=False, compare=False)
    fix: Optional[Fix] = None
    # Set by `nanlint verify` / `--verify`: the XLA verdict on the finding and its fix.
    verification: Optional["Verification"] = None
    # In a notebook, as the report shows it: the cell (from 1, markdown cells counted) its rows count in.
    cell: Optional[int] = None
    # How sure the finding is that the leak can happen (a file's own problems, NAN900, are certain).
    confidence: Confidence = Confidence.HIGH

    @property
    def url(self) -> Optional[str]:
        from nanlint.rules import is_meta_code

        return None if is_meta_code(self.code) else DOCS_URL.format(code=self.code)

    @property
    def source_key(self) -> Any:
        return source_key(self.filename, self.cell)

    def sort_key(self) -> tuple:
        return (self.filename, self.cell or 0, self.location.row, self.location.column, self.code)

    def to_json(self) -> dict[str, Any]:
        """ruff's field names (`cell` only in a notebook), then nanlint's own (`verification` only when it ran)."""
        data: dict[str, Any] = {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": self.filename,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        data.update({
            "location": self.location.to_json(),
            "end_location": self.end_location.to_json(),
            "fix": self.fix.to_json() if self.fix is not None else None,
            "noqa_row": self.noqa_row,
            "url": self.url,
            "framework": self.framework,
            "op": self.op,
            "branch": self.branch,
            "select": self.select.to_json() if self.select is not None else None,
            "related": [r.to_json() for r in self.related],
            "confidence": self.confidence.value,
        })
        if self.verification is not None:
            data["verification"] = self.verification.to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "Diagnostic":
        """The inverse of `to_json` for what a plain check produces (the cache stores that)."""
        return cls(
            code=data["code"],
            name=data["name"],
            message=data["message"],
            filename=data["filename"],
            location=Location.from_json(data["location"]),
            end_location=Location.from_json(data["end_location"]),
            fix_title=data.get("fix_title"),
            noqa_row=data["noqa_row"],
            framework=data["framework"],
            op=data["op"],
            branch=data["branch"],
            select=Location.from_json(data["select"]) if data.get("select") is not None else None,
            related=[Related.from_json(r) for r in data["related"]],
            fix=Fix.from_json(data["fix"]) if data["fix"] is not None else None,
            cell=data.get("cell"),
            confidence=Confidence(data["confidence"]),
        )
