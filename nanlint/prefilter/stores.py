"""The attributes of a method's receiver (`self.radius`) a class's methods read and store, by `ast`.

The prefilter keeps the methods that store an attribute a kept method reads, so that the analysis
sees every store of the class (analysis/attributes.py): what the attribute holds is read from them.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator, Optional

from nanlint.catalog.tables import PYTHON_NUMBER_MODULES

# What a store into `.name` looks like in text, on its line: an `=` after it that is no comparison
# (`self.a = v`, `self.a += v`, `self.a, self.b = v`, `self.a: float = v`), or a loop's or a
# `with`'s target. A screen: a match may be no store (`f(self.a, k=1)`); a store always matches.
_STORE = r"\.(?:{names})\b(?:[^\n=]*(?<![=<>!])=(?!=)|[^\n]*\bin\b)|\bas[ \t]+\w+\.(?:{names})\b"


def may_store(text: str, names: set[str]) -> bool:
    """Whether `text` may store into an attribute named in `names`, told by its text alone."""
    return re.search(_STORE.format(names="|".join(sorted(names))), text) is not None


def _receivers(statements: list[ast.stmt]) -> Iterator[tuple[ast.AST, str]]:
    """Each method among `statements`, with its receiver's name (its first parameter)."""
    for method in statements:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            parameters = [*method.args.posonlyargs, *method.args.args]
            if parameters:
                yield method, parameters[0].arg


def _of_receiver(node: ast.AST, receiver: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == receiver


def receiver_attributes(statements: list[ast.stmt]) -> set[str]:
    """The attributes of a method's receiver that the methods among `statements` read as values: a
    method called (`self.proj(x)`) or an object whose own attribute is read (`self.layer.weight`)
    holds no number."""
    found = set()
    for method, receiver in _receivers(statements):
        nodes = list(ast.walk(method))
        objects = {id(n.func) for n in nodes if isinstance(n, ast.Call)} | {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
        found |= {n.attr for n in nodes if _of_receiver(n, receiver) and isinstance(n.ctx, ast.Load) and id(n) not in objects}
    return found


def receiver_stores(statements: list[ast.stmt]) -> dict[str, bool]:
    """The attributes of a method's receiver the methods among `statements` store into, each with
    whether a store builds its value with a library call (`jnp.asarray(s)`; not `math.sqrt(s)`):
    an array, not a Python number (analysis/values.py reads the same)."""
    found: dict[str, bool] = {}
    for method, receiver in _receivers(statements):
        for node in ast.walk(method):
            if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if _of_receiver(node, receiver) and isinstance(node.ctx, (ast.Store, ast.Del)):
                    found.setdefault(node.attr, False)  # a loop's or a `with`'s target, `del`
                continue
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            array = node.value is not None and any(
                isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and _dotted_root(call.func) not in PYTHON_NUMBER_MODULES
                for call in ast.walk(node.value)
            )
            for target in targets:
                for part in ast.walk(target):
                    if _of_receiver(part, receiver) and isinstance(part.ctx, ast.Store):
                        found[part.attr] = found.get(part.attr, False) or array
    return found


def _dotted_root(node: ast.expr) -> Optional[str]:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None
