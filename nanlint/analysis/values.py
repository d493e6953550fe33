"""What can be known about an expression's value without running it.

Four questions the detector asks about a singular op and its argument:
- `constant_value`: is it a number known here (the exponent of `x ** 0.5`, `log(2.0)`)?
- `depends_on_data`: can it change with the program's inputs (`jnp.log(2.0)` cannot)?
- `carries_gradient`: can a gradient flow through it? Not through sizes, indices, comparisons,
  integer casts, `arange`, `ones_like`, `n: int`: an op whose inputs are all such cannot leak.
- `is_configuration`: is it one Python number the caller fixes (`1.0 / radius`, `radius: float`),
  the same for every element?
- `value_range`: which values can it take (`x**2 + 1e-6` never reaches sqrt's pole, `exp(-abs(x))`
  never overflows)?
"""

from __future__ import annotations

import collections
import functools
import math
import re
from typing import Callable, NamedTuple, Optional, Protocol, TypeVar

import libcst as cst

from nanlint.analysis.names import Binding, leaf_name
from nanlint.analysis.syntax import (
    argument_at,
    is_none,
    is_number,
    is_string,
    keyword_value,
    number,
    positional,
    string_value,
)
from nanlint.analysis.tree import bare_code, loads, walk
from nanlint.catalog.intervals import INF, Interval, IntervalSet
from nanlint.catalog.tables import (
    ABSOLUTE_VALUES,
    ADDITIONS,
    ANNOTATIONS_WITHOUT_GRADIENT,
    BOUNDED_ABOVE_BY_ZERO,
    BOUNDED_BELOW_FUNCTIONS,
    BOUNDED_BELOW_METHODS,
    BUILTINS_WITHOUT_GRADIENT,
    CASTS,
    CONSTANT_CONSTRUCTORS,
    CONSTANT_NAME,
    CONTRACTION_METHODS,
    CONTRACTIONS,
    COUNT_ATTRIBUTES,
    COUNT_BUILTINS,
    COUNT_FUNCTIONS,
    COUNT_METHODS,
    DTYPE_ARGUMENT_OF_FUNCTION,
    DTYPE_ARGUMENT_OF_METHOD,
    DTYPE_INFO,
    ELEMENTS_OF_OPERAND,
    EXTREMA_BUILTINS,
    FILL_ARGUMENT,
    HOST_MODULES,
    INCREASING_FUNCTIONS,
    INTEGER_ANNOTATIONS,
    INTEGER_DTYPES,
    INTERPOLATION_VALUES,
    ISCLOSE_ATOL,
    KEY_FIRST_RANDOM_MODULE,
    LOWER_CLAMPS,
    LOWER_KEYWORDS,
    LOWER_REDUCTIONS,
    METADATA_ATTRS,
    MODULE_NAMESPACE,
    NEGATIONS,
    NO_GRADIENT_PATH,
    NO_GRADIENT_PATH_IN,
    NUMBER_BUILTINS,
    PAIRING_CONTRACTIONS,
    PAIRS_WITH_INDICES,
    PARAMETER_CONSTRUCTORS,
    PASS_THROUGH_FUNCTIONS,
    PASS_THROUGH_METHODS,
    PYTHON_NUMBER_MODULES,
    PYTHON_RANGES,
    RANDOM_DRAW_SETTINGS,
    RANDOM_NAME,
    RANGES,
    REMAINDERS,
    REQUIRES_GRAD_KEYWORD,
    REQUIRES_GRAD_METHODS,
    SCALAR_ANNOTATIONS,
    SCALAR_CONVERSIONS,
    SHAPES,
    SHAPE_ONLY_METHODS,
    SINES,
    STOP_GRADIENT,
    SUMS,
    SUM_METHODS,
    TANGENTS,
    TENSOR_FUNCTION_NAMESPACES,
    TENSOR_LIBRARY,
    TORCH_PAIRS_WITH_INDICES,
    TORCH_PAIRS_WITH_INDICES_ALONG_A_DIM,
    UPPER_CLAMPS,
    UPPER_KEYWORDS,
    UPPER_REDUCTIONS,
    VALUES_FIELD,
    VARYING_CONSTRUCTORS,
    framework_of,
    scatter_sum,
)
from nanlint.limits import BINDING_COST, MAX_DEPTH

# `depth`, in the questions below, is how far a question has looked (limits.BINDING_COST): as many
# bindings as MAX_DEPTH, and the levels of the expressions they hold.
_MAX_NESTING = (MAX_DEPTH + 1) * BINDING_COST
T = TypeVar("T")
_CONSTANT_ATTRS = {"pi": math.pi, "e": math.e, "inf": INF, "tau": math.tau}
# Python's own constants: libcst reads them as names.
_LITERAL_NAMES = frozenset({"True", "False", "None"})
# Names that say "a small positive number added to keep away from the pole".
EPSILON_NAME = re.compile(r"(?i)^_?(\w+_)?(eps|epsilon|tiny|tol|jitter|smooth(ing)?|stabili[sz]er|min_\w+|\w+_min)$")


class Env(Protocol):
    """What the value questions need from the detector: bindings and qualified names here."""

    def binding(self, name: cst.Name) -> Optional[Binding]: ...

    def at(self, place: int) -> "Env":
        """The same questions asked from another place (a binding's: `x = x * 2` reads the `x` before)."""
        ...

    def bindings(self, name: cst.Name) -> list[Binding]:
        """Every binding that may be the one seen here: more than `binding` when that one sits in a
        branch, loop or `try` (names.bindings_reaching). A value known of the name holds of all."""
        ...

    def qualified(self, node: cst.CSTNode) -> Optional[str]: ...

    def code(self, node: cst.CSTNode) -> str: ...

    def indexes(self, name: cst.Name) -> bool:
        """Whether the name is used as an array index (`a[k]`) in its function: an integer, then."""
        ...

    def values_where(
        self, cond: cst.BaseExpression, subject: cst.BaseExpression, holds: bool, text: Optional[str] = None, partial: bool = False
    ) -> Optional[IntervalSet]:
        """Values `subject` can take where `cond` is `holds`, when certain (`partial`: as region_of)
        and the condition reads its names as bound where `subject` reads them (conditions.py).
        `text`: the name the condition reader knows the subject by (`quotient_key`), when not its source."""
        ...

    def decided(self, cond: cst.BaseExpression) -> Optional[bool]:
        """The truth of `cond` where the question is asked, when an outer select decides it."""
        ...

    def differentiable(self, framework: str) -> bool:
        """Whether this run checks the framework's code as differentiable (NumPy is opt-in)."""
        ...

    def traces_python_numbers(self) -> bool:
        """Whether a parameter annotated `float` may hold a traced value here: under JAX it may
        (`jax.grad(f)(0.5)`); in a file that computes with torch alone it holds a Python number,
        which autograd never records (torch records only what flows from a declared leaf, a
        Parameter or a tensor given `requires_grad`, where JAX differentiates any array given)."""
        ...

    def inlined(self, call: cst.Call) -> Optional[cst.BaseExpression]:
        """What a call of a straight-line helper (of the file, or imported from the tree) returns, in
        the call's arguments (inline.py)."""
        ...

    def attribute_stores(self, node: cst.Attribute) -> Optional[list[tuple[cst.BaseExpression, "Env"]]]:
        """What a method's class stores into `self.attr`, each value where it is stored: every
        store, or None (attributes.py)."""
        ...

    def remembered(self, key: tuple, compute: Callable[..., T], *args) -> T:
        """`compute(*args)`, computed once per file for each `key` and place asked from: for a
        question whose answer depends on nothing else (not on the conditions assumed here). A node
        in the key is held, so that no other node takes its identity."""
        ...

    def unconditioned(self) -> "Env":
        """This place, without the conditions assumed here (`regions`): what a value is anywhere."""
        ...

    def checked(self, node: cst.CSTNode) -> tuple:
        """(condition, truth) pairs the function made sure of before `node` is read here (checks.py)."""
        ...

    # (condition, truth) pairs that hold where the question is asked: they bound what they compare.
    regions: tuple
    # (name, ids of its bindings, Interval) triples: where the question is asked, that local (as
    # those bindings define it, wherever it is read) takes only those values (an op's pole).
    pinned: tuple


def sole_binding(name: cst.Name, env: Env) -> Optional[Binding]:
    """The binding seen here, when no other may be (none sits in a branch, loop or `try` that this
    place is outside of): what a guard claims of a local must hold whichever binding ran."""
    bindings = env.bindings(name)
    return bindings[0] if len(bindings) == 1 else None


def assigned(name: cst.Name, env: Env) -> Optional[tuple[cst.BaseExpression, Env]]:
    """What the one binding that may reach here assigned (`x = ...`), and the place to read it from;
    None for a parameter, an import, `x += ...`, or a name that more than one binding may stand for."""
    binding = sole_binding(name, env)
    if binding is None or binding.value is None or binding.imported is not None:
        return None
    return binding.value, env.at(binding.place)


def value_key(node: cst.BaseExpression, env: Env) -> tuple:
    """An expression's text, without its own parentheses, and the bindings of the names it reads
    (`env`: where it is written): two expressions with one key hold one value (a condition's key,
    a pole's argument's, the operand of `x - max(x)`)."""
    reads = frozenset((name.value, tuple(map(id, env.bindings(name)))) for name in loads(node))
    return bare_code(node, env.code), reads


def constant_value(node: cst.BaseExpression, env: Env, depth: int = 0) -> Optional[float]:
    if depth > _MAX_NESTING:
        return None
    if is_number(node):
        return number(node)
    # Asked of every level of an expression by the range question, and again of each binding at
    # every use of its name: answered once for each (node, depth, place).
    return env.remembered((constant_value, node, depth), _constant_value, node, env, depth)


def _constant_value(node: cst.BaseExpression, env: Env, depth: int) -> Optional[float]:
    if isinstance(node, cst.UnaryOperation):
        inner = constant_value(node.expression, env, depth + 1)
        if inner is None:
            return None
        if isinstance(node.operator, cst.Minus):
            return -inner
        return inner if isinstance(node.operator, cst.Plus) else None
    if isinstance(node, cst.BinaryOperation):
        left = constant_value(node.left, env, depth + 1)
        right = constant_value(node.right, env, depth + 1)
        if left is None or right is None:
            return None
        try:
            return _ARITHMETIC[type(node.operator)](left, right)
        except (KeyError, ZeroDivisionError, OverflowError, ValueError):
            return None
    if isinstance(node, cst.Name):
        values = {_bound_constant(binding, env, depth) for binding in env.bindings(node)}
        return values.pop() if len(values) == 1 else None
    if isinstance(node, cst.Attribute) and env.qualified(node) is not None:
        return _CONSTANT_ATTRS.get(node.attr.value)
    if isinstance(node, cst.Attribute):  # `self.join`, every store into it in the class `0.018`
        stores = env.attribute_stores(node)
        values = {constant_value(value, here, depth + BINDING_COST) for value, here in stores or ()}
        return values.pop() if len(values) == 1 else None
    if isinstance(node, cst.Call) and env.qualified(node.func) is not None:
        return _constant_call(node, env, depth + 1)
    return None


def _bound_constant(binding: Binding, env: Env, depth: int) -> Optional[float]:
    if binding.value is None or binding.imported is not None:
        return None
    return constant_value(binding.value, env.at(binding.place), depth + BINDING_COST)


def _constant_call(node: cst.Call, env: Env, depth: int) -> Optional[float]:
    """`jnp.log(2.0)`, `tf.cast(0.5, dtype)`, `math.sqrt(2)`: a library function of a constant."""
    values = positional(node)
    if not values:
        return None
    leaf = env.qualified(node.func).rsplit(".", 1)[-1]
    carried = carried_value(node, env)
    if carried is not None:
        return constant_value(carried, env, depth + 1)
    function = INCREASING_FUNCTIONS.get(leaf)
    inner = constant_value(values[0], env, depth + 1) if function is not None and len(values) == 1 else None
    if inner is None:
        return None
    try:
        return function(inner)
    except (ValueError, OverflowError, ZeroDivisionError):
        return None


def carried_value(call: cst.Call, env: Env) -> Optional[cst.BaseExpression]:
    """The value a cast, copy or reshape carries through (`x.astype(t)`, `tf.cast(x, t)`,
    `typing.cast(T, x)`), or that a straight-line helper returns (`_safe(x)`), else None."""
    qualified = env.qualified(call.func)
    if qualified is None and isinstance(call.func, cst.Attribute) and call.func.attr.value in PASS_THROUGH_METHODS:
        return call.func.value
    if qualified is not None:
        position = PASS_THROUGH_FUNCTIONS.get(qualified, PASS_THROUGH_FUNCTIONS.get(qualified.rsplit(".", 1)[-1]))
        if position is not None:
            values = positional(call)
            return values[position] if position < len(values) else None
    return env.inlined(call) if isinstance(call.func, cst.Name) else None  # a helper, of the file or imported


_ARITHMETIC = {
    cst.Add: lambda a, b: a + b,
    cst.Subtract: lambda a, b: a - b,
    cst.Multiply: lambda a, b: a * b,
    cst.Divide: lambda a, b: a / b,
    cst.Power: lambda a, b: float(a**b),
}


def depends_on_data(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """False only when the value is the same on every run: literals, constants, calls on them."""
    return _data(node, env, depth, gradient=False)


def carries_gradient(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """False when no gradient can flow through the value: it is constant, or made only of sizes,
    indices, truth values, integer casts and constructors (`arange`, `ones_like`) of such."""
    return _data(node, env, depth, gradient=True)


def _data(node: cst.BaseExpression, env: Env, depth: int, gradient: bool) -> bool:
    if depth > _MAX_NESTING:
        return True
    if isinstance(node, (cst.Integer, cst.Float, cst.Imaginary)) or is_string(node):
        return False
    if isinstance(node, cst.Ellipsis):
        return True  # `...` is no literal value
    if isinstance(node, cst.Name):
        if node.value in _LITERAL_NAMES:
            return False
        bindings = env.bindings(node)
        if not bindings:
            return not CONSTANT_NAME.match(node.value)
        return any(_bound_data(node, binding, env, depth, gradient) for binding in bindings)
    if isinstance(node, cst.Attribute):
        attr = node.attr.value
        if env.qualified(node) is not None or CONSTANT_NAME.match(attr) or attr in METADATA_ATTRS:
            return False
        if gradient and not env.traces_python_numbers() and (stores := _tensor_stores(node, env, depth)) is not None:
            # torch records only what flows from a declared leaf (a Parameter): a module's
            # attribute (a buffer) whose every stored tensor carries no gradient carries none.
            return any(_data(value, here, depth + BINDING_COST, gradient) for value, here in stores)
        return _data(node.value, env, depth + 1, gradient)  # `finfo(x.dtype).eps` is no data; `self.scale` may be
    if isinstance(node, cst.Call):
        return _call_data(node, env, depth + 1, gradient)
    if isinstance(node, cst.UnaryOperation):
        if gradient and isinstance(node.operator, (cst.Not, cst.BitInvert)):
            return False
        return _data(node.expression, env, depth + 1, gradient)
    if isinstance(node, cst.BinaryOperation):
        if gradient and not isinstance(node.operator, _DIFFERENTIABLE_OPERATORS):
            return False  # `a // b`, `a & b`: integers
        return _data(node.left, env, depth + 1, gradient) or _data(node.right, env, depth + 1, gradient)
    if isinstance(node, (cst.Comparison, cst.BooleanOperation)) and gradient:
        return False
    if isinstance(node, (cst.Tuple, cst.List)):
        return any(_data(element.value, env, depth + 1, gradient) for element in node.elements)
    if isinstance(node, cst.Subscript):
        return _data(node.value, env, depth + 1, gradient)
    if isinstance(node, cst.IfExp):
        return _data(node.body, env, depth + 1, gradient) or _data(node.orelse, env, depth + 1, gradient)
    return True


def _bound_data(name: cst.Name, binding: Binding, env: Env, depth: int, gradient: bool) -> bool:
    if binding.imported is not None:
        return False
    if binding.value is not None:
        return _data(binding.value, env.at(binding.place), depth + BINDING_COST, gradient)
    if binding.part_of is not None:
        # `n, m = x.shape`: a part of a value that is constant, or carries no gradient, is so too.
        return _data(binding.part_of, env.at(binding.place), depth + BINDING_COST, gradient)
    if binding.iterated is not None:
        # `for i in range(n)`: an element is like what it is taken from.
        return _data(binding.iterated, env.at(binding.place), depth + BINDING_COST, gradient)
    if binding.augmented is not None:
        # `t *= scale`: the value before (the bindings that reach the statement, in a loop this
        # one's too, which adds nothing new) combined with another.
        before = env.at(binding.place)
        statement = binding.augmented
        return _data(statement.value, before, depth + BINDING_COST, gradient) or _data(statement.target, before, depth + BINDING_COST, gradient)
    if binding.element_store is not None:
        # `d[m] = v`: some elements are `v`, the others what `d` held before.
        store, before = binding.element_store, env.at(binding.place)
        return _data(store.value, before, depth + BINDING_COST, gradient) or _data(store.name, before, depth + BINDING_COST, gradient)
    if gradient and (binding.annotation in ANNOTATIONS_WITHOUT_GRADIENT or binding.static or env.indexes(name)):
        return False  # `n: int`, a static argument of `jax.jit`, or `k` in `table[k]`
    if gradient and binding.annotation in SCALAR_ANNOTATIONS and not env.traces_python_numbers():
        return False  # `rolloff: float` in torch code
    return binding.parameter or not CONSTANT_NAME.match(name.value)


def is_configuration(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """Made only of Python numbers: constants, parameters annotated `float` / `int` / `bool`, locals
    and arithmetic of them, library functions and Python `if`s of them (`jnp.isfinite(r)`,
    `max(r, 1e-7) if half else r`; not a grid or a random draw), `full_like(x, r)`. The same for
    every element."""
    if depth > _MAX_NESTING:
        return False
    if not depends_on_data(node, env, depth):
        return True
    if isinstance(node, cst.Name):
        binding = sole_binding(node, env)
        if binding is None or binding.augmented is not None:
            return False
        if binding.value is not None:
            return is_configuration(binding.value, env.at(binding.place), depth + BINDING_COST)
        return binding.annotation in SCALAR_ANNOTATIONS
    if isinstance(node, cst.UnaryOperation):
        return is_configuration(node.expression, env, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return is_configuration(node.left, env, depth + 1) and is_configuration(node.right, env, depth + 1)
    if isinstance(node, cst.IfExp):  # a Python `if` picks one of the two, the same for every element
        return is_configuration(node.body, env, depth + 1) and is_configuration(node.orelse, env, depth + 1)
    if isinstance(node, cst.Attribute):  # `self.radius`, stored from `radius: float` in `__init__`
        stores = env.attribute_stores(node)
        return stores is not None and all(
            is_configuration(value, here, depth + BINDING_COST) and not _module_leaf(value, here, depth + BINDING_COST) for value, here in stores
        )
    if isinstance(node, cst.Call) and is_builtin(node.func, SCALAR_CONVERSIONS, env):
        return True  # `float(cutoff)`: a Python number, whatever it converts (a tracer cannot be)
    if isinstance(node, cst.Call) and ((qualified := env.qualified(node.func)) is not None or is_builtin(node.func, NUMBER_BUILTINS, env)):
        leaf = leaf_name(node.func)
        if leaf in VARYING_CONSTRUCTORS or RANDOM_NAME.search(qualified or "") is not None:
            return False  # `linspace(a, b, n)`, a random draw: numbers that differ element by element
        if leaf in FILL_ARGUMENT:  # `full_like(x, eps)`: `x` gives the shape, the fill every value
            fill = argument_at(node, FILL_ARGUMENT[leaf])
            return fill is not None and is_configuration(fill, env, depth + 1)
        return all(is_configuration(arg.value, env, depth + 1) for arg in node.args)
    return False


def _module_leaf(node: cst.BaseExpression, env: Env, depth: int) -> bool:
    """Whether a value stored in a module's attribute may be one of its differentiated leaves: under
    JAX any array is (`_builds_array`); torch differentiates only what carries a gradient (a
    Parameter), not a buffer of a number (`torch.tensor(radius)`)."""
    if not _builds_array(node, env, depth):
        return False
    if env.traces_python_numbers():
        return True
    return not _makes_tensor(node, env, depth) or _data(node, env, depth, gradient=True)


def _tensor_stores(node: cst.Attribute, env: Env, depth: int) -> Optional[list[tuple[cst.BaseExpression, Env]]]:
    """What the class stores into `self.attr`, when every stored value is a tensor (or what no
    library call builds), not an object that may own Parameters."""
    stores = env.attribute_stores(node)
    if stores is None or not all(_is_tensor(value, here, depth + BINDING_COST) for value, here in stores):
        return None
    return stores


def _is_tensor(node: cst.BaseExpression, env: Env, depth: int) -> bool:
    """torch: a value that is a tensor, as what makes it says (`torch.linspace(0, 1, n)`,
    `torch.tensor(r).float()`, `2 * t`), or that no library call builds (`n: int`, `float(r)`,
    None): not a module (`nn.Linear(3, 4)`, whose weights are Parameters, though made of numbers),
    nor anything else nanlint cannot tell."""
    if depth > _MAX_NESTING:
        return False
    return not _builds_array(node, env, depth) or _makes_tensor(node, env, depth)


def _makes_tensor(node: cst.BaseExpression, env: Env, depth: int) -> bool:
    """A value some library call builds (`_builds_array`), that is a tensor (`_is_tensor`)."""
    if isinstance(node, cst.UnaryOperation):
        return _is_tensor(node.expression, env, depth + 1)
    if isinstance(node, cst.BinaryOperation):
        return _is_tensor(node.left, env, depth + 1) and _is_tensor(node.right, env, depth + 1)
    if isinstance(node, cst.Subscript):
        return _is_tensor(node.value, env, depth + 1)
    if isinstance(node, cst.Name) and (value := assigned(node, env)) is not None:
        return _is_tensor(value[0], value[1], depth + BINDING_COST)
    if isinstance(node, cst.Attribute):
        return node.attr.value in METADATA_ATTRS  # `x.shape`: sizes
    if not isinstance(node, cst.Call):
        return False
    qualified = env.qualified(node.func)
    if qualified is not None:
        return qualified.split(".")[0] == TENSOR_LIBRARY and not _builds_module(qualified, leaf_name(node.func))
    # A tensor's method (`t.float()`, `t.to(device)`) makes a tensor.
    return isinstance(node.func, cst.Attribute) and _is_tensor(node.func.value, env, depth + 1)


def _builds_module(qualified: str, leaf: Optional[str]) -> bool:
    """`torch.nn.Linear`, `torch.nn.ModuleList`: a module, whose weights are Parameters (a Parameter
    itself is a tensor; `torch.nn.functional.relu` makes one)."""
    module = qualified.rpartition(".")[0]
    inside = module == MODULE_NAMESPACE or module.startswith(MODULE_NAMESPACE + ".")
    return inside and leaf not in PARAMETER_CONSTRUCTORS and not any(module == n or module.startswith(n + ".") for n in TENSOR_FUNCTION_NAMESPACES)


def _builds_array(node: cst.BaseExpression, env: Env, depth: int) -> bool:
    """Whether a library call (not Python's, not `math`'s) builds the value, directly or through the
    locals it reads: an array. Stored in a module's attribute (`self.w = nnx.Param(1.0)`,
    `self.s = jnp.asarray(s)`), an array is a leaf the module's parameters are taken from, though it
    is made of Python numbers; a Python number is not (`eqx.filter_grad` differentiates arrays)."""
    if depth > _MAX_NESTING:
        return True
    for part in walk(node):
        if isinstance(part, cst.Call) and (qualified := env.qualified(part.func)) is not None and qualified.split(".")[0] not in PYTHON_NUMBER_MODULES:
            return True
        if isinstance(part, cst.Name) and (value := assigned(part, env)) is not None and _builds_array(*value, depth + BINDING_COST):
            return True
    return False


def is_builtin(func: cst.BaseExpression, names: frozenset[str], env: Env) -> bool:
    """A call of one of Python's builtins `names`, not shadowed here."""
    return isinstance(func, cst.Name) and func.value in names and env.binding(func) is None


_DIFFERENTIABLE_OPERATORS = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.Modulo, cst.Power, cst.MatrixMultiply)


class CallParts(NamedTuple):
    """A call as the value questions read it: `jnp.exp(x, ...)` or `x.exp(...)`."""

    qualified: Optional[str]  # a library function's qualified name; None for a method or user code
    method: Optional[str]  # the method's name, when it is one
    leaf: Optional[str]  # the last name, either way
    operand: Optional[cst.BaseExpression]  # a function's first argument, a method's receiver
    extra: list  # the other positional arguments


def call_parts(node: cst.Call, env: Env) -> CallParts:
    qualified = env.qualified(node.func)
    method = node.func.attr.value if qualified is None and isinstance(node.func, cst.Attribute) else None
    leaf = qualified.rsplit(".", 1)[-1] if qualified is not None else method
    values = positional(node)
    if method is not None:
        return CallParts(qualified, method, leaf, node.func.value, values)
    return CallParts(qualified, method, leaf, values[0] if values else None, values[1:])


def _call_data(node: cst.Call, env: Env, depth: int, gradient: bool) -> bool:
    qualified, method, leaf, _, _ = call_parts(node, env)
    if is_gradient_leaf(node, method):
        return True  # `torch.zeros(3, requires_grad=True)`: made of constants, yet an input of differentiation
    if gradient:
        if qualified is None and is_builtin(node.func, BUILTINS_WITHOUT_GRADIENT, env):
            return False  # len(x), int(n)
        if leaf in FILL_ARGUMENT:
            fill = argument_at(node, FILL_ARGUMENT[leaf])
            return fill is None or _data(fill, env, depth + 1, gradient)
        if cuts_gradient(node, leaf, qualified, env):
            return False
    if gradient and method in SHAPE_ONLY_METHODS:
        return _data(node.func.value, env, depth + 1, gradient)
    if gradient and (scattered := scatter_sum(qualified)) is not None:
        values = argument_at(node, scattered[0])  # the indices and the shape receive none
        return values is None or _data(values, env, depth + 1, gradient)
    skipped = [_dtype_argument(node, leaf, method is not None)]
    if gradient and qualified is not None and RANDOM_NAME.search(qualified):
        skipped += _random_settings(node, qualified)
    args_depend = any(
        _data(arg.value, env, depth + 1, gradient) for arg in node.args if not any(arg.value is s for s in skipped) and not _is_dtype_keyword(arg)
    )
    if qualified is not None or is_builtin(node.func, NUMBER_BUILTINS, env):
        return args_depend  # `min(n, m)` of sizes is a size
    if isinstance(node.func, cst.Attribute):
        # A method: its receiver carries the data (`x.sum()`).
        return args_depend or _data(node.func.value, env, depth + 1, gradient)
    # `dtype(1.0)`, `as_numpy_dtype(x.dtype)(0.)`: a constructor that is no data, of constants.
    callee = node.func
    constructor = isinstance(callee, cst.Call) or (isinstance(callee, cst.Name) and (b := env.binding(callee)) is not None and b.value is not None)
    return args_depend or not constructor or _data(callee, env, depth + 1, gradient)


def _random_settings(call: cst.Call, qualified: str) -> list[cst.BaseExpression]:
    """The arguments of a random draw that are no parameter of its distribution: its key or seed,
    its shape (`RANDOM_DRAW_SETTINGS`)."""
    keys = [arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value in RANDOM_DRAW_SETTINGS]
    values = positional(call)
    if values and qualified.startswith(KEY_FIRST_RANDOM_MODULE + "."):
        keys.append(values[0])
    return keys


def _dtype_argument(call: cst.Call, leaf: Optional[str], method: bool) -> Optional[cst.BaseExpression]:
    """The argument that names a dtype (`tf.cast(x, dtype)`): no data, whatever it is bound to."""
    position = (DTYPE_ARGUMENT_OF_METHOD if method else DTYPE_ARGUMENT_OF_FUNCTION).get(leaf or "")
    values = positional(call)
    return values[position] if position is not None and position < len(values) else None


def _is_dtype_keyword(arg: cst.Arg) -> bool:
    return arg.keyword is not None and arg.keyword.value == "dtype"


def is_gradient_leaf(call: cst.Call, method: Optional[str]) -> bool:
    """torch: a tensor made to receive a gradient of its own (`requires_grad=True`, `.requires_grad_()`,
    a `Parameter` unless given `requires_grad=False`)."""
    if method in REQUIRES_GRAD_METHODS:
        return True
    asked = next(
        (arg.value.value for arg in call.args if arg.keyword is not None and arg.keyword.value == REQUIRES_GRAD_KEYWORD and isinstance(arg.value, cst.Name)), None
    )
    if leaf_name(call.func) in PARAMETER_CONSTRUCTORS:
        return asked != "False"
    return asked == "True"


def cuts_gradient(call: cst.Call, leaf: Optional[str], qualified: Optional[str], env: Env) -> bool:
    """No gradient at all flows back through the call into its arguments, not even a zero: a
    barrier, an integer or truth-valued result, a function without a derivative (`argmax`), a
    NumPy or `math` function (`HOST_MODULES`, unless the run checks NumPy as differentiable), and
    in JAX and TensorFlow their rounding functions (`NO_GRADIENT_PATH_IN`; torch sends a zero)."""
    if leaf is None:
        return False
    if leaf in NO_GRADIENT_PATH or is_integer_cast(call, leaf):
        return True
    if qualified is None and isinstance(call.func, cst.Name):
        # A straight-line helper: `_to_int32(x)` returns `tf.cast(x, tf.int32)`.
        inner = env.inlined(call)
        return isinstance(inner, cst.Call) and cuts_gradient(inner, leaf_name(inner.func), env.qualified(inner.func), env)
    if qualified is None:
        return False
    root = qualified.split(".", 1)[0]
    if root in HOST_MODULES and not env.differentiable(root):
        return True
    framework = framework_of(qualified)
    return framework is not None and leaf in NO_GRADIENT_PATH_IN.get(framework, ())


def returns_indices_pair(call: cst.Call, env: Env) -> bool:
    """The call returns (values, indices): `top_k(x, k)`, `x.topk(k)`, `torch.sort(x)`, `torch.max(x,
    dim=1)`. A method is read by its name alone only where no array type has one that returns a
    single array (`x.sort()` is an array in JAX)."""
    qualified, method, leaf, _, rest = call_parts(call, env)
    if leaf in PAIRS_WITH_INDICES:
        return True
    if qualified is None or framework_of(qualified) != "torch":
        return False
    if leaf in TORCH_PAIRS_WITH_INDICES:
        return True
    return leaf in TORCH_PAIRS_WITH_INDICES_ALONG_A_DIM and (bool(rest) or keyword_value(call, ("dim",)) is not None)


def is_integer_cast(call: cst.Call, leaf: str) -> bool:
    """A cast or constructor to an integer or bool dtype: `x.astype(jnp.int32)`, `tf.cast(x, tf.bool)`, `x.long()`."""
    if leaf in INTEGER_DTYPES and isinstance(call.func, cst.Attribute) and not call.args:
        return True  # x.long(), x.int(), x.bool()
    dtype = keyword_value(call, ("dtype",))
    candidates = [dtype] if dtype is not None else []
    if leaf in CASTS:
        candidates += positional(call)
    return any(_dtype_name(c) in INTEGER_DTYPES for c in candidates)


def _dtype_name(node: cst.BaseExpression) -> Optional[str]:
    text = string_value(node)
    return text if text is not None else leaf_name(node)


def value_range(node: cst.BaseExpression, env: Env, depth: int = 0) -> Interval:
    """A hull of the values `node` can take; (-inf, inf) when nothing is known. Where the question is
    asked under conditions (`env.regions`: `y > 20` is true), or after the function checked one
    (`if y <= 0: raise`), what they say of `node` narrows it."""
    pinned = pinned_values(node, env)
    if pinned is not None:
        return pinned
    reach = _value_range(node, env, depth)
    if isinstance(node, _SUBJECTS):  # what conditions compare; the rest is computed from them
        for cond, truth in (*env.regions, *env.checked(node)):
            reach = _refined(reach, cond, node, truth, env)
    elif isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Divide):
        for cond, truth in env.regions:  # `q > t` bounds `q / t` (conditions.py)
            reach = _refined(reach, cond, node, truth, env, quotient_key(node.left, node.right, env))
    return reach


def quotient_key(numerator: cst.BaseExpression, denominator: cst.BaseExpression, env: Env) -> str:
    """How a condition's reader names the quotient of two compared expressions."""
    return f"{bare_code(numerator, env.code)} / {bare_code(denominator, env.code)}"


_SUBJECTS = (cst.Name, cst.Attribute, cst.Subscript)


def pinned_values(node: cst.BaseExpression, env: Env) -> Optional[Interval]:
    """The values a local takes where the question is asked, when pinned there (`Env.pinned`)."""
    if env.pinned and isinstance(node, cst.Name):
        for name, bindings, values in env.pinned:
            if name == node.value and frozenset(map(id, env.bindings(node))) == bindings:
                return values
    return None


def _value_range(node: cst.BaseExpression, env: Env, depth: int) -> Interval:
    if depth > _MAX_NESTING:
        return _UNKNOWN
    value = constant_value(node, env, depth + 1)
    if value is not None:
        return Interval(value, value)
    if isinstance(node, cst.Name):
        reach = _bindings_range(env.bindings(node), env, depth)
        if reach is not None:
            return reach
    if is_epsilon(node, env):
        return Interval(0.0, INF, False, False)  # `eps`, `finfo(dtype).eps`: small and positive
    if _is_dtype_maximum(node):
        return Interval(1.0, INF)  # `finfo(dtype).max`: the largest finite number, at least 127
    if isinstance(node, cst.Name):
        return _UNKNOWN
    if isinstance(node, cst.Attribute) and (stores := env.attribute_stores(node)):
        # `self.scale`: one of the values its class stores into it
        return functools.reduce(_hull, (value_range(value, here, depth + BINDING_COST) for value, here in stores))
    if _is_count(node, env):
        return Interval(0.0, INF, True, False)
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return _negate(value_range(node.expression, env, depth + 1))
    if isinstance(node, cst.BinaryOperation):
        return _binary_range(node, env, depth + 1)
    if isinstance(node, cst.Call):
        return _call_range(node, env, depth + 1)
    if isinstance(node, cst.IfExp):
        return _hull(value_range(node.body, env, depth + 1), value_range(node.orelse, env, depth + 1))
    if isinstance(node, cst.Subscript):
        return value_range(node.value, env, depth + 1)  # some of its elements: `lp[..., 0]`
    if isinstance(node, cst.Attribute) and node.attr.value == VALUES_FIELD and isinstance(node.value, cst.Call):
        return value_range(node.value, env, depth + 1)  # torch's (values, indices): `x.cummin(0).values`
    if isinstance(node, cst.Imaginary):
        # Ranges are of the real part, data being real: `1j * phase` has none, so `exp(1j * phase)`
        # (|exp| = 1) cannot overflow; a pole at 0 needs the real part at 0, which stays possible.
        return Interval(0.0, 0.0)
    if isinstance(node, cst.Comparison):
        # A truth value in arithmetic is 0 or 1 (`d + (d == 0)`); 1 where an outer select's
        # condition makes it true.
        truth = env.decided(node)
        return Interval(0.0, 1.0) if truth is None else Interval(float(truth), float(truth))
    return _UNKNOWN


_UNKNOWN = Interval(-INF, INF, False, False)


def _is_count(node: cst.BaseExpression, env: Env) -> bool:
    """A size, which is never negative: `x.shape[0]`, `tf.shape(x)[-1]`, `x.ndim`, `x.size(1)`,
    `x.numel()`, `len(x)`, `tf.size(x)`."""
    if isinstance(node, cst.Subscript):
        held = node.value
        if isinstance(held, cst.Attribute):
            return held.attr.value in SHAPES
        return isinstance(held, cst.Call) and env.qualified(held.func) is not None and leaf_name(held.func) in SHAPES
    if isinstance(node, cst.Attribute):
        return env.qualified(node) is None and node.attr.value in COUNT_ATTRIBUTES
    if isinstance(node, cst.Call):
        qualified, method, leaf, _, _ = call_parts(node, env)
        if method is not None:
            return method in COUNT_METHODS
        return (qualified is not None and leaf in COUNT_FUNCTIONS) or is_builtin(node.func, COUNT_BUILTINS, env)
    return False
# Elementwise clamps (not `max`/`min`, which may be reductions over an axis).
_CLAMPS = (LOWER_CLAMPS | UPPER_CLAMPS | {"clip", "clamp", "clip_by_value"}) - {"max", "min"}


def _call_range(node: cst.Call, env: Env, depth: int) -> Interval:
    qualified, method, leaf, operand, extra = call_parts(node, env)
    carried = carried_value(node, env)
    if carried is not None:
        # A helper's return, written out with the call's arguments, costs as a binding does: a
        # helper calling helpers is read no deeper than locals are (each level reads both sides).
        passed = carried is operand or any(carried is arg.value for arg in node.args)
        return value_range(carried, env, depth + (1 if passed else BINDING_COST))
    if leaf in STOP_GRADIENT and operand is not None:
        return value_range(operand, env, depth + 1)
    if leaf in CONSTANT_CONSTRUCTORS:
        return Interval(CONSTANT_CONSTRUCTORS[leaf], CONSTANT_CONSTRUCTORS[leaf])
    if leaf in FILL_ARGUMENT:
        fill = argument_at(node, FILL_ARGUMENT[leaf])
        return value_range(fill, env, depth + 1) if fill is not None else _UNKNOWN
    if leaf == "where" and len(extra) == 2:
        # where(c, a, b), a.where(c, b): one of the two, element by element, each where the
        # condition puts it (`where(x > 0, x, 1.0)` is positive).
        cond, chosen = _where_sides(method, operand, extra)
        truth = env.decided(cond)
        if truth is not None:
            return value_range(chosen[0] if truth else chosen[1], env, depth + 1)
        true, false = (value_range(branch, env, depth + 1) for branch in chosen)
        return _hull(_refined(true, cond, chosen[0], True, env), _refined(false, cond, chosen[1], False, env))
    if leaf in INCREASING_FUNCTIONS and operand is not None and not extra:
        rising = _increasing(INCREASING_FUNCTIONS[leaf], value_range(operand, env, depth + 1))
        # A clamped one (tad-mctc's `sqrt(clamp(x, min=eps))`) is also at least its bound.
        bound = _bounded_below_call(node, env)
        return _at_least(rising, *bound) if bound is not None else rising
    if leaf in SINES and (qualified is not None or not extra):
        return _sine_range(SINES[leaf], value_range(operand, env, depth + 1)) if operand is not None else Interval(-1.0, 1.0)
    if leaf in TANGENTS and operand is not None and (qualified is not None or not extra):
        return _tangent_range(value_range(operand, env, depth + 1))
    if leaf in BOUNDED_ABOVE_BY_ZERO and (qualified is not None or method is not None):
        return Interval(-INF, 0.0, False, BOUNDED_ABOVE_BY_ZERO[leaf])
    if leaf in ELEMENTS_OF_OPERAND and operand is not None and (qualified is not None or method is not None):
        return value_range(operand, env, depth + 1)
    if qualified in INTERPOLATION_VALUES:
        values = [argument_at(node, spec) for spec in INTERPOLATION_VALUES[qualified]]
        if values[0] is None:
            return _UNKNOWN
        ranges = [value_range(v, env, depth + 1) for v in values if v is not None]
        return functools.reduce(_hull, ranges)
    if leaf in _CLAMPS and operand is not None:
        return _clamp_range(node, leaf, operand, extra, env, depth + 1)
    signed = _sign_range(leaf, operand, extra, env, depth + 1)
    if signed is not None:
        return signed
    if leaf in ADDITIONS and operand is not None and len(extra) == 1 and len(node.args) == (1 if method else 2):
        return _add(value_range(operand, env, depth + 1), value_range(extra[0], env, depth + 1))
    if operand is not None and (qualified in SUMS or method in SUM_METHODS):
        return _sum_range(value_range(operand, env, depth + 1))
    if operand is not None and (qualified in CONTRACTIONS or method in CONTRACTION_METHODS):
        return _contraction_range(leaf, [operand, *extra], env, depth + 1)
    bound = _bounded_below_call(node, env)
    if bound is not None and leaf == "square" and operand is not None and not extra:
        return _raised(value_range(operand, env, depth + 1), 2)
    if bound is not None:
        return Interval(bound[0], INF, bound[1], False)
    if leaf in REMAINDERS and operand is not None and len(extra) == 1:
        return _remainder(value_range(operand, env, depth + 1), value_range(extra[0], env, depth + 1), REMAINDERS[leaf])
    if leaf in ("power", "pow") and operand is not None and len(extra) == 1:
        return _power_range(operand, extra[0], env, depth + 1)
    if leaf in RANGES and qualified is not None:
        return _arange_range(node, env)
    if is_builtin(node.func, EXTREMA_BUILTINS, env) and len(node.args) > 1 and all(a.keyword is None and not a.star for a in node.args):
        return _extremum([value_range(a.value, env, depth + 1) for a in node.args], node.func.value == "max")
    return _UNKNOWN


def _extremum(ranges: list[Interval], largest: bool) -> Interval:
    """Python's `max(a, b)` (`largest`) or `min(a, b)` of values in these ranges."""
    pick = max if largest else min
    lo, hi = pick(r.lo for r in ranges), pick(r.hi for r in ranges)
    return Interval(lo, hi, any(r.lo == lo and r.lo_closed for r in ranges), any(r.hi == hi and r.hi_closed for r in ranges))


def _sign_range(leaf: Optional[str], operand, extra: list, env: Env, depth: int) -> Optional[Interval]:
    """`abs(x)` and `neg(x)` of what is known of `x`: `|[-2, 1]|` is [0, 2]."""
    if operand is None or extra or leaf not in ABSOLUTE_VALUES | NEGATIONS:
        return None
    x = value_range(operand, env, depth)
    if leaf in NEGATIONS:
        return _negate(x)
    if x.lo >= 0:
        return x
    if x.hi <= 0:
        return _negate(x)
    if -x.lo > x.hi:
        return Interval(0.0, -x.lo, True, x.lo_closed)
    return Interval(0.0, x.hi, True, x.hi_closed or (-x.lo == x.hi and x.lo_closed))


def _bindings_range(bindings: list[Binding], env: Env, depth: int) -> Optional[Interval]:
    """The hull of the values these bindings give a name: what each was assigned, or a `range`
    loop's counts; None as soon as one is neither (a parameter, an import, another loop)."""
    reach = None
    for binding in bindings:
        where = env.at(binding.place)
        if _counts_up(binding, env):
            this = _arange_range(binding.iterated, where)
        elif binding.value is not None and binding.imported is None:
            this = value_range(binding.value, where, depth + BINDING_COST)
        elif binding.element_store is not None and binding.element_store.replaces:
            store = binding.element_store  # `d[m] = v`: `v` in some elements, the rest as before
            this = _hull(value_range(store.value, where, depth + BINDING_COST), value_range(store.name, where, depth + BINDING_COST))
        else:
            return None
        reach = this if reach is None else _hull(reach, this)
    return reach


def _counts_up(binding: Binding, env: Env) -> bool:
    """`for i in range(...)`: the loop takes `i` from Python's `range`, integers counting up or down."""
    loop = binding.iterated
    return isinstance(loop, cst.Call) and is_builtin(loop.func, PYTHON_RANGES, env)


def is_integer_valued(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """Whether the value is a Python integer: an integer literal, a size, an `int` parameter, a
    `range` loop's counter, an attribute every store puts one of these in, and sums, differences,
    products and floor quotients of such."""
    if depth > _MAX_NESTING:
        return False
    if isinstance(node, cst.Integer) or _is_count(node, env):
        return True
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        return is_integer_valued(node.expression, env, depth + 1)
    if isinstance(node, cst.BinaryOperation) and isinstance(node.operator, (cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide)):
        return is_integer_valued(node.left, env, depth + 1) and is_integer_valued(node.right, env, depth + 1)
    if isinstance(node, cst.Name):
        bindings = env.bindings(node)
        return bool(bindings) and all(
            _counts_up(b, env)
            or (b.parameter and b.annotation in INTEGER_ANNOTATIONS)
            or (b.value is not None and b.imported is None and is_integer_valued(b.value, env.at(b.place), depth + BINDING_COST))
            for b in bindings
        )
    if isinstance(node, cst.Attribute) and (stores := env.attribute_stores(node)):
        # `self.mode`, stored from `mode: int` in `__init__`: what every store puts there
        return all(is_integer_valued(value, here, depth + BINDING_COST) for value, here in stores)
    return False


def _arange_range(node: cst.Call, env: Env) -> Interval:
    """`arange(n)` counts up from 0, `arange(a, b)` from a constant `a`: no value is below its
    start when the step is positive (a positive constant, or none)."""
    values = positional(node)
    step = values[2] if len(values) > 2 else keyword_value(node, ("step", "delta"))
    if step is not None and not (constant_value(step, env) or 0.0) > 0:
        return _UNKNOWN
    start = constant_value(values[0], env) if len(values) > 1 else 0.0
    return Interval(start, INF) if start is not None else _UNKNOWN


def _sum_range(terms: Interval) -> Interval:
    """A sum's sign is its terms' when they all have one: `sum(x**2)` >= 0, `sum(x)` unknown."""
    if terms.lo == terms.hi == 0.0:
        return terms  # of zeros, 0
    if terms.lo >= 0:
        return Interval(0.0, INF, True, False)
    if terms.hi <= 0:
        return Interval(-INF, 0.0, False, True)
    return _UNKNOWN


def _contraction_range(leaf: Optional[str], operands: list[cst.BaseExpression], env: Env, depth: int) -> Interval:
    """`dot(a, b)`, `a @ b`, `einsum("ij,jk->ik", a, b)`: sums of products of an element of each
    (catalog CONTRACTIONS), and sums of squares where each element meets itself (`vdot(x, x)`,
    `einsum("ij,ij->i", x, x)`)."""
    paired = leaf in PAIRING_CONTRACTIONS
    if leaf == "einsum":
        subscripts = string_value(operands[0]) if is_string(operands[0]) else None
        if subscripts is None or len(operands) != 3:
            return _UNKNOWN  # the sublist form, or a product of three
        inputs = subscripts.split("->")[0].replace(" ", "").split(",")
        paired, operands = len(inputs) == 2 and inputs[0] == inputs[1], operands[1:]
    if len(operands) < 2:
        return _UNKNOWN
    a, b = operands[:2]  # tensordot's axes come third
    if paired and value_key(a, env) == value_key(b, env) and not draws_at_random(a, env):
        return _sum_range(_raised(value_range(a, env, depth), 2))
    return _sum_range(_product(value_range(a, env, depth), value_range(b, env, depth)))


def may_be_zero(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """Whether the value can be 0. A where is 0 only where a branch it takes is, though the hull
    of its branches may span 0 (`where(w < 0, -n, n)` with `n > 0`)."""
    if depth <= _MAX_NESTING:
        if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
            return may_be_zero(node.expression, env, depth + 1)
        if isinstance(node, cst.Name) and (value := assigned(node, env)) is not None:
            return may_be_zero(value[0], value[1], depth + BINDING_COST)
        if isinstance(node, cst.Call):
            _, method, leaf, operand, extra = call_parts(node, env)
            if leaf == "where" and len(extra) == 2:
                cond, chosen = _where_sides(method, operand, extra)
                return any(
                    truth is not False and IntervalSet.of(_refined(value_range(branch, env, depth + 1), cond, branch, polarity, env)).contains(0.0)
                    for branch, polarity, truth in zip(chosen, (True, False), _taken(env.decided(cond)))
                )
    return IntervalSet.of(value_range(node, env, depth)).contains(0.0)


def _where_sides(method, operand, extra: list) -> tuple[cst.BaseExpression, list[cst.BaseExpression]]:
    """A where's condition and its two branches: `where(c, a, b)`, or the method `a.where(c, b)`."""
    return (extra[0], [operand, extra[-1]]) if method is not None else (operand, extra)


def _taken(truth: Optional[bool]) -> tuple[Optional[bool], Optional[bool]]:
    """Whether each side of a where is taken, given its condition's truth (None: either may be)."""
    return (None, None) if truth is None else (truth, not truth)


def _refined(reach: Interval, cond: cst.BaseExpression, subject: cst.BaseExpression, polarity: bool, env: Env, text: Optional[str] = None) -> Interval:
    """The values of `subject` (known by `text`, as `Env.values_where`) where the condition is
    `polarity`, where it says so for certain."""
    where = env.values_where(cond, subject, polarity, text)
    if where is None:
        return reach
    region = IntervalSet.of(reach).intersect(where)
    if region.is_empty():
        return reach  # the branch is never taken; keep what is known of it
    return region.hull()


def _clamp_range(node: cst.Call, leaf: str, operand, extra: list, env: Env, depth: int) -> Interval:
    """maximum(a, b), minimum(a, b), clip(x, lo, hi), x.clamp(min=0): bounded on the side they bound."""
    x = value_range(operand, env, depth + 1)
    if leaf in ("maximum", "fmax", "minimum", "fmin"):
        if len(extra) != 1:
            return _UNKNOWN
        other = value_range(extra[0], env, depth + 1)
        return _larger(x, other) if leaf in LOWER_CLAMPS else _smaller(x, other)
    lower = keyword_value(node, LOWER_KEYWORDS)
    upper = keyword_value(node, UPPER_KEYWORDS)
    if leaf == "clamp_min":
        lower = lower if lower is not None else (extra[0] if extra else None)
    elif leaf == "clamp_max":
        upper = upper if upper is not None else (extra[0] if extra else None)
    else:
        lower = lower if lower is not None else (extra[0] if extra else None)
        upper = upper if upper is not None else (extra[1] if len(extra) > 1 else None)
    result = x
    if lower is not None and not is_none(lower):  # clip(x, lo) is maximum(x, lo): `min=eps` is above 0
        result = _larger(result, value_range(lower, env, depth + 1))
    if upper is not None and not is_none(upper):
        result = _smaller(result, value_range(upper, env, depth + 1))
    return result


def _is_dtype_maximum(node: cst.BaseExpression) -> bool:
    """`finfo(dtype).max`, `iinfo(dtype).max`: the largest value of a dtype."""
    return (
        isinstance(node, cst.Attribute)
        and node.attr.value == "max"
        and isinstance(node.value, cst.Call)
        and leaf_name(node.value.func) in DTYPE_INFO
    )


def _at_least(x: Interval, lo: float, closed: bool) -> Interval:
    """`x` where it is above `lo` (or at it, when `closed`); the bound alone where `x` is all below it."""
    region = IntervalSet.of(x).intersect(IntervalSet.above(lo, closed=closed))
    return Interval(lo, INF, closed, False) if region.is_empty() else region.hull()  # the tables' bound holds whatever the argument


def _larger(a: Interval, b: Interval) -> Interval:
    """The values of maximum(x, y) for x in `a` and y in `b`: above each (strictly where either is)."""
    lo, lo_closed = _bound(a.lo, a.lo_closed, b.lo, b.lo_closed, larger=True, either=False)
    hi, hi_closed = _bound(a.hi, a.hi_closed, b.hi, b.hi_closed, larger=True, either=True)
    return Interval(lo, hi, lo_closed, hi_closed)


def _smaller(a: Interval, b: Interval) -> Interval:
    """The values of minimum(x, y) for x in `a` and y in `b`."""
    lo, lo_closed = _bound(a.lo, a.lo_closed, b.lo, b.lo_closed, larger=False, either=True)
    hi, hi_closed = _bound(a.hi, a.hi_closed, b.hi, b.hi_closed, larger=False, either=False)
    return Interval(lo, hi, lo_closed, hi_closed)


def _bound(p: float, p_closed: bool, q: float, q_closed: bool, larger: bool, either: bool) -> tuple[float, bool]:
    """The larger (or smaller) of two bounds; of equal ones, reached if `either` is reached, or
    only if both are (max(x, eps) with x >= 0 and eps > 0 is above 0)."""
    if p != q:
        return (p, p_closed) if (p > q) == larger else (q, q_closed)
    return p, (p_closed or q_closed) if either else (p_closed and q_closed)


def _bounded_below_call(node: cst.Call, env: Env) -> Optional[tuple[float, bool]]:
    qualified = env.qualified(node.func)
    if qualified is not None:
        return BOUNDED_BELOW_FUNCTIONS.get(qualified)
    if isinstance(node.func, cst.Attribute) and not node.args:
        return BOUNDED_BELOW_METHODS.get(node.func.attr.value)
    return None


def _binary_range(node: cst.BinaryOperation, env: Env, depth: int) -> Interval:
    op = node.operator
    if isinstance(op, cst.Power):
        return _power_range(node.left, node.right, env, depth + 1)
    if isinstance(op, cst.Multiply):
        repeated = _repeated_product(node, env, depth)
        if repeated is not None:
            return repeated  # x * x, 2 * n * d * d
    if isinstance(op, cst.Subtract) and _is_reduction_of(node.right, node.left, UPPER_REDUCTIONS, env):
        return Interval(-INF, 0.0, False, True)  # x - max(x), x - logsumexp(x)
    if isinstance(op, cst.Subtract) and _is_reduction_of(node.right, node.left, LOWER_REDUCTIONS, env):
        return Interval(0.0, INF, True, False)  # x - min(x)
    left = value_range(node.left, env, depth + 1)
    right = value_range(node.right, env, depth + 1)
    if isinstance(op, cst.Add):
        return _add(left, right)
    if isinstance(op, cst.Subtract):
        return _add(left, _negate(right))
    if isinstance(op, cst.Multiply):
        return _product(left, right)
    if isinstance(op, cst.MatrixMultiply):
        return _sum_range(_product(left, right))  # as `matmul` (_contraction_range)
    if isinstance(op, cst.Modulo):
        return _remainder(left, right, REMAINDERS["mod"])
    if isinstance(op, cst.Divide) and left.lo == left.hi == 0.0:
        return left  # 0 / y (0 / 0 aside, as `_quotient_sign`)
    if isinstance(op, cst.Divide) and (right.lo > 0 or right.hi < 0):
        return _product(left, _reciprocal(right))
    if isinstance(op, cst.Divide) and (right.lo >= 0 or right.hi <= 0):
        return _quotient_sign(left, right)
    return _UNKNOWN


def _repeated_product(node: cst.BinaryOperation, env: Env, depth: int) -> Optional[Interval]:
    """A product in which a factor is written more than once, as the product of each factor's
    power (`2 * n * d * d` is 2 * n * d**2, never negative for a count `n`; `-d * d` is -(d**2),
    a negation being a factor of -1); None when every factor is written once."""
    factors, pending, negated = [], [node], False
    while pending:
        part = pending.pop()
        if isinstance(part, cst.BinaryOperation) and isinstance(part.operator, cst.Multiply):
            pending += [part.right, part.left]
        elif isinstance(part, cst.UnaryOperation) and isinstance(part.operator, cst.Minus):
            pending.append(part.expression)
            negated = not negated
        else:
            factors.append(part)
    codes = [env.code(factor) for factor in factors]
    powers = collections.Counter(codes)
    if max(powers.values()) < 2 or any(draws_at_random(factor, env) for factor in factors):
        return None  # two draws written alike are two values
    reach = Interval(1.0, 1.0)
    for code, factor in dict(zip(codes, factors)).items():
        reach = _product(reach, _raised(value_range(factor, env, depth + 1), powers[code]))
    return _negate(reach) if negated else reach


def draws_at_random(node: cst.CSTNode, env: Env) -> bool:
    """Whether an expression holds a random draw (`uniform(key, shape)`, `torch.rand_like(x)`)."""
    return any(is_random_draw(part, env) for part in walk(node))


def is_random_draw(node: cst.CSTNode, env: Env) -> bool:
    """Whether the node is a call of a random draw."""
    return isinstance(node, cst.Call) and RANDOM_NAME.search(env.qualified(node.func) or leaf_name(node.func) or "") is not None


def _remainder(dividend: Interval, divisor: Interval, dividends_sign: bool) -> Interval:
    """`a % m` for a divisor off 0: below |m| in size, with the divisor's sign, or with the
    dividend's for `fmod` (`fmod(|t|, 500)` is in [0, 500))."""
    if not (divisor.lo > 0 or divisor.hi < 0):
        return _UNKNOWN
    size = max(abs(divisor.lo), abs(divisor.hi))
    if dividends_sign:
        lo = 0.0 if dividend.lo >= 0 else -size
        hi = 0.0 if dividend.hi <= 0 else size
        return Interval(lo, hi, lo == 0.0, hi == 0.0)
    return Interval(0.0, size, True, False) if divisor.lo > 0 else Interval(-size, 0.0, False, True)


def _quotient_sign(left: Interval, right: Interval) -> Interval:
    """a / b for a b of one sign that may be 0: only the sign is known (0 / 0 aside)."""
    negative = (left.hi <= 0) == (right.lo >= 0) if left.hi <= 0 or left.lo >= 0 else None
    if negative is None:
        return _UNKNOWN
    return Interval(-INF, 0.0, False, True) if negative else Interval(0.0, INF, True, False)


def _is_reduction_of(node: cst.BaseExpression, operand: cst.BaseExpression, reductions: frozenset, env: Env, held: Optional[Env] = None) -> bool:
    """`max(x, ...)`, `x.max(...)`, `x.min(-1)[0]` (torch's values), `stop_gradient(max(x))`, or a
    local assigned one (`m = cummax(x)`, read where `x` is still the `x` it reduced), where `x` is
    `operand`. `held`: where `node` is written, `env` where `operand` is."""
    held = held or env
    if isinstance(node, cst.Name) and held is env and (value := assigned(node, env)) is not None:
        node, held = value
    if isinstance(node, cst.Subscript):
        node = node.value  # torch: x.max(dim) is (values, indices)
    elif isinstance(node, cst.Attribute) and node.attr.value == VALUES_FIELD:
        node = node.value
    if not isinstance(node, cst.Call):
        return False
    _, _, leaf, inner, _ = call_parts(node, held)
    if inner is None:
        return False
    if leaf in STOP_GRADIENT:
        return _is_reduction_of(inner, operand, reductions, env, held)
    return leaf in reductions and value_key(inner, held) == value_key(operand, env)


def _power_range(base: cst.BaseExpression, exponent: cst.BaseExpression, env: Env, depth: int) -> Interval:
    p = constant_value(exponent, env, depth + 1)
    base_range = value_range(base, env, depth + 1)
    if p is not None and p > 0 and (float(p).is_integer() or base_range.lo >= 0):
        return _raised(base_range, p)
    if p is None and base_range.lo >= 1:
        exponent_range = value_range(exponent, env, depth + 1)
        if exponent_range.lo >= 0:
            return Interval(1.0, INF, True, False)  # 2 ** abs(e)
    if base_range.lo > 0 or (base_range.lo == 0 and not base_range.lo_closed):
        return Interval(0.0, INF, False, False)  # a positive base to any power: `(d + eps) ** (1 / g)`
    return _UNKNOWN


def _raised(x: Interval, p: float) -> Interval:
    """x**p for p > 0, integer or on an x >= 0: the ends raised, so a bounded base keeps its bound
    (`t**2` with t in [0, 0.9] is in [0, 0.81], not just >= 0)."""
    def power(value: float) -> float:
        try:
            return value**p
        except OverflowError:
            return INF if value > 0 or p % 2 == 0 else -INF

    even = float(p).is_integer() and p % 2 == 0
    if x.lo >= 0 or not even:  # increasing there
        return Interval(power(x.lo), power(x.hi), x.lo_closed, x.hi_closed)
    if x.hi <= 0:
        return Interval(power(x.hi), power(x.lo), x.hi_closed, x.lo_closed)
    lo, hi = power(x.lo), power(x.hi)
    closed = (x.lo_closed and lo >= hi) or (x.hi_closed and hi >= lo)
    return Interval(0.0, max(lo, hi), True, closed)


def _increasing(function, x: Interval) -> Interval:
    """f over an interval, for an increasing f: its ends mapped (unknown where f is undefined)."""
    def at(value: float, fallback: float) -> float:
        try:
            return function(value)
        except (ValueError, OverflowError, ZeroDivisionError):
            return fallback

    lo, hi = at(x.lo, -INF), at(x.hi, INF)
    if math.isnan(lo) or math.isnan(hi):
        return _UNKNOWN
    return Interval(lo, hi, x.lo_closed, x.hi_closed)


def _sine_range(phase: float, x: Interval) -> Interval:
    """sin(x + phase) over an interval shorter than a period: the values at its ends and the peaks
    (+-1 at pi/2 + k*pi) inside it; [-1, 1] otherwise."""
    if not _locates_periods(x) or x.hi - x.lo >= 2 * math.pi:
        return Interval(-1.0, 1.0)
    a, b = x.lo + phase, x.hi + phase
    values = [(_periodic_zero(math.sin(a), a), x.lo_closed), (_periodic_zero(math.sin(b), b), x.hi_closed)]
    k = math.ceil((a - math.pi / 2) / math.pi)
    while (peak := math.pi / 2 + k * math.pi) < b:
        if peak > a:
            values.append((1.0 if k % 2 == 0 else -1.0, True))
        k += 1
    return functools.reduce(_hull, (Interval(v, v, closed, closed) for v, closed in values))


def _tangent_range(x: Interval) -> Interval:
    """tan over an interval: increasing from end to end, unless a pole (pi/2 + k*pi) lies within
    reach of it, where it takes every value."""
    if not _locates_periods(x):
        return _UNKNOWN
    above = math.pi / 2 + (math.floor((x.lo - math.pi / 2) / math.pi) + 1) * math.pi  # the first pole above x.lo
    if _periodic_zero(x.hi - above, x.hi) >= 0 or _periodic_zero(x.lo - (above - math.pi), x.lo) <= 0:
        return _UNKNOWN
    return Interval(math.tan(x.lo), math.tan(x.hi), x.lo_closed, x.hi_closed)


def _locates_periods(x: Interval) -> bool:
    """Whether the interval's ends are finite and small enough that a float tells the multiples of
    pi near them apart."""
    return max(abs(x.lo), abs(x.hi)) < 1e6


def _periodic_zero(value: float, argument: float) -> float:
    """0 for a value within rounding of it: an end written `jnp.pi` stands for pi, whose sine is 0,
    though the float's sine is 1.2e-16."""
    return 0.0 if abs(value) <= 1e-12 * max(1.0, abs(argument)) else value


def _negate(x: Interval) -> Interval:
    return Interval(-x.hi, -x.lo, x.hi_closed, x.lo_closed)


def _hull(a: Interval, b: Interval) -> Interval:
    lo_closed = (a.lo_closed and a.lo <= b.lo) or (b.lo_closed and b.lo <= a.lo)
    hi_closed = (a.hi_closed and a.hi >= b.hi) or (b.hi_closed and b.hi >= a.hi)
    return Interval(min(a.lo, b.lo), max(a.hi, b.hi), lo_closed, hi_closed)


def _add(a: Interval, b: Interval) -> Interval:
    return Interval(a.lo + b.lo, a.hi + b.hi, a.lo_closed and b.lo_closed, a.hi_closed and b.hi_closed)


def _product(a: Interval, b: Interval) -> Interval:
    """Interval multiplication; an end is attained when both ends that make it are (0 * inf is 0),
    or when one of them is an attained 0: 0 times any value of the other is 0."""
    ends = [
        (_mul(x, y), (x_closed and y_closed) or (x == 0 and x_closed) or (y == 0 and y_closed))
        for x, x_closed in ((a.lo, a.lo_closed), (a.hi, a.hi_closed))
        for y, y_closed in ((b.lo, b.lo_closed), (b.hi, b.hi_closed))
    ]
    lo = min(value for value, _ in ends)
    hi = max(value for value, _ in ends)
    return Interval(lo, hi, any(c for v, c in ends if v == lo), any(c for v, c in ends if v == hi))


def _reciprocal(x: Interval) -> Interval:
    """1 / x, for an x that keeps one sign."""
    def inverse(value: float) -> float:
        return 0.0 if math.isinf(value) else 1.0 / value

    return Interval(inverse(x.hi), inverse(x.lo), x.hi_closed and not math.isinf(x.hi), x.lo_closed)


def _mul(a: float, b: float) -> float:
    if a == 0 or b == 0:
        return 0.0
    return a * b


def reachable(node: cst.BaseExpression, env: Env) -> IntervalSet:
    """The values `node` can take, as a set (every number, when its range is not a number's)."""
    reach = value_range(node, env)
    if math.isnan(reach.lo) or math.isnan(reach.hi):
        return IntervalSet.of(Interval(-INF, INF))
    return IntervalSet.of(reach)


def can_reach(node: cst.BaseExpression, domain: IntervalSet, env: Env) -> bool:
    """Whether the argument's values can fall in an op's leak domain."""
    return not reachable(node, env).intersect(domain).is_empty()


def is_epsilon_shifted(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """`x + 1e-8`, `x + eps`, `sqrt(x + eps)`, or a local assigned so (`union = a + b - i + 1e-8`):
    the author moved the argument off the pole on purpose."""
    if depth > _MAX_NESTING:
        return False
    if isinstance(node, cst.Name):
        value = assigned(node, env)
        return value is not None and is_epsilon_shifted(value[0], value[1], depth + BINDING_COST)
    if isinstance(node, cst.Call) and leaf_name(node.func) == "sqrt" and len(node.args) == 1:
        return is_epsilon_shifted(node.args[0].value, env, depth + 1)
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return False
    return is_epsilon(node.left, env) or is_epsilon(node.right, env)


def zero_replaced(node: cst.BaseExpression, env: Env, depth: int = 0) -> bool:
    """`d + eps * (d == 0)`, `d + (d == 0)`, `d + isclose(d, 0)`, or a local assigned so: where `d` is
    0 (or within `isclose`'s tolerance of it) the value is `eps` (or 1) off by at most that
    tolerance, elsewhere it is `d`, so it is never 0."""
    if isinstance(node, cst.Name) and depth < _MAX_NESTING:
        value = assigned(node, env)
        return value is not None and zero_replaced(value[0], value[1], depth + BINDING_COST)
    if not (isinstance(node, cst.BinaryOperation) and isinstance(node.operator, cst.Add)):
        return False
    return any(_replaces_zero_of(term, other, env) for term, other in ((node.right, node.left), (node.left, node.right)))


def _replaces_zero_of(term: cst.BaseExpression, other: cst.BaseExpression, env: Env, factor: float = 1.0) -> bool:
    """`term` is `(x == 0)` or `isclose(x, 0)`, or it times a nonzero constant (an epsilon, for
    `==`), with `x` the `other` term. `factor`: what the test is multiplied by, `nan` when only
    known to be a positive epsilon."""
    if isinstance(term, cst.BinaryOperation) and isinstance(term.operator, cst.Multiply):
        for test, scale in ((term.right, term.left), (term.left, term.right)):
            value = constant_value(scale, env)
            if value is None and is_epsilon(scale, env):
                value = math.nan
            if value is not None and value != 0 and _replaces_zero_of(test, other, env, factor * value):
                return True
        return False
    if isinstance(term, cst.Call):
        # `isclose(x, 0)` holds where |x| <= atol: there `x + c` is 0 only if |c| <= atol.
        tolerance = _zero_test_tolerance(term, other, env)
        return tolerance is not None and abs(factor) > tolerance
    if not (isinstance(term, cst.Comparison) and len(term.comparisons) == 1 and isinstance(term.comparisons[0].operator, cst.Equal)):
        return False
    left, right = term.left, term.comparisons[0].comparator
    subject = left if constant_value(right, env) == 0 else right if constant_value(left, env) == 0 else None
    return subject is not None and env.code(subject) == env.code(other)


def _zero_test_tolerance(call: cst.Call, subject: cst.BaseExpression, env: Env) -> Optional[float]:
    """`isclose(x, 0, ...)` of the array modules, with `x` the `subject`: its absolute tolerance (the
    default, or a constant `atol`), within which it calls `x` zero; None for anything else."""
    qualified = env.qualified(call.func)
    if qualified is None or qualified.rsplit(".", 1)[-1] != "isclose" or framework_of(qualified) is None:
        return None
    args = positional(call)
    if len(args) != 2 or any(arg.star for arg in call.args):
        return None  # rtol, atol by position: read no further
    if constant_value(args[1], env) != 0 or env.code(args[0]) != env.code(subject):
        return None
    atol = keyword_value(call, ("atol",))
    return ISCLOSE_ATOL if atol is None else constant_value(atol, env)


def is_epsilon(node: cst.BaseExpression, env: Env) -> bool:
    value = constant_value(node, env)
    if value is not None:
        return value > 0
    if isinstance(node, cst.Name):
        return bool(EPSILON_NAME.match(node.value))
    if isinstance(node, cst.Attribute):
        return bool(EPSILON_NAME.match(node.attr.value))
    if isinstance(node, cst.Call):
        if EPSILON_NAME.match(leaf_name(node.func) or "") and not any(depends_on_data(arg.value, env) for arg in node.args):
            return True  # backend.epsilon(), get_epsilon(x.dtype): of a dtype, not of data
        # `float(finfo(t).eps)`, `tf.cast(self.epsilon, x.dtype)`: the same number (not `int(eps)`, 0).
        inner = positional(node)[0] if is_builtin(node.func, _FLOAT, env) and len(node.args) == 1 else carried_value(node, env)
        return inner is not None and is_epsilon(inner, env)
    return False


_FLOAT = frozenset({"float"})
