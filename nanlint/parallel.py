"""Checking many files on every core: one linter per worker process, results sent back without the CST.

Only plain checks run here; fixing and verification need each file's analysis in this process.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Optional

from nanlint.linter import FileResult, Linter
from nanlint.progress import track
from nanlint.settings import Settings

# Below this many files a pool costs more to start than it saves.
MIN_FILES_FOR_POOL = 16
_linter: Optional[Linter] = None


def default_jobs() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1))


def check_paths(linter: Linter, paths: list[Path], jobs: int) -> list[FileResult]:
    """Check `paths` in order, with `jobs` processes (in this one when that is 1 or the list is short)."""
    if jobs <= 1 or len(paths) < MIN_FILES_FOR_POOL:
        return [linter.check_path(path) for path in track(paths, "Checking", len(paths))]
    with ProcessPoolExecutor(max_workers=jobs, initializer=_start, initargs=(linter.settings,)) as pool:
        chunk = max(1, len(paths) // (jobs * 8))
        return list(track(pool.map(_check, paths, chunksize=chunk), "Checking", len(paths)))


def _start(settings: Settings) -> None:
    global _linter
    _linter = Linter(settings)


def _check(path: Path) -> FileResult:
    result = _linter.check_path(path)
    for diagnostic in result.diagnostics:
        diagnostic.site = None  # syntax nodes stay in the worker: only what the report needs travels
    return result
