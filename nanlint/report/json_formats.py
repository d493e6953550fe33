"""`json` and `json-lines`: `Diagnostic.to_json()` as is, so the field names stay ruff's."""

from __future__ import annotations

import json

from nanlint.diagnostics import Diagnostic


def render_json(diagnostics: list[Diagnostic]) -> str:
    # ensure_ascii=False: messages quote source code, which may be any Unicode; ruff writes UTF-8 too.
    return json.dumps([d.to_json() for d in diagnostics], indent=2, ensure_ascii=False) + "\n"


def render_json_lines(diagnostics: list[Diagnostic]) -> str:
    return "".join(
        json.dumps(d.to_json(), ensure_ascii=False, separators=(",", ":")) + "\n" for d in diagnostics
    )
