"""The `nanlint` command: `nanlint check [PATHS]` (or just `nanlint PATHS`) and `nanlint rule CODE`.

Exit codes, as ruff's: 0 nothing left to report (or everything fixed), 1 findings remain (or, with
`--exit-non-zero-on-fix`, a file changed; with `--diff`, there is a diff), 2 a usage, configuration or
internal error, or a file that could not be checked or written.
"""

from __future__ import annotations

import dataclasses
import difflib
import enum
import json
import os
import sys
from collections import Counter
from pathlib import Path
from typing import Optional

import click

from nanlint import __version__
from nanlint.cache import CACHE_DIR_NAME, ENV_CACHE_DIR, ResultCache, default_cache_dir
from nanlint.cache import clean as clean_cache
from nanlint.confidence import Confidence
from nanlint.config.load import ConfigError, apply_overrides, find_config, load_settings
from nanlint.config.discovery import discover
from nanlint.fix.model import Applicability
from nanlint.adoption import BaselineError, add_noqa, new_findings, read_baseline, write_baseline
from nanlint.fix.apply import fix_source
from nanlint.fix.write import write_atomically
from nanlint.parallel import check_paths, default_jobs
from nanlint.progress import status
from nanlint.verify.verdicts import DEFAULT_TIMEOUT_S, Status
from nanlint.check import Checker
from nanlint.files import CheckError, FileResult
from nanlint.notebook import changed_cells, fix_notebook, for_report, with_noqa
from nanlint.report import DEFAULT_FORMAT, FORMATS, is_fixable, prepare, render, render_statistics
from nanlint.rules import RULES, BY_CODE, BY_NAME, UnknownSelector
from nanlint.config.settings import Settings

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
TEXT_FORMATS = ("full", "concise")


class UsageProblem(Exception):
    """Something the user asked for that cannot be done; exit 2 with one line."""


def _split(values: tuple[str, ...]) -> Optional[list[str]]:
    """`--select NAN001,NAN002 --select NAN1` -> ["NAN001", "NAN002", "NAN1"]; None when not given."""
    if not values:
        return None
    return [item.strip() for value in values for item in value.split(",") if item.strip()]


class DefaultToCheck(click.Group):
    """`nanlint src/` means `nanlint check src/`, as flake8 and ruff's old CLI taught users."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["check", *args]
        elif not args:
            args = ["check"]
        return super().parse_args(ctx, args)


@click.group(cls=DefaultToCheck, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="nanlint", message="%(prog)s %(version)s")
def cli() -> None:
    """Find where()/select branches that leak NaN gradients in JAX, TensorFlow and PyTorch code."""


_CHECK_OPTIONS = [
    click.argument("paths", nargs=-1, type=str),
    click.option("--select", multiple=True, help="Rules to enable: codes, prefixes (NAN0), names or ALL. Comma-separated."),
    click.option("--ignore", multiple=True, help="Rules to disable, as --select."),
    click.option("--extend-select", multiple=True, help="Rules to enable on top of the selected ones."),
    click.option("--per-file-ignores", multiple=True, help="GLOB:CODES, e.g. 'tests/*:NAN001'."),
    click.option(
        "--min-confidence",
        type=click.Choice([c.value for c in Confidence]),
        default=None,
        help="Report only findings at least this sure (default: medium, all of them).",
    ),
    click.option("--exclude", multiple=True, help="Glob patterns to exclude, replacing the defaults."),
    click.option("--extend-exclude", multiple=True, help="Glob patterns to exclude, on top of the defaults."),
    click.option("--force-exclude/--no-force-exclude", default=None, help="Apply excludes to paths passed explicitly too (pre-commit)."),
    click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files ignored by .gitignore (default: on)."),
    click.option("--output-format", type=click.Choice(FORMATS), default=None, help="How to print findings (default: full)."),
    click.option("-o", "--output-file", type=click.Path(dir_okay=False, writable=True), help="Write findings to this file."),
    click.option("--statistics", is_flag=True, help="Print a count per rule instead of the findings."),
    click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings."),
    click.option("--config", "config_options", multiple=True, help="A config file, or a KEY=VALUE override of one setting."),
    click.option("--isolated", is_flag=True, help="Ignore all configuration files."),
    click.option("--show-files", is_flag=True, help="List the files that would be checked, and exit."),
    click.option("--show-settings", is_flag=True, help="Print the resolved settings, and exit."),
    click.option("--stdin-filename", help="The name to report for source read from stdin (`-`)."),
    click.option("--dtype", type=click.Choice(["float32", "float64", "float16"]), default="float32", help="Probe dtype for verification."),
    click.option("--verify-timeout", type=float, default=DEFAULT_TIMEOUT_S, help="Seconds a verification worker may run."),
    click.option("-j", "--jobs", type=click.IntRange(min=1), default=None, help="Processes to check files with (default: the cores)."),
    click.option("--no-cache", is_flag=True, help="Check every file, without reading or writing the result cache."),
    click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help=f"Where the result cache lives (default: {CACHE_DIR_NAME} in the project root, or ${ENV_CACHE_DIR})."),
    # The reference the sliced fast path is tested against: every file the detector sees is whole.
    click.option("--no-slicing", is_flag=True, hidden=True),
]
_FIX_OPTIONS = [
    click.option("--fix", is_flag=True, help="Apply safe fixes (the double where)."),
    click.option("--unsafe-fixes", is_flag=True, help="Also apply (and show as fixable) the fixes marked unsafe."),
    click.option("--diff", is_flag=True, help="Print the fixes as a unified diff and write nothing; exit 1 if there is one."),
    click.option("--fix-only", is_flag=True, help="Apply fixes and report nothing about what is left."),
    click.option("--show-fixes", is_flag=True, help="List the fixes that were applied."),
    click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when a file was changed, even if nothing is left."),
    click.option("--verify", is_flag=True, help="Prove each fix under XLA first; with --fix, apply only fixes proven on their select."),
    click.option("--add-noqa", is_flag=True, help="Add `# nanlint: ignore[CODE]` to every current finding, and exit."),
    click.option("--write-baseline", type=click.Path(dir_okay=False), help="Record the current findings in this file, and exit."),
    click.option("--baseline", type=click.Path(dir_okay=False), help="Report only findings that this baseline file does not record."),
]


def _with(options):
    def decorate(function):
        for option in reversed(options):
            function = option(function)
        return function

    return decorate


@cli.command()
@_with(_CHECK_OPTIONS + _FIX_OPTIONS)
def check(paths: tuple[str, ...], **options) -> None:
    """Check PATHS (default: the current directory) for NaN-leaking where/select branches."""
    sys.exit(run_check(list(paths), options))


@cli.command()
@_with(_CHECK_OPTIONS)
def verify(paths: tuple[str, ...], **options) -> None:
    """Prove each finding and its fix under XLA: the NaN gradient before, finite after, values unchanged."""
    options.update(
        fix=False, unsafe_fixes=True, diff=False, fix_only=False, show_fixes=False, exit_non_zero_on_fix=False, verify=True,
        add_noqa=False, write_baseline=None, baseline=None,
    )
    sys.exit(run_check(list(paths), options, verify_command=True))


@cli.command()
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), default=None, help="The cache to remove (default: as `check` finds it).")
def clean(cache_dir: Optional[Path]) -> None:
    """Remove the result cache."""
    try:
        settings, _ = load_settings(find_config(Path.cwd()))
    except ConfigError as error:
        _error(str(error))
        sys.exit(EXIT_ERROR)
    directory = cache_dir or default_cache_dir(settings)
    try:
        removed = clean_cache(directory)
    except OSError as error:
        _error(f"nanlint: cannot remove {directory}: {error.strerror or error}")
        sys.exit(EXIT_ERROR)
    click.echo(f"Removed {directory}" if removed else f"No cache at {directory}")


@cli.command()
@click.argument("code", required=False)
@click.option("--all", "show_all", is_flag=True, help="Explain every rule.")
@click.option("--output-format", type=click.Choice(["text", "json"]), default="text")
def rule(code: Optional[str], show_all: bool, output_format: str) -> None:
    """Explain a rule, by code (NAN001) or name (where-branch-singular-op)."""
    if show_all:
        chosen = list(RULES)
    elif code is None:
        raise click.UsageError("give a rule code, or --all")
    else:
        found = BY_CODE.get(code.upper()) or BY_NAME.get(code)
        if found is None:
            raise click.UsageError(f"unknown rule `{code}`")
        chosen = [found]
    if output_format == "json":
        data = [_rule_json(r) for r in chosen]
        click.echo(json.dumps(data if show_all else data[0], indent=2))
        return
    click.echo("\n\n".join(rule_text(r) for r in chosen))


def rule_text(rule_cls) -> str:
    return f"# {rule_cls.NAME} ({rule_cls.CODE})\n\n{rule_cls.SUMMARY}.\n\n{rule_cls.doc()}\n"


def _rule_json(rule_cls) -> dict:
    return {
        "code": rule_cls.CODE,
        "name": rule_cls.NAME,
        "summary": rule_cls.SUMMARY,
        "fix_title": rule_cls.FIX_TITLE,
        "default_enabled": rule_cls.DEFAULT_ENABLED,
        "explanation": rule_cls.doc(),
    }


# --- check ---------------------------------------------------------------------------------------
def run_check(paths: list[str], options: dict, verify_command: bool = False) -> int:
    try:
        settings, warnings = resolve_settings(paths, options)
        linter = Checker(settings, keep_analysis=options["verify"])
    except (ConfigError, UnknownSelector, UsageProblem) as error:
        _error(str(error))
        return EXIT_ERROR
    for warning in warnings:
        _warn(warning)
    if options["show_settings"]:
        click.echo(_settings_text(settings))
        return EXIT_CLEAN

    errors: list[str] = []
    stdin_raw = None
    if paths == ["-"]:
        name = options["stdin_filename"] or "-"
        # Bytes, decoded as a file's are (BOM, coding cookie, UTF-8), whatever the locale; all of
        # them, even past the size limit, for `--fix` prints them back when it cannot check them.
        stdin_raw = click.get_binary_stream("stdin").read()
        results = [linter.check_bytes(stdin_raw, name, path=Path(name))]
        targets: list[Optional[Path]] = [None]
    else:
        found = discover(
            paths or ["."],
            include=[*settings.include, *settings.extend_include],
            exclude=settings.exclude,
            extend_exclude=settings.extend_exclude,
            force_exclude=settings.force_exclude,
            respect_gitignore=settings.respect_gitignore,
            root=settings.project_root,
        )
        errors += found.errors
        if options["show_files"]:
            for path in found.files:
                click.echo(str(path))
            return _exit_for(errors, [], options, changed=False)
        # pre-commit passes files explicitly; when --force-exclude drops them all, that is not news.
        if not found.files and not errors and not (settings.force_exclude and paths):
            _warn("no Python files found under the given path(s)")
        # Fixing, verifying and --add-noqa work from each file's analysis, which stays in this process.
        in_process = any(options.get(k) for k in ("fix", "fix_only", "diff", "verify", "add_noqa"))
        jobs = 1 if in_process else (options.get("jobs") or default_jobs())
        cache = None if in_process or options.get("no_cache") else ResultCache(options.get("cache_dir") or default_cache_dir(settings), settings)
        report_format = options["output_format"] or DEFAULT_FORMAT
        results = check_paths(linter, list(found.files), jobs, cache, while_waiting=lambda: prepare(report_format))
        if cache is not None and (problem := cache.save()):
            _warn(problem)
        targets = list(found.files)

    unsafe = options["unsafe_fixes"]
    verified = None
    if options["verify"]:
        checked = sum(len(r.diagnostics) for r in results)
        with status(f"Verifying {checked} {'finding' if checked == 1 else 'findings'} under XLA"):
            from nanlint.verify.session import VerifiedRun  # the harness: only when verifying

            verified = VerifiedRun(linter, results, unsafe_fixes=unsafe, dtype=options["dtype"], timeout_s=options["verify_timeout"])
    fixed_files, applied, diffs = _apply_fixes(linter, results, targets, options, errors, verified, stdin_raw)
    for result in results:
        for d in result.diagnostics:
            if d.fix is not None:
                d.fix.available = d.fix.applies(unsafe)
    if options["add_noqa"]:
        return _add_noqa(results, targets, errors)

    diagnostics = []
    sources: dict = {}  # Diagnostic.source_key -> text
    for result in results:
        if result.error:
            errors.append(result.error)
        shown, texts = for_report(result)  # a notebook's findings in their cells
        diagnostics += shown
        if result.diagnostics:
            sources.update(texts)
    diagnostics.sort(key=lambda d: d.sort_key())
    try:
        if options["write_baseline"]:
            write_baseline(Path(options["write_baseline"]), diagnostics, sources, settings.project_root)
            click.echo(f"Wrote {len(diagnostics)} {'finding' if len(diagnostics) == 1 else 'findings'} to {options['write_baseline']}.")
            return EXIT_ERROR if errors else EXIT_CLEAN
        if options["baseline"]:
            known = read_baseline(Path(options["baseline"]))
            diagnostics = new_findings(diagnostics, sources, known, settings.project_root)
    except (BaselineError, OSError) as error:
        _error(str(error) if isinstance(error, BaselineError) else f"cannot write {options['write_baseline']}: {error}")
        return EXIT_ERROR
    for line in errors:
        _error_line(line)
    if options["diff"]:
        click.echo("".join(diffs), nl=False)
        return EXIT_ERROR if errors else (EXIT_FINDINGS if diffs else EXIT_CLEAN)
    stdin_fix = paths == ["-"] and (options["fix"] or options["fix_only"])
    if options["show_fixes"] and fixed_files:
        click.echo(_fixes_text(fixed_files), err=stdin_fix)
    if verify_command:
        return _report_verification(diagnostics, sources, options, settings, errors)
    if not options["fix_only"]:
        _report(diagnostics, sources, options, settings, applied=sum(applied.values()), to_stderr=stdin_fix, errors=len(errors))
    if options["fix_only"]:
        diagnostics = []
    return _exit_for(errors, diagnostics, options, changed=bool(fixed_files))


def _apply_fixes(linter, results, targets, options, errors, verified, stdin_raw: Optional[bytes]):
    """`stdin_raw`: the bytes read from stdin, which `--fix` prints back as they came when it changes nothing."""
    fixing = options["fix"] or options["fix_only"] or options["diff"]
    unsafe = options["unsafe_fixes"]
    applied: Counter = Counter()
    fixed_files: list[tuple[str, Counter]] = []
    diffs: list[str] = []
    for index, (result, target) in enumerate(zip(results, targets)):
        fixable = any(d.fix and d.fix.applies(unsafe) for d in result.diagnostics)
        if not fixing or result.error or not fixable:
            if fixing and target is None and not options["diff"]:
                click.echo(stdin_raw, nl=False)  # stdin with --fix: the unchanged bytes
            continue
        accept = verified.accept_for(result) if verified is not None else None
        fix = fix_source if result.notebook is None else fix_notebook
        try:
            outcome = fix(linter, result, unsafe_fixes=unsafe, path=target, accept=accept)
        except CheckError as error:
            errors.append(str(error))
            continue
        errors += outcome.dropped
        if verified is not None:
            verified.attach_to(result, outcome.result, outcome)
        results[index] = outcome.result
        if options["diff"]:
            if outcome.changed:
                diffs += _diffs(result, outcome.result)
            continue
        if target is None:
            click.echo(outcome.result.file_text.encode(result.encoding), nl=False)  # stdin with --fix: the fixed file, encoded as it came
        elif outcome.changed:
            try:
                write_atomically(target, outcome.result.file_text, result.encoding)
            except OSError as error:
                errors.append(f"nanlint: cannot write {result.filename}: {error.strerror or error}")
                continue
        applied.update(outcome.applied)
        if outcome.changed:
            fixed_files.append((result.filename, outcome.applied))
    return fixed_files, applied, diffs


def _add_noqa(results: list[FileResult], targets: list[Optional[Path]], errors: list[str]) -> int:
    added = 0
    for result, target in zip(results, targets):
        if target is None or not result.diagnostics or result.source is None:
            continue
        try:
            text, changed = _with_noqa(result)
            if changed:
                write_atomically(target, text, result.encoding)
        except (SyntaxError, ValueError) as error:
            errors.append(f"nanlint: {result.filename}: ignore comments not added: {error}")
            continue
        except OSError as error:
            errors.append(f"nanlint: cannot write {result.filename}: {error.strerror or error}")
            continue
        added += changed
    for line in errors:
        _error_line(line)
    click.echo(f"Added {added} ignore {'comment' if added == 1 else 'comments'}.")
    return EXIT_ERROR if errors else EXIT_CLEAN


def _with_noqa(result: FileResult) -> tuple[str, int]:
    """The file's text with an ignore comment on each finding's line, and how many lines changed;
    SyntaxError (or ValueError) when that would break it."""
    if result.notebook is not None:
        return with_noqa(result)
    text, changed = add_noqa(result.source, result.diagnostics)
    if changed:
        compile(text, result.filename, "exec", dont_inherit=True)
    return text, changed


def _report_verification(diagnostics, sources, options, settings, errors) -> int:
    fmt = options["output_format"] or DEFAULT_FORMAT
    if fmt in TEXT_FORMATS:
        color = _color(options)
        pairs = [(d, d.verification) for d in diagnostics if d.verification is not None]
        from nanlint.verify.report import render as verification_report

        text = verification_report(pairs, color=color, width=_width())
        counts = Counter(v.status for _, v in pairs)
        text += ", ".join(f"{counts[s]} {s.value}" for s in Status if counts[s]) or "Nothing to verify."
        text += "\n"
        _write(text, options)
    else:
        _report(diagnostics, sources, options, settings)
    if errors:
        return EXIT_ERROR
    every = [d.verification for d in diagnostics if d.verification is not None]
    return EXIT_CLEAN if all(v.status is Status.VERIFIED for v in every) else EXIT_FINDINGS


def resolve_settings(paths: list[str], options: dict) -> tuple[Settings, list[str]]:
    config_files = [c for c in options["config_options"] if "=" not in c]
    overrides = [c for c in options["config_options"] if "=" in c]
    if len(config_files) > 1:
        raise UsageProblem("--config names more than one file")
    if config_files:
        config_path: Optional[Path] = Path(config_files[0])
        if not config_path.is_file():
            raise UsageProblem(f"--config: no such file: {config_files[0]}")
    else:
        start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
        if options.get("stdin_filename") and paths == ["-"]:
            start = Path(options["stdin_filename"])
        config_path = None if options["isolated"] else find_config(start if start.exists() else Path.cwd())
    settings, warnings = load_settings(config_path, isolated=options["isolated"])
    settings = apply_overrides(settings, overrides) if overrides else settings
    return _apply_cli(settings, options), warnings


def _apply_cli(settings: Settings, options: dict) -> Settings:
    changes: dict = {}
    for key in ("select", "ignore", "extend_select", "exclude", "extend_exclude"):
        value = _split(options[key])
        if value is not None:
            changes[key] = value if key in ("select", "exclude") else getattr(settings, key) + value
    for key in ("force_exclude", "respect_gitignore"):
        if options[key] is not None:
            changes[key] = options[key]
    if options.get("min_confidence"):
        changes["min_confidence"] = Confidence(options["min_confidence"])
    if options.get("no_slicing"):
        changes["parse_whole_files"] = True
    if options["per_file_ignores"]:
        table = dict(settings.per_file_ignores)
        for entry in options["per_file_ignores"]:
            pattern, sep, codes = entry.rpartition(":")
            if not sep or not pattern:
                raise UsageProblem(f"--per-file-ignores expects GLOB:CODES, got `{entry}`")
            table[pattern] = [c.strip() for c in codes.split(",") if c.strip()]
        changes["per_file_ignores"] = table
    return dataclasses.replace(settings, **changes)


def _report(diagnostics, sources: dict[str, str], options: dict, settings: Settings, *, applied: int = 0, to_stderr: bool = False, errors: int = 0) -> None:
    fmt = options["output_format"] or DEFAULT_FORMAT
    color = _color(options)
    if options["statistics"]:
        text = render_statistics(diagnostics, "json" if fmt in ("json", "json-lines") else "text")
    else:
        text = render(diagnostics, fmt, sources=sources, color=color, width=_width())
        if fmt in TEXT_FORMATS:
            text += _summary(diagnostics, applied, errors)
    _write(text, options, to_stderr=to_stderr)


def _color(options: dict) -> bool:
    """Colour only for a terminal that has not asked for none (NO_COLOR), never in a file."""
    return options["output_file"] is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ


def _write(text: str, options: dict, *, to_stderr: bool = False) -> None:
    output_file = options["output_file"]
    if output_file:
        try:
            # As stdout has it (see main): a file name's bytes that are not UTF-8 are written as they are.
            Path(output_file).write_text(text, encoding="utf-8", errors="surrogateescape")
        except OSError as error:
            _error(f"cannot write {output_file}: {error.strerror or error}")
    else:
        click.echo(text, nl=False, err=to_stderr)


def _summary(diagnostics, applied: int, errors: int = 0) -> str:
    """The last line of a text report; a file that could not be checked is no check passed."""
    total = len(diagnostics) + applied
    failed = f"{errors} {'error' if errors == 1 else 'errors'} above: not everything was checked.\n" if errors else ""
    if not total:
        return f"No findings, but {failed}" if errors else "All checks passed!\n"
    noun = "finding" if total == 1 else "findings"
    if applied:
        left = f"{len(diagnostics)} remaining" if diagnostics else "none remaining"
        return f"Found {total} {noun} ({applied} fixed, {left}).\n{failed}"
    fixable = sum(1 for d in diagnostics if is_fixable(d))
    hidden = sum(1 for d in diagnostics if d.fix is not None and d.fix.edits and d.fix.applicability is Applicability.UNSAFE and not d.fix.available)
    extra = f" ({fixable} fixable with `--fix`)" if fixable else ""
    hint = f"\n{hidden} hidden {'fix' if hidden == 1 else 'fixes'} can be enabled with `--unsafe-fixes`." if hidden else ""
    return f"Found {total} {noun}{extra}.{hint}\n{failed}"


def _fixes_text(fixed_files: list[tuple[str, Counter]]) -> str:
    total = sum(sum(c.values()) for _, c in fixed_files)
    lines = [f"Fixed {total} {'finding' if total == 1 else 'findings'}:"]
    for filename, counts in fixed_files:
        lines.append(f"- {filename}:")
        lines += [f"    {count} × {code} ({BY_CODE[code].NAME})" for code, count in sorted(counts.items())]
    return "\n".join(lines)


def _diffs(before: FileResult, after: FileResult) -> list[str]:
    """The fixes as a diff: of the file, or of each changed cell of a notebook (`a/train.ipynb:cell 4`)."""
    if before.notebook is None:
        return [_unified_diff(before.filename, before.source or "", after.source or "")]
    pairs = changed_cells(before.notebook, after.notebook)
    return [_unified_diff(f"{before.filename}:cell {old.number}", old.text, new.text) for old, new in pairs]


def _unified_diff(filename: str, before: str, after: str) -> str:
    lines = difflib.unified_diff(
        before.splitlines(keepends=True), after.splitlines(keepends=True), fromfile=f"a/{filename}", tofile=f"b/{filename}"
    )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _exit_for(errors: list[str], diagnostics, options: dict, *, changed: bool) -> int:
    if errors:
        return EXIT_ERROR
    if options["exit_non_zero_on_fix"] and changed:
        return EXIT_FINDINGS
    if diagnostics and not options["exit_zero"]:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _settings_text(settings: Settings) -> str:
    lines = []
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        lines.append(f"{f.name.replace('_', '-')} = {(value.value if isinstance(value, enum.Enum) else value)!r}")
    return "\n".join(lines)


def _width() -> int:
    try:
        return max(60, min(os.get_terminal_size().columns, 200))
    except OSError:
        return 100


def _warn(message: str) -> None:
    click.echo(f"nanlint: warning: {message}", err=True)


def _error(message: str) -> None:
    click.echo(f"nanlint: error: {message}", err=True)


def _error_line(line: str) -> None:
    click.echo(line, err=True)


def main() -> None:
    """Entry point: no traceback reaches the user, whatever happens."""
    # File names that are not UTF-8 reach the text output as their own bytes, as `ls` shows them,
    # whatever the locale's error handler; the machine formats write them escaped (report.common).
    if hasattr(sys.stdout, "reconfigure"):
        sys.stdout.reconfigure(errors="surrogateescape")
    try:
        cli(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("nanlint: interrupted", err=True)
        sys.exit(130)
    except Exception as error:  # pragma: no cover - the last line of defence
        if os.environ.get("NANLINT_DEBUG"):
            raise
        click.echo(f"nanlint: internal error: {type(error).__name__}: {error} (set NANLINT_DEBUG=1 for a traceback)", err=True)
        sys.exit(EXIT_ERROR)
