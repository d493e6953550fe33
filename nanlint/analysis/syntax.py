"""Python's `ast`, read the way a linter needs it: children in source order, and each node's text.

`ast` is the parser the detector runs on (libcst is several times slower, issue #6). It leaves out
two things a linter reports: columns in characters (it counts UTF-8 bytes) and the parentheses that
wrap an expression (`(a + b)`). `SourceText` adds both, from the text the tree was parsed from.
"""

from __future__ import annotations

import ast
import bisect
import keyword
import warnings
from typing import Iterator

from nanlint.source_lines import line_starts
from nanlint.prefilter.textscan import SPACE, skip_space

# Before a `(`, these words start an expression; any other name before it is a call: `f (x)`.
_EXPRESSION_KEYWORDS = frozenset(keyword.kwlist) - {"None", "True", "False"}


class SourceText:
    """The text a tree was parsed from: slices of it by node, and positions in characters."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._starts: list[int] | None = None
        self._ascii: dict[int, bool] = {}

    @property
    def starts(self) -> list[int]:
        """Where each line begins (found on first use: most files are analysed without reporting)."""
        if self._starts is None:
            self._starts = line_starts(self.text)
        return self._starts

    def offset(self, line: int, column_bytes: int) -> int:
        """The character offset of a position `ast` gives (1-based line, UTF-8 byte column)."""
        start = self.starts[line - 1]
        return start + self.column(line, column_bytes)

    def column(self, line: int, column_bytes: int) -> int:
        """The 0-based character column of a byte column on `line`."""
        ascii_line = self._ascii.get(line)
        start = self.starts[line - 1]
        end = self.starts[line] if line < len(self.starts) else len(self.text)
        if ascii_line is None:
            ascii_line = self._ascii[line] = self.text[start:end].isascii()
        if ascii_line:
            return column_bytes
        return len(self.text[start:end].encode("utf-8")[:column_bytes].decode("utf-8", errors="replace"))

    def span(self, node: ast.AST) -> tuple[int, int]:
        """Character offsets of the node, without the parentheses around it."""
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def outer_span(self, node: ast.AST) -> tuple[int, int]:
        """Character offsets of the node with its own parentheses: `(a + b)` in `f((a + b))`."""
        start, end = self.span(node)
        text = self.text
        while True:
            before = _skip_back(text, start)
            after = skip_space(text, end)
            if before < 0 or after >= len(text) or text[before] != "(" or text[after] != ")" or _opens_a_call(text, before):
                return start, end
            start, end = before, after + 1

    def code(self, node: ast.AST) -> str:
        """The node's source, with its own parentheses."""
        start, end = self.outer_span(node)
        return self.text[start:end]

    def position_of(self, offset: int) -> tuple[int, int]:
        """(1-based line, 0-based character column) of a character offset."""
        line = bisect.bisect_right(self.starts, offset)
        return line, offset - self.starts[line - 1]


def _skip_back(text: str, offset: int) -> int:
    """The last character before `offset` that is neither space nor part of a comment; -1 if none."""
    index = offset - 1
    while index >= 0:
        if text[index] in SPACE:
            index -= 1
            continue
        comment = _comment_start(text, text.rfind("\n", 0, index) + 1, index)
        if comment < 0:
            return index
        index = comment - 1
    return index


def _comment_start(text: str, line_start: int, index: int) -> int:
    """Where a comment that holds `index` starts on its line (a `#` outside quotes), or -1."""
    if "#" not in text[line_start : index + 1]:
        return -1
    quote = ""
    position = line_start
    while position <= index:
        char = text[position]
        if quote:
            if char == "\\":
                position += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#":
            return position
        position += 1
    return -1


def _opens_a_call(text: str, paren: int) -> bool:
    """Whether the `(` at `paren` opens a call's (or a class's) argument list, not an expression's parentheses."""
    index = _skip_back(text, paren)
    if index < 0:
        return False
    char = text[index]
    if char in ")]\"'":
        return True
    if not (char.isalnum() or char == "_"):
        return False
    start = index
    while start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        start -= 1
    return text[start : index + 1] not in _EXPRESSION_KEYWORDS


def parse(text: str) -> ast.Module:
    """`ast.parse`, quietly: the code being checked is not ours to warn about (`"\\d"` escapes)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ast.parse(text)


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
