"""File discovery: real trees under tmp_path, a real `git init` where .gitignore matters."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from nanlint.config.discovery import Discovery, discover, is_excluded
from nanlint.config.settings import DEFAULT_EXCLUDES

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture(autouse=True)
def in_tmp(tmp_path, monkeypatch):
    # Relative arguments are resolved against the cwd, as on the command line.
    monkeypatch.chdir(tmp_path)


def touch(*paths: str) -> None:
    for p in paths:
        Path(p).parent.mkdir(parents=True, exist_ok=True)
        Path(p).write_text("x = 1\n")


def write(path: str, text: str) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(text)


def git_init(directory: str = ".") -> None:
    subprocess.run(["git", "init", "-q", directory], check=True)


def run(*paths: str | Path, **options) -> Discovery:
    options.setdefault("exclude", DEFAULT_EXCLUDES)
    options.setdefault("extend_exclude", ())
    options.setdefault("force_exclude", False)
    options.setdefault("respect_gitignore", True)
    options.setdefault("root", Path.cwd())
    return discover(list(paths), **options)


def names(result: Discovery) -> list[str]:
    return [p.as_posix() for p in result.files]


# --- walking ---


def test_collects_py_and_pyi_and_skips_other_files():
    touch("src/pkg/a.py", "src/pkg/b.pyi", "src/pkg/notes.txt", "src/pkg/a.pyc", "src/pkg/script")
    result = run("src")
    assert names(result) == ["src/pkg/a.py", "src/pkg/b.pyi"]
    assert result.errors == []


def test_paths_stay_as_given_sorted_and_deduplicated(tmp_path):
    touch("src/b.py", "src/a/z.py", "src/a_b.py")
    result = run("./src/", "src", "src/b.py", "src/a")
    assert names(result) == ["src/a/z.py", "src/a_b.py", "src/b.py"]
    # Absolute arguments give absolute paths.
    assert run(tmp_path / "src" / "a").files == [tmp_path / "src" / "a" / "z.py"]
    assert names(run(".")) == ["src/a/z.py", "src/a_b.py", "src/b.py"]


def test_empty_result_is_not_an_error():
    Path("empty").mkdir()
    assert run("empty") == Discovery(files=[], errors=[])


# --- exclude / extend-exclude ---


def test_default_excludes_prune_venv_build_and_site_packages():
    touch(
        "src/ok.py",
        ".venv/lib/python3.11/site-packages/dep.py",
        "build/lib/gen.py",
        "src/build/gen.py",
        "lib/site-packages/dep.py",
        "node_modules/x/y.py",
        ".git/hooks/h.py",
    )
    assert names(run(".")) == ["src/ok.py"]


def test_extend_exclude_adds_to_the_defaults():
    touch("src/ok.py", "src/generated/g.py", "src/api_pb2.py", "build/b.py")
    result = run(".", extend_exclude=["generated", "*_pb2.py"])
    assert names(result) == ["src/ok.py"]


def test_exclude_replaces_the_defaults():
    touch("src/ok.py", "build/b.py", "skip/s.py")
    assert names(run(".", exclude=["skip"])) == ["build/b.py", "src/ok.py"]


def test_glob_with_slash_is_anchored_at_the_root():
    touch("src/legacy/old.py", "src/legacy/sub/deep.py", "other/src/legacy/old.py")
    touch("tests/fixtures/f.py", "a/tests/fixtures/f.py")
    result = run(".", extend_exclude=["src/legacy/*.py", "tests/fixtures/"])
    # `*` crosses `/` (fnmatch, like ruff's globset), so deep.py goes too.
    assert names(result) == ["a/tests/fixtures/f.py", "other/src/legacy/old.py"]


def test_double_star_prefix_also_matches_at_the_top():
    touch("fixtures/f.py", "a/fixtures/f.py", "src/ok.py")
    assert names(run(".", extend_exclude=["**/fixtures"])) == ["src/ok.py"]


def test_is_excluded(tmp_path):
    root = tmp_path / "build"  # The root's own name never counts (ruff-pre-commit #69).
    assert not is_excluded(root / "src" / "a.py", DEFAULT_EXCLUDES, root)
    assert is_excluded(root / "src" / ".venv" / "lib" / "a.py", DEFAULT_EXCLUDES, root)
    assert is_excluded(root / "src" / "gen_pb2.py", ["*_pb2.py"], root)
    assert is_excluded(root / "src" / "legacy" / "x.py", ["src/legacy"], root)
    assert not is_excluded(root / "other" / "src" / "legacy" / "x.py", ["src/legacy"], root)
    # Relative paths are taken from the cwd.
    assert is_excluded(Path("build/x.py"), ["build"], tmp_path)


# --- explicit paths and force-exclude ---


def test_explicit_file_is_included_despite_exclude_and_suffix():
    touch("build/gen.py", "bin/tool", "src/a.py")
    result = run("build/gen.py", "bin/tool", "src")
    assert names(result) == ["bin/tool", "build/gen.py", "src/a.py"]


def test_explicit_excluded_directory_is_walked_without_force_exclude():
    touch("build/gen.py", "build/.venv/x.py")
    assert names(run("build")) == ["build/gen.py"]  # Only excludes below it apply.


def test_force_exclude_skips_excluded_explicit_paths_silently():
    touch("build/gen.py", "src/.venv/x.py", "src/a.py", "src/api_pb2.py")
    result = run("build/gen.py", "build", "src/.venv/x.py", "src/api_pb2.py", "src/a.py",
                 extend_exclude=["*_pb2.py"], force_exclude=True)
    assert result == Discovery(files=[Path("src/a.py")], errors=[])


# --- .gitignore ---


@needs_git
def test_gitignore_at_the_root_and_in_nested_directories():
    git_init()
    write(".gitignore", "out/\n*_gen.py\n")
    write("pkg/.gitignore", "/data/\nlocal.py\n!keep_gen.py\n")
    touch(
        "main.py",
        "out/o.py",
        "a_gen.py",
        "pkg/b.py",
        "pkg/b_gen.py",
        "pkg/keep_gen.py",  # re-included by the nested file
        "pkg/local.py",
        "pkg/sub/local.py",
        "pkg/data/d.py",  # "/data/" is anchored at pkg/
        "data/d.py",
    )
    expected = ["data/d.py", "main.py", "pkg/b.py", "pkg/keep_gen.py"]
    assert names(run(".")) == expected
    # Walking a subdirectory still honours the repository root's .gitignore.
    assert names(run("pkg")) == ["pkg/b.py", "pkg/keep_gen.py"]
    assert len(run(".", respect_gitignore=False).files) == 10


@needs_git
def test_git_info_exclude_is_honoured():
    git_init()
    write(".git/info/exclude", "scratch/\n")
    touch("scratch/s.py", "src/a.py")
    assert names(run(".")) == ["src/a.py"]


def test_gitignore_outside_a_repository_applies_to_walked_directories(tmp_path):
    if any((p / ".git").exists() for p in [tmp_path, *tmp_path.parents]):
        pytest.skip("tmp_path is inside a git repository")
    write("proj/.gitignore", "out/\n")
    touch("proj/out/o.py", "proj/a.py")
    assert names(run("proj")) == ["proj/a.py"]


@needs_git
def test_explicit_gitignored_file_is_included_unless_force_exclude():
    git_init()
    write(".gitignore", "out/\n*_gen.py\n")
    touch("out/o.py", "src/a_gen.py", "src/a.py")
    assert names(run("out/o.py", "src/a_gen.py")) == ["out/o.py", "src/a_gen.py"]
    # Like ruff, an explicitly given gitignored directory is walked.
    assert names(run("out")) == ["out/o.py"]
    forced = run("out/o.py", "out", "src/a_gen.py", "src/a.py", force_exclude=True)
    assert forced == Discovery(files=[Path("src/a.py")], errors=[])
    # Without respect_gitignore, force_exclude only applies the exclude globs.
    assert len(run("out/o.py", force_exclude=True, respect_gitignore=False).files) == 1


@needs_git
def test_nested_repository_does_not_inherit_the_outer_gitignore():
    git_init()
    write(".gitignore", "*_gen.py\n")
    git_init("vendor/lib")
    touch("vendor/lib/x_gen.py", "y_gen.py")
    assert names(run(".")) == ["vendor/lib/x_gen.py"]


# --- errors ---


def test_missing_path_is_reported_and_other_paths_still_discovered():
    touch("src/a.py")
    result = run("missing/", "src")
    assert names(result) == ["src/a.py"]
    assert result.errors == ["nanlint: path does not exist: missing/"]


def test_symlink_loop_is_reported_and_symlinked_dirs_are_followed():
    touch("src/a.py", "src/pkg/c.py", "other/b.py")
    os.symlink("..", "src/pkg/loop")  # back to src/
    os.symlink("../other", "src/linked")
    result = run("src")
    assert names(result) == ["src/a.py", "src/linked/b.py", "src/pkg/c.py"]
    assert result.errors == ["nanlint: symlink loop, not followed: src/pkg/loop"]


def test_broken_symlinks_are_reported():
    touch("src/a.py")
    os.symlink("nowhere.py", "src/dangling.py")
    os.symlink("self.py", "src/self.py")  # ELOOP: points at itself
    os.symlink("gone", "given")
    result = run("src", "given")
    assert names(result) == ["src/a.py"]
    assert sorted(result.errors) == [
        "nanlint: broken symlink: given",
        "nanlint: broken symlink: src/dangling.py",
        "nanlint: symlink loop: src/self.py",
    ]


def test_unreadable_directory_is_reported():
    touch("src/a.py", "src/secret/s.py")
    secret = Path("src/secret")
    secret.chmod(0)
    try:
        if os.access(secret, os.R_OK):
            pytest.skip("running as a user that can read any directory (root)")
        result = run("src")
    finally:
        secret.chmod(0o755)
    assert names(result) == ["src/a.py"]
    assert result.errors == ["nanlint: cannot read directory: src/secret (Permission denied)"]
