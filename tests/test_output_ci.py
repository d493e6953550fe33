"""The CI report formats, `gitlab` (Code Quality JSON) and `junit` (XML), fed hand-built diagnostics."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from nanlint.diagnostics import Diagnostic
from nanlint.fix.model import Location
from nanlint.fix.model import Applicability, Edit, Fix
from nanlint.report import FORMATS, render

SOURCE = """\
import jax.numpy as jnp


def f(x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)
"""
# The same function with three unrelated lines above it: the flagged line moves from 5 to 8.
SHIFTED = """\
import jax.numpy as jnp

SCALE = 2.0
OFFSET = 1.0
# a comment

def f(x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)
"""
# Same place as SOURCE, but the flagged text differs.
CHANGED = SOURCE.replace("jnp.sqrt(x)", "jnp.sqrt(y)")
TWICE = SOURCE + "\n\ndef g(x):\n    return jnp.where(x > 0, jnp.sqrt(x), 0.0)\n"

SQRT = (5, 29, 5, 40)  # `jnp.sqrt(x)` in SOURCE
MESSAGE = "`jnp.sqrt(x)` in the true branch of `jnp.where` gives NaN gradients"

# GitLab's Code Quality report: these keys, or the widget drops the issue.
GITLAB_REQUIRED = {"description", "check_name", "fingerprint", "severity"}
GITLAB_SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def diag(row: int, col: int, end_row: int, end_col: int, message: str = MESSAGE, *, code: str = "NAN001", filename: str = "model.py", **kw) -> Diagnostic:
    return Diagnostic(
        code,
        "where-branch-singular-op",
        message,
        filename=filename,
        location=Location(row, col),
        end_location=Location(end_row, end_col),
        **kw,
    )


def gitlab(diagnostics: list[Diagnostic], sources: dict[str, str]) -> list[dict]:
    return json.loads(render(diagnostics, "gitlab", sources=sources, color=False))


def junit(diagnostics: list[Diagnostic]) -> tuple[str, ET.Element]:
    text = render(diagnostics, "junit", sources={}, color=False)
    return text, ET.fromstring(text.encode("utf-8"))


def test_both_formats_are_offered():
    assert "gitlab" in FORMATS and "junit" in FORMATS


# --- gitlab ---------------------------------------------------------------------------------------


def test_gitlab_issue_has_the_keys_gitlab_requires():
    fixed = diag(
        *SQRT,
        fix=Fix(Applicability.SAFE, "Guard the input", [Edit("jnp.sqrt(jnp.where(x > 0, x, 1.0))", Location(5, 29), Location(5, 40))]),
    )
    [issue] = gitlab([fixed], {"model.py": SOURCE})
    assert GITLAB_REQUIRED <= issue.keys()
    assert issue["check_name"] == "NAN001"
    assert issue["description"] == f"NAN001 {MESSAGE}"
    assert issue["severity"] in GITLAB_SEVERITIES and issue["severity"] == "major"
    assert issue["categories"] == ["Bug Risk"]
    assert issue["location"] == {"path": "model.py", "lines": {"begin": 5, "end": 5}}
    assert isinstance(issue["fingerprint"], str) and len(issue["fingerprint"]) >= 16


def test_gitlab_multi_line_finding_spans_its_lines():
    [issue] = gitlab([diag(5, 29, 7, 2)], {"model.py": SOURCE})
    assert issue["location"]["lines"] == {"begin": 5, "end": 7}


def test_gitlab_path_is_posix_and_relative_to_the_working_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    inside = str(Path(tmp_path, "pkg", "model.py"))
    [issue] = gitlab([diag(*SQRT, filename=inside)], {inside: SOURCE})
    assert issue["location"]["path"] == "pkg/model.py"
    # The same file named relatively is the same finding to GitLab.
    [relative] = gitlab([diag(*SQRT, filename="pkg/model.py")], {"pkg/model.py": SOURCE})
    assert relative["location"]["path"] == "pkg/model.py"
    assert relative["fingerprint"] == issue["fingerprint"]


def test_gitlab_fingerprint_survives_lines_inserted_above():
    [before] = gitlab([diag(*SQRT)], {"model.py": SOURCE})
    [after] = gitlab([diag(8, 29, 8, 40)], {"model.py": SHIFTED})
    assert after["location"]["lines"]["begin"] == before["location"]["lines"]["begin"] + 3
    assert after["fingerprint"] == before["fingerprint"]


def test_gitlab_fingerprint_changes_with_the_flagged_code():
    [before] = gitlab([diag(*SQRT)], {"model.py": SOURCE})
    [changed] = gitlab([diag(*SQRT)], {"model.py": CHANGED})
    assert changed["fingerprint"] != before["fingerprint"]


def test_gitlab_fingerprint_changes_with_the_rule_and_the_file():
    [base] = gitlab([diag(*SQRT)], {"model.py": SOURCE})
    [other_rule] = gitlab([diag(*SQRT, code="NAN002")], {"model.py": SOURCE})
    [other_file] = gitlab([diag(*SQRT, filename="other.py")], {"other.py": SOURCE})
    assert len({base["fingerprint"], other_rule["fingerprint"], other_file["fingerprint"]}) == 3


def test_gitlab_identical_findings_in_one_file_get_distinct_fingerprints():
    issues = gitlab([diag(*SQRT), diag(9, 29, 9, 40)], {"model.py": TWICE})
    assert len(issues) == 2
    assert issues[0]["fingerprint"] != issues[1]["fingerprint"]
    # ... and each keeps its own when the pair moves down together.
    shifted_twice = SHIFTED + TWICE[len(SOURCE) :]
    moved = gitlab([diag(8, 29, 8, 40), diag(12, 29, 12, 40)], {"model.py": shifted_twice})
    assert [i["fingerprint"] for i in moved] == [i["fingerprint"] for i in issues]


def test_gitlab_without_findings_is_an_empty_list():
    text = render([], "gitlab", sources={}, color=False)
    assert json.loads(text) == []
    assert text.endswith("\n")


def test_gitlab_keeps_unicode_and_quotes_as_valid_json():
    message = 'ünïcödé `x` "quoted" <tag> & \\ back'
    [issue] = gitlab([diag(*SQRT, message)], {"model.py": SOURCE})
    assert issue["description"] == f"NAN001 {message}"


# --- junit ----------------------------------------------------------------------------------------


def test_junit_one_suite_per_file_with_counts():
    diagnostics = [
        diag(*SQRT, filename="a/model.py"),
        diag(9, 29, 9, 40, "second", filename="a/model.py"),
        diag(3, 5, 3, 9, "third", code="NAN002", filename="b.py"),
    ]
    text, root = junit(diagnostics)
    assert text.startswith('<?xml version="1.0" encoding="UTF-8"?>\n')
    assert root.tag == "testsuites"
    assert (root.get("name"), root.get("tests"), root.get("failures"), root.get("errors")) == ("nanlint", "3", "3", "0")
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["a/model.py", "b.py"]
    assert [(s.get("tests"), s.get("failures")) for s in suites] == [("2", "2"), ("1", "1")]
    for suite in suites:
        assert len(suite.findall("testcase")) == int(suite.get("tests"))
        assert all(case.find("failure") is not None for case in suite.findall("testcase"))


def test_junit_testcase_is_rufflike():
    _, root = junit([diag(*SQRT, filename="a/model.py")])
    case = root.find("testsuite/testcase")
    assert case.attrib == {"name": "org.nanlint.NAN001", "classname": "a/model", "line": "5", "column": "29"}
    failure = case.find("failure")
    assert failure.get("message") == MESSAGE
    assert failure.get("type") == "NAN001"
    assert failure.text == f"line 5, col 29, {MESSAGE}"


def test_junit_escapes_markup_in_messages():
    message = 'a < b && c > "d" \'e\''
    text, root = junit([diag(*SQRT, message, filename='we<i>rd&"name".py')])
    assert 'message="a &lt; b &amp;&amp; c &gt; &quot;d&quot;' in text
    suite = root.find("testsuite")
    assert suite.get("name") == 'we<i>rd&"name".py'
    failure = suite.find("testcase/failure")
    assert failure.get("message") == message
    assert failure.text == f"line 5, col 29, {message}"


def test_junit_drops_characters_xml_cannot_hold():
    _, root = junit([diag(*SQRT, "bell\x07 and nul\x00 gone; newline\nkept")])
    failure = root.find("testsuite/testcase/failure")
    assert failure.get("message") == "bell and nul gone; newline\nkept"


def test_junit_clean_run_is_one_passing_suite():
    _, root = junit([])
    assert (root.get("tests"), root.get("failures")) == ("1", "0")
    [suite] = root.findall("testsuite")
    assert (suite.get("name"), suite.get("tests"), suite.get("failures")) == ("nanlint", "1", "0")
    [case] = suite.findall("testcase")
    assert case.get("name") == "No errors found"
    assert list(case) == []


# --- through the command --------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "model.py").write_text(TWICE, encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("fmt", ["gitlab", "junit"])
def test_command_writes_the_report_and_exits_1(project, fmt):
    from click.testing import CliRunner

    from nanlint.cli import cli

    result = CliRunner().invoke(cli, ["check", "--isolated", "model.py", "--output-format", fmt, "-o", "report"])
    assert result.exit_code == 1, result.output
    text = (project / "report").read_text(encoding="utf-8")
    if fmt == "gitlab":
        issues = json.loads(text)
        assert [i["location"]["lines"]["begin"] for i in issues] == [5, 9]
        assert len({i["fingerprint"] for i in issues}) == 2
    else:
        root = ET.fromstring(text.encode("utf-8"))
        assert root.get("failures") == "2"
        assert [c.get("line") for c in root.iter("testcase")] == ["5", "9"]
