"""Check one source text or one file: parse, detect, turn sites into diagnostics, apply suppressions."""

from __future__ import annotations

import fnmatch
import io
import os
import stat
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from nanlint.cache import content_hash
from nanlint.catalog.lookup import CatalogView
from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Location
from nanlint.rules import expand_selector, select_codes
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax
from nanlint.config.settings import Settings
from nanlint.prefilter.slicing import FULL, INVALID, NOTHING, SLICED, Slice, slice_source
from nanlint.prefilter.textscan import imports_under_another_name, scan_imports, spelled_calls

if TYPE_CHECKING:
    from nanlint.analysis.detector import Detector


# A file larger than this is not read: it is reported as too large to analyse (exit 2) and the run
# goes on. Generous (the largest file in the benchmark corpus is 0.45 MB; generated tables reach a
# few MiB), and it keeps one pathological file from costing minutes and gigabytes (docs/reliability.md).
MAX_FILE_BYTES = 16 * 1024 * 1024


class LintError(Exception):
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


class Linter:
    """Holds what every file of a run shares: settings, the catalog view, the selected codes."""

    def __init__(self, settings: Settings, *, keep_analysis: bool = False, digests: bool = True) -> None:
        """`digests`: hash each file's bytes, for the result cache to store results under."""
        self.settings = settings
        self.keep_analysis = keep_analysis
        self.digests = digests
        self.catalog = CatalogView(settings)
        self.codes = select_codes(settings.select, settings.ignore, settings.extend_select)
        self._per_file = [
            (pattern, frozenset(c for s in selectors for c in expand_selector(s)))
            for pattern, selectors in settings.per_file_ignores.items()
        ]

    # --- files -------------------------------------------------------------------------------
    def check_path(self, path: Path, display: Optional[str] = None) -> FileResult:
        name = display or str(path)
        try:
            raw = read_source_bytes(path, name)
        except LintError as error:
            return FileResult(name, error=str(error))
        return self.check_bytes(raw, name, path)

    def check_bytes(self, raw: bytes, name: str, path: Optional[Path] = None) -> FileResult:
        """Check a file's bytes (or stdin's), decoded as Python decodes a source file."""
        try:
            check_size(len(raw), name)
            source, encoding = decode_source(raw, name)
        except LintError as error:
            return FileResult(name, error=str(error))
        result = self.check_source(source, name, path=path)
        result.encoding = encoding
        result.digest = content_hash(raw) if self.digests else None
        return result

    def check_source(self, source: str, filename: str, path: Optional[Path] = None) -> FileResult:
        result = FileResult(filename, source)
        ignored = self._ignored_for(path or Path(filename))
        names = self.catalog.select_leaf_names
        if self.settings.parse_whole_files:
            calls = []
            if not any(name in source for name in names):
                return result  # no select is spelled here at all
        else:
            calls = spelled_calls(source, names)
            if not calls and not imports_under_another_name(source, names):
                return result  # cheap text tests first: no select is called here, by any name
        imports = scan_imports(source)
        # What the detector must see: the slice that can hold findings, or (without slicing, or when
        # the text gives no safe cut) the whole file. Without slicing, the text tests are only the
        # plainest one: that path is the reference the others are checked against.
        sliced = Slice(FULL) if self.settings.parse_whole_files else slice_source(source, self.catalog, imports, calls)
        if sliced.kind == INVALID:
            error = sliced.error
            result.diagnostics = [syntax_diagnostic(filename, error.msg, error.lineno or 1, error.offset or 1)]
        elif sliced.kind != NOTHING:
            from nanlint.rules.diagnose import analyse  # here: files the text tests clear never load the detector

            analyse(self, result, sliced.tree if sliced.kind == SLICED else None, imports.frameworks, ignored)
        return result

    def _ignored_for(self, path: Path) -> frozenset[str]:
        if not self._per_file:
            return frozenset()
        try:
            relative = path.resolve().relative_to(self.settings.project_root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        out: set[str] = set()
        for pattern, codes in self._per_file:
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
                out |= codes
        return frozenset(out)


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
                raise LintError(f"nanlint: {name}: {kind}, not checked")
            check_size(info.st_size, name)
            return handle.read(MAX_FILE_BYTES + 1)  # one byte over the limit, should the file have grown
    except OSError as error:
        raise LintError(f"nanlint: cannot read {name}: {error.strerror or error}") from None


def check_size(size: int, name: str) -> None:
    """LintError for source of `size` bytes when that is too large to analyse."""
    if size > MAX_FILE_BYTES:
        limit = MAX_FILE_BYTES // (1024 * 1024)
        raise LintError(f"nanlint: {name}: too large to analyse (over the {limit} MiB limit for one file), not checked")


def decode_source(raw: bytes, name: str) -> tuple[str, str]:
    """Bytes to text as Python itself decodes a source file: BOM, then coding cookie, then UTF-8.
    A NUL byte anywhere makes it a binary file (Python refuses such source too)."""
    if b"\x00" in raw:
        raise LintError(f"nanlint: {name}: binary file, not checked")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise LintError(f"nanlint: {name}: cannot decode: {error}") from None


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


