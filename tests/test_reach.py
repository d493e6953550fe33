"""Which uses take a value out of the graph (analysis/reach.py), read by the real libcst analysis."""

import textwrap

import libcst as cst
import pytest

from nanlint.analysis.analyse import analyse_whole_file
from nanlint.analysis.reach import may_receive_cotangent
from nanlint.analysis.tree import walk
from nanlint.catalog.lookup import Catalog
from nanlint.config.settings import Settings


def reaches(body: str) -> bool:
    """Whether the value of `v = jnp.sqrt(x)`, used as `body` says, may receive a cotangent."""
    source = "import jax.numpy as jnp\nimport torch\nimport tensorflow as tf\nfrom jax import lax\n"
    source += "def f(x, var, a, lst):\n    v = jnp.sqrt(x)\n" + textwrap.indent(textwrap.dedent(body), "    ")
    detector = analyse_whole_file(source, Catalog(Settings()))
    value = next(n for t in detector.trees for n in walk(t.module) if isinstance(n, cst.Call) and detector.code(n) == "jnp.sqrt(x)")
    env_at = detector._env_at
    return may_receive_cotangent(value, detector.index.scope_at(value), detector.index.parent, env_at, {})


@pytest.mark.parametrize(
    "body",
    [
        "if v.sum() > 1:\n    raise ValueError\n",
        "while v.max() > 1:\n    x = x / 2\n",
        "assert jnp.all(v >= 0)\n",
        "return x if v > 1 else -x\n",
        "return ~v, not v, v & a\n",
        "return a[v]\n",
        "return a[jnp.argmin(v * 2, axis=-1)]\n",
        "return v.shape[0] + v.dtype.itemsize\n",
        "return float(v.mean()), int(v), len(v)\n",
        "return v.item(), v.detach(), v.long(), v.astype(jnp.int32)\n",
        "return lax.stop_gradient(v) + x\n",
        "return jnp.floor(v), jnp.sign(v), tf.math.round(v)\n",  # JAX and TensorFlow send nothing back
        "var.assign(var - 0.1 * v)\n",
        "w = v * 2\nupdate = var.assign_sub(w)\nreturn tf.group(update)\n",
        "w = v * 2\nw += 0.1 * var\nreturn var.assign_sub(w)\n",  # an augmented local goes on in that local
        "w = a * 2\nw += v\nreturn var.assign_sub(w)\n",
        "return self._resource_scatter_add(var, a, tf.gather(-0.1 * v, a))\n",  # Keras 2 optimizers
        "pass\n",
        "for _ in range(3):\n    v = v * 2\nif v.sum() > 0:\n    return x\n",
        # the indices of a (values, indices) pair are integers (point 90)
        "_, i = tf.nn.top_k(v * 2, 3)\nreturn i\n",
        "return v.topk(3).indices\n",
        "_, order = torch.sort(v, dim=-1)\nreturn a[order]\n",
        "best, arg = torch.max(v, dim=1)\nreturn arg\n",
        # a read sees the bindings that reach it: after `w = w.detach()`, `w` is another value (point 154)
        "w = v * 2\nw = w.detach()\nreturn w\n",
        "w = v * 2\nif a:\n    w, _ = torch.sort(torch.cat([x, w]), -1)\nw = lax.stop_gradient(w)\nreturn w + x\n",
        # `a, b = v, w` stores each element into its own target
        "r, m = jnp.sort(v), helper(x)\nreturn m, r > 0\n",
        "w, u = x, v * 2\nreturn w\n",
    ],
)
def test_uses_that_send_no_cotangent(body: str) -> None:
    assert not reaches(body)


@pytest.mark.parametrize(
    "body",
    [
        "return v\n",
        "w = v * 2\nreturn w\n",
        "w = v * 2\nw += 0.1 * var\nreturn w\n",
        "w = a * 2\nw += v\nreturn w\n",
        "return torch.round(v)\n",  # torch sends a zero back through round: 0 * inf in the op
        "return tf.math.sign(v)\n",  # and TensorFlow through sign
        "return jnp.full_like(x, v)\n",  # the fill value carries the gradient
        "a.b = v\n",
        "lst.append(v)\n",
        "return {'v': v}\n",
        "yield v\n",
        "return lambda: v\n",
        "v.sum().backward()\n",
        "return torch.autograd.grad(v.sum(), x)\n",
        "return helper(v)\n",
        "w, u = v, x\nreturn w\n",
        "w, u = x, v * 2\nreturn u\n",
        "[w, u] = [x, v]\nreturn u\n",
        "_, i = tf.nn.top_k(v, 3)\nreturn _\n",  # the values carry it
        "a, b = jnp.sort(v)\nreturn b\n",  # JAX's sort returns one array: `b` is its second row
        "best, arg = torch.max(v)\nreturn arg\n",  # no dimension: one value, unpacked by rows
        "first, second = v.chunk(2)\nreturn second\n",
        "*rest, last = v\nreturn last\n",
        "for _ in range(3):\n    v = v * 2\nreturn v\n",
        "if v.sum() > 0:\n    return v\n",
        # ... but a binding under a branch, in a loop, or read by a function called later may be the one seen
        "w = v * 2\nif a:\n    w = w.detach()\nreturn w\n",
        "w = v * 2\nfor _ in range(3):\n    x = x + w\n    w = w.detach()\nreturn x\n",
        "w = v * 2\ng = lambda: w * 3\nr = g()\nw = w.detach()\nreturn r\n",
        "def g():\n    return w * 3\nw = v * 2\nr = g()\nw = w.detach()\nreturn r\n",
    ],
)
def test_uses_that_may_reach_a_gradient(body: str) -> None:
    assert reaches(body)


def test_module_code_is_not_answered() -> None:
    detector = analyse_whole_file("import jax.numpy as jnp\nv = jnp.sqrt(x)\nif v > 0:\n    pass\n", Catalog(Settings()))
    value = next(n for t in detector.trees for n in walk(t.module) if isinstance(n, cst.Call))
    assert may_receive_cotangent(value, detector.index.scope_at(value), detector.index.parent, detector._env_at, {})


def test_numpy_cuts_the_graph_unless_the_run_checks_it_as_differentiable() -> None:
    from nanlint.analysis.detector import _Env
    from nanlint.analysis.values import carries_gradient

    source = "import numpy as np\ndef f(x):\n    return np.sqrt(x)\n"
    for frameworks, carries in ((["jax"], False), (["jax", "numpy"], True)):
        detector = analyse_whole_file(source, Catalog(Settings(frameworks=frameworks)))
        call = next(n for t in detector.trees for n in walk(t.module) if isinstance(n, cst.Call) and detector.code(n) == "np.sqrt(x)")
        env = _Env(detector, detector.index.scope_at(call), detector.place(call))
        assert carries_gradient(call, env) is carries


def primal_in_rule(signature: str, body: str) -> bool:
    """Whether `jnp.sqrt(...)`, the last statement's value in a function `rule(signature)`, is
    computed from the primals alone (`is_primal_in_jvp_rule`: the last parameter is the tangents)."""
    from nanlint.analysis.reach import is_primal_in_jvp_rule

    source = "import jax\nimport jax.numpy as jnp\ndef scaled(x):\n    return 2 * x\n"
    source += f"def rule({signature}):\n" + textwrap.indent(textwrap.dedent(body), "    ")
    detector = analyse_whole_file(source, Catalog(Settings()))
    value = [n for t in detector.trees for n in walk(t.module) if isinstance(n, cst.Call) and detector.code(n).startswith("jnp.sqrt(")][-1]
    rule = next(n for t in detector.trees for n in walk(t.module) if isinstance(n, cst.FunctionDef) and n.name.value == "rule")
    return is_primal_in_jvp_rule(value, rule, detector._env_at(value))


@pytest.mark.parametrize(
    ("signature", "body", "primal"),
    [
        ("primals, tangents", "x, = primals\nreturn jnp.sqrt(x)\n", True),
        ("primals, tangents", "(x, y), _ = primals, tangents\nreturn jnp.sqrt(x * y)\n", True),
        ("axis, primals, tangents", "return jnp.sqrt(jnp.sum(primals[0], axis=axis))\n", True),
        ("primals, tangents", "t, = tangents\nreturn jnp.sqrt(t)\n", False),
        ("primals, tangents", "x, = primals\nreturn jnp.sqrt(x * tangents[0])\n", False),
        ("primals, tangents", "_, (t, *rest) = primals, tangents\nreturn jnp.sqrt(rest[0])\n", False),
        ("primals, tangents", "x, = primals\nfor t in tangents:\n    x = x + t\nreturn jnp.sqrt(x)\n", False),
        ("primals, tangents", "x, = primals\nx += tangents[0]\nreturn jnp.sqrt(x)\n", False),
        ("primals, tangents", "return jnp.sqrt(sum(jax.tree.map(lambda a: a * tangents[0], primals)))\n", False),
        ("*args", "return jnp.sqrt(args[0])\n", False),
        ("primals, tangents", "x, = primals\nreturn jnp.sqrt(scaled(x))\n", True),
        ("primals, tangents", "def inner():\n    return tangents[0]\nreturn jnp.sqrt(inner())\n", False),
    ],
)
def test_what_a_jvp_rule_computes_from_its_primals_alone(signature: str, body: str, primal: bool) -> None:
    assert primal_in_rule(signature, body) is primal
