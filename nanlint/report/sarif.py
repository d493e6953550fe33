"""`sarif`: a SARIF 2.1.0 log, the format GitHub code scanning and most review tools import."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from urllib.parse import quote

import nanlint
from nanlint.diagnostics import DOCS_URL, Diagnostic
from nanlint.fix.model import Location
from nanlint.report.common import cell_prefix, cwd_relative, in_file, is_fixable

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = DOCS_URL.split("/rules/")[0]


def render_sarif(diagnostics: list[Diagnostic], *, sources: dict) -> str:
    from nanlint.rules import RULES  # lazily: the registry imports every rule module

    rules = [_rule(rule) for rule in RULES]
    rule_index = {rule["id"]: i for i, rule in enumerate(rules)}
    log = {
        "$schema": SCHEMA_URI,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "nanlint",
                        "informationUri": INFORMATION_URI,
                        "version": nanlint.__version__,
                        "rules": rules,
                    }
                },
                # Our columns count characters (code points), not the UTF-16 units SARIF may assume.
                "columnKind": "unicodeCodePoints",
                "results": [_result(d, rule_index, sources) for d in diagnostics],
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _rule(rule) -> dict[str, Any]:
    from nanlint.rules import is_meta_code

    doc = rule.doc()
    descriptor: dict[str, Any] = {
        "id": rule.CODE,
        "name": rule.NAME,
        "shortDescription": {"text": rule.SUMMARY},
        "fullDescription": {"text": doc, "markdown": doc},
        "help": {"text": doc, "markdown": doc},
        "defaultConfiguration": {"level": "error"},
    }
    if not is_meta_code(rule.CODE):
        descriptor["helpUri"] = DOCS_URL.format(code=rule.CODE)
    return descriptor


def _result(d: Diagnostic, rule_index: dict[str, int], sources: dict) -> dict[str, Any]:
    """In a notebook, regions are lines of its JSON (the artifact's text), the message starts with the
    cell and its line, and there is no fix: its replacements would have to be written as JSON."""
    uri = artifact_uri(d.filename)

    def physical(start: Location, end: Location, cell: int | None) -> dict[str, Any]:
        return _physical(uri, in_file(d.filename, start, cell, sources), in_file(d.filename, end, cell, sources))

    result: dict[str, Any] = {"ruleId": d.code}
    if d.code in rule_index:
        result["ruleIndex"] = rule_index[d.code]
    result["level"] = "error"
    result["message"] = {"text": cell_prefix(d) + d.message}
    result["locations"] = [{"physicalLocation": physical(d.location, d.end_location, d.cell)}]
    if d.related:
        result["relatedLocations"] = [
            {"id": i, "physicalLocation": physical(r.location, r.end_location, r.cell), "message": {"text": r.message}}
            for i, r in enumerate(d.related)
        ]
    if is_fixable(d) and d.cell is None:
        result["fixes"] = [_fix(d, uri)]
    facts = (("framework", d.framework), ("op", d.op), ("branch", d.branch), ("cell", d.cell), ("confidence", d.confidence.value))
    properties = {key: value for key, value in facts if value is not None}
    if d.verification is not None:
        properties["verification"] = d.verification.to_json()
    if properties:
        result["properties"] = properties
    return result


def artifact_uri(filename: str) -> str:
    """A relative path stays relative (code scanning resolves it against the checkout); slashes forward.

    An absolute path inside the working directory is made relative to it; any other becomes a file URI.
    """
    path, inside = cwd_relative(filename)
    if not inside:
        return Path(path).as_uri()
    # Percent-encode spaces and the like (and the bytes of a file name that is not UTF-8): a SARIF
    # uri must be a valid URI reference.
    return quote(os.fsencode(path.as_posix()), safe="/")


def _region(start: Location, end: Location) -> dict[str, int]:
    # SARIF's endColumn is exclusive, like our end_location, so both map across unchanged.
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def _physical(uri: str, start: Location, end: Location) -> dict[str, Any]:
    return {"artifactLocation": {"uri": uri}, "region": _region(start, end)}


def _fix(d: Diagnostic, uri: str) -> dict[str, Any]:
    fix = d.fix.to_json()
    replacements = [
        {
            "deletedRegion": _region(_location(edit["location"]), _location(edit["end_location"])),
            "insertedContent": {"text": edit["content"] or ""},
        }
        for edit in fix["edits"]
    ]
    sarif_fix: dict[str, Any] = {"artifactChanges": [{"artifactLocation": {"uri": uri}, "replacements": replacements}]}
    description = fix.get("message") or d.fix_title
    if description:
        sarif_fix = {"description": {"text": description}, **sarif_fix}
    sarif_fix["properties"] = {"applicability": d.fix.applicability.value}
    return sarif_fix


def _location(data: dict[str, int]) -> Location:
    return Location(data["row"], data["column"])
