from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class ClampBoundAtPole(Rule):
    """
    ## What it does
    Checks for a singular op applied to a clamp whose bound lies on the op's pole:
    `jnp.sqrt(jnp.maximum(x, 0.0))`, `x.clamp_min(0).sqrt()`, `jnp.arcsin(jnp.clip(x, -1.0, 1.0))`.

    ## Why is this bad?
    The clamp looks like a guard, but it is a select: where `x` is below the bound, the clamp outputs
    the bound. The op is then evaluated exactly at its pole, where its derivative is infinite, and
    JAX's clamps (`maximum`, `clip`) multiply the infinite cotangent that comes back by a zero mask:
    `0 * inf`, so the gradient of `x` is NaN for every clamped element. A bound strictly inside the
    op's domain avoids the pole.

    PyTorch's and TensorFlow's clamps select the cotangent instead of multiplying it (run): below the
    bound the gradient is 0, and on the bound it is infinite, and NaN once anything downstream
    multiplies it by 0. Values land exactly on the bound more often than it seems: by rounding
    (`acos(clip(z / r, -1, 1))` near the axis in float32, where the true derivative is finite) and
    at degenerate inputs (a zero discriminant, coincident points). Whether they do cannot be seen
    from the code, so these findings have medium confidence; JAX's are high.

    ## Example
    ```python
    import jax.numpy as jnp

    def hellinger(p, q):
        return jnp.sqrt(jnp.maximum(1 - (p * q).sum(-1), 0.0))
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def hellinger(p, q):
        return jnp.sqrt(jnp.maximum(1 - (p * q).sum(-1), 1e-12))
    ```
    or a double where, when the value at the pole must stay exact.

    ## Fix safety
    No automatic fix: moving the bound off the pole changes the values near it, and the right epsilon
    depends on the dtype and the model.

    ## References
    - optax `safe_norm` docstring on `jnp.maximum(jnp.linalg.norm(x), min_norm)`
    - pytorch/pytorch#10729
    """

    CODE = "NAN102"
    REPORTS = SiteKind.CLAMP_AT_POLE
    FIXABLE = False
    NAME = "clamp-bound-at-pole"
    SUMMARY = "Singular op applied to a clamp whose bound is the op's pole"
    MESSAGE = "`{op}` is evaluated at its pole wherever `{select}` clamps to {admitted}: {why}; use a bound inside the domain"
    VALID = (
        Valid("import jax.numpy as jnp\njnp.sqrt(jnp.maximum(x, 1e-12))\n"),
        Valid("import jax.numpy as jnp\njnp.log(jnp.clip(x, 1e-6, 1.0))\n"),
        Valid("import jax.numpy as jnp\njnp.sqrt(jnp.maximum(2.0, 0.0))\n"),
        # A power whose exponent the function checked to be 1 or 2 (points 101 and 103): smooth at 0.
        Valid("import jax.numpy as jnp\ndef hinge(m, p):\n    assert p in (1, 2)\n    return jnp.power(jnp.maximum(0, m), p)\n"),
        Valid("import jax.numpy as jnp\ndef hinge(m, p):\n    assert p == 1 or p == 2, 'p should be 1 or 2'\n    return jnp.power(jnp.maximum(0, m), p)\n"),
    )
    INVALID = (
        # ... but not one that may be below 1, or that an unknown `or` side may let through.
        Invalid("import jax.numpy as jnp\ndef hinge(m, p):\n    if p not in (0.5, 2):\n        raise ValueError(p)\n    return jnp.power(jnp.maximum(0, m), p)\n", line=5),
        Invalid("import jax.numpy as jnp\ndef hinge(m, p, q):\n    assert p == 1 or q\n    return jnp.power(jnp.maximum(0, m), p)\n", line=4),
        # A parameter is data whatever its name's case: `M1` is a mass, not a module constant.
        Invalid("import jax.numpy as jnp\ndef f(M1, M2):\n    return jnp.sqrt(jnp.maximum(1.0 - 4.0 * M1 * M2, 0.0))\n", line=3),
        Invalid("import jax.numpy as jnp\ny = jnp.sqrt(jnp.maximum(x, 0.0))\n", line=2),
        Invalid("import jax.numpy as jnp\ny = jnp.arcsin(jnp.clip(x, -1.0, 1.0))\n", line=2),
        Invalid("import jax.numpy as jnp\ny = jnp.log(jnp.maximum(0.0, x))\n", line=2),
        # torch and TensorFlow: infinite on the bound (not NaN below it).
        Invalid("import torch\ny = (1 - x).clamp_min(0).sqrt()\n", line=2),
        Invalid("import tensorflow as tf\ny = tf.math.log(tf.maximum(0.0, x))\n", line=2),
    )
