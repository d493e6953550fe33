"""The result cache: a warm run reports what a cold one does, and anything that could change the
answer (content, configuration) makes nanlint check again."""

import json
import subprocess
import sys
from pathlib import Path

from tests.test_cli import CLEAN, LEAK, project, run  # noqa: F401  (project is a fixture)


def cache_files(root: Path) -> list[Path]:
    return sorted((root / ".nanlint_cache").glob("*.json"))


def test_a_warm_run_reports_what_the_cold_one_did(project: Path) -> None:
    cold = run("check", "src", cwd=project)
    assert len(cache_files(project)) == 1
    warm = run("check", "src", cwd=project)
    assert (warm.returncode, warm.stdout, warm.stderr) == (cold.returncode, cold.stdout, cold.stderr)
    entries = json.loads(cache_files(project)[0].read_text())
    assert len(entries) == 2


def test_changed_content_is_checked_again(project: Path) -> None:
    run("check", "src", cwd=project)
    (project / "src" / "clean.py").write_text(LEAK)
    proc = run("check", "--output-format", "concise", "src", cwd=project)
    assert "src/clean.py:5:29: NAN001" in proc.stdout


def test_a_changed_configuration_reads_another_cache(project: Path) -> None:
    run("check", "src", cwd=project)
    (project / "pyproject.toml").write_text('[tool.nanlint]\nignore = ["NAN001"]\n')
    proc = run("check", "src", cwd=project)
    assert proc.returncode == 0
    assert len(cache_files(project)) == 2


def test_no_cache_reads_and_writes_nothing(project: Path) -> None:
    proc = run("check", "--no-cache", "src", cwd=project)
    assert proc.returncode == 1
    assert not (project / ".nanlint_cache").exists()


def test_a_corrupt_cache_is_ignored_and_rewritten(project: Path) -> None:
    run("check", "src", cwd=project)
    (path,) = cache_files(project)
    path.write_text("{not json")
    proc = run("check", "--output-format", "concise", "src", cwd=project)
    assert "src/leak.py:5:29: NAN001" in proc.stdout
    json.loads(path.read_text())


def test_cache_dir_and_environment_and_clean(project: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    run("check", "--cache-dir", str(elsewhere), "src", cwd=project)
    assert len(list(elsewhere.glob("*.json"))) == 1 and (elsewhere / ".gitignore").exists()
    assert not (project / ".nanlint_cache").exists()
    proc = run("clean", "--cache-dir", str(elsewhere), cwd=project)
    assert proc.returncode == 0 and not elsewhere.exists()
    run("check", "src", cwd=project)
    proc = run("clean", cwd=project)
    assert "Removed" in proc.stdout and not (project / ".nanlint_cache").exists()
    assert "No cache" in run("clean", cwd=project).stdout


def test_an_unwritable_cache_warns_and_the_check_still_counts(project: Path) -> None:
    blocker = project / "not-a-dir"
    blocker.write_text("")
    proc = run("check", "--cache-dir", str(blocker / "cache"), "--output-format", "concise", "src", cwd=project)
    assert proc.returncode == 1
    assert "src/leak.py:5:29: NAN001" in proc.stdout
    assert "cannot write the cache" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_start_up_imports_no_parser_and_no_framework() -> None:
    code = "import sys, nanlint.cli; print(sorted(m for m in ('nanlint.analysis.detector', 'libcst', 'jax', 'tensorflow', 'torch') if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_clean_file_is_checked_without_the_detector(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text("import jax.numpy as jnp\n\ndef relu(x):\n    return jnp.where(x > 0, x, 0.0)\n")
    code = (
        "import sys\nfrom pathlib import Path\nfrom nanlint.check import Checker\nfrom nanlint.config.settings import Settings\n"
        f"assert Checker(Settings()).check_path(Path({str(tmp_path / 'm.py')!r})).diagnostics == []\n"
        "print('nanlint.analysis.detector' in sys.modules, 'libcst' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False False"


def test_version_imports_no_parser() -> None:
    code = "import sys\nfrom click.testing import CliRunner\nfrom nanlint.cli import cli\nCliRunner().invoke(cli, ['--version'])\nprint('libcst' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
