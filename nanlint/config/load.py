"""Finding and reading nanlint's configuration: [tool.nanlint] in pyproject.toml, or nanlint.toml.

Also applies `--config KEY=VALUE` overrides from the command line, validated the same way.
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import Any, Callable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from nanlint.catalog.tables import FRAMEWORK_OF_MODULE, OP_KEYS, framework_of
from nanlint.rules import UnknownSelector, expand_selector
from nanlint.confidence import Confidence
from nanlint.config.settings import KNOWN_FRAMEWORKS, Settings

# Searched in this order within one directory: as ruff does, a dedicated file beats pyproject.toml.
CONFIG_NAMES: tuple[str, ...] = (".nanlint.toml", "nanlint.toml", "pyproject.toml")


class ConfigError(Exception):
    """A configuration problem; the message is one line naming the file (or --config) and the key."""


class _BadValue(ValueError):
    """A value's problem, before the caller prefixes the file and the key."""


def find_config(start: Path) -> Path | None:
    """The nearest config file at or above `start` (a file or a directory), or None."""
    start = Path(start).resolve()
    here = start if start.is_dir() else start.parent
    for directory in (here, *here.parents):
        for name in CONFIG_NAMES:
            candidate = directory / name
            if not candidate.is_file():
                continue
            # A pyproject.toml only counts when it configures nanlint; other projects' files are passed over.
            if name != "pyproject.toml" or _has_nanlint_table(candidate):
                return candidate
    return None


def load_settings(config_path: Path | None, *, isolated: bool = False) -> tuple[Settings, list[str]]:
    """Settings from one config file (defaults when there is none, or when `isolated`), and the warnings."""
    if isolated or config_path is None:
        return Settings(), []
    path = Path(config_path).resolve()
    where = _display(Path(config_path))
    data = _read_toml(path, where)
    if path.name == "pyproject.toml":
        section = "[tool.nanlint]"
        tool = data.get("tool", {})
        table = tool.get("nanlint", {}) if isinstance(tool, dict) else None
    else:
        # nanlint.toml's top level is the nanlint table itself.
        section, table = "", data
    if not isinstance(table, dict):
        raise ConfigError(f"{where}: {section or 'top level'}: expected a table")
    base = Settings(project_root=path.parent, config_path=path)
    return _apply_table(base, table, where=where, section=section, strict=False)


def apply_overrides(settings: Settings, overrides: list[str]) -> Settings:
    """Apply `KEY=VALUE` overrides (VALUE is TOML, as in ruff's --config); returns a new Settings."""
    for override in overrides:
        where = f"--config {override!r}"
        if "=" not in override:
            raise ConfigError(f"{where}: expected KEY=VALUE, e.g. select=['NAN001']")
        try:
            table = tomllib.loads(override)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: {_one_line(exc)} (VALUE is TOML: quote strings, e.g. select=['NAN001'])") from None
        # A typo on the command line is an error, not a warning: nobody reads warnings for flags they just typed.
        settings, _ = _apply_table(settings, table, where=where, section="", strict=True)
    return settings


# --- reading ---------------------------------------------------------------------------------------


def _read_toml(path: Path, where: str) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {_one_line(exc)}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{where}: cannot read: {_one_line(exc)}") from None


def _has_nanlint_table(pyproject: Path) -> bool:
    tool = _read_toml(pyproject, _display(pyproject)).get("tool")
    return isinstance(tool, dict) and "nanlint" in tool


def _display(path: Path) -> str:
    # Short names read better in messages; fall back to the full path outside the working directory.
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def _one_line(exc: BaseException) -> str:
    return " ".join(str(exc).split())


def _apply_table(
    settings: Settings, table: dict[str, Any], *, where: str, section: str, strict: bool
) -> tuple[Settings, list[str]]:
    changes: dict[str, Any] = {}
    warnings: list[str] = []
    for key, value in table.items():
        validate = _KEYS.get(key)
        if validate is None:
            message = f"{where}: unknown key `{key}`" + (f" in {section}" if section else "")
            if key.replace("_", "-") in _KEYS:
                message += f" (did you mean `{key.replace('_', '-')}`?)"
            if strict:
                raise ConfigError(message)
            warnings.append(message)
            continue
        try:
            changes[key.replace("-", "_")] = validate(value)
        except _BadValue as exc:
            prefix = f"{section} " if section else ""
            raise ConfigError(f"{where}: {prefix}{key}: {exc}") from None
    return dataclasses.replace(settings, **changes), warnings


# --- validators: each returns the value to store, or raises _BadValue -----------------------------


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _BadValue("expected true or false")
    return value


def _strings(value: Any) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise _BadValue("expected a list of strings")
    return list(value)


def _selectors(value: Any) -> list[str]:
    selectors = _strings(value)
    for selector in selectors:
        _check_selector(selector)
    return selectors


def _check_selector(selector: str) -> None:
    try:
        expand_selector(selector)
    except UnknownSelector as exc:
        raise _BadValue(str(exc)) from None


def _frameworks(value: Any) -> list[str]:
    frameworks = _strings(value)
    for name in frameworks:
        if name not in KNOWN_FRAMEWORKS:
            raise _BadValue(f"unknown framework `{name}` (known: {', '.join(KNOWN_FRAMEWORKS)})")
    return frameworks


def _is_dotted(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))


def _dotted_names(value: Any) -> list[str]:
    names = _strings(value)
    for name in names:
        if not _is_dotted(name):
            raise _BadValue(f"`{name}` is not a dotted name like `mylib.safe_log`")
    return names


def _per_file_ignores(value: Any) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise _BadValue('expected a table of "glob" = [selectors]')
    result: dict[str, list[str]] = {}
    for glob, selectors in value.items():
        try:
            result[glob] = _selectors(selectors)
        except _BadValue as exc:
            raise _BadValue(f"`{glob}`: {exc}") from None
    return result


def _singular_ops(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _BadValue('expected a table of "qualified.name" = "op key"')
    for name, op_key in value.items():
        if not _is_dotted(name):
            raise _BadValue(f"`{name}` is not a dotted name like `mylib.safe_log`")
        if not isinstance(op_key, str):
            raise _BadValue(f"`{name}`: expected an op key string")
        _check_op_key(name, op_key)
    return dict(value)


def _check_op_key(name: str, op_key: str) -> None:
    if op_key not in OP_KEYS:
        raise _BadValue(f"`{name}`: unknown op key `{op_key}` (known: {', '.join(sorted(OP_KEYS))})")


def _confidence(value: Any) -> Confidence:
    known = [c.value for c in Confidence]
    if value not in known:
        raise _BadValue(f"expected one of {', '.join(known)}")
    return Confidence(value)


def _array_modules(value: Any) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _BadValue('expected a table of "mylib.module" = "array module"')
    for name, target in value.items():
        if not _is_dotted(name):
            raise _BadValue(f"`{name}` is not a dotted module name like `mylib.backend.numpy`")
        if not isinstance(target, str) or not _is_dotted(target) or framework_of(target) is None:
            known = ", ".join(sorted(FRAMEWORK_OF_MODULE))
            raise _BadValue(f"`{name}`: `{target}` is not a module of a known framework (one under {known})")
    return dict(value)


# Every key of [tool.nanlint]; the Settings field is the key with `-` read as `_`.
_KEYS: dict[str, Callable[[Any], Any]] = {
    "select": _selectors,
    "ignore": _selectors,
    "extend-select": _selectors,
    "per-file-ignores": _per_file_ignores,
    "not-differentiated": _strings,
    "include": _strings,  # the file names to check when walking directories, replacing the defaults
    "extend-include": _strings,  # adds to them
    "exclude": _strings,  # replaces the defaults, as in ruff
    "extend-exclude": _strings,  # adds to them
    "force-exclude": _bool,
    "respect-gitignore": _bool,
    "frameworks": _frameworks,
    "blanket-noqa": _bool,
    "min-confidence": _confidence,
    "extend-select-functions": _dotted_names,
    "extend-singular-ops": _singular_ops,
    "extend-safe-functions": _dotted_names,
    "array-modules": _array_modules,
}

__all__ = ["CONFIG_NAMES", "ConfigError", "find_config", "load_settings", "apply_overrides"]
