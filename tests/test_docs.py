"""Docs that are generated must be current; docs that are written must name every rule."""

from pathlib import Path

from nanlint.docgen import pages
from nanlint.rules import RULES

ROOT = Path(__file__).resolve().parent.parent


def test_rule_pages_are_current() -> None:
    for name, text in pages().items():
        page = ROOT / "docs" / "rules" / name
        assert page.is_file(), f"docs/rules/{name} is missing: run `python -m nanlint.docgen`"
        assert page.read_text(encoding="utf-8") == text, f"docs/rules/{name} is stale: run `python -m nanlint.docgen`"


def test_no_stray_rule_pages() -> None:
    assert {p.name for p in (ROOT / "docs" / "rules").glob("*.md")} == set(pages())


def test_readme_lists_every_rule() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert rule.CODE in readme and rule.NAME in readme, rule.CODE
