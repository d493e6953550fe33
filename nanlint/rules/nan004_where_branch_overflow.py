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
        # Where the branch is unselected the condition bounds the argument: `v == 0` there, `y > 20`.
        Valid("import jax.numpy as jnp\ndef symexp(v):\n    t = jnp.sign(v) * jnp.expm1(jnp.abs(v))\n    return jnp.where(v == 0, v, t)\n"),
        Valid("import torch\ndef softplus_inv(y):\n    return y.where(y > 20.0, y + (y + 1e-6).neg().expm1().neg().log())\n"),
        # A condition held by a local bounds the argument as one written in place does (point 93):
        # where `m` holds, `x < 1` and `2 * x - 2` is negative.
        Valid("import jax.numpy as jnp\ndef bounded(x):\n    m = x < 1.0\n    return jnp.where(m, x, jnp.exp(2 * x - 2))\n"),
        # Where `isnan(d)` holds, `d` is NaN: no finite value reaches the exp (point 100).
        Valid("import jax.numpy as jnp\ndef f(d):\n    return jnp.where(jnp.isnan(d), 0.0, jnp.exp(d))\n"),
        # exp of something never positive cannot overflow.
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.exp(-jnp.abs(x) * jnp.log(2.0)), 0.0)\n"),
        Valid("import jax.numpy as jnp\njnp.where(m, jnp.exp(x - jnp.max(x, axis=-1, keepdims=True)), 0.0)\n"),
        # ... and a running maximum, held in a local, is at least every element up to it (point 133).
        Valid(
            "import jax\nimport jax.numpy as jnp\ndef shifted(x):\n    m = jax.lax.cummax(x, axis=0)\n"
            "    return jnp.where(x > 0, jnp.exp(x - m), 0.0)\n"
        ),
        # `-d * d` is `(-d) * d`: a negated square.
        Valid("import jax.numpy as jnp\ndef bump(x, y):\n    d = x - y\n    return jnp.where(d < 1.0, 0.0, jnp.exp(-d * d))\n"),
        # A log-probability, and the elements picked from it, are never positive.
        Valid(
            "import torch\ndef p_of(logits, labels):\n    lp = logits.log_softmax(-1).gather(-1, labels)\n"
            "    return torch.where(lp < -30.0, 0.0, lp.exp())\n"
        ),
        # A clamped base keeps `1 - t**2` positive, so `-1 / (1 - t**2)` is never positive.
        Valid(
            "import torch\ndef bump(x):\n    t = x.clamp(0.0, 1.0 - 1e-6)\n"
            "    return torch.where(x < 1, torch.exp(-1.0 / (1.0 - t**2)), 0.0)\n"
        ),
        Valid(
            "import torch\ndef k(x, sigma):\n    dist = x - x.min(-1, keepdim=True)[0]\n    d = 2 * sigma.pow(2.0)\n"
            "    safe = torch.where(d == 0, torch.ones_like(d), d)\n    return torch.where(d == 0, 0.0, torch.exp(-dist / safe))\n"
        ),
        # Where `all(k == 0)` holds every element of `k` is 0 (point 148), so `k2` is 0 and the
        # argument is not positive: the Ewald sum's k = 0 term.
        Valid(
            "import jax.numpy as jnp\ndef ewald(k, box, alpha):\n    k_cart = 2 * jnp.pi * k / box\n    k2 = jnp.dot(k_cart, k_cart)\n"
            "    return jnp.where(jnp.all(k == 0), 0.0, jnp.exp(-k2 / (4 * alpha**2)))\n"
        ),
        # A sum of squares written as a contraction is never negative (point 149).
        Valid("import jax.numpy as jnp\ndef gauss(x):\n    return jnp.where(x > 3.0, 0.0, jnp.exp(-jnp.vdot(x, x)))\n"),
        Valid("import jax.numpy as jnp\ndef gauss(x):\n    return jnp.where(x > 3.0, 0.0, jnp.exp(-jnp.einsum(\"ij,ij->i\", x, x)))\n"),
        # Flipped elements and a running minimum keep their operand's range (point 151).
        Valid(
            "import torch\ndef running_min(x):\n    last = x.clamp(min=0.0).flip(0).cummin(0).values\n"
            "    return torch.where(last > 5.0, torch.exp(-last), 0.0)\n"
        ),
    )
    INVALID = (
        # No gradient reaches a draw, but its overflowing exponential is the derivative of the data it
        # multiplies (point 159).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = 100.0 * jax.random.uniform(key, w.shape)\n"
            "    return jnp.where(u < 50.0, jnp.exp(u) * w, 0.0)\n",
            line=5,
        ),
        # `all` along an axis broadcasts against other axes than it reduced: it says nothing of `k`.
        Invalid("import jax.numpy as jnp\ndef per_row(k):\n    return jnp.where(jnp.all(k == 0, axis=-1), 0.0, jnp.exp(k))\n", line=3),
        # The maximum of an `x` rebound since bounds nothing (point 133): `x + 100 - max(x)` reaches 100.
        Invalid(
            "import jax.numpy as jnp\ndef shifted(x):\n    m = jnp.max(x, axis=0, keepdims=True)\n    x = x + 100.0\n"
            "    return jnp.where(x > 0, jnp.exp(x - m), 0.0)\n",
            line=5,
        ),
        # An array API namespace (`xp = array_namespace(y)`) names its functions as jax.numpy does.
        Invalid(
            "from array_api_compat import array_namespace\ndef inverse_softplus(y):\n    xp = array_namespace(y)\n"
            "    return xp.where(y > 80.0, y, xp.log(xp.expm1(y)))\n",
            line=4,
            fixed="from array_api_compat import array_namespace\ndef inverse_softplus(y):\n    xp = array_namespace(y)\n"
            "    return xp.where(y > 80.0, y, xp.log(xp.where(y > 80.0, 1.0, xp.expm1(xp.where(y > 80.0, 0.0, y)))))\n",
        ),
        # ... but a local condition joined by `|` says nothing certain of where it holds.
        Invalid("import jax.numpy as jnp\ndef loose(x, c):\n    m = (x < 1.0) | c\n    return jnp.where(m, x, jnp.exp(2 * x - 2))\n", line=4),
        Invalid(
            "import jax.numpy as jnp\njnp.where(x > 0, x, jnp.exp(x) - 1)\n",
            line=2,
            fixed="import jax.numpy as jnp\njnp.where(x > 0, x, jnp.exp(jnp.where(x > 0, 0.0, x)) - 1)\n",
        ),
        Invalid("import torch\ntorch.where(x < 20, torch.log1p(torch.exp(x)), x)\n", line=2),
        # `y > 20` bounds `y` below, not above: expm1 overflows there.
        Invalid("import jax.numpy as jnp\ndef softplus_inv(y):\n    return jnp.where(y > 20.0, y, jnp.log(jnp.expm1(y)))\n", line=3),
        # A sum of data has no sign: `-s` is large where `s` is very negative.
        Invalid("import jax.numpy as jnp\ndef f(x):\n    s = jnp.sum(x)\n    return jnp.where(s < -100.0, 0.0, jnp.exp(-s))\n", line=4),
        # A safe value keeps a pole away, not an overflow: this mask is about the sign of `z`.
        Invalid(
            "import tensorflow as tf\ndef f(z):\n    safe = tf.where(z > 0., z, 1.)\n    return tf.where(safe > 36., safe, tf.math.log(tf.math.expm1(safe)))\n",
            line=4,
        ),
        # A gradient-safe reciprocal keeps its own derivative finite, not exp of what it returns.
        Invalid("import tensorflow as tf\ntf.where(tf.abs(x) < 1., tf.exp(1. + tf.math.reciprocal_no_nan(x * x - 1.)), 0.)\n", line=2),
    )
