"""File by file, compare what nanlint reports with slicing (the default) and without (`--no-slicing`):
codes, positions, messages, fix edits and applicability. Exits 1 on the first tree that differs.

    python bench/compare_paths.py ~/.cache/nanlint-bench/src/jax ~/.cache/nanlint-bench/src/keras
"""

from __future__ import annotations

import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from nanlint.check import Checker
from nanlint.config.settings import Settings

SLICED = Checker(Settings())
WHOLE = Checker(Settings(parse_whole_files=True))


def _report(result) -> list[tuple]:
    out = []
    for d in result.diagnostics:
        if d.code == "NAN900":
            continue  # reported only for code nanlint reads, and the slice reads less (docs/performance.md)
        edits = tuple((e.content, e.location, e.end_location) for e in (d.fix.edits if d.fix else []))
        out.append((d.code, d.location, d.end_location, d.message, d.fix.applicability if d.fix else None, edits))
    return sorted(out)


def _compare(path: Path) -> tuple[str, int, bool]:
    sliced, whole = SLICED.check_path(path), WHOLE.check_path(path)
    same = _report(sliced) == _report(whole) and sliced.error == whole.error
    return str(path), len(_report(whole)), same


def main() -> None:
    files = sorted(p for root in sys.argv[1:] for p in Path(root).rglob("*.py"))
    total, differing = 0, []
    with ProcessPoolExecutor() as pool:
        for path, count, same in pool.map(_compare, files, chunksize=4):
            total += count
            if not same:
                differing.append(path)
                print(f"differs: {path}", flush=True)
    print(f"{len(files)} files, {total} findings, {len(differing)} files differ")
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
