from nanlint.rules.base import Invalid, Rule, Valid


class InvalidSyntax(Rule):
    """
    ## What it does
    Reports a syntax error in code nanlint has to read: a file that calls a select (`where`,
    `select`, a clamp) and does not parse. It is always on.

    nanlint parses only what can hold a finding. A file that never calls a select is not parsed at
    all, and its syntax errors are left to the tools whose job that is (ruff, the compiler, the test
    run). In a file that does call one, Python's own parser reads each function, class member or
    top-level statement that calls it, and the statements those need; when one of them fails, the
    whole file is parsed and the first error is reported.

    In a Jupyter notebook that calls a select, each code cell is parsed on its own (IPython's magics
    and shell escapes blanked): a cell that fails is one finding, at its line in that cell, and the
    other cells are still checked.

    ## Why is this bad?
    The other rules cannot look inside the file, so a leak there would go unreported. The other
    files of the run are still checked.

    ## Example
    ```python
    import jax.numpy as jnp

    def f(x:
        return jnp.where(x > 0, x, 0.0)
    ```

    Use instead:
    ```python
    import jax.numpy as jnp

    def f(x):
        return jnp.where(x > 0, x, 0.0)
    ```

    ## Fix safety
    No fix.

    ## References
    - The Python grammar: https://docs.python.org/3/reference/grammar.html
    """

    CODE = "NAN900"
    NAME = "invalid-syntax"
    SUMMARY = "File cannot be parsed"
    MESSAGE = "SyntaxError: {error}"
    VALID = (Valid("import jax.numpy as jnp\ny = jnp.where(c, x, 0.0)\n"),)
    INVALID = (Invalid("import jax.numpy as jnp\ndef f(:\n    return jnp.where(c, x, 0.0)\n", line=2),)
