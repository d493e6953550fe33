from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class WhereGuardAdmitsPole(Rule):
    """
    ## What it does
    Checks for a `where` whose condition *selects* a branch at the very point where the branch's
    singular op has an infinite derivative, such as `jnp.where(x >= 0, jnp.sqrt(x), 0.0)`.

    ## Why is this bad?
    The author meant to guard the pole, but `>=` lets it through: at `x = 0` the selected branch is
    `sqrt(0)`, whose derivative is infinite. The gradient there is `inf` (or NaN after further
    arithmetic) whatever else is done, and a double where cannot help because the element is
    selected. The guard must exclude the pole.

    ## Example
    ```python
    import jax.numpy as jnp

    def f(x):
        return jnp.where(x >= 0, jnp.sqrt(x), 0.0)
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def f(x):
        return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
    ```

    ## Fix safety
    There is no automatic fix: changing `>=` to `>` changes which branch is selected at the
    boundary, and so the program's values. The author has to decide what the value at the pole
    should be.

    ## References
    - JAX FAQ: "Gradients contain NaN where using where"
    """

    CODE = "NAN003"
    REPORTS = SiteKind.POLE_ADMITTED
    FIXABLE = False
    NAME = "where-guard-admits-pole"
    SUMMARY = "The where condition selects a singular op's branch at the op's pole"
    MESSAGE = "The condition `{cond}` of `{select}` selects the {branch} branch at {admitted}, where `{op}` has a non-finite derivative; a double where cannot help, exclude the pole from the condition"
    VALID = (
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"),
        Valid("import jax.numpy as jnp\njnp.where(x < 1, jnp.log(x + 2), 0.0)\n"),
        # An interpolation lies within its table's values, here clipped to at least `tiny` (and at most
        # `finfo(...).max`, a positive number): `z` is never 0, so `z >= 0` admits no pole (point 128).
        Valid(
            "import jax.numpy as jnp\ndef f(m, ms, zs):\n    top = jnp.finfo(jnp.float32)\n"
            "    z = jnp.interp(m, ms, jnp.clip(zs, min=top.tiny, max=jnp.finfo(jnp.float32).max))\n"
            "    return jnp.where(jnp.isnan(z) | (z < 0), 0.0, jnp.log(z))\n"
        ),
        # `z < 0` admits `log`'s pole only if `z` can be 0: every store of `self.z` is positive.
        Valid(
            "import jax.numpy as jnp\nclass D:\n    def __init__(self, s):\n        self.z = jnp.exp(s)\n"
            "    def f(self):\n        return jnp.where(self.z < 0.0, 0.0, jnp.log(self.z))\n"
        ),
    )
    INVALID = (
        Invalid("import jax.numpy as jnp\njnp.where(x >= 0, jnp.sqrt(x), 0.0)\n", line=2),
        Invalid("import torch\ntorch.where(x < 0, 0.0, torch.log(x))\n", line=2),
        Invalid("import jax.numpy as jnp\njnp.where(x >= 1, jnp.arccosh(x), 0.0)\n", line=2),
        # A NaN test holds at no finite value (point 100): the log is taken at every z >= 0, 0 included.
        Invalid("import jax.numpy as jnp\njnp.where(jnp.isnan(z) | jnp.isinf(z) | (z < 0), 0.0, jnp.log(z))\n", line=2),
        # ... and what the variable can take is read where the op reads it: `x` rebound to a safe
        # value after `log(x)` was taken does not keep 0 from that `log`.
        Invalid(
            "import numpy as np\nimport tensorflow as tf\ndef softplus_inverse(x):\n    threshold = np.log(np.finfo(np.float32).eps) + 2.0\n"
            "    small, large = x < np.exp(threshold), x > -threshold\n    low = tf.math.log(x)\n"
            "    x = tf.where(small | large, tf.ones([], x.dtype), x)\n    y = x + tf.math.log(-tf.math.expm1(-x))\n"
            "    return tf.where(small, low, tf.where(large, x, y))\n",
            line=9,
        ),
        # ... but `left=0.0` puts 0 in the interpolation's range, below the table's first point.
        Invalid(
            "import jax.numpy as jnp\ndef f(m, ms, zs):\n"
            "    z = jnp.interp(m, ms, jnp.clip(zs, min=jnp.finfo(jnp.float32).tiny), left=0.0)\n"
            "    return jnp.where(jnp.isnan(z) | (z < 0), 0.0, jnp.log(z))\n",
            line=4,
        ),
    )
