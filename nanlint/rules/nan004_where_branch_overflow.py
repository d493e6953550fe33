from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class WhereBranchOverflow(Rule):
    """
    ## What it does
    Checks for a `where`/`select` branch that evaluates an op that overflows for large inputs
    (`exp`, `expm1`, `exp2`, `cosh`, `sinh`) where the branch is not selected.

    ## Why is this bad?
    `exp(x)` is `inf` above about 88.7 in float32 (709.8 in float64, 11.1 in float16), and so is
    its derivative. In the elements where the branch is not selected, autodiff multiplies that
    `inf` by a zero cotangent and the gradient becomes NaN. The classic case is a hand-written
    ELU or softplus: `jnp.where(x > 0, x, jnp.exp(x) - 1)` has NaN gradients for large `x`.

    ## Example
    ```python
    import jax.numpy as jnp

    def elu(x):
        return jnp.where(x > 0, x, jnp.exp(x) - 1)
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def elu(x):
        return jnp.where(x > 0, x, jnp.exp(jnp.where(x > 0, 0.0, x)) - 1)
    ```

    ## Fix safety
    The same double where as NAN001, with a safe value of 0.0 where `exp` is finite; safe when the
    condition is a pure expression, unsafe when it must be hoisted.

    ## References
    - jax-ml/jax#1538 (the double where in `jax.nn.elu`)
    - pytorch/pytorch#10729
    """

    CODE = "NAN004"
    REPORTS = SiteKind.OVERFLOW
    FIXABLE = True
    NAME = "where-branch-overflow"
    SUMMARY = "Overflowing op in a where/select branch leaks NaN gradients where the branch is not selected"
    MESSAGE = "`{op}` in the {branch} branch of `{select}` gives NaN gradients where that branch is not selected: {why}"
    FIX_TITLE = "Mask the argument with an inner `{select}` (double where), safe value {safe}"
    VALID = (
        Valid("import jax.numpy as jnp\njnp.where(x > 0, x, jnp.exp(jnp.where(x > 0, 0.0, x)) - 1)\n"),
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.exp(x), 0.0)\n"),
    )
    INVALID = (
        Invalid(
            "import jax.numpy as jnp\njnp.where(x > 0, x, jnp.exp(x) - 1)\n",
            line=2,
            fixed="import jax.numpy as jnp\njnp.where(x > 0, x, jnp.exp(jnp.where(x > 0, 0.0, x)) - 1)\n",
        ),
        Invalid("import torch\ntorch.where(x < 20, torch.log1p(torch.exp(x)), x)\n", line=2),
    )
