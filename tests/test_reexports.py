"""Array modules reached through a project's own module (issue #12, misses 5): re-exports inside the
tree being checked are followed, and the `array-modules` setting names modules outside it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli_run import assert_one_line_errors, nanlint

USE = """\
def f(x):
    return {w}(x > 0, {op}(x), 0.0)
"""


def _tree(root: Path, backend: dict[str, str]) -> None:
    (root / "mylib" / "backend").mkdir(parents=True)
    (root / "mylib" / "models").mkdir()
    for package in ("mylib", "mylib/models"):
        (root / package / "__init__.py").write_text("")
    (root / "mylib" / "backend" / "__init__.py").write_text("")
    for name, text in backend.items():
        (root / "mylib" / "backend" / name).write_text(text)


def _rows(root: Path, *args: str) -> list[tuple[str, int]]:
    run = nanlint("check", "--isolated", "--output-format", "json", *args, ".", cwd=root)
    assert run.returncode in (0, 1), run.err
    return [(Path(d["filename"]).name, d["location"]["row"]) for d in json.loads(run.out)]


@pytest.mark.parametrize(
    "backend, imports, w, op",
    [
        # A star re-export: mylib/backend/numpy.py is jax.numpy.
        ({"numpy.py": "from jax.numpy import *\n"}, "from mylib.backend import numpy as jnp\n", "jnp.where", "jnp.sqrt"),
        # The package binds the name: `import jax.numpy as numpy` in its __init__.
        ({"__init__.py": "import jax.numpy as numpy\n"}, "from mylib.backend import numpy as jnp\n", "jnp.where", "jnp.log"),
        # An assignment: `numpy = jax.numpy`.
        ({"np3.py": "import jax\nnumpy = jax.numpy\n"}, "from mylib.backend.np3 import numpy as jnp\n", "jnp.where", "jnp.log"),
        # Functions imported from the wrapper, the op beside the select, the select renamed.
        ({"numpy.py": "from jax.numpy import *\n"}, "from mylib.backend.numpy import where as w, sqrt\n", "w", "sqrt"),
        # A wrapper of a wrapper.
        (
            {"numpy.py": "from jax.numpy import *\n", "more.py": "from mylib.backend.numpy import *\n"},
            "import mylib.backend.more as jnp\n",
            "jnp.where",
            "jnp.sqrt",
        ),
    ],
)
def test_a_wrapper_in_the_tree_is_followed(tmp_path, backend, imports, w, op):
    _tree(tmp_path, backend)
    (tmp_path / "mylib" / "models" / "m.py").write_text(imports + USE.format(w=w, op=op))
    assert _rows(tmp_path) == [("m.py", len(imports.splitlines()) + 2)]
    # The slicing prefilter and the whole-file reference agree.
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


def test_a_module_that_is_no_wrapper_is_not_taken_for_one(tmp_path):
    # np3 binds `numpy` but is not itself numpy: `np3.where` is the project's own function, which
    # nanlint reads (so np3 is no backend object either).
    _tree(tmp_path, {"np3.py": "import jax\nnumpy = jax.numpy\ndef where(c, a, b):\n    return a\ndef sqrt(x):\n    return x\n"})
    (tmp_path / "mylib" / "models" / "m.py").write_text("import mylib.backend.np3 as bk\n" + USE.format(w="bk.where", op="bk.sqrt"))
    assert _rows(tmp_path) == []


BACKEND_OBJECT = """\
class NumpyBackend:
    def __getattr__(self, attr):
        return getattr(current_backend(), attr)


numpy = NumpyBackend()
"""


@pytest.mark.parametrize(
    "imports, w, op",
    [
        ("from mylib.backend.objects import numpy as jnp\n", "jnp.where", "jnp.sqrt"),
        ("import mylib.backend.objects as B\n", "B.where", "B.log"),
    ],
)
def test_a_backend_object_of_the_tree_is_read_as_an_array_namespace(tmp_path, imports, w, op):
    # Its `where` comes from a backend chosen at run time, as a relative import's does (point 89):
    # called with a condition and two branches, it selects, and its `sqrt` is the array module's.
    _tree(tmp_path, {"objects.py": BACKEND_OBJECT})
    (tmp_path / "mylib" / "models" / "m.py").write_text(imports + USE.format(w=w, op=op))
    assert _rows(tmp_path) == [("m.py", 3)]
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


@pytest.mark.parametrize(
    "backend, imports",
    [
        ({"objects.py": BACKEND_OBJECT}, "from mylib.backend.objects import numpy as jnp\n"),
        ({"numpy.py": "from jax.numpy import *\n"}, "from mylib.backend import numpy as jnp\n"),
    ],
)
def test_the_fix_through_the_projects_own_module_is_verified(tmp_path, backend, imports):
    # The fixed text is read with the imports as the original was: the harness runs JAX's functions
    # for the module's, the leak before and none after (never the project's module itself).
    _tree(tmp_path, backend)
    (tmp_path / "mylib" / "models" / "m.py").write_text(imports + USE.format(w="jnp.where", op="jnp.sqrt"))
    run = nanlint("verify", "--isolated", "--output-format", "json", ".", cwd=tmp_path, timeout=600)
    [finding] = json.loads(run.out)
    assert finding["verification"]["status"] == "verified", finding["verification"]
    assert finding["verification"]["leak_reproduced"]


def test_a_package_that_binds_its_own_where_through_a_relative_star_import_is_no_backend(tmp_path):
    # `mylib/backend/math/__init__.py` says `from .compat import *`, and compat.py defines `where`:
    # the package's own function, which nanlint reads as such (as np3's below), not a backend's.
    _tree(tmp_path, {})
    (tmp_path / "mylib" / "backend" / "math").mkdir()
    (tmp_path / "mylib" / "backend" / "math" / "__init__.py").write_text("from .compat import *\n")
    (tmp_path / "mylib" / "backend" / "math" / "compat.py").write_text("import jax.numpy as jnp\n\n\ndef where(c, a, b):\n    return a\n")
    (tmp_path / "mylib" / "models" / "m.py").write_text("import mylib.backend.math as bm\n" + USE.format(w="bm.where", op="bm.log"))
    assert _rows(tmp_path) == []
    # Without the definition, its `where` is a backend's, chosen at run time.
    (tmp_path / "mylib" / "backend" / "math" / "compat.py").write_text("import jax.numpy as jnp\n")
    assert _rows(tmp_path) == [("m.py", 3)]


def test_a_backend_object_is_read_so_in_every_function_of_the_file(tmp_path):
    # `B.where(c, x, y)` in one function says what `B` is; the clamp in another is then `B`'s too,
    # on the sliced path as on the whole-file one.
    _tree(tmp_path, {"objects.py": BACKEND_OBJECT})
    (tmp_path / "mylib" / "models" / "m.py").write_text(
        "import mylib.backend.objects as B\n\n\ndef f(x):\n    return B.where(x > 0, x, 0.0)\n\n\n"
        "def g(c):\n    return B.arccos(B.clip(c, -1.0, 1.0))\n"
    )
    assert _rows(tmp_path) == [("m.py", 9)]
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


def test_a_relative_import_called_as_a_namespace_is_one_in_every_function_of_the_file(tmp_path):
    # The same for an object the package imports relatively (point 89): `backend.where(` anywhere in
    # the file says what it is, also to a function that calls only its `clip`, on both paths.
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "m.py").write_text(
        "from .backend_context import backend\n\n\ndef f(x):\n    return backend.where(x > 0, x, 0.0)\n\n\n"
        "def g(c):\n    return backend.arccos(backend.clip(c, -1.0, 1.0))\n"
    )
    assert _rows(tmp_path) == [("m.py", 9)]
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


def test_a_module_outside_the_tree_is_no_namespace_and_a_where_of_two_arguments_no_select(tmp_path):
    # `xr.where` of a package that is not in the tree (xarray, dask) is no framework's select; and a
    # `where` given a condition and one value selects nothing.
    _tree(tmp_path, {"objects.py": BACKEND_OBJECT})
    (tmp_path / "mylib" / "models" / "m.py").write_text(
        "import xarray as xr\nfrom mylib.backend.objects import numpy as jnp\n\n\n"
        "def f(x):\n    return xr.where(x > 0, xr.sqrt(x), 0.0)\n\n\n"
        "def g(x):\n    return jnp.where(x > 0, jnp.sqrt(x))\n"
    )
    assert _rows(tmp_path) == []
    assert _rows(tmp_path, "--no-slicing") == []


FORWARDS = """\
import jax
import jax.numpy as jnp


def where(cond, /, if_true, if_false):
    \"\"\"Select.\"\"\"
    return jnp.where(cond, if_true, if_false)


def sqrt(x):
    return jnp.sqrt(x)


def log(x):
    return jnp.log(jnp.maximum(x, 1e-30))


def arctanh(x):
    return jnp.arctanh(-x)


def arcsin(x):
    return jnp.arcsin(x)


@jax.custom_jvp
def arccos(x):
    return jnp.arccos(x)


def reshape(a, /, shape, order="C"):
    return jnp.reshape(a, shape, order=order)
"""


@pytest.mark.parametrize(
    "imports, op, found",
    [
        # Point 126: a function that passes its parameters on unchanged is the one it calls.
        ("from mylib.backend import np\n", "np.sqrt", True),
        ("import mylib.backend.np as bk\n", "bk.sqrt", True),
        ("from mylib.backend.np import where, sqrt\n", "sqrt", True),
        # One that does more (a clamp), passes other arguments, or has a decorator (a custom_jvp
        # gives it its own derivative) is the project's own function.
        ("from mylib.backend import np\n", "np.log", False),
        ("from mylib.backend import np\n", "np.arcsin", True),
        ("from mylib.backend import np\n", "np.arctanh", False),
        ("from mylib.backend import np\n", "np.arccos", False),
    ],
)
def test_a_module_of_forwarding_functions_stands_for_them_one_by_one(tmp_path, imports, op, found):
    _tree(tmp_path, {"np.py": FORWARDS})
    w = "where" if imports.startswith("from mylib.backend.np") else imports.split()[-1] + ".where"
    (tmp_path / "mylib" / "models" / "m.py").write_text(imports + USE.format(w=w, op=op))
    assert _rows(tmp_path) == ([("m.py", len(imports.splitlines()) + 2)] if found else [])
    assert _rows(tmp_path, "--no-slicing") == _rows(tmp_path)


def test_a_package_directory_is_not_where_its_own_name_is_found(tmp_path):
    # Inside the package `mylib`, a module `mylib/mylib.py` does not shadow the package: the import
    # root is the directory that holds the package.
    _tree(tmp_path, {"np.py": FORWARDS})
    (tmp_path / "mylib" / "mylib.py").write_text("")
    (tmp_path / "mylib" / "models" / "m.py").write_text("from mylib.backend import np\n" + USE.format(w="np.where", op="np.sqrt"))
    assert _rows(tmp_path) == [("m.py", 3)]


def test_findings_through_a_wrapper_are_not_cached_under_the_importers_content(tmp_path):
    _tree(tmp_path, {"numpy.py": "from jax.numpy import *\n"})
    user = tmp_path / "mylib" / "models" / "m.py"
    user.write_text("from mylib.backend import numpy as jnp\n" + USE.format(w="jnp.where", op="jnp.sqrt"))
    first = nanlint("check", "--isolated", "--output-format", "concise", ".", cwd=tmp_path)
    assert first.returncode == 1
    # The wrapper stops being one: the cache entry of the unchanged importer no longer holds.
    (tmp_path / "mylib" / "backend" / "numpy.py").write_text("def where(c, a, b):\n    return a\ndef sqrt(x):\n    return x\n")
    second = nanlint("check", "--isolated", "--output-format", "concise", ".", cwd=tmp_path)
    assert second.returncode == 0, second.out


def test_the_setting_names_a_module_outside_the_tree(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.nanlint]\narray-modules = {"extlib.np" = "jax.numpy"}\n')
    (tmp_path / "m.py").write_text("import extlib.np as jnp\n" + USE.format(w="jnp.where", op="jnp.sqrt"))
    run = nanlint("check", "--output-format", "json", ".", cwd=tmp_path)
    assert [d["location"]["row"] for d in json.loads(run.out)] == [3]
    shown = nanlint("check", "--show-settings", ".", cwd=tmp_path)
    assert "array-modules = {'extlib.np': 'jax.numpy'}" in shown.out
    # Without it the module is unknown, and nothing is reported.
    assert nanlint("check", "--isolated", ".", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("value", ['{"extlib.np" = "mylib.np"}', '{"not a name" = "jax.numpy"}', '"jax.numpy"'])
def test_a_bad_array_modules_value_is_one_line(tmp_path, value):
    (tmp_path / "pyproject.toml").write_text(f"[tool.nanlint]\narray-modules = {value}\n")
    (tmp_path / "m.py").write_text("x = 1\n")
    run = nanlint("check", ".", cwd=tmp_path)
    assert run.returncode == 2
    assert_one_line_errors(run)
    assert "array-modules" in run.err


def test_a_wrapper_that_starts_re_exporting_is_seen_by_the_cached_importer(tmp_path):
    # The other way round: the importer's clean result was cached while the wrapper was no wrapper.
    _tree(tmp_path, {"numpy.py": "def where(c, a, b):\n    return a\ndef sqrt(x):\n    return x\n"})
    (tmp_path / "mylib" / "models" / "m.py").write_text("from mylib.backend import numpy as jnp\n" + USE.format(w="jnp.where", op="jnp.sqrt"))
    assert nanlint("check", "--isolated", ".", cwd=tmp_path).returncode == 0
    (tmp_path / "mylib" / "backend" / "numpy.py").write_text("from jax.numpy import *\n")
    assert nanlint("check", "--isolated", ".", cwd=tmp_path).returncode == 1
    # Nothing changed since: the cache answers, with the same finding.
    again = nanlint("check", "--isolated", "--output-format", "concise", ".", cwd=tmp_path)
    assert again.returncode == 1 and "m.py:3:" in again.out
