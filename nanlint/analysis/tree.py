"""libcst trees of the units the prefilter kept, read the way the analysis needs them.

- `parse_unit`: a unit's text as a libcst module (a class member under the prefilter's stand-in
  class), with what maps its offsets back into the file.
- `children`: a node's child nodes in source order, leaving out whitespace and punctuation. libcst's
  own visitors rebuild every node they pass; the index walks hundreds of thousands of nodes, so it
  reads the dataclass fields directly, and `visit` drives a libcst visitor the same way.
- `UnitTree.span`: where a node lies in the file, from one code generation of its unit, and only
  for units that hold a finding (libcst's PositionProvider does the same work, several times slower).
- `code`: a node's source text (with its own parentheses).
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Iterator, Optional

import libcst as cst
from libcst._nodes.internal import CodegenState

from nanlint.prefilter import MEMBER_WRAPPER, Unit

# Fields that hold formatting, never a node the analysis reads.
_FORMAT_FIELDS = frozenset(
    {
        "lpar", "rpar", "comma", "leading_lines", "lines_after_decorators", "header", "footer", "semicolon",
        "equal", "dot", "colon", "newline", "trailing_whitespace", "star", "lbracket", "rbracket", "lbrace",
        "rbrace", "walrus", "arrow", "leading_whitespace", "first_line", "empty_lines", "last_line", "indent",
        "default_indent", "default_newline", "has_trailing_newline", "encoding", "operator", "asynchronous",
        "whitespace_before", "whitespace_after", "relative", "posonly_ind",
    }
)
# Where the dataclass order of the fields is not the order of the source.
_SOURCE_ORDER = {
    cst.FunctionDef: ("decorators", "name", "type_parameters", "params", "returns", "body"),
    cst.ClassDef: ("decorators", "name", "type_parameters", "bases", "keywords", "body"),
    cst.IfExp: ("body", "test", "orelse"),
    cst.ExceptHandler: ("type", "name", "body"),
    cst.ExceptStarHandler: ("type", "name", "body"),
    cst.Parameters: ("posonly_params", "params", "star_arg", "kwonly_params", "star_kwarg"),
    cst.MatchCase: ("pattern", "guard", "body"),
    cst.Arg: ("keyword", "value"),
}
_FIELDS: dict[type, tuple[str, ...]] = {}


def _fields(node_type: type) -> tuple[str, ...]:
    fields = _FIELDS.get(node_type)
    if fields is None:
        fields = _SOURCE_ORDER.get(node_type) or tuple(
            f.name for f in dataclasses.fields(node_type) if f.name not in _FORMAT_FIELDS and not f.name.startswith("whitespace")
        )
        fields = _FIELDS[node_type] = tuple(f for f in fields if not f.startswith("whitespace"))
    return fields


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The node's child nodes in source order (formatting left out)."""
    out: list[cst.CSTNode] = []
    for name in _fields(type(node)):
        value = getattr(node, name, None)
        if isinstance(value, cst.CSTNode):
            out.append(value)
        elif type(value) is tuple or type(value) is list:
            out.extend(item for item in value if isinstance(item, cst.CSTNode))
    return out


def walk(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """The node and everything under it, depth first in source order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(children(current)))


def visit(node: cst.CSTNode, visitor: cst.CSTVisitor) -> None:
    """Run a libcst visitor over `node` and the nodes under it that the analysis reads, in source
    order. libcst's own traversal rebuilds every node it passes (and validates it); this one reads
    them as they are, which makes a branch search several times cheaper."""
    if visitor.on_visit(node):
        for child in children(node):
            visit(child, visitor)
    visitor.on_leave(node)


_PLAIN = cst.Module([])


def code(node: cst.CSTNode) -> str:
    """The node's source, with its own parentheses (continuation lines as the node holds them)."""
    return _PLAIN.code_for_node(node)


def bare_code(node: cst.CSTNode, code_of: Callable[[cst.CSTNode], str] = code) -> str:
    """The node's code without its own parentheses: `(loss)` is `loss`. `code_of`: how to render it
    otherwise (a detector's remembered `code`)."""
    if not getattr(node, "lpar", None) or isinstance(node, cst.Tuple):  # `()` is a tuple only with them
        return code_of(node)
    return code(node.with_changes(lpar=[], rpar=[]))


# --- units ---------------------------------------------------------------------------------------
@dataclasses.dataclass(eq=False)
class UnitTree:
    """A kept unit parsed by libcst: the module, and how its offsets map into the file."""

    unit: Unit
    module: cst.Module
    prefix: int  # characters of stand-in text before the unit's own text (a member's wrapper)
    _spans: Optional[dict[int, tuple[int, int]]] = None
    _extents: Optional[dict[int, tuple[int, int]]] = None

    @property
    def statements(self) -> list[cst.CSTNode]:
        """The unit's own statements: a member's, under the stand-in class."""
        if self.unit.member:
            return list(self.module.body[0].body.body)
        return list(self.module.body)

    def span(self, node: cst.CSTNode) -> tuple[int, int]:
        """Where the node starts and ends in the file (character offsets), as libcst's
        PositionProvider places it: the parentheses around an expression out, as `ast` has it."""
        self._generate()
        start, end = self._spans[id(node)]
        return self.unit.start + start - self.prefix, self.unit.start + end - self.prefix

    def extent(self, node: cst.CSTNode) -> tuple[int, int]:
        """Where the text that the node's code generation writes lies in the file: an
        expression's own parentheses in; for a statement, its leading lines and indentation too."""
        self._generate()
        start, end = self._extents[id(node)]
        return self.unit.start + start - self.prefix, self.unit.start + end - self.prefix

    def _generate(self) -> None:
        if self._spans is None:
            state = _OffsetState(self.module)
            self.module._codegen(state)
            self._spans, self._extents = state.spans, state.extents


def parse_unit(source: str, unit: Unit) -> UnitTree:
    """Raises libcst's ParserSyntaxError when the text does not parse."""
    text = unit.text(source)
    if unit.member:
        return UnitTree(unit, cst.parse_module(MEMBER_WRAPPER + text), len(MEMBER_WRAPPER))
    return UnitTree(unit, cst.parse_module(text), 0)


class _OffsetState(CodegenState):
    """Code generation that only counts characters, and records where each node's code lies."""

    def __init__(self, module: cst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.offset = 0
        self.spans: dict[int, tuple[int, int]] = {}
        self.extents: dict[int, tuple[int, int]] = {}
        self._starts: list[int] = []
        self._syntactic: dict[int, tuple[int, int]] = {}

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.offset += len(token)

    def add_token(self, value: str) -> None:
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        self._starts.append(self.offset)

    def after_codegen(self, node: cst.CSTNode) -> None:
        start = self._starts.pop()
        self.extents[id(node)] = (start, self.offset)
        self.spans.setdefault(id(node), (start, self.offset))

    def record_syntactic_position(self, node: cst.CSTNode, *, start_node=None, end_node=None) -> "_Recording":
        return _Recording(self, node, start_node, end_node)


class _Recording:
    """`with state.record_syntactic_position(node):` as a plain context manager: libcst enters one
    for most nodes, and a generator-based one costs several times more."""

    __slots__ = ("state", "node", "start_node", "end_node", "start")

    def __init__(self, state: _OffsetState, node: cst.CSTNode, start_node, end_node) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node

    def __enter__(self) -> None:
        self.start = self.state.offset

    def __exit__(self, error_type, *_) -> None:
        if error_type is not None:
            return  # the code generation failed (too deep a tree): let its error through, as it is
        spans = self.state.spans
        start = spans[id(self.start_node)][0] if self.start_node is not None else self.start
        end = spans[id(self.end_node)][1] if self.end_node is not None else self.state.offset
        spans[id(self.node)] = (start, end)


def generated(node: cst.CSTNode, module: cst.Module, indents: list[str]) -> str:
    """The code of `node` (maybe a new one) as it is written at a place with `indents` around it."""
    state = CodegenState(default_indent=module.default_indent, default_newline=module.default_newline)
    state.indent_tokens = list(indents)
    node._codegen(state)
    return "".join(state.tokens)


def loads(node: cst.CSTNode, skipped: frozenset[int] | set[int] = frozenset()) -> list[cst.Name]:
    """Names of data read in an expression: not attribute names, keyword labels, called functions
    (`open(...)` is not data, `x.sum()` reads `x`), anything inside a lambda, or the `skipped` nodes."""
    found: list[cst.Name] = []
    stack = [node]
    while stack:
        current = stack.pop()
        if id(current) in skipped:
            continue
        kind = type(current)
        if kind is cst.Name:
            found.append(current)
        elif kind is cst.Attribute:
            stack.append(current.value)
        elif kind is cst.Call:
            stack.extend(arg.value for arg in current.args)
            if not isinstance(current.func, cst.Name):
                stack.append(current.func)
        elif kind is cst.Arg:
            stack.append(current.value)
        elif kind is not cst.Lambda:
            stack.extend(children(current))
    return found
