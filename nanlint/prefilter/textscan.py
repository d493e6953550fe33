"""What a source text tells without parsing it: its imports, the select names it calls, its words.

Everything here runs on every checked file, so it is plain `re` and `str` work at C speed; the
parsers only ever see the parts of a file this module points them to.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Iterator

from nanlint.catalog.tables import ARRAY_API_MODULE, NAMESPACE_GETTERS, NAMESPACE_METHOD, NAMESPACE_SELECT, framework_of

# `import a.b as c, d` and `from m import (x as y, z)`: at any indentation, after `;` or `try:`,
# continued by a backslash. Text in strings that looks like an import only adds names: harmless.
_STATEMENT_START = r"(?:^|[;:])[ \t]*"
_NAMES = r"(?:\\\n|[^\n#;\\])+"
_IMPORT = re.compile(_STATEMENT_START + r"import[ \t]+(" + _NAMES + ")", re.M)
_FROM_IMPORT = re.compile(_STATEMENT_START + r"from[ \t]+(\.*[\w.]*(?:[ \t]*\.[ \t]*\w+)*)[ \t]+import[ \t]*(\((?:[^)#]|#[^\n]*)*\)|" + _NAMES + ")", re.M)
_COMMENT = re.compile(r"#[^\n]*")
_AS = re.compile(r"\bas\b")
_ALIAS = re.compile(r"([\w.]+)(?:\s+as\s+(\w+))?")
_SPACED_DOT = re.compile(r"[ \t]*\.[ \t]*")  # `jax . numpy` is `jax.numpy`
# `xp = array_namespace(x)`, `xp = x.__array_namespace__()`: a local that names an array module.
_NAMESPACE_LOCAL = re.compile(r"^[ \t]*(\w+)[ \t]*=[ \t]*([\w.]+)[ \t]*\(", re.M)
# `B.where(` on a bare name: maybe a backend object used as an array namespace (names.py decides,
# from the call's arguments and the name's binding). Found from `.where(`, then the name before it.
_NAMESPACE_CALL = re.compile(r"\.[ \t]*" + NAMESPACE_SELECT + r"[ \t]*\(")
_NAME_BEFORE = re.compile(r"(?<![\w.])([A-Za-z_]\w*)[ \t]*$")

@dataclass(frozen=True)
class Imports:
    """The names a file's import statements bind (anywhere in it) and the frameworks they come from;
    and the names it assigns an array API namespace (`xp = array_namespace(x)`), which stand for one."""

    frameworks: frozenset[str] = frozenset()
    # alias -> the imported name's last part, for `from jax.numpy import sqrt as s`.
    renamed: dict[str, str] = field(default_factory=dict)
    # name -> what it is bound to: `jnp` -> {"jax.numpy"}, `where` -> {"jax.numpy.where"}.
    targets: dict[str, frozenset[str]] = field(default_factory=dict)
    # A project's module -> the array module it stands for (`mylib.backend.numpy` -> `jax.numpy`),
    # for the imports that were resolved (prefilter/reexports.py); `depends_on`: the module files of
    # the tree that were read to tell, on which this file's findings depend.
    aliases: dict[str, str] = field(default_factory=dict)
    depends_on: tuple[str, ...] = ()
    # The project's own modules, called through as `name.where(`, that stand for no array module
    # nanlint knows and bind no `where` of their own (`from trax.fastmath import numpy as jnp`, a
    # backend object chosen at run time): read as an array namespace (names.py).
    own_modules: frozenset[str] = frozenset()
    # Names the file calls as `name.where(` that no absolute import binds: a relative import of one
    # is the package's own backend object, an array namespace in the whole file (names.py).
    namespace_uses: frozenset[str] = frozenset()

    @property
    def names(self) -> frozenset[str]:
        return frozenset(self.targets)

    def qualified(self, dotted: list[str]) -> list[str]:
        """The qualified names a dotted name (`["data", "Dataset"]`) may stand for, through these
        imports (`torch.utils.data.Dataset`); none when its first name is not imported. A module's
        function that stands for an array module's (`mylib.np.where` -> `jax.numpy.where`) is that."""
        suffix = "".join(f".{attr}" for attr in dotted[1:])
        found = [target + suffix for target in self.targets.get(dotted[0], ())]
        if self.aliases and len(dotted) > 1:
            rest = "".join(f".{attr}" for attr in dotted[2:])
            found = [self.aliases[member] + rest if (member := name[: len(name) - len(rest)]) in self.aliases else name for name in found]
        return found


def scan_imports(source: str) -> Imports:
    frameworks: set[str] = set()
    renamed: dict[str, str] = {}
    targets: dict[str, set[str]] = {}
    for start, end in _import_statement_lines(source):
        for match in _IMPORT.finditer(source, start, end):
            for dotted, alias in _ALIAS.findall(_without_spaced_dots(match.group(1))):
                targets.setdefault(alias or dotted.split(".", 1)[0], set()).add(dotted if alias else dotted.split(".", 1)[0])
                _note_framework(dotted, frameworks)
                if alias and alias != dotted.rsplit(".", 1)[-1]:
                    renamed[alias] = dotted.rsplit(".", 1)[-1]
        for match in _FROM_IMPORT.finditer(source, start, end):
            module = _without_spaced_dots(match.group(1))
            if module.startswith("."):
                continue  # relative imports name the package itself, never a framework
            _note_framework(module, frameworks)
            names = match.group(2)
            for name, alias in _ALIAS.findall((_COMMENT.sub("", names) if "#" in names else names).strip("()")):
                targets.setdefault(alias or name, set()).add(f"{module}.{name}")
                if alias and alias != name:
                    renamed[alias] = name
    if "namespace" in source:
        _note_namespace_locals(source, targets, frameworks)
    uses = _note_namespace_uses(source, targets, frameworks) if NAMESPACE_SELECT in source else frozenset()
    return Imports(frozenset(frameworks), renamed, {n: frozenset(t) for n, t in targets.items()}, namespace_uses=uses)


def _note_namespace_locals(source: str, targets: dict[str, set[str]], frameworks: set[str]) -> None:
    """Names assigned an array API namespace anywhere in the file stand for its module, as an import
    would (names.py tells which binding holds one where)."""
    for match in _NAMESPACE_LOCAL.finditer(source):
        name, callee = match.groups()
        first, _, rest = callee.partition(".")
        getters = {f"{target}.{rest}" if rest else target for target in targets.get(first, ())}
        if callee.rsplit(".", 1)[-1] == NAMESPACE_METHOD or getters & NAMESPACE_GETTERS:
            _note_array_namespace(name, targets, frameworks)


def _note_namespace_uses(source: str, targets: dict[str, set[str]], frameworks: set[str]) -> frozenset[str]:
    """Names called as a namespace's `where` is (`B.where(`) that no absolute import binds (a
    relative one binds nothing here) may stand for an array module: a superset of the bindings
    names.py reads so. Returns them."""
    imported = set(targets)
    found = set()
    for call in _NAMESPACE_CALL.finditer(source):
        before = _NAME_BEFORE.search(source, max(0, call.start() - 64), call.start())
        name = before.group(1) if before is not None else None
        if name is not None and name not in imported:
            _note_array_namespace(name, targets, frameworks)
            found.add(name)
    return frozenset(found)


def _note_array_namespace(name: str, targets: dict[str, set[str]], frameworks: set[str]) -> None:
    """`name` may stand for an array API namespace, read as its module (ARRAY_API_MODULE)."""
    targets.setdefault(name, set()).add(ARRAY_API_MODULE)
    _note_framework(ARRAY_API_MODULE, frameworks)


def _without_spaced_dots(dotted: str) -> str:
    return _SPACED_DOT.sub(".", dotted) if " ." in dotted or ". " in dotted or "\t" in dotted else dotted


def imports_under_another_name(source: str, names: frozenset[str]) -> bool:
    """Whether an import line may bind one of `names` under another name (`where as w`): only then
    can a file that never calls a select by its own name call one."""
    for start, end in _import_statement_lines(source):
        line = source[start:end]
        if _AS.search(line) and any(name in line for name in names):
            return True
    return False


def _import_statement_lines(source: str) -> Iterator[tuple[int, int]]:
    """Spans of the lines that spell `import`, each with what continues it (a backslash, or the
    parentheses of a from-import): the only text the import patterns need to read."""
    position = source.find("import")
    done = -1
    while position >= 0:
        before, after = source[position - 1] if position else " ", source[position + 6 : position + 7]
        if before.isalnum() or before in "_." or after not in _AFTER_IMPORT:  # `important`, `importlib`
            position = source.find("import", position + 6)
            continue
        start = source.rfind("\n", 0, position) + 1
        end = _statement_end(source, position)
        if start > done:
            yield start, end
            done = start
        position = source.find("import", max(end, position + 6))


def _closing_parenthesis(source: str, opening: int) -> int:
    """The `)` that closes a from-import's names, past comments (`# see (x)`); -1 if none."""
    position = opening + 1
    while True:
        close, comment = source.find(")", position), source.find("#", position)
        if comment < 0 or close < comment:
            return close
        position = source.find("\n", comment)
        if position < 0:
            return -1


_AFTER_IMPORT = frozenset(" \t(\\")


def _statement_end(source: str, position: int) -> int:
    after = position + 6
    while after < len(source) and source[after] in " \t":
        after += 1
    if after < len(source) and source[after] == "(":
        close = _closing_parenthesis(source, after)
        if close >= 0:
            after = close
    end = source.find("\n", after)
    while end > 0 and source[end - 1] == "\\":
        end = source.find("\n", end + 1)
    return len(source) if end < 0 else end


def _note_framework(module: str, frameworks: set[str]) -> None:
    framework = framework_of(module)
    if framework is not None:
        frameworks.add(framework)


@dataclass(frozen=True)
class Call:
    """A name spelled as called: `where(` or `.where(`, at `offset` (where the name starts)."""

    offset: int
    name: str
    dotted: bool  # `jnp.where(`, `x.where(`: an attribute (or maybe one), not a bare name


def spelled_calls(source: str, names: frozenset[str]) -> list[Call]:
    """Every place one of `names` is called, by text.

    Each name is found with `str.find` on its shortest part (`max` for `maximum`), which runs at
    memory speed; only the hits are looked at in Python, and most (`max,`, `min)`) at one character.
    """
    calls: list[Call] = []
    for part in _search_parts(names):
        position = source.find(part)
        while position >= 0:
            end = position + len(part)
            if source[end : end + 1] not in _AFTER_A_CALLED_NAME:
                position = source.find(part, end)
                continue
            start = position
            while is_word_char(source, start - 1):
                start -= 1
            end = _WORD_TAIL.match(source, end).end()
            if source[start:end] in names:
                after = skip_space(source, end)
                while after < len(source) and source[after] == ")":  # `(jnp.where)(...)`
                    after = skip_space(source, after + 1)
                if after < len(source) and source[after] == "(":
                    calls.append(Call(start, source[start:end], _is_dotted(source, start)))
            position = source.find(part, end)
    return sorted(calls, key=lambda c: c.offset)


_WORD_TAIL = re.compile(r"\w*")
# What can follow the searched part of a called name: the call, space before it, or more of the name.
_AFTER_A_CALLED_NAME = frozenset("() \t\r\n\\#_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
SPACE = " \t\r\n\\\f"  # what may stand between the parts of one expression


@functools.lru_cache(maxsize=64)
def _search_parts(names: frozenset[str]) -> tuple[str, ...]:
    """The names that contain no other name: finding these finds all (`max` finds `maximum`)."""
    return tuple(sorted(n for n in names if not any(other != n and other in n for other in names)))


def word_offsets(text: str, word: str, whole: bool = True) -> list[int]:
    """Where `word` is spelled as a word of its own, or (not `whole`) as the end of one."""
    found = []
    position = text.find(word)
    while position >= 0:
        end = position + len(word)
        if not is_word_char(text, end) and (not whole or not is_word_char(text, position - 1)):
            found.append(position)
        position = text.find(word, end)
    return found


def is_word_char(text: str, index: int) -> bool:
    return 0 <= index < len(text) and (text[index].isalnum() or text[index] == "_")


def skip_space(source: str, position: int) -> int:
    """Past spaces, line breaks and comments (a call may be split over lines inside brackets)."""
    while position < len(source):
        char = source[position]
        if char == "#":
            newline = source.find("\n", position)
            position = len(source) if newline < 0 else newline
        elif char in SPACE:
            position += 1
        else:
            break
    return position


def _is_dotted(source: str, start: int) -> bool:
    """`.where` before `(`: a `.` before the name, or a name that starts its line (after a `.` and a
    comment on the line above, maybe), so that a bare name is only ever a name on its own."""
    before = start - 1
    while before >= 0 and source[before] in " \t\f":
        before -= 1
    if before < 0 or source[before] in "\r\n":
        return True
    while before >= 0 and source[before] in SPACE:
        before -= 1
    return before >= 0 and source[before] == "."
