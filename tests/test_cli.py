"""The `nanlint` command, run for real as a subprocess: exit codes, formats, errors without tracebacks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

LEAK = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
CLEAN = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"


def run(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("NANLINT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "nanlint", *args], cwd=cwd, input=stdin, capture_output=True, text=True, env=env, timeout=120
    )


def assert_no_traceback(proc: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in proc.stderr and "Traceback" not in proc.stdout


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "leak.py").write_text(LEAK)
    (tmp_path / "src" / "clean.py").write_text(CLEAN)
    return tmp_path


def test_findings_exit_1_with_ruff_like_text(project: Path) -> None:
    proc = run("check", "src", cwd=project)
    assert proc.returncode == 1
    assert "src/leak.py:5:29: NAN001" in proc.stdout
    assert "^^^^^^^^^^^" in proc.stdout  # the leaking op underlined
    assert "help: Mask the argument" in proc.stdout
    # The fix, shown as ruff does under the help line.
    assert "  -     return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n" in proc.stdout
    assert "  +     return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n" in proc.stdout
    assert proc.stdout.rstrip().endswith("Found 1 finding (1 fixable with `--fix`).")
    assert "NAN001 [*]" in proc.stdout


def test_shorthand_without_check(project: Path) -> None:
    assert run("src", cwd=project).returncode == 1
    assert run("src/clean.py", cwd=project).returncode == 0


def test_default_path_is_current_directory(project: Path) -> None:
    proc = run("check", "--output-format", "concise", cwd=project)
    assert proc.returncode == 1 and "leak.py:5:29: NAN001" in proc.stdout


def test_clean_exit_0(project: Path) -> None:
    proc = run("check", "src/clean.py", cwd=project)
    assert proc.returncode == 0
    assert "All checks passed!" in proc.stdout


def test_exit_zero(project: Path) -> None:
    assert run("check", "--exit-zero", "src", cwd=project).returncode == 0


def test_json_has_ruff_fields_and_nanlint_extras(project: Path) -> None:
    proc = run("check", "--output-format", "json", "src", cwd=project)
    assert proc.returncode == 1
    [finding] = json.loads(proc.stdout)
    assert finding["code"] == "NAN001"
    assert finding["name"] == "where-branch-singular-op"
    assert finding["location"] == {"row": 5, "column": 29}
    assert finding["end_location"] == {"row": 5, "column": 40}
    assert finding["noqa_row"] == 5
    assert finding["fix"] == {
        "applicability": "safe",
        "message": "Mask the argument with an inner `jnp.where` (double where), safe value 1.0",
        "edits": [{"content": "jnp.where(x > 0, x, 1.0)", "location": {"row": 5, "column": 38}, "end_location": {"row": 5, "column": 39}}],
    }
    assert finding["url"].endswith("/NAN001")
    assert (finding["framework"], finding["op"], finding["branch"]) == ("jax", "sqrt", "true")
    assert finding["select"] == {"row": 5, "column": 12}
    assert finding["filename"].endswith("leak.py")


def test_json_names_the_select_a_finding_is_about(tmp_path: Path) -> None:
    """An op met in a select nested in the branch, reported for the outer select's condition: the
    finding's place is the op, its select the outer `where`."""
    nested = (
        "import jax.numpy as jnp\n\n\ndef f(x, c):\n    return jnp.where(\n        x == 0,\n        0.0,\n"
        "        jnp.where(c, 1.0 / x, 2.0 / x),\n    )\n"
    )
    (tmp_path / "nested.py").write_text(nested)
    proc = run("check", "--output-format", "json", "nested.py", cwd=tmp_path)
    findings = json.loads(proc.stdout)
    assert findings and {f["location"]["row"] for f in findings} == {8}
    assert {(f["select"]["row"], f["select"]["column"]) for f in findings} == {(5, 12)}


def test_json_lines_and_output_file(project: Path) -> None:
    proc = run("check", "--output-format", "json-lines", "-o", "out.jsonl", "src", cwd=project)
    assert proc.returncode == 1 and proc.stdout == ""
    lines = (project / "out.jsonl").read_text().splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["NAN001"]


def test_github_and_sarif(project: Path) -> None:
    github = run("check", "--output-format", "github", "src", cwd=project).stdout
    assert github.startswith("::error title=nanlint (NAN001),file=src/leak.py,line=5,col=29,endLine=5,endColumn=40::")
    sarif = json.loads(run("check", "--output-format", "sarif", "src", cwd=project).stdout)
    assert sarif["version"] == "2.1.0"
    assert sarif["runs"][0]["results"][0]["ruleId"] == "NAN001"


def test_statistics(project: Path) -> None:
    proc = run("check", "--statistics", "src", cwd=project)
    assert proc.returncode == 1
    assert "NAN001" in proc.stdout and "where-branch-singular-op" in proc.stdout


def test_select_and_ignore(project: Path) -> None:
    assert run("check", "--ignore", "NAN001", "src", cwd=project).returncode == 0
    assert run("check", "--select", "NAN1", "src", cwd=project).returncode == 0
    assert run("check", "--select", "where-branch-singular-op", "src", cwd=project).returncode == 1


def test_stdin(project: Path) -> None:
    proc = run("check", "-", "--stdin-filename", "model.py", "--output-format", "concise", cwd=project, stdin=LEAK)
    assert proc.returncode == 1
    assert proc.stdout.startswith("model.py:5:29: NAN001")


def test_syntax_error_is_a_finding_and_other_files_are_checked(project: Path) -> None:
    (project / "src" / "broken.py").write_text("import jax.numpy as jnp\ndef f(:\n    return jnp.where(x > 0, jnp.sqrt(x), 0)\n")
    proc = run("check", "--output-format", "concise", "src", cwd=project)
    assert proc.returncode == 1
    assert "src/broken.py:2:7: NAN900 SyntaxError" in proc.stdout
    assert "src/leak.py:5:29: NAN001" in proc.stdout
    assert_no_traceback(proc)


def test_bad_inputs_are_one_line_errors_exit_2(project: Path) -> None:
    (project / "src" / "binary.py").write_bytes(b"\x00\x01\x02")
    (project / "src" / "latin.py").write_bytes(b"# -*- coding: ascii -*-\nx = '\xe9'\n")
    proc = run("check", "--output-format", "concise", "src", "missing_dir", cwd=project)
    assert proc.returncode == 2
    errors = proc.stderr.strip().splitlines()
    assert "nanlint: path does not exist: missing_dir" in errors
    assert "nanlint: src/binary.py: binary file, not checked" in errors
    assert any(line.startswith("nanlint: src/latin.py: cannot decode") for line in errors)
    assert "src/leak.py:5:29: NAN001" in proc.stdout  # the readable files were still checked
    assert_no_traceback(proc)


def test_symlink_loop(project: Path) -> None:
    (project / "src" / "loop").symlink_to(project / "src")
    proc = run("check", "src", cwd=project)
    assert proc.returncode == 2
    assert "symlink loop" in proc.stderr
    assert_no_traceback(proc)


def test_empty_file_list_is_a_warning(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("nothing here")
    proc = run("check", ".", cwd=tmp_path)
    assert proc.returncode == 0
    assert proc.stderr.strip() == "nanlint: warning: no Python files found under the given path(s)"


def test_unknown_selector_and_bad_config_exit_2(project: Path) -> None:
    proc = run("check", "--select", "NOPE", "src", cwd=project)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "NOPE" in proc.stderr
    (project / "pyproject.toml").write_text('[tool.nanlint]\nselect = "NAN001"\n')
    proc = run("check", "src", cwd=project)
    assert proc.returncode == 2
    assert proc.stderr.strip() == "nanlint: error: pyproject.toml: [tool.nanlint] select: expected a list of strings"
    assert_no_traceback(proc)


def test_config_from_pyproject_and_isolated(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.nanlint]\nignore = ["NAN001"]\nunknown-key = 1\n')
    proc = run("check", "src", cwd=project)
    assert proc.returncode == 0
    assert "unknown key `unknown-key`" in proc.stderr
    assert run("check", "--isolated", "src", cwd=project).returncode == 1
    assert run("check", "--config", "ignore=[]", "src", cwd=project).returncode == 1


def test_per_file_ignores(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.nanlint]\nper-file-ignores = { "src/leak.py" = ["NAN0"] }\n')
    assert run("check", "src", cwd=project).returncode == 0


def test_not_differentiated_files_report_no_leak_but_still_their_syntax_errors(project: Path) -> None:
    (project / "src" / "metrics").mkdir()
    (project / "src" / "metrics" / "score.py").write_text(LEAK)
    (project / "src" / "metrics" / "broken.py").write_text("import jax.numpy as jnp\ny = jnp.where(x > 0, jnp.sqrt(x), 0.0\n")
    (project / "pyproject.toml").write_text('[tool.nanlint]\nnot-differentiated = ["src/metrics/**", "leak.py"]\n')
    proc = run("check", "--output-format", "concise", "src", cwd=project)
    # Neither the glob's files nor the one named by its file name report a leak; NAN900 still counts.
    assert [line.split(":")[0] for line in proc.stdout.splitlines() if "NAN" in line] == ["src/metrics/broken.py"]
    assert "NAN900" in proc.stdout
    shown = run("check", "--show-settings", "src", cwd=project).stdout
    assert "not-differentiated = ['src/metrics/**', 'leak.py']" in shown
    assert run("check", "--isolated", "src/metrics/score.py", cwd=project).returncode == 1


def test_excludes_and_show_files(project: Path) -> None:
    (project / ".venv").mkdir()
    (project / ".venv" / "dep.py").write_text(LEAK)
    (project / "build").mkdir()
    (project / "build" / "gen.py").write_text(LEAK)
    shown = run("check", "--show-files", ".", cwd=project).stdout.split()
    assert sorted(shown) == ["src/clean.py", "src/leak.py"]
    shown = run("check", "--show-files", "--extend-exclude", "leak.py", ".", cwd=project).stdout.split()
    assert shown == ["src/clean.py"]
    # An explicit path is checked unless --force-exclude (what pre-commit passes).
    assert run("check", "build/gen.py", cwd=project).returncode == 1
    assert run("check", "--force-exclude", "build/gen.py", cwd=project).returncode == 0


def test_gitignore_is_honoured(project: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    (project / ".gitignore").write_text("src/leak.py\n")
    assert run("check", ".", cwd=project).returncode == 0
    assert run("check", "--no-respect-gitignore", ".", cwd=project).returncode == 1


def test_rule_command(project: Path) -> None:
    proc = run("rule", "NAN003", cwd=project)
    assert proc.returncode == 0
    assert proc.stdout.startswith("# where-guard-admits-pole (NAN003)")
    for section in ("## What it does", "## Why is this bad?", "## Example", "Use instead:", "## Fix safety", "## References"):
        assert section in proc.stdout
    everything = json.loads(run("rule", "--all", "--output-format", "json", cwd=project).stdout)
    assert [r["code"] for r in everything][:2] == ["NAN001", "NAN002"]
    assert run("rule", "NAN777", cwd=project).returncode == 2


def test_version_and_help(project: Path) -> None:
    assert run("--version", cwd=project).stdout.strip() == "nanlint 0.1.0"
    assert "check" in run("--help", cwd=project).stdout


def test_linting_does_not_import_frameworks(project: Path) -> None:
    code = (
        "import sys\nfrom pathlib import Path\n"
        "from nanlint.cli import cli\nfrom nanlint.check import Checker\nfrom nanlint.config.settings import Settings\n"
        "result = Checker(Settings()).check_path(Path('src/leak.py'))\n"
        "assert [d.code for d in result.diagnostics] == ['NAN001']\n"
        "assert not {'jax', 'tensorflow', 'torch', 'numpy'} & set(sys.modules), sorted(sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=project, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_no_progress_bar_when_piped(tmp_path: Path) -> None:
    """Progress is drawn only on a terminal: pre-commit, CI and pipes get nothing extra."""
    for i in range(60):
        (tmp_path / f"m{i}.py").write_text(LEAK)
    proc = run("check", "--statistics", ".", cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr == ""
    assert proc.stdout.split() == ["60", "NAN001", "[*]", "where-branch-singular-op"]


def test_findings_are_identical_with_one_job_and_many(tmp_path: Path) -> None:
    fixtures = Path(__file__).resolve().parent.parent / "fixtures" / "check"
    for i in range(3):
        for source in fixtures.glob("*.py"):
            (tmp_path / f"{source.stem}_{i}.py").write_bytes(source.read_bytes())
    one = run("check", "--isolated", "--output-format", "json", "-j", "1", ".", cwd=tmp_path)
    many = run("check", "--isolated", "--output-format", "json", "-j", "2", ".", cwd=tmp_path)
    assert one.returncode == many.returncode == 1
    assert one.stdout == many.stdout and len(json.loads(one.stdout)) > 100
    full = run("check", "--isolated", "-j", "2", ".", cwd=tmp_path)
    assert full.stdout == run("check", "--isolated", "-j", "1", ".", cwd=tmp_path).stdout
