"""Sites into diagnostics: each site is reported by the rule that declares its kind, in that rule's words."""

from __future__ import annotations

from typing import Optional

import libcst as cst

from nanlint.analysis.detector import OPERATORS, Detector
from nanlint.analysis.masking import domain_condition
from nanlint.analysis.sites import Evidence, LeakSite, MaskSite, OpUse, Site, SiteKind
from nanlint.analysis.tree import bare_code, code
from nanlint.confidence import Confidence
from nanlint.diagnostics import Diagnostic, Related
from nanlint.fix.model import Location
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
        "why": _why(use, detector),
        "safe": repr(use.op.safe_value),
        "cond": _snippet(detector.code(site.branch.cond)) if site.branch.cond is not None else "",
        "local": use.via.value if use.via is not None else "",
        "definition_row": str(detector.locations(use.node)[0].row),
        "admitted": site.admitted.describe(site.guard_var or "x") if site.admitted is not None else "",
    }


def _why(use: OpUse, detector: Detector) -> str:
    """Why the op's derivative is not finite at its pole; or, when no gradient reaches the op, why its
    value still leaks through the factor it multiplies."""
    if use.value_of is None:
        return use.op.why
    arg, factor = _snippet(bare_code(use.arg, detector.code)), _snippet(bare_code(use.value_of, detector.code))
    return f"no gradient reaches `{arg}`, but the {use.op.title} is not finite at {use.leak_domain.describe(arg)}, and the derivative of `{factor}` is made of its value"


def build_diagnostic(site: Site, detector: Detector, filename: str) -> Diagnostic:
    if isinstance(site, MaskSite):
        return _mask_diagnostic(site, detector, filename)
    facts = site_facts(site, detector)
    start, end = _primary(site, detector)
    related = []
    if site.use.via is not None:
        related.append(Related(f"`{facts['local']}` is computed by `{facts['op']}` here", *detector.locations(site.use.node)))
    if site.use.helper is not None:
        inside, helper = _snippet(bare_code(site.use.inside)), site.use.helper.name.value
        related.append(Related(f"`{helper}` computes `{inside}` with this call's arguments, whose derivative is not finite at {site.use.op.domain_text}", *detector.locations(site.use.helper.name)))
    if site.nested_in is not None and site.branch.cond is not None:
        row = detector.locations(site.select)[0].row
        related.append(Related(f"the `{site.select_display}` on line {row} encloses the select that holds it; where `{facts['cond']}` leaves its {facts['branch']} branch unselected, the op is at its pole", *detector.locations(site.branch.cond)))
    if site.pole_mask is not None:
        mask = _snippet(detector.code(site.pole_mask))
        related.append(
            Related(
                f"`{mask}` puts the op at its pole where it takes its safe value: it keeps the cotangent from the value it masks there, not from the op's other inputs",
                *detector.locations(site.pole_mask),
            )
        )
    if site.admitted is not None and site.branch.cond is not None:
        related.append(Related(f"the condition selects the pole at {facts['admitted']}", *detector.locations(site.branch.cond)))
    evidence = _evidence_note(site, facts, detector)
    if evidence is not None:
        related.append(Related(evidence, *detector.locations(site.branch.cond if site.branch.cond is not None else site.select)))
    select = detector.locations(site.select)[0]
    return _diagnostic(site, facts, filename, (start, end), related, site.use.op.key, site.branch.label, select)


# The kinds whose op sits in a branch the condition leaves unselected somewhere: their note says
# whether that region is shown to hold the pole.
_UNSELECTED_KINDS = frozenset({SiteKind.SINGULAR_OP, SiteKind.SINGULAR_LOCAL, SiteKind.OVERFLOW, SiteKind.UNRELATED_CONDITION})


def _evidence_note(site: LeakSite, facts: dict[str, str], detector: Detector) -> Optional[str]:
    """Why the condition does not keep the op off its pole, or that nanlint cannot tell (the finding's
    confidence, in words). None where the message or another note says it: a nested select's op, a
    non-finite factor known to be non-finite there."""
    use, branch, cond = site.use, facts["branch"], facts["cond"]
    if site.kind not in _UNSELECTED_KINDS or site.nested_in is not None:
        return None
    unselected = f"where `{cond}` leaves the {branch} branch unselected" if site.branch.cond is not None else f"where the {branch} branch is not selected"
    if use.leak_domain.is_everything():  # a NaN or infinite factor: the message says it leaks at every value
        return f"nanlint cannot tell whether the factor is NaN or infinite {unselected} (medium confidence)" if site.confidence is Confidence.MEDIUM else None
    if site.evidence is Evidence.REACHED and site.reached is not None:
        values, var = site.reached
        at = "at" if all(part.lo == part.hi for part in values.parts) else "for"
        what = "value" if use.value_of is not None else "derivative"
        return f"`{cond}` leaves the {branch} branch unselected {at} {values.describe(var)}, where the {what} of `{facts['op_name']}` is not finite"
    pole = use.leak_domain.describe(_snippet(detector.code(use.arg)))
    if site.evidence is Evidence.PINNED:
        return f"{unselected}, {pole} holds: the op's pole"
    if site.evidence is Evidence.EXPONENT_UNKNOWN:
        return f"{unselected}, `{facts['op_name']}` would be at its pole, but whether it has one depends on an exponent nanlint cannot read (medium confidence)"
    if site.evidence is Evidence.NAN_OTHERWISE:
        return "the other branch is NaN; nanlint cannot tell whether a later select leaves that NaN out of the result (medium confidence)"
    if site.confidence is Confidence.MEDIUM:
        return f"nanlint cannot tell whether {pole} can hold {unselected} (medium confidence)"
    return None


def _diagnostic(site: Site, facts: dict[str, str], filename: str, place, related: list[Related], op, branch, select: Location) -> Diagnostic:
    """The finding of `site`, in the words of the rule that reports its kind."""
    rule = BY_KIND[site.kind]
    start, end = place
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
        op=op,
        branch=branch,
        related=related,
        select=select,
        site=site,
        confidence=site.confidence,
    )


def suppression_lines(site: Site, detector: Detector) -> tuple[set[int], set[int]]:
    """Lines whose comments can silence a site: every line of the select call and of the op (and,
    for an indirect leak, of the definition; for a NaN mask, of its producer); a comment-only line
    above either start counts too."""
    if isinstance(site, MaskSite):
        nodes = [site.select, site.producer]
    else:
        nodes = [site.select, site.use.node] + ([site.use.via] if site.use.via is not None else [])
    lines: set[int] = set()
    above: set[int] = set()
    for node in nodes:
        rows = detector.rows(node)
        lines.update(rows)
        above.add(rows.start)
    return lines, above


# --- NAN201: a NaN mask after the fact -------------------------------------------------------------
def mask_facts(site: MaskSite, detector: Detector) -> dict[str, str]:
    """The words of a NaN mask's message and help: the value, the mask, and what makes the value non-finite."""
    producer = _snippet(detector.code(site.producer))
    facts = {"value": _snippet(detector.code(site.value)), "mask": site.select_display, "producer": producer}
    if site.use is None:
        facts["source"] = f"where `{producer}` turns it non-finite the gradient stays NaN"
        facts["remedy"] = f"Mask the inputs of `{_op_name(site.producer, detector)}` before it computes (double where), or clamp them into its domain: masking its output cannot fix the gradient"
        return facts
    arg = _snippet(detector.code(site.use.arg))
    facts["source"] = f"where `{producer}` has {site.use.leak_domain.describe(arg)} the gradient stays NaN ({site.use.op.why})"
    condition = domain_condition(site.use.arg, site.domain)
    keep = f": keep it where `{_snippet(code(condition))}` and give it a safe value elsewhere" if condition is not None else ""
    facts["remedy"] = f"Mask `{arg}` before `{producer}` computes{keep} (double where), or clamp it into the op's domain"
    return facts


def _mask_diagnostic(site: MaskSite, detector: Detector, filename: str) -> Diagnostic:
    facts = mask_facts(site, detector)
    start, end = detector.locations(site.test)
    related = []
    mask_start, mask_end = detector.span(site.select)
    producer_start, producer_end = detector.span(site.producer)
    if not mask_start <= producer_start < producer_end <= mask_end:  # `nan_to_num(log(p))` shows it already
        related.append(Related(f"`{facts['value']}` is made non-finite by `{facts['producer']}` here", *detector.locations(site.producer)))
    if site.removed_test is not None:
        tf2 = site.removed_test.rsplit(".", 1)[-1]
        related.append(
            Related(f"`{site.removed_test}` does not exist in TensorFlow 2: calling it raises AttributeError; use `tf.math.{tf2}`", start, end)
        )
    if site.linked is not None:
        other = BY_KIND[site.linked.kind].CODE
        related.append(Related(f"`{facts['producer']}` is also reported here, as {other}", *_primary(site.linked, detector)))
    op = site.use.op.key if site.use is not None else None
    return _diagnostic(site, facts, filename, (start, end), related, op, None, detector.locations(site.select)[0])


def link_masks(diagnostics: list[Diagnostic]) -> None:
    """Give the finding on a NaN mask's producer (NAN001, NAN002, ...) a note pointing back at the mask."""
    by_site = {id(d.site): d for d in diagnostics if d.site is not None}
    for d in diagnostics:
        site = d.site
        if isinstance(site, MaskSite) and site.linked is not None and id(site.linked) in by_site:
            by_site[id(site.linked)].related.append(
                Related(f"its NaN is also masked after the fact here ({d.code}), which keeps the gradient NaN", d.location, d.end_location)
            )


def _primary(site: LeakSite, detector: Detector):
    """Where a leak site's finding is reported: at the local of an indirect leak, else at the op."""
    return detector.locations(site.use.via if site.use.via is not None else site.use.node)


def deduplicated(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Sorted, and each place reported once: one op can sit in two walks, and a local (NAN002) can be
    computed by several singular ops; its most confident one, then its first, stands for the chain
    (so that `--min-confidence high` keeps the finding the default run shows), and the fix loop
    reaches the others."""
    local = BY_KIND[SiteKind.SINGULAR_LOCAL].CODE
    seen = set()
    out = []
    for d in sorted(diagnostics, key=lambda d: (d.sort_key(), -d.confidence.rank)):
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
