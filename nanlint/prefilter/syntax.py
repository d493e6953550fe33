"""Python's `ast`, read the way the prefilter needs it: children in source order, places, and
parsing a piece of a file at its lines in the file.

`ast` is the prefilter's parser: about 20 times faster than libcst, it decides which parts of a
file libcst has to read.
"""

from __future__ import annotations

import ast
import warnings
from typing import Iterator, Optional

Position = tuple[int, int]  # (line, byte column), as `ast` places nodes


def parse(text: str) -> ast.Module:
    """`ast.parse`, quietly: the code being checked is not ours to warn about (`"\\d"` escapes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


def parsed(text: str) -> Optional[ast.Module]:
    """`parse`, or None for text that Python cannot read (or that is too deep for it)."""
    try:
        return parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def start_position(node: ast.AST) -> Position:
    """Where a node starts; a decorated definition starts at its first decorator."""
    decorators = getattr(node, "decorator_list", None)
    if decorators:
        first = decorators[0]
        return (first.lineno, first.col_offset - 1)  # the `@`
    return (node.lineno, node.col_offset)


# --- children in source order ----------------------------------------------------------------------
_SKIPPED = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
_CHILDLESS = (ast.Name, ast.Constant)


def _fields(node_type: type) -> tuple[str, ...]:
    if node_type is ast.IfExp:
        return ("body", "test", "orelse")  # `body if test else orelse`
    if node_type in (ast.ListComp, ast.SetComp, ast.GeneratorExp):
        return ("elt", "generators")
    if node_type is ast.DictComp:
        return ("key", "value", "generators")
    return tuple(node_type._fields)


# The commonest node types, listed without looking their fields up.
_DIRECT_LISTERS = {
    ast.Attribute: lambda node: [node.value],
    ast.Starred: lambda node: [node.value],
    ast.keyword: lambda node: [node.value],
    ast.UnaryOp: lambda node: [node.operand],
    ast.BinOp: lambda node: [node.left, node.right],
    ast.Subscript: lambda node: [node.value, node.slice],
    ast.Compare: lambda node: [node.left, *node.comparators],
    ast.BoolOp: lambda node: node.values,
    ast.Tuple: lambda node: node.elts,
    ast.List: lambda node: node.elts,
    ast.Assign: lambda node: [*node.targets, node.value],
    ast.Expr: lambda node: [node.value],
    ast.Return: lambda node: [node.value] if node.value is not None else [],
    ast.arg: lambda node: [node.annotation] if node.annotation is not None else [],
    ast.Slice: lambda node: [part for part in (node.lower, node.upper, node.step) if part is not None],
}


def _child_lister(node_type: type):
    """A function that lists a node's children, for one node type (built once per type: the
    linter walks hundreds of thousands of nodes)."""
    if node_type in _CHILDLESS:
        return lambda node: ()
    if node_type in _DIRECT_LISTERS:
        return _DIRECT_LISTERS[node_type]
    if node_type is ast.Dict:
        return lambda node: [item for pair in zip(node.keys, node.values) for item in pair if item is not None]
    fields = _fields(node_type)

    def listed(node: ast.AST) -> list[ast.AST]:
        out: list[ast.AST] = []
        for name in fields:
            value = getattr(node, name, None)
            if type(value) is list:
                out.extend(item for item in value if isinstance(item, ast.AST) and not isinstance(item, _SKIPPED))
            elif isinstance(value, ast.AST) and not isinstance(value, _SKIPPED):
                out.append(value)
        return out

    if node_type is ast.Call:
        return lambda node: [node.func, *node.args, *node.keywords] if not (node.args and node.keywords) else [
            node.func, *sorted([*node.args, *node.keywords], key=lambda n: (n.lineno, n.col_offset))
        ]
    return listed


_LISTERS: dict[type, object] = {}


def children(node: ast.AST) -> list[ast.AST]:
    """The node's child nodes in the order their source appears (operators and contexts left out)."""
    lister = _LISTERS.get(type(node))
    if lister is None:
        lister = _LISTERS[type(node)] = _child_lister(type(node))
    return lister(node)


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """The node and everything under it, depth first in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def call_arguments(call: ast.Call) -> list[ast.expr]:
    """Every value a call passes, in source order: positional (`*xs` as `xs`) and keyword (`**kw` as `kw`)."""
    values = [a.value if isinstance(a, ast.Starred) else a for a in call.args]
    if call.keywords:
        values += [k.value for k in call.keywords]
        if call.args:
            values.sort(key=lambda n: (n.lineno, n.col_offset))
    return values


def positional(call: ast.Call) -> list[ast.expr]:
    """The plain positional arguments (not `*xs`)."""
    return [a for a in call.args if not isinstance(a, ast.Starred)]


def keyword_value(call: ast.Call, names) -> ast.expr | None:
    for item in call.keywords:
        if item.arg is not None and item.arg in names:
            return item.value
    return None


def is_number(node: ast.AST) -> bool:
    """An int or float literal (not a bool)."""
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def is_string(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes))) or isinstance(node, ast.JoinedStr)


def leaf_name(func: ast.AST) -> Optional[str]:
    """The last name of a called expression: `where` for `jnp.where`, `w` for `w`."""
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None
