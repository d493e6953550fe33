"""Sites into diagnostics: each site is reported by the rule that declares its kind, in that rule's words."""

from __future__ import annotations

import libcst as cst

from nanlint.analysis.detector import OPERATORS, Detector
from nanlint.analysis.sites import LeakSite, SiteKind
from nanlint.diagnostics import Diagnostic, Related
from nanlint.rules import BY_KIND

MAX_SNIPPET = 60


def site_facts(site: LeakSite, detector: Detector) -> dict[str, str]:
    """The words a rule's message and fix title are made of."""
    use = site.use
    return {
        "op": _snippet(detector.code(use.node)),
        "op_name": _op_name(use.node, detector),
        "branch": site.branch.label,
        "select": site.select_display,
        "why": use.op.why,
        "safe": repr(use.op.safe_value),
        "cond": _snippet(detector.code(site.branch.cond)) if site.branch.cond is not None else "",
        "local": use.via.value if use.via is not None else "",
        "definition_row": str(detector.locations(use.node)[0].row),
        "admitted": site.admitted.describe(site.guard_var or "x") if site.admitted is not None else "",
    }


def build_diagnostic(site: LeakSite, detector: Detector, filename: str) -> Diagnostic:
    rule = BY_KIND[site.kind]
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


def suppression_lines(site: LeakSite, detector: Detector) -> tuple[set[int], set[int]]:
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


def deduplicated(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted, and each place reported once: one op can sit in two walks, and a local (NAN002) can be
    computed by several singular ops; its first one stands for the chain, the fix loop reaches the others."""
    local = BY_KIND[SiteKind.SINGULAR_LOCAL].CODE
    seen = set()
    out = []
    for d in sorted(diagnostics, key=Diagnostic.sort_key):
        key = (d.code, d.location, d.end_location) if d.code == local else (d.code, d.location, d.end_location, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def _snippet(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1] + "…"


def _op_name(node: cst.CSTNode, detector: Detector) -> str:
    if isinstance(node, cst.Call):
        return _snippet(detector.code(node.func))
    if isinstance(node, cst.BinaryOperation):
        return OPERATORS.get(type(node.operator), "?")
    return _snippet(detector.code(node))
