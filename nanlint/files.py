"""A checked file: what checking it gives, how its bytes are read as source, and the one-line errors
a file can have. Every stage that handles whole files reads this; it imports no parser."""

from __future__ import annotations

import io
import os
import stat
import tokenize
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Optional

from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Location
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax

if TYPE_CHECKING:
    from nanlint.analysis.detector import Detector
    from nanlint.notebook import Notebook

NOTEBOOK_SUFFIX = ".ipynb"
# A file larger than this is not read: it is reported as too large to analyse (exit 2) and the run
# goes on. Generous (the largest file in the benchmark corpus is 0.45 MB; generated tables reach a
# few MiB), and it keeps one pathological file from costing minutes and gigabytes (docs/reliability.md).
MAX_FILE_BYTES = 16 * 1024 * 1024


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
    # Other files the findings depend on (a project's modules read for what they re-export).
    depends_on: tuple[str, ...] = ()
    # For a notebook: its cells. `source` is then the module they make, which the diagnostics' rows count in.
    notebook: Optional["Notebook"] = None

    @property
    def file_text(self) -> Optional[str]:
        """What the file holds: the source, or a notebook's JSON."""
        return self.source if self.notebook is None else self.notebook.raw


def is_notebook(path: Path) -> bool:
    return path.suffix.lower() == NOTEBOOK_SUFFIX


def read_source_bytes(path: Path, name: str) -> bytes:
    """The bytes of the regular file at `path`. Its type and size are read from the open descriptor
    before anything else, so a FIFO or a device named `x.py` is never read (that would block
    forever) and a file over MAX_FILE_BYTES is never loaded."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        with open(os.open(path, flags), "rb") as handle:
            info = os.fstat(handle.fileno())
            if not stat.S_ISREG(info.st_mode):
                kind = "a directory" if stat.S_ISDIR(info.st_mode) else "not a regular file"
                raise CheckError(f"nanlint: {name}: {kind}, not checked")
            check_size(info.st_size, name)
            return handle.read(MAX_FILE_BYTES + 1)  # one byte over the limit, should the file have grown
    except OSError as error:
        raise CheckError(f"nanlint: cannot read {name}: {error.strerror or error}") from None


def check_size(size: int, name: str) -> None:
    """CheckError for source of `size` bytes when that is too large to analyse."""
    if size > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        raise CheckError(f"nanlint: {name}: too large to analyse (over the {limit} MiB limit for one file), not checked")


def decode_source(raw: bytes, name: str) -> tuple[str, str]:
    """Bytes to text as Python itself decodes a source file: BOM, then coding cookie, then UTF-8.
    A NUL byte anywhere makes it a binary file (Python refuses such source too)."""
    if b"\x00" in raw:
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


def printable_path(filename: str) -> str:
    """The name as valid Unicode, for reports that must be UTF-8 (JSON, XML, annotations): the bytes
    of a file name that are not UTF-8, which Python keeps as lone surrogates, are written `\\xNN`."""
    return os.fsencode(filename).decode("utf-8", "backslashreplace")


def posix_path(filename: str) -> str:
    """The path with forward slashes, as GitHub annotations want on every OS; printable."""
    return printable_path(PurePath(filename).as_posix())
