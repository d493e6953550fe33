"""What the detector finds: leak sites, each of a kind that one rule reports (imports no parser)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Optional, Union

from nanlint.catalog.intervals import IntervalSet
from nanlint.catalog.tables import LeakKind, SelectFunction, SingularOp
from nanlint.confidence import Confidence

if TYPE_CHECKING:  # no parser at start-up: the rules name these kinds
    import libcst as cst

    from nanlint.analysis.names import Binding, Scope


class SiteKind(enum.Enum):
    """The kinds of site the detector tells apart; each rule declares the one it reports."""

    SINGULAR_OP = "singular-op"  # an op in a branch, at a pole its condition leaves unselected
    SINGULAR_LOCAL = "singular-local"  # the same, through a local computed earlier
    POLE_ADMITTED = "pole-admitted"  # the condition selects the branch at the op's pole itself
    OVERFLOW = "overflow"  # an op that overflows (exp) where the branch is unselected
    CLAMP = "clamp"  # an op inside a clamp (maximum/clip), which is a select in disguise
    CLAMP_AT_POLE = "clamp-at-pole"  # a clamp whose bound sits on the op's pole: sqrt(maximum(x, 0))
    UNRELATED_CONDITION = "unrelated-condition"  # an op under a condition about other data
    NAN_MASK = "nan-mask"  # a value made non-finite in sight, masked after the fact: where(isnan(v), 0, v)


class GuardVerdict(enum.Enum):
    """What comparing a branch's condition with its op's leak domain tells."""

    NO_LEAK = "no-leak"  # unselected only where the op is harmless
    LEAK = "leak"  # the condition is about the argument, and leaves the pole unselected
    ADMITS = "admits"  # the condition selects the branch at the pole itself
    UNKNOWN = "unknown"  # the condition says nothing certain about the argument


class Evidence(enum.Enum):
    """What shows that a where branch's op is at its pole where the branch is not selected: the
    note a finding carries, and the reason for its confidence."""

    REACHED = "reached"  # the condition, read as values of the argument, leaves pole values unselected
    PINNED = "pinned"  # wherever the branch is not selected, the argument's values lie on the pole
    EXPONENT_UNKNOWN = "exponent-unknown"  # shown at the pole, but a power's exponent, not read, decides if it is one
    NAN_OTHERWISE = "nan-otherwise"  # the other branch is NaN, which may or may not reach the result (medium)
    NOT_SHOWN = "not-shown"  # nothing shows whether the argument reaches the pole there (medium)


@dataclass
class Branch:
    label: str  # "true", "false", "case 1", "choice 0", "default", "clamped": for messages
    index: int  # its place among the select's branches (select_n's case number)
    expr: cst.BaseExpression
    # True: selected where the condition holds; False: where it does not; None: not a simple condition.
    polarity: Optional[bool]
    cond: Optional[cst.BaseExpression]


@dataclass
class OpUse:
    op: SingularOp
    framework: str
    node: cst.BaseExpression  # the call or binary operation
    arg: cst.BaseExpression  # the argument a fix masks
    leak_domain: IntervalSet  # narrowed for powers by their exponent
    exponent: Optional[cst.BaseExpression] = None  # a power's exponent, which narrowed it
    via: Optional[cst.Name] = None  # indirect: the local name in the branch
    definition: Optional["Binding"] = None  # indirect: the binding whose value holds the op
    # An op a helper of the file evaluates (`node` is then the call, `arg` the op's argument in the
    # call's own terms, `inside` the op so written): its body read with the call's arguments (inline.py).
    inside: Optional[cst.BaseExpression] = None
    helper: Optional[cst.FunctionDef] = None
    # No gradient reaches the op, but its value is the derivative of this factor of its product
    # (`x` in `log(u) * x`, `u` a random draw): it leaks through that factor.
    value_of: Optional[cst.BaseExpression] = None


@dataclass
class LeakSite:
    kind: SiteKind
    select: cst.Call
    select_fn: SelectFunction
    select_display: str
    framework: str
    method_form: bool
    branch: Branch
    use: OpUse
    admitted: Optional[IntervalSet] = None  # POLE_ADMITTED: the pole values the guard selects
    guard_var: Optional[str] = None  # POLE_ADMITTED: the variable (source text) the guard constrains
    # The op that computes the masked local, singular at the same points (`g = norm(u)` masked in
    # `u / g` under `g < c`): a double where on this select leaves that op's derivative NaN.
    upstream: Optional[OpUse] = None
    # The mask the op's argument is, whose safe value is the op's pole (`where(v != 0, v, 0.0)` as a
    # divisor): it guards the masked value, not the op's other inputs.
    pole_mask: Optional[cst.Call] = None
    confidence: Confidence = Confidence.MEDIUM
    evidence: Evidence = Evidence.NOT_SHOWN
    # REACHED: the pole values the condition surely leaves unselected, and the variable (source text)
    # they are values of.
    reached: Optional[tuple[IntervalSet, str]] = None
    # The select nested in the branch that holds the op (`where(a, 0, where(b, f(x), g))`), when
    # the enclosing select's condition `a` explains the pole; None for the select's own op.
    nested_in: Optional[cst.Call] = field(default=None, repr=False)
    scope: Optional["Scope"] = field(default=None, repr=False)
    # Nested: the op leaks also where `nested_in` takes it (`nan * s`: whatever `s` is), so that
    # select's fix leaves this one's leak; it is reported at both.
    leaks_where_nested_takes_it: bool = False


@dataclass
class MaskSite:
    """A NaN mask after the fact (NAN201): a select or replacement that hides the non-finite values of a
    value computed in this function, after the computation that makes them: `where(isnan(v), 0, v)`,
    `nan_to_num(v)`, `multiply_no_nan(v, mask)`. The value is finite; its gradient is not."""

    kind: SiteKind
    select: cst.Call  # the masking call (named as a LeakSite's select: fixing and verifying place both alike)
    select_display: str  # `jnp.where`, `torch.nan_to_num`, `Tensor.nan_to_num`
    framework: str
    method_form: bool
    test: cst.BaseExpression  # the NaN test in the condition, or the replacement call itself
    value: cst.BaseExpression  # the masked value, as the mask reads it
    # The computation on the value's way that can turn it non-finite: a singular op (then `use` is
    # set) or a framework function nanlint cannot see into.
    producer: cst.BaseExpression
    use: Optional[OpUse] = None
    domain: Optional[IntervalSet] = None  # where the producer's value is finite (a singular op's), if stated
    others: tuple = ()  # the other producers on the value's way (nodes): a fix of one leaves them
    removed_test: Optional[str] = None  # the test's TensorFlow 1 spelling, which TensorFlow 2 lacks
    linked: Optional[LeakSite] = None  # another rule's finding on the same singular op
    scope: Optional["Scope"] = field(default=None, repr=False)

    @property
    def confidence(self) -> Confidence:
        # A singular op in sight, whose non-finite values the author masks: they happen where its pole
        # is an ordinary value (a zero count). An overflow needs arguments past the dtype's range, which
        # the mask does not show (NAN004 is high only under a condition aimed at large values).
        return Confidence.HIGH if self.use is not None and self.use.op.kind is LeakKind.POLE else Confidence.MEDIUM


Site = Union[LeakSite, MaskSite]
