from nanlint.analysis.sites import SiteKind
from nanlint.rules.base import Invalid, Rule, Valid


class WhereBranchSingularLocal(Rule):
    """
    ## What it does
    Checks for a local variable, assigned earlier in the same function from an unguarded singular
    op, that is then used in a `where`/`select` branch.

    ## Why is this bad?
    Moving the op out of the `where` does not change what autodiff sees:
    `s = jnp.sqrt(x); jnp.where(x > 0, s, 0.0)` still evaluates `sqrt` at every element and
    still multiplies its infinite derivative by the zero cotangent of the unselected elements,
    giving NaN. The selection happens too late to protect anything.

    ## Example
    ```python
    import jax.numpy as jnp

    def f(x):
        s = jnp.log(x)
        return jnp.where(x > 0, s, 0.0)
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def f(x):
        s = jnp.log(jnp.where(x > 0, x, 1.0))
        return jnp.where(x > 0, s, 0.0)
    ```

    ## Fix safety
    The fix rewrites the definition of the local, so it is only offered when every use of the
    local sits under the same condition, and it is always unsafe: a reviewer should confirm that
    the masked definition is what every reader of the variable expects. Otherwise it is
    display-only.

    ## References
    - AlphaFold 3 `safe_select` docstring: values computed before the branch are not protected
    - JAX FAQ: "Gradients contain NaN where using where"
    """

    CODE = "NAN002"
    REPORTS = SiteKind.SINGULAR_LOCAL
    FIXABLE = True
    NAME = "where-branch-singular-local"
    SUMMARY = "Local assigned from a singular op is selected by a where/select later, too late to protect its gradient"
    MESSAGE = "`{local}` is selected in the {branch} branch of `{select}`, but it was computed by `{op}` on line {definition_row}, which gives NaN gradients where that branch is not selected: {why}"
    FIX_TITLE = "Mask the argument of `{op_name}` where `{local}` is defined"
    VALID = (
        # A binding in the other arm of the `if` that holds the select never runs on the way there
        # (point 139): `x` is the parameter.
        Valid(
            "import jax.numpy as jnp\ndef f(x, take_log):\n    if take_log:\n        x = jnp.log(x)\n"
            "    else:\n        x = jnp.where(x > 0, x, 0.0)\n    return x\n"
        ),
        # Nor one in an arm that returns (point 140).
        Valid(
            "import jax.numpy as jnp\ndef f(x, y, exact):\n    if exact:\n        x = jnp.sqrt(y)\n        return x\n"
            "    return jnp.where(x > 0, x, 0.0)\n"
        ),
        # An attribute every store of which is an `int` checked to be at least 0 (point 130): the
        # power is a polynomial, smooth at 0.
        Valid(
            "import torch\nclass Filter:\n    def __init__(self, mode: int = 0):\n        if mode not in [0, 1, 2, 3]:\n            raise ValueError(mode)\n        self.mode = mode\n"
            "    def forward(self, k, d):\n        n = torch.sum(k * d, dim=-1) ** self.mode\n"
            "        return torch.where(torch.linalg.norm(d, dim=-1) == 0, 0.0, n)\n"
        ),
        # The divisor carries its own epsilon where it is 0 (`n + eps * (n == 0)`): never 0.
        Valid(
            "import jax.numpy as jnp\ndef f(v):\n    norm = jnp.sum(v * v)\n    d = v / (norm + 1e-12 * (norm == 0))\n"
            "    return jnp.where(norm > 1, d, v)\n"
        ),
        # tad-mctc's `cdist` is clamped to at least eps**(1/p), and masked pairs hold a positive eps:
        # the product of their squares is positive, and so is what `sqrt` gets (point 127).
        Valid(
            "import torch\nfrom tad_mctc import storch\nfrom tad_mctc.batch import real_pairs, real_triples\ndef atm(numbers, positions):\n"
            "    pairs, triples = real_pairs(numbers), real_triples(numbers)\n    eps = torch.tensor(torch.finfo(positions.dtype).eps)\n"
            "    d = torch.pow(torch.where(pairs, storch.cdist(positions, positions), eps), 2.0)\n"
            "    r1 = torch.sqrt(d.unsqueeze(-1) * d.unsqueeze(-2))\n    return torch.where(triples, r1, eps)\n"
        ),
        # exp of an imaginary argument has modulus 1: it cannot overflow.
        Valid("import jax.numpy as jnp\ndef f(f, tc, h, cut):\n    shift = jnp.exp(2j * jnp.pi * f * tc)\n    return jnp.where(f < cut, h * shift, 0.0)\n"),
        # `omq2` is -inf or NaN wherever `q` is (at x1 == 0), so `omq2 == 0` leaves that pole selected.
        Valid(
            "import jax.numpy as jnp\ndef couplings(x1, x2, c):\n    q = x2 / x1\n    omq2 = 1.0 - q * q\n"
            "    safe = jnp.where(omq2 == 0.0, jnp.ones_like(omq2), omq2)\n"
            "    return jnp.where(omq2 == 0.0, jnp.zeros_like(omq2), c * (1.0 + q) / safe)\n"
        ),
        # The condition bounds the quotient itself where it is unselected (`un == 0` there); at the
        # pole the quotient is +-inf or NaN, where `un != 0` holds and the branch is selected.
        Valid(
            "import torch\ndef normalized(x, y, fx, fy, cx, cy):\n    un = (x - cx) / fx\n    vn = (y - cy) / fy\n"
            "    nonzero = (un != 0) | (vn != 0)\n    return torch.where(nonzero, un, torch.ones_like(un))\n"
        ),
        # A NaN placeholder, spelled as an array: the value is already invalid where it is selected.
        Valid(
            "import jax.numpy as jnp\nimport numpy as np\ndef f(x, b):\n    s = jnp.sum(jnp.exp(x) * b)\n"
            "    out = jnp.log(jnp.abs(s))\n    return jnp.where(jnp.sign(s) < 0, jnp.array(np.nan, dtype=jnp.float32), out)\n"
        ),
        # A divisor assigned with its own epsilon: the author moved it off the pole.
        Valid(
            "import tensorflow as tf\ndef iou(i, a, b):\n    union = a + b - i + 1e-8\n    ratio = i / union\n"
            "    return tf.where(union > 0.5, ratio, 0.0)\n"
        ),
        # einops moves the safe value without changing it.
        Valid(
            "import torch\nfrom einops import rearrange\ndef update(means, samples, bins):\n    zero_mask = bins == 0\n"
            "    safe = bins.masked_fill(zero_mask, 1)\n    new = samples.sum(1)\n    new = new / rearrange(safe, '... -> ... 1')\n"
            "    return torch.where(rearrange(zero_mask, '... -> ... 1'), means, new)\n"
        ),
        Valid("import jax.numpy as jnp\ndef f(x):\n    s = jnp.log(jnp.where(x > 0, x, 1.0))\n    return jnp.where(x > 0, s, 0.0)\n"),
        Valid("import jax.numpy as jnp\ndef f(x):\n    s = jnp.where(x > 0, x, 1.0)\n    return jnp.where(x > 0, jnp.log(s), 0.0)\n"),
        Valid("import jax.numpy as jnp\ndef f(x, s):\n    return jnp.where(x > 0, s, 0.0)\n"),
        # Both branches evaluate `x / d` (one through `a`): where `d == 0` the selected one's gradient
        # is infinite already, and masking `a` would change nothing.
        Valid("import jax.numpy as jnp\ndef f(x, d):\n    m = x / d\n    a = m * 2.0\n    return jnp.where(d > 1.0, a, m + 1.0)\n"),
        # Only the local's dtype is read: no value of it, and no cotangent into it.
        Valid("import jax.numpy as jnp\ndef f(x, y, s):\n    k = x / s\n    return jnp.where(s == 0, 0.0, jnp.asarray(y, dtype=k.dtype))\n"),
        # `where(r > 0, r, 1.0)` is positive: nothing computed from it divides by zero.
        Valid(
            "import jax.numpy as jnp\ndef hue(r, d, m):\n    safe = jnp.where(r > 0, r, 1.0)\n    norm = 1.0 / (6.0 * safe)\n"
            "    return jnp.where(m, norm * d, 0.0)\n"
        ),
        # No gradient flows back into an index: `(i + 1) % m` is not on the way.
        Valid("import jax.numpy as jnp\ndef f(h, i, m):\n    right = h[(i + 1) % m]\n    return jnp.where(m > 0, right, 0.0)\n"),
        # `1.0 / radius` of a Python number is at its pole for every element or none: if `radius`
        # were 0, `poly` would be infinite wherever it is selected; the where does not decide that.
        Valid(
            "import torch\ndef kernel(x, radius: float):\n    x_abs = x.abs() * (1.0 / radius)\n    poly = x_abs * 2.0 + 1.0\n"
            "    return torch.where(x_abs < 0.5, poly, 0.0)\n"
        ),
        # The same of `self.radius` when every store of the class puts a Python number there.
        Valid(
            "import torch\nclass Kernel:\n    def __init__(self, radius: float):\n        self.radius = float(radius)\n"
            "    def __call__(self, x):\n        x_abs = x.abs() * (1.0 / self.radius)\n        poly = x_abs * 2.0 + 1.0\n"
            "        return torch.where(x_abs < 0.5, poly, 0.0)\n"
        ),
        # Where `exp` overflows, `div` is -inf and `div * div > 0` holds: the overflow is selected
        # (point 115); unselected, `div == 0` and `exp == 1`.
        Valid(
            "import jax.numpy as jnp\ndef damping(x, gamma):\n    exp = jnp.exp(-gamma * x)\n    div = 1 - exp\n    mask = div * div > 0\n"
            "    return jnp.where(mask, jnp.exp(-exp / jnp.where(mask, div, 1)), 0)\n"
        ),
        # `r` is infinite or NaN wherever `q` is, so `r != 0` holds at the pole: it is selected.
        Valid("import jax.numpy as jnp\ndef f(a, d):\n    q = a / d\n    r = q * 2\n    return jnp.where(r != 0, q, 1.0)\n"),
        Valid("import torch\ndef f(a, d):\n    q = a / d\n    r = q * 2\n    return torch.where(r.ne(0), q, 1.0)\n"),
        # A condition reshaped to broadcast (`ok.unsqueeze(-1)`) selects the elements `ok` does:
        # the divisor was masked on it.
        Valid(
            "import torch\ndef column(residual, diagonal):\n    ok = diagonal > 0.0\n"
            "    divisor = torch.sqrt(torch.where(ok, diagonal, torch.ones_like(diagonal)))\n    values = residual / divisor.unsqueeze(-1)\n"
            "    return torch.where(ok.unsqueeze(-1), values, torch.zeros_like(values))\n"
        ),
        # A `range` loop's counter is a non-negative integer: `|s| ** i` is smooth, even at 0.
        Valid(
            "import torch\ndef expand(bound, s, n: int):\n    for i in range(n):\n        step = torch.pow(torch.abs(s), i)\n"
            "        bound = torch.where(s > 1, bound - step, bound)\n    return bound\n"
        ),
        # A clip to an epsilon that is no literal keeps the divisor above 0 (point 105): `safe_ra`
        # is at least `eps`, and so `safe_ra * safe_ra` is positive.
        Valid(
            "import numpy as np\nimport jax.numpy as jnp\ndef f(ra, rb):\n    eps = float(np.finfo(np.float64).eps)\n"
            "    safe_ra = jnp.clip(ra, min=eps)\n    ratio = -(rb * rb) / (safe_ra * safe_ra)\n    return jnp.where(ra > rb, ratio, 0.0)\n"
        ),
        # `arctan2(y, x)` is singular only at (0, 0): here `y` is +-`norm_safe`, which is 1 where
        # `small` holds and at least the root of an epsilon elsewhere (point 106): never 0.
        Valid(
            "import jax.numpy as jnp\ndef log_so3(w, v, eps):\n    norm_sq = jnp.sum(v * v, axis=-1)\n    small = norm_sq < eps\n"
            "    norm_safe = jnp.sqrt(jnp.where(small, 1.0, norm_sq))\n"
            "    atan_n_over_w = jnp.arctan2(jnp.where(w < 0, -norm_safe, norm_safe), jnp.abs(w))\n"
            "    return jnp.where(small, 2.0, jnp.where(jnp.abs(w) < eps, jnp.pi / norm_safe, 2.0 * atan_n_over_w / norm_safe))\n"
        ),
        # Where `big` holds, `use_exact = ~big & ...` is false, so `s_safe` is 1.0 and its log is 0
        # (point 110: an `and` one side of which the outer condition decides).
        Valid(
            "import jax.numpy as jnp\ndef log_abs(x, nu, beta, limit):\n    big = jnp.abs(x) > limit\n    x_for_s = jnp.where(big, 0.0, x)\n"
            "    s = nu * x_for_s + beta\n    use_exact = (~big) & (jnp.abs(s) > 0.0)\n    s_safe = jnp.where(use_exact, s, 1.0)\n"
            "    log_exact = jnp.log(jnp.abs(s_safe))\n    return jnp.where(big, nu + jnp.abs(x), log_exact)\n"
        ),
        # An integer cast cuts the gradient, also when a straight-line helper makes it (point 107).
        Valid(
            "import tensorflow as tf\ndef _to_int32(x):\n    return tf.cast(x, tf.int32)\ndef bucket(n, max_exact, scale):\n"
            "    large = max_exact + _to_int32(tf.math.log(tf.cast(n, tf.float32) / scale))\n    return tf.where(n < scale, n, large)\n"
        ),
        # At `q == 0`, `omq2` is 1 and `seff` is selected: the select hides no pole (point 104).
        Valid("import jax.numpy as jnp\ndef f(q, c):\n    seff = c / q\n    omq2 = 1.0 - q * q\n    return jnp.where(omq2 == 0.0, 0.0, seff)\n"),
        # `relu`'s gradient is a select that drops the NaN made where its value is 0 (point 111);
        # under XLA in TensorFlow, and eagerly because `sqrt`'s own gradient there is 0.
        Valid("import tensorflow as tf\ndef vol(var):\n    v = tf.math.sqrt(tf.nn.relu(var))\n    return tf.where(v > 0.0, v, 0.0)\n"),
    )
    INVALID = (
        # An `int` attribute that may be negative makes a pole at 0 (point 130).
        Invalid(
            "import torch\nclass Filter:\n    def __init__(self, mode: int = 0):\n        self.mode = mode\n"
            "    def forward(self, k, d):\n        n = torch.sum(k * d, dim=-1) ** self.mode\n"
            "        return torch.where(torch.linalg.norm(d, dim=-1) == 0, 0.0, n)\n",
            line=7,
        ),
        # ... but `i - 3` is negative for the first three: a pole at 0, where `s` is unselected.
        Invalid(
            "import torch\ndef expand(bound, s, n: int):\n    for i in range(n):\n        step = torch.abs(s) ** (i - 3)\n"
            "        bound = torch.where(s > 1, bound - step, bound)\n    return bound\n",
            line=5,
        ),
        # ... but not when `r = q * 2` may not have run: with `exact` false, `r` is 0 everywhere.
        Invalid(
            "import jax.numpy as jnp\ndef f(a, d, exact):\n    q = a / d\n    r = jnp.zeros_like(d)\n    if exact:\n"
            "        r = q * 2\n    return jnp.where(r != 0, q, 1.0)\n",
            line=7,
        ),
        # A local bound in either arm of an `if` holds either value (point 134): where `dense`,
        # `r` is the root of a sum of squares, 0 for a zero column, where the select takes 1.0.
        Invalid(
            "import jax.numpy as jnp\ndef scale(a, dense):\n    if dense:\n        r = jnp.sqrt(jnp.sum(a * a, axis=0))\n"
            "    else:\n        r = jnp.max(jnp.abs(a), axis=0)\n    return jnp.where(r == 0, 1.0, r)\n",
            line=7,
        ),
        # A `raise` a `with` may suppress (point 140): the code after it runs, with the arm's binding.
        Invalid(
            "import contextlib\nimport jax.numpy as jnp\ndef f(x, y, exact):\n    with contextlib.suppress(ValueError):\n        if exact:\n"
            "            x = jnp.sqrt(y)\n            raise ValueError\n    return jnp.where(x > 0, x, 0.0)\n",
            line=8,
        ),
        # Around a loop, a binding in the other arm of an `if` may reach the select, in the turn before
        # (point 139).
        Invalid(
            "import jax.numpy as jnp\ndef f(x, n):\n    for i in range(n):\n        if i % 2:\n            x = jnp.log(x)\n"
            "        else:\n            x = jnp.where(x > 0, x, 0.0)\n    return x\n",
            line=7,
        ),
        # exp(-q) is finite (0) where q is +inf: `e == 0` holds at the pole.
        Invalid("import jax.numpy as jnp\ndef f(x1, x2):\n    q = x2 / x1\n    e = jnp.exp(-q)\n    return jnp.where(e == 0.0, 0.0, q)\n", line=5),
        # A NaN placeholder made from data keeps the data's gradient, times NaN (point 84).
        Invalid("import jax.numpy as jnp\ndef f(s, xi):\n    res = jnp.nan * s\n    return jnp.where(xi > 0, 0.0, res)\n", line=4),
        # ... at every select that drops it, also where a nested one takes it: `d(nan * s)/ds` is NaN
        # whatever `s` is, so no mask in the nested select helps the enclosing one.
        Invalid(
            "import jax.numpy as jnp\ndef cdf(s, xi):\n    res = jnp.nan * s\n    res = jnp.where(xi == 0, jnp.exp(-s), res)\n"
            "    return jnp.where((xi > 0) & (s <= -1 / xi), 0.0, res)\n",
            line=5,
        ),
        # A condition on the root is one on its argument (`sqrt(v) > 0` is `v > 0`): where it fails,
        # v may be 0, and the nested select's branches are unselected there too.
        Invalid(
            "import tensorflow as tf\ndef price(variance, a, is_call, intrinsic):\n    sqrt_variance = tf.math.sqrt(variance)\n"
            "    d2 = a - tf.math.sqrt(variance)\n"
            "    return tf.where(sqrt_variance > 0.0, tf.where(is_call, d2, -d2), intrinsic)\n",
            line=5,
        ),
        # A bound on the quotient that +-inf or NaN meets leaves the pole unselected: `not (q <= 1)`
        # holds where `q` is NaN, and `|q| > 1` where it is infinite.
        Invalid("import torch\ndef f(x, d):\n    q = x / d\n    return torch.where(q <= 1.0, q, 0.0)\n", line=4),
        Invalid("import torch\ndef f(x, d):\n    q = x / d\n    return torch.where(torch.abs(q) > 1.0, 0.0, q)\n", line=4),
        # `zeros_like(t)` reads only the shape of `t`: the other branch does not evaluate the division.
        Invalid(
            "import tensorflow as tf\ndef interp(x, x0, x1):\n    dx = x1 - x0\n    t = (x - x0) / dx\n"
            "    return tf.where(dx > 0, t, tf.zeros_like(t))\n",
            line=5,
        ),
        Invalid(
            "import jax.numpy as jnp\ndef f(x):\n    s = jnp.sqrt(x)\n    return jnp.where(x > 0, s, 0.0)\n",
            line=4,
            fixed="import jax.numpy as jnp\ndef f(x):\n    s = jnp.sqrt(jnp.where(x > 0, x, 1.0))\n    return jnp.where(x > 0, s, 0.0)\n",
        ),
        Invalid("import torch\ndef f(x):\n    r = 1.0 / x\n    y = r * 2\n    return torch.where(x != 0, y, 0.0)\n", line=5),
        # The enclosing select's condition is the guard: where `lo == hi` it takes 0, and the nested
        # one, unselected whole, sends `rc` a zero cotangent at `diff == 0` (`a == b` is `a - b == 0`).
        Invalid(
            "import jax.numpy as jnp\ndef hue(hi, lo, r):\n    diff = hi - lo\n    rc = (hi - r) / diff\n"
            "    return jnp.where(lo == hi, 0.0, jnp.where(r == hi, 0.0, rc))\n",
            line=5,
            fixed="import jax.numpy as jnp\ndef hue(hi, lo, r):\n    diff = hi - lo\n    rc = (hi - r) / jnp.where(lo == hi, 1.0, diff)\n"
            "    return jnp.where(lo == hi, 0.0, jnp.where(r == hi, 0.0, rc))\n",
        ),
        # The same through a local computed by a clamp: where `x > 1` the power's base is negative,
        # its value NaN; the clamp keeps the NaN, and the where's zero cotangent meets it.
        Invalid(
            "import jax.numpy as jnp\ndef impedance(x, p):\n    p = jnp.maximum(1.0, p)\n"
            "    y = jnp.clip(1 - jnp.power(1 - x, p), 0.0, 1.0)\n    return jnp.where(x > 1.0, 1.0, y)\n",
            line=5,
            fixed="import jax.numpy as jnp\ndef impedance(x, p):\n    p = jnp.maximum(1.0, p)\n"
            "    y = jnp.clip(1 - jnp.power(jnp.where(x > 1.0, 1.0, 1 - x), p), 0.0, 1.0)\n    return jnp.where(x > 1.0, 1.0, y)\n",
        ),
        # A condition on the op's own value is not read at its pole: there `exp(x)` is inf (and
        # `exp(-q)` of an infinite `q` is 0), which value ranges, of real numbers, do not hold.
        Invalid("import jax.numpy as jnp\ndef f(x):\n    y = jnp.exp(x)\n    return jnp.where(y > 1.0, x, y)\n", line=4),
        # tad-mctc's clamped `cdist` with 0 for masked pairs: the product of squares is 0 there, the
        # root's pole (point 127, whose VALID twin fills them with eps).
        Invalid(
            "import torch\nfrom tad_mctc import storch\nfrom tad_mctc.batch import real_pairs, real_triples\ndef atm(numbers, positions):\n"
            "    pairs, triples = real_pairs(numbers), real_triples(numbers)\n"
            "    d = torch.pow(torch.where(pairs, storch.cdist(positions, positions), 0.0), 2.0)\n"
            "    r1 = torch.sqrt(d.unsqueeze(-1) * d.unsqueeze(-2))\n    return torch.where(triples, r1, 1.0)\n",
            line=8,
        ),
    )
