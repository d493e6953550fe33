"""Check one source text or one file: parse, detect, turn sites into diagnostics, apply suppressions."""

from __future__ import annotations

import ast
import fnmatch
import io
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import libcst as cst

from nanlint.catalog_view import CatalogView
from nanlint.detector import Detector, LeakSite
from nanlint.diagnostics import Diagnostic, Location, Related
from nanlint.fixer import FixPlanner
from nanlint.rules import BY_CODE, expand_selector, select_codes
from nanlint.rules.nan900_invalid_syntax import InvalidSyntax
from nanlint.settings import Settings
from nanlint.suppression import parse_suppressions

MAX_SNIPPET = 60


class LintError(Exception):
    """A file that cannot be checked: the message is one line for the user."""


@dataclass
class FileResult:
    filename: str
    source: Optional[str] = None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    error: Optional[str] = None
    encoding: str = "utf-8"
    # The file's analysis, kept only when the verification harness will need it (it holds the CST).
    detector: Optional[Detector] = None


class Linter:
    """Holds what every file of a run shares: settings, the catalog view, the selected codes."""

    def __init__(self, settings: Settings, *, keep_analysis: bool = False) -> None:
        self.settings = settings
        self.keep_analysis = keep_analysis
        self.catalog = CatalogView(settings)
        self.codes = select_codes(settings.select, settings.ignore, settings.extend_select)
        self._per_file = [
            (pattern, frozenset(c for s in selectors for c in expand_selector(s)))
            for pattern, selectors in settings.per_file_ignores.items()
        ]

    # --- files -------------------------------------------------------------------------------
    def check_path(self, path: Path, display: Optional[str] = None) -> FileResult:
        name = display or str(path)
        try:
            raw = path.read_bytes()
        except OSError as error:
            return FileResult(name, error=f"nanlint: cannot read {name}: {error.strerror or error}")
        try:
            source, encoding = decode_source(raw, name)
        except LintError as error:
            return FileResult(name, error=str(error))
        result = self.check_source(source, name, path=path)
        result.encoding = encoding
        return result

    def check_source(self, source: str, filename: str, path: Optional[Path] = None) -> FileResult:
        result = FileResult(filename, source)
        ignored = self._ignored_for(path or Path(filename))
        if not self._may_contain_select(source):
            result.diagnostics = self._syntax_only(source, filename)
            return result
        try:
            module = cst.parse_module(source)
        except cst.ParserSyntaxError as error:
            result.diagnostics = [_syntax_diagnostic(filename, error.message, error.raw_line, error.raw_column + 1)]
            return result
        except RecursionError:
            result.error = f"nanlint: {filename}: too deeply nested to analyse"
            return result
        detector = Detector(module, self.catalog)
        if self.keep_analysis:
            result.detector = detector
        try:
            sites = detector.sites()
        except RecursionError:
            result.error = f"nanlint: {filename}: too deeply nested to analyse"
            return result
        suppressions = parse_suppressions(source, blanket_noqa=self.settings.blanket_noqa)
        planner = FixPlanner(detector, source)
        for site in sites:
            if site.code not in self.codes or site.code in ignored:
                continue
            diagnostic = build_diagnostic(site, detector, filename)
            lines, above = _suppression_lines(site, detector)
            if not suppressions.covers(site.code, lines, above):
                diagnostic.fix = planner.plan(site, diagnostic.fix_title or BY_CODE[site.code].SUMMARY)
                result.diagnostics.append(diagnostic)
        result.diagnostics = _dedupe(sorted(result.diagnostics, key=Diagnostic.sort_key))
        return result

    def _may_contain_select(self, source: str) -> bool:
        """A cheap text test before paying for a libcst parse."""
        return any(name in source for name in self.catalog.select_leaf_names)

    def _syntax_only(self, source: str, filename: str) -> list[Diagnostic]:
        try:
            ast.parse(source, filename)
        except SyntaxError as error:
            return [_syntax_diagnostic(filename, error.msg, error.lineno or 1, error.offset or 1)]
        except (ValueError, RecursionError, MemoryError) as error:
            return [_syntax_diagnostic(filename, str(error), 1, 1)]
        return []

    def _ignored_for(self, path: Path) -> frozenset[str]:
        if not self._per_file:
            return frozenset()
        try:
            relative = path.resolve().relative_to(self.settings.project_root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        out: set[str] = set()
        for pattern, codes in self._per_file:
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
                out |= codes
        return frozenset(out)


def decode_source(raw: bytes, name: str) -> tuple[str, str]:
    """Bytes to text as Python itself decodes a source file: BOM, then coding cookie, then UTF-8."""
    if b"\x00" in raw[:8192]:
        raise LintError(f"nanlint: {name}: binary file, not checked")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(raw).readline)
        return raw.decode(encoding), encoding
    except (SyntaxError, LookupError, UnicodeDecodeError) as error:
        raise LintError(f"nanlint: {name}: cannot decode: {error}") from None


# --- sites to diagnostics ----------------------------------------------------------------------
def site_facts(site: LeakSite, detector: Detector) -> dict[str, str]:
    """The words a rule's message and fix title are made of."""
    use = site.use
    facts = {
        "op": _snippet(detector.code(use.node)),
        "op_name": _op_name(use.node, detector),
        "branch": site.branch.label,
        "select": site.select_display,
        "why": use.op.why,
        "safe": repr(use.op.safe_value),
        "cond": _snippet(detector.code(site.branch.cond)) if site.branch.cond is not None else "",
        "local": use.via.value if use.via is not None else "",
        "definition_row": str(detector.position(use.node)[0]),
        "admitted": site.admitted.describe(site.guard_var or "x") if site.admitted is not None else "",
    }
    return facts


def build_diagnostic(site: LeakSite, detector: Detector, filename: str) -> Diagnostic:
    rule = BY_CODE[site.code]
    facts = site_facts(site, detector)
    primary = site.use.via if site.use.via is not None else site.use.node
    start, end = _range(primary, detector)
    related = []
    if site.use.via is not None:
        related.append(Related(f"`{facts['local']}` is computed by `{facts['op']}` here", *_range(site.use.node, detector)))
    if site.admitted is not None and site.branch.cond is not None:
        related.append(Related(f"the condition selects the pole at {facts['admitted']}", *_range(site.branch.cond, detector)))
    return Diagnostic(
        code=rule.CODE,
        name=rule.NAME,
        message=rule.MESSAGE.format(**facts),
        filename=filename,
        location=start,
        end_location=end,
        fix_title=rule.FIX_TITLE.format(**facts) if rule.FIX_TITLE else None,
        noqa_row=start.row,
        framework=site.framework,
        op=site.use.op.key,
        branch=site.branch.label,
        related=related,
        site=site,
    )


def _range(node: cst.CSTNode, detector: Detector) -> tuple[Location, Location]:
    code_range = detector.positions[node]
    return (
        Location(code_range.start.line, code_range.start.column + 1),
        Location(code_range.end.line, code_range.end.column + 1),
    )


def _suppression_lines(site: LeakSite, detector: Detector) -> tuple[set[int], set[int]]:
    """Lines whose comments can silence a site: every line of the select call and of the op (and,
    for an indirect leak, of the definition); a comment-only line above either start counts too."""
    nodes = [site.select, site.use.node]
    if site.use.via is not None:
        nodes.append(site.use.via)
    lines: set[int] = set()
    above: set[int] = set()
    for node in nodes:
        code_range = detector.positions[node]
        lines.update(range(code_range.start.line, code_range.end.line + 1))
        above.add(code_range.start.line)
    return lines, above


def _syntax_diagnostic(filename: str, message: str, row: int, column: int) -> Diagnostic:
    first_line = (message or "invalid syntax").strip().splitlines()[0]
    location = Location(max(row, 1), max(column, 1))
    return Diagnostic(
        code=InvalidSyntax.CODE,
        name=InvalidSyntax.NAME,
        message=InvalidSyntax.MESSAGE.format(error=first_line),
        filename=filename,
        location=location,
        end_location=location,
        noqa_row=None,
    )


def _snippet(code: str) -> str:
    text = " ".join(code.split())
    return text if len(text) <= MAX_SNIPPET else text[: MAX_SNIPPET - 1] + "…"


def _op_name(node: cst.CSTNode, detector: Detector) -> str:
    if isinstance(node, cst.Call):
        return _snippet(detector.code(node.func))
    if isinstance(node, cst.BinaryOperation):
        return detector.code(node.operator).strip()
    return _snippet(detector.code(node))


def _dedupe(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Report each place once: one op can sit in two walks, and a local (NAN002) can be computed by
    several singular ops; its first one stands for the chain, the fix loop reaches the others."""
    seen = set()
    out = []
    for d in diagnostics:
        key = (d.code, d.location, d.end_location) if d.code == "NAN002" else (d.code, d.location, d.end_location, d.message)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out
