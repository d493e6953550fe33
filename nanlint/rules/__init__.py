"""The rule registry: every rule class, and selection by code, prefix or name."""

from __future__ import annotations

from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid
from nanlint.rules.nan001_where_branch_singular_op import WhereBranchSingularOp
from nanlint.rules.nan002_where_branch_singular_local import WhereBranchSingularLocal
from nanlint.rules.nan003_where_guard_admits_pole import WhereGuardAdmitsPole
from nanlint.rules.nan004_where_branch_overflow import WhereBranchOverflow
from nanlint.rules.nan101_clamp_of_singular_op import ClampOfSingularOp
from nanlint.rules.nan102_clamp_bound_at_pole import ClampBoundAtPole
from nanlint.rules.nan201_nan_masked_after_the_fact import NanMaskedAfterTheFact
from nanlint.rules.nan401_singular_op_under_unrelated_condition import SingularOpUnderUnrelatedCondition
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax

RULES: tuple[type[Rule], ...] = (
    WhereBranchSingularOp,
    WhereBranchSingularLocal,
    WhereGuardAdmitsPole,
    WhereBranchOverflow,
    ClampOfSingularOp,
    ClampBoundAtPole,
    NanMaskedAfterTheFact,
    SingularOpUnderUnrelatedCondition,
    InvalidSyntax,
)

BY_CODE: dict[str, type[Rule]] = {r.CODE: r for r in RULES}
BY_NAME: dict[str, type[Rule]] = {r.NAME: r for r in RULES}
BY_KIND: dict[SiteKind, type[Rule]] = {r.REPORTS: r for r in RULES if r.REPORTS is not None}

# Meta rules report on the file itself: they are always on and have no docs page of findings.
META_CODES = frozenset({InvalidSyntax.CODE})


class UnknownSelector(ValueError):
    """A --select/--ignore entry that names no rule."""


def is_meta_code(code: str) -> bool:
    return code in META_CODES


def expand_selector(selector: str) -> set[str]:
    """Codes named by one selector: `ALL`, a code, a code prefix (`NAN`, `NAN0`), or a rule name."""
    text = selector.strip()
    if text.upper() == "ALL":
        return set(BY_CODE)
    if text in BY_NAME:
        return {BY_NAME[text].CODE}
    upper = text.upper()
    codes = {code for code in BY_CODE if code.startswith(upper)}
    if not codes or not upper.startswith("NAN"):
        raise UnknownSelector(f"unknown rule selector `{selector}` (expected a code like NAN001, a prefix like NAN0, or a rule name)")
    return codes


def select_codes(select: list[str] | None, ignore: list[str], extend_select: list[str]) -> frozenset[str]:
    """ruff's semantics: start from `select` (default: the rules on by default), add `extend_select`, drop `ignore`.

    A more specific selector wins over a less specific one, so `--select NAN --ignore NAN0 --extend-select NAN001`
    keeps NAN001.
    """
    if select is None:
        weighted = [(0, r.CODE, True) for r in RULES if r.DEFAULT_ENABLED]
    else:
        weighted = [(_specificity(s), c, True) for s in select for c in expand_selector(s)]
    weighted += [(_specificity(s), c, True) for s in extend_select for c in expand_selector(s)]
    weighted += [(_specificity(s), c, False) for s in ignore for c in expand_selector(s)]
    chosen: dict[str, tuple[int, bool]] = {}
    for weight, code, on in weighted:
        # Equal weight: a later source (ignore after select) wins.
        if code not in chosen or weight >= chosen[code][0]:
            chosen[code] = (weight, on)
    return frozenset(code for code, (_, on) in chosen.items() if on) | META_CODES


def kinds_of(codes: frozenset[str]) -> frozenset[SiteKind]:
    """The kinds of site the rules with these codes report."""
    return frozenset(BY_CODE[code].REPORTS for code in codes if BY_CODE[code].REPORTS is not None)


def _specificity(selector: str) -> int:
    text = selector.strip()
    if text.upper() == "ALL":
        return 0
    if text in BY_NAME:
        return 10
    return len(text)


__all__ = ["RULES", "BY_CODE", "BY_KIND", "BY_NAME", "kinds_of", "Rule", "Valid", "Invalid", "expand_selector", "select_codes", "is_meta_code", "UnknownSelector"]
