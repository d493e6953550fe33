"""The attributes of a method's receiver (`self.radius`) a class's methods read and store, by `ast`.

The prefilter keeps the methods that store an attribute a kept method reads, so that the analysis
sees every store of the class (analysis/attributes.py): what the attribute holds is read from them.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator


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


def receiver_stores(statements: list[ast.stmt]) -> set[str]:
    """The attributes of a method's receiver the methods among `statements` store into."""
    found: set[str] = set()
    for method, receiver in _receivers(statements):
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and _of_receiver(node, receiver) and isinstance(node.ctx, (ast.Store, ast.Del)):
                found.add(node.attr)  # an assignment's, a loop's or a `with`'s target, `del`
    return found
