"""Apply fixes to a file until nothing changes, without ever writing a broken or half-written file.

Each round lints the current text, applies the non-overlapping fixes that this run allows, and keeps
the result only if it still parses and every applied fix removed its finding; otherwise the fixes
are tried one at a time and the ones that misbehave are dropped and reported. (Writing the result: write.py.)
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from nanlint.diagnostics import Diagnostic
from nanlint.fix.edits import apply_edits, offset_of
from nanlint.fix.model import overlaps
from nanlint.source_lines import line_starts
from nanlint.check import FileResult, Checker
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax

MAX_ROUNDS = 100  # as ruff: a fix that needs more rounds than this is not converging


@dataclass
class FixOutcome:
    source: str
    result: FileResult  # the findings left after fixing
    applied: Counter = field(default_factory=Counter)  # code -> fixes applied
    dropped: list[str] = field(default_factory=list)  # one line per fix that was not applied
    # Per round, the edits applied as (start, end, length of the new text), in that round's offsets.
    rounds: list[list[tuple[int, int, int]]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return sum(self.applied.values()) > 0

    def to_final(self, offset: int) -> int:
        """Where a place in the original text is in the fixed text (a place inside an edit: its start)."""
        for edits in self.rounds:
            offset = _through(offset, edits)
        return offset

    def to_original(self, offset: int) -> int:
        """Where a place in the current text was in the original text (inside new text: the edit's start)."""
        for edits in reversed(self.rounds):
            offset = _back(offset, edits)
        return offset


def _through(offset: int, edits: list[tuple[int, int, int]]) -> int:
    shift = 0
    for start, end, length in edits:
        if end <= offset:  # before it, an insertion at the very place too: the text moves right
            shift += length - (end - start)
        elif start <= offset < end:
            return start + shift
    return offset + shift


def _back(offset: int, edits: list[tuple[int, int, int]]) -> int:
    shift = 0
    for start, end, length in sorted(edits):
        new_start = start + shift
        if offset < new_start:
            break
        if offset < new_start + length:
            return start  # inside text an edit wrote
        shift += length - (end - start)
    return offset - shift


def fix_source(
    linter: Checker, result: FileResult, *, unsafe_fixes: bool, path: Optional[Path] = None, accept: Optional[Callable] = None
) -> FixOutcome:
    """`accept(candidates, outcome)`, when given, returns the ids of the candidates that may be applied
    (`--fix --verify` passes the verification harness); the others stay findings."""
    source = result.source or ""
    outcome = FixOutcome(source, result)
    rejected: set[tuple] = set()
    for _ in range(MAX_ROUNDS):
        candidates = [
            d for d in outcome.result.diagnostics if d.fix is not None and d.fix.applies(unsafe_fixes) and _key(d) not in rejected
        ]
        if accept is not None and candidates:
            allowed = accept(candidates, outcome)
            for d in candidates:
                if id(d) not in allowed:
                    rejected.add(_key(d))
            candidates = [d for d in candidates if id(d) in allowed]
        if not candidates:
            break
        batch = _non_overlapping(candidates)
        attempt = _attempt(linter, outcome, batch, path)
        if attempt is None:
            # Find the fixes that misbehave on their own, drop them, and go on with the rest.
            for d in batch:
                if _attempt(linter, outcome, [d], path) is None:
                    rejected.add(_key(d))
                    outcome.dropped.append(
                        f"nanlint: {d.filename}:{d.location.row}:{d.location.column}: {d.code} fix not applied: "
                        "it would break the file or its findings"
                    )
            continue
        starts = line_starts(outcome.source)
        outcome.rounds.append(
            sorted((offset_of(e.location, starts), offset_of(e.end_location, starts), len(e.content)) for d in batch for e in d.fix.edits)
        )
        outcome.source, outcome.result = attempt
        outcome.applied.update(d.code for d in batch)
    return outcome


def _attempt(linter: Checker, outcome: FixOutcome, batch: list[Diagnostic], path: Optional[Path]):
    new_source = apply_edits(outcome.source, [e for d in batch for e in d.fix.edits])
    if not _compiles(new_source):
        return None
    new_result = linter.check_source(new_source, outcome.result.filename, path=path)
    if new_result.error or any(d.code == InvalidSyntax.CODE for d in new_result.diagnostics):
        return None
    # Each fix must remove its own finding and add none: anything else is a fix gone wrong.
    if len(new_result.diagnostics) > len(outcome.result.diagnostics) - len(batch):
        return None
    return new_source, new_result


def _compiles(source: str) -> bool:
    """The compiler's own check, which also catches what the grammar allows but Python rejects
    (`:=` in a comprehension's iterable, for one)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the user's own `"\\d"` escapes are not the fix's business
            compile(source, "<nanlint fix>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _non_overlapping(candidates: list[Diagnostic]) -> list[Diagnostic]:
    chosen: list[Diagnostic] = []
    for d in candidates:
        if not any(overlaps(d.fix.edits, c.fix.edits) for c in chosen):
            chosen.append(d)
    return chosen


def _key(d: Diagnostic) -> tuple:
    return (d.code, d.message, tuple(e.content for e in d.fix.edits))
