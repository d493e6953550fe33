"""Snapshots, as ruff keeps them: for every fixture, the rendered diagnostics and the diff of its fixes.

A change in a message, a location or a fix shows up in review as a change to `tests/snapshots/`.
Regenerate after an intended change with `NANLINT_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_snapshots.py`,
and read the diff before committing it.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SNAPSHOTS = ROOT / "tests" / "snapshots"
FIXTURES = sorted(p for p in (ROOT / "fixtures").rglob("*.py") if not p.name.endswith(".fixed.py"))
UPDATE = os.environ.get("NANLINT_UPDATE_SNAPSHOTS") == "1"


def nanlint(*args: str) -> str:
    env = {**os.environ, "NO_COLOR": "1", "COLUMNS": "120"}
    proc = subprocess.run([sys.executable, "-m", "nanlint", *args], cwd=ROOT, capture_output=True, text=True, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    return f"exit {proc.returncode}\n{proc.stdout}{proc.stderr}"


def rendered(path: Path) -> str:
    relative = path.relative_to(ROOT).as_posix()
    common = ("check", "--no-cache", "--isolated", "--select", "ALL", "--unsafe-fixes", relative)
    return (
        f"# nanlint {' '.join(common)}\n{nanlint(*common)}\n"
        f"# nanlint {' '.join(common)} --diff\n{nanlint(*common, '--diff')}"
    )


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.relative_to(ROOT / "fixtures").as_posix())
def test_snapshot(path: Path) -> None:
    snapshot = SNAPSHOTS / (path.relative_to(ROOT / "fixtures").as_posix().replace("/", "__") + ".snap")
    actual = rendered(path)
    if UPDATE or not snapshot.exists():
        snapshot.write_text(actual, encoding="utf-8", newline="\n")
        if not UPDATE:
            pytest.fail(f"new snapshot written: {snapshot.relative_to(ROOT)}; read it, then run again")
    assert actual == snapshot.read_text(encoding="utf-8"), f"{snapshot.name} differs: rerun with NANLINT_UPDATE_SNAPSHOTS=1 if intended"
