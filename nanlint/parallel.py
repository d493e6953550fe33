"""Checking many files on every core: one linter per worker process, results sent back without syntax trees.

Only plain checks run here; fixing and verification need each file's analysis in this process. Plain
checks also read and write the result cache.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Callable, Optional

from nanlint.cache import ResultCache, content_hash
from nanlint.check import Checker
from nanlint.files import CheckError, FileResult, decode_source, is_notebook, read_source_bytes
from nanlint.progress import track
from nanlint.config.settings import Settings

# Below this many files a pool costs more to start than it saves.
MIN_FILES_FOR_POOL = 16
_linter: Optional[Checker] = None


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def check_paths(
    linter: Checker, paths: list[Path], jobs: int, cache: Optional[ResultCache] = None, while_waiting: Optional[Callable[[], None]] = None
) -> list[FileResult]:
    """Check `paths` in order, with `jobs` processes (in this one when that is 1 or the list is short);
    files whose content the cache has seen are not checked again. `while_waiting` is work for this
    process while the workers check (the report's imports)."""
    results = [_cached(cache, path) if cache is not None else None for path in paths]
    todo = [i for i, r in enumerate(results) if r is None]
    checked = _check_all(linter, [paths[i] for i in todo], jobs, digests=cache is not None, while_waiting=while_waiting)
    for index, result in zip(todo, checked):
        results[index] = result
        if cache is not None and result.digest is not None and result.error is None:
            # Stored under the hash of the bytes the check read, even if the file changed since the lookup.
            cache.store(paths[index], result.digest, result.diagnostics, result.depends_on)
    return results


def _cached(cache: ResultCache, path: Path) -> Optional[FileResult]:
    """The cached result for `path`'s current content, or None (also when it cannot be read, or is
    no regular file: the check reports that)."""
    try:
        raw = read_source_bytes(path, str(path))
    except CheckError:
        return None
    diagnostics = cache.lookup(path, content_hash(raw))
    if diagnostics is None:
        return None
    result = FileResult(str(path), diagnostics=diagnostics)
    if diagnostics:  # the report shows their lines
        try:
            if is_notebook(path):
                from nanlint.notebook import read_notebook

                result.notebook, result.encoding = read_notebook(raw, str(path))
                result.source = result.notebook.source
            else:
                result.source, result.encoding = decode_source(raw, str(path))
        except CheckError:
            return None
    return result


def _check_all(linter: Checker, paths: list[Path], jobs: int, digests: bool, while_waiting: Optional[Callable[[], None]]) -> list[FileResult]:
    if jobs <= 1 or len(paths) < MIN_FILES_FOR_POOL:
        return [linter.check_path(path) for path in track(paths, "Checking", len(paths))]
    # The biggest files first, so that no worker is left with one at the end; results in path order.
    order = sorted(range(len(paths)), key=lambda i: -_size(paths[i]))
    with ProcessPoolExecutor(max_workers=jobs, initializer=_start, initargs=(linter.settings, digests)) as pool:
        chunk = max(1, len(paths) // (jobs * 32))  # small enough that no worker waits long at the end
        checked = pool.map(_check, [paths[i] for i in order], chunksize=chunk)  # every chunk is handed out here
        if while_waiting is not None:
            while_waiting()
        results: list[Optional[FileResult]] = [None] * len(paths)
        for index, result in zip(order, track(checked, "Checking", len(paths))):
            results[index] = result
        return results


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _start(settings: Settings, digests: bool) -> None:
    global _linter
    _linter = Checker(settings, digests=digests)


def _check(path: Path) -> FileResult:
    result = _linter.check_path(path)
    for diagnostic in result.diagnostics:
        diagnostic.site = None  # syntax nodes stay in the worker: only what the report needs travels
    if not result.diagnostics:
        result.source = result.notebook = None  # nor does the text of a clean file
    return result
