"""Sets of real numbers as unions of intervals.

Leak domains in the catalog are interval sets, and so is what a condition like `x > 0` selects;
comparing the two tells whether a guard keeps a branch away from its op's pole.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

INF = math.inf


@dataclass(frozen=True, order=True)
class Interval:
    lo: float
    hi: float
    lo_closed: bool = True
    hi_closed: bool = True

    def is_empty(self) -> bool:
        if self.lo > self.hi:
            return True
        return self.lo == self.hi and not (self.lo_closed and self.hi_closed)

    def describe(self, var: str) -> str:
        if self.lo == self.hi:
            return f"{var} = {_num(self.lo)}"
        parts = []
        if self.lo != -INF:
            parts.append(f"{_num(self.lo)} {'<=' if self.lo_closed else '<'} ")
        parts.append(var)
        if self.hi != INF:
            parts.append(f" {'<=' if self.hi_closed else '<'} {_num(self.hi)}")
        return "any value" if len(parts) == 1 else "".join(parts)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


@dataclass(frozen=True)
class IntervalSet:
    parts: tuple[Interval, ...] = ()

    # --- constructors -------------------------------------------------------------------
    @staticmethod
    def of(*parts: Interval) -> "IntervalSet":
        return IntervalSet(tuple(p for p in parts if not p.is_empty())).normalized()

    @staticmethod
    def everything() -> "IntervalSet":
        return IntervalSet((Interval(-INF, INF, False, False),))

    def is_everything(self) -> bool:
        return self == IntervalSet.everything()

    @staticmethod
    def point(value: float) -> "IntervalSet":
        return IntervalSet.of(Interval(value, value))

    @staticmethod
    def points(*values: float) -> "IntervalSet":
        return IntervalSet.of(*(Interval(v, v) for v in values))

    @staticmethod
    def below(value: float, closed: bool) -> "IntervalSet":
        return IntervalSet.of(Interval(-INF, value, False, closed))

    @staticmethod
    def above(value: float, closed: bool) -> "IntervalSet":
        return IntervalSet.of(Interval(value, INF, closed, False))

    # --- algebra ------------------------------------------------------------------------
    def normalized(self) -> "IntervalSet":
        merged: list[Interval] = []
        for part in sorted(self.parts, key=lambda p: (p.lo, not p.lo_closed)):
            if merged and _touches(merged[-1], part):
                last = merged[-1]
                if part.hi > last.hi or (part.hi == last.hi and part.hi_closed):
                    merged[-1] = Interval(last.lo, part.hi, last.lo_closed, part.hi_closed)
            else:
                merged.append(part)
        return IntervalSet(tuple(merged))

    def union(self, other: "IntervalSet") -> "IntervalSet":
        return IntervalSet(self.parts + other.parts).normalized()

    def intersect(self, other: "IntervalSet") -> "IntervalSet":
        out = []
        for a in self.parts:
            for b in other.parts:
                lo, lo_open = max((a.lo, not a.lo_closed), (b.lo, not b.lo_closed))
                # At equal bounds the open one is the tighter: it sorts as the larger lo, the smaller hi.
                hi, hi_closed = min((a.hi, a.hi_closed), (b.hi, b.hi_closed))
                out.append(Interval(lo, hi, not lo_open, hi_closed))
        return IntervalSet.of(*out)

    def hull(self) -> Interval:
        """The smallest interval holding every part (of a set that is not empty)."""
        first, last = self.parts[0], self.parts[-1]
        return Interval(first.lo, last.hi, first.lo_closed, last.hi_closed)

    def complement(self) -> "IntervalSet":
        out = []
        lo, lo_closed = -INF, False
        for part in self.parts:
            out.append(Interval(lo, part.lo, lo_closed, not part.lo_closed))
            lo, lo_closed = part.hi, not part.hi_closed
        out.append(Interval(lo, INF, lo_closed, False))
        return IntervalSet.of(*out)

    def shifted(self, offset: float) -> "IntervalSet":
        """{v + offset : v in self}"""
        return IntervalSet.of(*(Interval(p.lo + offset, p.hi + offset, p.lo_closed, p.hi_closed) for p in self.parts))

    def negated(self) -> "IntervalSet":
        """{-v : v in self}"""
        return IntervalSet.of(*(Interval(-p.hi, -p.lo, p.hi_closed, p.lo_closed) for p in self.parts))

    def power_preimage(self, p: int) -> "IntervalSet":
        """{v : v**p in self} for an integer p >= 1: the signed roots of each part, and for an even
        p (where v**p = |v|**p is never negative) their mirror images too."""
        out = []
        for part in self.parts:
            if p % 2:
                out.append(Interval(_root(part.lo, p), _root(part.hi, p), part.lo_closed, part.hi_closed))
                continue
            lo, lo_closed = (part.lo, part.lo_closed) if part.lo >= 0 else (0.0, True)
            root = Interval(_root(lo, p), _root(part.hi, p), lo_closed, part.hi_closed)
            out += [root, Interval(-root.hi, -root.lo, root.hi_closed, root.lo_closed)]
        return IntervalSet.of(*out)

    # --- queries ------------------------------------------------------------------------
    def is_empty(self) -> bool:
        return not self.parts

    def contains(self, value: float) -> bool:
        return not self.intersect(IntervalSet.point(value)).is_empty()

    def describe(self, var: str = "x") -> str:
        if not self.parts:
            return "nowhere"
        return " or ".join(p.describe(var) for p in self.parts)


def _root(value: float, p: int) -> float:
    """The real p-th root, with its sign (an odd p), of an end (infinite ones stay so)."""
    return math.copysign(abs(value) ** (1.0 / p), value) if math.isfinite(value) else value


def _touches(a: Interval, b: Interval) -> bool:
    """Whether b (starting at or after a) overlaps or abuts a without a gap."""
    if b.lo < a.hi:
        return True
    return b.lo == a.hi and (a.hi_closed or b.lo_closed)
