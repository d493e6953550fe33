"""Array modules reached through a project's own module: `from mylib.backend import numpy as jnp`,
where `mylib/backend/numpy.py` re-exports `jax.numpy`.

Two sources say what a module stands for: the `array-modules` setting, and the modules of the tree
being checked, read by text on demand (a star import, `import jax.numpy as numpy`, `numpy =
jax.numpy`) and remembered for the run. Only the imports that name what a select is called through
are looked up, so a file that calls `jnp.where` through `jax.numpy` itself costs nothing.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Callable, Optional

from nanlint.catalog.tables import framework_of
from nanlint.prefilter.textscan import Imports, scan_imports

# A dotted name -> the array-module name it stands for, and whether a module of the tree said so.
Resolver = Callable[[str], Optional[tuple[str, bool]]]

_STAR = re.compile(r"^from[ \t]+([\w.]+)[ \t]+import[ \t]+\*", re.M)
_ASSIGN = re.compile(r"^([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_]\w*(?:\.\w+)+)[ \t]*(?:#[^\n]*)?$", re.M)
MAX_HOPS = 4  # a wrapper of a wrapper of ...: followed this far
MAX_ANCESTORS = 12  # directories above a file searched for the package it imports from
MAX_MODULE_BYTES = 2_000_000


@dataclasses.dataclass(frozen=True)
class _Exports:
    stars: tuple[str, ...]  # the modules its star imports re-export whole
    names: dict[str, str]  # module attribute -> the name it imports (`jax.numpy`, `mylib.np.where`)


class ArrayModules:
    """What the modules of one run stand for, from the settings and from the tree, remembered."""

    def __init__(self, configured: dict[str, str]) -> None:
        # Longest first: `a.b` is matched before `a`.
        self.configured = sorted(configured.items(), key=lambda item: -len(item[0]))
        self._exports: dict[Path, _Exports] = {}
        self._exists: dict[Path, bool] = {}

    def resolver(self, importer: Optional[Path]) -> Optional[Resolver]:
        if not self.configured and importer is None:
            return None
        start = importer.resolve().parent if importer is not None else None
        return lambda dotted: self.resolve(dotted, start)

    def resolve(self, dotted: str, start: Optional[Path], hops: int = 0) -> Optional[tuple[str, bool]]:
        if framework_of(dotted) is not None:
            return None
        for alias, target in self.configured:
            if dotted == alias or dotted.startswith(alias + "."):
                return target + dotted[len(alias) :], False
        if start is None or hops >= MAX_HOPS:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            found = self._module_file(start, parts[:cut])
            if found is None:
                continue
            exports, rest = self._exports_of(found), parts[cut:]
            if rest and rest[0] in exports.names:
                candidates = [".".join([exports.names[rest[0]], *rest[1:]])]
            else:  # a star import, or `from mylib.backend import numpy` bound by the package itself
                candidates = [".".join([star, *rest]) for star in exports.stars]
            for target in candidates:
                if framework_of(target) is not None:
                    return target, True
                deeper = self.resolve(target, found.parent, hops + 1)
                if deeper is not None:
                    return deeper[0], True
        return None

    def _module_file(self, start: Path, parts: list[str]) -> Optional[Path]:
        """The file of module `parts` in the package tree above `start`, as Python would find it from a
        script there: `a/b/c.py` or `a/b/c/__init__.py` under `start` or one of its parents."""
        for root in [start, *start.parents][:MAX_ANCESTORS]:
            base = root.joinpath(*parts)
            for candidate in (base.with_name(base.name + ".py"), base / "__init__.py"):
                if self._is_file(candidate):
                    return candidate
        return None

    def _is_file(self, path: Path) -> bool:
        if path not in self._exists:
            self._exists[path] = path.is_file()
        return self._exists[path]

    def _exports_of(self, path: Path) -> _Exports:
        if path not in self._exports:
            self._exports[path] = _read_exports(path)
        return self._exports[path]


def _read_exports(path: Path) -> _Exports:
    """What a module binds to an array module at its top level, read from its text."""
    try:
        with path.open("rb") as handle:
            text = handle.read(MAX_MODULE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return _Exports((), {})
    imports = scan_imports(text)
    names = {name: _first(targets) for name, targets in imports.targets.items()}
    for name, dotted in _ASSIGN.findall(text):
        head, _, tail = dotted.partition(".")
        if head in imports.targets:
            names[name] = f"{_first(imports.targets[head])}.{tail}"
    # Frameworks first: `from jax.numpy import *` decides before a project's own star imports.
    stars = sorted((m for m in _STAR.findall(text) if not m.startswith(".")), key=lambda m: framework_of(m) is None)
    return _Exports(tuple(stars), names)


def _first(targets) -> str:
    """Of the names one name may be bound to (`try: import jax.numpy as np` / `except: import numpy as
    np`), a framework's first."""
    return min(targets, key=lambda t: (framework_of(t) is None, t))


def resolve_imports(imports: Imports, wanted: set[str], resolve: Resolver) -> Imports:
    """`imports` with the targets of the `wanted` names (what selects are called through), and of the
    other names imported from the same modules (`sqrt` beside `where`), replaced by the array-module
    names they stand for, and their frameworks noted."""
    aliases: dict[str, str] = {}
    through_tree = False

    def resolved(dotted: str) -> str:
        nonlocal through_tree
        if dotted not in aliases:
            answer = resolve(dotted)
            if answer is None:
                return dotted
            aliases[dotted], from_tree = answer
            through_tree = through_tree or from_tree
        return aliases[dotted]

    targets = dict(imports.targets)
    for name in wanted & targets.keys():
        targets[name] = frozenset(resolved(dotted) for dotted in targets[name])
    if not aliases:
        return imports
    modules = tuple({dotted.rpartition(".")[0] + "." for dotted in aliases})
    for name, dotted_names in imports.targets.items():
        if name not in wanted and any(d.startswith(modules) for d in dotted_names):
            targets[name] = frozenset(resolved(d) if d.startswith(modules) else d for d in dotted_names)
    frameworks = imports.frameworks | {framework_of(a) for a in aliases.values()}
    return dataclasses.replace(imports, frameworks=frameworks, targets=targets, aliases=aliases, through_tree=through_tree)
