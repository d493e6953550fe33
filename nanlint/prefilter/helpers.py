"""Straight-line helpers: what a call of one returns is read (analysis/inline.py), so they are kept.

A helper is a function whose body is assignments to names, then one `return` (after a docstring):
`def _safe(r2): return jnp.where(r2 > 0, r2, jnp.ones_like(r2))`. One defined in the checked file
is kept as a unit; one imported from another module of the tree (`from ..utils import sabs`) is
read from there by text, on demand, and remembered for the run. An imported helper is kept only
when every module-level name its body reads means in the importing file what it means in its own
module (the same imports, or a builtin): its expression is read where it is called.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from nanlint.limits import MAX_HELPER_STEPS
from nanlint.prefilter.reexports import MAX_MODULE_BYTES, ArrayModules
from nanlint.prefilter.syntax import parsed
from nanlint.prefilter.textscan import Imports, scan_imports
from nanlint.prefilter.units import Unit, holds_compound_statement, top_level_units, triple_quoted_spans

if TYPE_CHECKING:
    from nanlint.prefilter.screen import Screen

_BUILTINS = frozenset(dir(builtins))
# A unit that is a function: its decorators, then `def`.
DEFINITION = re.compile(r"(?:@[^\n]*\n)*def\b")


@dataclasses.dataclass(frozen=True)
class Helper:
    text: str  # the definition, with its decorators, at column 0
    reads: dict[str, frozenset[str]]  # the module-level imports its body reads -> what they bind


# (module as written after `from`, its relative level, the imported name) -> the helper, if one,
# and the module file read to tell (findings depend on it either way), if one.
HelperFinder = Callable[[str, int, str], tuple[Optional[Helper], Optional[str]]]


def straight_line_function(tree: Optional[ast.Module]) -> Optional[ast.FunctionDef]:
    """The function a unit defines, when its body is assignments to names then one `return`: the
    helpers `analysis.inline._straight_line` reads, told here by `ast` before libcst is loaded."""
    return straight_line_def(tree.body[0]) if tree is not None and len(tree.body) == 1 else None


def step_values(function: ast.FunctionDef) -> list[ast.expr]:
    """What a straight-line function's assignments assign and its `return` returns."""
    return [s.value for s in function.body if isinstance(s, (ast.Assign, ast.Return))]


def straight_line_def(function: ast.AST) -> Optional[ast.FunctionDef]:
    """`function`, when it is a `def` whose body is assignments to names then one `return`."""
    if not isinstance(function, ast.FunctionDef):
        return None
    body = _after_docstring(function)
    steps = body[:-1]
    if len(steps) > MAX_HELPER_STEPS or not all(isinstance(s, ast.Assign) and len(s.targets) == 1 and isinstance(s.targets[0], ast.Name) for s in steps):
        return None
    return function if body and isinstance(body[-1], ast.Return) and body[-1].value is not None else None


def checking_def(function: ast.AST) -> bool:
    """A `def` whose body starts, after its docstring, with a check that raises or asserts (`if b <=
    0: raise ...`): what its calls make sure of is read (`analysis.checks.entry_checks`)."""
    if not isinstance(function, ast.FunctionDef):
        return False
    body = _after_docstring(function)
    first = body[0] if body else None
    return isinstance(first, ast.Assert) or (isinstance(first, ast.If) and not first.orelse and isinstance(first.body[-1], ast.Raise))


def _after_docstring(function: ast.FunctionDef) -> list[ast.stmt]:
    body = function.body
    if isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
        return body[1:]
    return body


class FileHelpers:
    """The straight-line functions a file defines at its top level that apply an op: the detector
    reads a helper's ops where a branch calls it, so the screen keeps such a branch. The screen
    passes itself in; keeping it here would tie the two in a cycle that outlives the file."""

    def __init__(self, source: str, units: list[Unit], strings: list[int]) -> None:
        self.source, self.strings = source, strings
        self._units: dict[str, list[Unit]] = {}
        for unit in units:
            if unit.definition is not None:
                self._units.setdefault(unit.definition, []).append(unit)
        self._holds: dict[str, bool] = {}

    def holds_op(self, name: str, screen: "Screen") -> bool:
        if name not in self._holds:
            self._holds[name] = False  # while it is read: a helper calling itself adds nothing
            self._holds[name] = any(self._applies_op(unit, screen) for unit in self._units.get(name, ()))
        return self._holds[name]

    def _applies_op(self, unit: Unit, screen: "Screen") -> bool:
        if (
            not DEFINITION.match(self.source, unit.start)
            or not screen.may_apply_op_in_text(unit.text(self.source))
            or holds_compound_statement(self.source, unit, self.strings)
        ):
            return False  # told without parsing it
        function = straight_line_function(unit.tree(self.source))
        return function is not None and screen.applies_op_in(step_values(function))


class ImportedHelpers:
    """The straight-line helpers other modules of the tree define, read by text and remembered."""

    def __init__(self, modules: ArrayModules) -> None:
        self.modules = modules  # finds a module's file from the importer, as array modules are found
        self._modules: dict[str, Optional[_Module]] = {}
        self._helpers: dict[tuple[str, str], Optional[Helper]] = {}

    def finder(self, importer: Optional[Path]) -> Optional[HelperFinder]:
        if importer is None:
            return None
        directory = os.path.dirname(os.path.abspath(importer))
        return lambda module, level, name: self.find(directory, module, level, name)

    def find(self, directory: str, module: str, level: int, name: str) -> tuple[Optional[Helper], Optional[str]]:
        path = self._module_path(directory, module, level)
        if path is None:
            return None, None
        key = (path, name)
        if key not in self._helpers:
            if path not in self._modules:
                self._modules[path] = _Module.read(path)
            module = self._modules[path]
            self._helpers[key] = module.helper(name) if module is not None else None
        return self._helpers[key], path

    def _module_path(self, directory: str, module: str, level: int) -> Optional[str]:
        parts = [p for p in module.split(".") if p]
        if level:
            return self.modules.relative_module_file(directory, parts, level)
        root = self.modules.root(directory, parts[0]) if parts else None
        return self.modules.module_file(root, parts) if root is not None else None


@dataclasses.dataclass
class _Module:
    """A module of the tree, cut into its top-level units; a definition is parsed when asked for."""

    text: str
    definitions: dict[str, Unit]
    imports: dict[str, frozenset[str]]

    @staticmethod
    def read(path: str) -> Optional["_Module"]:
        try:
            with open(path, "rb") as handle:
                text = handle.read(MAX_MODULE_BYTES).decode("utf-8", errors="replace")
        except OSError:
            return None
        strings = triple_quoted_spans(text)
        units = top_level_units(text, strings) if strings is not None else None
        if units is None:
            return None
        definitions = {unit.definition: unit for unit in units if unit.definition is not None}
        return _Module(text, definitions, scan_imports(text).targets)

    def helper(self, name: str) -> Optional[Helper]:
        """The straight-line function `name`, if the module defines one that reads only its imports."""
        unit = self.definitions.get(name)
        # Parsed here and not kept: the module stays in memory for the run as text only.
        function = straight_line_function(parsed(unit.text(self.text))) if unit is not None else None
        reads = _module_reads(function) if function is not None else None
        if reads is None or not reads <= self.imports.keys() | _BUILTINS:
            return None
        return Helper(unit.text(self.text), {n: self.imports[n] for n in reads if n in self.imports})


def _module_reads(function: ast.FunctionDef) -> Optional[set[str]]:
    """The names the body reads that it does not bind (parameters, its own locals); None when it
    holds a lambda or a comprehension, which bind names of their own."""
    arguments = function.args
    bound = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    reads: set[str] = set()
    for statement in function.body:
        for node in ast.walk(statement):
            if isinstance(node, (ast.Lambda, ast.comprehension, ast.NamedExpr)):
                return None
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in bound:
                reads.add(node.id)
        if isinstance(statement, ast.Assign):
            bound.add(statement.targets[0].id)
    return reads


def imported_helpers(
    trees: list[Optional[ast.Module]], called: Optional[set[str]], imports: Imports, find: HelperFinder
) -> tuple[dict[str, Helper], set[str]]:
    """The helpers a file imports (`from m import h as g` -> "g"), among the names kept code calls
    (`called`; None: all), whose module-level reads the file binds to the same imports; and the
    module files read to tell."""
    found, read = {}, set()
    for tree in trees:
        for node in tree.body if tree is not None else ():
            if not isinstance(node, ast.ImportFrom):
                continue
            for alias in node.names:
                local = alias.asname or alias.name
                if alias.name == "*" or (called is not None and local not in called):
                    continue
                helper, path = find(node.module or "", node.level, alias.name)
                if path is not None:
                    read.add(path)
                if helper is not None and all(imports.targets.get(n) == targets for n, targets in helper.reads.items()):
                    found[local] = helper
    return found, read
