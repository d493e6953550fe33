"""The analysis's parts on their own, on real libcst parses: name resolution, values, conditions, intervals."""

import math
import textwrap

import libcst as cst
import pytest

from nanlint.analysis.analyse import analyse_whole_file
from nanlint.analysis.conditions import affine_base, region_of, selected_values
from nanlint.analysis.detector import Detector, _decided_by_sign, _Env
from nanlint.analysis.names import binding_at, qualified_name
from nanlint.analysis.tree import walk
from nanlint.analysis.values import (
    can_reach,
    carries_gradient,
    constant_value,
    depends_on_data,
    is_configuration,
    is_integer_valued,
    is_epsilon_shifted,
    value_range,
)
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.catalog.lookup import Catalog
from nanlint.check import Checker
from nanlint.config.settings import Settings


def detector_for(source: str) -> Detector:
    return analyse_whole_file(textwrap.dedent(source).lstrip("\n"), Catalog(Settings()))


def last_return(detector: Detector) -> tuple[cst.BaseExpression, _Env]:
    """The value of the file's last `return`, with the bindings seen from there."""
    returns = [n for tree in detector.trees for n in walk(tree.module) if isinstance(n, cst.Return)]
    value = returns[-1].value
    return value, _Env(detector, detector.index.scope_at(value), detector.place(value))


def returned(source: str) -> tuple[cst.BaseExpression, _Env]:
    return last_return(detector_for(source))


# --- names ------------------------------------------------------------------------------------------
def test_imports_resolve_to_qualified_names_unless_shadowed() -> None:
    detector = detector_for("""
        import jax.numpy as jnp
        from jax import lax as L
        import torch

        def f(x):
            return jnp.linalg.norm(x), L.rsqrt(x), torch.special.entr(x)

        def g(jnp):
            return jnp.sqrt(1)
    """)
    calls = [n for tree in detector.trees for n in walk(tree.module) if isinstance(n, cst.Call)]
    names = [qualified_name(c.func, detector.index.scope_at(c), detector.place(c)) for c in calls]
    assert names == ["jax.numpy.linalg.norm", "jax.lax.rsqrt", "torch.special.entr", None]


def test_the_latest_binding_before_a_use_wins_and_an_assignment_binds_after_its_value() -> None:
    detector = detector_for("""
        def f(b):
            b = b.clip(0)
            b = b * 2
            return b
    """)
    value, env = last_return(detector)
    binding = env.binding(value)
    assert detector.code(binding.value) == "b * 2"
    # `b.clip(0)` reads the parameter: the assignment it is part of binds only after it.
    clip = next(n for tree in detector.trees for n in walk(tree.module) if isinstance(n, cst.Call))
    receiver = clip.func.value
    assert binding_at(env.scope, "b", detector.place(receiver)).value is None


@pytest.mark.parametrize(
    "body, reaching",
    [
        ("b = b * 2\n", ["b * 2"]),
        ("if c:\n    b = b * 2\n", ["b * 2", None]),  # the `if` may not run: the parameter too
        ("if c:\n    b = b * 2\nelse:\n    b = b * 3\n", ["b * 3", "b * 2"]),  # one of the two always runs
        ("if c:\n    b = b * 2\nelif d:\n    b = b * 3\nelse:\n    b = b * 4\n", ["b * 4", "b * 3", "b * 2", None]),
        ("if d:\n    if c:\n        b = b * 2\n    else:\n        b = b * 3\n", ["b * 3", "b * 2", None]),
        ("for _ in range(3):\n    b = b * 2\n", ["b * 2", None]),  # a loop may run no time
        ("try:\n    b = b * 2\nexcept ValueError:\n    pass\n", ["b * 2", None]),
        ("if c:\n    b = b * 2\nb = b * 3\n", ["b * 3"]),  # a later binding that always runs
    ],
)
def test_every_binding_that_may_reach_a_use(body: str, reaching: list) -> None:
    detector = detector_for("def f(b, c, d):\n" + textwrap.indent(body, "    ") + "    return b\n")
    value, env = last_return(detector)
    assert [detector.code(b.value) if b.value is not None else None for b in env.bindings(value)] == reaching



@pytest.mark.parametrize(
    "body, reaching",
    [
        ("if c:\n    b = b * 2\nelse:\n    return b\n", [None]),  # the other arm never ran
        ("if c:\n    b = b * 2\nelif d:\n    b = b * 3\nelse:\n    return b\n", [None]),
        ("if c:\n    b = b * 2\nelif d:\n    return b\n", [None]),
        ("if (b := b * 2) > 0:\n    pass\nelse:\n    return b\n", ["b * 2"]),  # the test always runs
        ("for _ in range(3):\n    if c:\n        b = b * 2\n    else:\n        return b\n", ["b * 2", None]),  # a turn before
        ("if c:\n    b = b * 2\n    return b\nreturn b\n", [None]),  # an arm that returns
        ("if c:\n    return 0\nelse:\n    b = b * 2\n    raise ValueError(b)\nreturn b\n", [None]),
        ("for _ in range(3):\n    if c:\n        b = b * 2\n        return b\nreturn b\n", [None]),
        ("for _ in range(3):\n    if c:\n        b = b * 2\n        if d:\n            break\n        return b\nreturn b\n", ["b * 2", None]),
        ("try:\n    if c:\n        b = b * 2\n        raise ValueError(b)\nexcept ValueError:\n    return b\n", ["b * 2", None]),  # caught
        ("with d:\n    if c:\n        b = b * 2\n        raise ValueError(b)\nreturn b\n", ["b * 2", None]),  # maybe suppressed
        ("with d:\n    if c:\n        b = b * 2\n        return b\nreturn b\n", [None]),  # a return is not
        ("global e\nif c:\n    e = b * 2\nelse:\n    return e\n", ["b * 2"]),  # another call's binding
    ],
)
def test_a_binding_on_no_way_to_a_use_never_reaches_it(body: str, reaching: list) -> None:
    detector = detector_for("def f(b, c, d):\n" + textwrap.indent(body, "    "))
    value, env = last_return(detector)
    assert [detector.code(b.value) if b.value is not None else None for b in env.bindings(value)] == reaching
    assert env.binding(value) is env.bindings(value)[0]

def test_class_bodies_are_invisible_from_their_methods() -> None:
    value, env = returned("""
        import jax.numpy as jnp

        class C:
            jnp = None

            def f(self, x):
                return jnp.sqrt(x)
    """)
    assert env.qualified(value.func) == "jax.numpy.sqrt"


# --- values -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("2 ** -1", 0.5),
        ("-(3.0 - 1)", -2.0),
        ("EPS * 10", 1e-5),
        ("jnp.pi / 2", math.pi / 2),
        ("jnp.log(2.0)", math.log(2.0)),
        ("jnp.asarray(jnp.log(2.0), x.dtype)", math.log(2.0)),  # a cast carries the constant
        ("x + 1", None),
        ("True", None),
        ("jnp.log(x)", None),
    ],
)
def test_constant_values(expression: str, expected) -> None:
    value, env = returned(f"import jax.numpy as jnp\nEPS = 1e-6\ndef f(x):\n    return {expression}\n")
    assert constant_value(value, env) == pytest.approx(expected) if expected is not None else constant_value(value, env) is None


@pytest.mark.parametrize(
    ("expression", "depends"),
    [
        ("jnp.log(2.0)", False),
        ("x.shape[0]", False),
        ("SCALE", False),
        ("None", False),
        ("'text'", False),
        ("n + 3", False),
        ("x", True),
        ("x.sum()", True),
        ("jnp.log(x)", True),
        ("helper(3)", True),
    ],
)
def test_what_depends_on_data(expression: str, depends: bool) -> None:
    value, env = returned(f"import jax.numpy as jnp\nSCALE = 2\ndef f(x):\n    n = 4\n    return {expression}\n")
    assert depends_on_data(value, env) is depends


@pytest.mark.parametrize(
    ("expression", "configuration"),
    [
        # One Python number the caller fixes: the same value for every element.
        ("1.0 / r", True),  # `r: float`
        ("jnp.sqrt(2.0 * r + n)", True),  # `n: int`
        ("math.pi * half", True),  # `half = r / 2`
        ("jnp.isfinite(r)", True),
        ("jnp.full_like(x, r)", True),  # `x` gives only the shape
        ("jnp.full_like(r, x)", False),
        ("max(r, 1e-7) if n > 2 else r", True),
        ("max(r, x)", False),
        ("SCALE", True),
        ("x / r", False),  # `x` is an array
        ("d", False),  # a numeric default says nothing: `scale=1.0` is often an array
        ("jnp.linspace(0.0, r, n)", False),  # a grid of Python numbers differs element by element
        ("jnp.arange(n) * r", False),
        ("r.sqrt()", False),  # a method: of what, nanlint cannot tell
        ("acc", False),  # rebound by `+=` in a loop
    ],
)
def test_what_is_configuration(expression: str, configuration: bool) -> None:
    source = (
        "import math\nimport jax.numpy as jnp\nSCALE = 2.0\ndef f(x, r: float, n: int, d=1.0):\n"
        "    half = r / 2\n    acc = r\n    for i in range(n):\n        acc += x[i]\n    return {}\n"
    )
    value, env = returned(source.format(expression))
    assert is_configuration(value, env) is configuration


@pytest.mark.parametrize(
    ("attribute", "low", "high"),
    [
        # `self.attr` holds one of the values its class stores into it (point 121).
        ("self.join", 0.018, 0.018),  # one constant, stored in `__init__`
        ("self.scale", 0.0, INF),  # `jnp.exp(log_scale)`
        ("self.width", 0.5, 2.0),  # stored twice: 0.5 in `__init__`, 2.0 in `widen`
        ("self.steps", -INF, INF),  # `self.steps += 1`: not one known value
        ("self.radius", -INF, INF),  # a parameter
        ("self.unknown", -INF, INF),  # never stored here: a base class may store anything
    ],
)
def test_what_a_class_stores_in_an_attribute_bounds_its_values(attribute: str, low: float, high: float) -> None:
    source = (
        "import jax.numpy as jnp\n"
        "class Layer:\n"
        "    def __init__(self, radius, log_scale):\n"
        "        self.join = 0.018\n        self.scale = jnp.exp(log_scale)\n        self.width = 0.5\n"
        "        self.steps = 0\n        self.radius = radius\n"
        "    def widen(self):\n        self.width = 2.0\n        self.steps += 1\n"
        "    def __call__(self, x):\n        return {}\n"
    )
    value, env = returned(source.format(attribute))
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == (pytest.approx(low), pytest.approx(high))
    assert constant_value(value, env) == (low if low == high else None)


# A JAX module (its arrays are leaves) and a torch module (its buffers are not), storing attributes.
_STORING_CLASSES = {
    "jax": (
        "import math\nimport jax.numpy as jnp\nfrom flax import nnx\n"
        "class Layer:\n"
        "    def __init__(self, radius: float, size, x):\n"
        "        self.radius = radius\n        self.half = self.radius / 2\n        self.size = float(size)\n"
        "        self.root = math.sqrt(radius)\n        self.weight = nnx.Param(1.0)\n        self.scale = jnp.asarray(radius)\n"
        "        self.steps = 0\n        self.pair, self.rest = radius, radius\n        self.mixed = radius\n"
        "    def step(self, x):\n        self.steps += 1\n        self.mixed = x\n"
        "    def __call__(self, x, other):\n        return {}\n"
    ),
    "torch": (
        "import torch\nfrom torch import nn\n"
        "class Cutoff(nn.Module):\n"
        "    def __init__(self, radius: float):\n        super().__init__()\n"
        "        self.register_buffer('radius', torch.tensor(radius))\n"
        "        self.weight = nn.Parameter(torch.tensor(radius))\n"
        "        self.register_buffer('grid', torch.linspace(0.0, radius, 8))\n"
        "    def forward(self, x):\n        return {}\n"
    ),
}


@pytest.mark.parametrize(
    ("module", "attribute", "configuration"),
    [
        # What a method's class stores into `self.attr`, every store: Python numbers or not.
        ("jax", "self.radius", True),  # `radius: float`
        ("jax", "self.half", True),  # `self.radius / 2`
        ("jax", "self.size", True),  # `float(size)`: a Python number whatever `size` is
        ("jax", "self.root", True),  # `math.sqrt(radius)`
        ("jax", "self.weight", False),  # `nnx.Param(1.0)`: a trainable leaf made of a Python number
        ("jax", "self.scale", False),  # `jnp.asarray(radius)`: an array, a module's parameter
        ("jax", "self.steps", False),  # `self.steps += 1`: not one known value
        ("jax", "self.pair", False),  # stored by unpacking
        ("jax", "self.mixed", False),  # one of its stores is data
        ("jax", "self.unknown", False),  # never stored here: a base class may store anything
        ("jax", "other.radius", False),  # not the receiver's
        # torch differentiates only declared leaves: a buffer of one Python number is that number
        # for every element, a Parameter made of it is a leaf (point 143).
        ("torch", "self.radius", True),  # `register_buffer("radius", torch.tensor(radius))`
        ("torch", "self.weight", False),  # `nn.Parameter(torch.tensor(radius))`
        ("torch", "self.grid", False),  # `torch.linspace(0, radius, 8)`: numbers that differ element by element
    ],
)
def test_what_a_class_stores_in_an_attribute_is_configuration(module: str, attribute: str, configuration: bool) -> None:
    value, env = returned(_STORING_CLASSES[module].format(attribute))
    assert is_configuration(value, env) is configuration


@pytest.mark.parametrize(
    ("expression", "carries"),
    [
        # No gradient flows back through sizes, indices, truth values, integer casts and constants
        # built from them; an op whose inputs are all such cannot leak.
        ("jnp.arange(n) / (n - 1)", False),  # `n: int`
        ("2.0 / (jnp.ones_like(x) * 3 - 1)", False),
        ("x.shape[0] - 1", False),
        ("(x > 0).sum()", False),
        ("x.astype(jnp.int32) % 3", False),
        ("jnp.argmax(x) + 1", False),
        ("table[k] / k", True),  # `table[k]` itself carries a gradient ...
        ("k + 1", False),  # ... but `k` is an index, an integer
        ("len(x) - 1", False),
        ("jnp.full_like(x, 2.0)", False),
        ("jnp.full_like(x, s)", True),  # the fill value is data
        ("jnp.floor(x)", False),  # JAX's derivative of floor is a symbolic zero: nothing flows back
        ("x.floor()", True),  # torch sends a zero back through floor: an op inside still multiplies it
        ("np.asarray(x) * 2", False),  # NumPy and `math` compute on the host: no framework records them
        ("math.sqrt(s)", False),
        ("x / n", True),
        # Python's number builtins carry what their arguments carry (point 122).
        ("jnp.arange(3) * min(n, k + 1)", False),
        ("jnp.arange(3) * max(n, s)", True),
        ("total / jnp.sum(x > 0)", True),  # the masked mean: the count carries none, the total does
        # A comparison spelled as a function or a method is a truth value (point 138).
        ("jnp.ones(3) / jnp.sum(jnp.greater(x, 0))", False),
        ("jnp.ones(3) / x.gt(0).sum()", False),
        ("jnp.ones(3) / x.ne(s).sum()", False),
        # A part of a value is like the value (point 71): sizes unpacked, counts from `unique`.
        ("jnp.ones(3) / rows", False),
        ("jnp.ones(3) / counts", False),
        ("jnp.ones(3) / low", True),
        # `v *= w` combines the value before with another (point 73).
        ("jnp.sin(scaled) / scaled", False),
        ("jnp.sin(grown) / grown", True),
        # torch: a tensor made to receive a gradient is differentiated, whatever it is made of (point 78).
        ("torch.zeros(3) + 1.0", False),
        ("torch.zeros(3, requires_grad=True) + 1.0", True),
        ("torch.ones(3).requires_grad_() * 2.0", True),
        # A random draw carries one only through its distribution's parameters (point 114): not
        # through its key, seed or shape.
        ("jnp.log(jax.random.uniform(key, x.shape))", False),
        ("jax.random.uniform(key, shape=(3,), minval=s)", True),
        ("jax.random.gamma(key, s)", True),  # a reparameterized draw: differentiable in `a`
        ("torch.rand(x.shape[0], generator=key) - 0.5", False),
        ("torch.normal(s, 1.0, size=(3,))", True),
        # A scatter-sum carries one only through its values: not through its indices (point 141).
        ("jax.ops.segment_sum(jnp.ones_like(x), s)", False),
        ("jax.ops.segment_sum(x, k, num_segments=n)", True),
        # JAX differentiates `linspace`'s start and stop; torch's takes numbers and records none
        # (point 147).
        ("jnp.linspace(s, 1.0, n)", True),
        ("jnp.linspace(0.0, 1.0, n)", False),
        ("torch.linspace(s, 1.0, n)", False),
    ],
)
def test_what_carries_a_gradient(expression: str, carries: bool) -> None:
    value, env = returned(
        "import math\nimport numpy as np\nimport jax\nimport jax.numpy as jnp\nimport torch\ndef f(x, s, table, k, n: int, key):\n    total = table[k] * s\n"
        "    rows, cols = x.shape\n    values, counts = jnp.unique(jnp.argmax(x, -1), return_counts=True)\n"
        "    low, high = jnp.split(x, 2)\n    scaled = jnp.arange(3) / 3\n    scaled *= n\n"
        f"    grown = jnp.arange(3) * 1.0\n    grown *= s\n    return {expression}\n"
    )
    assert carries_gradient(value, env) is carries


@pytest.mark.parametrize(
    ("attribute", "carries"),
    [
        # torch records only what flows from a declared leaf: a module's attribute whose every
        # stored value carries no gradient (a buffer of a grid) carries none (point 143).
        ("self.grid", False),  # `register_buffer("grid", torch.linspace(...))`
        ("self.knots", False),  # `torch.arange(n) * 0.5`, stored plainly
        ("self.weight", True),  # `nn.Parameter(torch.ones(n))`: a leaf, though made of constants
        ("self.frozen", False),  # `nn.Parameter(..., requires_grad=False)`
        ("self.bias", True),  # `register_parameter("bias", nn.Parameter(...))`
        ("self.tuned", True),  # a buffer made a leaf by `.requires_grad_()`
        ("self.running", True),  # a buffer updated in place (`mul_`) by what `forward` is given
        ("self.given", True),  # a buffer of what the constructor is given
        ("self.named", True),  # `setattr(self, "named", given)`
        ("self.unknown", True),  # never stored here: a base class may store anything
        ("self.size", False),  # `n: int`, a Python number
        ("self.ratio", False),  # `float(cutoff)`
        # A module built of numbers owns Parameters: its weights are leaves.
        ("self.layer.weight", True),
        ("self.layers[0].weight", True),
    ],
)
def test_what_a_torch_module_attribute_carries(attribute: str, carries: bool) -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "class Basis(nn.Module):\n"
        "    def __init__(self, n: int, cutoff: float, given, name):\n"
        "        super().__init__()\n"
        "        self.register_buffer('grid', torch.linspace(0.0, cutoff, n))\n"
        "        self.knots = torch.arange(n) * 0.5\n"
        "        self.weight = nn.Parameter(torch.ones(n))\n"
        "        self.frozen = nn.Parameter(torch.ones(n), requires_grad=False)\n"
        "        self.register_parameter('bias', nn.Parameter(torch.zeros(n)))\n"
        "        self.register_buffer('tuned', torch.zeros(n))\n        self.tuned.requires_grad_()\n"
        "        self.register_buffer('running', torch.zeros(n))\n"
        "        self.register_buffer('given', given)\n"
        "        self.named = torch.zeros(n)\n        setattr(self, 'named', given)\n"
        "        self.layer = nn.Linear(n, n)\n        self.layers = nn.ModuleList([nn.Linear(n, n)])\n"
        "        self.size = n\n        self.ratio = float(cutoff)\n"
        "    def forward(self, x):\n        self.running.mul_(0.9).add_(x)\n        return {}\n"
    )
    value, env = returned(source.format(attribute))
    assert carries_gradient(value, env) is carries


@pytest.mark.parametrize(
    ("decorator", "carries"),
    [
        # `jax.jit`'s static arguments are Python values hashed into the trace, never tracers: no
        # gradient flows through them (point 146).
        ("@partial(jax.jit, static_argnums=(1,))", False),
        ("@partial(jit, static_argnums=1)", False),
        ("@functools.partial(jax.jit, static_argnames=('n', 'k'))", False),
        ("@partial(jax.jit, static_argnames='n')", False),
        ("@partial(jax.pmap, static_broadcasted_argnums=(1,))", False),
        ("@partial(jax.jit, static_argnums=(0,))", True),  # `w` is static, `n` is traced
        ("@partial(jax.jit, static_argnums=(-1,))", True),  # a position from the end is not read
        ("@partial(jax.jit, donate_argnums=(1,))", True),
        ("@jax.jit", True),
        ("@partial(jax.vmap, in_axes=(0, None))", True),
    ],
)
def test_a_static_argument_of_jit_carries_no_gradient(decorator: str, carries: bool) -> None:
    value, env = returned(
        f"import functools\nfrom functools import partial\nimport jax\nfrom jax import jit\n{decorator}\ndef f(w, n):\n    return n\n"
    )
    assert carries_gradient(value, env) is carries


def test_an_attribute_set_by_a_computed_name_is_not_known() -> None:
    value, env = returned(
        "import torch\nfrom torch import nn\nclass Basis(nn.Module):\n"
        "    def __init__(self, n: int, name):\n        super().__init__()\n"
        "        self.register_buffer('grid', torch.zeros(n))\n        setattr(self, name, torch.ones(n, requires_grad=True))\n"
        "    def forward(self, x):\n        return self.grid\n"
    )
    assert carries_gradient(value, env) is True


def test_a_module_attribute_carries_a_gradient_under_jax() -> None:
    """JAX differentiates whatever arrays it is given, a module's too (`eqx.filter_grad`): an
    attribute made of constants is still a leaf there."""
    value, env = returned(
        "import jax.numpy as jnp\nimport equinox as eqx\n"
        "class Basis(eqx.Module):\n    grid: jnp.ndarray\n"
        "    def __init__(self, n: int):\n        self.grid = jnp.linspace(0.0, 1.0, n)\n"
        "    def __call__(self, x):\n        return self.grid\n"
    )
    assert carries_gradient(value, env) is True


@pytest.mark.parametrize(
    ("expression", "low", "high"),
    [
        ("x ** 2 + 1e-6", 1e-6, INF),
        ("x * x", 0.0, INF),
        ("2j * jnp.pi * x", 0.0, 0.0),  # the real part: data is real
        ("(x == 0) * 1e-12", 0.0, 1e-12),  # a truth value is 0 or 1
        ("jnp.exp(x)", 0.0, INF),
        ("jnp.abs(x) + EPS", 1e-6, INF),
        ("-jnp.cosh(x)", -INF, -1.0),
        ("x - 1", -INF, INF),
        # A sum has its terms' sign when they all have one, and no bound otherwise.
        ("jnp.sum(x)", -INF, INF),
        ("(x ** 2).sum(-1)", 0.0, INF),
        ("-jnp.sum(jnp.abs(x), axis=0)", -INF, 0.0),
        # exp of something never positive never overflows; these are the shapes it comes in.
        ("-jnp.abs(x) * jnp.log(2.0)", -INF, 0.0),
        ("-0.5 * x ** 2", -INF, 0.0),
        ("x - jnp.max(x, axis=-1, keepdims=True)", -INF, 0.0),
        ("x - jax.lax.stop_gradient(x.max(-1))", -INF, 0.0),
        ("x - x.min(-1, keepdims=True)[0]", 0.0, INF),
        ("jnp.exp(-jnp.abs(x))", 0.0, 1.0),
        ("-jnp.abs(x) / jnp.maximum(x * x, 0.0)", -INF, 0.0),  # a nonnegative denominator keeps the sign
        ("jnp.clip(x, 0.0, None) / 1.055", 0.0, INF),
        ("jnp.exp2(jnp.abs(x))", 1.0, INF),
        ("2.0 ** jnp.abs(x)", 1.0, INF),
        ("jnp.where(x > 0, jnp.ones_like(x), x * x)", 0.0, INF),
        ("jnp.where(x > 0, x, 1.0)", 0.0, INF),  # each branch where its condition puts it
        ("x.where(x > 0, 1.0)", 0.0, INF),  # torch's method form
        ("jnp.where(x > 0, 1.0, x)", -INF, 1.0),
        ("jnp.sin(x) + 2", 1.0, 3.0),
        # A count goes up from its start, when its step is positive.
        ("jnp.arange(1, x.shape[0])", 1.0, INF),
        ("jnp.arange(x.shape[0], dtype=jnp.float32)", 0.0, INF),
        ("jnp.arange(1, 9, 2)", 1.0, INF),
        ("jnp.arange(9, 1, -1)", -INF, INF),
        ("jnp.arange(1, 9, x)", -INF, INF),
        # Absolute values and negations of what is known.
        ("jnp.abs(jnp.clip(x, -2.0, 1.0))", 0.0, 2.0),
        ("jnp.negative(jnp.exp(x))", -INF, 0.0),
        # Sums spelled as calls; torch's `alpha=` scales the second term, so it says nothing.
        ("x.abs().add_(1e-15)", 1e-15, INF),
        ("jnp.add(jnp.exp(x), 1.0)", 1.0, INF),
        ("x.abs().add(1.0, alpha=-2.0)", -INF, INF),
        # Powers of a bounded base keep its bounds: even powers fold the sign, odd ones keep it.
        ("jnp.clip(x, 0.0, 0.5) ** 2", 0.0, 0.25),
        ("jnp.clip(x, -3.0, 2.0) ** 2", 0.0, 9.0),
        ("jnp.square(jnp.clip(x, -1.0, -0.5))", 0.25, 1.0),
        ("jnp.clip(x, -2.0, 1.0) ** 3", -8.0, 1.0),
        ("jnp.clip(x, 0.0, 4.0) ** 0.5", 0.0, 2.0),
        # A positive base to any power is positive (point 108).
        ("(jnp.abs(x) + 1e-6) ** (1.0 / x)", 0.0, INF),
        ("jnp.power(jnp.exp(x), -x)", 0.0, INF),
        ("1.0 - jnp.clip(x, 0.0, 0.5) * jnp.clip(x, 0.0, 0.5)", 0.75, 1.0),
        ("-1.0 / (1.0 - jnp.clip(x, 0.0, 0.5) ** 2)", -4.0 / 3.0, -1.0),
        ("x ** 3", -INF, INF),
        ("x ** 2", 0.0, INF),
        # A tensor made of a value has that value.
        ("jnp.array(2.0) - jnp.abs(x)", -INF, 2.0),
        ("jnp.array(EPS, dtype=jnp.float32)", 1e-6, 1e-6),
        # Sizes are counts (point 68).
        ("x.shape[0] + 1.0", 1.0, INF),
        ("len(x) + x.ndim", 0.0, INF),
        ("jnp.size(x) - 1", -1.0, INF),
        # A factor written more than once is raised to its count (point 68); two draws are two values.
        ("2.0 * x.shape[1] * x * x", 0.0, INF),
        ("-x * x * x", -INF, INF),
        # A negation is a factor of -1, wherever it is written (point 69): `-d * d` is -(d * d).
        ("-x * x", -INF, 0.0),
        ("-2.0 * x * x", -INF, 0.0),
        ("x * -(x * x.shape[0]) * -x * x", 0.0, INF),
        ("jax.random.normal(k, (3,)) * jax.random.normal(k, (3,))", -INF, INF),
        # Log-probabilities are never positive; a subscript or a gather picks some of a value's
        # elements, and keeps its range (point 70).
        ("jax.nn.log_softmax(x, axis=-1)", -INF, 0.0),
        ("jax.nn.log_sigmoid(x) + 1.0", -INF, 1.0),
        ("jnp.exp(x)[..., 0]", 0.0, INF),
        ("jnp.take_along_axis(jnp.abs(x), x.argmax(axis=-1), axis=-1)", 0.0, INF),
        ("x.log_softmax(-1).gather(-1, x.argmax(-1))", -INF, 0.0),
        # Python's max and min of numbers bound each other (point 75); of one iterable, nothing.
        ("max(x.shape[0], 1)", 1.0, INF),
        ("min(len(x), 3) - 1", -1.0, 2.0),
        ("max(x)", -INF, INF),
        # A remainder is smaller than its divisor (point 66).
        ("500.0 - jnp.fmod(jnp.abs(x), 500.0)", 0.0, 500.0),
        ("x % 3.0", 0.0, 3.0),
        # A contraction sums products of an element of each operand (point 149): its sign follows
        # from theirs; `vdot` of one operand twice, and an `einsum` pairing each element with
        # itself, sum squares. `dot(x, x)` of a matrix is a matrix product: no sign.
        ("jnp.vdot(x, x)", 0.0, INF),
        ("-jnp.einsum('ij,ij->i', x, x)", -INF, 0.0),
        ("jnp.dot(jnp.abs(x), jnp.exp(x))", 0.0, INF),
        ("jnp.abs(x) @ -jnp.abs(x)", -INF, 0.0),
        ("jnp.dot(x, x)", -INF, INF),
        ("jnp.einsum('ij,jk->ik', x, x)", -INF, INF),
        # ... of zeros, and a quotient of zero, are 0 (0 / 0 aside).
        ("jnp.dot(jnp.zeros_like(x), x)", 0.0, 0.0),
        ("jnp.zeros_like(x) / x", 0.0, 0.0),
        # Rearranged and running-extreme elements keep the operand's range (point 151).
        ("jnp.flip(jnp.abs(x), 0)", 0.0, INF),
        ("jnp.abs(x).cummin(0).values + 1.0", 1.0, INF),
    ],
)
def test_value_ranges(expression: str, low: float, high: float) -> None:
    value, env = returned(f"import jax\nimport jax.numpy as jnp\nEPS = 1e-6\ndef f(x):\n    return {expression}\n")
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == (pytest.approx(low), pytest.approx(high))


@pytest.mark.parametrize(
    ("expression", "reaches_zero"),
    [
        # A clamp above an epsilon (a name, a cast, `finfo(...).eps`) is above 0, though both
        # bounds are 0 (point 105); a clamp above 0 reaches it, as does the smaller of the two.
        ("jnp.maximum(jnp.abs(x), eps)", False),
        ("jnp.clip(jnp.abs(x), min=float(jnp.finfo(x.dtype).eps))", False),
        ("jnp.clip(jnp.abs(x), eps, None)", False),
        ("jnp.maximum(jnp.abs(x), 0.0)", True),
        ("jnp.minimum(jnp.abs(x), eps)", True),
        ("jnp.clip(x, min=y)", True),
    ],
)
def test_a_clamp_bound_is_reached_only_where_a_bound_is(expression: str, reaches_zero: bool) -> None:
    value, env = returned(f"import jax.numpy as jnp\ndef f(x, y, eps):\n    return {expression}\n")
    assert IntervalSet.of(value_range(value, env)).contains(0.0) is reaches_zero


@pytest.mark.parametrize(
    ("expression", "integer", "low"),
    [
        # A `range` loop's counter is an integer from its start (point 77); so are sizes, `int`
        # parameters, and their sums, differences, products and floor quotients.
        ("i", True, 0.0),
        ("j - 3", True, -2.0),
        ("n * i // 2 + x.shape[0]", True, -INF),
        ("i / 2", False, 0.0),
        ("k", True, -INF),  # from a falling range: an integer, of no known sign
        ("w", False, -INF),  # an element of data
    ],
)
def test_a_range_loop_counts_in_integers(expression: str, integer: bool, low: float) -> None:
    value, env = returned(
        "def f(x, n: int, ws):\n    for i in range(n):\n        pass\n    for j in range(1, n):\n        pass\n"
        f"    for k in range(n, 0, -1):\n        pass\n    for w in ws:\n        pass\n    return {expression}\n"
    )
    assert is_integer_valued(value, env) is integer
    assert value_range(value, env).lo == low


def test_a_function_the_file_defines_is_not_read_by_its_name() -> None:
    """`log_softmax` written in the file may compute anything: only a library's is never positive."""
    value, env = returned("import jax.numpy as jnp\ndef log_softmax(x):\n    return 100.0 * x\ndef f(x):\n    return log_softmax(x)\n")
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == (-INF, INF)


def test_value_questions_follow_six_bindings() -> None:
    """The value questions follow six bindings (point 145): a range through six is known, through
    seven it is not, and a kernel rebound five times from `arange` (torchaudio's sinc `t`) carries
    no gradient."""
    chain = "    a = jnp.maximum(d, 1.0)\n    b = a + 1\n    c = b + 1\n    e = c + 1\n    g = e + 1\n"
    value, env = returned(f"import jax.numpy as jnp\ndef f(d):\n{chain}    h = g + 1\n    return h\n")
    assert value_range(value, env).lo == 6.0
    value, env = returned(f"import jax.numpy as jnp\ndef f(d):\n{chain}    h = g + 1\n    k = h + 1\n    return k\n")
    assert value_range(value, env).lo == -INF
    value, env = returned(
        "import torch\ndef f(n: int, w: int, r: float):\n    t = torch.arange(n) / n\n    t *= r\n    t = t.clamp(-w, w)\n"
        "    t *= 3.0\n    t = t + 1.0\n    return t\n"
    )
    assert not carries_gradient(value, env)


def test_a_rebinding_reads_the_binding_before_it() -> None:
    """`x = x + 1.0` reads the `x` bound before it: its value, not itself again."""
    value, env = returned("import jax.numpy as jnp\ndef f(x):\n    x = jnp.abs(x)\n    x = x + 1.0\n    return x\n")
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == (1.0, INF)
    assert carries_gradient(value, env)


def test_zero_times_anything_is_zero_attained() -> None:
    """[0, 0] * (-inf, inf) is the point 0, not an empty interval: a pole at 0 stays reachable there."""
    value, env = returned("import jax.numpy as jnp\ndef f(x, t):\n    return jnp.zeros_like(x) * t\n")
    assert IntervalSet.of(value_range(value, env)).contains(0.0)


def test_reaching_a_leak_domain_and_epsilon_shifts() -> None:
    value, env = returned("import jax.numpy as jnp\ndef f(x, eps):\n    return jnp.sqrt(x * x + 1e-9), jnp.log(x + eps)\n")
    sqrt_arg = value.elements[0].value.args[0].value
    log_arg = value.elements[1].value.args[0].value
    assert not can_reach(sqrt_arg, IntervalSet.below(0.0, closed=True), env)
    assert can_reach(log_arg, IntervalSet.point(0.0), env)
    assert is_epsilon_shifted(log_arg, env) and not is_epsilon_shifted(sqrt_arg.left, env)


# --- conditions -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("condition", "selected"),
    [
        ("x > 0", IntervalSet.above(0.0, closed=False)),
        ("0 <= x", IntervalSet.above(0.0, closed=True)),
        ("(x > 0) & (x < 1)", IntervalSet.of(Interval(0.0, 1.0, False, False))),
        ("~(x > 0)", IntervalSet.below(0.0, closed=True)),
        ("jnp.abs(x) < 1", IntervalSet.of(Interval(-1.0, 1.0, False, False))),
        ("jnp.greater_equal(x, 2)", IntervalSet.above(2.0, closed=True)),
        ("(x > 0) | (y > 0)", IntervalSet.above(0.0, closed=False)),
        ("y > 0", None),
        # A condition held in a local selects what its expression does, two locals deep; a
        # rebinding of itself (`m = m & ...`) hides the earlier value, and says nothing.
        ("small", IntervalSet.below(1e-6, closed=False)),
        ("~ok", IntervalSet.below(1e-6, closed=False)),
        ("m", None),
        # A root compared is its square compared, where the root is defined; below 0 it is NaN,
        # which fails every comparison but `!=`.
        ("jnp.sqrt(x) > 2", IntervalSet.above(4.0, closed=False)),
        ("root <= 0.5", IntervalSet.of(Interval(0.0, 0.25))),
        ("x.sqrt() != 0", IntervalSet.point(0.0).complement()),
        ("jnp.sqrt(x) > -1", IntervalSet.above(0.0, closed=True)),
        # A square compared is the value compared on either side of 0 (point 115).
        ("x * x > 0", IntervalSet.point(0.0).complement()),
        ("x ** 2 <= 4", IntervalSet.of(Interval(-2.0, 2.0))),
        ("jnp.square(x) < 0", IntervalSet.of()),
        ("sq > 1", IntervalSet.of(Interval(-INF, -1.0, False, False), Interval(1.0, INF, False, False))),
    ],
)
def test_what_a_condition_selects(condition: str, selected) -> None:
    source = (
        "import jax.numpy as jnp\ndef f(x, y, m):\n    small = x < 1e-6\n    ok = ~small\n    m = m & (x > 0)\n    root = jnp.sqrt(x)\n    sq = x * x\n"
        f"    return {condition}\n"
    )
    value, env = returned(source)
    assert selected_values(value, "x", env) == selected


@pytest.mark.parametrize(
    ("condition", "values", "if_true", "if_false"),
    [
        # Against a side in a range (point 106): where `x < eps` fails, `x` is above 0; where it
        # holds it may be anything below some epsilon. The other way round for `x > tol`.
        ("x < eps", IntervalSet.below(0.0, closed=True), False, True),
        ("x < get_epsilon(x.dtype)", IntervalSet.below(0.0, closed=True), False, True),
        ("x >= eps", IntervalSet.above(0.0, closed=False), True, False),
        ("eps > x", IntervalSet.below(0.0, closed=True), False, True),
        ("jnp.abs(x) <= eps", IntervalSet.point(0.0), False, True),
        ("x < jnp.abs(y)", IntervalSet.below(0.0, closed=False), False, True),
        ("x == jnp.zeros_like(y)", IntervalSet.point(0.0), True, True),
        ("x < y", None, None, None),
        # Truth reduced over every element (point 148): where `all` holds, each element's does;
        # where `any` fails, each element's fails. Not along an axis, which broadcasts elsewhere.
        ("jnp.all(x == 0)", IntervalSet.point(0.0), True, False),
        ("(x > 0).all()", IntervalSet.above(0.0, closed=False), True, False),
        ("~jnp.any(x != 0)", IntervalSet.point(0.0), True, False),
        ("jnp.all(x == 0, axis=-1)", None, None, None),
    ],
)
def test_what_a_comparison_with_a_range_says(condition: str, values, if_true, if_false) -> None:
    value, env = returned(f"import jax.numpy as jnp\nfrom lib import get_epsilon\ndef f(x, y, eps):\n    return {condition}\n")
    region = region_of(value, "x", env)
    assert (region.values, region.if_true, region.if_false) == (values, if_true, if_false) if values is not None else region is None


@pytest.mark.parametrize(
    ("condition", "truth", "low", "high"),
    [
        # A comparison of two expressions bounds their quotient where the denominator is never
        # negative (point 144): `q > t` makes `q / t` above 1, or +inf at `t == 0`.
        ("q > t", True, 1.0, INF),
        ("q <= t", False, 1.0, INF),
        ("t < q", True, 1.0, INF),
        ("q < t", True, -INF, 1.0),
        # `q >= t` may hold at `q == t == 0`, where `q / t` is NaN: no more than the signs say
        # unless `t > 0`.
        ("q >= t", True, 0.0, INF),
        ("q >= p", True, 1.0, INF),  # `p = t + 1` is at least 1
        ("q > s", True, -INF, INF),  # `s` may be negative: `q > s` says nothing of `q / s`
    ],
)
def test_a_comparison_bounds_the_quotient_of_its_sides(condition: str, truth: bool, low: float, high: float) -> None:
    denominator = "p" if "p" in condition else "s" if " s" in condition else "t"
    source = f"import jax.numpy as jnp\ndef f(q, k, s):\n    t = k**2 / (1 + k**2)\n    p = t + 1\n    return q / {denominator}\n"
    value, env = returned(source)
    cond, _ = returned(f"def f(q, t, p, s):\n    return {condition}\n")
    reach = value_range(value, env.assuming(cond, truth))
    assert (reach.lo, reach.hi) == (low, high)


def test_a_quotient_above_one_keeps_a_log_off_its_pole() -> None:
    # numpyro's AsymmetricLaplace.icdf shape: where `q <= temp` leaves the log unselected, `q / temp`
    # is above 1 (or +inf), and log's derivative there is finite. The division itself is reported:
    # at `k == 0`, `temp` is 0 where the branch is not selected.
    source = (
        "import jax.numpy as jnp\ndef icdf(q, k):\n    temp = k**2 / (1 + k**2)\n"
        "    return jnp.where(q <= temp, jnp.log(q / temp), 0.0)\n"
    )
    result = Checker(Settings(select=["ALL"])).check_source(source, "example.py")
    assert [(d.code, d.op) for d in result.diagnostics] == [("NAN001", "divide")]


def test_affine_bases_map_a_leak_domain_to_the_variable() -> None:
    value, env = returned("def f(x):\n    return -x - 1\n")
    bases = {env.code(var): to_var(IntervalSet.point(0.0)) for var, to_var in affine_base(value, env)}
    assert bases["x"] == IntervalSet.point(-1.0)  # -x - 1 == 0 at x = -1


def test_a_condition_bounds_what_it_compares_where_it_is_assumed() -> None:
    value, env = returned("import jax.numpy as jnp\ndef f(y):\n    return -jnp.expm1(-(y + 1e-6))\n")
    cond, _ = returned("def f(y):\n    return y > 20.0\n")
    assert value_range(value, env).lo == -INF  # nothing known of y: (-inf, 1)
    reach = value_range(value, env.assuming(cond, True))  # y > 20: -expm1(-y) is just below 1
    assert 0.99 < reach.lo and reach.hi <= 1.0


@pytest.mark.parametrize(
    ("condition", "ok_there"),
    [
        ("bad", False),  # `bad = ~ok`: where `bad` holds, `ok` does not
        ("ok", True),
        ("~bad", True),
        ("bad.unsqueeze(-1)", False),  # a reshaped condition selects the same elements (point 74)
        ("jnp.expand_dims(~bad, -1)", True),
    ],
)
def test_a_negated_local_decides_its_operand_the_other_way(condition: str, ok_there: bool) -> None:
    cond, env = returned(f"import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n    bad = ~ok\n    return {condition}\n")
    ok, _ = returned("import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n    bad = ~ok\n    return ok\n")
    assert env.assuming(cond, True).decided(ok) is ok_there


@pytest.mark.parametrize(
    ("condition", "truth", "side", "decided"),
    [
        ("a & b", True, "a", True),  # a true `and`: each side holds
        ("jnp.logical_and(a, b)", True, "b", True),
        ("a & b", False, "a", None),  # a false one: one side fails, which is not known
        ("a | b", False, "b", False),  # a false `or`: each side fails
        ("a | b", True, "a", None),
        ("~(a | b)", True, "a", False),
        ("(a & x) | (b & x)", True, "x", True),  # whichever side holds, `x` does
        ("(a & x) | b", True, "x", None),
        ("c", True, "b", True),  # `c = a & b`: through the local
        ("a + b", False, "a", False),  # truth arrays: `+` is an `or`, `*` an `and`
        ("a * b", True, "b", True),
    ],
)
def test_a_condition_assumed_decides_its_sides(condition: str, truth: bool, side: str, decided) -> None:
    source = "import jax.numpy as jnp\ndef f(a, b, x):\n    c = a & b\n    return {}\n"
    cond, env = returned(source.format(condition))
    target, _ = returned(source.format(side))
    assert env.assuming(cond, truth).decided(target) is decided


def test_a_name_rebound_after_a_condition_is_another_condition() -> None:
    # `c` was built from the first `a`; the where that reads the second `a` is not decided by it.
    source = "def f(x, y):\n    a = x > 0\n    c = a & (y > 0)\n    a = x < -1\n    return {}\n"
    cond, env = returned(source.format("c"))
    rebound, _ = returned(source.format("a"))
    assert env.assuming(cond, True).decided(rebound) is None
    unchanged = "def f(x, y):\n    a = x > 0\n    c = a & (y > 0)\n    return {}\n"
    cond, env = returned(unchanged.format("c"))
    same, _ = returned(unchanged.format("a"))
    assert env.assuming(cond, True).decided(same) is True


def test_a_condition_bounds_a_value_only_as_bound_where_it_was_written() -> None:
    # Point 175: `ok` tests the `x` before `x = x - 1.0`; assumed, it bounds that `x`, not this one
    # (whose values follow from the old one's: x - 1.0 > -1), and a where on it keeps the new 0.
    source = "import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n{}    return {}\n"
    for rebinding, low in (("    x = x - 1.0\n", -1.0), ("", 0.0)):
        value, env = returned(source.format(rebinding, "x"))
        cond, _ = returned(source.format(rebinding, "ok"))
        assert value_range(value, env.assuming(cond, True)).lo == pytest.approx(low)
        masked, env = returned(source.format(rebinding, "jnp.where(ok, x, 1.0)"))
        assert IntervalSet.of(value_range(masked, env)).contains(0.0) is bool(rebinding)


def test_a_local_is_read_through_what_it_was_assigned_and_compared_as_a_difference() -> None:
    # `d = hi - lo`, then `x / d` under `where(lo == hi, ...)`: the condition is about `d`.
    value, env = returned("def f(hi, lo):\n    d = hi - lo\n    return d\n")
    bases = [env.code(var) for var, _ in affine_base(value, env)]
    assert bases == ["d", "hi - lo"]
    cond, env = returned("def f(hi, lo):\n    return lo == hi\n")
    assert selected_values(cond, "hi - lo", env) == IntervalSet.point(0.0)
    cond, env = returned("def f(hi, lo):\n    return lo < hi\n")
    assert selected_values(cond, "hi - lo", env) == IntervalSet.above(0.0, closed=False)
    assert selected_values(cond, "lo - hi", env) == IntervalSet.below(0.0, closed=False)
    # A compared sum is the divisor `(a + b)`, parenthesized or not (point 169).
    cond, env = returned("def f(a, b):\n    return a + b > 0\n")
    assert selected_values(cond, "(a + b)", env) == IntervalSet.above(0.0, closed=False)
    cond, env = returned("def f(a, b):\n    return (a + b) > 0\n")
    assert selected_values(cond, "a + b", env) == IntervalSet.above(0.0, closed=False)


@pytest.mark.parametrize(
    "condition, var, values",
    [
        # Every reading of "this node is the variable" ignores parentheses alike (point 170): the
        # absolute value, the square, the root, a NaN test and a range as a compared sum is.
        ("jnp.abs(a - b) < 1.0", "(a - b)", IntervalSet.of(Interval(-1.0, 1.0, False, False))),
        ("jnp.abs((a - b)) < 1.0", "a - b", IntervalSet.of(Interval(-1.0, 1.0, False, False))),
        ("(a - b).abs() < 1.0", "(a - b)", IntervalSet.of(Interval(-1.0, 1.0, False, False))),
        ("(a - b) * (a - b) > 4.0", "(a - b)", IntervalSet.below(-2.0, closed=False).union(IntervalSet.above(2.0, closed=False))),
        ("(a - b) ** 2 > 4.0", "a - b", IntervalSet.below(-2.0, closed=False).union(IntervalSet.above(2.0, closed=False))),
        ("jnp.sqrt(a - b) > 2.0", "(a - b)", IntervalSet.above(4.0, closed=False)),
        ("jnp.isfinite((a - b))", "a - b", IntervalSet.everything()),
        ("(a - b) > jnp.finfo(a.dtype).eps", "a - b", IntervalSet.above(0.0, closed=False)),
    ],
)
def test_the_variable_is_matched_without_parentheses_wherever_a_condition_names_it(condition: str, var: str, values: IntervalSet) -> None:
    cond, env = returned(f"import jax.numpy as jnp\ndef f(a, b):\n    return {condition}\n")
    assert selected_values(cond, var, env) == values


# --- intervals --------------------------------------------------------------------------------------
def test_interval_set_algebra() -> None:
    nonpositive = IntervalSet.below(0.0, closed=True)
    positive = nonpositive.complement()
    assert positive == IntervalSet.above(0.0, closed=False)
    assert nonpositive.intersect(positive).is_empty()
    assert nonpositive.union(positive) == IntervalSet.everything()
    assert IntervalSet.point(0.0).shifted(1.0) == IntervalSet.point(1.0)
    assert IntervalSet.above(1.0, closed=True).negated() == IntervalSet.below(-1.0, closed=True)
    assert IntervalSet.points(-1.0, 1.0).contains(1.0) and not IntervalSet.points(-1.0, 1.0).contains(0.0)
    assert IntervalSet.of(Interval(0.0, 1.0), Interval(1.0, 2.0, False, True)) == IntervalSet.of(Interval(0.0, 2.0))
    assert IntervalSet.below(0.0, closed=True).describe("x") == "x <= 0"


def test_the_values_at_which_a_power_takes_a_set_of_values() -> None:
    # v**p = 0 only at v = 0; an even power is never negative, and takes a value at two roots.
    zero, nonpositive = IntervalSet.point(0.0), IntervalSet.below(0.0, closed=True)
    assert zero.power_preimage(2) == zero and zero.power_preimage(3) == zero
    assert nonpositive.power_preimage(2) == zero
    assert nonpositive.power_preimage(3) == nonpositive
    assert IntervalSet.below(0.0, closed=False).power_preimage(2).is_empty()
    assert IntervalSet.of(Interval(4.0, 9.0)).power_preimage(2) == IntervalSet.of(Interval(-3.0, -2.0), Interval(2.0, 3.0))
    assert IntervalSet.of(Interval(-8.0, 1.0, False, True)).power_preimage(3) == IntervalSet.of(Interval(-2.0, 1.0, False, True))
    assert IntervalSet.above(1.0, closed=False).power_preimage(2) == IntervalSet.of(
        Interval(-INF, -1.0, False, False), Interval(1.0, INF, False, False)
    )


# --- helpers of the file ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("helper", "call", "expected"),
    [
        ("def h(x):\n    return x.sum() + x", "h(a * b)", "(a * b).sum() + (a * b)"),
        ("def h(x, eps=1e-6):\n    '''Doc.'''\n    y = abs(x)\n    return y + eps", "h(v)", "abs(v) + 1e-6"),
        ("def h(x, *, k=2):\n    return x ** k", "h(v, k=3)", "v ** 3"),
        ("def h(x, **kw):\n    return x", "h(v)", None),  # **kwargs: what it binds is unknown
        ("def h(x):\n    if x:\n        return 1\n    return x", "h(v)", None),  # not straight-line
        ("def h(x):\n    return [x for x in range(3)]", "h(v)", None),  # a comprehension binds x again
        ("def h(x):\n    return x", "h(*vs)", None),
        ("def h(x, y):\n    return x / y", "h(v)", None),  # y has no value
        # Each local read twice: written out, the return would hold 2**11 copies of `v`.
        ("def h(x):\n" + "".join(f"    x{i + 1} = x{i} + x{i}\n" for i in range(10)).replace("x0", "x") + "    return x10 + x10", "h(v)", None),
    ],
)
def test_a_straight_line_helper_returns_its_expression_in_the_call_arguments(helper: str, call: str, expected) -> None:
    detector = detector_for(f"{helper}\ndef f(a, b, v, vs):\n    return {call}\n")
    value, env = last_return(detector)
    inlined = env.inlined(value)
    assert (None if inlined is None else env.code(inlined)) == expected


def test_a_helper_value_feeds_the_value_range() -> None:
    value, env = returned("""
        import jax.numpy as jnp
        def _pos(x, eps=1e-6):
            a = jnp.abs(x)
            return a + eps
        def f(y):
            return _pos(y)
    """)
    assert value_range(value, env).lo > 0


@pytest.mark.parametrize(
    ("domain", "by_sign"),
    [
        (IntervalSet.point(0.0), True),  # 1 / y
        (IntervalSet.below(0.0, closed=True), True),  # log, sqrt: infinite at 0, NaN below
        (IntervalSet.below(0.0, closed=False), True),  # x ** 1.5
        (IntervalSet.points(-1.0, 1.0), False),  # arcsin: a product's magnitude decides, not its sign
    ],
)
def test_a_products_sign_decides_only_poles_bounded_by_zero(domain, by_sign) -> None:
    assert _decided_by_sign(domain) is by_sign


@pytest.mark.parametrize(
    ("call", "lo", "hi"),
    [
        ("jnp.sin(jnp.clip(x, 0.5, 3.0))", math.sin(3.0), 1.0),  # the peak at pi/2 inside
        ("jnp.sin(jnp.clip(x, 0.5, jnp.pi))", 0.0, 1.0),  # `jnp.pi` stands for pi: 0 is reached
        ("jnp.cos(jnp.clip(x, -1.0, 1.0))", math.cos(1.0), 1.0),
        ("jnp.cos(jnp.clip(x, 0.0, 7.0))", -1.0, 1.0),  # a whole period
        ("jnp.sin(jnp.clip(x, 1e300, 2e300))", -1.0, 1.0),  # floats that no longer tell pi's multiples apart
        ("jnp.tan(jnp.clip(x, 0.5, 1.5))", math.tan(0.5), math.tan(1.5)),
        ("jnp.tan(jnp.clip(x, 0.5, 2.0))", -INF, INF),  # a pole at pi/2 inside
    ],
)
def test_a_periodic_function_over_a_range_shorter_than_its_period(call: str, lo: float, hi: float) -> None:
    value, env = returned(f"""
        import jax.numpy as jnp
        def f(x):
            return {call}
    """)
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == pytest.approx((lo, hi))
    assert reach.lo_closed or reach.lo == -INF


@pytest.mark.parametrize(
    ("statements", "low", "high", "gradient"),
    [
        # A store into some elements makes the array both what it held and what was stored
        # (point 150): torch's and NumPy's arrays change in place.
        ("d = jnp.ones_like(x)\n    d[m] = 2.0", 1.0, 2.0, False),
        ("d = jnp.ones_like(x)\n    d[m] = x[m]", -INF, INF, True),
        ("d = jnp.zeros_like(x)\n    d[..., 0] += x[..., 0]", -INF, INF, True),
        ("d = jnp.ones_like(x)", 1.0, 1.0, False),
    ],
)
def test_a_store_into_elements_changes_the_array(statements: str, low: float, high: float, gradient: bool) -> None:
    value, env = returned(f"import jax.numpy as jnp\ndef f(x, m):\n    {statements}\n    return d\n")
    reach = value_range(value, env)
    assert (reach.lo, reach.hi) == (low, high)
    assert carries_gradient(value, env) is gradient
