from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class WhereBranchSingularOp(Rule):
    """
    ## What it does
    Checks for a `where`/`select` branch that evaluates an op with a singular derivative (`sqrt`,
    `log`, division, `arctan2`, fractional powers, `arcsin`, ...) on an argument that the branch's
    condition does not keep away from the op's pole.

    ## Why is this bad?
    `where(cond, f(x), g(x))` computes both branches for every element and selects values
    afterwards. In reverse-mode autodiff the unselected branch still receives a cotangent: zero.
    Where `f` has an infinite derivative at an unselected element, the chain rule multiplies
    `0 * inf`, which is NaN, and the NaN reaches the gradient of `x` even though the value of the
    `where` is perfectly finite. JAX, TensorFlow (most visibly under XLA, `jit_compile=True`) and
    PyTorch all behave this way; no framework fixes it for you.

    ## Example
    ```python
    import jax.numpy as jnp

    def safe_sqrt(x):
        return jnp.where(x > 0, jnp.sqrt(x), 0.0)  # grad at x = 0 is NaN
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def safe_sqrt(x):
        return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)
    ```
    This is the "double where": the inner `where` gives the op a safe value inside its domain
    wherever the outer `where` will not select the branch, so its derivative stays finite there.
    Clamping the argument into the domain (`jnp.sqrt(jnp.maximum(x, 1e-12))`) also works.

    ## Fix safety
    The fix inserts the inner `where` around the singular op's argument, reusing the file's own
    spelling of `where` and the same condition. It is safe when the condition is a pure expression
    (names, attributes, constants, comparisons, arithmetic): the program computes the same values
    everywhere. When the condition calls a function it must be evaluated once and hoisted into a
    local, which makes the fix unsafe. Non-elementwise ops (norms) are display-only, and so is an
    op inside a straight-line helper of the file that the branch calls (reported at the call, only
    where the condition provably puts it at its pole, and, in a select of the helper's own, only
    where that select provably takes it there): mask it in the helper, or mask what the call passes.

    ## References
    - JAX FAQ: "Gradients contain NaN where using where"
    - `tf.where` documentation, note on NaN gradients
    - pytorch/pytorch#23395 and #68425
    """

    CODE = "NAN001"
    REPORTS = SiteKind.SINGULAR_OP
    FIXABLE = True
    NAME = "where-branch-singular-op"
    SUMMARY = "Singular op in a where/select branch leaks NaN gradients where the branch is not selected"
    MESSAGE = "`{op}` in the {branch} branch of `{select}` gives NaN gradients where that branch is not selected: {why}"
    FIX_TITLE = "Mask the argument with an inner `{select}` (double where), safe value {safe}"
    VALID = (
        # A count of what the same indices scatter is 0 only at a slot no index names: the NaN
        # cotangent lands on the sum's empty slot, which nothing gathers back (point 141).
        Valid(
            "import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, n)\n    return jnp.where(count > 0, total / count, 0.0)\n"
        ),
        # `n + (n == 0)` is 1 where `n` is 0 and `n` elsewhere: never 0.
        Valid("import jax.numpy as jnp\njnp.where(n > 0, f / (n + (n == 0)), 0.0)\n"),
        # A truth value in arithmetic is 0 or 1: where `c == 0` leaves the branch unselected, the
        # divisor carries its own epsilon (`c + 1e-12`).
        Valid("import jax.numpy as jnp\njnp.where(c == 0, 0.0, g / (c + (c == 0) * 1e-12))\n"),
        # tad-mctc's safe root is clamped to at least sqrt(eps): its reciprocal has no pole (point 127).
        Valid("import torch\nfrom tad_mctc import storch\ndef f(q, rads):\n    return torch.where(rads > 0, q / storch.sqrt(rads), 0.0)\n"),
        # `isclose(d, 0)` holds where |d| <= 1e-8: there `d + 1` is near 1, elsewhere `d` is not 0.
        Valid("import numpy as np\nnp.where(np.isclose(d, 0), 0.0, g / (d + np.isclose(d, 0, rtol=1e-5)))\n"),
        # A sine is positive strictly between 0 and pi, a cosine between -pi/2 and pi/2, and a
        # tangent between 0 and pi/2 (point 129): where the branch is unselected, none is 0.
        Valid("import jax.numpy as jnp\njnp.where((x > 0.5) & (x < 3.0), 0.0, g / jnp.sin(x))\n"),
        Valid("import jax.numpy as jnp\njnp.where((x > -1.0) & (x < 1.0), 0.0, g / jnp.cos(x))\n"),
        Valid("import jax.numpy as jnp\njnp.where(s <= 0.0, 1.0, 1.0 / jnp.tan(jnp.pi * jnp.clip(s, 1e-6, 1.0 - 1e-6)))\n"),
        # A store that moves or copies the attribute (`self.p = self.p.to(device)`) puts back a value
        # it held: `self.p` is the asserted `p`, in (0, 0.5) (point 131).
        Valid(
            "import torch\nclass Tail:\n    def __init__(self, p: float, device=None):\n        assert p > 0 and p < 0.5\n"
            "        self.p = torch.tensor(p)\n        self.p = self.p.to(device)\n"
            "    def icdf(self, q):\n        return torch.where(q < self.p, q / self.p, 1.0)\n"
        ),
        # torch records only what flows from a declared leaf: a buffer of a constant grid carries no
        # gradient, so the sinc of it sends none back (point 143).
        Valid(
            "import torch\nfrom torch import nn\nclass Basis(nn.Module):\n    def __init__(self, n: int, cutoff: float):\n"
            "        super().__init__()\n        self.register_buffer('grid', torch.linspace(0.0, cutoff, n))\n"
            "    def forward(self, x):\n        g = self.grid\n        return x * torch.where(g > 0, torch.sin(g) / g, torch.ones_like(g))\n"
        ),
        # A resampling kernel rebound five times from `arange` and Python numbers carries no
        # gradient: the value questions follow six bindings (point 145).
        Valid(
            "import math\nimport torch\ndef kernel(orig: int, new: int, gcd: int, width: int, rolloff: float):\n"
            "    new = new // gcd\n    base = min(orig, new)\n    base *= rolloff\n    t = torch.arange(0, -new, -1)[:, None] / new\n"
            "    t *= base\n    t = t.clamp(-width, width)\n    t *= math.pi\n    return torch.where(t == 0, 1.0, t.sin() / t)\n"
        ),
        # A static argument of `jax.jit` is a Python value, never a tracer: `log(n)` sends no
        # gradient back (point 146).
        Valid(
            "from functools import partial\nimport jax\nimport jax.numpy as jnp\n@partial(jax.jit, static_argnames='n')\n"
            "def f(w, n):\n    return w * jnp.where(n > 0, jnp.log(n), 0.0)\n"
        ),
        # MXNet's `broadcast_greater` is `>` (point 132): where `y > 20` leaves the branch unselected,
        # `expm1(y)` is far from 0 (its overflow is NAN004's).
        Valid("def f(F, y):\n    return F.where(F.broadcast_greater(y, 20.0), y, F.log(F.expm1(y)))\n"),
        # The condition reads `x` only for its shape: it says nothing about `x`'s values (NAN401).
        Valid("import tensorflow as tf\ntf.where(tf.broadcast_to(is_call, tf.shape(x)), tf.math.log(x), y)\n"),
        # Both arms of the `if` clamp `d` to at least 1: whichever runs, `1 / d` is finite.
        Valid(
            "import jax.numpy as jnp\ndef f(d, wide):\n    if wide:\n        d = jnp.maximum(d, 1.0)\n    else:\n"
            "        d = jnp.maximum(d, 2.0)\n    return jnp.where(d > 2, 1.0 / d, 0.0)\n"
        ),
        # Every branch divides by `m`: where `m` is 0 the selected branch is singular too, so the
        # where hides no pole (the value is inf there, and a double where would not help).
        Valid("import jax.numpy as jnp\njnp.where(m > 1, a / m, b / m)\n"),
        # A condition on one entry of a mapping says nothing about another: `q` is made of `p`, but
        # `q["fi"]` is not `p["mass"]` (an unrelated condition: NAN401).
        Valid("import jax.numpy as jnp\ndef phase(f, p):\n    q = precompute(p)\n    return jnp.where(f <= q[\"fi\"], f / p[\"mass\"], 0.0)\n"),
        # Where `|x / d| < 1e-3` the quotient is finite: its pole is in the selected branch.
        Valid("import torch\ntorch.where(torch.abs(x / d) < 1e-3, 1.0, x / d)\n"),
        # A tensor made of a constant has its value: `u_lower` is at most -1, so `|u_lower| >= 1`.
        Valid(
            "import tensorflow as tf\ndef lower_tail(u, bound):\n    c = tf.constant(-1.0, dtype=u.dtype)\n"
            "    u_lower = tf.where(u > c, c, u)\n    return tf.where(u > bound, u, -2.0 * tf.math.log(tf.abs(u_lower)))\n"
        ),
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"),
        Valid("import jax.numpy as jnp\nsafe_x = jnp.where(x > 0, x, 1.0)\njnp.where(x > 0, jnp.log(safe_x), 0.0)\n"),
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.log(jnp.maximum(x, 1e-6)), 0.0)\n"),
        # A mask on another condition than the select's, whose kept values are all off the pole.
        Valid("import jax.numpy as jnp\njnp.where(x > 1, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n"),
        # arctan2 is singular only where both arguments are 0: where the select does not look, `y`
        # is sqrt(1.0), whatever `x` is.
        Valid(
            "import jax.numpy as jnp\ndef f(c, u):\n    y = jnp.sqrt(jnp.where(c < 0, -c * u, 1.0))\n"
            "    return jnp.where(c < 0, jnp.arctan2(y, c * c - 1.0), 0.0)\n"
        ),
        # A helper of the file is read for what it returns: here, the inner half of a double where.
        Valid(
            "import jax.numpy as jnp\ndef _safe(r2):\n    return jnp.where(r2 > 0, r2, jnp.ones_like(r2))\n"
            "def kernel(r2):\n    return jnp.where(r2 > 0, jnp.sqrt(_safe(r2)), 0.0)\n"
        ),
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.log(2.0), 0.0)\n"),
        Valid("import jax.numpy as jnp\njnp.where(x > 0, x ** 2, 0.0)\n"),
        # Indexing a masked value reads some of its (safe) values: `safe[..., None]` is still masked.
        Valid(
            "import torch\ndef f(dy, dx):\n    safe = torch.where(dy == 0, torch.ones_like(dy), dy)\n"
            "    return torch.where(dy[..., None] == 0, 0.0, dx[..., None] / safe[..., None])\n"
        ),
        # jax_md's distance is built on an outer where: it zeroes the cotangent that comes back at 0.
        Valid("import jax.numpy as jnp\nfrom jax_md import space\ndef f(dR):\n    dr = space.distance(dR)\n    return jnp.where(dr < 1.0, 0.0, 1.0 / dr)\n"),
        # A condition held in a local is read as its expression: log1p's pole (-1) is not where
        # `c == 0` leaves the branch unselected.
        Valid("import tensorflow as tf\ndef f(c, x):\n    at_zero = tf.equal(c, 0.0)\n    return tf.where(at_zero, x, tf.math.log1p(c) * x)\n"),
        # A detached copy has the value of what it copies: kept off the pole by the where inside.
        Valid(
            "import torch\ndef f(a, m):\n    safe = torch.where(m, a, torch.ones_like(a))\n    d = safe.detach()\n"
            "    return torch.where(m, (safe - d) / d, 0.0)\n"
        ),
        Valid("import jax.numpy as jnp\nidx = jnp.where(x > 0)\n"),
        Valid("import numpy as np\nnp.where(x > 0, np.sqrt(x), 0.0)\n"),
        Valid("from jax import lax\nimport jax.numpy as jnp\njnp.where(x > 0, jnp.sqrt(lax.stop_gradient(x)), 0.0)\n"),
        Valid("import torch\ntorch.where(x > 0, torch.atan2(y, x), 0.0)\n"),
        Valid("import torch\ntorch.where(z.abs() > 0, torch.angle(z), 0.0)\n"),
        Valid("import tensorflow as tf\ntf.where(x > 0, tf.math.divide_no_nan(y, x), 0.0)\n"),
        Valid("import jax.numpy as jnp\ndef where(c, a, b):\n    return a\nwhere(x > 0, jnp.sqrt(x), 0.0)\n"),
        # No gradient flows through sizes and `arange`: nothing here can leak.
        Valid("import jax.numpy as jnp\ndef grid(d: int, n: int):\n    return jnp.where(n > 1, jnp.arange(d) / (n - 1), 0.0)\n"),
        # The guard comes before, and the argument is computed from the masked value.
        Valid(
            "import jax.numpy as jnp\ndef f(t):\n    small = t < 1e-3\n    safe = jnp.where(small, 1.0, t)\n    half = 0.5 * safe\n"
            "    return jnp.where(small, 0.5, jnp.cos(half) / jnp.sin(half))\n"
        ),
        # ... also when one of the two spells the condition and the other names it.
        Valid(
            "import jax.numpy as jnp\ndef f(t):\n    small = t < 1e-3\n    safe = jnp.where(t < 1e-3, 1.0, t)\n    half = 0.5 * safe\n"
            "    return jnp.where(small, 0.5, jnp.cos(half) / jnp.sin(half))\n"
        ),
        # A custom VJP's fwd and bwd, and an autograd.Function's backward, are not differentiated.
        Valid(
            "import jax\nimport jax.numpy as jnp\n@jax.custom_vjp\ndef f(x):\n    return x\ndef f_fwd(x):\n    return f(x), x\n"
            "def f_bwd(x, g):\n    return (jnp.where(x > 0, g / x, 0.0),)\nf.defvjp(f_fwd, f_bwd)\n"
        ),
        # A condition on a local `|v|` is one on `v`, as `abs(v)` written in place is: where the
        # branch is not selected, |v| >= 1 (the pole is where it is selected).
        Valid("import jax.numpy as jnp\ndef f(v):\n    a = jnp.abs(v)\n    return jnp.where(a < 1.0, 1.0 / v, 0.0)\n"),
        # A custom_jvp rule is linearized in reverse mode: what it computes from the primals alone
        # (a derivative factor) is a constant of the linear map, and receives no cotangent.
        Valid(
            "import jax\nimport jax.numpy as jnp\n@jax.custom_jvp\ndef f(x):\n    return jnp.arcsin(x)\n@f.defjvp\n"
            "def f_jvp(primals, tangents):\n    x, = primals\n    t, = tangents\n"
            "    d = jnp.where(x * x < 1.0, 1.0 / jnp.sqrt(1.0 - x * x), 0.0)\n    return f(x), d * t\n"
        ),
        # ... and so is a function defined in a body (private, then) that only such a rule calls with
        # the primals: `defjvps`' rule is `rule(tangent, primal_out, *primals)`.
        Valid(
            "import jax\nimport jax.numpy as jnp\ndef taper(f, y):\n    @jax.custom_jvp\n    def g(x, y):\n        return jnp.where(x < y, 1.0, 0.0)\n"
            "    def g_der(x, y):\n        return jnp.where(x <= y, 0.0, 1.0 / (x - y))\n"
            "    g.defjvps(None, lambda y_dot, out, x, y: g_der(x, y) * y_dot)\n    return g(f, y)\n"
        ),
        Valid(
            "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def backward(ctx, g):\n"
            "        x, = ctx.saved_tensors\n        return torch.where(x > 0, g / x, 0.0)\n"
        ),
        # A comparison of data with a bound made of Python numbers tests the data, as it does when
        # the bound is written in place (`pixels < 2 * n`).
        Valid("import jax.numpy as jnp\ndef f(x, pixels, n: int):\n    bound = 2 * n\n    return jnp.where(pixels < bound, x / n, 0.0)\n"),
        # A dataset, a Keras metric or a learning-rate schedule is never differentiated: its
        # examples are stored data, its state is assigned, its input is the step counter.
        Valid(
            "import torch\nfrom torch.utils.data import Dataset\nclass Points(Dataset):\n    def __getitem__(self, i):\n"
            "        d = self.d[i]\n        return torch.where(d > 0, torch.log(d), 0.0)\n"
        ),
        # A namespace local that is bound to something else, and not called as one, is no array
        # module; nor is a call of a local that merely shares a name with the one it is assigned
        # to (`force = force(r)`).
        Valid("import jax.numpy as jnp\ndef f(y, get):\n    xp = get(y)\n    return jnp.where(y > 0, xp.sqrt(y), 0.0)\n"),
        # A remainder is smaller than its divisor: `t % 500` is in [0, 500) (the divisor's sign),
        # `fmod(t, 500)` in (-500, 500) (the dividend's).
        Valid("import jax.numpy as jnp\ndef f(t):\n    return jnp.where(t > 1, jnp.sqrt(500 - t % 500), 0.0)\n"),
        Valid("import torch\ndef f(t):\n    return torch.where(t > 1, torch.sqrt(500 - torch.fmod(t, 500)), 0.0)\n"),
        # A condition on a random draw bounds what is computed from that draw (`u > 0.5` where the
        # branch is not selected: the base is above 1).
        Valid(
            "import torch\ndef sbx(p, eta):\n    u = torch.rand_like(p)\n"
            "    return torch.where(u <= 0.5, (2 * u) ** (1.0 / (eta + 1.0)), (1 / (2 * (1.0 - u))) ** (1.0 / (eta + 1.0)))\n"
        ),
        # A draw shaped like its argument receives no gradient from it (point 158), and added to data
        # its logarithm is no one's derivative (point 159).
        Valid("import torch\ndef f(x):\n    u = torch.rand_like(x)\n    return torch.where(u > 0.5, torch.log(u), 0.0)\n"),
        Valid("import torch\ndef f(x):\n    u = torch.rand_like(x)\n    return torch.where(u > 0.5, torch.log(u) + x, x)\n"),
        # Where only the value counts, a root's pole is no leak: sqrt(0) = 0 (point 159).
        Valid("import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.where(x != 0, jnp.sqrt(jax.lax.stop_gradient(x)) * x, 0.0)\n"),
        # Nor its forward-mode rule `jvp`, or `vjp`, backward's other name: reverse mode never runs
        # the first, and runs the second without recording it.
        Valid(
            "import torch\nclass F(torch.autograd.Function):\n    @staticmethod\n    def jvp(ctx, t):\n"
            "        x, = ctx.saved_tensors\n        return (1.0 / x).where(x != 0, -0.5) * t\n"
            "    @staticmethod\n    def vjp(ctx, g):\n        x, = ctx.saved_tensors\n        return torch.where(x > 0, g / x, 0.0)\n"
        ),
        # No cotangent ever comes back to a value that only leaves the graph: a variable assignment
        # (TensorFlow records no gradient through it), an index, a Python test (reach.py).
        Valid(
            "import tensorflow as tf\ndef apply(var, w_norm, g_norm):\n    ratio = tf.where(g_norm > 0, w_norm / g_norm, 1.0)\n"
            "    var.assign(var - ratio)\n"
        ),
        # JAX defines the derivative of `floor` as a symbolic zero: nothing flows back into `sqrt`.
        Valid("import jax.numpy as jnp\njnp.where(x > 0, jnp.floor(jnp.sqrt(x)), 0.0)\n"),
        # `x % m` leaks only through `m` (d/dx is 1); a NumPy value carries no gradient.
        Valid("import jax\nimport jax.numpy as jnp\ndef wrap(x, L):\n    m = jax.lax.stop_gradient(L)\n    return jnp.where(L > 0, x % m, x)\n"),
        Valid("import jax.numpy as jnp\nimport numpy as np\ndef f(x, L):\n    m = np.asarray(L)\n    return jnp.where(L > 0, jnp.sqrt(m), x)\n"),
        # The other branch is NaN, through a local: the value is invalid there anyway.
        Valid('import torch\ndef f(tp, p):\n    nan_tensor = torch.tensor(float("nan"))\n    return torch.where(p > 0, tp / p, nan_tensor)\n'),
        # A reshape of a clamped value is still clamped.
        Valid("import torch\ndef f(x, n):\n    return torch.where(n.unsqueeze(-1) > 0, x / n.clamp_min(1e-8).unsqueeze(-1), x)\n"),
        # Masked on the select's condition before the norm; `axis=` configures, it carries no data.
        Valid(
            "import jax.numpy as jnp\ndef f(x, d, axis):\n    z = jnp.allclose(x, 0)\n    a = jnp.where(z, jnp.ones_like(x), x)\n"
            "    n = jnp.linalg.norm(a, axis=axis)\n    return jnp.where(z, 0.0, d / n)\n"
        ),
        # A varying exponent of at least 1 on a base that is never negative: smooth.
        Valid("import jax.numpy as jnp\ndef f(x, p, m):\n    return jnp.where(m, jnp.abs(x) ** jnp.maximum(p, 1.0), 0.0)\n"),
        # A select nested in a branch, guarded on the enclosing select's condition.
        Valid("import jax.numpy as jnp\njnp.where(x == 0, 0.0, jnp.where(y > 0, 1.0 / jnp.where(x == 0, 1.0, x), 2.0))\n"),
        Valid("import torch\ndef pivot(d, b):\n    inv = torch.where(d > 0, 1 / d, 0.0)\n    return torch.argmin(inv * b, dim=-1)\n"),
        Valid("import jax.numpy as jnp\ndef check(x):\n    r = jnp.where(x > 0, jnp.log(x), 0.0)\n    if r.sum() > 10:\n        raise ValueError\n"),
        # The factor the condition is about is masked off 0 where the branch is not selected; `eta`
        # is 0 or not whatever the condition says (NAN401's question).
        Valid(
            "import jax.numpy as jnp\ndef f(q, eta, y):\n    omq2 = 1.0 - q * q\n    safe = jnp.where(omq2 == 0.0, 1.0, omq2)\n"
            "    return jnp.where(omq2 == 0.0, 0.0, y / (eta * safe))\n"
        ),
        Valid(
            "import jax.numpy as jnp\ndef f(q, eta, y):\n    omq2 = 1.0 - q * q\n    d = eta * jnp.where(omq2 == 0.0, 1.0, omq2)\n"
            "    return jnp.where(omq2 == 0.0, 0.0, -y / d)\n"
        ),
        # A non-finite filler made of constants carries no gradient (point 84).
        Valid("import jax.numpy as jnp\ndef f(s, x):\n    return jnp.where(x > 0, s, jnp.nan * jnp.ones_like(s))\n"),
        # A NaN placeholder multiplied where it is selected anyway: no region leaks (point 85).
        Valid(
            "import jax.numpy as jnp\ndef f(u, m):\n    u_inf = u == jnp.inf\n    u = jnp.where(u_inf, jnp.nan, u)\n"
            "    return jnp.where(u_inf, u * m, 0.0)\n"
        ),
        # A placeholder that holds its NaN side there passes no gradient back: the NaN factor's
        # cotangent lands on the constant (point 86).
        Valid(
            "import jax.numpy as jnp\ndef f(u):\n    u_inf = u == jnp.inf\n    u = jnp.where(u_inf, jnp.nan, u)\n"
            "    return jnp.where(u_inf, 0.0, jnp.nan * u)\n"
        ),
        # A NaN placeholder that reaches the result: the value is NaN there anyway (point 87), also
        # through an augmented binding, which the reads after it see (point 154).
        Valid("import jax.numpy as jnp\ndef f(x, s):\n    q = jnp.where(x == 0.0, jnp.nan, s / x)\n    return q * 2.0\n"),
        Valid("import jax.numpy as jnp\ndef f(x, s):\n    q = jnp.where(x == 0.0, jnp.nan, s / x)\n    q += 1.0\n    return q * 2.0\n"),
        # A value whose every read is cut: after `w = w.detach()`, `return w` reads another value (point 154).
        Valid("import torch\ndef f(x, g0):\n    w = g0 + torch.where(x > 0, 1 / x, 0.0)\n    w = w.detach()\n    return w\n"),
        # A class's own `where` is its code, not a namespace's; nor is a two-argument `where`
        # (a tensor's, pandas') one.
        Valid("class Backend:\n    def f(self, y):\n        return self.where(y > 0, self.log(y), 0.0)\n"),
        Valid("def f(frame, y):\n    return frame.where(y > 0, frame.log(y))\n"),
        # A mask whose condition tests the value it masks keeps the op off its pole (point 91).
        Valid("import jax.numpy as jnp\ndef prox(v, s):\n    return jnp.where(v ** 2 <= s, 0.0, v - s / jnp.where(v == 0.0, 1.0, v))\n"),
        Valid(
            "import torch\ndef interp(x, x0, x1, f0, f1):\n    dx = x1 - x0\n    zero_width = dx == 0\n"
            "    dx = torch.where(zero_width, torch.ones_like(dx), dx)\n    return torch.where(x > x1, f1, f0 + (x - x0) / dx * (f1 - f0))\n"
        ),
        # A safe value at the op's pole guards the value it masks, the op's only input a gradient
        # flows through (point 92): where the mask takes `0.0`, the where sends the op's infinite
        # cotangent to that constant, not to `v`.
        Valid("import jax.numpy as jnp\ndef f(v):\n    return jnp.where(v != 0, 1.0 / jnp.where(v != 0, v, 0.0), 0.0)\n"),
        # A select whose value only picks indices receives no cotangent (point 90): the indices of
        # `top_k` are integers.
        Valid("import tensorflow as tf\ndef f(x, n, k):\n    s = tf.where(n > 0, x / n, 0.0)\n    _, i = tf.math.top_k(s, k)\n    return i\n"),
        # A relative import with a fallback may bind something else (`B = None`): nothing is read.
        Valid(
            "try:\n    from .backend import B\nexcept ImportError:\n    B = None\n"
            "def f(y):\n    return B.where(y > 0, B.log(y), 0.0)\n"
        ),
        # A tensor of constants nobody differentiates cannot leak ...
        Valid("import torch\ndef f():\n    q = torch.zeros(4)\n    return torch.where(q > 0, q.log(), 0.0)\n"),
        # What the function made sure of before (point 101): after `if c <= 0: raise`, the rest runs
        # only where `c` is positive, so `t / c` has no pole there; after `assert`, `if jnp.any(...):
        # return` or `continue` in a loop, the same.
        Valid("import jax.numpy as jnp\ndef ramp(t, c):\n    if c <= 0:\n        raise ValueError(c)\n    return jnp.where(t < c, t / c, 1.0)\n"),
        Valid("import jax.numpy as jnp\ndef ramp(t, c):\n    assert c > 0\n    return jnp.where(t < c, t / c, 1.0)\n"),
        Valid("import jax.numpy as jnp\ndef ramp(t, c):\n    if jnp.any(c <= 0):\n        return t\n    return jnp.where(t < c, t / c, 1.0)\n"),
        Valid("import tensorflow as tf\ndef ramp(t, c):\n    if tf.reduce_any(c <= 0):\n        raise ValueError(c)\n    return tf.where(t < c, t / c, 1.0)\n"),
        Valid("import torch\ndef ramps(ts, c):\n    for t in ts:\n        if not (c > 0):\n            continue\n        yield torch.where(t < c, t / c, 1.0)\n"),
        # A helper of the file that checks its parameters on entry checks them at each call (point
        # 164): after `_check_scale(c)` returns, `c` is positive; after `c = _positive(c)`, so is the
        # new `c`, which the helper returns unchanged (a cast of its parameter).
        Valid(
            "import jax.numpy as jnp\ndef _check_scale(c):\n    if c <= 0:\n        raise ValueError(c)\n"
            "def ramp(t, c):\n    _check_scale(c)\n    return jnp.where(t < c, t / c, 1.0)\n"
        ),
        Valid(
            "import jax.numpy as jnp\ndef _positive(c, name='c'):\n    \"\"\"`c` as an array of floats.\"\"\"\n    if jnp.any(c <= 0):\n"
            "        raise ValueError(name)\n    c = jnp.asarray(c, dtype=float)\n    return c\n"
            "def ramp(t, width):\n    width = _positive(width, name='width')\n    return jnp.where(t < width, t / width, 1.0)\n"
        ),
        Valid("import torch\ndef _check(c):\n    assert c > 0\ndef ramp(t, c):\n    _check(c=c)\n    return torch.where(t < c, t / c, 1.0)\n"),
        # After `if rate == 1.0:` returns (from each branch of an inner `if`), `1.0 - rate` is never 0
        # (point 109): a range of `rate` would span the one value it misses.
        Valid(
            "import jax.numpy as jnp\nfrom jax import lax, random\ndef dropout(x, rate, key, with_mask):\n    if rate == 1.0:\n"
            "        if with_mask:\n            return jnp.zeros_like(x), None\n        else:\n            return jnp.zeros_like(x)\n"
            "    keep = 1.0 - rate\n    mask = random.bernoulli(key, keep, x.shape)\n    return lax.select(mask, x / keep, jnp.zeros_like(x))\n"
        ),
        # Where `mask` is false `tmp` is `2 * eps`, and a positive base to any power is positive
        # (point 108): `1 / tmp ** (1 / g)` has no pole there.
        Valid(
            "import torch\ndef coulomb(dist, h, mask, g, eps):\n"
            "    tmp = torch.where(mask, torch.pow(dist + eps, g), eps) + torch.where(mask, torch.pow(h, -g), eps)\n"
            "    return torch.where(mask, 1.0 / torch.pow(tmp, 1.0 / g), 0.0)\n"
        ),
        # A draw with no parameter that carries a gradient (point 114): the NaN reaches its key only.
        Valid("import jax\nimport jax.numpy as jnp\ndef noise(key, x):\n    u = jax.random.uniform(key, x.shape)\n    return jnp.where(u > 0.5, jnp.log(u - 0.1), 0.0)\n"),
        # The pole is where the branch is selected (point 104): at `q == 0`, `omq2` is 1, so the
        # condition is false and `c / q` is the output there; the select hides nothing.
        Valid("import jax.numpy as jnp\ndef f(q, c):\n    omq2 = 1.0 - q * q\n    return jnp.where(omq2 == 0.0, 0.0, c / q)\n"),
        Valid("import jax.numpy as jnp\ndef f(q, c, m):\n    omq2 = 1.0 - q * q\n    return jnp.where((omq2 == 0.0) & m, 0.0, c / q)\n"),
        # `relu`'s gradient selects 0 wherever its value is 0 (point 111): the NaN that `sqrt` or
        # `log` makes there goes no further. TensorFlow's eager kernel multiplies instead, which
        # `sqrt`'s own eager gradient survives (it returns 0 for a zero cotangent).
        Valid("import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(jax.nn.relu(x)), 0.0)\n"),
        Valid("import torch\ndef f(x):\n    r = torch.relu(x)\n    return torch.where(x > 0, r.log(), 0.0)\n"),
        Valid("import tensorflow as tf\ndef f(x):\n    return tf.where(x > 0, tf.sqrt(tf.nn.relu(x)), 0.0)\n"),
        # A helper's op (point 112) is reported only where the condition provably puts it at its
        # pole, as an inner select's is: `t / (c * s)` written in place is a medium finding.
        Valid("import jax.numpy as jnp\ndef _ratio(a, b):\n    return a / b\ndef f(t, c, s):\n    return jnp.where(t < c, _ratio(t, c * s), 1.0)\n"),
        # ... and never inside a function with a derivative of its own: autodiff does not enter it.
        Valid(
            "import jax\nimport jax.numpy as jnp\n@jax.custom_jvp\ndef _root(x):\n    return jnp.sqrt(x)\n"
            "_root.defjvps(lambda t, y, x: t * 0.5)\ndef f(x):\n    return jnp.where(x > 0, _root(x), 0.0)\n"
        ),
        # A condition held by a local, of the value as bound where the mask reads it (point 175).
        Valid("import jax.numpy as jnp\ndef f(x):\n    x = x - 1.0\n    ok = x > 0\n    return jnp.where(x > 5, jnp.log(jnp.where(ok, x, 1.0)), 0.0)\n"),
        Valid("import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n    y = x - 1.0\n    return jnp.where(y > 5, jnp.log(jnp.where(ok, x, 1.0)), 0.0)\n"),
        # ... and a walrus in the condition binds the value it tests.
        Valid("import jax.numpy as jnp\ndef f(x):\n    y = x\n    return jnp.where(x > 5, jnp.log(jnp.where((y := x - 1.0) > 0, y, 1.0)), 0.0)\n"),
    )
    INVALID = (
        # Where `all(k == 0)` holds, `k2` is 0 whatever `box` is: the select puts the pole there
        # (point 148), reported at high confidence.
        Invalid(
            "import jax.numpy as jnp\ndef ewald(k, box):\n    k_cart = 2 * jnp.pi * k / box\n    k2 = jnp.dot(k_cart, k_cart)\n"
            "    return jnp.where(jnp.all(k == 0), 0.0, 1.0 / k2)\n",
            line=5,
            fixed="import jax.numpy as jnp\ndef ewald(k, box):\n    k_cart = 2 * jnp.pi * k / box\n    k2 = jnp.dot(k_cart, k_cart)\n"
            "    return jnp.where(jnp.all(k == 0), 0.0, 1.0 / jnp.where(jnp.all(k == 0), 1.0, k2))\n",
        ),
        # A store into some elements puts data there (point 150): `d` is `x` where `m` holds.
        Invalid(
            "import torch\ndef inverse(x, m):\n    d = torch.ones_like(x)\n    d[m] = x[m]\n    return torch.where(m, 0.0, 1 / d)\n",
            line=5,
            fixed="import torch\ndef inverse(x, m):\n    d = torch.ones_like(x)\n    d[m] = x[m]\n    return torch.where(m, 0.0, 1 / torch.where(m, 1.0, d))\n",
        ),
        # A static divisor still sends `0 * (1 / n)` into a traced numerator (point 146).
        Invalid(
            "from functools import partial\nimport jax\nimport jax.numpy as jnp\n@partial(jax.jit, static_argnames='n')\n"
            "def f(w, n):\n    return jnp.where(n > 0, w / n, 0.0)\n",
            line=6,
            fixed="from functools import partial\nimport jax\nimport jax.numpy as jnp\n@partial(jax.jit, static_argnames='n')\n"
            "def f(w, n):\n    return jnp.where(n > 0, w / jnp.where(n > 0, n, 1.0), 0.0)\n",
        ),
        # ... but not a function of the count that is 0 elsewhere: `log(count)` is 0 at one value.
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef segment_log_mean(x, ids, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, n)\n    return jnp.where(count > 1, total / jnp.log(count), 0.0)\n",
            line=6,
            fixed="import jax\nimport jax.numpy as jnp\ndef segment_log_mean(x, ids, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, n)\n    return jnp.where(count > 1, total / jnp.where(count > 1, jnp.log(count), 1.0), 0.0)\n",
        ),
        # ... but not a quotient something else is computed from: its NaN value at an empty slot
        # sends `0 * NaN` into `scale` (point 141).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, n, scale):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, n)\n    return jnp.where(count > 0, total / count * scale, 0.0)\n",
            line=6,
            fixed="import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, n, scale):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, n)\n    return jnp.where(count > 0, total / jnp.where(count > 0, count, 1.0) * scale, 0.0)\n",
        ),
        # ... nor a count with another number of segments, which broadcasts its 0 (point 141).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, 1)\n    return jnp.where(count > 0, total / count, 0.0)\n",
            line=6,
            fixed="import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), ids, 1)\n    return jnp.where(count > 0, total / jnp.where(count > 0, count, 1.0), 0.0)\n",
        ),
        # ... but a count by other indices may be 0 where the sum holds values (point 141).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, seen, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), seen, n)\n    return jnp.where(count > 0, total / count, 0.0)\n",
            line=6,
            fixed="import jax\nimport jax.numpy as jnp\ndef segment_mean(x, ids, seen, n):\n    total = jax.ops.segment_sum(x, ids, n)\n"
            "    count = jax.ops.segment_sum(jnp.ones_like(x), seen, n)\n    return jnp.where(count > 0, total / jnp.where(count > 0, count, 1.0), 0.0)\n",
        ),
        # ... but a check says nothing where it does not run on the way (point 101): in one arm of an
        # `if`, of a value bound anew after it, or of one element when `all` of them are tested.
        Invalid(
            "import jax.numpy as jnp\ndef ramp(t, c, strict):\n    if strict:\n        if c <= 0:\n            raise ValueError(c)\n"
            "    return jnp.where(t < c, t / c, 1.0)\n",
            line=6,
            fixed="import jax.numpy as jnp\ndef ramp(t, c, strict):\n    if strict:\n        if c <= 0:\n            raise ValueError(c)\n"
            "    return jnp.where(t < c, t / jnp.where(t < c, c, 1.0), 1.0)\n",
        ),
        # ... but not when the rule passes it the tangent, or the function calls it too.
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef taper(f, y):\n    @jax.custom_jvp\n    def g(x, y):\n        return jnp.where(x < y, 1.0, 0.0)\n"
            "    def g_der(x, y):\n        return jnp.where(x <= y, 0.0, 1.0 / (x - y))\n"
            "    g.defjvps(None, lambda y_dot, out, x, y: g_der(x, y) * y_dot)\n    return g(f, y) + g_der(f, y)\n",
            line=8,
        ),
        # ... but `1e-12` within its tolerance is no replacement: `d + 1e-12` is 0 at `d = -1e-12`.
        Invalid("import jax.numpy as jnp\njnp.where(jnp.isclose(d, 0), 0.0, g / (d + 1e-12 * jnp.isclose(d, 0)))\n", line=2),
        Invalid("import jax.numpy as jnp\ndef ramp(t, c, d):\n    if c <= 0:\n        raise ValueError(c)\n    c = d\n    return jnp.where(t < c, t / c, 1.0)\n", line=6),
        Invalid("import jax.numpy as jnp\ndef ramp(t, c):\n    if jnp.all(c <= 0):\n        raise ValueError(c)\n    return jnp.where(t < c, t / c, 1.0)\n", line=5),
        # ... but not a helper that may return before its check, nor one that returns another value
        # than its parameter, nor a check called in one arm of an `if` only.
        Invalid(
            "import jax.numpy as jnp\ndef _scale(c):\n    if c is None:\n        return 1.0\n    if c <= 0:\n        raise ValueError(c)\n"
            "    return c\ndef ramp(t, c):\n    c = _scale(c)\n    return jnp.where(t < c, t / c, 1.0)\n",
            line=10,
        ),
        Invalid(
            "import jax.numpy as jnp\ndef _shifted(c):\n    if c <= 0:\n        raise ValueError(c)\n    return c - 1.0\n"
            "def ramp(t, c):\n    c = _shifted(c)\n    return jnp.where(t < c, t / c, 1.0)\n",
            line=8,
        ),
        Invalid(
            "import jax.numpy as jnp\ndef _check_scale(c):\n    if c <= 0:\n        raise ValueError(c)\n"
            "def ramp(t, c, strict):\n    if strict:\n        _check_scale(c)\n    return jnp.where(t < c, t / c, 1.0)\n",
            line=8,
        ),
        # A helper returning a call of itself carries no value (and its reading ends).
        Invalid(
            "import jax.numpy as jnp\ndef _loop(c):\n    return _loop(c)\ndef _check(c):\n    if c <= 0:\n        raise ValueError(c)\n"
            "    return _loop(c)\ndef ramp(t, c):\n    c = _check(c)\n    return jnp.where(t < c, t / c, 1.0)\n",
            line=10,
        ),
        # ... but one made to receive a gradient (`requires_grad_()`, `requires_grad=True`) can.
        Invalid("import torch\ndef f():\n    q = torch.zeros(4).requires_grad_()\n    return torch.where(q > 0, q.log(), 0.0)\n", line=4),
        # A sine reaches 0 at pi (written `jnp.pi`, a float a hair below it), and a cosine at pi/2,
        # inside (-1, 2): point 129 reads no pole only where there is none.
        Invalid(
            "import jax.numpy as jnp\njnp.where((x > 0.5) & (x <= jnp.pi), 0.0, g / jnp.sin(x))\n",
            line=2,
            fixed="import jax.numpy as jnp\njnp.where((x > 0.5) & (x <= jnp.pi), 0.0, g / jnp.where((x > 0.5) & (x <= jnp.pi), 1.0, jnp.sin(x)))\n",
        ),
        Invalid("import jax.numpy as jnp\njnp.where((x > -1.0) & (x < 2.0), 0.0, g / jnp.cos(x))\n", line=2),
        # ... and a tangent at pi, inside (0.5, 3.5), where it also passes its pole at pi/2.
        Invalid("import jax.numpy as jnp\njnp.where((x > 0.5) & (x < 3.5), 0.0, g / jnp.tan(x))\n", line=2),
        # An integer cast of an attribute into itself rounds it, to 0 here: no move (point 131).
        Invalid(
            "import torch\nclass Tail:\n    def __init__(self, p: float, device=None):\n        assert p > 0 and p < 0.5\n"
            "        self.p = torch.tensor(p)\n        self.p = self.p.to(torch.int64)\n"
            "    def icdf(self, q):\n        return torch.where(q < self.p, q / self.p, 1.0)\n",
            line=8,
            fixed=(
                "import torch\nclass Tail:\n    def __init__(self, p: float, device=None):\n        assert p > 0 and p < 0.5\n"
                "        self.p = torch.tensor(p)\n        self.p = self.p.to(torch.int64)\n"
                "    def icdf(self, q):\n        return torch.where(q < self.p, q / torch.where(q < self.p, self.p, 1.0), 1.0)\n"
            ),
        ),
        # An array API namespace is an array module (point 67), as `jnp` is.
        Invalid("def f(y):\n    xp = y.__array_namespace__()\n    return xp.where(y > 0, xp.sqrt(y), 0.0)\n", line=3),
        # So is a backend object whose `where` takes a condition and two branches (point 83).
        Invalid(
            "def f(y, backend=None):\n    B = backends.active if backend is None else backends[backend]\n"
            "    return B.where(y > 0, B.log(y), 0.0)\n",
            line=3,
            fixed=(
                "def f(y, backend=None):\n    B = backends.active if backend is None else backends[backend]\n"
                "    return B.where(y > 0, B.log(B.where(y > 0, y, 1.0)), 0.0)\n"
            ),
        ),
        # MXNet's comparisons are spelled `broadcast_lesser`, `lesser_equal` (point 132): where `y < 20`
        # leaves the branch unselected, `expm1(y)` reaches 0 and below.
        Invalid(
            "def f(F, y):\n    return F.where(F.broadcast_lesser(y, 20.0), y, F.log(F.expm1(y)))\n",
            line=2,
            fixed="def f(F, y):\n    return F.where(F.broadcast_lesser(y, 20.0), y, F.log(F.where(F.broadcast_lesser(y, 20.0), 1.0, F.expm1(y))))\n",
        ),
        # ... and an object of the package's own, imported relatively (point 89): nanlint resolves
        # no relative import, so its use says what it is.
        Invalid(
            "from ..backend_obj import backend\ndef f(y):\n    return backend.where(y > 0, backend.log(y), 0.0)\n",
            line=3,
            fixed="from ..backend_obj import backend\ndef f(y):\n    return backend.where(y > 0, backend.log(backend.where(y > 0, y, 1.0)), 0.0)\n",
        ),
        # A mask on other data is no guard (point 91): where `y == 1` and `x` or `z` is not 0, `y_`
        # is 1, and arccos's derivative is infinite there (a unit vector rounds to that in float).
        Invalid(
            "import jax.numpy as jnp\ndef beta(x, y, z):\n    y_ = jnp.where((x == 0) & (z == 0), 0.0, y)\n"
            "    return jnp.where(y == 1.0, 0.0, jnp.arccos(y_))\n",
            line=4,
            fixed=(
                "import jax.numpy as jnp\ndef beta(x, y, z):\n    y_ = jnp.where((x == 0) & (z == 0), 0.0, y)\n"
                "    return jnp.where(y == 1.0, 0.0, jnp.arccos(jnp.where(y == 1.0, 0.0, y_)))\n"
            ),
        ),
        # A mask keeps off the pole only the values its condition sends to the safe value (point
        # 172): `x >= 0` keeps x = 0, where `x > 0` leaves the log unselected.
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.log(jnp.where(x >= 0, x, 1.0)), 0.0)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(x):\n    return jnp.where(x > 0, jnp.log(jnp.where(x > 0, jnp.where(x >= 0, x, 1.0), 1.0)), 0.0)\n",
        ),
        # An `and` with a side about other data keeps no more than its own side lets through.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, m):\n    return jnp.where(x > 0, jnp.log(jnp.where((x >= 0) & m, x, 1.0)), 0.0)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(x, m):\n    return jnp.where(x > 0, jnp.log(jnp.where(x > 0, jnp.where((x >= 0) & m, x, 1.0), 1.0)), 0.0)\n",
        ),
        # A condition held by a local tests the value its names had there (point 175): `ok` is
        # `x > 0` of the `x` before `x - 1.0`, so the mask keeps the new x = 0.
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n    x = x - 1.0\n"
            "    return jnp.where(x > 5, jnp.log(jnp.where(ok, x, 1.0)), 0.0)\n",
            line=5,
            fixed=(
                "import jax.numpy as jnp\ndef f(x):\n    ok = x > 0\n    x = x - 1.0\n"
                "    return jnp.where(x > 5, jnp.log(jnp.where(x > 5, jnp.where(ok, x, 1.0), 1.0)), 0.0)\n"
            ),
        ),
        # ... and its other names mean what they did there: `ok` is `x > -1`, which keeps x = 0.
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    t = -1.0\n    ok = x > t\n    t = 0.0\n"
            "    return jnp.where(x > 5, jnp.log(jnp.where(ok, x, 1.0)), 0.0)\n",
            line=6,
            fixed=(
                "import jax.numpy as jnp\ndef f(x):\n    t = -1.0\n    ok = x > t\n    t = 0.0\n"
                "    return jnp.where(x > 5, jnp.log(jnp.where(x > 5, jnp.where(ok, x, 1.0), 1.0)), 0.0)\n"
            ),
        ),
        # `pos` is `x > 1` of the old x: the new x is 0 at the old x = 2, where `pos` holds and the
        # division's branch is unselected (not selected at the pole, as the new x would say).
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    pos = x > 1\n    x = x - 2.0\n    return jnp.where(pos, 0.0, 1.0 / x)\n",
            line=5,
            fixed=(
                "import jax.numpy as jnp\ndef f(x):\n    pos = x > 1\n    x = x - 2.0\n"
                "    return jnp.where(pos, 0.0, 1.0 / jnp.where(pos, 1.0, x))\n"
            ),
        ),
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    safe = jnp.where(x >= 0, x, 1.0)\n    return jnp.where(x > 0, jnp.log(safe), 0.0)\n",
            line=4,
            fixed="import jax.numpy as jnp\ndef f(x):\n    safe = jnp.where(x >= 0, x, 1.0)\n    return jnp.where(x > 0, jnp.log(jnp.where(x > 0, safe, 1.0)), 0.0)\n",
        ),
        # ... but not the op's other inputs (point 92): where `v == 0` the divisor is the safe
        # value 0, and d/da a/y = 1/y is infinite there.
        Invalid(
            "import torch\ndef t(a, v):\n    safe = torch.where(v != 0, v, 0.0)\n    return torch.where(v != 0, a / safe, 0.0)\n",
            line=4,
            fixed="import torch\ndef t(a, v):\n    safe = torch.where(v != 0, v, 0.0)\n    return torch.where(v != 0, a / torch.where(v != 0, safe, 1.0), 0.0)\n",
        ),
        # A keyword that configures a call (`device=dev`) is no data (point 96): `mask` tests `ref`,
        # not `expw`, so `norm` is 0 where every weight underflows, and `expw / norm` leaks there.
        Invalid(
            "import torch\ndef weights(cn, ref, dev):\n    mask = ref.to(device=dev) > 0\n"
            "    expw = torch.where(mask, torch.exp(-cn * cn), torch.zeros(1, device=dev))\n"
            "    norm = torch.where(mask, expw.sum(-1, keepdim=True), torch.ones(1, device=dev))\n"
            "    return torch.where(norm > 1e-30, expw / norm, 0.0)\n",
            line=6,
            fixed=(
                "import torch\ndef weights(cn, ref, dev):\n    mask = ref.to(device=dev) > 0\n"
                "    expw = torch.where(mask, torch.exp(-cn * cn), torch.zeros(1, device=dev))\n"
                "    norm = torch.where(mask, expw.sum(-1, keepdim=True), torch.ones(1, device=dev))\n"
                "    return torch.where(norm > 1e-30, expw / torch.where(norm > 1e-30, norm, 1.0), 0.0)\n"
            ),
        ),
        # What a condition is made of is read from its expression, held by a local or not (point
        # 97): `d > 0` relates to `c` four locals deep, and so does `m` after `m = d > 0`.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, y):\n    a = x * 2\n    b = a + 1\n    c = b * 3\n    d = c - 1\n"
            "    return jnp.where(d > 0, y / c, 0.0)\n",
            line=7,
            fixed=(
                "import jax.numpy as jnp\ndef f(x, y):\n    a = x * 2\n    b = a + 1\n    c = b * 3\n    d = c - 1\n"
                "    return jnp.where(d > 0, y / jnp.where(d > 0, c, 1.0), 0.0)\n"
            ),
        ),
        # The values of `top_k` carry a cotangent back (point 90), its indices none.
        Invalid("import tensorflow as tf\ndef f(x, n, k):\n    s = tf.where(n > 0, x / n, 0.0)\n    v, _ = tf.math.top_k(s, k)\n    return v\n", line=3),
        # A local assigned a call of itself resolves to nothing, and the file is still read.
        Invalid(
            "import jax.numpy as jnp\ndef f(force_fn, r):\n    force = force_fn(r)\n    force = force(r)\n"
            "    n = jnp.linalg.norm(force)\n    return jnp.where(n > 1.0, force / n, force)\n",
            line=6,
        ),
        # A NaN or infinite placeholder multiplied by data (point 84): d/ds (nan * s) = nan, so the
        # zero cotangent where the branch is not selected becomes NaN in `s`.
        Invalid(
            "import jax.numpy as jnp\ndef f(s, x):\n    return jnp.where(x == 1.0, jnp.inf * x, s * x)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(s, x):\n    return jnp.where(x == 1.0, jnp.inf * jnp.where(x == 1.0, x, 1.0), s * x)\n",
        ),
        # ... and so does a NaN put in by a where, where that where takes its NaN side (point 85).
        Invalid(
            "import jax.numpy as jnp\ndef f(u, m):\n    u_inf = u == jnp.inf\n    u = jnp.where(u_inf, jnp.nan, u)\n"
            "    return jnp.where(u_inf, 0.0, u * m)\n",
            line=5,
        ),
        # ... and of two placeholders, the one that holds its value gets the other's NaN: d/ds
        # (s * xi) = xi, NaN where `xi_0` holds (point 86).
        Invalid(
            "import jax.numpy as jnp\ndef f(s, xi):\n    xi_0 = xi == 0.0\n    xi = jnp.where(xi_0, jnp.nan, xi)\n"
            "    s = jnp.where(s > -1.0, s, jnp.nan)\n    return jnp.where(xi_0, s, s * xi)\n",
            line=6,
            fixed="import jax.numpy as jnp\ndef f(s, xi):\n    xi_0 = xi == 0.0\n    xi = jnp.where(xi_0, jnp.nan, xi)\n"
            "    s = jnp.where(s > -1.0, s, jnp.nan)\n    return jnp.where(xi_0, s, jnp.where(xi_0, 1.0, s) * xi)\n",
        ),
        # A NaN placeholder that a later select leaves out where it was put in: the value is
        # finite there, and the zero cotangent meets the pole (point 87).
        Invalid(
            "import jax.numpy as jnp\ndef f(x, s):\n    bad = x == 0.0\n    q = jnp.where(bad, jnp.nan, s / x)\n"
            "    return jnp.where(bad, 0.0, q * 2.0)\n",
            line=4,
            fixed="import jax.numpy as jnp\ndef f(x, s):\n    bad = x == 0.0\n    q = jnp.where(bad, jnp.nan, s / jnp.where(bad, 1.0, x))\n"
            "    return jnp.where(bad, 0.0, q * 2.0)\n",
        ),
        # ... and so does a NaN mask after it (`nan_to_num`, `where(isnan(s), ...)`, a method too):
        # it replaces the NaN wherever the placeholder put it in (point 174).
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    s = jnp.where(x > 0, jnp.sqrt(x), jnp.nan)\n    return jnp.nan_to_num(s)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(x):\n    s = jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), jnp.nan)\n    return jnp.nan_to_num(s)\n",
        ),
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    s = jnp.where(x > 0, jnp.log(x), jnp.nan)\n    return jnp.where(jnp.isnan(s), 0.0, s)\n",
            line=3,
        ),
        Invalid(
            "import torch\ndef f(x):\n    s = torch.where(x > 0, torch.log(x), float('nan'))\n    return s.nan_to_num()\n",
            line=3,
            fixed="import torch\ndef f(x):\n    s = torch.where(x > 0, torch.log(torch.where(x > 0, x, 1.0)), float('nan'))\n    return s.nan_to_num()\n",
        ),
        # A remainder of a positive divisor reaches 0.
        Invalid("import jax.numpy as jnp\ndef f(t):\n    return jnp.where(t > 1, jnp.sqrt(t % 500), 0.0)\n", line=3),
        # No gradient reaches a draw, but multiplied by data its logarithm is the data's derivative:
        # -inf at 0, and NaN by the unselected branch's zero cotangent (point 159; run in all three).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = jax.random.uniform(key, w.shape)\n"
            "    return jnp.where(u > 0.5, jnp.log(u) * w, 0.0)\n",
            line=5,
            fixed="import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = jax.random.uniform(key, w.shape)\n"
            "    return jnp.where(u > 0.5, jnp.log(jnp.where(u > 0.5, u, 1.0)) * w, 0.0)\n",
        ),
        Invalid("import torch\ndef f(x):\n    u = torch.rand_like(x)\n    return torch.where(u > 0.5, -torch.log(u) * x, x)\n", line=4),
        # So is a power's value, read by its exponent (`u ** -0.5`: infinite at 0).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = jax.random.uniform(key, w.shape)\n"
            "    return jnp.where(u > 0.5, u ** -0.5 * w, 0.0)\n",
            line=5,
            fixed="import jax\nimport jax.numpy as jnp\ndef f(key, w):\n    u = jax.random.uniform(key, w.shape)\n"
            "    return jnp.where(u > 0.5, jnp.where(u > 0.5, u, 1.0) ** -0.5 * w, 0.0)\n",
        ),
        # A condition on a random draw that leaves the draw's pole unselected, where a gradient reaches
        # the draw through its distribution's parameter (`minval`).
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef f(key, lo):\n    u = jax.random.uniform(key, (3,), minval=lo)\n"
            "    return jnp.where(u > 0.5, jnp.log(u), 0.0)\n",
            line=5,
        ),
        # A factor the condition is made of still reaches 0 there: the where is aimed at this pole.
        Invalid("import jax.numpy as jnp\ndef f(q, eta, y):\n    omq2 = 1.0 - q * q\n    return jnp.where(omq2 == 0.0, 0.0, y / (eta * omq2))\n", line=4),
        Invalid("import jax.numpy as jnp\ndef f(x, n):\n    return jnp.where(x > 0, jnp.log(x * n), 0.0)\n", line=3),
        # The condition splits a factor of the divisor at 0: the product is 0 there, whatever `tau`.
        Invalid("import jax.numpy as jnp\njnp.where(x == 0, 1.0, 1.0 / (x * tau))\n", line=2),
        # A guard under an `if` may not have run: with `backprop=True` the gradient flows, and with
        # `clip=False` `d` is not clamped.
        Invalid(
            "import jax\nimport jax.numpy as jnp\ndef f(h, t, backprop=False):\n    if not backprop:\n"
            "        h = jax.lax.stop_gradient(h)\n        t = jax.lax.stop_gradient(t)\n"
            "    return jnp.where(h == 0, 0.0, t / h)\n",
            line=7,
        ),
        Invalid(
            "import jax.numpy as jnp\ndef f(d, clip=True):\n    if clip:\n        d = jnp.maximum(d, 1.0)\n"
            "    return jnp.where(d > 2, 1.0 / d, 0.0)\n",
            line=5,
        ),
        # A helper that only scales its argument keeps nothing off the pole.
        Invalid(
            "import jax.numpy as jnp\ndef _scaled(x):\n    return 2.0 * x\ndef f(x):\n    return jnp.where(x > 0, jnp.sqrt(_scaled(x)), 0.0)\n",
            line=5,
            fixed="import jax.numpy as jnp\ndef _scaled(x):\n    return 2.0 * x\n"
            "def f(x):\n    return jnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, _scaled(x), 1.0)), 0.0)\n",
        ),
        # torch's `floor` and `round` send a zero back (not nothing): 0 * inf in the op; and
        # `backward()` starts reverse mode from the value.
        Invalid("import torch\ntorch.where(x > 0, torch.floor(torch.sqrt(x)), 0.0)\n", line=2),
        # Where the enclosing select takes 0, the nested one is unselected whole: `x == 0` puts both
        # divisions at their pole, whatever `y > 0` says.
        Invalid("import jax.numpy as jnp\njnp.where(x == 0, 0.0, jnp.where(y > 0, 1.0 / x, 2.0))\n", line=2),
        # A varying exponent may be below 1 and not an integer: the base's pole is x <= 0.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, p):\n    return jnp.where(x > 0, x ** p, 0.0)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(x, p):\n    return jnp.where(x > 0, jnp.where(x > 0, x, 1.0) ** p, 0.0)\n",
        ),
        # An infinite placeholder licenses nothing: reduced by `minimum`, the value is finite where
        # `dx == 0`, and its gradient NaN.
        Invalid("import jax.numpy as jnp\ndef step(d, dx):\n    return jnp.minimum(jnp.where(dx < 0, -d / dx, jnp.inf), 1.0)\n", line=3),
        # ... but a select of what the tangents flow through is transposed: `t / x` at `x == 0`.
        Invalid(
            "import jax\nimport jax.numpy as jnp\n@jax.custom_jvp\ndef g(x):\n    return jnp.maximum(x, 0.0)\n"
            "def _g_jvp(primals, tangents):\n    (x,), (t,) = primals, tangents\n"
            "    return g(x), jnp.where(x > 0, t / x * x, 0.0)\ng.defjvp(_g_jvp)\n",
            line=8,
        ),
        # torch's own root has no bound above 0: `q / torch.sqrt(rads)` is singular at `rads == 0`
        # (tad-mctc's clamped one is not, point 127).
        Invalid("import torch\ndef f(q, rads):\n    return torch.where(rads > 0, q / torch.sqrt(rads), 0.0)\n", line=3),
        # TensorFlow's `compat.v2` module holds `compat` again: `tf` here is `tensorflow.compat.v2`.
        Invalid("import tensorflow.compat.v2 as tf\ntf.compat.v2.where(x > 0, tf.sqrt(x), 0.0)\n", line=2),
        Invalid("import jax.numpy as jnp\ndef wrap(x, L):\n    return jnp.where(L > 0, x % L, x)\n", line=3),
        Invalid("import torch\ndef f(x):\n    y = torch.where(x > 0, x.sqrt(), 0.0)\n    return torch.round(y)\n", line=3),
        Invalid("import torch\ndef f(x):\n    y = torch.where(x > 0, x.sqrt(), 0.0)\n    y.sum().backward()\n", line=3),
        Invalid(
            "import jax.numpy as jnp\njnp.where(x > 0, jnp.sqrt(x), 0.0)\n",
            line=2,
            fixed="import jax.numpy as jnp\njnp.where(x > 0, jnp.sqrt(jnp.where(x > 0, x, 1.0)), 0.0)\n",
        ),
        Invalid("import jax.numpy as np\nnp.where(n > 0, t / n, 0.0)\n", line=2, fixed="import jax.numpy as np\nnp.where(n > 0, t / np.where(n > 0, n, 1.0), 0.0)\n"),
        Invalid("from jax.numpy import where as w, log\nw(x > 1, log(x - 1), 0.0)\n", line=2),
        Invalid(
            "import tensorflow as tf\ntf.where(x > 0, tf.math.sqrt(x), 0.0)\n",
            line=2,
            fixed="import tensorflow as tf\ntf.where(x > 0, tf.math.sqrt(tf.where(x > 0, x, tf.ones_like(x))), 0.0)\n",
        ),
        Invalid("import torch\ntorch.where(x > 0, x.sqrt(), 0.0)\n", line=2),
        Invalid("import torch\nx.log().where(x > 0, 0.0)\n", line=2, fixed="import torch\nx.where(x > 0, 1.0).log().where(x > 0, 0.0)\n"),
        Invalid("import jax.numpy as jnp\njnp.where(x <= 0, 0.0, x ** 0.5)\n", line=2, fixed="import jax.numpy as jnp\njnp.where(x <= 0, 0.0, jnp.where(x <= 0, 1.0, x) ** 0.5)\n"),
        Invalid("from jax import lax\nlax.select(x > 0, jnp.arctan2(y, x), jnp.zeros_like(x))\nimport jax.numpy as jnp\n", line=2),
        # `angle(z)` is `arctan2(imag(z), real(z))` (point 136): NaN at z = 0 in JAX and TensorFlow.
        Invalid(
            "import jax.numpy as jnp\ndef phase(z):\n    return jnp.where(jnp.abs(z) > 0, jnp.angle(z), 0.0)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef phase(z):\n    return jnp.where(jnp.abs(z) > 0, jnp.angle(jnp.where(jnp.abs(z) > 0, z, 1.0)), 0.0)\n",
        ),
        # A name is no guard: only what the code computes is (`unsafe_x` and `x_unsafe` are plain data).
        Invalid("import jax.numpy as jnp\njnp.where(unsafe_x > 0, jnp.sqrt(unsafe_x), 0.0)\n", line=2),
        Invalid("import jax.numpy as jnp\ndef f(x_safe):\n    return jnp.where(x_safe > 0, jnp.log(x_safe), 0.0)\n", line=3),
        # A where between two data guards nothing: `angle` is 0 at the identity rotation.
        Invalid(
            "import jax.numpy as jnp\ndef f(q):\n    q = jnp.where(q[3] < 0, -q, q)\n    angle = jnp.arctan2(jnp.linalg.norm(q[:3]), q[3])\n"
            "    return jnp.where(angle <= 1e-3, 2.0, angle / jnp.sin(angle / 2))\n",
            line=5,
        ),
        # A mask on the select's condition guards nothing when its own value puts the op at its pole
        # and the cotangent is mixed across elements on the way back: where `valid` is false, `m`
        # is 0 and `log(0)` is the pole, and the sum sends 0 * inf = NaN to every element of `x`.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, valid):\n    m = jnp.where(valid, x, 0.0)\n"
            "    return jnp.where(valid, jnp.log(m / jnp.maximum(jnp.sum(m), 1.0)), 0.0)\n",
            line=4,
            fixed=(
                "import jax.numpy as jnp\ndef f(x, valid):\n    m = jnp.where(valid, x, 0.0)\n"
                "    return jnp.where(valid, jnp.log(jnp.where(valid, m / jnp.maximum(jnp.sum(m), 1.0), 1.0)), 0.0)\n"
            ),
        ),
        # The masked mean: the count carries no gradient, the total does, through 1 / count.
        Invalid("import jax.numpy as jnp\ndef f(x, m):\n    n = jnp.sum(m > 0)\n    return jnp.where(n > 0, jnp.sum(x) / n, 0.0)\n", line=4),
        # A gradient-safe norm keeps its own derivative finite at 0, not its result off 0, nor the
        # numerator's derivative 1 / norm finite (torch: NaN at x = 0, run).
        Invalid("import torch\ndef f(x):\n    n = torch.linalg.norm(x, dim=-1, keepdim=True)\n    return torch.where(n < 1, x, x / n)\n", line=4),
        Invalid("import torch\ndef f(x):\n    n = torch.linalg.norm(x)\n    return torch.where(n < 1, n, 2 - 1 / n)\n", line=4),
        # A safe distance zeroes what comes back into it, not what the numerator gets.
        Invalid("import jax.numpy as jnp\nfrom jax_md import space\ndef f(dR):\n    dr = space.distance(dR)\n    return jnp.where(dr < 1.0, 0.0, dR / dr)\n", line=5),
        # A Python number is at its pole for every element or none: a where that tests it selects
        # nothing when it is (`r == 0`), and the value is finite while the gradient is NaN.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, r: float):\n    return jnp.where(r > 0, x / r, 0.0)\n",
            line=3,
            fixed="import jax.numpy as jnp\ndef f(x, r: float):\n    return jnp.where(r > 0, x / jnp.where(r > 0, r, 1.0), 0.0)\n",
        ),
        Invalid("import jax.numpy as jnp\ndef f(x, r: float):\n    ok = (x > 0) & (r > 0)\n    return jnp.where(ok, jnp.log(x) / r, 0.0)\n", line=4),
        # A grid made of Python numbers differs element by element: `t` may be 0 where `x >= t`.
        Invalid(
            "import jax.numpy as jnp\ndef f(x, a: float, b: float, n: int):\n    t = jnp.linspace(a, b, n)\n    return jnp.where(x < t, x / t, 0.0)\n",
            line=4,
            fixed="import jax.numpy as jnp\ndef f(x, a: float, b: float, n: int):\n    t = jnp.linspace(a, b, n)\n    return jnp.where(x < t, x / jnp.where(x < t, t, 1.0), 0.0)\n",
        ),
        # The dropout of point 109, but one branch of the inner `if` goes on.
        Invalid(
            "import jax.numpy as jnp\nfrom jax import lax, random\ndef dropout(x, rate, key, with_mask):\n    if rate == 1.0:\n"
            "        if with_mask:\n            return jnp.zeros_like(x), None\n"
            "    keep = 1.0 - rate\n    mask = random.bernoulli(key, keep, x.shape)\n    return lax.select(mask, x / keep, jnp.zeros_like(x))\n",
            line=9,
        ),
        # A keep probability stored as a Python number is configuration, but the mask is drawn with
        # it: at `keep == 0` no element is selected, and `x / keep` leaks (point 113).
        Invalid(
            "import jax.numpy as jnp\nfrom jax import random\nclass Dropout:\n    def __init__(self, rate: float):\n"
            "        self.keep = 1.0 - rate\n    def __call__(self, x, key):\n"
            "        mask = random.bernoulli(key, self.keep, x.shape)\n        return jnp.where(mask, x / self.keep, 0.0)\n",
            line=8,
        ),
        # The spin couplings of point 104, but at `q == 0` an unknown `m` may select either side;
        # and `1 - q == 1` is true there.
        Invalid("import jax.numpy as jnp\ndef f(q, c, m):\n    omq2 = 1.0 - q * q\n    return jnp.where((omq2 == 0.0) | m, 0.0, c / q)\n", line=4),
        Invalid("import jax.numpy as jnp\ndef f(q, c):\n    omq = 1.0 - q\n    return jnp.where(omq == 1.0, 0.0, c / q)\n", line=4),
        # ... but `log`'s eager TensorFlow gradient multiplies 0 by inf, and so does `relu`'s: NaN
        # (run); a pole where `relu` passes its cotangent on (`arccos` at 1) is not dropped; nor is
        # the numerator's derivative, 1 / relu(y).
        Invalid("import tensorflow as tf\ndef f(x):\n    return tf.where(x > 0, tf.math.log(tf.nn.relu(x)), 0.0)\n", line=3),
        Invalid("import jax\nimport jax.numpy as jnp\ndef f(x):\n    return jnp.where(x < 0.5, jnp.arccos(jax.nn.relu(x)), 0.0)\n", line=4),
        Invalid("import jax\nimport jax.numpy as jnp\ndef f(x, y):\n    return jnp.where(y > 0, x / jax.nn.relu(y), 0.0)\n", line=4),
        # ... but a Parameter is a leaf, whatever it is made of, and so is a buffer given
        # `.requires_grad_()`, or a module's weight (point 143).
        Invalid(
            "import torch\nfrom torch import nn\nclass Gate(nn.Module):\n    def __init__(self):\n"
            "        super().__init__()\n        self.layer = nn.Linear(3, 3)\n"
            "    def forward(self, x):\n        w = self.layer.weight\n        return x @ torch.where(w > 0, torch.log(w), 0.0)\n",
            line=9,
        ),
        Invalid(
            "import torch\nfrom torch import nn\nclass Basis(nn.Module):\n    def __init__(self, n: int):\n"
            "        super().__init__()\n        self.grid = nn.Parameter(torch.linspace(0.0, 1.0, n))\n"
            "    def forward(self, x):\n        g = self.grid\n        return x * torch.where(g > 0, torch.sin(g) / g, torch.ones_like(g))\n",
            line=9,
            fixed="import torch\nfrom torch import nn\nclass Basis(nn.Module):\n    def __init__(self, n: int):\n"
            "        super().__init__()\n        self.grid = nn.Parameter(torch.linspace(0.0, 1.0, n))\n"
            "    def forward(self, x):\n        g = self.grid\n        return x * torch.where(g > 0, torch.sin(g) / torch.where(g > 0, g, 1.0), torch.ones_like(g))\n",
        ),
        Invalid(
            "import torch\nfrom torch import nn\nclass Basis(nn.Module):\n    def __init__(self, n: int):\n"
            "        super().__init__()\n        self.register_buffer('grid', torch.linspace(0.0, 1.0, n))\n        self.grid.requires_grad_()\n"
            "    def forward(self, x):\n        g = self.grid\n        return x * torch.where(g > 0, torch.sin(g) / g, torch.ones_like(g))\n",
            line=10,
        ),
        # A straight-line helper of the file computes its ops on the call's arguments (point 112):
        # `_pade` divides by `x2`, 0 at `x == 0`, where its branch is not selected. The fix is the
        # author's to place (in the helper, or on what the call passes): it is display-only.
        Invalid(
            "import jax.numpy as jnp\ndef _pade(x, x2):\n    y = 1.0 / x2\n    return y * (1.0 + y)\n"
            "def si(x):\n    x2 = x * x\n    return jnp.where(x2 > 16.0, jnp.cos(x) * _pade(x, x2), x)\n",
            line=7,
        ),
    )
