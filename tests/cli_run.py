"""Running the real `nanlint` command on bytes: odd file names and encodings must survive the trip."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass
class Run:
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def out(self) -> str:
        return self.stdout.decode("utf-8", "surrogateescape")

    @property
    def err(self) -> str:
        return self.stderr.decode("utf-8", "surrogateescape")


def nanlint(*args: str, cwd: Path, stdin: Optional[bytes] = None, env: Optional[dict] = None, timeout: float = 120) -> Run:
    environment = {**os.environ, "NO_COLOR": "1", **(env or {})}
    environment.pop("NANLINT_DEBUG", None)
    proc = subprocess.run(
        [sys.executable, "-m", "nanlint", *args], cwd=cwd, input=stdin, capture_output=True, env=environment, timeout=timeout
    )
    return Run(proc.returncode, proc.stdout, proc.stderr)


def assert_one_line_errors(run: Run, expected: int = 1) -> None:
    """No traceback; each line on stderr is one of nanlint's own, and there are `expected` of them."""
    assert "Traceback" not in run.err and "Traceback" not in run.out
    lines = run.err.splitlines()
    assert len(lines) == expected, run.err
    assert all(line.startswith("nanlint: ") for line in lines), run.err
    assert "internal error" not in run.err
