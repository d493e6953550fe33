"""Find the files to lint, the way ruff does.

- Directories are walked; the files whose name matches `include` (by default `*.py`, `*.pyi` and
  `*.ipynb`, as ruff's) are collected.
- `exclude`/`extend-exclude` globs prune files and directories met while walking.
- `.gitignore` files (and `.git/info/exclude`) are honoured while walking.
- A path given on the command line is always used, unless `force_exclude` is on and it is
  excluded or gitignored: pre-commit passes every staged file explicitly.
- Problems (missing path, broken symlink, symlink loop, unreadable directory) become one-line
  errors and the other paths are still processed.
"""

from __future__ import annotations

import errno
import fnmatch
import glob
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from nanlint.config.settings import DEFAULT_INCLUDE

if TYPE_CHECKING:
    import pathspec  # imported where a .gitignore is read: most runs never need it


# (directory prefix ending in os.sep, spec of a .gitignore that lives in that directory)
_Layer = tuple[str, "pathspec.PathSpec"]


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)  # sorted, de-duplicated
    errors: list[str] = field(default_factory=list)  # one line each, never a traceback


def discover(
    paths: Sequence[str | Path],
    *,
    include: Sequence[str] = DEFAULT_INCLUDE,
    exclude: Sequence[str],
    extend_exclude: Sequence[str],
    force_exclude: bool,
    respect_gitignore: bool,
    root: Path,
) -> Discovery:
    walker = _Walker(_Excluder([*exclude, *extend_exclude], root), _Excluder(include, root), respect_gitignore)
    for raw in paths:
        # Path() drops "./" and trailing slashes, so output paths stay short and as typed.
        given = str(Path(raw))
        path = os.path.abspath(given)
        if not os.path.exists(path):
            problem = _link_problem(path) if os.path.islink(path) else "path does not exist"
            walker.errors.append(f"nanlint: {problem}: {raw}")
            continue
        is_dir = os.path.isdir(path)
        layers: tuple[_Layer, ...] = ()
        ignored = False
        if respect_gitignore:
            layers, ignored = walker.ancestor_layers(path, is_dir)
        if force_exclude and (ignored or walker.excluder.excludes_path(path)):
            continue  # Silently: pre-commit hands us excluded files and expects no complaint.
        if not is_dir:
            walker.add(path, given)  # Explicit files are linted whatever their suffix.
            continue
        if ignored:
            # Like ruff, a gitignored directory given explicitly is still walked; its parents'
            # patterns would otherwise match everything below it.
            layers = ()
        walker.walk(path, given, layers)
    # The order of Path objects (component by component), by a key that is much cheaper to compare.
    files = [Path(out) for out in sorted(walker.found.values(), key=lambda out: Path(out).parts)]
    return Discovery(files=files, errors=walker.errors)


def is_excluded(path: Path, patterns: Sequence[str], root: Path) -> bool:
    """Whether `path`, or one of its parents up to `root`, matches one of the exclude `patterns`."""
    return _Excluder(patterns, root).excludes_path(os.path.abspath(path))


class _Excluder:
    """ruff-style exclude (and include) globs: with a `/` they are anchored at `root`; without, they
    match any name."""

    def __init__(self, patterns: Sequence[str], root: Path) -> None:
        self.root = os.path.abspath(root)
        root_glob = glob.escape(self.root.replace(os.sep, "/")).rstrip("/")
        names: list[str] = []
        anchored: list[str] = []
        for pattern in patterns:
            pattern = pattern.strip().replace(os.sep, "/")
            pattern = pattern[2:] if pattern.startswith("./") else pattern
            if not pattern.strip("/"):
                continue
            # "**/x" also matches x at the top, as ruff's globset does.
            for p in [pattern, pattern[3:]] if pattern.startswith("**/") else [pattern]:
                if "/" not in p:
                    names.append(p)
                else:
                    # Anchored at the root ("build/" is the top-level build only, as in ruff);
                    # the root is escaped because a directory name may contain glob characters.
                    p = p.rstrip("/")
                    anchored.append(p if p.startswith("/") else f"{root_glob}/{p}")
        # One regex per kind keeps matching cheap on large trees.
        self.names = _compile(names)
        self.anchored = _compile(anchored)

    def matches(self, name: str, path: str) -> bool:
        """`path` is absolute; its parents are assumed to have been checked already."""
        if self.names is not None and self.names.match(name):
            return True
        if self.anchored is None:
            return False
        return self.anchored.match(path.replace(os.sep, "/")) is not None

    def excludes_path(self, path: str) -> bool:
        """Check `path` and its parents below the root. The root itself is never matched, so a CI
        checkout under `.../build/` still works (ruff-pre-commit #69)."""
        while path != self.root:
            name = os.path.basename(path)
            if not name:
                return False
            if self.matches(name, path):
                return True
            path = os.path.dirname(path)
        return False


def _compile(globs: list[str]) -> Optional[re.Pattern[str]]:
    return re.compile("|".join(fnmatch.translate(g) for g in globs)) if globs else None


class _Walker:
    def __init__(self, excluder: _Excluder, includer: _Excluder, respect_gitignore: bool) -> None:
        self.excluder = excluder
        self.includer = includer
        self.respect_gitignore = respect_gitignore
        # absolute path -> path as shown; de-duplicates overlapping arguments.
        self.found: dict[str, str] = {}
        self.errors: list[str] = []
        self._specs: dict[str, Optional[pathspec.PathSpec]] = {}

    def add(self, path: str, out: str) -> None:
        self.found.setdefault(path, out)

    def walk(self, start: str, given: str, layers: tuple[_Layer, ...]) -> None:
        # Each item: absolute dir, dir as shown, its resolved path, the resolved dirs above it
        # (to spot symlink loops) and its gitignore layers (always empty without respect_gitignore).
        real = os.path.realpath(start)
        stack = [(start, given, real, frozenset([real]), layers)]
        while stack:
            directory, shown, real_dir, ancestry, layers = stack.pop()
            try:
                with os.scandir(directory) as it:
                    entries = list(it)
            except OSError as exc:
                self.errors.append(f"nanlint: cannot read directory: {shown} ({exc.strerror})")
                continue
            if self.respect_gitignore:
                names = {e.name for e in entries}
                if ".git" in names:
                    # A nested repository does not inherit its parents' rules.
                    layers = self._info_exclude(directory)
                if ".gitignore" in names:
                    layers = layers + self._layer(directory, ".gitignore")
            for entry in entries:
                name, path = entry.name, entry.path
                if self.excluder.matches(name, path):
                    continue
                out = os.path.join(shown, name)
                try:
                    is_dir = entry.is_dir()  # Follows symlinks.
                    usable = is_dir or entry.is_file()
                except OSError:  # For example a chain of links that loops.
                    usable = False
                if not usable:
                    if entry.is_symlink() and not self._ignored(layers, path, False):
                        self.errors.append(f"nanlint: {_link_problem(path)}: {out}")
                    continue
                if is_dir:
                    if self._ignored(layers, path, True):
                        continue
                    # Only a symlink needs resolving; below a resolved dir, the name is enough.
                    child_real = os.path.realpath(path) if entry.is_symlink() else os.path.join(real_dir, name)
                    if child_real in ancestry:
                        self.errors.append(f"nanlint: symlink loop, not followed: {out}")
                        continue
                    stack.append((path, out, child_real, ancestry | {child_real}, layers))
                elif self.includer.matches(name, path):
                    if self._ignored(layers, path, False):
                        continue
                    self.add(path, out)

    def ancestor_layers(self, path: str, is_dir: bool) -> tuple[tuple[_Layer, ...], bool]:
        """The gitignore layers that apply inside `path`'s parent, from the repository root down,
        and whether `path` is ignored. Outside a git repository, only the .gitignore files met
        while walking count."""
        parent = os.path.dirname(path)
        repo = _find_repo(parent)
        if repo is None:
            return (), False
        layers = self._info_exclude(repo)
        ignored = False
        directory = repo
        rest = os.path.relpath(parent, repo)
        for part in [] if rest == os.curdir else rest.split(os.sep):
            layers = layers + self._layer(directory, ".gitignore")
            directory = os.path.join(directory, part)
            # git cannot re-include anything below an ignored directory.
            ignored = ignored or self._ignored(layers, directory, True)
        layers = layers + self._layer(directory, ".gitignore")
        return layers, ignored or self._ignored(layers, path, is_dir)

    def _info_exclude(self, repo: str) -> tuple[_Layer, ...]:
        # Patterns in .git/info/exclude are relative to the repository root.
        spec = self._spec(os.path.join(repo, ".git", "info", "exclude"))
        return ((_prefix(repo), spec),) if spec is not None else ()

    def _layer(self, directory: str, filename: str) -> tuple[_Layer, ...]:
        spec = self._spec(os.path.join(directory, filename))
        return ((_prefix(directory), spec),) if spec is not None else ()

    def _spec(self, file: str) -> Optional[pathspec.PathSpec]:
        if file not in self._specs:
            import pathspec

            try:
                with open(file, encoding="utf-8", errors="replace") as f:
                    self._specs[file] = pathspec.GitIgnoreSpec.from_lines(f.read().splitlines())
            except OSError:
                self._specs[file] = None  # Missing or unreadable: no patterns.
        return self._specs[file]

    @staticmethod
    def _ignored(layers: tuple[_Layer, ...], path: str, is_dir: bool) -> bool:
        # A deeper .gitignore overrides a shallower one, so ask the innermost layer first.
        for prefix, spec in reversed(layers):
            if not path.startswith(prefix):
                continue
            rel = path[len(prefix):].replace(os.sep, "/") + ("/" if is_dir else "")
            verdict = _verdict(spec, rel)
            if verdict is not None:
                return verdict
        return False


def _verdict(spec: pathspec.PathSpec, rel: str) -> Optional[bool]:
    """True: ignored; False: re-included by a `!` pattern; None: no pattern matches.
    The last matching pattern decides (works with every pathspec >= 0.12)."""
    for pattern in reversed(spec.patterns):
        if pattern.include is not None and pattern.match_file(rel) is not None:
            return bool(pattern.include)
    return None


def _link_problem(path: str) -> str:
    """Why the symlink at `path` leads nowhere: it loops (ELOOP), or its target is missing."""
    try:
        os.stat(path)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return "symlink loop"
    return "broken symlink"


def _find_repo(directory: str) -> Optional[str]:
    # `.git` is a directory in a normal clone and a file in worktrees and submodules.
    while True:
        if os.path.exists(os.path.join(directory, ".git")):
            return directory
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _prefix(directory: str) -> str:
    return directory if directory.endswith(os.sep) else directory + os.sep
