"""How sure a finding is that its leak can happen (depends on nothing: analysis, config and reports read it)."""

from __future__ import annotations

import enum


class Confidence(enum.Enum):
    """`high`: the pole (or the overflow) is provably in the region where the branch is not selected:
    the condition is a comparison on the op's argument, or on an affine function of it, and the
    values it leaves unselected include the pole; or it pins the whole argument at the pole there;
    or a clamp's bound is the pole itself.
    `medium`: the condition is related to the argument only through the data both are computed from
    (`where(x > 0, log(sum(x)), 0)`), or is not a comparison nanlint can read as values."""

    MEDIUM = "medium"
    HIGH = "high"

    @property
    def rank(self) -> int:
        return list(Confidence).index(self)

    def at_least(self, other: "Confidence") -> bool:
        return self.rank >= other.rank
