"""Adopting nanlint on an existing code base: silence today's findings, fail only on new ones.

`--add-noqa` writes `# nanlint: ignore[CODE]` on each finding's line; a baseline file records the
findings' fingerprints (nanlint/fingerprint.py) so that `--baseline` reports only new ones.
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

from nanlint.diagnostics import Diagnostic
from nanlint.fingerprint import fingerprints
from nanlint.files import posix_path
from nanlint.source_lines import LINE_BREAK

BASELINE_VERSION = 1
_EXISTING = re.compile(r"#\s*nanlint:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)


class BaselineError(Exception):
    """A baseline file that cannot be read; one line for the user."""


# --- noqa -------------------------------------------------------------------------------------------
def add_noqa(source: str, diagnostics: list[Diagnostic]) -> tuple[str, int]:
    """The source with an ignore comment for every finding, and how many lines changed."""
    codes_by_row: dict[int, set[str]] = defaultdict(set)
    for d in diagnostics:
        if d.noqa_row is not None:
            codes_by_row[d.noqa_row].add(d.code)
    parts = LINE_BREAK.split(source)
    breaks = LINE_BREAK.findall(source)
    changed = 0
    for row in sorted(codes_by_row, reverse=True):
        line = parts[row - 1]
        existing = _EXISTING.search(line)
        if existing:
            codes = sorted(codes_by_row[row] | {c.strip() for c in existing.group("codes").split(",") if c.strip()})
            updated = line[: existing.start()] + f"# nanlint: ignore[{', '.join(codes)}]" + line[existing.end() :]
        elif line.rstrip().endswith("\\"):
            # A comment cannot follow a line continuation: put it on its own line above.
            indent = line[: len(line) - len(line.lstrip())]
            newline = breaks[row - 1] if row - 1 < len(breaks) else "\n"
            updated = f"{indent}# nanlint: ignore[{', '.join(sorted(codes_by_row[row]))}]{newline}{line}"
        else:
            updated = f"{line.rstrip()}  # nanlint: ignore[{', '.join(sorted(codes_by_row[row]))}]"
        if updated != line:
            parts[row - 1] = updated
            changed += 1
    out = "".join(part + (breaks[i] if i < len(breaks) else "") for i, part in enumerate(parts))
    return out, changed


# --- baseline ---------------------------------------------------------------------------------------
def write_baseline(path: Path, diagnostics: list[Diagnostic], sources: dict[str, str], root: Path) -> None:
    prints = fingerprints(diagnostics, sources, root=root)
    entries = [
        {"fingerprint": prints[id(d)], "code": d.code, "filename": _relative(d.filename, root), "message": d.message}
        for d in diagnostics
    ]
    path.write_text(json.dumps({"version": BASELINE_VERSION, "findings": entries}, indent=2) + "\n", encoding="utf-8")


def read_baseline(path: Path) -> Counter:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("version") != BASELINE_VERSION:
            raise BaselineError(f"{path}: unsupported baseline version {data.get('version')!r}")
        return Counter(entry["fingerprint"] for entry in data["findings"])
    except OSError as error:
        raise BaselineError(f"cannot read baseline {path}: {error.strerror or error}") from None
    except (ValueError, KeyError, TypeError, AttributeError):
        raise BaselineError(f"{path}: not a nanlint baseline file") from None


def new_findings(diagnostics: list[Diagnostic], sources: dict[str, str], baseline: Counter, root: Path) -> list[Diagnostic]:
    """The findings the baseline does not already account for (each baselined one absorbs one match)."""
    prints = fingerprints(diagnostics, sources, root=root)
    budget = Counter(baseline)
    fresh = []
    for d in diagnostics:
        if budget[prints[id(d)]] > 0:
            budget[prints[id(d)]] -= 1
        else:
            fresh.append(d)
    return fresh


def _relative(filename: str, root: Path) -> str:
    try:
        filename = str(Path(filename).resolve().relative_to(root.resolve()))
    except ValueError:
        pass
    return posix_path(filename)
