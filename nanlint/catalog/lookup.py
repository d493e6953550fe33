"""The catalog as one run sees it: the built-in tables, the user's additions, the enabled frameworks."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from nanlint.catalog.tables import (
    GRADIENT_SAFE,
    SHAPE_ONLY,
    OP_INDEX,
    OPS_BY_KEY,
    SELECT_INDEX,
    SELECTS,
    SelectFunction,
    SingularOp,
    canonical_names,
    framework_of,
)
from nanlint.config.settings import Settings

# Barriers: no gradient flows through them at all, so nothing inside can leak.
BARRIERS = frozenset({"jax.lax.stop_gradient", "tensorflow.stop_gradient"})
BARRIER_METHODS = frozenset({"detach"})
_SHAPE_ONLY = frozenset(SHAPE_ONLY)

_WHERE = next(sel for sel in SELECTS if sel.kind == "where")


class Catalog:
    def __init__(self, settings: Settings) -> None:
        self.frameworks = frozenset(settings.frameworks)
        self._ops = dict(OP_INDEX)
        for name, key in settings.extend_singular_ops.items():
            self._ops[name] = (OPS_BY_KEY[key], framework_of(name) or "user")
        self._selects = dict(SELECT_INDEX)
        for name in settings.extend_select_functions:
            fw = framework_of(name) or "user"
            self._selects[name] = (replace(_WHERE, names={fw: (name,)}, methods={}), fw)
        self._safe = frozenset(GRADIENT_SAFE) | frozenset(settings.extend_safe_functions)
        # The last names of every function spelling, for the text tests and the screen before any parse.
        self.select_function_leaves = frozenset(n.rsplit(".", 1)[-1] for n in self._selects)
        self.op_function_leaves = frozenset(n.rsplit(".", 1)[-1] for n in self._ops)
        self.select_leaf_names = self.select_function_leaves | self.method_names(self.frameworks)[0]

    def _enabled(self, framework: str) -> bool:
        return framework in self.frameworks or framework == "user"

    def op(self, qualified: Optional[str]) -> Optional[tuple[SingularOp, str]]:
        return self._lookup(self._ops, qualified)

    def select(self, qualified: Optional[str]) -> Optional[tuple[SelectFunction, str]]:
        return self._lookup(self._selects, qualified)

    def _lookup(self, index: dict, qualified: Optional[str]):
        """The first entry under the name or one of its canonical spellings, if its framework is on."""
        for name in _candidates(qualified):
            hit = index.get(name)
            if hit is not None:
                return hit if self._enabled(hit[1]) else None
        return None

    def is_safe(self, qualified: Optional[str]) -> bool:
        return any(name in self._safe for name in _candidates(qualified))

    def is_shape_only(self, qualified: Optional[str]) -> bool:
        """`zeros_like(x)`: only x's shape and dtype are read, so no gradient flows into it."""
        return any(name in _SHAPE_ONLY for name in _candidates(qualified))

    def is_barrier(self, qualified: Optional[str]) -> bool:
        return any(name in BARRIERS for name in _candidates(qualified))

    def method_op(self, method: str, frameworks: frozenset[str]) -> Optional[tuple[SingularOp, str]]:
        """A tensor method (`x.sqrt()`), for the frameworks this file imports."""
        for op in OPS_BY_KEY.values():
            for fw, names in op.methods.items():
                if method in names and fw in frameworks and self._enabled(fw):
                    return op, fw
        return None

    def method_names(self, frameworks: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
        """The tensor-method spellings of (selects, ops) a file importing `frameworks` can call."""
        on = {fw for fw in frameworks if self._enabled(fw)}
        selects = frozenset(m for sel in SELECTS for fw, names in sel.methods.items() if fw in on for m in names)
        ops = frozenset(m for op in OPS_BY_KEY.values() for fw, names in op.methods.items() if fw in on for m in names)
        return selects, ops

    def method_select(self, method: str, frameworks: frozenset[str]) -> Optional[tuple[SelectFunction, str]]:
        for sel in SELECTS:
            for fw, names in sel.methods.items():
                if method in names and fw in frameworks and self._enabled(fw):
                    return sel, fw
        return None


def _candidates(qualified: Optional[str]) -> tuple[str, ...]:
    return canonical_names(qualified) if qualified else ()
