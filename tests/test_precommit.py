"""The pre-commit hooks, run for real: `pre-commit try-repo` against a clone of this repository."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_notebook, new_output

ROOT = Path(__file__).resolve().parent.parent
LEAK = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
FIXED = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> Path:
    """A clone of this repository with the working tree committed, as a user's pre-commit would fetch it."""
    clone = tmp_path_factory.mktemp("nanlint-clone")
    shutil.copytree(ROOT, clone, dirs_exist_ok=True, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.egg-info", ".pytest_cache"))
    git("init", "-q", cwd=clone)
    git("add", "-A", cwd=clone)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "snapshot", cwd=clone)
    return clone


@pytest.fixture
def project(tmp_path: Path) -> Path:
    work = tmp_path / "project"
    work.mkdir()
    git("init", "-q", cwd=work)
    (work / "model.py").write_text(LEAK)
    (work / "notes.txt").write_text("not python\n")
    git("add", "-A", cwd=work)
    return work


def write_notebook(path: Path, source: str) -> None:
    cell = new_code_cell(source, execution_count=1, outputs=[new_output("stream", name="stdout", text="trained\n")], id="train")
    nbformat.write(new_notebook(cells=[new_code_cell("%pip install jax", id="setup"), cell]), path)


def try_repo(hook_repo: Path, hook: str, cwd: Path, *files: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PRE_COMMIT_HOME": str(hook_repo.parent / "pre-commit-home"), "NO_COLOR": "1"}
    args = [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), hook, "--color", "never"]
    args += ["--files", *files] if files else ["--all-files"]
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, env=env, timeout=900)


def test_check_hook_fails_on_a_leak(hook_repo: Path, project: Path) -> None:
    proc = try_repo(hook_repo, "nanlint", project, "model.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "model.py:5:29: NAN001" in proc.stdout
    assert (project / "model.py").read_text() == LEAK


def test_fix_hook_rewrites_and_fails_then_passes(hook_repo: Path, project: Path) -> None:
    proc = try_repo(hook_repo, "nanlint-fix", project, "model.py")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "files were modified by this hook" in proc.stdout
    assert (project / "model.py").read_text() == FIXED
    git("add", "-A", cwd=project)
    again = try_repo(hook_repo, "nanlint-fix", project, "model.py")
    assert again.returncode == 0, again.stdout + again.stderr
    assert try_repo(hook_repo, "nanlint", project, "model.py").returncode == 0


def test_excluded_files_are_skipped_quietly(hook_repo: Path, project: Path) -> None:
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(LEAK)
    git("add", "-A", "-f", cwd=project)
    # pre-commit passes the excluded file explicitly; --force-exclude in the hook's entry drops it.
    proc = try_repo(hook_repo, "nanlint", project, "build/gen.py")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "no Python files" not in proc.stdout + proc.stderr


def test_hooks_check_and_fix_a_notebook(hook_repo: Path, project: Path) -> None:
    write_notebook(project / "train.ipynb", LEAK)
    git("add", "-A", cwd=project)
    proc = try_repo(hook_repo, "nanlint", project, "train.ipynb")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "train.ipynb:cell 2:5:29: NAN001" in proc.stdout
    proc = try_repo(hook_repo, "nanlint-fix", project, "train.ipynb")
    assert proc.returncode == 1 and "files were modified by this hook" in proc.stdout, proc.stdout + proc.stderr
    notebook = nbformat.read(project / "train.ipynb", as_version=4)
    assert notebook.cells[1].source == FIXED and notebook.cells[1].outputs[0].text == "trained\n"
    assert notebook.cells[0].source == "%pip install jax"
    git("add", "-A", cwd=project)
    assert try_repo(hook_repo, "nanlint", project, "train.ipynb").returncode == 0
