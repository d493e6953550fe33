"""The human formats: `concise` (one line a finding) and `full` (ruff's header, code frame and help).

Both build rich `Text` lines once; colour or plain is decided only when they are turned into a
string, so the plain output is exactly the coloured one without its escape codes.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, replace

from rich.console import Console
from rich.text import Text

from nanlint.diagnostics import Diagnostic, source_key
from nanlint.fix.model import Applicability, Edit, Location
from nanlint.fix.edits import apply_edits
from nanlint.report.common import is_fixable
from nanlint.source_lines import split_lines

CONTEXT_LINES = 2  # ruff shows two lines either side of the range
MAX_RANGE_LINES = 6  # a longer range keeps its head and tail and elides the middle
RANGE_HEAD, RANGE_TAIL = 3, 2
TAB = "    "

PATH_STYLE = "bold"
SEPARATOR_STYLE = "cyan"
CODE_STYLE = "bold red"
FIXABLE_STYLE = "cyan"
GUTTER_STYLE = "bold blue"
CARET_STYLE = "bold red"
HELP_STYLE = "bold cyan"
NOTE_STYLE = "bold"
REMOVED_STYLE = "red"
ADDED_STYLE = "green"

UNSAFE_NOTE = "This is an unsafe fix and may change runtime behavior"


def render_concise(diagnostics: list[Diagnostic], *, color: bool, width: int) -> str:
    return _to_string([_header(d) for d in diagnostics], color=color, width=width)


def _why_not_applied(d: Diagnostic) -> str | None:
    """Why a fix nanlint only describes cannot be applied (its message, after the title it repeats)."""
    if d.fix is None or d.fix.applicability is not Applicability.DISPLAY_ONLY or not d.fix.message:
        return None
    message = d.fix.message
    if d.fix_title and message.startswith(d.fix_title + ": "):
        message = message[len(d.fix_title) + 2 :]
    return message if message != d.fix_title else None


def render_full(diagnostics: list[Diagnostic], *, sources: dict, color: bool, width: int) -> str:
    lines: list[Text] = []
    split: dict = {}  # each file's (or notebook cell's) lines, split once however many findings it has

    def lines_of(key) -> list[str] | None:
        if key not in split and key in sources:
            split[key] = split_lines(sources[key])
        return split.get(key)

    for d in diagnostics:
        lines.append(_header(d))
        frame_lines = lines_of(d.source_key)
        if frame_lines is not None:
            lines.extend(_frame(d, frame_lines, width))
        if d.fix_title:
            lines.append(Text.assemble(("help:", HELP_STYLE), f" {d.fix_title}"))
        why = _why_not_applied(d)
        if why:
            lines.append(Text.assemble(("note:", NOTE_STYLE), f" not applied automatically: {why}"))
        if frame_lines is not None and d.fix is not None and d.fix.edits:
            # A notebook's fix may edit more than one cell: each cell's edits against its own lines.
            for cell in dict.fromkeys(e.cell for e in d.fix.edits):
                edited = lines_of(source_key(d.filename, cell))
                if edited is not None:
                    lines.extend(_fix_preview([e for e in d.fix.edits if e.cell == cell], edited))
        for related in d.related:
            lines.append(
                Text.assemble(("note:", NOTE_STYLE), " ", _position(d.filename, related.location, related.cell), f" {related.message}")
            )
        if is_fixable(d) and d.fix.applicability is Applicability.UNSAFE:
            lines.append(Text.assemble(("note:", NOTE_STYLE), f" {UNSAFE_NOTE}"))
        # ruff ends every full diagnostic with a blank line, so a summary printed after them stands apart.
        lines.append(Text())
    return _to_string(lines, color=color, width=width)


def _fix_preview(edits: list[Edit], lines: list[str]) -> list[Text]:
    """The lines the edits change, as `-`/`+` pairs, the way ruff shows a fix under its help line."""
    first = min(e.location.row for e in edits)
    last = max(e.end_location.row for e in edits)
    before = lines[first - 1 : last]
    # Only those lines are edited, with the edits' rows counted from the first of them.
    shifted = [replace(e, location=_up(e.location, first - 1), end_location=_up(e.end_location, first - 1)) for e in edits]
    after = split_lines(apply_edits("\n".join(before), shifted))
    rows: list[Text] = []
    for line in before:
        rows.append(Text.assemble(("  - ", REMOVED_STYLE), (_printable(line), REMOVED_STYLE)))
    for line in after:
        rows.append(Text.assemble(("  + ", ADDED_STYLE), (_printable(line), ADDED_STYLE)))
    return rows


def _up(location: Location, rows: int) -> Location:
    return Location(location.row - rows, location.column)


def _header(d: Diagnostic) -> Text:
    text = _position(d.filename, d.location, d.cell)
    text.append(" ")
    text.append(d.code, CODE_STYLE)
    if is_fixable(d):
        text.append_text(Text.assemble(" [", ("*", FIXABLE_STYLE), "]"))
    text.append(f" {d.message}")
    return text


def _position(filename: str, location: Location, cell: int | None = None) -> Text:
    """`path:row:col:`, the shape terminals and editors turn into a link; in a notebook,
    `path:cell N:row:col:`, as ruff writes it."""
    return Text.assemble(
        (filename, PATH_STYLE),
        *([] if cell is None else [(":", SEPARATOR_STYLE), f"cell {cell}"]),
        (":", SEPARATOR_STYLE),
        str(location.row),
        (":", SEPARATOR_STYLE),
        str(location.column),
        (":", SEPARATOR_STYLE),
    )


@dataclass(frozen=True)
class _Row:
    """One source line of the frame: its number, display text and the underlined display span."""

    number: int
    text: str
    underline: tuple[int, int] | None = None


def _frame(d: Diagnostic, lines: list[str], width: int) -> list[Text]:
    rows = _frame_rows(d, lines)
    if not rows:
        return []
    gutter_width = len(str(max(r.number for r in rows if r is not None)))
    # The code column gets what the gutter (`NN | `) leaves of the width, never less than a sliver.
    window = _window(rows, max(width - gutter_width - 3, 20))

    blank_gutter = Text(" " * gutter_width + " |", GUTTER_STYLE)
    out = [blank_gutter]
    for row in rows:
        if row is None:
            out.append(Text("...", GUTTER_STYLE))
            continue
        code = _crop(row.text, window)
        out.append(Text.assemble((f"{row.number:>{gutter_width}} |", GUTTER_STYLE), f" {code}" if code else ""))
        if row.underline is not None:
            start, end = _clip(row.underline, window)
            if end > start:
                out.append(Text.assemble(blank_gutter, " " * (start + 1), ("^" * (end - start), CARET_STYLE)))
    out.append(blank_gutter)
    return out


def _frame_rows(d: Diagnostic, lines: list[str]) -> list[_Row | None]:
    """The rows to show, with `None` where a long range is elided."""
    start, end = d.location, d.end_location
    if not 1 <= start.row <= len(lines):
        return []
    end_row, end_col = max(end.row, start.row), end.column
    if end_row > start.row and end_col == 1:
        # A range that stops at the start of a line (a whole statement with its newline) ends on the line above.
        end_row -= 1
        end_col = len(lines[end_row - 1]) + 1
    end_row = min(end_row, len(lines))

    # The empty string after a final newline is not a line to show as context.
    last_real = len(lines) - 1 if len(lines) > 1 and lines[-1] == "" else len(lines)
    first_shown = max(1, start.row - CONTEXT_LINES)
    last_shown = max(end_row, min(last_real, end_row + CONTEXT_LINES))

    range_rows = list(range(start.row, end_row + 1))
    elided = set()
    if len(range_rows) > MAX_RANGE_LINES:
        elided = set(range_rows[RANGE_HEAD:-RANGE_TAIL])

    rows: list[_Row | None] = []
    for number in range(first_shown, last_shown + 1):
        if number in elided:
            if rows and rows[-1] is not None:
                rows.append(None)
            continue
        raw = lines[number - 1]
        text = _printable(raw)
        underline = None
        if start.row <= number <= end_row:
            single = start.row == end_row
            lo = _display_col(raw, start.column) if number == start.row else _indent(text)
            hi = _display_col(raw, end_col) if number == end_row else len(text)
            if hi <= lo and (single or number == start.row):
                hi = lo + 1  # an empty range (an insertion point) still gets one caret
            underline = (lo, hi)
        rows.append(_Row(number, text, underline))
    return rows


def _printable(line: str) -> str:
    """Tabs become spaces so carets line up; control characters become their visible symbols.

    Source bytes like ESC must never reach the terminal: plain output has to stay free of escape codes.
    """
    out = []
    for ch in line:
        if ch == "\t":
            out.append(TAB)
        elif ord(ch) < 0x20:
            out.append(chr(0x2400 + ord(ch)))
        elif ch == "\x7f":
            out.append("\u2421")
        else:
            out.append(ch)
    return "".join(out)


def _display_col(raw: str, column: int) -> int:
    """0-based display offset of a 1-based character column."""
    return len(_printable(raw[: max(column - 1, 0)])) + max(column - 1 - len(raw), 0)


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _window(rows: list[_Row | None], max_width: int) -> tuple[int, int] | None:
    """One horizontal window for the whole frame, so columns stay aligned; None when all fits."""
    shown = [r for r in rows if r is not None]
    if all(len(r.text) <= max_width for r in shown):
        return None
    starts = [r.underline[0] for r in shown if r.underline is not None]
    start = min(starts) if starts else 0
    lo = 0 if start < max_width * 3 // 4 else start - max_width // 4
    return lo, lo + max_width


def _crop(text: str, window: tuple[int, int] | None) -> str:
    if window is None:
        return text
    lo, hi = window
    piece = text[lo:hi]
    if lo > 0 and piece:
        piece = "…" + piece[1:]
    if len(text) > hi:
        piece = piece[:-1] + "…"
    return piece


def _clip(span: tuple[int, int], window: tuple[int, int] | None) -> tuple[int, int]:
    if window is None:
        return span
    lo, hi = window
    return max(span[0], lo) - lo, min(span[1], hi) - lo


def _to_string(lines: list[Text], *, color: bool, width: int) -> str:
    if not lines:
        return ""
    if not color:
        return "".join(line.plain + "\n" for line in lines)
    buffer = io.StringIO()
    # Everything is decided here, not by the environment: the caller already chose colour, and
    # soft_wrap keeps rich from wrapping a long line, which would break the caret alignment.
    console = Console(
        file=buffer,
        force_terminal=True,
        color_system="standard",
        no_color=False,
        width=width,
        soft_wrap=True,
        highlight=False,
        markup=False,
        emoji=False,
        legacy_windows=False,
    )
    console.print(Text("\n").join(lines))
    return buffer.getvalue()
