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
    )
    INVALID = (
        Invalid("import jax.numpy as jnp\njnp.where(x >= 0, jnp.sqrt(x), 0.0)\n", line=2),
        Invalid("import torch\ntorch.where(x < 0, 0.0, torch.log(x))\n", line=2),
        Invalid("import jax.numpy as jnp\njnp.where(x >= 1, jnp.arccosh(x), 0.0)\n", line=2),
        # A NaN test holds at no finite value (point 100): the log is taken at every z >= 0, 0 included.
        Invalid("import jax.numpy as jnp\njnp.where(jnp.isnan(z) | jnp.isinf(z) | (z < 0), 0.0, jnp.log(z))\n", line=2),
    )
