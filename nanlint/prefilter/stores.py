"""The attributes of a method's receiver (`self.radius`) a class's methods read and store, by `ast`.

The prefilter keeps the methods that store an attribute a kept method reads, so that the analysis
sees every store of the class (analysis/attributes.py): what the attribute holds is read from them.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator

from nanlint.catalog.tables import ATTRIBUTE_REGISTRATIONS, is_in_place


# What a store into `.name` looks like in text, on its line: an `=` after it that is no comparison
# (`self.a = v`, `self.a += v`, `self.a, self.b = v`, `self.a: float = v`), or a loop's or a
# `with`'s target; an in-place method (`self.a.mul_(m)`); the name as a string (`register_buffer("a",
# t)`, `setattr(self, "a", v)`), or any `setattr`. A screen: a match may be no store (`f(self.a,
# k=1)`); a store always matches.
_STORE = (
    r"\.(?:{names})\b(?:[^\n=]*(?<![=<>!])=(?!=)|[^\n]*\bin\b)|\bas[ \t]+\w+\.(?:{names})\b"
    r"|\.(?:{names})\.\w+_[ \t]*\(|[\"'](?:{names})[\"']|\bsetattr\b"
)


def may_store(text: str, names: set[str]) -> bool:
    """Whether `text` may store into an attribute named in `names`, told by its text alone."""
    return re.search(_STORE.format(names="|".join(re.escape(n) for n in sorted(names))), text) is not None


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


def receiver_stores(statements: list[ast.stmt], read: set[str]) -> set[str]:
    """The attributes among `read` of a method's receiver the methods among `statements` store
    into, or change in place (analysis/attributes.py reads them all)."""
    found: set[str] = set()
    for method, receiver in _receivers(statements):
        for node in ast.walk(method):
            if isinstance(node, ast.Attribute) and _of_receiver(node, receiver) and isinstance(node.ctx, (ast.Store, ast.Del)):
                found.add(node.attr)  # an assignment's, a loop's or a `with`'s target, `del`
            elif isinstance(node, ast.Call):
                found |= _called_store(node, receiver, read)
    return found & read


def _called_store(call: ast.Call, receiver: str, read: set[str]) -> set[str]:
    """What a call stores into: `self.a.mul_(m)` and `self.register_buffer("a", t)` into `a`,
    `setattr(self, name, v)` into any attribute."""
    func = call.func
    if isinstance(func, ast.Attribute) and _of_receiver(func.value, receiver) and is_in_place(func.attr):
        return {func.value.attr}
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == receiver and func.attr in ATTRIBUTE_REGISTRATIONS:
        return _named(call.args[0] if call.args else None, read)
    if isinstance(func, ast.Name) and func.id == "setattr" and len(call.args) > 1 and isinstance(call.args[0], ast.Name) and call.args[0].id == receiver:
        return _named(call.args[1], read)
    return set()


def _named(name: ast.AST | None, read: set[str]) -> set[str]:
    """The attribute a name argument names: a string's, or any when it is computed."""
    if isinstance(name, ast.Constant) and isinstance(name.value, str):
        return {name.value}
    return set(read)
