from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class NanMaskedAfterTheFact(Rule):
    """
    ## What it does
    Checks for a NaN mask applied after the fact: a `where` whose condition tests its own value for NaN
    or non-finiteness (`isnan`, `tf.math.is_nan`, `isfinite`, `tf.math.is_finite`, `isinf`,
    `tf.math.is_inf`, `x != x`, through any alias), or a replacement (`nan_to_num`, and
    `tf.math.multiply_no_nan` used as a mask), when the masked value comes from differentiable
    computation in the same function that can make it non-finite: the *producer*.

    The producer is found by following the value back, through locals, arithmetic, selects and
    framework calls, to the function's inputs. It is a singular op that nothing guards (`log(p)` at
    `p = 0`, `a / b` at `b = 0`, `sqrt(x)` below 0, `exp(x)` where it overflows), or a framework
    function nanlint cannot see into (`F.cross_entropy(...)`), unless it only passes a NaN through
    (reductions, reshapes, concatenation, casts, products and their sums such as pooling and
    convolution, rearrangements such as `sort`, smooth activations). An op in a `where` branch whose
    condition keeps its pole unselected (`where(p > 0, log(p), 0.0)`) makes no non-finite value that
    reaches the mask: NAN001 reports its gradient. The way back ends at:
    - the function's parameters, attributes and module names: masking *inputs* (data, labels, a value
      computed elsewhere) is the remedy this rule recommends, not the bug, and nanlint cannot see how
      they were computed;
    - calls of user code (`loss_fn(...)`, `model(x)`): what they compute is not in sight;
    - what carries no gradient: `stop_gradient`/`.detach()`, comparisons and NaN tests, indices
      (`argmax`), rounding, constants shaped like their input (`zeros_like`), random draws, arrays
      made from NumPy data (`torch.from_numpy`), and casts to an integer or bool dtype. A metric
      made of these (`mean(argmax(logits) == labels)`) is never differentiated, so masking it is
      fine. Code nanlint knows is never differentiated (a
      `torch.no_grad()` block, a custom-derivative primal) is not checked either.

    A producer counts only where its *value* is not finite, since that is all a mask hides: `sqrt(x)`
    below 0, not at 0, where its value is 0 and its infinite derivative reaches the gradient with or
    without the mask. So `sqrt(where(x >= 0, x, 1.0))` makes no value to mask, and
    `where(x >= 0, sqrt(x), 0.0)` none either (its pole at 0 is NAN003's).

    A NaN test and an infinity test are read alike: an infinite value turns NaN in most arithmetic
    after it (`0 * inf`, `inf - inf`), so whichever the author tests, the masked elements are where
    the producer left its domain.

    ## Why is this bad?
    The value is now finite, but the gradient is not. Reverse-mode autodiff sends the masked elements
    a zero cotangent, and that zero flows back into the computation that produced the NaN, whose
    derivative there is infinite or NaN: `0 * inf` is NaN, so the NaN comes back in the gradient (the
    JAX maintainers explain this rule in jax-ml/jax#1052). The training step reports a finite loss and
    writes NaN into the parameters. Tutorials recommend this recipe, and it hides the problem from the
    person debugging it.

    ## Example
    ```python
    import jax.numpy as jnp

    def cross_entropy(p, y):
        loss = -jnp.mean(y * jnp.log(p))
        return jnp.where(jnp.isnan(loss), 0.0, loss)  # finite at p = 0, but its gradient is NaN
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def cross_entropy(p, y):
        return -jnp.mean(y * jnp.log(jnp.where(p > 0, p, 1.0)))
    ```
    Mask the *inputs* of the op that produces the NaN, before it runs (the double where: the op sees a
    safe value where it would leave its domain, and the inner `where` stops the cotangent there), or
    clamp them into its domain (`jnp.log(jnp.clip(p, 1e-7, 1.0))`). Then no NaN exists to be masked.

    ## Fix safety
    There is no automatic fix: a mechanical rewrite cannot know which input to mask, or what the
    value should be where the producer leaves its domain. The fix is display-only, with one
    exception: when the producer is a singular op on an argument nanlint can see, and the op's domain
    is one or two comparisons, the finding offers that op's double where as an **unsafe** fix. Its
    condition keeps the argument where the op's *value* is finite (`p > 0` for `log(p)`, `x >= 0` for
    `sqrt(x)`, `n != 0` for `t / n`): that changes no value the mask keeps, and masks every element
    whose value is not finite. It is unsafe because the elements the mask replaced now get the op's
    value at the safe point, carried through the rest of the computation, instead of the mask's
    replacement. When another rule reports the same op (NAN002 for a local that a guarded where also
    reads, NAN401) and offers a fix, that fix is the one to apply, and the two findings point at each
    other. Ops whose domain is no such condition
    (an overflowing `exp`, `lgamma`'s poles) and framework functions nanlint cannot see into get the
    advice only.

    ## References
    - jax-ml/jax#1052: why a zero cotangent times an infinite derivative is NaN
    - JAX FAQ: "Gradients contain NaN where using where"
    - `torch.nan_to_num` documentation: it replaces values, not gradients
    - `tf.where` documentation, note on NaN gradients
    """

    CODE = "NAN201"
    REPORTS = SiteKind.NAN_MASK
    FIXABLE = True
    NAME = "nan-masked-after-the-fact"
    SUMMARY = "A NaN mask after the computation that produces the NaN makes the value finite, not its gradient"
    MESSAGE = "`{value}` is masked by `{mask}` after the fact: {source}, because the masked elements still send a zero cotangent back into it"
    FIX_TITLE = "{remedy}"
    VALID = (
        # A segment mean is NaN only at empty segments, whose NaN cotangent nothing gathers back
        # (point 141); a scatter-sum makes no NaN of its own.
        Valid(
            "import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids):\n    total = jax.ops.segment_sum(x, ids)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids)\n    return jnp.nan_to_num(total / count)\n"
        ),
        # So is one divided by a root of its count (TensorFlow's `unsorted_segment_sqrt_n`).
        Valid(
            "import jax\nimport jax.numpy as jnp\ndef segment_sqrt_n(x, ids):\n    total = jax.ops.segment_sum(x, ids)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids)\n    return jnp.nan_to_num(total / jnp.sqrt(count))\n"
        ),
        # Masking the inputs before the op: the remedy.
        Valid("import jax.numpy as jnp\ndef f(x):\n    x = jnp.where(jnp.isnan(x), 0.0, x)\n    return jnp.log(jnp.where(x > 0, x, 1.0))\n"),
        Valid("import tensorflow as tf\ndef f(y_true):\n    return tf.where(tf.math.is_nan(y_true), tf.zeros_like(y_true), y_true)\n"),
        Valid("import jax.numpy as jnp\ndef f(p):\n    return jnp.nan_to_num(jnp.log(jnp.where(p > 0, p, 1.0)))\n"),
        # A metric that is never differentiated: comparisons and indices carry no gradient.
        Valid("import jax.numpy as jnp\ndef accuracy(logits, labels):\n    acc = jnp.mean(jnp.argmax(logits, -1) == labels)\n    return jnp.where(jnp.isnan(acc), 0.0, acc)\n"),
        Valid("import torch\n@torch.no_grad()\ndef rmse(pred, y):\n    r = torch.sqrt(torch.mean((pred - y) ** 2))\n    return torch.nan_to_num(r)\n"),
        # A count of at least one is no pole: `max(n, 1)`.
        Valid("import torch\ndef mean_of(x):\n    n = max(x.shape[0], 1)\n    return torch.nan_to_num(x.sum(0) / n)\n"),
        # Weights made of sizes and integer parameters carry no gradient (point 72).
        Valid(
            "import torch\ndef weights(fit, k: int):\n    n, m = fit.size()\n    w = k / (n - torch.arange(1, n))\n"
            "    return torch.nan_to_num(w)\n"
        ),
        # After a stop-gradient, and through an integer cast, no gradient flows.
        Valid("from jax import lax\nimport jax.numpy as jnp\ndef f(p):\n    v = lax.stop_gradient(jnp.log(p))\n    return jnp.where(jnp.isnan(v), 0.0, v)\n"),
        Valid("import torch\ndef f(p):\n    return torch.nan_to_num(torch.log(p).detach())\n"),
        Valid("import torch\ndef f(p):\n    k = torch.log(p).long()\n    return torch.where(torch.isnan(k), 0, k)\n"),
        # Nothing in sight can make the value non-finite: arithmetic of inputs, a user function.
        Valid("import jax.numpy as jnp\ndef f(a, b):\n    v = a * b + 1.0\n    return jnp.nan_to_num(v)\n"),
        Valid("import jax.numpy as jnp\ndef f(p, y):\n    loss = loss_fn(p, y)\n    return jnp.where(jnp.isnan(loss), 0.0, loss)\n"),
        # A difference of neighbours is linear: a NaN in it came in with the data (point 76).
        Valid("import jax.numpy as jnp\ndef d(f):\n    df = jnp.diff(f, axis=-1)\n    return jnp.where(jnp.isnan(df), 0.0, df)\n"),
        # Concatenation, pooling, interpolation and rearrangement make no NaN of finite inputs; a NaN
        # after them came in with the data (point 158).
        Valid("import torch\ndef angles(a):\n    a = torch.cat([a, torch.tensor([2.0])])\n    return torch.nan_to_num(a, nan=2.0)\n"),
        Valid("import tensorflow as tf\ndef render(img):\n    y = tf.nn.avg_pool2d(img, ksize=2, strides=2, padding='SAME')\n    return tf.where(tf.math.is_nan(y), tf.zeros_like(y), y)\n"),
        Valid("import torch\ndef interp(f0, f1, w):\n    out = torch.lerp(f0, f1, w)\n    return torch.where(torch.isnan(out), f0, out)\n"),
        Valid("import jax.numpy as jnp\ndef spacing(d):\n    s = jnp.sort(d, axis=1)\n    return jnp.where(jnp.isnan(s), 0.0, s)\n"),
        Valid("import torch\ndef direction(gy, gx):\n    return torch.nan_to_num(torch.atan2(gy, gx))\n"),
        # Noise and arrays made from host data carry no gradient.
        Valid("import torch\ndef noisy(x):\n    return torch.nan_to_num(x + torch.randn_like(x))\n"),
        Valid("import torch\ndef load(arr):\n    return torch.nan_to_num(torch.from_numpy(arr))\n"),
        Valid("import torch\ndef average(total, count):\n    c = torch.as_tensor(count, dtype=torch.float)\n    return torch.nan_to_num(total / torch.where(c > 0, c, 1.0))\n"),
        # A where that keeps log's pole out of `lp`: NAN001 reports the leak; no NaN reaches the mask.
        Valid("import jax.numpy as jnp\ndef f(p):\n    lp = jnp.where(p > 0, jnp.log(p), 0.0)\n    return jnp.where(jnp.isnan(lp), 0.0, lp)\n"),
        # A mask to a value that is not finite either, and a test of another value.
        Valid("import jax.numpy as jnp\ndef f(p):\n    v = jnp.log(p)\n    return jnp.where(jnp.isfinite(v), v, -jnp.inf)\n"),
        Valid("import jax.numpy as jnp\ndef f(p, h):\n    r = 1.0 / p\n    return jnp.where(jnp.isfinite(r), h, 0.0)\n"),
    )
    INVALID = (
        # ... but `min(n, 1)` of a count is 0 where the mask is empty (of a size, as `x.shape[0]`
        # alone, it is static: no finding, point 122).
        Invalid("import torch\ndef mean_of(x, mask):\n    n = min(mask.sum(), 1)\n    return torch.nan_to_num(x.sum(0) / n)\n", line=4),
        Invalid(
            "import jax.numpy as jnp\ndef f(p, y):\n    loss = -jnp.mean(y * jnp.log(p))\n    return jnp.where(jnp.isnan(loss), 0.0, loss)\n",
            line=4,
            fixed="import jax.numpy as jnp\ndef f(p, y):\n    loss = -jnp.mean(y * jnp.log(jnp.where(p > 0, p, 1.0)))\n    return jnp.where(jnp.isnan(loss), 0.0, loss)\n",
        ),
        Invalid("import jax.numpy as jnp\ndef f(p):\n    return jnp.nan_to_num(jnp.log(p))\n", line=3, fixed="import jax.numpy as jnp\ndef f(p):\n    return jnp.nan_to_num(jnp.log(jnp.where(p > 0, p, 1.0)))\n"),
        Invalid("from jax.numpy import isnan as bad, where, sqrt\ndef f(x):\n    v = sqrt(x)\n    return where(bad(v), 0.0, v)\n", line=4),
        Invalid("import jax.numpy as jnp\ndef f(x):\n    v = jnp.sqrt(x)\n    return jnp.where(v != v, 0.0, v)\n", line=4),
        Invalid(
            "import tensorflow as tf\ndef f(logits, y):\n    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(y, logits))\n"
            "    return tf.where(tf.math.is_nan(loss), tf.zeros_like(loss), loss)\n",
            line=4,
        ),
        Invalid(
            "import tensorflow as tf\ndef f(t, n):\n    r = t / n\n    return tf.where(tf.math.is_finite(r), r, tf.zeros_like(r))\n",
            line=4,
            fixed="import tensorflow as tf\ndef f(t, n):\n    r = t / tf.where(n != 0, n, tf.ones_like(n))\n    return tf.where(tf.math.is_finite(r), r, tf.zeros_like(r))\n",
        ),
        Invalid("import tensorflow.experimental.numpy as tnp\ndef f(x):\n    v = tnp.sqrt(x)\n    return tnp.where(tnp.isnan(v), 0.0, v)\n", line=4),
        Invalid("import tensorflow as tf\ndef f(p, mask):\n    return tf.math.multiply_no_nan(tf.math.log(p), mask)\n", line=3),
        Invalid("import tensorflow as tf\ndef f(p):\n    v = tf.math.log(p)\n    return tf.where(tf.debugging.is_nan(v), tf.zeros_like(v), v)\n", line=4),
        Invalid("import torch\ndef f(p):\n    loss = torch.log(p).mean()\n    return torch.where(torch.isfinite(loss), loss, torch.zeros_like(loss))\n", line=4),
        Invalid("import torch\ndef f(p):\n    return torch.nan_to_num(torch.log(p))\n", line=3),
        Invalid("import torch\ndef f(p):\n    return p.log().nan_to_num()\n", line=3, fixed="import torch\ndef f(p):\n    return p.where(p > 0, 1.0).log().nan_to_num()\n"),
        # ... and the way to the mask goes on through them, to the op that makes the NaN.
        Invalid("import torch\ndef f(p, q):\n    v = torch.cat([torch.log(p), q])\n    return torch.nan_to_num(v)\n", line=4),
        Invalid("import torch\ndef f(p, q, w):\n    v = torch.lerp(torch.sqrt(p), q, w)\n    return torch.where(torch.isnan(v), q, v)\n", line=4),
        # The producer is another rule's finding too: both are reported, each pointing at the other.
        Invalid("import jax.numpy as jnp\ndef f(p, mask):\n    lp = jnp.where(mask, jnp.log(p), 0.0)\n    return jnp.nan_to_num(lp)\n", line=4),
        Invalid(
            "import jax.numpy as jnp\ndef f(p, y):\n    lp = jnp.log(p)\n    clipped = jnp.where(p > 0, lp, 0.0)\n"
            "    loss = jnp.sum(clipped) - jnp.mean(y * lp)\n    return jnp.where(jnp.isnan(loss), 0.0, loss)\n",
            line=6,
        ),
    )
