from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class SingularOpUnderUnrelatedCondition(Rule):
    """
    ## What it does
    Checks for a singular op in a `where`/`select` branch whose condition says nothing about the op's
    argument: `jnp.where(mask, jnp.log(p), 0.0)`. Off by default (`--extend-select NAN401`).

    ## Why is this bad?
    Where `mask` is false and `p` is 0 at the same element, the unselected `log(p)` has an infinite
    derivative and the gradient of `p` is NaN, exactly as in NAN001. Whether that can happen depends on
    how `mask` and `p` are related, which nanlint cannot see: masks often mark padding whose values
    are zero, but the op's argument is also often positive by construction (a scale, a count). This
    rule reports every such site, for an audit; NAN001 reports the ones whose condition guards the
    argument itself.

    ## Example
    ```python
    import jax.numpy as jnp

    def masked_log_likelihood(p, mask):
        return jnp.sum(jnp.where(mask, jnp.log(p), 0.0))
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def masked_log_likelihood(p, mask):
        return jnp.sum(jnp.where(mask, jnp.log(jnp.where(mask, p, 1.0)), 0.0))
    ```

    ## Fix safety
    The same double where as NAN001, with the same condition: it never changes a selected value, so it
    is safe when the condition is pure, and unsafe when the condition must be hoisted.

    ## References
    - JAX FAQ: "Gradients contain NaN where using where"
    - pytorch/pytorch#23395
    """

    CODE = "NAN401"
    REPORTS = SiteKind.UNRELATED_CONDITION
    FIXABLE = True
    NAME = "singular-op-under-unrelated-condition"
    SUMMARY = "Singular op in a where/select branch whose condition does not mention its argument"
    MESSAGE = "`{op}` in the {branch} branch of `{select}` gives NaN gradients where that branch is not selected and its argument is at the pole: {why}"
    FIX_TITLE = "Mask the argument with an inner `{select}` (double where), safe value {safe}"
    DEFAULT_ENABLED = False
    VALID = (
        Valid("import jax.numpy as jnp\njnp.where(mask, jnp.log(jnp.where(mask, p, 1.0)), 0.0)\n"),
        Valid("import jax.numpy as jnp\njnp.where(p > 0, jnp.log(p), 0.0)\n"),
    )
    INVALID = (
        Invalid("import jax.numpy as jnp\njnp.where(mask, jnp.log(p), 0.0)\n", line=2, fixed="import jax.numpy as jnp\njnp.where(mask, jnp.log(jnp.where(mask, p, 1.0)), 0.0)\n"),
        Invalid("import tensorflow as tf\ntf.where(x < low, tf.zeros_like(x), tf.ones_like(x) / scale)\n", line=2),
        Invalid("import tensorflow as tf\ntf.where(tf.broadcast_to(is_call, tf.shape(x)), tf.math.log(x), y)\n", line=2),
        # The condition keeps `safe` off 0; whether `eta` is 0 there it does not say.
        Invalid(
            "import jax.numpy as jnp\ndef f(q, eta, y):\n    omq2 = 1.0 - q * q\n    safe = jnp.where(omq2 == 0.0, 1.0, omq2)\n"
            "    return jnp.where(omq2 == 0.0, 0.0, y / (eta * safe))\n",
            line=5,
        ),
        Invalid("import jax.numpy as jnp\ndef phase(f, p):\n    q = precompute(p)\n    return jnp.where(f <= q[\"fi\"], f / p[\"mass\"], 0.0)\n", line=4),
    )
