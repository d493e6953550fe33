"""Jupyter notebooks, checked and fixed as one Python module around the checker for source text.

A notebook's code cells, in order, make one module (imports in a cell count for the cells after it),
with each cell's IPython syntax blanked line for line (magics.py) so that rows and columns inside a
cell stay as they are. The checker and the fix loop see only that module's text. Its findings are
in the module's rows while fixing, verifying and adding ignore comments; the report shows them in
the cell they are in (`for_report`). A cell that does not parse is one NAN900 for that cell and is
blanked in the module, so the other cells are still checked. A fix's new text is cut back into the
cells, their IPython lines restored, and only the changed cells' `source` is written (jsontext.py).

nbformat (imported only when a notebook is read) reads the file: it knows the format's versions and
joins a source split into lines. The schema is not validated: Jupyter opens notebooks that fail it,
and the check needs nothing but the cells.
"""

from __future__ import annotations

import ast
import codecs
import dataclasses
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from nanlint.files import CheckError, FileResult, syntax_diagnostic
from nanlint.diagnostics import Diagnostic, source_key
from nanlint.fix.model import Location
from nanlint.notebook.jsontext import notebook_text
from nanlint.notebook.magics import blank_magics
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax
from nanlint.source_lines import LINE_BREAK, line_starts

if TYPE_CHECKING:
    from nanlint.check import Checker
    from nanlint.fix.apply import FixOutcome


@dataclass
class Cell:
    index: int  # among all the notebook's cells, from 0
    text: str  # its source, as the notebook holds it
    code: str  # what the checker reads: the text with IPython syntax (or, if it does not parse, all) blanked
    first_row: int = 0  # the row of its first line in the module

    @property
    def number(self) -> int:
        """As the report names it: `cell 4` is the fourth cell of the notebook, markdown ones counted."""
        return self.index + 1

    @property
    def ends_line(self) -> bool:
        return self.text.endswith(("\n", "\r"))

    @property
    def segment(self) -> str:
        """Its part of the module: its code, ended by a line break (which its text may lack)."""
        return self.code if self.ends_line else self.code + "\n"


@dataclass
class Notebook:
    raw: str  # the file's text (JSON)
    cells: list[Cell]  # its code cells, in order
    _first_rows: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        row = 1
        for cell in self.cells:
            cell.first_row = row
            row += len(LINE_BREAK.findall(cell.segment))
        self._first_rows = [cell.first_row for cell in self.cells]

    @property
    def source(self) -> str:
        """The module the checker reads."""
        return "".join(cell.segment for cell in self.cells)

    def blank_broken_cells(self, filename: str, select_names: Iterable[str]) -> list[Diagnostic]:
        """A NAN900 for each cell that does not parse, which is then blanked. As for a `.py` file, only a
        notebook that spells a select is parsed: one that never calls one cannot hold a finding."""
        source = self.source
        if not any(name in source for name in select_names):
            return []
        errors = []
        for cell in self.cells:
            try:
                ast.parse(cell.code)
            except SyntaxError as error:
                row = cell.first_row + (error.lineno or 1) - 1
                errors.append(syntax_diagnostic(filename, error.msg, row, error.offset or 1))
            except (ValueError, RecursionError, MemoryError) as error:
                errors.append(syntax_diagnostic(filename, str(error) or "too deeply nested", cell.first_row, 1))
            else:
                continue
            cell.code = "".join(LINE_BREAK.findall(cell.code))
        return errors

    # --- the module's rows and the cells' rows ------------------------------------------------------
    def to_cells(self, d: Diagnostic) -> Diagnostic:
        """`d`, whose places are rows of the module, with places in the cell each is in."""
        cell, location, end = self.in_cell(d.location, d.end_location)
        related = [dataclasses.replace(r, **_fields(*self.in_cell(r.location, r.end_location))) for r in d.related]
        message = d.message
        for before, after in zip(d.related, related):
            # A message that names a related place's row (NAN002's definition) names it in its cell.
            where = f"on line {after.location.row}" + ("" if after.cell == cell.number else f" of cell {after.cell}")
            message = re.sub(rf"\bon line {before.location.row}\b", where, message)
        fix = d.fix
        if fix is not None:
            edits = [dataclasses.replace(e, **_fields(*self.in_cell(e.location, e.end_location))) for e in fix.edits]
            fix = dataclasses.replace(fix, edits=edits)
        noqa_row = None if d.noqa_row is None else d.noqa_row - cell.first_row + 1
        select = None if d.select is None else self.in_cell(d.select, d.select)[1]
        return dataclasses.replace(
            d, message=message, cell=cell.number, location=location, end_location=end, noqa_row=noqa_row, related=related, fix=fix, select=select
        )

    def in_cell(self, location: Location, end: Location) -> tuple[Cell, Location, Location]:
        """The cell that holds `location`, and both places counted in it (an end may lie one line past it)."""
        cell = self.cells[max(bisect_right(self._first_rows, location.row) - 1, 0)]
        return cell, *(Location(place.row - cell.first_row + 1, place.column) for place in (location, end))

    # --- fixed text back into the cells --------------------------------------------------------------
    def fixed_texts(self, outcome: "FixOutcome") -> dict[int, str]:
        """The new source of each cell a fix changed (cell index -> text), cut out of the fixed module at
        the places the cells' ends moved to, with the IPython lines put back where they moved to."""
        fixed = outcome.source
        texts: dict[int, str] = {}
        start = offset = 0
        for cell in self.cells:
            segment = cell.segment
            # An insertion right after a cell's last line break starts the next cell's first statement.
            end = outcome.to_final(offset + len(segment) - 1) + 1
            new = fixed[start:end]
            if new != segment:
                texts[cell.index] = self._restore(cell, new, lambda place, base=offset, at=start: outcome.to_final(base + place) - at)
            start, offset = end, offset + len(segment)
        if start != len(fixed):
            raise ValueError("the fixed text does not end where the last cell does")
        return texts

    @staticmethod
    def _restore(cell: Cell, new: str, moved: Callable[[int], int]) -> str:
        """`new` (a fixed segment of `cell`) with the lines that were blanked as they were in its text;
        `moved` says where a place in the segment is in `new`."""
        starts = line_starts(cell.segment)
        for row, (text, code) in reversed(list(enumerate(zip(LINE_BREAK.split(cell.text), LINE_BREAK.split(cell.code))))):
            if text != code:
                at = moved(starts[row])
                if new[at : at + len(code)] != code:
                    raise ValueError(f"a fix touched the IPython line {row + 1} of cell {cell.number}")
                new = new[:at] + text + new[at + len(code) :]
        if cell.ends_line:
            return new
        if not new.endswith("\n"):
            raise ValueError(f"a fix touched the end of cell {cell.number}")
        return new[:-1]

    def with_texts(self, texts: dict[int, str]) -> str:
        """The file with these cells' (cell index -> text) sources replaced and nothing else changed."""
        return notebook_text(self.raw).with_sources(texts) if texts else self.raw


def _fields(cell: Cell, location: Location, end: Location) -> dict:
    return {"cell": cell.number, "location": location, "end_location": end}


# --- reading and checking ----------------------------------------------------------------------------
def read_notebook(raw: bytes, name: str) -> tuple[Notebook, str]:
    """The notebook in these bytes, and the encoding to write it back in; CheckError (one line) if they
    are not a notebook nanlint can read."""
    encoding = "utf-8-sig" if raw.startswith(codecs.BOM_UTF8) else "utf-8"
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError as error:
        raise CheckError(f"nanlint: {name}: cannot decode: {error}") from None
    import nbformat.reader  # here: checking .py files never loads it

    try:
        node = nbformat.reader.reads(text)
        version = node.get("nbformat")
        cells = node.cells if version == 4 else None
        is_notebook = isinstance(cells, list) and all(isinstance(c.get("source"), str) for c in cells)
    except Exception as error:  # nbformat raises what the JSON leads it into (ValueError, TypeError, ...)
        problem = " ".join(str(error).split())[:200]
        raise CheckError(f"nanlint: {name}: not a Jupyter notebook: {problem}") from None
    if version != 4:
        raise CheckError(f"nanlint: {name}: nbformat {version} notebooks are not supported; upgrade it to nbformat 4 with `jupyter nbconvert --to notebook`")
    if not is_notebook:
        raise CheckError(f"nanlint: {name}: not a Jupyter notebook: its cells are not a list of cells with a source")
    if not _is_python(node.get("metadata", {})):
        return Notebook(text, []), encoding  # an R or Julia notebook holds nothing to check
    code_cells = [Cell(i, c.source, blank_magics(c.source)) for i, c in enumerate(cells) if c.get("cell_type") == "code"]
    return Notebook(text, code_cells), encoding


def _is_python(metadata: Any) -> bool:
    if not isinstance(metadata, dict):
        return True
    language = (metadata.get("language_info") or {}).get("name") or (metadata.get("kernelspec") or {}).get("language")
    return not isinstance(language, str) or language.lower() == "python"


def check_notebook(linter: "Checker", raw: bytes, name: str, path: Optional[Path]) -> FileResult:
    try:
        notebook, encoding = read_notebook(raw, name)
    except CheckError as error:
        return FileResult(name, error=str(error))
    errors = notebook.blank_broken_cells(name, linter.catalog.select_leaf_names)
    result = linter.check_source(notebook.source, name, path=path)
    result.diagnostics = sorted(result.diagnostics + errors, key=Diagnostic.sort_key)
    result.notebook, result.encoding = notebook, encoding
    return result


def fix_notebook(linter: "Checker", result: FileResult, **options) -> "FixOutcome":
    """`fix_source` on the notebook's module (`options` are its keywords). The cells' syntax errors,
    which no fix touches, are set aside while it runs, so that its count of findings stays exact.
    The result it leaves is the fixed notebook's, whose text is `outcome.result.notebook.raw`;
    CheckError when the fixed text cannot be put back into the cells."""
    from nanlint.fix.apply import fix_source

    findings = [d for d in result.diagnostics if d.code != InvalidSyntax.CODE]
    errors = [d for d in result.diagnostics if d.code == InvalidSyntax.CODE]
    outcome = fix_source(linter, dataclasses.replace(result, diagnostics=findings), **options)
    notebook = result.notebook
    if outcome.changed:
        try:
            raw = notebook.with_texts(notebook.fixed_texts(outcome))
        except ValueError as error:
            raise CheckError(f"nanlint: {result.filename}: fixes not written: {error}") from None
        notebook, _ = read_notebook(raw.encode("utf-8"), result.filename)
        errors = notebook.blank_broken_cells(result.filename, linter.catalog.select_leaf_names)
    if notebook.source != outcome.source:  # the cells, read back, must be the module that was checked
        raise CheckError(f"nanlint: {result.filename}: fixes not written: the cells do not read back as the fixed module")
    outcome.result.diagnostics = sorted(outcome.result.diagnostics + errors, key=Diagnostic.sort_key)
    outcome.result.notebook, outcome.result.encoding = notebook, result.encoding
    outcome.dropped = [_in_cell_words(line, result) for line in outcome.dropped]
    return outcome


def _in_cell_words(line: str, result: FileResult) -> str:
    """A line that names a place of the module (`nanlint: nb.ipynb:12:9: ...`) naming it in its cell."""
    match = re.match(rf"nanlint: {re.escape(result.filename)}:(\d+):(\d+):", line)
    if match is None:
        return line
    place = Location(int(match[1]), int(match[2]))
    cell, location, _ = result.notebook.in_cell(place, place)
    return f"nanlint: {result.filename}:cell {cell.number}:{location.row}:{location.column}:" + line[match.end() :]


def with_noqa(result: FileResult) -> tuple[str, int]:
    """The notebook with an ignore comment on each finding's line, cell by cell, and how many lines
    changed; SyntaxError if that breaks a cell that parsed."""
    from nanlint.adoption import add_noqa

    notebook = result.notebook
    by_cell: dict[int, list[Diagnostic]] = {}
    for d in result.diagnostics:
        shown = notebook.to_cells(d)
        by_cell.setdefault(shown.cell, []).append(shown)
    texts: dict[int, str] = {}
    changed = 0
    for cell in notebook.cells:
        if cell.number not in by_cell:
            continue
        text, count = add_noqa(cell.text, by_cell[cell.number])
        if count:
            ast.parse(blank_magics(text), f"{result.filename}:cell {cell.number}")
            texts[cell.index] = text
            changed += count
    return notebook.with_texts(texts), changed


def for_report(result: FileResult) -> tuple[list[Diagnostic], dict[Any, str]]:
    """A file's findings as the report shows them, and the texts their places are in: for a notebook,
    each finding in its cell, each cell's text under (filename, cell number) and the file's JSON
    under its name (the CI formats point at lines of it)."""
    if result.notebook is None:
        return result.diagnostics, {} if result.source is None else {result.filename: result.source}
    notebook = result.notebook
    sources: dict[Any, str] = {result.filename: notebook.raw}
    sources.update((source_key(result.filename, cell.number), cell.text) for cell in notebook.cells)
    return [notebook.to_cells(d) for d in result.diagnostics], sources


def changed_cells(before: Notebook, after: Notebook) -> list[tuple[Cell, Cell]]:
    """The code cells whose source differs, as (before, after)."""
    return [(old, new) for old, new in zip(before.cells, after.cells) if old.text != new.text]


def file_location(raw: str, cell: int, location: Location) -> Location:
    """Where a place in a cell (`cell` numbered as the report numbers it) is in the notebook's JSON."""
    text = notebook_text(raw)
    source = "".join(text.source_value(cell - 1))
    starts = line_starts(source)
    row = min(max(location.row, 1), len(starts))
    return text.locate(cell - 1, min(starts[row - 1] + location.column - 1, len(source)))
