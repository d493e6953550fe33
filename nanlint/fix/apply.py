"""Apply fixes to a file until nothing changes, without ever writing a broken or half-written file.

Each round checks the current text, applies the non-overlapping fixes that this run allows, and
keeps the result only if it still compiles, every applied fix removed its own finding, and no new
finding appeared where the edits wrote; otherwise the fixes are tried one at a time and the ones
that misbehave are dropped and reported. A finding elsewhere in the file does not judge a fix. A
file that Python does not compile is left alone. (Writing the result: write.py.)
"""

from __future__ import annotations

import ast
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from nanlint.diagnostics import Diagnostic
from nanlint.fix.edits import apply_edits, offset_of
from nanlint.fix.model import overlaps
from nanlint.source_lines import line_starts
from nanlint.files import FileResult
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax

if TYPE_CHECKING:  # the checker drives fixing; fixing needs only its check_source
    from nanlint.check import Checker

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
    linter: "Checker", result: FileResult, *, unsafe_fixes: bool, path: Optional[Path] = None, accept: Optional[Callable] = None
) -> FixOutcome:
    """`accept(candidates, outcome)`, when given, returns the ids of the candidates that may be applied
    (`--fix --verify` passes the verification harness); the others stay findings."""
    source = result.source or ""
    outcome = FixOutcome(source, result)
    rejected: set[tuple] = set()
    if any(d.fix is not None and d.fix.applies(unsafe_fixes) for d in result.diagnostics):
        error = compile_error(source)
        if error is not None:
            outcome.dropped.append(f"nanlint: {result.filename}: not fixed: the file does not compile ({error})")
            return outcome
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
            # Find the fixes that misbehave on their own and drop them. If every one is fine alone
            # (they clash only together), apply the first alone: the next round plans afresh.
            alone = None
            for d in batch:
                single = _attempt(linter, outcome, [d], path)
                if single is None:
                    rejected.add(_key(d))
                    outcome.dropped.append(
                        f"nanlint: {d.filename}:{d.location.row}:{d.location.column}: {d.code} fix not applied: "
                        "it would break the file or its findings"
                    )
                elif alone is None:
                    alone = d, single
            if alone is None:
                continue
            batch, attempt = [alone[0]], alone[1]
        starts = line_starts(outcome.source)
        outcome.rounds.append(
            sorted((offset_of(e.location, starts), offset_of(e.end_location, starts), len(e.content)) for d in batch for e in d.fix.edits)
        )
        outcome.source, outcome.result = attempt
        outcome.applied.update(d.code for d in batch)
    else:
        if any(d.fix is not None and d.fix.applies(unsafe_fixes) and _key(d) not in rejected for d in outcome.result.diagnostics):
            # Fixes that keep making work for each other are nanlint's bug: say so, keep what was done.
            # (Under `--verify`, these may include fixes it would not have accepted.)
            outcome.dropped.append(
                f"nanlint: {result.filename}: fixes did not settle within the round limit ({MAX_ROUNDS}); "
                "the findings still open are left unfixed (please report this)"
            )
    return outcome


def _attempt(linter: "Checker", outcome: FixOutcome, batch: list[Diagnostic], path: Optional[Path]):
    edits = [e for d in batch for e in d.fix.edits]
    new_source = apply_edits(outcome.source, edits)
    if compile_error(new_source) is not None:
        return None
    new_result = linter.check_source(new_source, outcome.result.filename, path=path)
    if new_result.error or any(d.code == InvalidSyntax.CODE for d in new_result.diagnostics):
        return None
    if not _removes_its_findings_and_adds_none(outcome, batch, edits, new_source, new_result):
        return None
    return new_source, new_result


def _removes_its_findings_and_adds_none(outcome: FixOutcome, batch: list[Diagnostic], edits: list, new_source: str, new_result: FileResult) -> bool:
    """Each applied fix removed its own finding, and created no hazard where its edits wrote. A
    finding is the same one before and after when its rule, its place (carried through the edits)
    and the op it is about are. A fix writes no singular op: a new finding inside an edit is about
    an op the file already had, brought to light by the mask (`log(sqrt(x))` masked at `log`
    shows `sqrt(x)`'s own leak; a masked local shows its definition's), and the next round fixes
    it. Only one about an op the file did not have is a hazard the fix made. Findings elsewhere do
    not judge these fixes."""
    old_starts, new_starts = line_starts(outcome.source), line_starts(new_source)
    spans = sorted((offset_of(e.location, old_starts), offset_of(e.end_location, old_starts), len(e.content)) for e in edits)
    found = {_identity(d, offset_of(d.location, new_starts)) for d in new_result.diagnostics}
    if any(_identity(d, _through(offset_of(d.location, old_starts), spans)) in found for d in batch):
        return False
    applied = {id(d) for d in batch}
    kept = {_identity(d, _through(offset_of(d.location, old_starts), spans)) for d in outcome.result.diagnostics if id(d) not in applied}
    for start, end, length in spans:
        written = _through(start, spans)
        for code, offset, op in found - kept:
            if written <= offset <= written + length and op not in outcome.source:
                return False
    return True


def _identity(d: Diagnostic, offset: int) -> tuple[str, int, str]:
    """The rule, the place, and the source of the op a finding is about (its message when the
    finding carries no analysis)."""
    use = getattr(d.site, "use", None)  # a NaN mask (NAN201) may name no producer
    if use is None:
        return d.code, offset, d.message
    from nanlint.analysis.tree import code  # a finding with a site was analysed: libcst is loaded

    return d.code, offset, code(use.node)


def compile_error(source: str) -> Optional[str]:
    """The compiler's own message for a source it rejects, which also catches what the grammar
    allows but Python rejects (`:=` in a comprehension's iterable, for one); None when it compiles."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the user's own `"\\d"` escapes are not the fix's business
            # A top-level `await` is Python in a notebook (IPython runs it), and no fix writes one.
            compile(source, "<nanlint fix>", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as error:
        return f"{error.msg}, line {error.lineno}"
    except (ValueError, RecursionError, MemoryError) as error:
        return str(error) or type(error).__name__
    return None


def _non_overlapping(candidates: list[Diagnostic]) -> list[Diagnostic]:
    """Fixes whose edits do not overlap, the smallest first: of two nested fixes the inner one goes
    first, and the next round tells whether the outer is still needed (`1 / sqrt(x)` needs no mask
    of its divisor once `x` is masked; `log(-expm1(x))` still does once `x` is masked to 0)."""
    chosen: list[Diagnostic] = []
    for d in sorted(candidates, key=_extent):
        if not any(overlaps(d.fix.edits, c.fix.edits) for c in chosen):
            chosen.append(d)
    return chosen


def _extent(d: Diagnostic) -> tuple:
    """How much text a fix replaces (rows, then columns), to order nested fixes."""
    edits = d.fix.edits
    rows = sum(e.end_location.row - e.location.row for e in edits)
    return (rows, sum(abs(e.end_location.column - e.location.column) for e in edits))


def _key(d: Diagnostic) -> tuple:
    return (d.code, d.message, tuple(e.content for e in d.fix.edits))
