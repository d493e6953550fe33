from nanlint.rules.base import Invalid, Rule, Valid


class InvalidSyntax(Rule):
    """
    ## What it does
    Reports a file that nanlint cannot parse as Python. It is always on: a file that does not parse
    is a file nanlint did not check.

    ## Why is this bad?
    The other rules cannot look inside the file, so a leak there would go unreported. The other
    files of the run are still checked.

    ## Example
    ```python
    def f(x:
        return x
    ```

    Use instead:
    ```python
    def f(x):
        return x
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
    VALID = (Valid("x = 1\n"),)
    INVALID = (Invalid("def f(:\n", line=1),)
