"""nanlint.config.load: discovery, [tool.nanlint] keys, errors and --config overrides, on real files."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from nanlint.catalog.tables import OP_KEYS
from nanlint.config.load import ConfigError, apply_overrides, find_config, load_settings
from nanlint.config.settings import DEFAULT_EXCLUDES, DEFAULT_FRAMEWORKS, Settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    # Messages name the file relative to the working directory.
    monkeypatch.chdir(tmp_path)


def load_pyproject(tmp_path: Path, body: str) -> tuple[Settings, list[str]]:
    path = write(tmp_path / "pyproject.toml", "[tool.nanlint]\n" + body)
    return load_settings(path)


# --- discovery -------------------------------------------------------------------------------------


def test_find_config_walks_upward_from_a_directory(tmp_path):
    config = write(tmp_path / "pyproject.toml", "[tool.nanlint]\n")
    deep = tmp_path / "src" / "pkg" / "sub"
    deep.mkdir(parents=True)
    assert find_config(deep) == config


def test_find_config_starts_from_a_files_directory(tmp_path):
    config = write(tmp_path / "pyproject.toml", "[tool.nanlint]\n")
    source = write(tmp_path / "pkg" / "mod.py", "x = 1\n")
    assert find_config(source) == config


def test_find_config_nearest_wins(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.nanlint]\n")
    inner = write(tmp_path / "sub" / "pyproject.toml", "[tool.nanlint]\n")
    assert find_config(tmp_path / "sub") == inner


def test_find_config_skips_pyproject_without_nanlint_table(tmp_path):
    outer = write(tmp_path / "pyproject.toml", "[tool.nanlint]\n")
    write(tmp_path / "sub" / "pyproject.toml", "[project]\nname = 'x'\n[tool.ruff]\nline-length = 100\n")
    assert find_config(tmp_path / "sub") == outer


@pytest.mark.parametrize("name", ["nanlint.toml", ".nanlint.toml"])
def test_find_config_finds_dedicated_file_even_when_empty(tmp_path, name):
    config = write(tmp_path / name, "")
    (tmp_path / "sub").mkdir()
    assert find_config(tmp_path / "sub") == config


def test_find_config_dedicated_file_beats_pyproject_in_same_directory(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.nanlint]\n")
    config = write(tmp_path / "nanlint.toml", "")
    assert find_config(tmp_path) == config


def test_find_config_nothing_found_inside_tree(tmp_path):
    (tmp_path / "a" / "b").mkdir(parents=True)
    found = find_config(tmp_path / "a" / "b")
    # Something above tmp_path may hold a config; nothing inside it does.
    assert found is None or tmp_path not in found.parents


def test_find_config_reports_broken_pyproject(tmp_path):
    write(tmp_path / "pyproject.toml", "[tool.nanlint\n")
    with pytest.raises(ConfigError, match=r"^pyproject\.toml: invalid TOML: "):
        find_config(tmp_path)


# --- loading ---------------------------------------------------------------------------------------


def test_every_key_is_mapped(tmp_path):
    settings, warnings = load_pyproject(
        tmp_path,
        """
select = ["NAN0"]
ignore = ["NAN002"]
extend-select = ["NAN101"]
exclude = ["generated"]
extend-exclude = ["scratch/*.py"]
force-exclude = true
respect-gitignore = false
frameworks = ["jax", "numpy"]
blanket-noqa = true
extend-select-functions = ["mylib.where"]
extend-safe-functions = ["mylib.safe_log", "other.safe_sqrt"]

[tool.nanlint.per-file-ignores]
"tests/*" = ["NAN001"]
"legacy.py" = ["ALL"]

[tool.nanlint.extend-singular-ops]
"mylib.mylog" = "log"
""",
    )
    assert warnings == []
    assert settings.select == ["NAN0"]
    assert settings.ignore == ["NAN002"]
    assert settings.extend_select == ["NAN101"]
    assert settings.per_file_ignores == {"tests/*": ["NAN001"], "legacy.py": ["ALL"]}
    assert settings.exclude == ["generated"]
    assert settings.extend_exclude == ["scratch/*.py"]
    assert settings.force_exclude is True
    assert settings.respect_gitignore is False
    assert settings.frameworks == ["jax", "numpy"]
    assert settings.blanket_noqa is True
    assert settings.extend_select_functions == ["mylib.where"]
    assert settings.extend_singular_ops == {"mylib.mylog": "log"}
    assert settings.extend_safe_functions == ["mylib.safe_log", "other.safe_sqrt"]


def test_every_key_names_a_settings_field():
    from nanlint.config.load import _KEYS

    fields = {f.name for f in dataclasses.fields(Settings)}
    assert {key.replace("-", "_") for key in _KEYS} <= fields


def test_records_project_root_and_config_path(tmp_path):
    (tmp_path / "proj").mkdir()
    config = write(tmp_path / "proj" / "pyproject.toml", "[tool.nanlint]\n")
    settings, _ = load_settings(config)
    assert settings.project_root == (tmp_path / "proj").resolve()
    assert settings.config_path == config.resolve()


def test_empty_table_gives_defaults(tmp_path):
    settings, warnings = load_pyproject(tmp_path, "")
    assert warnings == []
    assert settings.select is None
    assert settings.exclude == list(DEFAULT_EXCLUDES)
    assert settings.frameworks == list(DEFAULT_FRAMEWORKS)


def test_exclude_replaces_defaults_and_extend_exclude_adds(tmp_path):
    settings, _ = load_pyproject(tmp_path, 'extend-exclude = ["gen"]\n')
    assert settings.exclude == list(DEFAULT_EXCLUDES)
    assert settings.extend_exclude == ["gen"]
    settings, _ = load_pyproject(tmp_path, 'exclude = ["gen"]\n')
    assert settings.exclude == ["gen"]
    assert settings.extend_exclude == []


def test_nanlint_toml_top_level_is_the_table(tmp_path):
    config = write(tmp_path / "nanlint.toml", 'select = ["NAN001"]\nblanket-noqa = true\n')
    settings, warnings = load_settings(config)
    assert warnings == []
    assert settings.select == ["NAN001"]
    assert settings.blanket_noqa is True
    assert settings.project_root == tmp_path.resolve()


def test_unknown_key_is_a_warning(tmp_path):
    settings, warnings = load_pyproject(tmp_path, 'foo = 1\nselect = ["NAN001"]\n')
    assert warnings == ["pyproject.toml: unknown key `foo` in [tool.nanlint]"]
    assert settings.select == ["NAN001"]


def test_unknown_snake_case_key_suggests_kebab_case(tmp_path):
    _, warnings = load_pyproject(tmp_path, 'extend_select = ["NAN001"]\n')
    assert warnings == ["pyproject.toml: unknown key `extend_select` in [tool.nanlint] (did you mean `extend-select`?)"]


def test_unknown_key_in_nanlint_toml(tmp_path):
    _, warnings = load_settings(write(tmp_path / "nanlint.toml", "foo = 1\n"))
    assert warnings == ["nanlint.toml: unknown key `foo`"]


def test_wrong_type_names_file_and_key(tmp_path):
    with pytest.raises(ConfigError) as info:
        load_pyproject(tmp_path, 'select = "NAN001"\n')
    assert str(info.value) == "pyproject.toml: [tool.nanlint] select: expected a list of strings"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("ignore = [1]\n", "ignore: expected a list of strings"),
        ('extend-select = ["XYZ"]\n', "extend-select: unknown rule selector `XYZ`"),
        ('exclude = "build"\n', "exclude: expected a list of strings"),
        ("extend-exclude = 3\n", "extend-exclude: expected a list of strings"),
        ('force-exclude = "yes"\n', "force-exclude: expected true or false"),
        ("respect-gitignore = 1\n", "respect-gitignore: expected true or false"),
        ("blanket-noqa = []\n", "blanket-noqa: expected true or false"),
        ('frameworks = ["mxnet"]\n', "frameworks: unknown framework `mxnet`"),
        ('extend-select-functions = ["not a name"]\n', "extend-select-functions: `not a name` is not a dotted name"),
        ('extend-safe-functions = ["a..b"]\n', "extend-safe-functions: `a..b` is not a dotted name"),
        ('per-file-ignores = ["NAN001"]\n', "per-file-ignores: expected a table"),
        ('per-file-ignores = { "t/*" = "NAN001" }\n', "per-file-ignores: `t/*`: expected a list of strings"),
        ('per-file-ignores = { "t/*" = ["XYZ"] }\n', "per-file-ignores: `t/*`: unknown rule selector `XYZ`"),
        ('extend-singular-ops = ["mylib.f"]\n', "extend-singular-ops: expected a table"),
        ('extend-singular-ops = { "mylib.f" = 1 }\n', "extend-singular-ops: `mylib.f`: expected an op key string"),
        ('extend-singular-ops = { "my lib" = "log" }\n', "extend-singular-ops: `my lib` is not a dotted name"),
    ],
)
def test_bad_values_raise_naming_the_key(tmp_path, body, expected):
    with pytest.raises(ConfigError) as info:
        load_pyproject(tmp_path, body)
    message = str(info.value)
    assert message.startswith("pyproject.toml: [tool.nanlint] " + expected)
    assert "\n" not in message


def test_op_key_accepts_catalog_keys(tmp_path):
    settings, warnings = load_pyproject(tmp_path, 'extend-singular-ops = { "mylib.f" = "sqrt", "mylib.g" = "divide" }\n')
    assert warnings == []
    assert settings.extend_singular_ops == {"mylib.f": "sqrt", "mylib.g": "divide"}


@pytest.mark.parametrize("op_key", ["nope", "lgo", "not-an-op", "SQRT"])
def test_op_key_checked_against_catalog(tmp_path, op_key):
    # The message lists every key the real catalog knows, sorted.
    assert {"log", "sqrt", "divide"} <= OP_KEYS
    known = ", ".join(sorted(OP_KEYS))
    assert known.startswith("angle, arccos, arccosh, arcsin, ")
    expected = (
        f"pyproject.toml: [tool.nanlint] extend-singular-ops: `mylib.f`: unknown op key `{op_key}` (known: {known})"
    )
    with pytest.raises(ConfigError, match="^" + re.escape(expected) + "$"):
        load_pyproject(tmp_path, f'extend-singular-ops = {{ "mylib.f" = "{op_key}" }}\n')


def test_selectors_accept_all_codes_prefixes_and_names(tmp_path):
    selectors = ["ALL", "NAN", "NAN0", "NAN00", "NAN001", "NAN101", "NAN900", "where-branch-singular-op"]
    settings, warnings = load_pyproject(tmp_path, f"select = {selectors!r}\n")
    assert warnings == []
    assert settings.select == selectors


@pytest.mark.parametrize("selector", ["NAN9999", "NAN005", "foo", "E501", "where-branch"])
def test_unknown_selectors_are_rejected_by_the_registry(tmp_path, selector):
    expected = (
        f"pyproject.toml: [tool.nanlint] select: unknown rule selector `{selector}`"
        " (expected a code like NAN001, a prefix like NAN0, or a rule name)"
    )
    with pytest.raises(ConfigError, match="^" + re.escape(expected) + "$"):
        load_pyproject(tmp_path, f'select = ["{selector}"]\n')


def test_nanlint_not_a_table(tmp_path):
    config = write(tmp_path / "pyproject.toml", "[tool]\nnanlint = 1\n")
    with pytest.raises(ConfigError, match=r"^pyproject\.toml: \[tool\.nanlint\]: expected a table$"):
        load_settings(config)


def test_invalid_toml_names_file_and_parser_message(tmp_path):
    config = write(tmp_path / "nanlint.toml", 'select = ["NAN001"]\nfoo bar\n')
    with pytest.raises(ConfigError) as info:
        load_settings(config)
    message = str(info.value)
    assert message.startswith("nanlint.toml: invalid TOML: ")
    assert "line" in message
    assert "\n" not in message


def test_file_outside_cwd_is_named_by_full_path(tmp_path, monkeypatch):
    config = write(tmp_path / "proj" / "pyproject.toml", "[tool.nanlint]\nfoo = 1\n")
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    _, warnings = load_settings(config)
    assert warnings == [f"{config}: unknown key `foo` in [tool.nanlint]"]


def test_isolated_ignores_the_file(tmp_path):
    config = write(tmp_path / "pyproject.toml", '[tool.nanlint]\nselect = ["NAN001"]\nfoo = 1\n')
    settings, warnings = load_settings(config, isolated=True)
    assert warnings == []
    assert settings == Settings(project_root=settings.project_root)
    assert settings.config_path is None
    assert settings.project_root == Path.cwd()


def test_no_config_gives_defaults_rooted_at_cwd(tmp_path):
    settings, warnings = load_settings(None)
    assert warnings == []
    assert settings.config_path is None
    assert settings.project_root == Path.cwd()
    assert settings.select is None


# --- --config overrides ----------------------------------------------------------------------------


def test_overrides_replace_values_and_leave_input_alone():
    base = Settings(select=["NAN0"])
    result = apply_overrides(
        base,
        [
            "select=['NAN001']",
            "blanket-noqa = true",
            "extend-exclude=['gen']",
            """per-file-ignores={"tests/*" = ["NAN001"]}""",
        ],
    )
    assert result.select == ["NAN001"]
    assert result.blanket_noqa is True
    assert result.extend_exclude == ["gen"]
    assert result.per_file_ignores == {"tests/*": ["NAN001"]}
    assert base.select == ["NAN0"]
    assert base.blanket_noqa is False


def test_overrides_apply_in_order():
    assert apply_overrides(Settings(), ["select=['NAN0']", "select=['NAN001']"]).select == ["NAN001"]


def test_no_overrides_is_identity():
    base = Settings()
    assert apply_overrides(base, []) == base


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("select", "expected KEY=VALUE"),
        ("select=NAN001", "VALUE is TOML"),
        ("select='NAN001'", "select: expected a list of strings"),
        ("frameworks=['mxnet']", "frameworks: unknown framework `mxnet`"),
        ("foo=1", "unknown key `foo`"),
        ("extend_select=['NAN001']", "did you mean `extend-select`?"),
    ],
)
def test_bad_overrides_raise(override, expected):
    with pytest.raises(ConfigError) as info:
        apply_overrides(Settings(), [override])
    message = str(info.value)
    assert message.startswith(f"--config {override!r}: ")
    assert expected in message
    assert "\n" not in message
