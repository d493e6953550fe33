"""The catalog as one run sees it: the built-in tables, the user's additions, the enabled frameworks."""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from nanlint.catalog.intervals import Interval
from nanlint.catalog.tables import (
    BARRIERS,
    GRADIENT_GATE_METHODS,
    GRADIENT_GATES,
    GRADIENT_SAFE,
    GUARDS_ITS_RESULT,
    SHAPE_ONLY,
    NAN_REPLACEMENT_INDEX,
    NAN_REPLACEMENTS,
    NAN_TEST_INDEX,
    NAN_TESTS,
    OP_INDEX,
    OPS_BY_KEY,
    SELECT_INDEX,
    SELECTING_CLAMP_METHODS,
    SELECTING_CLAMPS,
    SELECTS,
    NanReplacement,
    NanTest,
    SelectFunction,
    SingularOp,
    canonical_names,
    framework_of,
)
from nanlint.config.settings import Settings

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
        # A project's own safe function is taken at its word: it guards its result too.
        self._guards_result = frozenset(GUARDS_ITS_RESULT) | frozenset(settings.extend_safe_functions)
        # The last names of every function spelling, for the text tests and the screen before any parse.
        self.select_function_leaves = frozenset(n.rsplit(".", 1)[-1] for n in self._selects)
        self.op_function_leaves = frozenset(n.rsplit(".", 1)[-1] for n in self._ops)
        # NaN replacements (`nan_to_num`) are no selects, but they mask as selects do (NAN201): the
        # calls the analysis reads are those named like either.
        self.replacement_leaves = frozenset(n.rsplit(".", 1)[-1] for n in NAN_REPLACEMENT_INDEX) | frozenset(
            m for entry in NAN_REPLACEMENTS for fw, names in entry.methods.items() if self._enabled(fw) for m in names
        )
        self.select_leaf_names = self.select_function_leaves | self.method_names(self.frameworks)[0] | self.replacement_leaves
        self.nan_test_leaves = frozenset(n.rsplit(".", 1)[-1] for n in NAN_TEST_INDEX) | frozenset(
            m for test in NAN_TESTS for names in test.methods.values() for m in names
        )

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

    def nan_test(self, qualified: Optional[str]) -> Optional[tuple[NanTest, str]]:
        return self._lookup(NAN_TEST_INDEX, qualified)

    def replacement(self, qualified: Optional[str]) -> Optional[tuple[NanReplacement, str]]:
        return self._lookup(NAN_REPLACEMENT_INDEX, qualified)

    def removed_in_tf2(self, qualified: Optional[str]) -> bool:
        """`tf.debugging.is_nan`: a spelling of a NaN test that TensorFlow 2 no longer has."""
        return qualified is not None and any(qualified in test.removed_in_tf2 for test in NAN_TESTS)

    def is_safe(self, qualified: Optional[str]) -> bool:
        return any(name in self._safe for name in _candidates(qualified))

    def guards_its_result(self, qualified: Optional[str]) -> bool:
        """An op singular where this function is at its own pole may take its result (`1 / distance(dr)`)."""
        return any(name in self._guards_result for name in _candidates(qualified))

    def clamp_gradient_selects(self, qualified: Optional[str], method: Optional[str], framework: str) -> bool:
        """Whether this clamp's gradient selects the cotangent (torch, TensorFlow) rather than
        multiplying it by a mask (JAX): below its bound, an infinite cotangent becomes 0, not NaN."""
        if method is not None:
            return method in SELECTING_CLAMP_METHODS.get(framework, ())
        return any(name in SELECTING_CLAMPS for name in _candidates(qualified))

    def gradient_gate(self, qualified: Optional[str], method: Optional[str], frameworks: frozenset[str]) -> Optional[tuple[Interval, bool]]:
        """Where this function passes its cotangent on (`relu`: above 0; elsewhere its gradient
        selects 0), and whether that holds only under XLA (TensorFlow's eager kernels multiply)."""
        if method is not None:
            for fw, gates in GRADIENT_GATE_METHODS.items():
                if method in gates and fw in frameworks and self._enabled(fw):
                    return gates[method], False
            return None
        name = next((n for n in _candidates(qualified) if n in GRADIENT_GATES), None)
        framework = framework_of(name) if name is not None else None
        if framework is None or not self._enabled(framework):
            return None
        return GRADIENT_GATES[name], framework == "tensorflow"

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

    def replacement_methods(self, frameworks: frozenset[str]) -> frozenset[str]:
        """The tensor-method spellings of NaN replacements (`x.nan_to_num()`) a file importing `frameworks` can call."""
        return frozenset(m for entry in NAN_REPLACEMENTS for fw, names in entry.methods.items() if fw in frameworks and self._enabled(fw) for m in names)

    def method_select(self, method: str, frameworks: frozenset[str]) -> Optional[tuple[SelectFunction, str]]:
        return self._method_entry(SELECTS, method, frameworks)

    def method_nan_test(self, method: str, frameworks: frozenset[str]) -> Optional[tuple[NanTest, str]]:
        return self._method_entry(NAN_TESTS, method, frameworks)

    def method_replacement(self, method: str, frameworks: frozenset[str]) -> Optional[tuple[NanReplacement, str]]:
        return self._method_entry(NAN_REPLACEMENTS, method, frameworks)

    def _method_entry(self, entries, method: str, frameworks: frozenset[str]):
        """The first entry that has `method` as a tensor method of a framework the file imports."""
        for entry in entries:
            for fw, names in entry.methods.items():
                if method in names and fw in frameworks and self._enabled(fw):
                    return entry, fw
        return None


def _candidates(qualified: Optional[str]) -> tuple[str, ...]:
    return canonical_names(qualified) if qualified else ()
