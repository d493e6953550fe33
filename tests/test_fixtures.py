"""Every fixture's `# error: CODE[, CODE]` markers must match the reported findings exactly."""

import re
from collections import Counter
from pathlib import Path

import pytest

from nanlint.check import Checker
from nanlint.config.settings import Settings

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
CHECK_FIXTURES = sorted((FIXTURES / "check").glob("*.py")) + [FIXTURES / "example.py"]
MARKER = re.compile(r"#\s*error:\s*(?P<codes>NAN\d{3}(?:\s*,\s*NAN\d{3})*)")


def expected_findings(path: Path) -> Counter:
    expected: Counter = Counter()
    for row, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for code in match.group("codes").split(","):
                expected[(row, code.strip())] += 1
    return expected


@pytest.mark.parametrize("path", CHECK_FIXTURES, ids=lambda p: p.name)
def test_fixture_findings_match_markers(path: Path) -> None:
    # Every rule, the opt-in ones too: the markers say exactly what each one reports.
    result = Checker(Settings(project_root=path.parent, select=["ALL"])).check_path(path)
    assert result.error is None
    reported = Counter((d.location.row, d.code) for d in result.diagnostics)
    expected = expected_findings(path)
    missing = expected - reported
    unexpected = reported - expected
    assert not missing and not unexpected, f"missing: {sorted(missing)}\nunexpected: {sorted(unexpected)}"


def test_fixtures_exist_for_every_framework() -> None:
    names = {p.name for p in CHECK_FIXTURES}
    assert {"jax_leaks.py", "jax_clean.py", "tensorflow_leaks.py", "torch_leaks.py", "other_frameworks.py"} <= names


def test_clean_fixture_has_no_markers_and_no_findings(fixtures_dir: Path) -> None:
    clean = fixtures_dir / "check" / "jax_clean.py"
    assert not expected_findings(clean)
    assert Checker(Settings()).check_path(clean).diagnostics == []
