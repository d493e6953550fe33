"""The shape every rule shares: a code, a kebab-case name, a message, its doc and its examples."""

from __future__ import annotations

import inspect
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Optional

if TYPE_CHECKING:
    from nanlint.analysis.sites import SiteKind

REQUIRED_SECTIONS = (
    "## What it does",
    "## Why is this bad?",
    "## Example",
    "Use instead:",
    "## Fix safety",
    "## References",
)


@dataclass(frozen=True)
class Valid:
    """Source that the rule must not flag."""

    code: str


@dataclass(frozen=True)
class Invalid:
    """Source that the rule must flag, at `line` (1-based) when given; `fixed`, when given, is the
    source after every fix nanlint offers is applied (unsafe ones too), as fixit's expected_replacement."""

    code: str
    line: Optional[int] = None
    fixed: Optional[str] = None


class Rule:
    """A rule is data about one kind of finding: the kind of site it reports (the detector decides
    which kind each site is), whether that kind has a mechanical fix, its words and its examples.

    The class docstring is the rule's documentation, in ruff's sections; `nanlint rule` and
    docs/rules/ are generated from it.
    """

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    REPORTS: ClassVar[Optional["SiteKind"]] = None  # None: a rule about the file itself (NAN900)
    FIXABLE: ClassVar[bool] = False
    SUMMARY: ClassVar[str]
    FIX_TITLE: ClassVar[Optional[str]] = None
    DEFAULT_ENABLED: ClassVar[bool] = True
    VALID: ClassVar[tuple[Valid, ...]] = ()
    INVALID: ClassVar[tuple[Invalid, ...]] = ()

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def title(cls) -> str:
        return f"{cls.CODE} {cls.NAME}"

    @classmethod
    def missing_sections(cls) -> list[str]:
        text = cls.doc()
        return [s for s in REQUIRED_SECTIONS if s not in text]

    @classmethod
    def example_source(cls, case: Valid | Invalid) -> str:
        return textwrap.dedent(case.code).lstrip("\n")
