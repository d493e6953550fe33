"""A finding's identity that survives unrelated edits: no line numbers, only what was flagged.

Used by the baseline file and by GitLab's code-quality report: the file, the rule, the flagged
source text (whitespace-normalised), the op and branch, and the occurrence among identical findings
in the file.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

from nanlint.diagnostics import Diagnostic
from nanlint.source_lines import split_lines


def fingerprints(diagnostics: list[Diagnostic], sources: dict, root: Path | None = None) -> dict[int, str]:
    """id(diagnostic) -> fingerprint, for diagnostics sorted as the command sorts them; paths are taken
    relative to `root` when given, so that running from another directory keeps the fingerprints."""
    seen: Counter = Counter()
    out: dict[int, str] = {}
    for d in diagnostics:
        key = _key(d, sources.get(d.source_key), _path(d.filename, root))
        seen[key] += 1
        out[id(d)] = hashlib.sha256(f"{key}\x00{seen[key]}".encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return out


def _path(filename: str, root: Path | None) -> str:
    if root is not None:
        try:
            return Path(filename).resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return filename.replace("\\", "/")


def _key(d: Diagnostic, source: str | None, path: str) -> str:
    """What was flagged, not where: message wording and the rest of the line may change freely."""
    flagged = ""
    if source is not None:
        lines = split_lines(source)
        if 0 < d.location.row <= len(lines) and d.location.row == d.end_location.row:
            flagged = lines[d.location.row - 1][d.location.column - 1 : d.end_location.column - 1]
    return "\x00".join((path, d.code, d.op or "", d.branch or "", " ".join(flagged.split())))
