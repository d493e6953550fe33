"""The catalog: every fact nanlint knows about ops and selects, as data.

Detection, fixing and verification all read this one table. Facts come from probing each op under
JAX 0.10.2, TensorFlow 2.21 and torch 2.13 on CPU (see docs/frameworks.md):

- a `SingularOp` is an op whose *derivative* is infinite or NaN somewhere (its leak domain); inside an
  unselected where branch that becomes 0 * inf = NaN in the gradient;
- a `SelectFunction` is a where/select/clamp: it evaluates every branch and selects values after;
- `GRADIENT_SAFE` functions never leak and guard whatever they compute.

Names are written with short module prefixes (`jnp.sqrt`) that `_expand` turns into qualified names.
"""

from __future__ import annotations

import enum
import functools
import math
import re
from dataclasses import dataclass, field
from typing import Callable, Optional

from nanlint.catalog.intervals import INF, Interval, IntervalSet

# Short prefixes used in the tables below -> the qualified module they stand for.
_PREFIXES = {
    "jnp": "jax.numpy",
    "lax": "jax.lax",
    "jss": "jax.scipy.special",
    "jnn": "jax.nn",
    "tf": "tensorflow",
    "tnp": "tensorflow.experimental.numpy",
    "torch": "torch",
    "anp": "autograd.numpy",
    "asp": "autograd.scipy.special",
    "ops": "keras.ops",
    "np": "numpy",
    "optax": "optax",
}

# Internal or versioned module paths that name the same public function. Tried after an exact lookup,
# so entries that differ (tf.compat.v1.where needs equal shapes) can still be listed under their own name.
CANONICAL_PREFIXES = (
    ("tensorflow.compat.v1.", "tensorflow."),
    ("tensorflow.compat.v2.", "tensorflow."),
    ("tensorflow.python.ops.math_ops.", "tensorflow.math."),
    ("tensorflow.python.ops.array_ops.", "tensorflow."),
    ("tensorflow.python.ops.clip_ops.", "tensorflow."),
    ("tensorflow.python.ops.numpy_ops.", "tensorflow.experimental.numpy."),
    ("tf_keras.src.backend.", "tensorflow."),
    ("jax._src.numpy.lax_numpy.", "jax.numpy."),
    ("jax._src.numpy.ufuncs.", "jax.numpy."),
    ("jax._src.numpy.linalg.", "jax.numpy.linalg."),
    ("jax._src.numpy.", "jax.numpy."),
    ("jax._src.lax.lax.", "jax.lax."),
    ("jax._src.lax.special.", "jax.lax."),
    ("jax._src.lax.", "jax.lax."),
    ("jax._src.scipy.special.", "jax.scipy.special."),
    ("jax._src.nn.functions.", "jax.nn."),
    ("keras.src.ops.numpy.", "keras.ops."),
    ("keras.src.ops.math.", "keras.ops."),
    ("keras.src.ops.nn.", "keras.ops."),
    ("keras.src.ops.", "keras.ops."),
    ("keras.ops.numpy.", "keras.ops."),
    ("torch.special.", "torch."),
    ("torch.linalg.", "torch."),
    # quaxed re-exports jax's array functions wrapped by quax (`quaxify`): on arrays the same values
    # and derivatives, and on quax values (units, sparse) the same rules applied to their arrays.
    ("quaxed.numpy.", "jax.numpy."),
    ("quaxed.lax.", "jax.lax."),
    ("quaxed.scipy.special.", "jax.scipy.special."),
    # brainunit's `math` (saiunit's since brainunit 0.6) applies the inputs' array namespace to a
    # quantity's mantissa and puts the unit back, as an array API namespace does: on traced JAX
    # values, JAX's function with JAX's derivative (run: grad of `where(x > 0, sqrt(x), 0)` at 0 is NaN).
    ("brainunit.math.", "jax.numpy."),
    ("saiunit.math.", "jax.numpy."),
    # MLX (Apple's array framework) names its array functions as NumPy does, and `mx.grad`
    # differentiates a where as JAX does: both branches, a zero cotangent into the unselected one.
    # Read as the array API namespace is (ARRAY_API_MODULE), and verified as JAX.
    ("mlx.core.", "jax.numpy."),
)

FRAMEWORK_OF_MODULE = {
    "jax": "jax",
    "tensorflow": "tensorflow",
    "torch": "torch",
    "autograd": "autograd",
    "keras": "keras",
    "numpy": "numpy",
    "optax": "jax",
    "quaxed": "jax",
    "mlx": "jax",
    "tf_keras": "tensorflow",
}


def framework_of(qualified_name: str) -> Optional[str]:
    return FRAMEWORK_OF_MODULE.get(qualified_name.split(".", 1)[0])


@functools.lru_cache(maxsize=4096)
def canonical_names(qualified_name: str) -> tuple[str, ...]:
    """The name itself, then the public spellings it is an alias of (remembered: the detector asks
    about the same few names over and over)."""
    names = [qualified_name]
    for name in names:  # grows as it goes: `tf.compat.v2` holds `compat` again (`tf.compat.v2.compat.v2.where`)
        for old, new in CANONICAL_PREFIXES:
            if name.startswith(old) and (alias := new + name[len(old):]) not in names:
                names.append(alias)
    return tuple(names)


@dataclass(frozen=True)
class Arg:
    """Where an argument sits in a call: its position and the keywords frameworks spell it with.

    position -1 is the receiver of a tensor method (`x` in `x.sqrt()`).
    """

    position: int
    keywords: tuple[str, ...] = ()


RECEIVER = Arg(-1)
FIRST = Arg(0, ("x", "input", "a", "t", "x1", "self"))
SECOND = Arg(1, ("y", "other", "x2", "b", "divisor"))


class LeakKind(enum.Enum):
    """How a singular op's derivative leaves the finite numbers."""

    POLE = "pole"  # infinite or NaN at finite inputs: log at 0, arcsin at +-1
    OVERFLOW = "overflow"  # infinite for large inputs: exp above ~88.7 in float32


@dataclass(frozen=True)
class SingularOp:
    key: str
    title: str
    # Why the derivative blows up, in one phrase used in messages.
    why: str
    kind: LeakKind
    leak_domain: IntervalSet  # values of the masked argument where the derivative is not finite
    domain_text: str  # the same, for people: "x <= 0"
    safe_value: float  # inside the op's domain, with a finite derivative
    probes: tuple[float, ...]  # points a verification run must try: the poles, the edges, regular values
    names: dict[str, tuple[str, ...]]  # framework -> qualified names where the op leaks
    methods: dict[str, tuple[str, ...]] = field(default_factory=dict)  # framework -> tensor method names
    arg: Arg = FIRST  # the argument the fix masks
    method_arg: Arg = RECEIVER  # the same argument in the method form
    operator: Optional[str] = None  # the Python operator spelling: "/", "%", "**"
    exponent: Optional[Arg] = None  # power: the exponent decides the leak domain
    method_exponent: Optional[Arg] = None
    safe_in: tuple[str, ...] = ()  # frameworks where this op is gradient-safe (facts for the docs)
    guard_keywords: tuple[str, ...] = ()  # a keyword that clamps internally (torch.logit(x, eps=...))
    elementwise: bool = True
    # The derivative in the other inputs stays finite at the pole (d/dx (x mod y) = 1; run in all
    # three): only a gradient through the singular argument leaks.
    only_through_arg: bool = False
    # Another argument that must sit at the pole too (arctan2's `y`: the pole is x = y = 0): where
    # the condition keeps it off 0, the op is off its pole whatever the masked argument does.
    partner: Optional[Arg] = None
    # Which bound of a clamp (maximum = "low", minimum = "high") can be chosen near the leak domain,
    # leaving the op unselected there: sqrt tends to 0 (a lower bound catches it), exp to +inf.
    clamp_side: str = "both"
    # TensorFlow eager/graph mode short-circuits zero cotangents for these: only XLA shows the leak.
    tf_eager_hides: bool = False
    # Where the op's *value* is finite: NAN201's fix keeps the argument there, so that no value a NaN
    # mask after the op keeps is changed. `everything()`: the op is never non-finite (a NaN mask after
    # it is not about it). None: no simple condition states it (overflow depends on the dtype; lgamma's
    # poles are points), and for powers `power_domain` decides by exponent.
    domain: Optional[IntervalSet] = None
    # The op's value at its pole, when finite (sqrt(0) = 0, ||0|| = 0): a later op singular at that
    # value (a division) leaks where this one is singular, and masking the later op's argument
    # leaves this op's derivative NaN there (the verification harness shows it).
    value_at_pole: Optional[float] = None
    # How to compare without the op, for a condition written on its value (`g < c` with g = ||u||).
    without_it: str = ""


def _expand(spec: str) -> tuple[str, ...]:
    out = []
    for short in spec.split():
        prefix, _, rest = short.partition(".")
        out.append(f"{_PREFIXES[prefix]}.{rest}")
    return tuple(out)


def _names(**frameworks: str) -> dict[str, tuple[str, ...]]:
    return {fw: _expand(spec) for fw, spec in frameworks.items()}


def _methods(**frameworks: str) -> dict[str, tuple[str, ...]]:
    return {fw: tuple(spec.split()) for fw, spec in frameworks.items()}


_AT_ZERO = IntervalSet.point(0.0)
_NONPOSITIVE = IntervalSet.below(0.0, closed=True)
_ABS_GE_ONE = IntervalSet.of(Interval(-INF, -1.0, False, True), Interval(1.0, INF, True, False))
# arcsin and arccos share their pole, domain and probes; only their derivatives' signs differ.
_INVERSE_SINE_OR_COSINE = dict(
    kind=LeakKind.POLE,
    leak_domain=_ABS_GE_ONE,
    domain_text="|x| >= 1",
    safe_value=0.0,
    probes=(1.0, -1.0, 2.0, 0.5),
    domain=IntervalSet.of(Interval(-1.0, 1.0)),
)
_ZERO_ONE = IntervalSet.points(0.0, 1.0)
# Domains where an op's value is finite (SingularOp.domain).
_EVERYWHERE = IntervalSet.everything()
_POSITIVE = IntervalSet.above(0.0, closed=False)
_NONNEGATIVE = IntervalSet.above(0.0, closed=True)
_NONZERO = _AT_ZERO.complement()
_OPEN_UNIT_BALL = IntervalSet.of(Interval(-1.0, 1.0, False, False))
_OPEN_UNIT_INTERVAL = IntervalSet.of(Interval(0.0, 1.0, False, False))
# arctan2 and angle (arctan2 of a complex number's parts) share their pole at 0, probes and safe
# value; torch's backward masks the pole of both.
_ARCTAN2_OF_PARTS = dict(
    kind=LeakKind.POLE,
    leak_domain=_AT_ZERO,
    safe_value=1.0,
    probes=(0.0, 1.0, -1.0),
    safe_in=("torch",),
    domain=_EVERYWHERE,
)
# float32: exp(x) overflows above log(FLT_MAX) = 88.72.
EXP_OVERFLOW_F32 = 88.72

OPS: tuple[SingularOp, ...] = (
    SingularOp(
        key="sqrt",
        title="square root",
        why="d/dx sqrt(x) = 1/(2*sqrt(x)) is infinite at 0 and NaN below",
        kind=LeakKind.POLE,
        leak_domain=_NONPOSITIVE,
        domain_text="x <= 0",
        safe_value=1.0,
        probes=(0.0, -1.0, 1e-45, 4.0),
        names=_names(
            jax="jnp.sqrt lax.sqrt",
            tensorflow="tf.sqrt tf.math.sqrt tnp.sqrt",
            torch="torch.sqrt",
            autograd="anp.sqrt",
            keras="ops.sqrt",
            numpy="np.sqrt",
        ),
        methods=_methods(torch="sqrt sqrt_"),
        tf_eager_hides=True,
        clamp_side="low",
        domain=_NONNEGATIVE,
        value_at_pole=0.0,
        without_it="compare the square instead of the root (`x < c**2` for `sqrt(x) < c`)",
    ),
    SingularOp(
        key="rsqrt",
        title="reciprocal square root",
        why="d/dx x**-0.5 = -0.5*x**-1.5 is infinite at 0 and NaN below",
        kind=LeakKind.POLE,
        leak_domain=_NONPOSITIVE,
        domain_text="x <= 0",
        safe_value=1.0,
        probes=(0.0, -1.0, 4.0),
        names=_names(jax="lax.rsqrt", tensorflow="tf.math.rsqrt tf.rsqrt", torch="torch.rsqrt", keras="ops.rsqrt"),
        methods=_methods(torch="rsqrt rsqrt_"),
        tf_eager_hides=True,
        clamp_side="high",
        domain=_POSITIVE,
    ),
    SingularOp(
        key="cbrt",
        title="cube root",
        why="d/dx cbrt(x) = 1/(3*cbrt(x)**2) is infinite at 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="x = 0",
        safe_value=1.0,
        probes=(0.0, -8.0, 8.0),
        names=_names(jax="jnp.cbrt lax.cbrt", tensorflow="tnp.cbrt", autograd="anp.cbrt", keras="ops.cbrt", numpy="np.cbrt"),
        domain=_EVERYWHERE,
        value_at_pole=0.0,
        without_it="compare the cube instead of the root (`x < c**3` for `cbrt(x) < c`)",
    ),
    SingularOp(
        key="log",
        title="logarithm",
        why="d/dx log(x) = 1/x is infinite at 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="x = 0",
        safe_value=1.0,
        probes=(0.0, 1e-40, -1.0, 2.0),
        names=_names(
            jax="jnp.log jnp.log2 jnp.log10 lax.log",
            tensorflow="tf.math.log tf.log tnp.log tnp.log2 tnp.log10",
            torch="torch.log torch.log2 torch.log10",
            autograd="anp.log anp.log2 anp.log10",
            keras="ops.log ops.log2 ops.log10",
            numpy="np.log np.log2 np.log10",
        ),
        methods=_methods(torch="log log2 log10 log_ log2_ log10_"),
        clamp_side="low",
        domain=_POSITIVE,
    ),
    SingularOp(
        key="log1p",
        title="log(1 + x)",
        why="d/dx log1p(x) = 1/(1 + x) is infinite at -1",
        kind=LeakKind.POLE,
        leak_domain=IntervalSet.point(-1.0),
        domain_text="x = -1",
        safe_value=0.0,
        probes=(-1.0, -2.0, 0.0, 1.0),
        names=_names(
            jax="jnp.log1p lax.log1p",
            tensorflow="tf.math.log1p tnp.log1p",
            torch="torch.log1p torch.special.log1p",
            autograd="anp.log1p",
            keras="ops.log1p",
            numpy="np.log1p",
        ),
        methods=_methods(torch="log1p log1p_"),
        clamp_side="low",
        domain=IntervalSet.above(-1.0, closed=False),
    ),
    SingularOp(
        key="divide",
        title="division",
        why="d/dy x/y = -x/y**2 and d/dx x/y = 1/y are infinite at y = 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="denominator = 0",
        safe_value=1.0,
        probes=(0.0, 1e-25, -2.0, 2.0),
        names=_names(
            jax="jnp.divide jnp.true_divide lax.div",
            tensorflow="tf.math.divide tf.divide tf.math.truediv tf.truediv tf.math.realdiv tf.realdiv tnp.divide tnp.true_divide",
            torch="torch.div torch.divide torch.true_divide",
            autograd="anp.divide anp.true_divide",
            keras="ops.divide ops.true_divide",
            numpy="np.divide np.true_divide",
        ),
        methods=_methods(torch="div divide true_divide div_ divide_ true_divide_"),
        arg=SECOND,
        method_arg=Arg(0, ("other",)),
        operator="/",
        safe_in=("tensorflow: tf.math.divide_no_nan",),
        domain=_NONZERO,
    ),
    # A product with a NaN or infinite placeholder (`res = jnp.nan * s`): d/ds (c * s) = c is not
    # finite anywhere, so where the select leaves it unselected 0 * nan reaches `s`. Found by the
    # detector from the operator and a non-finite constant factor; masking `s` mends it.
    SingularOp(
        key="nonfinite_factor",
        title="product with a non-finite factor",
        why="d/dy (c * y) = c is NaN or infinite wherever the factor c is",
        kind=LeakKind.POLE,
        leak_domain=_EVERYWHERE,
        domain_text="every value of the other factor",
        safe_value=1.0,
        probes=(0.0, 1.0, -2.0, 2.0),
        names={},
        operator="*",
        only_through_arg=True,
    ),
    SingularOp(
        key="reciprocal",
        title="reciprocal",
        why="d/dx 1/x = -1/x**2 is infinite at 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="x = 0",
        safe_value=1.0,
        probes=(0.0, 1e-25, -2.0, 2.0),
        names=_names(
            jax="jnp.reciprocal",
            tensorflow="tf.math.reciprocal tf.reciprocal tnp.reciprocal",
            torch="torch.reciprocal",
            autograd="anp.reciprocal",
            keras="ops.reciprocal",
            numpy="np.reciprocal",
        ),
        methods=_methods(torch="reciprocal reciprocal_"),
        safe_in=("tensorflow: tf.math.reciprocal_no_nan",),
        tf_eager_hides=True,
        domain=_NONZERO,
    ),
    SingularOp(
        key="remainder",
        title="remainder",
        why="d/dy (x mod y) = -floor(x/y) is not finite at y = 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="divisor = 0",
        safe_value=1.0,
        probes=(0.0, 3.0),
        names=_names(
            jax="jnp.remainder jnp.fmod jnp.mod lax.rem",
            tensorflow="tf.math.floormod tf.floormod tf.math.mod tf.mod tf.math.truncatemod tnp.remainder tnp.mod",
            torch="torch.remainder torch.fmod",
            autograd="anp.remainder anp.fmod anp.mod",
            keras="ops.mod",
        ),
        methods=_methods(torch="remainder fmod remainder_ fmod_"),
        arg=SECOND,
        method_arg=Arg(0, ("other",)),
        operator="%",
        only_through_arg=True,
        domain=_NONZERO,
    ),
    SingularOp(
        key="arctan2",
        title="arctan2",
        why="the derivative of arctan2(y, x) is y/(x**2 + y**2), NaN at (0, 0)",
        **_ARCTAN2_OF_PARTS,
        domain_text="x = y = 0",
        names=_names(
            jax="jnp.arctan2 jnp.atan2 lax.atan2",
            tensorflow="tf.math.atan2 tf.atan2 tnp.arctan2",
            autograd="anp.arctan2",
            keras="ops.arctan2",
            numpy="np.arctan2",
        ),
        arg=Arg(1, ("x", "x2", "other")),
        partner=Arg(0, ("y", "x1", "input")),
    ),
    # angle(z) is arctan2(imag(z), real(z)): 0/0 at z = 0, for a real argument too (JAX reads
    # angle(x) as arctan2(0, x)). Run: JAX and TensorFlow (eager and XLA) give NaN; torch's
    # backward masks z == 0 and gives 0.
    SingularOp(
        key="angle",
        title="angle",
        why="angle(z) is arctan2(imag(z), real(z)), whose derivative is NaN at z = 0",
        **_ARCTAN2_OF_PARTS,
        domain_text="z = 0",
        names=_names(jax="jnp.angle", tensorflow="tf.math.angle tnp.angle", autograd="anp.angle", keras="ops.angle", numpy="np.angle"),
    ),
    SingularOp(
        key="power",
        title="fractional or negative power",
        why="d/dx x**p = p*x**(p - 1) is infinite at 0 for p < 1 and NaN below 0 for non-integer p",
        kind=LeakKind.POLE,
        leak_domain=_NONPOSITIVE,  # the widest case; power_leak_domain() narrows it by exponent
        domain_text="base <= 0",
        safe_value=1.0,
        probes=(0.0, -1.0, 4.0),
        names=_names(
            jax="jnp.power jnp.pow jnp.float_power lax.pow lax.integer_pow",
            tensorflow="tf.pow tf.math.pow tnp.power tnp.float_power",
            torch="torch.pow torch.float_power",
            autograd="anp.power",
            keras="ops.power",
            numpy="np.power np.float_power",
        ),
        methods=_methods(torch="pow float_power pow_"),
        operator="**",
        exponent=Arg(1, ("y", "x2", "exponent")),
        method_exponent=Arg(0, ("exponent",)),
    ),
    SingularOp(
        key="arcsin",
        title="arcsin",
        why="d/dx arcsin(x) = 1/sqrt(1 - x**2) is infinite at |x| = 1 and NaN beyond",
        **_INVERSE_SINE_OR_COSINE,
        names=_names(
            jax="jnp.arcsin jnp.asin lax.asin",
            tensorflow="tf.math.asin tf.asin tnp.arcsin",
            torch="torch.asin torch.arcsin",
            autograd="anp.arcsin",
            keras="ops.arcsin",
            numpy="np.arcsin",
        ),
        methods=_methods(torch="asin arcsin asin_"),
    ),
    SingularOp(
        key="arccos",
        title="arccos",
        why="d/dx arccos(x) = -1/sqrt(1 - x**2) is infinite at |x| = 1 and NaN beyond",
        **_INVERSE_SINE_OR_COSINE,
        names=_names(
            jax="jnp.arccos jnp.acos lax.acos",
            tensorflow="tf.math.acos tf.acos tnp.arccos",
            torch="torch.acos torch.arccos",
            autograd="anp.arccos",
            keras="ops.arccos",
            numpy="np.arccos",
        ),
        methods=_methods(torch="acos arccos acos_"),
    ),
    SingularOp(
        key="arctanh",
        title="arctanh",
        why="d/dx arctanh(x) = 1/(1 - x**2) is infinite at |x| = 1",
        kind=LeakKind.POLE,
        leak_domain=IntervalSet.points(-1.0, 1.0),
        domain_text="|x| = 1",
        safe_value=0.0,
        probes=(1.0, -1.0, 0.5),
        names=_names(
            jax="jnp.arctanh jnp.atanh lax.atanh",
            tensorflow="tf.math.atanh tf.atanh tnp.arctanh",
            torch="torch.atanh torch.arctanh",
            autograd="anp.arctanh",
            keras="ops.arctanh",
            numpy="np.arctanh",
        ),
        methods=_methods(torch="atanh arctanh atanh_"),
        domain=_OPEN_UNIT_BALL,
    ),
    SingularOp(
        key="arccosh",
        title="arccosh",
        why="d/dx arccosh(x) = 1/sqrt(x**2 - 1) is infinite at 1 and NaN below",
        kind=LeakKind.POLE,
        leak_domain=IntervalSet.below(1.0, closed=True),
        domain_text="x <= 1",
        safe_value=2.0,
        probes=(1.0, 0.5, 2.0),
        names=_names(
            jax="jnp.arccosh jnp.acosh lax.acosh",
            tensorflow="tf.math.acosh tf.acosh tnp.arccosh",
            torch="torch.acosh torch.arccosh",
            autograd="anp.arccosh",
            keras="ops.arccosh",
            numpy="np.arccosh",
        ),
        methods=_methods(torch="acosh arccosh acosh_"),
        clamp_side="low",
        domain=IntervalSet.above(1.0, closed=True),
        value_at_pole=0.0,
        without_it="compare the argument (`x < cosh(c)` for `arccosh(x) < c`)",
    ),
    SingularOp(
        key="exp",
        title="exponential",
        why="exp(x) overflows to inf above ~88.7 in float32, and so does its derivative",
        kind=LeakKind.OVERFLOW,
        leak_domain=IntervalSet.above(EXP_OVERFLOW_F32, closed=False),
        domain_text="x > 88.7 (float32), x > 709.8 (float64), x > 11.1 (float16)",
        safe_value=0.0,
        probes=(200.0, 89.0, 0.0, -1.0),
        names=_names(
            jax="jnp.exp jnp.exp2 jnp.expm1 jnp.cosh jnp.sinh lax.exp lax.exp2 lax.expm1 lax.cosh lax.sinh",
            tensorflow="tf.exp tf.math.exp tf.math.expm1 tf.expm1 tf.math.cosh tf.cosh tf.math.sinh tf.sinh tnp.exp tnp.exp2 tnp.expm1 tnp.cosh tnp.sinh",
            torch="torch.exp torch.exp2 torch.expm1 torch.cosh torch.sinh torch.special.exp2 torch.special.expm1",
            autograd="anp.exp anp.exp2 anp.expm1 anp.cosh anp.sinh",
            keras="ops.exp ops.expm1 ops.exp2 ops.cosh ops.sinh",
            numpy="np.exp np.exp2 np.expm1 np.cosh np.sinh",
        ),
        methods=_methods(torch="exp exp2 expm1 cosh sinh exp_ expm1_"),
        clamp_side="high",
    ),
    SingularOp(
        key="lgamma",
        title="log-gamma/digamma",
        why="lgamma and digamma have poles at 0, -1, -2, ...",
        kind=LeakKind.POLE,
        leak_domain=_NONPOSITIVE,  # a superset of the non-positive integers, for guard reasoning
        domain_text="x = 0, -1, -2, ...",
        safe_value=1.0,
        probes=(0.0, -1.0, 0.5, 3.0),
        names=_names(
            jax="jss.gammaln jss.gamma jss.digamma lax.lgamma lax.digamma",
            tensorflow="tf.math.lgamma tf.lgamma tf.math.digamma tf.digamma",
            torch="torch.lgamma torch.digamma torch.special.gammaln torch.special.digamma torch.special.psi",
            autograd="asp.gammaln asp.gamma asp.digamma",
        ),
        methods=_methods(torch="lgamma digamma lgamma_ digamma_"),
    ),
    SingularOp(
        key="polygamma",
        title="polygamma",
        why="polygamma(n, x) has poles at x = 0, -1, -2, ...",
        kind=LeakKind.POLE,
        leak_domain=_NONPOSITIVE,
        domain_text="x = 0, -1, -2, ...",
        safe_value=1.0,
        probes=(0.0, -1.0, 2.0),
        names=_names(jax="jss.polygamma", tensorflow="tf.math.polygamma", torch="torch.polygamma torch.special.polygamma", autograd="asp.polygamma"),
        arg=Arg(1, ("x", "input")),
    ),
    SingularOp(
        key="xlogy",
        title="xlogy",
        why="d/dy xlogy(x, y) = x/y is 0/0 at y = 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="y = 0",
        safe_value=1.0,
        probes=(0.0, 2.0),
        names=_names(jax="jss.xlogy", torch="torch.xlogy torch.special.xlogy", autograd="asp.xlogy"),
        methods=_methods(torch="xlogy xlogy_"),
        arg=SECOND,
        method_arg=Arg(0, ("other",)),
        safe_in=("tensorflow",),
        # xlogy(0, 0) is 0 and so is xlogy(0, 1): keeping y > 0 changes no finite value.
        domain=_POSITIVE,
    ),
    SingularOp(
        key="xlog1py",
        title="xlog1py",
        why="d/dy xlog1py(x, y) = x/(1 + y) is not finite at y = -1",
        kind=LeakKind.POLE,
        leak_domain=IntervalSet.point(-1.0),
        domain_text="y = -1",
        safe_value=0.0,
        probes=(-1.0, 1.0),
        names=_names(jax="jss.xlog1py", torch="torch.special.xlog1py"),
        arg=SECOND,
        safe_in=("tensorflow",),
        domain=IntervalSet.above(-1.0, closed=False),
    ),
    SingularOp(
        key="entr",
        title="entropy term -x*log(x)",
        why="d/dx -x*log(x) = -log(x) - 1 is infinite at 0",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="x = 0",
        safe_value=1.0,
        probes=(0.0, 0.5),
        names=_names(jax="jss.entr", torch="torch.special.entr"),
        domain=_NONNEGATIVE,
    ),
    SingularOp(
        key="logit",
        title="logit",
        why="d/dx logit(x) = 1/(x*(1 - x)) is infinite at 0 and 1",
        kind=LeakKind.POLE,
        leak_domain=_ZERO_ONE,
        domain_text="x = 0 or x = 1",
        safe_value=0.5,
        probes=(0.0, 1.0, 0.25),
        names=_names(jax="jss.logit", torch="torch.logit torch.special.logit", autograd="asp.logit"),
        methods=_methods(torch="logit logit_"),
        guard_keywords=("eps",),
        domain=_OPEN_UNIT_INTERVAL,
    ),
    SingularOp(
        key="erfinv",
        title="inverse error function",
        why="d/dx erfinv(x) is infinite at |x| = 1",
        kind=LeakKind.POLE,
        leak_domain=_ABS_GE_ONE,
        domain_text="|x| >= 1",
        safe_value=0.0,
        probes=(1.0, -1.0, 0.5),
        names=_names(jax="jss.erfinv lax.erf_inv", tensorflow="tf.math.erfinv", torch="torch.erfinv torch.special.erfinv", keras="ops.erfinv"),
        methods=_methods(torch="erfinv erfinv_"),
        domain=_OPEN_UNIT_BALL,
    ),
    SingularOp(
        key="ndtri",
        title="inverse normal CDF",
        why="d/dx ndtri(x) is infinite at 0 and 1",
        kind=LeakKind.POLE,
        leak_domain=_ZERO_ONE,
        domain_text="x = 0 or x = 1",
        safe_value=0.5,
        probes=(0.0, 1.0, 0.25),
        names=_names(tensorflow="tf.math.ndtri", torch="torch.special.ndtri"),
        safe_in=("jax",),
        domain=_OPEN_UNIT_INTERVAL,
    ),
    SingularOp(
        key="norm",
        title="vector norm",
        why="the gradient of ||v|| is v/||v||, NaN at the zero vector",
        kind=LeakKind.POLE,
        leak_domain=_AT_ZERO,
        domain_text="v = 0 (the whole vector)",
        safe_value=1.0,
        probes=(0.0, 3.0),
        # optax's tree norms are sqrt(sum of squares) (`squared=True` skips the root).
        names=_names(
            jax="jnp.linalg.norm optax.tree.norm optax.tree_utils.tree_l2_norm optax.global_norm",
            tensorflow="tf.norm tf.linalg.norm tf.linalg.global_norm",
            autograd="anp.linalg.norm",
            keras="ops.norm",
        ),
        safe_in=("torch",),
        guard_keywords=("squared",),
        elementwise=False,
        clamp_side="low",
        domain=_EVERYWHERE,
        value_at_pole=0.0,
        without_it="compare the squared norm (`sum(v**2) < c**2`), or compute the norm safely (`optax.safe_norm`, or the norm of `where(any(v != 0), v, 1)`)",
    ),
)

OP_KEYS = frozenset(op.key for op in OPS)
OPS_BY_KEY = {op.key: op for op in OPS}


def power_domain(exponent: float) -> IntervalSet:
    """Where x**p is finite: everywhere for p = 0, 1, 2, ...; off 0 for p = -1, -2, ...; at and above 0
    for a fractional p > 0 (x**0.5), above 0 for a fractional p < 0 (x**-0.5)."""
    if float(exponent).is_integer():
        return _EVERYWHERE if exponent >= 0 else _NONZERO
    return _NONNEGATIVE if exponent > 0 else _POSITIVE


def power_leak_domain(exponent: float) -> Optional[IntervalSet]:
    """Where d/dx x**p is not finite, or None when it is finite everywhere (x**2, x**3, x**2.0)."""
    if float(exponent).is_integer():
        return IntervalSet.point(0.0) if exponent < 0 else None
    if exponent > 1:
        return IntervalSet.below(0.0, closed=False)  # x**1.5: NaN below 0, 0 at 0
    return IntervalSet.below(0.0, closed=True)  # x**0.5, x**-0.5: infinite at 0, NaN below


@dataclass(frozen=True)
class SelectFunction:
    """A function that evaluates several branches and picks values from them elementwise.

    kind:
    - "where": cond, true branch, false branch (`jnp.where`, `lax.select`, `torch.where`, `x.where(c, y)`);
    - "select_n": `lax.select_n(which, *cases)`; every case is unselected somewhere;
    - "select_list": `jnp.select(condlist, choicelist, default)`;
    - "clamp": `maximum`/`minimum`/`clip`/`clamp`: a where in disguise, with the bound as the other branch.
    """

    kind: str
    names: dict[str, tuple[str, ...]]
    methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    cond: Optional[Arg] = None
    branches: tuple[Arg, ...] = ()
    method_branches: tuple[Arg, ...] = ()
    method_cond: Optional[Arg] = None
    # The most positional arguments the tensor method takes: `x.where(c, y)` two, so
    # `torch.where(c, a, b)` with `torch` unresolved (a star import) is not it.
    method_arity: int = 0
    # tf.compat.v1.where does not broadcast: a fix must build its safe value with ones_like.
    equal_shapes: bool = False
    # lax.select does not broadcast either.
    no_broadcast: bool = False


_COND = Arg(0, ("condition", "cond", "pred", "c"))
_TRUE = Arg(1, ("x", "input", "on_true", "self"))
_FALSE = Arg(2, ("y", "other", "on_false"))

SELECTS: tuple[SelectFunction, ...] = (
    SelectFunction(
        kind="where",
        names=_names(
            jax="jnp.where",
            tensorflow="tf.where tnp.where",
            torch="torch.where",
            autograd="anp.where",
            keras="ops.where",
            numpy="np.where",
        ),
        methods=_methods(torch="where"),
        cond=_COND,
        branches=(_TRUE, _FALSE),
        method_cond=Arg(0, ("condition",)),
        method_branches=(RECEIVER, Arg(1, ("other", "y"))),
        method_arity=2,
    ),
    SelectFunction(kind="where", names={"tensorflow": ("tensorflow.compat.v1.where",)}, cond=_COND, branches=(_TRUE, _FALSE), equal_shapes=True),
    SelectFunction(kind="where", names=_names(jax="lax.select"), cond=_COND, branches=(_TRUE, _FALSE), no_broadcast=True),
    SelectFunction(kind="select_n", names=_names(jax="lax.select_n"), cond=Arg(0, ("which",))),
    SelectFunction(
        kind="select_list",
        names=_names(jax="jnp.select", tensorflow="tnp.select", autograd="anp.select", keras="ops.select", numpy="np.select"),
        cond=Arg(0, ("condlist",)),
        branches=(Arg(1, ("choicelist",)), Arg(2, ("default",))),
    ),
    SelectFunction(
        kind="clamp",
        names=_names(
            jax="jnp.maximum jnp.minimum jnp.fmax jnp.fmin lax.max lax.min",
            tensorflow="tf.maximum tf.minimum tf.math.maximum tf.math.minimum tnp.maximum tnp.minimum",
            torch="torch.maximum torch.minimum torch.fmax torch.fmin",
            autograd="anp.maximum anp.minimum anp.fmax anp.fmin",
            keras="ops.maximum ops.minimum",
            numpy="np.maximum np.minimum np.fmax np.fmin",
        ),
        methods=_methods(torch="maximum minimum fmax fmin"),
        branches=(Arg(0, ("x1", "x", "input", "a")), Arg(1, ("x2", "y", "other", "b"))),
        method_branches=(RECEIVER, Arg(0, ("other",))),
        method_arity=1,
    ),
    SelectFunction(
        kind="clamp",
        names=_names(
            jax="jnp.clip",
            tensorflow="tf.clip_by_value tnp.clip",
            torch="torch.clamp torch.clip torch.clamp_min torch.clamp_max",
            autograd="anp.clip",
            keras="ops.clip",
            numpy="np.clip",
        ),
        methods=_methods(torch="clamp clip clamp_min clamp_max clamp_ clip_"),
        branches=(Arg(0, ("x", "a", "arr", "t", "input")),),
        method_branches=(RECEIVER,),
        method_arity=2,  # x.clamp(min, max)
    ),
    SelectFunction(kind="clamp", names=_names(jax="lax.clamp"), branches=(Arg(1, ("x", "operand")),)),
)

# Clamps whose gradient is a select, not a product: below the bound the cotangent is replaced by 0,
# so an op on its pole at the bound (`sqrt(clamp(x, min=0))`) sends no NaN into `x` there; only a
# value exactly on the bound gets an infinite gradient (NaN once something downstream multiplies it
# by 0). Run under tf.function(jit_compile=True), eagerly, and in torch autograd; JAX's clamps
# (`jnp.maximum`, `jnp.clip`, `lax.clamp`) and `tnp.maximum` multiply, and are NaN below the bound.
SELECTING_CLAMPS = frozenset(
    _expand(
        "tf.maximum tf.minimum tf.math.maximum tf.math.minimum tf.clip_by_value tnp.clip "
        "torch.maximum torch.minimum torch.fmax torch.fmin torch.clamp torch.clip torch.clamp_min torch.clamp_max"
    )
)
SELECTING_CLAMP_METHODS = {"torch": frozenset("maximum minimum fmax fmin clamp clip clamp_min clamp_max clamp_ clip_".split())}

# Functions whose gradient passes the cotangent only where the input lies strictly inside an open
# interval, and selects 0 elsewhere, its edges included: `relu(x)` sends back `where(x > 0, g, 0)`.
# An op whose pole is only at those edges (`sqrt(relu(x))`, `1 / relu(x)` at 0) sends no NaN into
# `x`: the select drops it. Probed at -1, 0 and 2 (and 6 for relu6) under jax.grad and jax.jit, torch
# autograd, and TensorFlow eager, graph and XLA. TensorFlow's eager and graph kernels multiply by
# the mask instead (`log(relu(x))` is NaN there): there it holds only for ops whose own gradient
# returns 0 for a zero cotangent (`tf_eager_hides`).
_RELU, _RELU6 = Interval(0.0, INF, False, False), Interval(0.0, 6.0, False, False)
GRADIENT_GATES: dict[str, Interval] = {
    **{name: _RELU for name in _expand("jnn.relu torch.relu torch.relu_ torch.nn.functional.relu tf.nn.relu")},
    **{name: _RELU6 for name in _expand("jnn.relu6 torch.nn.functional.relu6 tf.nn.relu6")},
}
GRADIENT_GATE_METHODS: dict[str, dict[str, Interval]] = {"torch": {"relu": _RELU, "relu_": _RELU}}

# Safe functions whose result may feed an op that is singular where they reach their own pole:
# built on an outer where (`where(mask, fn(where(mask, x, p)), p)`), they zero the cotangent that
# comes back there. Checked: `1 / distance(0)` has a finite gradient under jax.jit(jax.grad), and so
# has torch.cdist; `1 / torch.linalg.norm(0)`, `1 / F.normalize(0).sum()`, `1 / divide_no_nan(0, 0)`,
# `1 / reciprocal_no_nan(0)` and `1 / l2_normalize(0).sum()` (TensorFlow under XLA) are NaN.
# tad-mctc's safe ops (torch), in both of its spellings (`sqrt` in 0.7, `safe_sqrt` later): a
# distance clamped to at least eps**(1/p), a root of `clamp(x, min=eps)`, both positive. Checked
# under torch autograd on 0.7.0 and 0.11.3: the gradient of `1 / cdist` at coincident points, and of
# `1 / sqrt(0)`, is finite.
_TAD_MCTC_CLAMPED = ("tad_mctc.storch.cdist", "tad_mctc.storch.sqrt", "tad_mctc.storch.safe_sqrt")
GUARDS_ITS_RESULT: tuple[str, ...] = _expand("optax.safe_norm optax.safe_root_mean_squares torch.cdist") + (
    "jax_md.util.safe_mask",
    "jax_md.space.distance",
    *_TAD_MCTC_CLAMPED,
)
# Functions that never leak themselves: barriers, clamps that are gradient-safe by construction, and
# the frameworks' own safe variants (their derivative is finite at their own pole), those above among them.
GRADIENT_SAFE: tuple[str, ...] = GUARDS_ITS_RESULT + _expand(
    "lax.stop_gradient tf.stop_gradient "
    "tf.math.divide_no_nan tf.math.reciprocal_no_nan tf.math.xlogy tf.math.xlog1py tf.math.xdivy tf.math.l2_normalize "
    "optax.safe_int32_increment "
    "torch.linalg.norm torch.linalg.vector_norm torch.norm torch.dist "
) + (
    "torch.nn.functional.normalize",
    # tad-mctc: a divisor replaced by eps where it is 0, `1 / (x + eps)`, a base replaced by eps at
    # and below 0 (finite gradients at 0, checked). Its old `pow` (in 0.7) is not here: its
    # gradient of `pow(0, 0.5)` is infinite.
    "tad_mctc.storch.divide",
    "tad_mctc.storch.safe_divide",
    "tad_mctc.storch.reciprocal",
    "tad_mctc.storch.safe_reciprocal",
    "tad_mctc.storch.safe_pow",
)
GRADIENT_SAFE_METHODS: dict[str, tuple[str, ...]] = {"torch": ("detach", "clamp", "clamp_min", "clip", "norm")}

# Constructors that read only the shape and dtype of their first argument: no cotangent flows into it,
# so an op there cannot leak (probed under XLA: the gradient of `where(x > 0, zeros_like(log(x)), x)`
# at 0 is finite in JAX and TensorFlow; torch does not track the argument at all).
SHAPE_ONLY: tuple[str, ...] = _expand(
    "jnp.zeros_like jnp.ones_like jnp.full_like jnp.empty_like lax.full_like "
    "tf.zeros_like tf.ones_like tnp.zeros_like tnp.ones_like tnp.full_like tnp.empty_like "
    "torch.zeros_like torch.ones_like torch.full_like torch.empty_like torch.rand_like torch.randn_like "
    "anp.zeros_like anp.ones_like anp.full_like ops.zeros_like ops.ones_like ops.full_like "
    "np.zeros_like np.ones_like np.full_like np.empty_like "
    # Queries of the shape: an integer, no gradient.
    "tf.shape tf.size tf.rank tnp.shape tnp.size tnp.ndim jnp.shape jnp.size jnp.ndim np.shape np.size np.ndim ops.shape"
)
SHAPE_ARG = Arg(0, ("a", "x", "input", "prototype", "tensor"))
# Tensor methods whose argument lends only its shape or dtype (`eye.expand_as(x)`): no gradient
# flows into it.
SHAPE_ONLY_METHODS = frozenset({"expand_as", "type_as", "view_as", "reshape_as", "new_zeros", "new_ones", "new_empty"})

# The frameworks' elementwise math (and the casts and constructors around it), by the last part of
# the name; each framework lists the modules it lives in. The verification worker may call these,
# wherever one exists (`jnp.sin`, `tf.math.sin`, `torch.sin`, `x.sin()`): they compute values from
# values, so a fix checked through them is checked on what the code really computes.
ELEMENTWISE_LEAVES: tuple[str, ...] = tuple(
    """
    sin cos tan arcsin arccos arctan arctan2 asin acos atan atan2 sinh cosh tanh arcsinh arccosh arctanh
    asinh acosh atanh exp exp2 expm1 log log2 log10 log1p sqrt rsqrt cbrt square reciprocal power pow
    float_power floor ceil round rint trunc fix abs absolute fabs sign negative positive maximum minimum
    fmax fmin clip clamp clip_by_value where select equal not_equal greater greater_equal less less_equal
    isfinite isnan isinf is_finite is_nan is_inf logical_and logical_or logical_not logical_xor zeros_like
    ones_like full_like empty_like sum mean prod any all reduce_sum reduce_mean reduce_prod reduce_any
    reduce_all add subtract multiply divide true_divide mod remainder fmod floor_divide sigmoid softplus
    relu erf erfc erfinv lgamma digamma hypot copysign cast astype asarray convert_to_tensor as_tensor
    stop_gradient xlogy xlog1py divide_no_nan reciprocal_no_nan
    lt le gt ge eq ne sub mul div neg max min real imag conj convert_element_type
    """.split()
)
ELEMENTWISE_MODULES: dict[str, tuple[str, ...]] = {
    "jax": ("jax.numpy", "jax.lax", "jax.nn", "jax.scipy.special"),
    "tensorflow": ("tensorflow", "tensorflow.math", "tensorflow.nn", "tensorflow.experimental.numpy"),
    "torch": ("torch", "torch.special", "torch.nn.functional"),
}
# Dtypes by the name every framework gives them (`jnp.float32`, `tf.float32`, `torch.float32`, "float32"):
# the verification harness passes them to casts and constructors as the framework's own dtype.
DTYPE_NAMES = frozenset(
    "bool int8 int16 int32 int64 uint8 uint16 uint32 uint64 float16 bfloat16 float32 float64 complex64 complex128".split()
)

# Where a call takes its dtype without the `dtype=` keyword: the argument's index, by the call's last
# name, for functions (`tf.cast(x, t)`) and for tensor methods (`x.astype(t)`).
DTYPE_ARGUMENT_OF_FUNCTION = {"cast": 1, "convert_element_type": 1, "asarray": 1, "array": 1, "constant": 1, "astype": 1}
DTYPE_ARGUMENT_OF_METHOD = {"astype": 0, "to": 0, "type": 0}

# Tensor methods that only cast, copy or reshape a value.
CAST_METHODS: tuple[str, ...] = ("astype", "to", "float", "double", "half", "type", "type_as", "reshape", "squeeze", "unsqueeze", "expand_as", "clone")

# Calls whose result is random or stateful, by any part of their name: evaluating one twice gives two
# results, so a fix must not duplicate it, and verification cannot compare it before and after.
RANDOM_NAME = re.compile(r"(^|\.)(random|rand\w*|dropout|uniform|normal|bernoulli|multinomial|shuffle|sample\w*|choice|permutation)(\.|$)")
# A random draw carries a gradient only through its distribution's parameters (`uniform(key, shape,
# minval=lo)` through `lo`): its key or seed is bits, its shape sizes. JAX's draws take the key first.
RANDOM_DRAW_SETTINGS = frozenset({"key", "rng", "rng_key", "seed", "generator", "shape", "size", "sample_shape"})
KEY_FIRST_RANDOM_MODULE = "jax.random"

# --- NaN masks after the fact (NAN201) --------------------------------------------------------------
@dataclass(frozen=True)
class NanTest:
    """A test of a value for NaN or non-finiteness: `where(isnan(v), 0.0, v)` masks `v` after the
    computation that made it non-finite. `x != x` is a NaN test too (read by the analysis, not a name).
    An infinite value turns NaN in most arithmetic after it (0 * inf, inf - inf), so every test is read
    as one for non-finite values."""

    key: str
    true_where_finite: bool  # isfinite: the test holds where the value is kept; isnan/isinf: where it is masked
    names: dict[str, tuple[str, ...]]
    methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Spellings TensorFlow 2 no longer has (tutorials still write them): calling one raises AttributeError.
    # Read as the test they mean, and reported with their TensorFlow 2 spelling.
    removed_in_tf2: tuple[str, ...] = ()


NAN_TESTS: tuple[NanTest, ...] = (
    NanTest(
        "isnan",
        False,
        _names(
            jax="jnp.isnan",
            tensorflow="tf.math.is_nan tnp.isnan tf.compat.v1.is_nan tf.compat.v1.debugging.is_nan tf.compat.v1.math.is_nan",
            torch="torch.isnan",
            autograd="anp.isnan",
            keras="ops.isnan",
            numpy="np.isnan",
        ),
        _methods(torch="isnan"),
        removed_in_tf2=_expand("tf.debugging.is_nan tf.is_nan"),
    ),
    NanTest(
        "isinf",
        False,
        _names(
            jax="jnp.isinf jnp.isposinf jnp.isneginf",
            tensorflow="tf.math.is_inf tnp.isinf tnp.isposinf tnp.isneginf tf.compat.v1.is_inf tf.compat.v1.debugging.is_inf tf.compat.v1.math.is_inf",
            torch="torch.isinf torch.isposinf torch.isneginf",
            autograd="anp.isinf",
            keras="ops.isinf ops.isposinf",
            numpy="np.isinf np.isposinf np.isneginf",
        ),
        _methods(torch="isinf isposinf isneginf"),
        removed_in_tf2=_expand("tf.debugging.is_inf tf.is_inf"),
    ),
    NanTest(
        "isfinite",
        True,
        _names(
            jax="jnp.isfinite",
            tensorflow="tf.math.is_finite tnp.isfinite tf.compat.v1.is_finite tf.compat.v1.debugging.is_finite tf.compat.v1.math.is_finite",
            torch="torch.isfinite",
            autograd="anp.isfinite",
            keras="ops.isfinite",
            numpy="np.isfinite",
        ),
        _methods(torch="isfinite"),
        removed_in_tf2=_expand("tf.debugging.is_finite tf.is_finite"),
    ),
)

# Reductions of truth values over every element, by last name (`jnp.all(m)`, `m.any()`,
# `tf.reduce_all`): True where the reduction holds only if each element's condition does (`all`),
# False where it fails only if each element's does (`any`). With an axis, the reduced condition
# broadcasts against other axes than it reduced, so only the whole reduction is read.
TRUTH_REDUCTIONS: dict[str, bool] = {"all": True, "reduce_all": True, "any": False, "reduce_any": False}
# A NaN test by its last name (`is_nan`, `isfinite`, `x.isinf()`): whether it holds where the value
# is finite. Of the finite values, a test of non-finiteness holds at none, `isfinite` at all.
NAN_TEST_LEAVES: dict[str, bool] = {
    name.rsplit(".", 1)[-1]: test.true_where_finite
    for test in NAN_TESTS
    for names in (*test.names.values(), *test.methods.values(), test.removed_in_tf2)
    for name in names
}


@dataclass(frozen=True)
class NanReplacement:
    """A call that replaces the non-finite values of its `value` argument by finite ones: `nan_to_num(v)`,
    or `multiply_no_nan(v, mask)`, which is 0 where `mask` is 0 even where `v` is NaN."""

    key: str
    names: dict[str, tuple[str, ...]]
    methods: dict[str, tuple[str, ...]] = field(default_factory=dict)
    value: Arg = FIRST
    method_value: Arg = RECEIVER
    # The keyword that gives the replacement of NaN (`nan_to_num(v, nan=jnp.nan)` keeps NaN: no mask).
    fill: Optional[str] = None


NAN_REPLACEMENTS: tuple[NanReplacement, ...] = (
    NanReplacement(
        "nan_to_num",
        # TensorFlow has none (`tnp.nan_to_num` does not exist): it masks with `tf.where`.
        _names(jax="jnp.nan_to_num", torch="torch.nan_to_num", autograd="anp.nan_to_num", keras="ops.nan_to_num", numpy="np.nan_to_num"),
        _methods(torch="nan_to_num nan_to_num_"),
        fill="nan",
    ),
    NanReplacement("multiply_no_nan", _names(tensorflow="tf.math.multiply_no_nan"), value=Arg(0, ("x",))),
)

# Sums that scatter values into slots by index: (the values, the indices). A slot no index names
# holds 0, and its cotangent goes nowhere: the transpose gathers by the same indices.
SCATTER_SUMS: dict[str, tuple[Arg, Arg]] = {
    "jax.ops.segment_sum": (Arg(0, ("data",)), Arg(1, ("segment_ids",))),
    "tensorflow.math.segment_sum": (Arg(0, ("data",)), Arg(1, ("segment_ids",))),
    "tensorflow.math.unsorted_segment_sum": (Arg(0, ("data",)), Arg(1, ("segment_ids",))),
    "tensorflow.segment_sum": (Arg(0, ("data",)), Arg(1, ("segment_ids",))),
    "tensorflow.unsorted_segment_sum": (Arg(0, ("data",)), Arg(1, ("segment_ids",))),
    "tensorflow.scatter_nd": (Arg(1, ("updates",)), Arg(0, ("indices",))),
    "torch_scatter.scatter_add": (Arg(0, ("src",)), Arg(1, ("index",))),
    "torch_scatter.scatter_sum": (Arg(0, ("src",)), Arg(1, ("index",))),
}


def scatter_sum(qualified: Optional[str]) -> Optional[tuple[Arg, Arg]]:
    """Where the values and the indices of the scatter-sum `qualified` names sit; None for another."""
    return next((SCATTER_SUMS[name] for name in canonical_names(qualified) if name in SCATTER_SUMS), None) if qualified else None

# Gathers: only the gathered operand (the first argument, or a method's receiver) carries a
# gradient; the indices receive none. Their value is some of the operand's elements, so it keeps the
# operand's value range, as a subscript does (`exp(lp.gather(-1, i))`).
GATHERS = frozenset({"gather", "gather_nd", "batch_gather", "take", "take_along_axis", "take_along_dim", "index_select"})
# Functions and methods whose values are the operand's elements, rearranged, repeated or kept in
# running extrema (torch's `sort`, `cummin` and `cummax` as their `values`): the operand's range.
REARRANGEMENTS = frozenset({"flip", "fliplr", "flipud", "roll", "rot90", "sort", "repeat", "tile", "expand_as", "cummax", "cummin"})
# Either way, the value is some of the operand's elements.
ELEMENTS_OF_OPERAND = GATHERS | REARRANGEMENTS
# What a value goes through on its way to a NaN mask, by the last name of a framework function or a
# tensor method (the frameworks share these names). A mask is reported only when computation that
# can turn finite inputs non-finite lies on that way: a singular op of OPS, or a framework function
# outside these two sets. These pass a NaN through and cannot make one (finite inputs give finite
# values and finite derivatives): reductions, shape and dtype changes, products and their sums
# (interpolation, pooling, convolution), bounded functions, smooth activations, and whatever only
# rearranges its operand's elements. (arctan2's derivative is NaN at (0, 0) where OPS lists it: the
# way reads it as that op first, whose value is finite everywhere.)
NAN_PRESERVING: frozenset[str] = frozenset(
    """
    sum mean average nansum nanmean cumsum prod max min amax amin logsumexp trace median nanmedian
    reduce_sum reduce_mean reduce_max reduce_min reduce_prod reduce_logsumexp
    reshape ravel flatten squeeze expand_dims unsqueeze transpose swapaxes moveaxis movedim permute view contiguous
    concatenate concat cat stack hstack vstack dstack column_stack split chunk unbind tile broadcast_to pad
    diff ediff1d
    clone copy identity astype cast to float double half type type_as asarray as_tensor convert_to_tensor array constant add_n
    real imag conj view_as_real view_as_complex
    matmul dot vdot einsum tensordot inner outer mm bmm
    add subtract multiply negative neg sub mul abs absolute square lerp
    avg_pool avg_pool1d avg_pool2d avg_pool3d max_pool max_pool1d max_pool2d max_pool3d
    conv conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d depthwise_conv2d conv_general_dilated
    tanh sigmoid relu relu6 leaky_relu elu selu celu gelu silu swish softplus softsign log_sigmoid
    softmax log_softmax logaddexp sin cos erf arctan atan arctan2 atan2
    """.split()
) | ELEMENTS_OF_OPERAND | {name.rsplit(".", 1)[-1] for name in SCATTER_SUMS}
# Comparisons spelled as functions or methods (`jnp.greater(a, b)`, torch's `a.gt(b)`, MXNet's
# `broadcast_lesser`), by last name -> the operator they compute: conditions read them as that
# comparison, and their truth values carry no gradient.
COMPARISON_FUNCTIONS: dict[str, str] = {
    **dict.fromkeys(("greater", "gt", "broadcast_greater"), ">"),
    **dict.fromkeys(("greater_equal", "ge", "broadcast_greater_equal"), ">="),
    **dict.fromkeys(("less", "lt", "lesser", "broadcast_lesser"), "<"),
    **dict.fromkeys(("less_equal", "le", "lesser_equal", "broadcast_lesser_equal"), "<="),
    **dict.fromkeys(("equal", "eq", "broadcast_equal"), "=="),
    **dict.fromkeys(("not_equal", "ne", "broadcast_not_equal"), "!="),
}
# These give values that no gradient flows through: comparisons, indices, integer results, constants
# shaped like their input, random draws. A value made only of them carries no gradient to leak.
NON_DIFFERENTIABLE: frozenset[str] = frozenset(COMPARISON_FUNCTIONS) | frozenset(
    """
    argmax argmin argsort argwhere nonzero searchsorted digitize bincount unique count_nonzero one_hot
    round rint floor ceil trunc fix sign signbit floor_divide floordiv
    isclose allclose any all
    logical_and logical_or logical_not logical_xor isnan isinf isfinite isposinf isneginf is_nan is_inf is_finite
    zeros_like ones_like empty_like full_like zeros ones empty full arange eye rand_like randn_like randint_like
    shape size ndim rank numel item tolist numpy long int short byte bool tensor from_numpy
    scalar_tensor new_tensor new_zeros new_ones new_empty
    stop_gradient detach
    """.split()
)
# Constructors whose value is their fill argument (`full_like(x, v)`, `x.new_full(size, v)`): a
# gradient reaches the fill value only.
FILL_ARGUMENT: dict[str, Arg] = {name: Arg(1, ("fill_value", "value")) for name in ("full", "full_like", "new_full")}
# Linear interpolation (`interp(x, xp, fp, left=None, right=None)` in NumPy and JAX): a value between
# two of `fp`, or `left` / `right` outside `xp` (`fp`'s ends by default), so within their range.
INTERPOLATION_VALUES: dict[str, tuple[Arg, ...]] = {
    name: (Arg(2, ("fp",)), Arg(3, ("left",)), Arg(4, ("right",))) for name in _expand("jnp.interp np.interp")
}
# Python builtins whose result no gradient flows through: sizes, integers, truth values.
BUILTINS_WITHOUT_GRADIENT = frozenset({"len", "int", "bool", "range", "str", "round", "isinstance", "hash", "id"})
# Frameworks whose autograd records tensors only: in a file that computes with torch (and NumPy)
# alone, a parameter annotated `float` is a Python number, never a recorded value; under JAX it
# may be a tracer (`jax.grad(f)(0.5)`).
TENSOR_ONLY_FRAMEWORKS = frozenset({"torch", "numpy"})
# A parameter annotated with one of these holds a Python value no gradient flows through.
ANNOTATIONS_WITHOUT_GRADIENT = frozenset({"int", "bool", "str"})
# Transforms whose static arguments are Python values, hashed into the trace, never tracers: a
# function decorated with one (directly, or through `functools.partial`) gets no gradient through
# them. Keywords naming the static positions, then the static names.
STATIC_ARGUMENTS: dict[str, tuple[str, Optional[str]]] = {
    "jax.jit": ("static_argnums", "static_argnames"),
    "jax.pmap": ("static_broadcasted_argnums", None),
}
# `partial(jax.jit, static_argnums=...)`: the transform is the first argument, its keywords given here.
PARTIAL_APPLICATION = "functools.partial"
# Python builtins that make a Python number of Python numbers (`max(eps, 1e-7)`).
NUMBER_BUILTINS = frozenset({"max", "min", "abs", "float", "int", "round", "pow"})
# Builtins that return a Python number whatever they are given: under jit a traced value raises
# there, and torch's `float(t)` leaves the graph.
SCALAR_CONVERSIONS = frozenset({"float", "int", "bool"})
# A parameter annotated with one of these is one Python number, the same for every element.
SCALAR_ANNOTATIONS = frozenset({"float", "int", "bool"})
# Casts by last name: their dtype argument decides whether the result carries a gradient.
CASTS = frozenset({"astype", "cast", "to", "type"})
# Of those, the ones that cut the graph: their result is an integer, a truth value, a fresh constant or
# a detached copy, so nothing flows back into their inputs. `floor`, `round`, `sign` are not among
# them: torch (and TensorFlow's `sign`) send a zero back, and an op inside still multiplies it by
# its own derivative (0 * inf).
NO_GRADIENT_PATH: frozenset[str] = NON_DIFFERENTIABLE - frozenset("round rint floor ceil trunc fix sign signbit".split())
# ... but JAX defines their derivative as a symbolic zero and TensorFlow (`sign` aside) as `None`:
# nothing at all flows back, so in those frameworks they cut the graph too (run under XLA).
NO_GRADIENT_PATH_IN: dict[str, frozenset[str]] = {
    "jax": frozenset("round rint floor ceil trunc fix sign".split()),
    "tensorflow": frozenset("round rint floor ceil".split()),
    # JAX and TensorFlow differentiate `linspace`'s start and stop (run); torch's takes numbers.
    "torch": frozenset({"linspace"}),
}
# Modules that compute on the host: their results are NumPy arrays or Python numbers, which no
# framework records a gradient through (given a traced value, they fail).
HOST_MODULES = frozenset({"numpy", "math", "scipy"})
# Modules whose functions return Python numbers (`math.sqrt(r)`), never an array.
PYTHON_NUMBER_MODULES = frozenset({"math"})
# Dtypes of values without a gradient: a cast to one (`x.astype(jnp.int32)`, `x.long()`) ends the way.
INTEGER_DTYPES: frozenset[str] = frozenset(
    "int8 int16 int32 int64 uint8 uint16 uint32 uint64 int long short byte bool bool_".split()
)

# The dtype queries: `finfo(t).max` and `iinfo(t).max` are a dtype's largest value (at least 127).
DTYPE_INFO = frozenset({"finfo", "iinfo"})
# `isclose(x, 0)`'s default absolute tolerance, the same in NumPy, JAX and torch: it holds where
# |x| <= 1e-8 (the relative tolerance scales 0).
ISCLOSE_ATOL = 1e-8

# PEP 8 constants (EPS, SCALE) are module-level configuration, not data.
CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]+$")  # two characters at least: `T`, `X` are data
# Keyword arguments that configure a computation rather than feed it data (`norm(x, axis=axis)`).
CONFIGURATION_KEYWORDS = frozenset({"dtype", "axis", "axes", "dim", "keepdims", "keepdim", "shape", "name", "device", "out", "ord"})
# Calls whose result is a pair (values, indices), by last name: `_, i = top_k(x, k)`. The indices
# (position 1, or the `indices` field) are integers, which no gradient flows back through. In torch
# also `sort`, and `max`/`min`/`median`/`mode` given a dimension; elsewhere those return one array.
PAIRS_WITH_INDICES = frozenset({"top_k", "topk", "approx_max_k", "approx_min_k", "kthvalue", "cummax", "cummin"})
TORCH_PAIRS_WITH_INDICES = frozenset({"sort"})
TORCH_PAIRS_WITH_INDICES_ALONG_A_DIM = frozenset({"max", "min", "median", "nanmedian", "mode"})
INDICES_FIELD = "indices"
VALUES_FIELD = "values"
# Metadata of an array, never its values: nothing flows through it to a gradient.
METADATA_ATTRS = frozenset({"dtype", "shape", "ndim", "size", "device"})
# Uses that take a value out of the graph (analysis/reach.py): Python builtins that make a Python
# value of a tensor (`float(t)` is `t.item()`), and variable assignments, through which TensorFlow
# records no gradient (a later read of the variable is a gradient source of its own).
PYTHON_VALUE_BUILTINS = frozenset({"bool", "int", "float", "complex", "len", "str", "repr", "print", "isinstance"})
# Keras 2 optimizers update a variable's rows with `self._resource_scatter_add(var, indices, x)`.
VARIABLE_ASSIGNMENTS = frozenset({"assign", "assign_add", "assign_sub", "_resource_scatter_add", "_resource_scatter_update"})
# Framework classes whose subclasses are never differentiated, each by its qualified name or by its
# module (every class there): contexts.py skips the methods of a class derived from one, as it skips
# a no_grad block. A dataset makes examples out of stored data, which no parameter reaches; a Keras
# metric keeps its state in variables it assigns, and an assignment records no gradient; a
# learning-rate schedule is a function of the step counter. Not optimizers, nor torchmetrics'
# metrics: meta-gradients go through the one, and the other are losses too (`is_differentiable`).
NEVER_DIFFERENTIATED_BASES = frozenset(
    {
        "torch.utils.data.Dataset",
        "torch.utils.data.IterableDataset",
        "torch.utils.data.dataset",
        "torch_geometric.data.Dataset",
        "torch_geometric.data.InMemoryDataset",
        "torch_geometric.data.dataset",
        "torch_geometric.data.in_memory_dataset",
        "keras.utils.Sequence",
        "keras.utils.PyDataset",
        "tensorflow.keras.utils.Sequence",
        "tf_keras.utils.Sequence",
        "keras.metrics",
        "keras.src.metrics",
        "tensorflow.keras.metrics",
        "tf_keras.metrics",
        "tf_keras.src.metrics",
        "keras.optimizers.schedules",
        "keras.src.optimizers.schedules",
        "tensorflow.keras.optimizers.schedules",
        "tf_keras.optimizers.schedules",
        "tf_keras.src.optimizers.schedules",
        "torch.optim.lr_scheduler",
    }
)
# The words a class statement deriving from one of those spells (the text test that decides which
# statements contexts.py reads whole), as the end of a word: the classes users derive from
# (`InMemoryDataset`, `_LRScheduler`), and `metrics` (`metrics.Mean`).
NEVER_DIFFERENTIATED_BASE_WORDS = ("Dataset", "Sequence", "Metric", "LearningRateSchedule", "LRScheduler", "metrics")
# Calls that start reverse mode from the value given (`loss.backward()`, `torch.autograd.grad(loss, x)`).
STARTS_REVERSE_MODE = frozenset({"backward", "grad", "gradient"})


# Elementary functions by their last name, for the value-range test of a singular op's argument:
# constants folded (`log(2.0)`), and the monotone ones mapped over an interval (`exp(-abs(x))` <= 1).
def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _softplus(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


INCREASING_FUNCTIONS: dict[str, Callable[[float], float]] = {
    "exp": math.exp, "exp2": lambda x: 2.0**x, "expm1": math.expm1, "log": math.log, "log1p": math.log1p,
    "log2": math.log2, "log10": math.log10, "sqrt": math.sqrt, "cbrt": lambda x: math.copysign(abs(x) ** (1 / 3), x),
    "tanh": math.tanh, "sigmoid": _sigmoid, "softplus": _softplus, "arctan": math.atan, "atan": math.atan,
    "erf": math.erf, "sinh": math.sinh, "arcsinh": math.asinh, "asinh": math.asinh,
}
# Sines by last name -> their phase (`cos(x) = sin(x + pi/2)`): within [-1, 1] whatever their
# argument, and over an argument's range shorter than a period, between the values at its ends and
# the peaks inside it (`sin` of [0.1, 3] is positive, so `1 / sin(clip(x, 0.1, 3))` has no pole).
SINES: dict[str, float] = {"sin": 0.0, "cos": math.pi / 2}
# Increasing between its poles at pi/2 + k*pi, where it takes every value.
TANGENTS = frozenset({"tan"})
# Log-probabilities, never positive whatever their argument: `log_softmax(x) = x - logsumexp(x)`,
# `log_sigmoid(x) = -softplus(-x)`. By last name (torch spells one `logsigmoid`) -> whether 0 is
# attained; read for an imported function or a tensor method, not for a function the file defines.
BOUNDED_ABOVE_BY_ZERO: dict[str, bool] = {"log_softmax": True, "log_sigmoid": False, "logsigmoid": False}
# Reductions whose value is at least every element: `x - max(x)` <= 0, `x - logsumexp(x)` <= 0;
# and the running ones, at least every element up to it: `x - cummax(x, axis)` <= 0.
UPPER_REDUCTIONS = frozenset({"max", "amax", "reduce_max", "logsumexp", "reduce_logsumexp", "cummax", "cumlogsumexp"})
# ... and at most every element: `x - min(x)` >= 0, `x - cummin(x, axis)` >= 0.
LOWER_REDUCTIONS = frozenset({"min", "amin", "reduce_min", "cummin"})
# Absolute values and negations by last name, for value ranges (`x.abs()`, `tf.negative(x)`) and
# for conditions on `|x|`.
ABSOLUTE_VALUES = frozenset({"abs", "absolute", "fabs"})
NEGATIONS = frozenset({"neg", "negative"})
# Sums of two by last name, for value ranges (`jnp.add(a, b)`, `x.add_(eps)`); not with torch's
# `alpha=`, which scales the second.
ADDITIONS = frozenset({"add", "add_"})
# Module constants that are NaN, or NaN or infinite, by last name (`jnp.nan`, `np.inf`, `math.inf`).
NAN_NAMES = frozenset({"nan", "NaN", "NAN"})
NONFINITE_NAMES = NAN_NAMES | frozenset({"inf", "Inf", "infty", "NINF", "PINF"})
# The array API standard's ways to get the namespace of an array: functions that return it
# (`xp = array_namespace(x)`) and the array's own method (`x.__array_namespace__()`). The standard
# names its functions as jax.numpy does, with the same values and derivatives (`xp.where`,
# `xp.log`, `xp.expm1`), so a local so bound is read as that module, whichever framework's arrays
# it is given at run time.
NAMESPACE_GETTERS = frozenset({"array_api_compat.array_namespace", "array_api_compat.get_namespace"})
NAMESPACE_METHOD = "__array_namespace__"
# The array API's select, `where(condition, x1, x2)`: an object called so is used as a namespace.
NAMESPACE_SELECT = "where"
ARRAY_API_MODULE = "jax.numpy"
# Sizes, which are counts and never negative: `x.shape[0]`, `tf.shape(x)[0]`, `x.ndim`, `x.size`
# (NumPy's and JAX's attribute), `x.size(1)`, `x.numel()` (torch's methods), `len(x)`,
# `jnp.size(x)`, `tf.size(x)`. By last name.
SHAPES = frozenset({"shape"})
COUNT_ATTRIBUTES = frozenset({"ndim", "size"})
COUNT_METHODS = frozenset({"size", "numel", "nelement", "dim", "ndimension"})
COUNT_FUNCTIONS = frozenset({"size", "ndim", "numel"})
COUNT_BUILTINS = frozenset({"len"})
# Python's `max(a, b, ...)` and `min(a, b, ...)` of numbers: at least (at most) each argument.
# `max(x.shape[0], 1)` is a count of at least 1. (With one argument they reduce an iterable.)
EXTREMA_BUILTINS = frozenset({"max", "min"})
# Remainders by last name -> whether the result takes the dividend's sign (C's `fmod`, TensorFlow's
# `truncatemod`) rather than the divisor's (`%`, `mod`, `remainder`, `floormod`). Either way it is
# smaller in size than the divisor: `t % 500` is in [0, 500).
REMAINDERS = {"mod": False, "remainder": False, "floormod": False, "fmod": True, "truncatemod": True}
# Evenly spaced counts from a start (`arange(1, n)` >= 1 with a positive step): their value range.
RANGES = frozenset({"arange", "range"})
# Constructors whose elements differ though their arguments are Python numbers (`linspace(0, 1, n)`,
# a grid, an identity): not one number for every element, as `full(shape, r)` is.
VARYING_CONSTRUCTORS = RANGES | frozenset({"linspace", "logspace", "geomspace", "meshgrid", "mgrid", "ogrid", "indices", "iota", "eye", "identity", "tri"})
# torch's gradient leaves: a constructor given `requires_grad=True` (`torch.zeros(3,
# requires_grad=True)`), or a tensor after `.requires_grad_()`, receives a gradient of its own,
# whatever it was made of.
REQUIRES_GRAD_KEYWORD = "requires_grad"
REQUIRES_GRAD_METHODS = frozenset({"requires_grad_"})
# torch's parameters, by last name: a module's learnable leaves, whatever they are made of
# (`nn.Parameter(torch.ones(3))`).
PARAMETER_CONSTRUCTORS = frozenset({"Parameter", "UninitializedParameter", "ParameterList", "ParameterDict"})
# The library whose functions make tensors (`torch.linspace`), and its namespace of modules, which
# own Parameters though built of numbers (`torch.nn.Linear(3, 4)`, `torch.nn.modules.linear.Linear`):
# a value made there is no tensor, but for its functions' namespaces (`torch.nn.functional.relu`).
TENSOR_LIBRARY = "torch"
MODULE_NAMESPACE = "torch.nn"
TENSOR_FUNCTION_NAMESPACES = frozenset({"torch.nn.functional", "torch.nn.init"})
# torch's in-place methods end in `_` (`x.mul_(m)`, `x.requires_grad_()`): they change the value
# their receiver holds.
IN_PLACE_SUFFIX = "_"


def is_in_place(method: str) -> bool:
    """Whether a method, by its name, changes its receiver in place (a dunder is no such method)."""
    return method.endswith(IN_PLACE_SUFFIX) and not method.startswith("__")


# torch.nn.Module methods that store a value into an attribute of the module, by name -> the
# positions and keywords of the attribute's name and of the value (`self.register_buffer("k", t)`
# makes `self.k`).
ATTRIBUTE_REGISTRATIONS: dict[str, tuple[Arg, Arg]] = {
    "register_buffer": (Arg(0, ("name",)), Arg(1, ("tensor",))),
    "register_parameter": (Arg(0, ("name",)), Arg(1, ("param",))),
}
# Python's own: `for i in range(n)` takes integers (an integer power of one is smooth).
PYTHON_RANGES = frozenset({"range"})
# Annotations of a parameter that holds a Python integer.
INTEGER_ANNOTATIONS = frozenset({"int"})
# Constructors of a constant: their value, by last name (`full_like` is its fill value).
CONSTANT_CONSTRUCTORS = {"ones_like": 1.0, "zeros_like": 0.0, "ones": 1.0, "zeros": 0.0, "new_ones": 1.0, "new_zeros": 0.0}
# Which side a clamp-like call bounds, by its name; clip/clamp depend on the bounds given.
LOWER_CLAMPS = frozenset({"maximum", "fmax", "max", "clamp_min"})
UPPER_CLAMPS = frozenset({"minimum", "fmin", "min", "clamp_max"})
LOWER_KEYWORDS = frozenset({"min", "a_min", "clip_value_min", "x_min", "min_value"})
UPPER_KEYWORDS = frozenset({"max", "a_max", "clip_value_max", "x_max", "max_value"})
# Casts, copies and reshapes carry their values through: `where(c, x, 1.0).astype(dtype)` is still a
# guarded value, and so is `x.clamp_min(1e-8).unsqueeze(-1)`; `typing.cast(T, v)` is `v`. Functions
# by last name -> the position of the value carried.
PASS_THROUGH_METHODS = frozenset(
    "astype to float double half type type_as reshape squeeze unsqueeze view expand flatten permute transpose contiguous clone".split()
)
PASS_THROUGH_FUNCTIONS = {
    **{
        name: 0
        for name in "cast asarray convert_to_tensor reshape squeeze unsqueeze expand_dims broadcast_to transpose moveaxis swapaxes".split()
    },
    "typing.cast": 1,
    # A tensor made of a value has that value (`torch.tensor(RADIUS)`, `tf.constant(-1e3)`).
    **{name: 0 for name in _expand("jnp.array tf.constant torch.tensor torch.as_tensor torch.scalar_tensor anp.array")},
    # einops moves elements without changing them (`rearrange(safe, "b -> b 1")`).
    "einops.rearrange": 0,
    "einops.repeat": 0,
}
# Reshapes that keep each element where broadcasting puts it (by last name): a condition so reshaped
# (`c.unsqueeze(-1)`, `jnp.expand_dims(c, -1)`, `c.expand_as(x)`) selects the elements `c` does.
# Not transposes, which move them.
CONDITION_RESHAPES = frozenset(
    {"unsqueeze", "expand_dims", "expand", "expand_as", "broadcast_to", "reshape", "view", "view_as", "reshape_as"}
)
# Barriers: no gradient flows back through them (qualified names, and tensor methods); the value
# questions, which read calls by last name, know them as STOP_GRADIENT.
BARRIERS = frozenset({"jax.lax.stop_gradient", "tensorflow.stop_gradient"})
BARRIER_METHODS = frozenset({"detach"})
STOP_GRADIENT = frozenset(name.rsplit(".", 1)[-1] for name in BARRIERS) | BARRIER_METHODS


# Functions whose output is bounded below, for the value-range test of a singular op's argument:
# name -> (lower bound, whether the bound is attained). exp(x) > 0, abs(x) >= 0, cosh(x) >= 1.
def _bounded_below(*groups: tuple[str, float, bool]) -> dict[str, tuple[float, bool]]:
    return {name: (lo, closed) for spec, lo, closed in groups for name in _expand(spec)}


BOUNDED_BELOW_FUNCTIONS = _bounded_below(
    (
        "jnp.abs jnp.absolute jnp.square lax.abs lax.square tf.abs tf.math.abs tf.square tf.math.square "
        "tnp.abs tnp.square torch.abs torch.square anp.abs anp.square ops.abs ops.square "
        "jnn.relu jnn.softplus tf.nn.relu tf.nn.softplus tf.math.softplus torch.relu ops.relu ops.softplus",
        0.0,
        True,
    ),
    (
        "jnp.exp lax.exp tf.exp tf.math.exp torch.exp anp.exp ops.exp "
        "jnn.sigmoid tf.sigmoid tf.math.sigmoid torch.sigmoid ops.sigmoid",
        0.0,
        False,
    ),
    ("jnp.cosh lax.cosh tf.math.cosh tf.cosh torch.cosh anp.cosh ops.cosh", 1.0, True),
) | {name: (0.0, False) for name in _TAD_MCTC_CLAMPED}  # at least eps**(1/p), and sqrt(eps)
# Sums (functions, and the tensor method): of terms that are all >= 0 a sum is >= 0, of terms that
# are all <= 0 it is <= 0, and of other terms anything: `sum(x)` alone is not bounded.
SUMS = frozenset(_expand("jnp.sum tf.reduce_sum tf.math.reduce_sum torch.sum anp.sum ops.sum"))
SUM_METHODS = frozenset({"sum"})
# Contractions of two operands (functions and tensor methods): each element of the result is a sum
# of products of one element of each (`dot`, `matmul`, `einsum`; `outer` is one such product), so
# its sign follows from theirs. `vdot` flattens both, and an `einsum` whose two operands carry the
# same subscripts pairs each element with itself: of one operand twice, a sum of squares.
CONTRACTIONS = frozenset(
    _expand(
        "jnp.dot jnp.vdot jnp.inner jnp.outer jnp.matmul jnp.tensordot jnp.einsum "
        "tf.matmul tf.linalg.matmul tf.tensordot tf.linalg.tensordot tf.einsum tf.linalg.einsum "
        "torch.dot torch.vdot torch.inner torch.outer torch.matmul torch.mm torch.bmm torch.tensordot torch.einsum "
        "anp.dot anp.vdot anp.inner anp.outer anp.matmul anp.tensordot anp.einsum "
        "ops.dot ops.vdot ops.inner ops.outer ops.matmul ops.tensordot ops.einsum"
    )
)
CONTRACTION_METHODS = frozenset({"dot", "vdot", "inner", "outer", "matmul", "mm", "bmm"})
# ... and those that pair the i-th element of one with the i-th of the other, flattened.
PAIRING_CONTRACTIONS = frozenset({"vdot"})
BOUNDED_BELOW_METHODS: dict[str, tuple[float, bool]] = {
    "abs": (0.0, True),
    "square": (0.0, True),
    "exp": (0.0, False),
    "sigmoid": (0.0, False),
    "cosh": (1.0, True),
}


def _index() -> tuple[dict[str, tuple[SingularOp, str]], dict[str, tuple[SelectFunction, str]]]:
    ops: dict[str, tuple[SingularOp, str]] = {}
    for op in OPS:
        for fw, names in op.names.items():
            for name in names:
                ops[name] = (op, fw)
    selects: dict[str, tuple[SelectFunction, str]] = {}
    for sel in SELECTS:
        for fw, names in sel.names.items():
            for name in names:
                selects.setdefault(name, (sel, fw))
    return ops, selects


OP_INDEX, SELECT_INDEX = _index()


def _index_by_name(entries) -> dict[str, tuple]:
    return {name: (entry, fw) for entry in entries for fw, names in entry.names.items() for name in names}


NAN_TEST_INDEX: dict[str, tuple[NanTest, str]] = {
    **{name: (test, "tensorflow") for test in NAN_TESTS for name in test.removed_in_tf2},
    **_index_by_name(NAN_TESTS),
}
NAN_REPLACEMENT_INDEX: dict[str, tuple[NanReplacement, str]] = _index_by_name(NAN_REPLACEMENTS)
SELECT_LEAF_NAMES = frozenset(name.rsplit(".", 1)[1] for name in SELECT_INDEX) | frozenset(
    m for sel in SELECTS for names in sel.methods.values() for m in names
)


def is_finite_number(value: float) -> bool:
    return not (math.isinf(value) or math.isnan(value))
