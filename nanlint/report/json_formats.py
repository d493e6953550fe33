"""`json` and `json-lines`: `Diagnostic.to_json()` as is, so the field names stay ruff's."""

from __future__ import annotations

import json

from nanlint.diagnostics import Diagnostic
from nanlint.files import printable_path


def render_json(diagnostics: list[Diagnostic]) -> str:
    # ensure_ascii=False: messages quote source code, which may be any Unicode; ruff writes UTF-8 too.
    return json.dumps([_json(d) for d in diagnostics], indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def render_json_lines(diagnostics: list[Diagnostic]) -> str:
    return "".join(json.dumps(_json(d), ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n" for d in diagnostics)


def _json(d: Diagnostic) -> dict:
    return dict(d.to_json(), filename=printable_path(d.filename))
