"""Verification as the command uses it: every file of a run in one worker call per framework.

`nanlint verify` and `check --verify` fix each file in memory (nothing is written), verify each select
call against its fixed form, and attach the verdict to the call's findings. `check --fix --verify`
then fixes again, letting through only the fixes that belong to a select call whose fix was proven
there: `verified`, or `verified-select-only` (the fix is right on its select; the report says what of
the function around it nanlint could not follow).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import TYPE_CHECKING, Callable

from nanlint.fix.apply import FixOutcome, fix_source
from nanlint.files import FileResult
from nanlint.verify.harness import select_groups, verify
from nanlint.verify.verdicts import VERIFIED, VERIFIED_SELECT_ONLY, Verification

PROVEN_ON_THE_SELECT = (VERIFIED, VERIFIED_SELECT_ONLY)

if TYPE_CHECKING:  # the checker drives fixing; fixing needs only its check_source
    from nanlint.check import Checker


class VerifiedRun:
    def __init__(self, linter: "Checker", results: list[FileResult], *, unsafe_fixes: bool, dtype: str, timeout_s: float) -> None:
        self.linter = linter
        self.unsafe_fixes = unsafe_fixes
        # Per checked file: its select calls (original offsets, start to end) and their verdicts.
        self._groups: dict[int, list[tuple[int, int, Verification]]] = {}
        pairs = [
            (result, fix_source(linter, result, unsafe_fixes=unsafe_fixes))
            for result in results
            if result.detector is not None and result.diagnostics and result.source is not None
        ]
        verdicts = verify(pairs, dtype=dtype, timeout_s=timeout_s)
        for result, _ in pairs:
            spans = []
            for offset, group in select_groups(result).items():
                end = result.detector.span(group[0].site.select)[1]
                spans.append((offset, end, verdicts[id(group[0])]))
                for d in group:
                    d.verification = verdicts[id(d)]
            self._groups[id(result)] = sorted(spans, key=lambda span: span[0])

    def accept_for(self, result: FileResult) -> Callable:
        """For fix_source: accept a candidate fix only when its select call (found back in the
        original text) verified. Fixes inside a verified call's masks belong to that call."""
        spans = self._groups.get(id(result), [])

        def accept(candidates, outcome: FixOutcome) -> set[int]:
            detector = outcome.result.detector
            allowed = set()
            for d in candidates:
                start = detector.span(d.site.select)[0]
                verdict = _innermost(spans, outcome.to_original(start))
                if verdict is not None and verdict.status in PROVEN_ON_THE_SELECT:
                    allowed.add(id(d))
            return allowed

        return accept

    def attach_to(self, original: FileResult, final: FileResult, outcome: FixOutcome) -> None:
        """Give the findings left after fixing the verdict of the select call they came from."""
        spans = self._groups.get(id(original), [])
        if final.detector is None:
            return
        for d in final.diagnostics:
            if d.site is not None:
                start = final.detector.span(d.site.select)[0]
                d.verification = _innermost(spans, outcome.to_original(start))


def _innermost(spans: list[tuple[int, int, Verification]], offset: int) -> Verification | None:
    """The verdict of the innermost select call whose text contains `offset`."""
    best = None
    for start, end, verdict in spans[: bisect_right([s[0] for s in spans], offset)]:
        if start <= offset < end and (best is None or start >= best[0]):
            best = (start, verdict)
    return best[1] if best else None
