"""Run public functions of the package tree on PYTHONPATH at points where a select leaks, and print
each value and its gradient (JAX under jit + grad, TensorFlow under tf.function(jit_compile=True)) as
one JSON document. Run once on the original tree and once on the fixed copy; the test compares."""

import json
import math
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("JAX_PLATFORMS", "cpu")


def _floats(value) -> list:
    import numpy as np

    return [float(v) if math.isfinite(v) else str(v) for v in np.asarray(value, dtype=np.float64).ravel()]


def jax_cases() -> dict:
    import jax
    import jax.numpy as jnp
    from jax._src.scipy.sparse.linalg import _safe_normalize
    from jax.example_libraries.optimizers import clip_grads
    from jax.scipy.special import factorial
    from jax.scipy.stats import expon, laplace

    scalar = {
        "laplace.cdf": (laplace.cdf, [-100.0, 100.0]),
        "expon.cdf": (expon.cdf, [-200.0]),
        "factorial": (factorial, [-1.0]),
    }
    out = {"jax_file": jax.__file__}
    for name, (f, points) in scalar.items():
        grad = jax.jit(jax.grad(f))
        out[name] = {str(p): {"value": _floats(f(p)), "grad": _floats(grad(p))} for p in points}
    zeros = jnp.zeros(3)
    vector = {
        "clip_grads": lambda g: jnp.sum(clip_grads({"w": g}, 1.0)["w"]),
        "_safe_normalize": lambda g: jnp.sum(_safe_normalize(g)[0]),
    }
    for name, f in vector.items():
        out[name] = {"zeros": {"value": _floats(f(zeros)), "grad": _floats(jax.jit(jax.grad(f))(zeros))}}
    return out


def tensorflow_cases() -> dict:
    import tensorflow as tf
    from keras.src.backend.tensorflow import numpy as knp

    def value_and_grad(f, *points):
        args = [tf.constant(p, tf.float32) for p in points]

        @tf.function(jit_compile=True)
        def run(*xs):
            with tf.GradientTape() as tape:
                for x in xs:
                    tape.watch(x)
                y = tf.reduce_sum(f(*xs))
            return y, tape.gradient(y, xs)

        y, grads = run(*args)
        return {"value": _floats(y), "grad": [g for grad in grads for g in _floats(grad)]}

    return {
        "keras_file": knp.__file__,
        "sinc": {"[0, 0.5]": value_and_grad(knp.sinc, [0.0, 0.5])},
        "logaddexp2": {
            "(0, 0)": value_and_grad(knp.logaddexp2, [0.0], [0.0]),
            "(-200, 3)": value_and_grad(knp.logaddexp2, [-200.0], [3.0]),
        },
    }


if __name__ == "__main__":
    which = sys.argv[1]
    print(json.dumps(jax_cases() if which == "jax" else tensorflow_cases()))
