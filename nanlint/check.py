"""Check one file or source text: prefilter, analyse, report the sites as diagnostics with their fixes."""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path
from typing import Optional

from nanlint.analysis.sites import LeakSite, SiteKind
from nanlint.cache import content_hash
from nanlint.catalog.lookup import Catalog
from nanlint.config.settings import Settings
from nanlint.files import CheckError, FileResult, check_size, decode_source, is_notebook, read_source_bytes, syntax_diagnostic
from nanlint.prefilter import Prefiltered, Reported, Verdict, prefilter
from nanlint.prefilter.helpers import HelperFinder, ImportedHelpers
from nanlint.prefilter.reexports import ArrayModules, TreeResolver
from nanlint.rules import BY_CODE, expand_selector, kinds_of, select_codes
from nanlint.suppression import parse_suppressions


class Checker:
    """Holds what every file of a run shares: settings, the catalog view, the selected codes."""

    def __init__(self, settings: Settings, *, keep_analysis: bool = False, digests: bool = True) -> None:
        """`digests`: hash each file's bytes, for the result cache to store results under."""
        self.settings = settings
        self.keep_analysis = keep_analysis
        self.digests = digests
        self.catalog = Catalog(settings)
        self.codes = select_codes(settings.select, settings.ignore, settings.extend_select)
        self.kinds = kinds_of(self.codes)
        # Clamps are selects only for the rules that report them.
        self.reported = Reported(
            clamp_branches=SiteKind.CLAMP in self.kinds,
            clamp_in_op=SiteKind.CLAMP_AT_POLE in self.kinds,
            nan_masks=SiteKind.NAN_MASK in self.kinds,
        )
        self.array_modules = ArrayModules(settings.array_modules)
        self.imported_helpers = ImportedHelpers(self.array_modules)
        self._per_file = [
            (pattern, frozenset(c for s in selectors for c in expand_selector(s)))
            for pattern, selectors in settings.per_file_ignores.items()
        ]

    # --- files -------------------------------------------------------------------------------
    def check_path(self, path: Path, display: Optional[str] = None) -> FileResult:
        name = display or str(path)
        try:
            raw = read_source_bytes(path, name)
        except CheckError as error:
            return FileResult(name, error=str(error))
        return self.check_bytes(raw, name, path)

    def check_bytes(self, raw: bytes, name: str, path: Optional[Path] = None) -> FileResult:
        """Check a file's bytes (or stdin's): a notebook's JSON, or source decoded as Python decodes it."""
        try:
            check_size(len(raw), name)
        except CheckError as error:
            return FileResult(name, error=str(error))
        if path is not None and is_notebook(path):
            from nanlint.notebook import check_notebook

            result = check_notebook(self, raw, name, path)
        else:
            try:
                source, encoding = decode_source(raw, name)
            except CheckError as error:
                return FileResult(name, error=str(error))
            result = self.check_source(source, name, path=path)
            result.encoding = encoding
        result.digest = content_hash(raw) if self.digests else None
        return result

    def check_source(self, source: str, filename: str, path: Optional[Path] = None) -> FileResult:
        result = FileResult(filename, source)
        where = path or Path(filename)
        # Code that is never differentiated cannot leak a gradient: only the file's own problems (NAN900) count.
        kinds = frozenset() if self._never_differentiated(where) else self.kinds - kinds_of(self._ignored_for(where))
        resolve = self.array_modules.resolver(path)
        find_helper = self.imported_helpers.finder(path)
        found = prefilter(source, self.catalog, self.reported, self.settings.parse_whole_files, resolve, find_helper)
        # Findings that depend on what another file re-exports or defines are cached with its content too.
        result.depends_on = found.imports.depends_on
        if found.verdict is Verdict.TOO_DEEP:
            result.error = f"nanlint: {filename}: too deeply nested to analyse"
        elif found.verdict is Verdict.INVALID:
            error = found.error
            result.diagnostics = [syntax_diagnostic(filename, error.msg, error.lineno or 1, error.offset or 1)]
        elif found.verdict is not Verdict.NOTHING:
            try:
                self._analyse(result, found, kinds, resolve, find_helper)
            except (RecursionError, MemoryError):
                result.diagnostics = []
                result.error = f"nanlint: {filename}: too deeply nested to analyse"
            except Exception as error:  # a bug in nanlint loses this file's findings, not the run's (as ruff's panics)
                if os.environ.get("NANLINT_DEBUG"):
                    raise
                result.diagnostics = []
                result.error = f"nanlint: {filename}: internal error: {type(error).__name__}: {error} (set NANLINT_DEBUG=1 for a traceback)"
        return result

    def _analyse(
        self, result: FileResult, found: Prefiltered, kinds: frozenset, resolve: Optional[TreeResolver], find_helper: Optional[HelperFinder]
    ) -> None:
        """The kept units read by libcst, their sites as diagnostics, and a fix planned for each."""
        # Here, not at the top: a file the prefilter clears never loads libcst.
        from nanlint.analysis.analyse import AnalysisError, analyse
        from nanlint.fix.plan import FixPlanner
        from nanlint.rules.diagnose import build_diagnostic, deduplicated, link_masks, suppression_lines

        source = result.source
        try:
            analysis = analyse(source, found, self.catalog, kinds)
            if found.verdict is Verdict.UNITS and any(
                isinstance(s, LeakSite) and s.use.via is not None and not s.scope.is_function for s in analysis.sites
            ):
                # A module- or class-level local may be used anywhere in the file, and its fix depends
                # on every use: the kept units do not hold them all, so read the file whole (rare).
                found = prefilter(source, self.catalog, self.reported, True, resolve, find_helper)
                result.depends_on = found.imports.depends_on  # the whole file may read more modules
                analysis = analyse(source, found, self.catalog, kinds)
        except AnalysisError as error:
            result.error = f"nanlint: {result.filename}: {error}"
            return
        if analysis.sites:
            error = found.syntax_error(source)  # the prefilter parsed only some of the file
            if error is not None:
                result.diagnostics = [syntax_diagnostic(result.filename, error.msg, error.lineno or 1, error.offset or 1)]
                return
        if self.keep_analysis:
            result.detector = analysis.detector
        if not analysis.sites:
            return
        suppressions = parse_suppressions(source, blanket_noqa=self.settings.blanket_noqa)
        planner = FixPlanner(analysis.detector, source)
        for site in analysis.sites:
            if not site.confidence.at_least(self.settings.min_confidence):
                continue
            diagnostic = build_diagnostic(site, analysis.detector, result.filename)
            lines, above = suppression_lines(site, analysis.detector)
            if not suppressions.covers(diagnostic.code, lines, above):
                diagnostic.fix = planner.plan(site, diagnostic.fix_title or BY_CODE[diagnostic.code].SUMMARY)
                result.diagnostics.append(diagnostic)
        link_masks(result.diagnostics)
        result.diagnostics = deduplicated(result.diagnostics)

    def _ignored_for(self, path: Path) -> frozenset[str]:
        if not self._per_file:
            return frozenset()
        names = self._names(path)
        return frozenset(c for pattern, codes in self._per_file if _matches(names, pattern) for c in codes)

    def _never_differentiated(self, path: Path) -> bool:
        if not self.settings.not_differentiated:
            return False
        names = self._names(path)
        return any(_matches(names, pattern) for pattern in self.settings.not_differentiated)

    def _names(self, path: Path) -> tuple[str, str]:
        """What a glob is matched against, as in ruff's per-file-ignores: the path relative to the
        project root, and the file's name."""
        try:
            relative = path.resolve().relative_to(self.settings.project_root.resolve()).as_posix()
        except ValueError:
            relative = path.as_posix()
        return relative, path.name


def _matches(names: tuple[str, str], pattern: str) -> bool:
    return any(fnmatch.fnmatch(name, pattern) for name in names)


