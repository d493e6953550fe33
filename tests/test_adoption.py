"""Adopting nanlint on an existing code base: --add-noqa and the baseline file."""

import json
import os
import subprocess
import sys
from pathlib import Path

LEAKS = (
    "import jax.numpy as jnp\n\n\n"
    "def f(x):\n"
    "    a = jnp.where(x > 0, jnp.sqrt(x), 0.0)  # a comment\n"
    "    b = jnp.where(x > 0, jnp.log(x) + jnp.log(x), 0.0)\n"
    "    c = jnp.where(x >= 0, jnp.sqrt(x), 0.0) + \\\n"
    "        1.0\n"
    "    return a, b, c\n"
)


def nanlint(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "nanlint", *args], cwd=cwd, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})


def test_add_noqa_silences_every_current_finding(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text(LEAKS)
    assert nanlint("check", "m.py", cwd=tmp_path).returncode == 1
    proc = nanlint("check", "--add-noqa", "m.py", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stdout.strip() == "Added 3 ignore comments."
    text = target.read_text()
    assert "    a = jnp.where(x > 0, jnp.sqrt(x), 0.0)  # a comment  # nanlint: ignore[NAN001]\n" in text
    assert "    b = jnp.where(x > 0, jnp.log(x) + jnp.log(x), 0.0)  # nanlint: ignore[NAN001]\n" in text
    # A comment cannot follow a backslash continuation: it goes on its own line above.
    assert "    # nanlint: ignore[NAN003]\n    c = jnp.where(x >= 0, jnp.sqrt(x), 0.0) + \\\n" in text
    assert nanlint("check", "m.py", cwd=tmp_path).returncode == 0
    again = nanlint("check", "--add-noqa", "m.py", cwd=tmp_path)
    assert again.stdout.strip() == "Added 0 ignore comments." and target.read_text() == text


def test_add_noqa_merges_with_an_existing_ignore(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text("import jax.numpy as jnp\ny = jnp.where(x >= 0, jnp.sqrt(x), 0.0) + jnp.where(x > 0, jnp.log(x), 0.0)  # nanlint: ignore[NAN001]\n")
    nanlint("check", "--add-noqa", "m.py", cwd=tmp_path)
    assert target.read_text().endswith("# nanlint: ignore[NAN001, NAN003]\n")


def test_baseline_reports_only_new_findings(tmp_path: Path) -> None:
    target = tmp_path / "m.py"
    target.write_text(LEAKS)
    proc = nanlint("check", "--write-baseline", "baseline.json", "m.py", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "Wrote 4 findings to baseline.json."
    data = json.loads((tmp_path / "baseline.json").read_text())
    assert data["version"] == 1 and len(data["findings"]) == 4
    assert {entry["filename"] for entry in data["findings"]} == {"m.py"}
    # Unrelated edits: lines added above, a comment changed. The old findings are still known.
    target.write_text("import os\n\n" + LEAKS.replace("# a comment", "# another comment"))
    assert nanlint("check", "--baseline", "baseline.json", "m.py", cwd=tmp_path).returncode == 0
    # A new leak is reported, and only it.
    target.write_text(target.read_text() + "\n\ndef g(x):\n    return jnp.where(x > 0, jnp.log(x), 0.0)\n")
    proc = nanlint("check", "--baseline", "baseline.json", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stdout.splitlines()[0].startswith("m.py:15:29: NAN001")
    assert proc.stdout.count("NAN00") == 1
    # A second identical leak beside a baselined one is new too.
    target.write_text(LEAKS.replace("    return a, b, c", "    d = jnp.where(x > 0, jnp.sqrt(x), 0.0)\n    return a, b, c, d"))
    proc = nanlint("check", "--baseline", "baseline.json", "--output-format", "concise", "m.py", cwd=tmp_path)
    assert proc.returncode == 1 and proc.stdout.count("NAN001") == 1


def test_baseline_from_another_directory(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "pyproject.toml").write_text("[tool.nanlint]\n")
    (tmp_path / "src" / "m.py").write_text(LEAKS)
    nanlint("check", "--write-baseline", "baseline.json", "src", cwd=tmp_path)
    assert nanlint("check", "--baseline", "../baseline.json", ".", cwd=tmp_path / "src").returncode == 0


def test_bad_baseline_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(LEAKS)
    (tmp_path / "bad.json").write_text("{not json")
    proc = nanlint("check", "--baseline", "bad.json", "m.py", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "nanlint: error: bad.json: not a nanlint baseline file"
    missing = nanlint("check", "--baseline", "nope.json", "m.py", cwd=tmp_path)
    assert missing.returncode == 2 and "cannot read baseline nope.json" in missing.stderr
