"""Jupyter notebooks, end to end: real `.ipynb` files (written by nbformat), read and written by the real command."""

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from nanlint.check import Checker
from nanlint.config.settings import Settings
from nanlint.diagnostics import Diagnostic
from nanlint.notebook import for_report
from nanlint.notebook.jsontext import NotebookText
from nanlint.notebook.magics import blank_magics

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "fixtures" / "notebooks"
FIXTURES = sorted(p for p in NOTEBOOKS.glob("*.ipynb") if not p.name.endswith(".fixed.ipynb"))
MARKER = re.compile(r"#\s*error:\s*(?P<codes>NAN\d{3}(?:\s*,\s*NAN\d{3})*)")
LEAK_CELL = "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"
FIXED_CELL = "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"


def run(*args: str, cwd: Path, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1"}
    env.pop("NANLINT_DEBUG", None)
    proc = subprocess.run([sys.executable, "-m", "nanlint", *args], cwd=cwd, input=stdin, capture_output=True, env=env, timeout=300)
    proc.stdout, proc.stderr = proc.stdout.decode(), proc.stderr.decode()
    assert "Traceback" not in proc.stderr
    return proc


def write_notebook(path: Path, *sources: str, outputs: bool = True) -> Path:
    """A notebook of a markdown cell, then one code cell per source, each with an output to keep."""
    cells = [new_markdown_cell("# Notes", id="notes")]
    for index, source in enumerate(sources, start=1):
        produced = [new_output("stream", name="stdout", text=f"run {index}\n")] if outputs else []
        cells.append(new_code_cell(source, execution_count=index, outputs=produced, id=f"cell-{index}", metadata={"tags": [f"t{index}"]}))
    notebook = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}})
    nbformat.write(notebook, path)
    return path


def without_sources(path: Path) -> dict:
    data = json.loads(path.read_text(encoding="utf-8-sig"))
    for cell in data["cells"]:
        cell.pop("source")
    return data


# --- the fixtures: one notebook per framework, each with a leak, a magic, a broken cell and outputs ------
def expected_findings(path: Path) -> list[tuple[int, int, str]]:
    notebook = nbformat.read(path, as_version=4)
    found = []
    for number, cell in enumerate(notebook.cells, start=1):
        for row, line in enumerate(cell.source.splitlines(), start=1):
            if cell.cell_type == "code" and (match := MARKER.search(line)):
                found += [(number, row, code.strip()) for code in match.group("codes").split(",")]
    return sorted(found)


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_fixture_findings_are_at_their_markers_cell_and_line(path: Path) -> None:
    result = Checker(Settings(project_root=ROOT)).check_path(path)
    assert result.error is None
    shown, _ = for_report(result)
    assert sorted((d.cell, d.location.row, d.code) for d in shown) == expected_findings(path)


def test_fixtures_cover_every_framework_with_a_leak_a_magic_a_broken_cell_and_outputs() -> None:
    assert {p.stem for p in FIXTURES} == {"jax_training", "tensorflow_training", "torch_training"}
    for path in FIXTURES:
        notebook = nbformat.read(path, as_version=4)
        code = [c for c in notebook.cells if c.cell_type == "code"]
        assert any(c.outputs for c in code)
        assert any(line.lstrip().startswith(("%", "!", "?")) or line.rstrip().endswith("?") for c in code for line in c.source.splitlines())
        assert {"NAN001", "NAN900"} <= {code for _, _, code in expected_findings(path)}


def test_full_output_matches_the_snapshot() -> None:
    proc = run("check", "--no-cache", *(str(p.relative_to(ROOT)) for p in FIXTURES), cwd=ROOT)
    assert proc.returncode == 1
    assert proc.stdout == (NOTEBOOKS / "expected_check.txt").read_text(encoding="utf-8")


def test_fix_writes_the_expected_notebooks_and_keeps_everything_but_the_sources(tmp_path: Path) -> None:
    for path in FIXTURES:
        shutil.copy(path, tmp_path / path.name)
    proc = run("check", "--no-cache", "--fix", "--output-format", "concise", ".", cwd=tmp_path)
    assert proc.returncode == 1  # the broken cells remain
    assert proc.stdout.count("NAN900") == 3 and "NAN001" not in proc.stdout
    for path in FIXTURES:
        fixed = tmp_path / path.name
        assert fixed.read_bytes() == path.with_name(path.stem + ".fixed.ipynb").read_bytes()
        # Outputs, execution counts, metadata, ids, key order and indentation: all as they were.
        assert without_sources(fixed) == without_sources(path)
        changed = [line for line in fixed.read_text().splitlines() if line not in path.read_text().splitlines()]
        assert len(changed) == 2 and all("jnp.where(" in line or "tf.where(" in line or "torch.where(" in line for line in changed)
    again = run("check", "--no-cache", "--fix", ".", cwd=tmp_path)
    assert "fixed" not in again.stdout  # fixing twice is fixing once
    assert [p.read_bytes() for p in sorted(tmp_path.glob("*.ipynb"))] == [
        p.with_name(p.stem + ".fixed.ipynb").read_bytes() for p in FIXTURES
    ]


def test_diff_is_per_cell_and_writes_nothing(tmp_path: Path) -> None:
    path = shutil.copy(NOTEBOOKS / "jax_training.ipynb", tmp_path)
    proc = run("check", "--no-cache", "--diff", "jax_training.ipynb", cwd=tmp_path)
    assert proc.returncode == 1
    assert Path(path).read_bytes() == (NOTEBOOKS / "jax_training.ipynb").read_bytes()
    assert proc.stdout.startswith("--- a/jax_training.ipynb:cell 3\n+++ b/jax_training.ipynb:cell 3\n@@ -1,5 +1,5 @@\n")
    assert "--- a/jax_training.ipynb:cell 6\n" in proc.stdout
    assert " %timeit safe_norm(jnp.ones(3))\n" in proc.stdout  # the magic, unchanged, as context


# --- every output format names the cell ------------------------------------------------------------
@pytest.fixture
def leaky(tmp_path: Path) -> Path:
    write_notebook(tmp_path / "train.ipynb", "import jax.numpy as jnp\n%matplotlib inline", "x = 1\n" + LEAK_CELL)
    return tmp_path


def test_text_and_json_name_the_cell_and_the_line_in_it(leaky: Path) -> None:
    concise = run("check", "--output-format", "concise", "train.ipynb", cwd=leaky)
    assert concise.stdout.startswith("train.ipynb:cell 3:3:29: NAN001 [*] ")
    [finding] = json.loads(run("check", "--output-format", "json", "train.ipynb", cwd=leaky).stdout)
    assert finding["cell"] == 3 and finding["location"] == {"row": 3, "column": 29} and finding["noqa_row"] == 3
    assert finding["select"] == {"row": 3, "column": 12}
    assert finding["fix"]["edits"] == [
        {"content": "jnp.where(x > 0, x, 1.0)", "cell": 3, "location": {"row": 3, "column": 38}, "end_location": {"row": 3, "column": 39}}
    ]
    assert Diagnostic.from_json(finding).to_json() == finding  # the cache stores this JSON
    [line] = run("check", "--output-format", "json-lines", "train.ipynb", cwd=leaky).stdout.splitlines()
    assert json.loads(line)["cell"] == 3


def test_ci_formats_point_at_the_line_of_the_notebooks_json(leaky: Path) -> None:
    raw_lines = (leaky / "train.ipynb").read_text().splitlines()

    def flagged(line: int, column: int) -> str:
        return raw_lines[line - 1][column - 1 :]

    github = run("check", "--output-format", "github", "train.ipynb", cwd=leaky).stdout
    match = re.match(r"::error title=nanlint \(NAN001\),file=train.ipynb,line=(\d+),col=(\d+),endLine=\d+,endColumn=\d+::cell 3:3:29: NAN001 ", github)
    assert match and flagged(int(match[1]), int(match[2])).startswith("jnp.sqrt(x), 0.0)")
    [issue] = json.loads(run("check", "--output-format", "gitlab", "train.ipynb", cwd=leaky).stdout)
    assert issue["description"].startswith("cell 3:3:29: NAN001") and issue["location"]["lines"]["begin"] == int(match[1])
    sarif = json.loads(run("check", "--output-format", "sarif", "train.ipynb", cwd=leaky).stdout)
    [result] = sarif["runs"][0]["results"]
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (int(match[1]), int(match[2]))
    assert result["message"]["text"].startswith("cell 3:3:29: ") and result["properties"]["cell"] == 3
    assert "fixes" not in result  # its replacements would have to be written as JSON
    junit = run("check", "--output-format", "junit", "train.ipynb", cwd=leaky).stdout
    assert f'line="{match[1]}" column="{match[2]}"' in junit and ">cell 3, line 3, col 29, " in junit


# --- reading: magics, cell order, broken cells, bad files ----------------------------------------------
@pytest.mark.parametrize(
    "cell, blanked",
    [
        ("%timeit f(x)\ny = 1", "pass\ny = 1"),
        ("for i in range(3):\n    %time f(i)\nz = 2", "for i in range(3):\n    pass\nz = 2"),
        ("!pip install jax\nfiles = !ls\nx = %time f()", "pass\npass\npass"),
        ("?jnp.where\njnp.where??\nf?  # help", "pass\npass\npass"),
        ("/f x\n,g a b\n;h a", "pass\npass\npass"),
        ("pip install torch\ncd ..\nls -la\ntime = (1,\n  2)", "pass\npass\nls -la\ntime = (1,\n  2)"),
        ("%timeit -n 3 \\\n   f(x)\ny = 1", "pass\n\ny = 1"),
        ("%%capture out\nimport jax\n", "pass\nimport jax\n"),
        ("%%bash\necho where(x)\nls\n", "\n\n\n"),
        # Not IPython: `%` inside brackets is the operator, and strings and comments are text.
        ("x = (a\n     % b)", "x = (a\n     % b)"),
        ('s = """\n%not a magic\n!nor this\n"""\n%magic', 's = """\n%not a magic\n!nor this\n"""\npass'),
        ("x = 1  # what?\nprint('a?')", "x = 1  # what?\nprint('a?')"),
        ("x\r\n%ls\r\n", "x\r\npass\r\n"),
    ],
)
def test_ipython_syntax_is_blanked_line_for_line(cell: str, blanked: str) -> None:
    assert blank_magics(cell) == blanked


def test_imports_in_other_code_cells_count_and_markdown_does_not(tmp_path: Path) -> None:
    write_notebook(tmp_path / "imported.ipynb", "import jax.numpy as jnp", LEAK_CELL)
    markdown = new_notebook(cells=[new_markdown_cell("import jax.numpy as jnp"), new_code_cell(LEAK_CELL)])
    nbformat.write(markdown, tmp_path / "markdown.ipynb")
    proc = run("check", "--output-format", "concise", ".", cwd=tmp_path)
    assert "imported.ipynb:cell 3:2:29: NAN001" in proc.stdout
    assert "markdown.ipynb" not in proc.stdout


def test_a_broken_cell_is_one_finding_and_the_other_cells_are_checked(tmp_path: Path) -> None:
    write_notebook(tmp_path / "nb.ipynb", "import jax.numpy as jnp", "def g(:\n    pass", LEAK_CELL, "y = (")
    proc = run("check", "--output-format", "concise", "nb.ipynb", cwd=tmp_path)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("nb.ipynb:cell 3:1:7: NAN900 SyntaxError")
    assert lines[1].startswith("nb.ipynb:cell 4:2:29: NAN001")
    assert lines[2].startswith("nb.ipynb:cell 5:1:5: NAN900 SyntaxError")
    fixed = run("check", "--fix", "nb.ipynb", cwd=tmp_path)
    assert fixed.returncode == 1
    cells = nbformat.read(tmp_path / "nb.ipynb", as_version=4).cells
    assert [c.source for c in cells[1:]] == ["import jax.numpy as jnp", "def g(:\n    pass", FIXED_CELL, "y = ("]


def test_files_that_are_not_notebooks_are_one_line_errors_and_the_rest_is_checked(leaky: Path) -> None:
    (leaky / "text.ipynb").write_text("print('not json')\n")
    (leaky / "list.ipynb").write_text("[]\n")
    (leaky / "old.ipynb").write_text('{"nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": []}\n')
    (leaky / "latin.ipynb").write_bytes(b'{"cells": "\xe9"}')
    proc = run("check", "--output-format", "concise", ".", cwd=leaky)
    assert proc.returncode == 2
    errors = proc.stderr.splitlines()
    assert len(errors) == 4
    assert errors[0].startswith("nanlint: latin.ipynb: cannot decode: ")
    assert errors[1].startswith("nanlint: list.ipynb: not a Jupyter notebook: ")
    assert errors[2].startswith("nanlint: old.ipynb: nbformat 3 notebooks are not supported")
    assert errors[3].startswith("nanlint: text.ipynb: not a Jupyter notebook: Notebook does not appear to be JSON")
    assert "train.ipynb:cell 3:3:29: NAN001" in proc.stdout


def test_a_notebook_in_another_language_holds_nothing_to_check(tmp_path: Path) -> None:
    path = write_notebook(tmp_path / "r.ipynb", "import jax.numpy as jnp\n" + LEAK_CELL)
    data = json.loads(path.read_text())
    data["metadata"]["kernelspec"]["language"] = "R"
    path.write_text(json.dumps(data))
    assert run("check", "r.ipynb", cwd=tmp_path).returncode == 0


# --- writing: only the changed cells' source, whatever the file's layout ---------------------------
def layouts(data: dict) -> dict[str, bytes]:
    """The same notebook as different tools write it."""
    one_string = json.loads(json.dumps(data))
    for cell in one_string["cells"]:
        cell["source"] = "".join(cell["source"])
    jupyter = json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    return {
        "jupyter": jupyter.encode(),
        "colab": json.dumps(data, indent=2).encode(),  # keys as they came, \u escapes, no final newline
        "compact": json.dumps(data).encode(),
        "one_string": json.dumps(one_string, indent=4, ensure_ascii=False).encode(),
        "crlf": jupyter.replace("\n", "\r\n").encode(),
        "bom": b"\xef\xbb\xbf" + jupyter.encode(),
    }


NOTEBOOK = {
    "nbformat": 4,
    "nbformat_minor": 5,
    "metadata": {"colab": {"name": "café"}, "kernelspec": {"name": "python3", "display_name": "P", "language": "python"}},
    "cells": [
        {"cell_type": "markdown", "id": "m", "metadata": {}, "source": ["# Ünïcode"]},
        {
            "cell_type": "code", "id": "c", "execution_count": 7, "metadata": {"tags": ["x"]},
            "outputs": [{"name": "stdout", "output_type": "stream", "text": ["    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"]}],
            "source": ["import jax.numpy as jnp  # café\n", "def f(x):\n", "    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n", "%timeit f(1.0)"],
        },
    ],
}


@pytest.mark.parametrize("layout", list(layouts(NOTEBOOK)))
def test_fixing_changes_only_the_flagged_text_in_every_layout(layout: str, tmp_path: Path) -> None:
    before = layouts(NOTEBOOK)[layout]
    path = tmp_path / "nb.ipynb"
    path.write_bytes(before)
    assert run("check", "--fix", "nb.ipynb", cwd=tmp_path).returncode == 0
    # The last occurrence is the source's; the output before it quotes the same line and must stay.
    head, _, tail = before.rpartition(b"jnp.sqrt(x), 0.0)")
    assert path.read_bytes() == head + b"jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)" + tail


def test_an_unchanged_notebook_round_trips_byte_for_byte() -> None:
    for layout in layouts(NOTEBOOK).values():
        text = NotebookText(layout.decode("utf-8-sig"))
        same = {1: "".join(NOTEBOOK["cells"][1]["source"])}
        assert text.with_sources({}) == text.raw and text.with_sources(same) == text.raw


def test_a_notebook_without_fixable_findings_is_not_rewritten(tmp_path: Path) -> None:
    path = shutil.copy(NOTEBOOKS / "jax_training.fixed.ipynb", tmp_path / "nb.ipynb")
    os.utime(path, (0, 0))
    run("check", "--fix", "nb.ipynb", cwd=tmp_path)
    assert os.stat(path).st_mtime == 0


def test_hoisting_adds_a_line_to_its_own_cell(tmp_path: Path) -> None:
    random = "def f(x):\n    return jnp.where(jax.random.uniform(jax.random.PRNGKey(0), x.shape) > 0.5, jnp.log(x), 0.0)\n"
    write_notebook(tmp_path / "nb.ipynb", "import jax\nimport jax.numpy as jnp\n%load_ext autoreload", random, "%time f(1.0)\n" + LEAK_CELL)
    run("check", "--fix", "--unsafe-fixes", "nb.ipynb", cwd=tmp_path)
    cells = nbformat.read(tmp_path / "nb.ipynb", as_version=4).cells
    assert cells[2].source == (
        "def f(x):\n    ok = jax.random.uniform(jax.random.PRNGKey(0), x.shape) > 0.5\n"
        "    return jnp.where(ok, jnp.log(jnp.where(ok, x, 1.0)), 0.0)\n"
    )
    assert cells[3].source == "%time f(1.0)\n" + FIXED_CELL
    assert cells[1].source == "import jax\nimport jax.numpy as jnp\n%load_ext autoreload"
    assert [c.outputs[0].text for c in cells[1:]] == ["run 1\n", "run 2\n", "run 3\n"]


def test_a_top_level_await_does_not_stop_a_fix(tmp_path: Path) -> None:
    # IPython runs a top-level `await`: the compiler that checks every fix accepts it too.
    write_notebook(tmp_path / "nb.ipynb", "import asyncio\nimport jax.numpy as jnp\nawait asyncio.sleep(0)", LEAK_CELL)
    proc = run("check", "--fix", "nb.ipynb", cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == ""
    cells = nbformat.read(tmp_path / "nb.ipynb", as_version=4).cells
    assert cells[1].source == "import asyncio\nimport jax.numpy as jnp\nawait asyncio.sleep(0)"
    assert cells[2].source == FIXED_CELL


def test_stdin_notebook_is_checked_and_fixed_to_stdout(leaky: Path) -> None:
    raw = (leaky / "train.ipynb").read_bytes()
    proc = run("check", "-", "--stdin-filename", "train.ipynb", "--output-format", "concise", cwd=leaky, stdin=raw)
    assert proc.stdout.startswith("train.ipynb:cell 3:3:29: NAN001")
    fixed = run("check", "--fix", "-", "--stdin-filename", "train.ipynb", cwd=leaky, stdin=raw)
    assert json.loads(fixed.stdout)["cells"][2]["source"][-2:] == FIXED_CELL.splitlines(keepends=True)


# --- the rest applies as usual -------------------------------------------------------------------
def test_suppression_comments_work_inside_cells(tmp_path: Path) -> None:
    write_notebook(
        tmp_path / "nb.ipynb",
        "import jax.numpy as jnp",
        LEAK_CELL.replace("0.0)\n", "0.0)  # noqa: NAN001\n"),
        LEAK_CELL.replace("def f", "# nanlint: ignore[where-branch-singular-op]\ndef g").replace("    return", "    # nanlint: ignore[NAN001]\n    return"),
    )
    assert run("check", "nb.ipynb", cwd=tmp_path).returncode == 0


def test_add_noqa_comments_cells_and_keeps_the_rest(leaky: Path) -> None:
    before = without_sources(leaky / "train.ipynb")
    proc = run("check", "--add-noqa", "train.ipynb", cwd=leaky)
    assert proc.stdout.strip() == "Added 1 ignore comment."
    cells = nbformat.read(leaky / "train.ipynb", as_version=4).cells
    assert cells[2].source.splitlines()[2].endswith("0.0)  # nanlint: ignore[NAN001]")
    assert without_sources(leaky / "train.ipynb") == before
    assert run("check", "train.ipynb", cwd=leaky).returncode == 0


def test_baseline_fingerprints_survive_a_new_cell_above(leaky: Path) -> None:
    assert run("check", "--write-baseline", "baseline.json", "train.ipynb", cwd=leaky).returncode == 0
    notebook = nbformat.read(leaky / "train.ipynb", as_version=4)
    notebook.cells.insert(0, new_code_cell("print('a new first cell')"))
    nbformat.write(notebook, leaky / "train.ipynb")
    proc = run("check", "--baseline", "baseline.json", "--output-format", "concise", "train.ipynb", cwd=leaky)
    assert proc.returncode == 0, proc.stdout


def test_cache_and_jobs_report_what_a_cold_single_process_run_does(tmp_path: Path) -> None:
    for index in range(20):  # enough files for the process pool
        write_notebook(tmp_path / f"nb{index:02}.ipynb", "import jax.numpy as jnp", LEAK_CELL, "def g(:")
    cold = run("check", "--no-cache", "-j", "1", ".", cwd=tmp_path)
    pooled = run("check", "-j", "2", ".", cwd=tmp_path)
    warm = run("check", "-j", "2", ".", cwd=tmp_path)
    assert cold.stdout == pooled.stdout == warm.stdout and cold.returncode == warm.returncode == 1
    assert "nb19.ipynb:cell 3:2:29: NAN001" in warm.stdout and "nb19.ipynb:cell 4:1:7: NAN900" in warm.stdout
    [cache] = (tmp_path / ".nanlint_cache").glob("*.json")
    assert len([key for key in json.loads(cache.read_text()) if key.endswith(".ipynb")]) == 20


def test_verify_proves_a_notebooks_fix_under_xla(tmp_path: Path) -> None:
    pytest.importorskip("jax")
    shutil.copy(NOTEBOOKS / "jax_training.ipynb", tmp_path)
    proc = run("verify", "--output-format", "json", "jax_training.ipynb", cwd=tmp_path)
    findings = json.loads(proc.stdout)
    assert [(f["cell"], f["code"], (f.get("verification") or {}).get("status")) for f in findings] == [
        (3, "NAN001", "verified"), (5, "NAN900", None), (6, "NAN001", "verified"),
    ]
    assert proc.returncode == 0


# --- discovery and start-up ------------------------------------------------------------------------
def test_notebooks_are_found_under_the_include_and_exclude_rules(leaky: Path) -> None:
    (leaky / ".ipynb_checkpoints").mkdir()
    shutil.copy(leaky / "train.ipynb", leaky / ".ipynb_checkpoints" / "train-checkpoint.ipynb")
    (leaky / "model.py").write_text("x = 1\n")
    assert run("check", "--show-files", ".", cwd=leaky).stdout.split() == ["model.py", "train.ipynb"]
    only_python = run("check", "--show-files", "--config", "include=['*.py']", ".", cwd=leaky)
    assert only_python.stdout.split() == ["model.py"]
    excluded = run("check", "--show-files", "--extend-exclude", "*.ipynb", ".", cwd=leaky)
    assert excluded.stdout.split() == ["model.py"]
    assert run("check", "--show-files", "--config", "extend-include=['*.pyw']", ".", cwd=leaky).stdout.split() == ["model.py", "train.ipynb"]


def test_nbformat_is_imported_only_when_a_notebook_is_read(leaky: Path) -> None:
    (leaky / "model.py").write_text("import jax.numpy as jnp\n\n" + LEAK_CELL)
    code = (
        "import sys\nfrom pathlib import Path\nfrom nanlint.cli import cli\nfrom nanlint.check import Checker\n"
        "from nanlint.config.settings import Settings\n"
        "assert Checker(Settings()).check_path(Path('model.py')).diagnostics\n"
        "assert 'nbformat' not in sys.modules\n"
        "assert Checker(Settings()).check_path(Path('train.ipynb')).diagnostics\n"
        "assert 'nbformat' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=leaky, check=True)
    version = subprocess.run([sys.executable, "-X", "importtime", "-m", "nanlint", "--version"], capture_output=True, text=True, check=True)
    assert "nbformat" not in version.stderr
