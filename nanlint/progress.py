"""A progress bar for runs that take more than a moment, on a terminal only.

Nothing is drawn in pre-commit, CI or piped output: stderr must be a TTY and CI unset.
"""

from __future__ import annotations

import os
import sys
from contextlib import contextmanager
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")
MIN_ITEMS = 50


def interactive() -> bool:
    return sys.stderr.isatty() and not os.environ.get("CI") and os.environ.get("TERM") != "dumb"


def track(items: Iterable[T], description: str, total: int) -> Iterable[T]:
    """`items` as they come, with a bar on a terminal when there are enough of them to wait for."""
    if total < MIN_ITEMS or not interactive():
        return items
    from rich.console import Console
    from rich.progress import track as rich_track

    return rich_track(items, description=description, total=total, console=Console(stderr=True), transient=True)


@contextmanager
def status(message: str) -> Iterator[None]:
    """A spinner while something slow and indivisible runs (the verification worker)."""
    if not interactive():
        yield
        return
    from rich.console import Console

    with Console(stderr=True).status(message):
        yield
