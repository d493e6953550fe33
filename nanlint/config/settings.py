"""Resolved settings for one run: defaults, then pyproject's [tool.nanlint], then the command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from nanlint.confidence import Confidence

# ruff's default include, less its pyproject.toml: the files found when walking a directory.
DEFAULT_INCLUDE: tuple[str, ...] = ("*.py", "*.pyi", "*.ipynb")

# ruff's built-in exclude list: directories that are never user source.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".bzr",
    ".direnv",
    ".eggs",
    ".git",
    ".git-rewrite",
    ".hg",
    ".ipynb_checkpoints",
    ".mypy_cache",
    ".nox",
    ".pants.d",
    ".pyenv",
    ".pytest_cache",
    ".pytype",
    ".ruff_cache",
    ".nanlint_cache",
    ".svn",
    ".tox",
    ".venv",
    ".vscode",
    "__pypackages__",
    "_build",
    "buck-out",
    "build",
    "dist",
    "node_modules",
    "site-packages",
    "venv",
)

# Frameworks whose where/select is differentiable. Plain numpy is opt-in: it cannot be differentiated.
DEFAULT_FRAMEWORKS: tuple[str, ...] = ("jax", "tensorflow", "torch", "autograd", "keras")
KNOWN_FRAMEWORKS: tuple[str, ...] = DEFAULT_FRAMEWORKS + ("numpy",)


@dataclass
class Settings:
    # Rule selection; `select=None` means "the rules that are on by default".
    select: Optional[list[str]] = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    # glob -> selectors, as ruff's per-file-ignores.
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    # Globs of files whose code is never differentiated (metrics, samplers): no gradient rule runs there.
    not_differentiated: list[str] = field(default_factory=list)
    # File discovery: the file names walked directories yield (ruff's `include`), minus the excludes.
    include: list[str] = field(default_factory=lambda: list(DEFAULT_INCLUDE))
    extend_include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=lambda: list(DEFAULT_EXCLUDES))
    extend_exclude: list[str] = field(default_factory=list)
    force_exclude: bool = False
    respect_gitignore: bool = True
    # Analysis.
    frameworks: list[str] = field(default_factory=lambda: list(DEFAULT_FRAMEWORKS))
    # Give the detector every file whole instead of the slice that can hold findings: the reference
    # the fast path is tested against (`--no-slicing`), never needed for correct results.
    parse_whole_files: bool = False
    # Findings less sure than this are not reported (`--min-confidence`).
    min_confidence: Confidence = Confidence.MEDIUM
    # A bare noqa comment (no codes) silences nanlint only when this is on.
    blanket_noqa: bool = False
    # User additions to the catalog.
    extend_select_functions: list[str] = field(default_factory=list)  # where-like: (cond, x, y)
    extend_singular_ops: dict[str, str] = field(default_factory=dict)  # qualified name -> catalog op key
    extend_safe_functions: list[str] = field(default_factory=list)  # gradient-safe: never leaks, guards its result
    # A project's module -> the array module it stands for: {"mylib.backend.numpy": "jax.numpy"}.
    array_modules: dict[str, str] = field(default_factory=dict)
    # Where the settings came from; paths in exclude/per-file-ignores are relative to `project_root`.
    project_root: Path = field(default_factory=Path.cwd)
    config_path: Optional[Path] = None
