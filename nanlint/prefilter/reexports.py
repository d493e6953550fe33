"""Array modules reached through a project's own module: `from mylib.backend import numpy as jnp`,
where `mylib/backend/numpy.py` re-exports `jax.numpy`.

Two sources say what a module stands for: the `array-modules` setting, and the modules of the tree
being checked, read by text on demand (a star import, `import jax.numpy as numpy`, `numpy =
jax.numpy`) and remembered for the run. Only the imports that name what a select is called through
are looked up, so a file that calls `jnp.where` through `jax.numpy` itself costs nothing.

A module may also stand for an array module's functions one by one: `def where(c, a, b): return
jnp.where(c, a, b)` forwards its arguments unchanged, so `np.where` of that module is `jnp.where`
(its members). A function that does anything else, or is decorated (`custom_jvp` gives it its own
derivative), is the project's own.

A module of the tree that stands for nothing known and binds no `where` of its own, called as
`name.where(`, is a backend chosen at run time (trax's `numpy = NumpyBackend()`): an array namespace.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import re
from pathlib import Path
from typing import Optional

from nanlint.catalog.tables import ARRAY_API_MODULE, NAMESPACE_SELECT, framework_of
from nanlint.prefilter.textscan import Imports, scan_imports

# A dotted name -> the array-module name it stands for (None: nothing known), and the module files of
# the tree that were read to tell.
Answer = tuple[Optional[str], frozenset[str]]
_NOTHING: Answer = (None, frozenset())

_STAR = re.compile(r"^from[ \t]+([\w.]+)[ \t]+import[ \t]+\*", re.M)
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_]\w*(?:\.\w+)+)[ \t]*(?:#[^\n]*)?$", re.M)
MAX_HOPS = 4  # a wrapper of a wrapper of ...: followed this far
MAX_ANCESTORS = 12  # directories above a file searched for the package it imports from
MAX_MODULE_BYTES = 2_000_000


@dataclasses.dataclass(frozen=True)
class _Exports:
    stars: tuple[str, ...]  # the modules its star imports re-export whole
    names: dict[str, str]  # module attribute -> the name it imports (`jax.numpy`, `mylib.np.where`)


class TreeResolver:
    """What a dotted name stands for, asked from one importing file: a whole module (`resolve(name)`),
    or the functions of a module that forward to an array module's (`members(name)`)."""

    def __init__(self, modules: "ArrayModules", importer: Optional[Path]) -> None:
        self._modules = modules
        self._importer = importer
        self._start: list[Optional[str]] = []  # the importer's directory, found on the first question only

    def _directory(self) -> Optional[str]:
        if not self._start:
            self._start.append(os.path.dirname(os.path.abspath(self._importer)) if self._importer is not None else None)
        return self._start[0]

    def __call__(self, dotted: str) -> Answer:
        return self._modules.resolve(dotted, self._directory())

    def members(self, dotted: str) -> tuple[dict[str, str], frozenset[str]]:
        return self._modules.members(dotted, self._directory())

    def defines(self, files: frozenset[str], name: str) -> tuple[bool, frozenset[str]]:
        """Whether one of these module files binds `name` at its top level (ArrayModules.defines),
        and the files read to tell."""
        answers = [self._modules.defines(path, name) for path in files]
        return any(found for found, _ in answers), frozenset().union(*(read for _, read in answers))


class ArrayModules:
    """What the modules of one run stand for, from the settings and from the tree, remembered."""

    def __init__(self, configured: dict[str, str]) -> None:
        # Longest first: `a.b` is matched before `a`.
        self.configured = sorted(configured.items(), key=lambda item: -len(item[0]))
        self._exports: dict[str, _Exports] = {}
        self._forwards: dict[str, dict[str, str]] = {}
        self._resolved: dict[tuple[str, str], Answer] = {}
        self._roots: dict[tuple[str, str], Optional[str]] = {}
        self._exists: dict[str, bool] = {}
        self._defines: dict[tuple[str, str], tuple[bool, frozenset[str]]] = {}

    def resolver(self, importer: Optional[Path]) -> Optional[TreeResolver]:
        if not self.configured and importer is None:
            return None
        return TreeResolver(self, importer)

    def resolve(self, dotted: str, start: Optional[str], hops: int = 0) -> Answer:
        if framework_of(dotted) is not None:
            return _NOTHING
        for alias, target in self.configured:
            if dotted == alias or dotted.startswith(alias + "."):
                return target + dotted[len(alias) :], frozenset()
        if start is None or hops >= MAX_HOPS:
            return _NOTHING
        root = self.root(start, dotted.partition(".")[0])
        if root is None:
            return _NOTHING
        key = (dotted, root)
        if key not in self._resolved:
            self._resolved[key] = self._through_tree(dotted, root, hops)
        return self._resolved[key]

    def _through_tree(self, dotted: str, root: str, hops: int) -> Answer:
        """Through the deepest module of the tree that `dotted` names: what it re-exports under the rest
        of the name, or what its star imports do."""
        parts = dotted.split(".")
        read: set[str] = set()
        for cut in range(len(parts), 0, -1):
            found = self.module_file(root, parts[:cut])
            if found is None:
                continue
            read.add(found)
            exports, rest = self._exports_of(found), parts[cut:]
            if rest and rest[0] in exports.names:
                candidates = [".".join([exports.names[rest[0]], *rest[1:]])]
            elif rest and rest[0] in (forwards := self._forwards_of(found, rest[0])):
                candidates = [".".join([forwards[rest[0]], *rest[1:]])]
            else:  # a star import (`numpy.py`: `from jax.numpy import *`)
                candidates = [".".join([star, *rest]) for star in exports.stars]
            for target in candidates:
                if framework_of(target) is not None:
                    return target, frozenset(read)
                deeper, files = self.resolve(target, os.path.dirname(found), hops + 1)
                read |= files
                if deeper is not None:
                    return deeper, frozenset(read)
            if rest or exports.stars:
                break  # the module decides what its names are
        return None, frozenset(read)

    def members(self, dotted: str, start: Optional[str]) -> tuple[dict[str, str], frozenset[str]]:
        """The functions of the tree's module `dotted` that forward to an array module's, by name ->
        that function's array-module name; and the files read to tell."""
        if start is None or framework_of(dotted) is not None:
            return {}, frozenset()
        parts = dotted.split(".")
        root = self.root(start, parts[0])
        found = self.module_file(root, parts) if root is not None else None
        if found is None:
            return {}, frozenset()
        read = {found}
        members = {}
        for name, target in self._forwards_of(found).items():
            if framework_of(target) is None:
                target, files = self.resolve(target, os.path.dirname(found), 1)
                read |= files
            if target is not None:
                members[name] = target
        return members, frozenset(read)

    def root(self, start: str, head: str) -> Optional[str]:
        """The directory above `start` (or `start` itself) that holds the package or module `head`, as
        Python would find it from a script there. A package's own directory is no such place: inside
        `probdiffeq/`, a module `probdiffeq/probdiffeq.py` is not the package `probdiffeq`."""
        key = (start, head)
        if key not in self._roots:
            found = None
            directory = start
            for _ in range(MAX_ANCESTORS):
                if not self._is_package(directory) and (
                    os.path.isdir(os.path.join(directory, head)) or os.path.isfile(os.path.join(directory, head + ".py"))
                ):
                    found = directory
                    break
                parent = os.path.dirname(directory)
                if parent == directory:
                    break
                directory = parent
            self._roots[key] = found
        return self._roots[key]

    def _is_package(self, directory: str) -> bool:
        marker = os.path.join(directory, "__init__.py")
        if marker not in self._exists:
            self._exists[marker] = os.path.isfile(marker)
        return self._exists[marker]

    def module_file(self, root: str, parts: list[str]) -> Optional[str]:
        """`root/a/b.py` or `root/a/b/__init__.py` for the parts `a.b`, if either is a file."""
        base = os.path.join(root, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if candidate not in self._exists:
                self._exists[candidate] = os.path.isfile(candidate)
            if self._exists[candidate]:
                return candidate
        return None

    def relative_module_file(self, directory: str, parts: list[str], level: int) -> Optional[str]:
        """The file of the module a relative import with `level` dots names (`from ..a.b import`),
        seen from a module in `directory`."""
        base = directory
        for _ in range(level - 1):
            base = os.path.dirname(base)
        return self.module_file(base, parts) if parts else None

    def defines(self, path: str, name: str) -> tuple[bool, frozenset[str]]:
        """Whether the module binds `name` at its top level, by `def` or `=`, itself or through a
        relative star import of the package's (`from .compat_numpy import *`); and the files read."""
        key = (path, name)
        if key not in self._defines:
            texts = self._star_closure(path)
            pattern = re.compile(rf"^(?:def[ \t]+{name}[ \t]*\(|{name}[ \t]*=[^=])", re.M)
            self._defines[key] = (any(pattern.search(text) for text in texts.values()), frozenset(texts))
        return self._defines[key]

    def _star_closure(self, path: str) -> dict[str, str]:
        """The module and those its relative star imports name, and theirs, up to MAX_HOPS deep: each
        file's text, read once."""
        texts = {path: _read_text(path)}
        frontier = [path]
        for _ in range(MAX_HOPS):
            frontier = list(dict.fromkeys(m for p in frontier for m in self._relative_stars(p, texts[p]) if m not in texts))
            texts.update((m, _read_text(m)) for m in frontier)
        return texts

    def _relative_stars(self, path: str, text: str) -> list[str]:
        """The module files a module's relative star imports name (`from ..np import *`): the star
        imports `_read_exports` leaves out."""
        found = []
        for star in _STAR.findall(text):
            dotted = star.lstrip(".")
            if dotted == star or not dotted:
                continue  # an absolute one, or `from . import *`
            module = self.relative_module_file(os.path.dirname(path), dotted.split("."), len(star) - len(dotted))
            if module is not None:
                found.append(module)
        return found

    def _exports_of(self, path: str) -> _Exports:
        if path not in self._exports:
            self._exports[path] = _read_exports(_read_text(path))
        return self._exports[path]

    def _forwards_of(self, path: str, name: Optional[str] = None) -> dict[str, str]:
        """Its functions that forward their arguments to another's, unchanged -> that function's
        name; parsed only when asked, and, asked for one `name`, only if the text defines it."""
        if path not in self._forwards:
            text = _read_text(path)
            if name is not None and f"def {name}(" not in text:
                return {}
            self._forwards[path] = _forwarding_functions(text, self._exports_of(path).names) if "return" in text else {}
        return self._forwards[path]


def _read_text(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            return handle.read(MAX_MODULE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _read_exports(text: str) -> _Exports:
    """What a module binds at its top level (imports, `name = module.attr`, star imports), from its text."""
    imports = scan_imports(text)
    names = {name: _first(targets) for name, targets in imports.targets.items()}
    for name, dotted in _ASSIGN.findall(text):
        head, _, tail = dotted.partition(".")
        if head in imports.targets:
            names[name] = f"{_first(imports.targets[head])}.{tail}"
    # Frameworks first: `from jax.numpy import *` decides before a project's own star imports.
    stars = sorted((m for m in _STAR.findall(text) if not m.startswith(".")), key=lambda m: framework_of(m) is None)
    return _Exports(tuple(stars), names)


def _forwarding_functions(text: str, imported: dict[str, str]) -> dict[str, str]:
    """The module's functions that pass their parameters, in order, to an imported function and
    return what it returns (`def where(c, /, a, b): return jnp.where(c, a, b)`) -> its name
    (`jax.numpy.where`). A decorated function is not one: the decorator may change what it does."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    found = {}
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.decorator_list:
            continue
        body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) else node.body
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
            continue
        call = body[0].value
        callee = _dotted(call.func)
        if callee is not None and callee[0] in imported and _passes_parameters(node.args, call):
            found[node.name] = ".".join([imported[callee[0]], *callee[1:]])
    return found


def _dotted(node: ast.AST) -> Optional[list[str]]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    return [node.id, *reversed(parts)] if isinstance(node, ast.Name) else None


def _passes_parameters(params: ast.arguments, call: ast.Call) -> bool:
    """Each parameter passed once, as itself: the positional ones in order, then the rest by keyword
    (`order=order`); nothing else."""
    if params.vararg or params.kwarg or any(isinstance(a, ast.Starred) for a in call.args):
        return False
    names = [a.arg for a in (*params.posonlyargs, *params.args)]
    positional = [a.id if isinstance(a, ast.Name) else None for a in call.args]
    if positional != names[: len(positional)]:
        return False
    keywords = {k.arg: k.value for k in call.keywords}
    rest = names[len(positional) :] + [a.arg for a in params.kwonlyargs]
    return set(keywords) == set(rest) and all(isinstance(v, ast.Name) and v.id == k for k, v in keywords.items())


def _first(targets) -> str:
    """Of the names one name may be bound to (`try: import jax.numpy as np` / `except: import numpy as
    np`), a framework's first."""
    return min(targets, key=lambda t: (framework_of(t) is None, t))


def resolve_imports(imports: Imports, wanted: set[str], resolve: TreeResolver, namespaces: frozenset[str] = frozenset()) -> Imports:
    """`imports` with the targets of the `wanted` names (what selects are called through), and of the
    other names imported from the same modules (`sqrt` beside `where`), replaced by the array-module
    names they stand for, and their frameworks noted; a module of forwarding functions gets an alias
    per function (`mylib.np.where` -> `jax.numpy.where`). `namespaces`: the names called as
    `name.where(`; a module of the tree one of them imports that stands for nothing known, and
    binds no `where` of its own, is the project's backend object, noted in `own_modules` and read
    as an array namespace."""
    aliases: dict[str, str] = {}
    read: set[str] = set()
    own: set[str] = set()  # found in the tree, standing for nothing known
    called_as_namespace = {dotted for name in namespaces for dotted in imports.targets.get(name, ())}

    def resolved(dotted: str) -> str:
        if dotted not in aliases:
            answer, files = resolve(dotted)
            read.update(files)
            if answer is None:
                # Its `where` is not the module's own function (nanlint would read that one): it
                # comes at run time from elsewhere, a backend object's or a loader's.
                if files and dotted in called_as_namespace:
                    defined, looked_at = resolve.defines(files, NAMESPACE_SELECT)
                    read.update(looked_at)
                    if not defined:
                        own.add(dotted)
                return dotted
            aliases[dotted] = answer
        return aliases[dotted]

    targets = dict(imports.targets)
    for name in wanted & targets.keys():
        targets[name] = frozenset(resolved(dotted) for dotted in targets[name])
        # A module of forwarding functions stands for the array module's functions one by one.
        for dotted in targets[name] - aliases.keys() - set(aliases.values()):
            members, files = resolve.members(dotted)
            read.update(files)
            aliases.update((f"{dotted}.{member}", target) for member, target in members.items())
            if members:
                own.discard(dotted)
        if targets[name] <= own:
            # The project's own object, which the file calls as an array namespace (names.py binds it so).
            targets[name] |= {ARRAY_API_MODULE}
    if own:
        imports = dataclasses.replace(
            imports, targets=targets, frameworks=imports.frameworks | {framework_of(ARRAY_API_MODULE)}, own_modules=frozenset(own)
        )
    if not aliases:
        return dataclasses.replace(imports, depends_on=tuple(sorted(read))) if read else imports
    modules = tuple({dotted.rpartition(".")[0] + "." for dotted in aliases})
    for name, dotted_names in imports.targets.items():
        if name not in wanted and any(d.startswith(modules) for d in dotted_names):
            targets[name] = frozenset(resolved(d) if d.startswith(modules) else d for d in dotted_names)
    frameworks = imports.frameworks | {framework_of(a) for a in aliases.values()}
    return dataclasses.replace(imports, frameworks=frameworks, targets=targets, aliases=aliases, depends_on=tuple(sorted(read)))
