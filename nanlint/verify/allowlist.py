"""The only framework functions and tensor methods the verification worker may call.

Built from the catalog: singular ops, selects, gradient-safe functions, bounded-below functions,
shape-only constructors, and the frameworks' elementwise math in the modules each framework keeps it. Names are resolved by importing a framework root module and following getattr,
so nothing outside these frameworks is ever imported, and nothing outside this list is ever called.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from nanlint.catalog.tables import (
    BOUNDED_BELOW_FUNCTIONS,
    CAST_METHODS,
    ELEMENTWISE_LEAVES,
    ELEMENTWISE_MODULES,
    GRADIENT_SAFE,
    SHAPE_ONLY,
    GRADIENT_SAFE_METHODS,
    NAN_PRESERVING,
    NAN_REPLACEMENTS,
    NAN_TESTS,
    OPS,
    RANDOM_NAME,
    SELECTS,
    SUMS,
    canonical_names,
)

# Backends the worker can execute. autograd/keras/numpy appear in the catalog but are not run.
BACKENDS = ("jax", "tensorflow", "torch")

# The modules a name may be resolved from, longest first (jax.scipy is not loaded by `import jax`).
ROOT_MODULES: dict[str, tuple[str, ...]] = {
    "jax": ("jax.scipy.special", "jax.numpy", "jax.lax", "jax.nn", "jax"),
    "tensorflow": ("tensorflow",),
    "torch": ("torch",),
}

# Tensor methods: the elementwise math and casts, and torch's catalog methods. TF/JAX arrays lack most.
_EXTRA_METHODS = ("where", "pow", "detach", "sum", *CAST_METHODS, *ELEMENTWISE_LEAVES)


def _root_framework(name: str) -> str | None:
    root = name.split(".", 1)[0]
    return root if root in BACKENDS else None


def _build() -> tuple[dict[str, frozenset[str]], frozenset[str]]:
    names: dict[str, set[str]] = {fw: set() for fw in BACKENDS}
    for table in (OPS, SELECTS, NAN_TESTS, NAN_REPLACEMENTS):
        for entry in table:
            for fw, qualified in entry.names.items():
                if fw in BACKENDS:
                    names[fw].update(qualified)
    # The elementwise math, and what a value passes through on its way to a NaN mask (NAN201): pure tensor math.
    leaves = (*ELEMENTWISE_LEAVES, *NAN_PRESERVING)
    elementwise = (f"{module}.{leaf}" for modules in ELEMENTWISE_MODULES.values() for module in modules for leaf in leaves)
    # GRADIENT_SAFE and BOUNDED_BELOW also list optax, jax_md, keras...: keep only the executable roots.
    for name in (*GRADIENT_SAFE, *BOUNDED_BELOW_FUNCTIONS, *SUMS, *SHAPE_ONLY, *elementwise):
        fw = _root_framework(name)
        if fw:
            names[fw].add(name)
    methods = set(_EXTRA_METHODS) | NAN_PRESERVING
    for table in (OPS, SELECTS, NAN_TESTS, NAN_REPLACEMENTS):
        for entry in table:
            methods.update(entry.methods.get("torch", ()))
    methods.update(GRADIENT_SAFE_METHODS.get("torch", ()))
    # Every name is checked against its root framework too, so "torch.x" can never be allowed for jax;
    # and nothing random: the fixed and the original code must see the same values.
    return {fw: frozenset(n for n in ns if _root_framework(n) == fw and not RANDOM_NAME.search(n)) for fw, ns in names.items()}, frozenset(methods)


FUNCTIONS, METHODS = _build()


class NotAllowed(Exception):
    """A name outside the allowlist; the message is `not allowed: <name>`."""

    def __init__(self, name: str) -> None:
        super().__init__(f"not allowed: {name}")


def allowed_name(name: str, backend: str) -> str:
    """The allowlisted spelling of `name` for `backend` (the name itself or a canonical alias)."""
    if not isinstance(name, str) or backend not in FUNCTIONS:
        raise NotAllowed(repr(name))
    for candidate in canonical_names(name):
        if candidate in FUNCTIONS[backend]:
            return candidate
    raise NotAllowed(name)


def _spellings(name: str) -> list[str]:
    """`tensorflow.log` and `tensorflow.math.log` name one function; only one of them may exist."""
    out = [name]
    if name.startswith("tensorflow.math."):
        out.append("tensorflow." + name[len("tensorflow.math."):])
    elif name.startswith("tensorflow.") and name.count(".") == 1:
        out.append("tensorflow.math." + name[len("tensorflow."):])
    return out


def _follow(name: str, backend: str) -> Any:
    for root in ROOT_MODULES[backend]:
        if name == root or not name.startswith(root + "."):
            continue
        obj: Any = importlib.import_module(root)
        for part in name[len(root) + 1:].split("."):
            if part.startswith("_"):  # never walk into private or dunder attributes
                raise NotAllowed(name)
            obj = getattr(obj, part)
        return obj
    raise NotAllowed(name)


def resolve(name: str, backend: str) -> Callable[..., Any]:
    """The framework function for an allowlisted name; NotAllowed or LookupError otherwise."""
    allowed = allowed_name(name, backend)
    for spelling in _spellings(allowed):
        try:
            obj = _follow(spelling, backend)
        except AttributeError:
            continue
        if callable(obj):
            return obj
    raise LookupError(f"{name} does not exist in the installed {backend}")


def check_method(name: str) -> str:
    if not isinstance(name, str) or name.startswith("_") or name not in METHODS:
        raise NotAllowed(name if isinstance(name, str) else repr(name))
    return name
