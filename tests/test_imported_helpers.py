"""Straight-line helpers imported from another module of the tree are read for what they return
(issue #12: guards inside a package's own helpers): `from ..utils import sabs` with `sabs(x) =
x.abs().add_(eps)` is positive, so `1 / sabs(k).sqrt()` cannot reach its pole."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_run import nanlint

UTILS = '''\
import jax.numpy as jnp


def sabs(x, eps: float = 1e-15):
    return x.abs().add_(eps)


def save_exp(x, max_value: float = 20.0):
    """Clip, then exp."""
    x = jnp.minimum(x, max_value)
    return jnp.exp(x)


def shifted(x):
    return x + OFFSET


OFFSET = -1.0
'''

USER = """\
import torch
import jax.numpy as jnp
from ..utils import sabs, shifted
from mypkg.utils import save_exp


def tan_k(x, k):
    k_sqrt = sabs(k).sqrt()
    return torch.where(k > 0, x * k_sqrt.reciprocal(), x)


def softplus(x):
    return jnp.where(x > 30.0, x, jnp.log1p(save_exp(x)))


def other(x, k):
    return torch.where(k > 0, x / shifted(k), x)
"""


def _tree(root: Path, utils: str = UTILS) -> Path:
    (root / "mypkg" / "sub").mkdir(parents=True)
    (root / "mypkg" / "__init__.py").write_text("")
    (root / "mypkg" / "sub" / "__init__.py").write_text("")
    (root / "mypkg" / "utils.py").write_text(utils)
    user = root / "mypkg" / "sub" / "geometry.py"
    user.write_text(USER)
    return user


def _rows(root: Path, *args: str) -> list[tuple[str, int]]:
    run = nanlint("check", "--isolated", "--output-format", "json", *args, ".", cwd=root)
    assert run.returncode in (0, 1), run.err
    return [(Path(d["filename"]).name, d["location"]["row"]) for d in json.loads(run.out)]


def test_an_imported_straight_line_helper_is_read_for_its_value(tmp_path):
    _tree(tmp_path)
    # `sabs` is positive and `save_exp` at most e**20: only `shifted`, whose body reads a module
    # constant the importer does not bind, stays unknown.
    assert _rows(tmp_path) == [("geometry.py", 17)]
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


def test_a_helper_whose_module_changes_is_read_again_by_the_cached_importer(tmp_path):
    _tree(tmp_path)
    assert _rows(tmp_path) == [("geometry.py", 17)]
    # The helper stops adding its epsilon: the importer's cached result no longer holds.
    (tmp_path / "mypkg" / "utils.py").write_text(UTILS.replace("x.abs().add_(eps)", "x.abs()"))
    assert _rows(tmp_path) == [("geometry.py", 9), ("geometry.py", 9), ("geometry.py", 17)]


def test_a_helper_that_reads_an_import_the_importer_binds_otherwise_is_not_read(tmp_path):
    # In its own module `jnp` is NumPy; the importer's `jnp` is jax.numpy: its text means something else here.
    _tree(tmp_path, UTILS.replace("import jax.numpy as jnp", "import numpy as jnp"))
    assert ("geometry.py", 13) in _rows(tmp_path)
