from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class ClampOfSingularOp(Rule):
    """
    ## What it does
    Checks for `maximum`, `minimum`, `clip` and `clamp` applied to the *output* of a singular op,
    on the side where the clamp bound is chosen near the op's pole: `jnp.maximum(jnp.log(x), -10)`,
    `torch.clamp(torch.exp(x), max=1.0)`, `tf.minimum(1.0 / x, 1e6)`. Off by default
    (`--extend-select NAN101`): on real code the op's argument is most often kept off the pole by an
    invariant nanlint cannot see (a variance clamped upstream), so this rule is for audits.

    ## Why is this bad?
    A clamp is a `where` in disguise: it evaluates the op everywhere and selects the bound where
    the op's value is out of range. Near the pole the bound is selected, the op's cotangent is
    zero, its derivative is infinite, and the gradient is NaN. Clamping the *input* instead keeps
    the op inside its domain.

    ## Example
    ```python
    import jax.numpy as jnp

    def f(x):
        return jnp.maximum(jnp.log(x), -10.0)
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def f(x):
        return jnp.log(jnp.maximum(x, jnp.exp(-10.0)))
    ```

    ## Fix safety
    No automatic fix: moving the clamp to the input needs the op's inverse at the bound, which a
    reviewer should write and check.

    ## References
    - pytorch/pytorch#10729
    - optax `safe_norm` docstring: "the gradients of `jnp.maximum(jnp.linalg.norm(x), min_norm)` at 0.0 is NaN"
    """

    CODE = "NAN101"
    REPORTS = SiteKind.CLAMP
    FIXABLE = False
    NAME = "clamp-of-singular-op"
    SUMMARY = "maximum/minimum/clip/clamp of a singular op's output leaks NaN gradients where the bound is chosen"
    MESSAGE = "`{select}` clamps the output of `{op}`; where the bound is chosen the gradient is NaN: {why}. Clamp the input instead"
    DEFAULT_ENABLED = False
    VALID = (
        Valid("import jax.numpy as jnp\njnp.log(jnp.maximum(x, 1e-6))\n"),
        Valid("import jax.numpy as jnp\njnp.minimum(jnp.sqrt(x), 10.0)\n"),
    )
    INVALID = (
        Invalid("import jax.numpy as jnp\njnp.maximum(jnp.log(x), -10.0)\n", line=2),
        Invalid("import torch\ntorch.clamp(torch.exp(x), max=1.0)\n", line=2),
        Invalid("import tensorflow as tf\ntf.minimum(1.0 / x, 1e6)\n", line=2),
    )
