"""`--statistics`: one row per rule with its count, ruff's text table or its JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass

from nanlint.diagnostics import Diagnostic
from nanlint.report.common import is_fixable


@dataclass
class RuleStatistic:
    code: str
    name: str
    count: int = 0
    fixable_count: int = 0

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "name": self.name,
            "count": self.count,
            # ruff keeps the boolean `fixable` (every finding fixable) next to `fixable_count`.
            "fixable": self.count == self.fixable_count,
            "fixable_count": self.fixable_count,
        }


def collect_statistics(diagnostics: list[Diagnostic]) -> list[RuleStatistic]:
    """Most frequent rule first; ties keep code order, as ruff's stable sort does."""
    by_code: dict[str, RuleStatistic] = {}
    for d in diagnostics:
        stat = by_code.setdefault(d.code, RuleStatistic(d.code, d.name))
        stat.count += 1
        stat.fixable_count += is_fixable(d)
    ordered = sorted(by_code.values(), key=lambda s: s.code)
    return sorted(ordered, key=lambda s: -s.count)


def render_statistics(diagnostics: list[Diagnostic], fmt: str) -> str:
    stats = collect_statistics(diagnostics)
    if fmt == "json":
        return json.dumps([s.to_json() for s in stats], indent=2) + "\n"
    if not stats:
        return ""
    count_width = len(str(max(s.count for s in stats)))
    code_width = max(len(s.code) for s in stats)
    # The fix column appears only when some rule has a fix, as in ruff (and flake8 before it).
    any_fixable = any(s.fixable_count for s in stats)
    lines = []
    for s in stats:
        marker = ""
        if any_fixable:
            marker = "[*] " if s.fixable_count == s.count else "[-] " if s.fixable_count else "[ ] "
        lines.append(f"{s.count:>{count_width}}\t{s.code:<{code_width}}\t{marker}{s.name}\n")
    return "".join(lines)
