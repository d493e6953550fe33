"""A checked file: what checking it gives, how its bytes are read as source, and the one-line errors
a file can have. Every stage that handles whole files reads this; it imports no parser."""

from __future__ import annotations

import io
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Location
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax

if TYPE_CHECKING:
    from nanlint.analysis.detector import Detector
    from nanlint.notebook import Notebook

NOTEBOOK_SUFFIX = ".ipynb"


class CheckError(Exception):
    """A file that cannot be checked: the message is one line for the user."""


@dataclass
class FileResult:
    filename: str
    source: Optional[str] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: Optional[str] = None
    encoding: str = "utf-8"
    # The file's analysis, kept only when the verification harness will need it (it holds the syntax tree).
    detector: Optional["Detector"] = None
    # The hash of the bytes these results are for: the key the result cache stores them under.
    digest: Optional[str] = None
    # For a notebook: its cells. `source` is then the module they make, which the diagnostics' rows count in.
    notebook: Optional["Notebook"] = None

    @property
    def file_text(self) -> Optional[str]:
        """What the file holds: the source, or a notebook's JSON."""
        return self.source if self.notebook is None else self.notebook.raw


def is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def decode_source(raw: bytes, name: str) -> tuple[str, str]:
    """Bytes to text as Python itself decodes a source file: BOM, then coding cookie, then UTF-8."""
    if b"\x00" in raw[:8192]:
        raise CheckError(f"nanlint: {name}: binary file, not checked")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise CheckError(f"nanlint: {name}: cannot decode: {error}") from None


def syntax_diagnostic(filename: str, message: str, row: int, column: int) -> Diagnostic:
    first_line = (message or "invalid syntax").strip().splitlines()[0]
    location = Location(max(row, 1), max(column, 1))
    return Diagnostic(
        code=InvalidSyntax.CODE,
        name=InvalidSyntax.NAME,
        message=InvalidSyntax.MESSAGE.format(error=first_line),
        filename=filename,
        location=location,
        end_location=location,
        noqa_row=None,
    )


