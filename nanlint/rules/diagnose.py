"""Parse what the linter chose to show, run the detector, and turn its sites into diagnostics with fixes."""

from __future__ import annotations

import ast
from typing import Optional

from nanlint.analysis.detector import INDIRECT, OPERATORS, Detector, LeakSite
from nanlint.diagnostics import Diagnostic, Related
from nanlint.fix.plan import FixPlanner
from nanlint.check import FileResult, Linter, syntax_diagnostic
from nanlint.rules import BY_CODE
from nanlint.suppression import parse_suppressions
from nanlint.analysis.syntax import parse

MAX_SNIPPET = 60
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)


def analyse(linter: Linter, result: FileResult, tree: Optional[ast.Module], frameworks: frozenset[str], ignored: frozenset[str]) -> None:
    """Fill `result` with the diagnostics for its source. `tree` is the part of the source that can
    hold findings (its nodes at their lines in the file), or None to parse the whole source;
    `frameworks` are those the source imports."""
    whole = tree is None
    if whole:
        try:
            tree = parse(result.source)
        except SyntaxError as error:
            result.diagnostics = [syntax_diagnostic(result.filename, error.msg, error.lineno or 1, error.offset or 1)]
            return
        except (RecursionError, MemoryError, ValueError):
            result.error = f"nanlint: {result.filename}: too deeply nested to analyse"
            return
    try:
        detector = Detector(tree, result.source, linter.catalog, frameworks)
        sites = detector.sites(frozenset(linter.codes) - ignored)
    except RecursionError:
        result.error = f"nanlint: {result.filename}: too deeply nested to analyse"
        return
    if not whole and any(site.code == INDIRECT and not isinstance(site.scope.node, _FUNCTIONS) for site in sites):
        # A module- or class-level local may be used anywhere in the file, and its fix depends on
        # every use: the slice does not hold them all, so read the file whole (rare).
        return analyse(linter, result, None, frameworks, ignored)
    if linter.keep_analysis:
        result.detector = detector
    if not sites:
        return
    suppressions = parse_suppressions(result.source, blanket_noqa=linter.settings.blanket_noqa)
    planner = FixPlanner(detector, result.source)
    for site in sites:
        diagnostic = build_diagnostic(site, detector, result.filename)
        lines, above = _suppression_lines(site, detector)
        if not suppressions.covers(site.code, lines, above):
            diagnostic.fix = planner.plan(site, diagnostic.fix_title or BY_CODE[site.code].SUMMARY)
            result.diagnostics.append(diagnostic)
    result.diagnostics = _dedupe(sorted(result.diagnostics, key=Diagnostic.sort_key))


def site_facts(site: LeakSite, detector: Detector) -> dict[str, str]:
    """The words a rule's message and fix title are made of."""
    use = site.use
    facts = {
        "op": _snippet(detector.code(use.node)),
        "op_name": _op_name(use.node, detector),
        "branch": site.branch.label,
        "select": site.select_display,
        "why": use.op.why,
        "safe": repr(use.op.safe_value),
        "cond": _snippet(detector.code(site.branch.cond)) if site.branch.cond is not None else "",
        "local": use.via.id if use.via is not None else "",
        "definition_row": str(use.node.lineno),
        "admitted": site.admitted.describe(site.guard_var or "x") if site.admitted is not None else "",
    }
    return facts


def build_diagnostic(site: LeakSite, detector: Detector, filename: str) -> Diagnostic:
    rule = BY_CODE[site.code]
    facts = site_facts(site, detector)
    primary = site.use.via if site.use.via is not None else site.use.node
    start, end = detector.locations(primary)
    related = []
    if site.use.via is not None:
        related.append(Related(f"`{facts['local']}` is computed by `{facts['op']}` here", *detector.locations(site.use.node)))
    if site.admitted is not None and site.branch.cond is not None:
        related.append(Related(f"the condition selects the pole at {facts['admitted']}", *detector.locations(site.branch.cond)))
    return Diagnostic(
        code=rule.CODE,
        name=rule.NAME,
        message=rule.MESSAGE.format(**facts),
        filename=filename,
        location=start,
        end_location=end,
        fix_title=rule.FIX_TITLE.format(**facts) if rule.FIX_TITLE else None,
        noqa_row=start.row,
        framework=site.framework,
        op=site.use.op.key,
        branch=site.branch.label,
        related=related,
        site=site,
    )


def _suppression_lines(site: LeakSite, detector: Detector) -> tuple[set[int], set[int]]:
    """Lines whose comments can silence a site: every line of the select call and of the op (and,
    for an indirect leak, of the definition); a comment-only line above either start counts too."""
    nodes = [site.select, site.use.node]
    if site.use.via is not None:
        nodes.append(site.use.via)
    lines: set[int] = set()
    above: set[int] = set()
    for node in nodes:
        rows = detector.rows(node)
        lines.update(rows)
        above.add(rows.start)
    return lines, above


def _snippet(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1] + "…"


def _op_name(node: ast.AST, detector: Detector) -> str:
    if isinstance(node, ast.Call):
        return _snippet(detector.code(node.func))
    if isinstance(node, ast.BinOp):
        return OPERATORS.get(type(node.op), "?")
    return _snippet(detector.code(node))


def _dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Report each place once: one op can sit in two walks, and a local (NAN002) can be computed by
    several singular ops; its first one stands for the chain, the fix loop reaches the others."""
    seen = set()
    out = []
    for d in diagnostics:
        key = (d.code, d.location, d.end_location) if d.code == "NAN002" else (d.code, d.location, d.end_location, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
