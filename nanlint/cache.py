"""Results of plain checks, kept between runs: a file whose content has not changed is not checked again.

One JSON file per (nanlint version, resolved settings) under the cache directory (`.nanlint_cache`
in the project root, `--cache-dir` or `NANLINT_CACHE_DIR`), mapping each checked path to the hash of
its content and its diagnostics. A new version or a changed configuration reads another file, so it
never sees stale results. JSON, not pickle: a cache committed to a repository by mistake, or planted
in one, must not be able to run code. Writes are atomic, so two runs at once cannot corrupt it.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Optional

from nanlint import __version__
from nanlint.diagnostics import Diagnostic
from nanlint.config.settings import Settings

CACHE_DIR_NAME = ".nanlint_cache"
ENV_CACHE_DIR = "NANLINT_CACHE_DIR"
_FORMAT = 4  # bump when what an entry holds changes (4: a finding's select)
_GITIGNORE = "# Created by nanlint: the cache is local to this machine.\n*\n"
_CACHEDIR_TAG = "Signature: 8a477f597d28d172789f06886806bc55\n# nanlint's cache; see https://bford.info/cachedir/\n"


def default_cache_dir(settings: Settings) -> Path:
    configured = os.environ.get(ENV_CACHE_DIR)
    return Path(configured) if configured else settings.project_root / CACHE_DIR_NAME


def content_hash(raw: bytes) -> str:
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


class ResultCache:
    def __init__(self, directory: Path, settings: Settings) -> None:
        self.directory = directory
        fingerprint = json.dumps([__version__, _FORMAT, _settings_json(settings)], sort_keys=True, default=str)
        self.file = directory / f"{hashlib.blake2b(fingerprint.encode(), digest_size=8).hexdigest()}.json"
        self._entries: dict[str, list[Any]] = self._load()
        self._changed = False
        self._digests: dict[str, Optional[str]] = {}  # of the files entries depend on, read once a run

    def _load(self) -> dict[str, list[Any]]:
        try:
            data = json.loads(self.file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}  # no cache yet, or one that cannot be read: check everything
        return data if isinstance(data, dict) else {}

    def lookup(self, path: Path, digest: str) -> Optional[list[Diagnostic]]:
        """The diagnostics stored for `path` with this content, or None when there are none to trust."""
        entry = self._entries.get(_key(path))
        if not isinstance(entry, list) or len(entry) != 3 or entry[0] != digest or not isinstance(entry[2], dict):
            return None
        if not all(self._digest_of(other) == known for other, known in entry[2].items()):
            return None  # a module it re-exports through changed
        try:
            diagnostics = [Diagnostic.from_json(d) for d in entry[1]]
        except (KeyError, TypeError, ValueError):
            return None
        for diagnostic in diagnostics:
            diagnostic.filename = str(path)  # as this run names the file
        return diagnostics

    def store(self, path: Path, digest: str, diagnostics: list[Diagnostic], depends_on: tuple[str, ...] = ()) -> None:
        """`depends_on`: other files the diagnostics follow from; the entry holds only while each has the
        content it has now."""
        others = {other: self._digest_of(other) for other in depends_on}
        if None in others.values():
            return  # one of them cannot be read now: nothing to trust later
        self._entries[_key(path)] = [digest, [dict(d.to_json(), fix_title=d.fix_title) for d in diagnostics], others]
        self._changed = True

    def _digest_of(self, path: str) -> Optional[str]:
        if path not in self._digests:
            try:
                with open(path, "rb") as handle:
                    self._digests[path] = content_hash(handle.read())
            except OSError:
                self._digests[path] = None
        return self._digests[path]

    def save(self) -> Optional[str]:
        """Write the cache; a failure is reported (one line) and never fails the check."""
        if not self._changed:
            return None
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
            for name, text in ((".gitignore", _GITIGNORE), ("CACHEDIR.TAG", _CACHEDIR_TAG)):
                marker = self.directory / name
                if not marker.exists():
                    marker.write_text(text, encoding="utf-8")
            handle, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(self._entries, out, separators=(",", ":"))
            os.replace(temporary, self.file)
        except OSError as error:
            return f"nanlint: cannot write the cache in {self.directory}: {error.strerror or error}"
        return None


def clean(directory: Path) -> bool:
    """Remove the cache directory; whether there was one."""
    if not directory.is_dir():
        return False
    shutil.rmtree(directory)
    return True


def _key(path: Path) -> str:
    return os.path.abspath(path)


def _settings_json(settings: Settings) -> dict[str, Any]:
    return {f.name: getattr(settings, f.name) for f in dataclasses.fields(settings)}
