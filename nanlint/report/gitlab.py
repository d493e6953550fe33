"""`gitlab`: a GitLab Code Quality report (a JSON list of Code Climate issues) for `artifacts: reports: codequality`.

GitLab needs `description`, `check_name`, `fingerprint`, `severity` and `location.path` with
`location.lines.begin`. The fingerprint is how GitLab tells a merge request's new findings from the
target branch's old ones, so it leaves out line numbers: inserting code above a finding moves it
without making it new (see `nanlint.fingerprint`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from nanlint.diagnostics import Diagnostic
from nanlint.fingerprint import fingerprints
from nanlint.files import printable_path
from nanlint.report.common import cell_prefix, cwd_relative, in_file

# Every nanlint finding is a gradient that can turn into NaN during training: a bug, not style.
SEVERITY = "major"
CATEGORIES = ["Bug Risk"]


def render_gitlab(diagnostics: list[Diagnostic], *, sources: dict) -> str:
    # Paths relative to the working directory (the checkout, in CI), as `location.path` has them.
    prints = fingerprints(diagnostics, sources, root=Path.cwd())
    issues = [_issue(d, prints[id(d)], sources) for d in diagnostics]
    return json.dumps(issues, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _issue(d: Diagnostic, fingerprint: str, sources: dict) -> dict[str, Any]:
    # In a notebook: the lines of its JSON (what the merge request's diff shows), and the cell in the description.
    begin, end = (in_file(d.filename, place, d.cell, sources).row for place in (d.location, d.end_location))
    return {
        "type": "issue",
        "check_name": d.code,
        "description": f"{cell_prefix(d)}{d.code} {d.message}",
        "categories": list(CATEGORIES),
        "severity": SEVERITY,
        "fingerprint": fingerprint,
        "location": {
            "path": report_path(d.filename),
            "lines": {"begin": begin, "end": end},
        },
    }


def report_path(filename: str) -> str:
    """Relative to the checkout with forward slashes, as GitLab links it to the merge request diff.

    An absolute path inside the working directory is made relative to it; any other stays as it is.
    """
    return printable_path(cwd_relative(filename)[0].as_posix())
