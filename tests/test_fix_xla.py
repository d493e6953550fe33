"""The fixes mean what they should: under XLA, the fixed functions have finite gradients at the poles
and the same values everywhere. Real JAX (jax.jit + jax.grad) and TensorFlow (tf.function with
jit_compile=True around a GradientTape) on the CPU, on the fixture pairs in fixtures/fix/."""

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

FIX = Path(__file__).resolve().parent.parent / "fixtures" / "fix"
# The poles and domain edges of the catalog's ops, and regular points on both sides.
PROBES = np.array([-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 100.0, 200.0], dtype=np.float32)


def load(path: Path):
    spec = importlib.util.spec_from_file_location(f"fixture_{path.stem.replace('.', '_')}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def functions(module) -> dict:
    return {name: f for name, f in vars(module).items() if name.startswith("f_") and callable(f)}


def check_pair(name: str, values, grads, fixed_values, fixed_grads) -> None:
    np.testing.assert_array_equal(fixed_values, values, err_msg=f"{name}: the fix changed a value")  # NaN == NaN here
    finite = np.isfinite(grads)
    np.testing.assert_allclose(fixed_grads[finite], grads[finite], rtol=1e-6, err_msg=f"{name}: the fix changed a gradient")
    # Where the value itself is finite, the selected branch is in its domain: the gradient must be finite.
    must_be_finite = np.isfinite(fixed_values)
    assert np.isfinite(fixed_grads[must_be_finite]).all(), f"{name}: gradient still not finite at {PROBES[must_be_finite & ~np.isfinite(fixed_grads)]}"
    assert not finite.all(), f"{name}: the original has no NaN gradient at the probes; the fixture proves nothing"


@pytest.fixture(scope="module")
def jax_pairs():
    pytest.importorskip("jax")
    return load(FIX / "jax_fixes.py"), load(FIX / "jax_fixes.fixed.py")


@pytest.fixture(scope="module")
def tf_pairs():
    pytest.importorskip("tensorflow")
    return load(FIX / "tensorflow_fixes.py"), load(FIX / "tensorflow_fixes.fixed.py")


def jax_value_and_grad(f):
    import jax
    import jax.numpy as jnp

    x = jnp.asarray(PROBES)
    values = jax.jit(f)(x)
    grads = jax.jit(jax.grad(lambda v: jnp.sum(f(v))))(x)
    return np.asarray(values), np.asarray(grads)


def tf_value_and_grad(f):
    import tensorflow as tf

    @tf.function(jit_compile=True)
    def run(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
            total = tf.reduce_sum(y)
        return y, tape.gradient(total, x)

    values, grads = run(tf.constant(PROBES))
    return values.numpy(), grads.numpy()


def test_every_jax_fixture_function_is_checked(jax_pairs) -> None:
    original, fixed = jax_pairs
    assert set(functions(original)) == set(functions(fixed)) and len(functions(original)) >= 15


def test_jax_fixes_under_xla(jax_pairs) -> None:
    original, fixed = jax_pairs
    for name, f in sorted(functions(original).items()):
        check_pair(name, *jax_value_and_grad(f), *jax_value_and_grad(functions(fixed)[name]))


def test_tensorflow_fixes_under_xla(tf_pairs) -> None:
    original, fixed = tf_pairs
    assert len(functions(original)) >= 8
    for name, f in sorted(functions(original).items()):
        check_pair(name, *tf_value_and_grad(f), *tf_value_and_grad(functions(fixed)[name]))


def test_tensorflow_eager_hides_the_sqrt_leak_that_xla_shows(tf_pairs) -> None:
    """Why the harness must run XLA: the same function is NaN-free in eager mode."""
    import tensorflow as tf

    original, _ = tf_pairs
    x = tf.constant(PROBES)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(original.f_sqrt(x))
    assert np.isfinite(tape.gradient(y, x).numpy()).all()
    assert not np.isfinite(tf_value_and_grad(original.f_sqrt)[1]).all()
